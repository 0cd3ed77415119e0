// The loss kernel's tile computes (LossKernel, every key of the table: dtype x weight x
// pos_weight x loss in the compute type x with the gradient) on every SIMD target built and
// supported here: an element's bits do not depend on where it sits in the tile or how long the
// tile is (the interleaved groups, the single chunks and the padded tail run the same operations,
// and the exceptional lanes' fallback does not touch their neighbours), and nothing past the
// count is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "narrow_reference.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "opdev/kernel_dtype.h"

namespace aclnn_cpu::bce_loss {
namespace {

constexpr KernelDType kDTypes[] = {KernelDType::kFloat, KernelDType::kFloat16, KernelDType::kBFloat16,
                                   KernelDType::kDouble};
constexpr uint8_t kPoison = 0xA5;

/// The bits of @p value (rounded to nearest) in a 16-bit format, through a table of every pattern.
uint16_t EncodeNarrow(double value, bce_kernel_test::NarrowFormat format) {
  static std::map<std::pair<int, double>, uint16_t> tables[2];
  auto& table = tables[format.precision == bce_kernel_test::kHalfFormat.precision ? 0 : 1];
  if (table.empty()) {
    for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
      const double v = bce_kernel_test::DecodeReference(static_cast<uint16_t>(bits), format);
      if (!std::isnan(v)) table[{std::signbit(v) ? 1 : 0, v}] = static_cast<uint16_t>(bits);
    }
  }
  if (std::isnan(value)) return format.precision == bce_kernel_test::kHalfFormat.precision ? 0x7E00 : 0x7FC0;
  const double rounded = bce_kernel_test::RoundReference(value, format);
  return table.at({std::signbit(rounded) ? 1 : 0, rounded});
}

/// @p values stored in @p dtype, as bytes.
std::vector<uint8_t> Store(const std::vector<double>& values, KernelDType dtype) {
  const size_t size = KernelDTypeSize(dtype);
  std::vector<uint8_t> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* at = bytes.data() + i * size;
    switch (dtype) {
      case KernelDType::kFloat: {
        const float f = static_cast<float>(values[i]);
        std::memcpy(at, &f, 4);
        break;
      }
      case KernelDType::kDouble: std::memcpy(at, &values[i], 8); break;
      case KernelDType::kFloat16: {
        const uint16_t h = EncodeNarrow(values[i], bce_kernel_test::kHalfFormat);
        std::memcpy(at, &h, 2);
        break;
      }
      case KernelDType::kBFloat16: {
        const uint16_t b = EncodeNarrow(values[i], bce_kernel_test::kBFloat16Format);
        std::memcpy(at, &b, 2);
        break;
      }
    }
  }
  return bytes;
}

struct TileInputs {
  std::vector<uint8_t> x, y, weight, pos_weight, dout;
};

/// Random inputs with exceptional elements sprinkled in (infinite and NaN logits, labels of 1
/// whose zero factor meets an infinite softplus, zero pos_weights), so that some interleaved
/// groups take the fallback and others do not.
TileInputs RandomInputs(KernelDType dtype, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> logit(-30, 30), unit(0, 1), weight(0, 3);
  std::vector<double> x(n), y(n), w(n), pw(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = logit(rng);
    y[i] = unit(rng);
    w[i] = weight(rng);
    pw[i] = weight(rng);
    if (i % 37 == 5) x[i] = (i % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    if (i % 53 == 11) x[i] = std::numeric_limits<double>::quiet_NaN();
    if (i % 41 == 7) y[i] = 1;
    if (i % 43 == 3) pw[i] = 0;
    if (i % 47 == 9) y[i] = 0;
  }
  return {Store(x, dtype), Store(y, dtype), Store(w, dtype), Store(pw, dtype), Store({-1.5}, dtype)};
}

struct TileRun {
  std::vector<uint8_t> loss, gradient;
  bool guards_intact = true;
};

constexpr size_t kGuardBytes = 256;

TileRun RunTile(uint32_t key, KernelDType dtype, const TileInputs& in, size_t offset, size_t count) {
  const size_t size = KernelDTypeSize(dtype);
  const bool to_compute = key & 1;
  const bool with_gradient = key & 8;
  const size_t loss_size = to_compute ? (dtype == KernelDType::kDouble ? 8 : 4) : size;
  std::vector<uint8_t> loss(count * loss_size + kGuardBytes, kPoison), gradient(count * size + kGuardBytes, kPoison);
  // Copies of the tile's operands, so that the tile starts at a fresh address.
  const auto part = [&](const std::vector<uint8_t>& v) {
    const auto begin = v.begin() + static_cast<ptrdiff_t>(offset * size);
    return std::vector<uint8_t>(begin, begin + static_cast<ptrdiff_t>(count * size));
  };
  const std::vector<uint8_t> x = part(in.x), y = part(in.y), w = part(in.weight), pw = part(in.pos_weight);
  TileArgs io;
  io.at[kPredict] = x.data();
  io.at[kTarget] = y.data();
  io.at[kWeight] = w.data();
  io.at[kPosWeight] = pw.data();
  io.at[kLoss] = loss.data();
  io.at[kDout] = with_gradient ? in.dout.data() : nullptr;
  io.at[kGradient] = with_gradient ? gradient.data() : nullptr;
  io.scale = 0.25;
  ChosenKernelTable().fn[key](io, count);
  TileRun run;
  for (size_t b = count * loss_size; b < loss.size(); ++b) run.guards_intact &= loss[b] == kPoison;
  for (size_t b = count * size; b < gradient.size(); ++b) run.guards_intact &= gradient[b] == kPoison;
  loss.resize(count * loss_size);
  gradient.resize(with_gradient ? count * size : 0);
  run.loss = std::move(loss);
  run.gradient = std::move(gradient);
  return run;
}

std::string KeyLabel(uint32_t key) {
  return std::string(KernelDTypeLabel(static_cast<KernelDType>(key / 16))) + (key & 8 ? " fused" : " loss") +
         (key & 4 ? " weight" : "") + (key & 2 ? " pos_weight" : "") + (key & 1 ? " to compute" : " to storage");
}

class LossComputeTile : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { hwy::SetSupportedTargetsForTest(GetParam()); }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_P(LossComputeTile, ResultOfAnElementDoesNotDependOnCountOrPosition) {
  for (const KernelDType dtype : kDTypes) {
    const size_t size = KernelDTypeSize(dtype);
    // 300 elements: several interleaved groups (up to 64 elements on AVX-512), single chunks, a tail.
    constexpr size_t kElements = 300;
    const TileInputs in = RandomInputs(dtype, kElements + 40, 17 + static_cast<uint32_t>(dtype));
    for (uint32_t variant = 0; variant < 16; ++variant) {
      const uint32_t key = static_cast<uint32_t>(dtype) * 16 + variant;
      const bool to_compute = key & 1;
      const size_t loss_size = to_compute ? (dtype == KernelDType::kDouble ? 8 : 4) : size;
      const TileRun full = RunTile(key, dtype, in, 0, kElements + 40);
      ASSERT_TRUE(full.guards_intact) << KeyLabel(key);
      for (size_t shift : {size_t{0}, size_t{1}, size_t{5}, size_t{17}, size_t{40}}) {
        for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{17}, size_t{33}, size_t{65}, size_t{129},
                             kElements}) {
          const TileRun tile = RunTile(key, dtype, in, shift, count);
          ASSERT_TRUE(tile.guards_intact) << KeyLabel(key) << " count " << count;
          for (size_t i = 0; i < count; ++i) {
            ASSERT_EQ(std::memcmp(tile.loss.data() + i * loss_size, full.loss.data() + (shift + i) * loss_size,
                                  loss_size),
                      0)
                << KeyLabel(key) << ": loss of element " << shift + i << " at position " << i << " of " << count;
            if (!tile.gradient.empty()) {
              ASSERT_EQ(std::memcmp(tile.gradient.data() + i * size, full.gradient.data() + (shift + i) * size, size),
                        0)
                  << KeyLabel(key) << ": gradient of element " << shift + i << " at position " << i << " of "
                  << count;
            }
          }
        }
      }
    }
  }
}

TEST_P(LossComputeTile, StagedBlocksGiveTheBitsOfElementsComputedAFewAtATime) {
  // A tile of whole blocks of the staged passes (Note [Staged passes]), a partial block, a single
  // chunk and a tail, against the same elements three at a time: shorter than any chunk, so
  // through the padded, unstaged group alone.
  constexpr size_t kElements = 2 * 512 + 3 * 64 + 16 + 5;
  constexpr size_t kWindow = 3;
  for (const KernelDType dtype : kDTypes) {
    const size_t size = KernelDTypeSize(dtype);
    const TileInputs in = RandomInputs(dtype, kElements, 29 + static_cast<uint32_t>(dtype));
    for (uint32_t variant = 0; variant < 16; ++variant) {
      const uint32_t key = static_cast<uint32_t>(dtype) * 16 + variant;
      const size_t loss_size = (key & 1) ? (dtype == KernelDType::kDouble ? 8 : 4) : size;
      const TileRun full = RunTile(key, dtype, in, 0, kElements);
      ASSERT_TRUE(full.guards_intact) << KeyLabel(key);
      for (size_t start = 0; start < kElements; start += kWindow) {
        const size_t count = std::min(kWindow, kElements - start);
        const TileRun few = RunTile(key, dtype, in, start, count);
        ASSERT_EQ(std::memcmp(few.loss.data(), full.loss.data() + start * loss_size, count * loss_size), 0)
            << KeyLabel(key) << ": loss of elements from " << start;
        if (!few.gradient.empty()) {
          ASSERT_EQ(std::memcmp(few.gradient.data(), full.gradient.data() + start * size, count * size), 0)
              << KeyLabel(key) << ": gradient of elements from " << start;
        }
      }
    }
  }
}

TEST_P(LossComputeTile, ExceptionalLanesGiveTheLimitsWhateverTheirNeighbours) {
  // One exceptional element among ordinary ones, at every position of a tile: x = +inf with
  // y = 1 gives 0 (the zero factor's term is dropped, not inf * 0), a NaN x gives NaN.
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t at = 0; at < 80; ++at) {
    std::vector<float> x(80, 0.75f), y(80, 0.25f), out(80, -1.0f);
    x[at] = inf;
    y[at] = 1;
    if (at % 3 == 0) x[(at + 7) % 80] = std::numeric_limits<float>::quiet_NaN();
    TileArgs io;
    io.at[kPredict] = x.data();
    io.at[kTarget] = y.data();
    io.at[kLoss] = out.data();
    ChosenKernelTable().fn[MakeLossKernelKey(KernelDType::kFloat, false, false, false)](io, x.size());
    ASSERT_EQ(out[at], 0.0f) << "x = +inf, y = 1 at " << at;
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        ASSERT_TRUE(std::isnan(out[i])) << i;
      } else if (i != at) {
        // The ordinary loss: 0.25 softplus(-0.75) + 0.75 softplus(0.75), to a few ulp.
        ASSERT_NEAR(out[i], 0.25 * std::log1p(std::exp(-0.75)) + 0.75 * (0.75 + std::log1p(std::exp(-0.75))), 1e-6)
            << i;
      }
    }
  }
}

// The chunk sums of mean and sum (Note [Deterministic reduction], Note [Chunks summed side by
// side]): each chunk of kSumChunkElems losses, whole or the last partial one, summed in fp64 in the
// one documented order: sixteen accumulators, element i to accumulator i mod 16 in increasing i,
// joined by the tree (k, k + 8), (k, k + 4), (k, k + 2), (k, k + 1). Bitwise, on every target,
// for buffers of several chunks (summed side by side) and of a partial last chunk.
TEST_P(LossComputeTile, ChunkSumsFollowTheOneOrderOnEveryTarget) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> mantissa(0.5f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (const size_t n : {size_t{1}, size_t{15}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{3000}, size_t{4096},
                         size_t{4097}, 5 * kSumChunkElems + 7, 8 * kSumChunkElems}) {
    std::vector<float> losses(n);
    // Magnitudes over 60 binades: every rounding of the fp64 adds shows if the order differs.
    for (float& v : losses) v = std::ldexp(mantissa(rng), exponent(rng));
    const size_t chunks = (n + kSumChunkElems - 1) / kSumChunkElems;
    std::vector<ChunkSum> got(chunks + 1, ChunkSum{-1.0, -1.0});
    ChosenKernelTable().sum_chunk_float(losses.data(), n, got.data());
    for (size_t c = 0; c < chunks; ++c) {
      double acc[16] = {};
      const size_t begin = c * kSumChunkElems, end = std::min(n, begin + kSumChunkElems);
      for (size_t i = begin; i < end; ++i) acc[(i - begin) % 16] += static_cast<double>(losses[i]);
      for (size_t width = 8; width >= 1; width /= 2) {
        for (size_t k = 0; k < width; ++k) acc[k] += acc[k + width];
      }
      EXPECT_EQ(got[c].hi, acc[0]) << "n " << n << " chunk " << c;
      EXPECT_EQ(got[c].lo, 0.0) << "n " << n << " chunk " << c;
    }
    EXPECT_EQ(got[chunks].hi, -1.0) << "wrote past the last chunk, n " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, LossComputeTile, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& target) {
                           return std::string(hwy::TargetName(target.param));
                         });

}  // namespace
}  // namespace aclnn_cpu::bce_loss
