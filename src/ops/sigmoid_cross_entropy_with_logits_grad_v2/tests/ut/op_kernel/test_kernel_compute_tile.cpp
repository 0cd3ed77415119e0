// The per-tile compute functions (SelfKernel(key), TargetKernel(key): ChosenKernelTable().fn) called directly, XNNPACK
// style: every tiling key, counts from 0 past several vectors and the unrolled loop, on every
// SIMD target.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "kernel_test_util.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace bce_kernel_test {
namespace {

using aclnn_cpu::bce_grad::ChosenKernelTable;
using aclnn_cpu::bce_grad::KernelDTypeSize;
using aclnn_cpu::bce_grad::kTilingKeyCount;
using aclnn_cpu::bce_grad::TilingKeyDType;
using aclnn_cpu::bce_grad::TilingKeyHasPosWeight;
using aclnn_cpu::bce_grad::TilingKeyHasWeight;

class KernelComputeTile : public OnEverySimdTarget {};

/// Lanes of the compute type in the widest vector.
size_t MaxLanes(uint32_t key) {
  return kWidestVectorBytes / (TilingKeyDType(key) == KernelDType::kDouble ? sizeof(double) : sizeof(float));
}

/// Counts 0 .. 12 * lanes + 1: below, at and above one vector, and past the unrolled loop of
/// four vectors (or two chunks of two vectors for bf16) followed by a single chunk and a tail.
size_t MaxCount(uint32_t key) { return 12 * MaxLanes(key) + 1; }

struct TileInputs {
  std::vector<double> x, y, dout, weight, pos_weight;
};

TileInputs RandomInputs(uint32_t key, size_t n, uint64_t seed) {
  const aclDataType dtype = AclDTypeOf(TilingKeyDType(key));
  std::mt19937_64 rng(seed);
  TileInputs in;
  for (size_t i = 0; i < n; ++i) {
    in.x.push_back(RandomIn(rng, -12, 12, dtype));
    in.y.push_back(RandomIn(rng, 0, 1, dtype));
    in.dout.push_back(RandomIn(rng, -2, 2, dtype));
    in.weight.push_back(RandomIn(rng, 0, 2, dtype));
    in.pos_weight.push_back(RandomIn(rng, 0.25, 4, dtype));
  }
  return in;
}

TileRun RunKey(uint32_t key, const TileInputs& in, size_t count, double scale, bool stream = false, size_t misalign = 0) {
  return RunTile(SelfKernel(key), key, in.x, in.y, in.dout, in.weight, in.pos_weight, count, scale,
                 stream, misalign);
}

ElementInputs At(uint32_t key, const TileInputs& in, size_t i) {
  ElementInputs e{in.x[i], in.y[i], in.dout[i], std::nullopt, std::nullopt};
  if (TilingKeyHasWeight(key)) e.weight = in.weight[i];
  if (TilingKeyHasPosWeight(key)) e.pos_weight = in.pos_weight[i];
  return e;
}

TEST_P(KernelComputeTile, EveryKeyAndCountAroundTheVectorWidthMatchesReference) {
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const KernelDType dtype = TilingKeyDType(key);
    const TileInputs in = RandomInputs(key, MaxCount(key), key);
    const double scale = dtype == KernelDType::kDouble ? 1.0 / 3 : static_cast<double>(1.0f / 3);
    for (size_t count = 0; count <= MaxCount(key); ++count) {
      const TileRun run = RunKey(key, in, count, scale);
      ASSERT_TRUE(run.guards_intact) << TilingKeyLabel(key) << " count " << count << ": wrote outside the tile";
      for (size_t i = 0; i < count; ++i) {
        ASSERT_TRUE(MatchesReference(run.values[i], At(key, in, i), scale, ComputeDTypeOf(dtype), AclDTypeOf(dtype)))
            << TilingKeyLabel(key) << " count " << count << " element " << i;
      }
    }
  }
}

TEST_P(KernelComputeTile, ZeroCountWritesNothing) {
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const TileInputs in = RandomInputs(key, 1, key);
    EXPECT_TRUE(RunKey(key, in, 0, 1.0).guards_intact) << TilingKeyLabel(key);
  }
}

TEST_P(KernelComputeTile, ResultOfAnElementDoesNotDependOnCountOrPosition) {
  // The same inputs give the same bits in the vector loop, the unrolled loop or the padded tail.
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const size_t n = MaxCount(key) + MaxLanes(key);
    const TileInputs in = RandomInputs(key, n, 50 + key);
    const TileRun full = RunKey(key, in, n, 0.5);
    for (size_t shift = 0; shift <= MaxLanes(key); shift += 3) {
      TileInputs shifted;
      for (auto [src, dst] : {std::pair{&in.x, &shifted.x}, {&in.y, &shifted.y}, {&in.dout, &shifted.dout},
                              {&in.weight, &shifted.weight}, {&in.pos_weight, &shifted.pos_weight}}) {
        dst->assign(src->begin() + static_cast<ptrdiff_t>(shift), src->end());
      }
      for (size_t count : {size_t{1}, MaxLanes(key) - 1, MaxLanes(key) + 1, 4 * MaxLanes(key) + 3}) {
        const TileRun part = RunKey(key, shifted, count, 0.5);
        for (size_t i = 0; i < count; ++i) {
          ASSERT_EQ(part.bits[i], full.bits[shift + i])
              << TilingKeyLabel(key) << " element " << shift + i << " at position " << i << " of " << count;
        }
      }
    }
  }
}

TEST_P(KernelComputeTile, StagedBlocksGiveTheBitsOfElementsComputedAFewAtATime) {
  // Whole blocks of the staged passes (Note [Staged passes]: two groups of four vectors), a
  // partial block, a single chunk and a tail, against the same elements three at a time: shorter
  // than any chunk, so through the padded, unstaged group alone. Both gradients: with respect to
  // self and to the target.
  constexpr size_t kWindow = 3;
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const size_t lanes = MaxLanes(key);
    const size_t n = 2 * 32 * lanes + 3 * 4 * lanes + lanes + 5;
    const TileInputs in = RandomInputs(key, n, 90 + key);
    for (const TileFn fn : {SelfKernel(key), TargetKernel(key)}) {
      const std::string label = TilingKeyLabel(key) + (fn == SelfKernel(key) ? " (self)" : " (target)");
      const TileRun full = RunTile(fn, key, in.x, in.y, in.dout, in.weight, in.pos_weight, n, 0.5);
      ASSERT_TRUE(full.guards_intact) << label;
      for (size_t start = 0; start < n; start += kWindow) {
        const size_t count = std::min(kWindow, n - start);
        const auto few = [&](const std::vector<double>& v) {
          return std::vector<double>(v.begin() + static_cast<ptrdiff_t>(start),
                                     v.begin() + static_cast<ptrdiff_t>(start + count));
        };
        const TileRun part =
            RunTile(fn, key, few(in.x), few(in.y), few(in.dout), few(in.weight), few(in.pos_weight), count, 0.5);
        for (size_t i = 0; i < count; ++i) {
          ASSERT_EQ(part.bits[i], full.bits[start + i]) << label << " element " << start + i;
        }
      }
    }
  }
}

TEST_P(KernelComputeTile, NonTemporalStoresGiveTheSameBitsAndStayInTheTile) {
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const TileInputs in = RandomInputs(key, MaxCount(key), 70 + key);
    for (size_t count = 0; count <= MaxCount(key); ++count) {
      const TileRun plain = RunKey(key, in, count, 1.0);
      for (size_t misalign : {size_t{0}, size_t{1}}) {  // aligned: streamed; misaligned: plain stores
        const TileRun streamed = RunKey(key, in, count, 1.0, /*stream=*/true, misalign);
        ASSERT_TRUE(streamed.guards_intact) << TilingKeyLabel(key) << " count " << count << " misalign " << misalign;
        ASSERT_EQ(streamed.bits, plain.bits) << TilingKeyLabel(key) << " count " << count << " misalign " << misalign;
      }
    }
  }
}

TEST_P(KernelComputeTile, UniformDoutGivesTheBitsOfTheMaterializedDout) {
  // dout_uniform reads dout[0] once and keeps it in registers (RunTile gives it a
  // one-element allocation); the results must be those of the same value repeated.
  const double kInf = std::numeric_limits<double>::infinity();
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    TileInputs in = RandomInputs(key, MaxCount(key), 110 + key);
    for (double value : {-1.75, 0.375, 0.0, -kInf, std::numeric_limits<double>::quiet_NaN()}) {
      std::fill(in.dout.begin(), in.dout.end(), value);
      for (size_t count = 0; count <= MaxCount(key); ++count) {
        for (bool stream : {false, true}) {
          const TileRun materialized = RunKey(key, in, count, 0.25, stream);
          const TileRun uniform = RunTile(SelfKernel(key), key, in.x, in.y, in.dout, in.weight,
                                          in.pos_weight, count, 0.25, stream, 0, /*dout_uniform=*/true);
          ASSERT_TRUE(uniform.guards_intact) << TilingKeyLabel(key) << " count " << count;
          ASSERT_EQ(uniform.bits, materialized.bits)
              << TilingKeyLabel(key) << " dout " << value << " count " << count << (stream ? " streamed" : "");
        }
      }
    }
  }
}

TEST_P(KernelComputeTile, OutputMayAliasPredictOrDoutExactly) {
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const KernelDType dtype = TilingKeyDType(key);
    const aclDataType acl = AclDTypeOf(dtype);
    const size_t n = MaxCount(key);
    const TileInputs in = RandomInputs(key, n, 90 + key);
    const TileRun separate = RunKey(key, in, n, 1.0);
    for (int aliased : {0, 2}) {  // predict, dout
      GuardedBuffer x(static_cast<int64_t>(n), acl), y(static_cast<int64_t>(n), acl), dout(static_cast<int64_t>(n), acl),
          w(static_cast<int64_t>(n), acl), pw(static_cast<int64_t>(n), acl);
      for (size_t i = 0; i < n; ++i) {
        const auto k = static_cast<int64_t>(i);
        x.Set(k, in.x[i]);
        y.Set(k, in.y[i]);
        dout.Set(k, in.dout[i]);
        w.Set(k, in.weight[i]);
        pw.Set(k, in.pos_weight[i]);
      }
      TileArgs io;
      io.at[kPredict] = x.data();
      io.at[kTarget] = y.data();
      io.at[kDout] = dout.data();
      io.at[kWeight] = TilingKeyHasWeight(key) ? w.data() : nullptr;
      io.at[kPosWeight] = TilingKeyHasPosWeight(key) ? pw.data() : nullptr;
      GuardedBuffer& out = aliased == 0 ? x : dout;
      io.at[kGradient] = out.data();
      CallTile(SelfKernel(key), io, n, 1.0);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out.Bits(static_cast<int64_t>(i)), separate.bits[i])
            << TilingKeyLabel(key) << (aliased == 0 ? " in place of predict" : " in place of dout") << ", element " << i;
      }
    }
  }
}

TEST_P(KernelComputeTile, TableHasAKernelForEveryKeyAndNamesItsTarget) {
  const auto& table = ChosenKernelTable();
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    EXPECT_NE(SelfKernel(key), nullptr) << key;
    EXPECT_NE(TargetKernel(key), nullptr) << key;
  }
  EXPECT_STREQ(table.target_name, target_name());
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, KernelComputeTile, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         SimdTargetName);

}  // namespace
}  // namespace bce_kernel_test
