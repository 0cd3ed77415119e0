// The shared elementwise layer apart from any real operator: a toy operator of its own traits
// (out = a * b, plus the sum of out) is planned by PlanElementwise, split by
// ComputeElementwiseTiling on a pinned platform, driven by RunElementwiseBlock and launched as a
// two-stage plan (per-block partial sums, then a combine) through the runtime's executor and a
// stream. Every element and the sum are checked against a float64 reference, on layouts that hit
// every access class, and the combine must see every block's partial.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "client/two_phase_call.h"
#include "opdev/elementwise_block.h"
#include "opdev/elementwise_plan.h"
#include "opdev/elementwise_tiling.h"
#include "opdev/kernel_dtype.h"
#include "runtime/executor.h"

namespace {

using namespace aclnn_cpu;

enum ToyOperand : size_t { kA = 0, kB, kOut, kToyOperands };

struct ToyTraits {
  static constexpr size_t kOperands = kToyOperands;
  static constexpr bool IsOutput(size_t o) { return o == kOut; }
  static constexpr bool ReadsConstantOnce(size_t) { return false; }
};
static_assert(ElementwiseTraits<ToyTraits>);

/// Stage 0: out = a * b per block, each block's sum of out (in double, in element order) into its
/// workspace slot after its tile buffers. Stage 1: one block adds the slots in block order.
class ToyPlan final : public LaunchPlan {
 public:
  ElementwiseTilingData tiling;
  IterSpace space;
  GlobalOperand operands[kToyOperands];
  uint64_t buffer_bytes = 0;
  LaunchStage stages[2];
  double* sum = nullptr;  ///< where the combine writes
  mutable std::vector<int> blocks_run;

  std::span<const LaunchStage> Stages() const override { return stages; }
  bool RunInlineIfIdle() const override { return false; }
  void RunBlock(size_t stage, uint64_t block, char* workspace) const override {
    if (stage == 0) {
      char* slice = BlockWorkspace(workspace, 0, block);
      double partial = 0;
      RunElementwiseBlock<ToyTraits, float>(tiling, space, operands, block, slice,
                                            [&](const char* const* at, int64_t count) {
                                              const auto* a = reinterpret_cast<const float*>(at[kA]);
                                              const auto* b = reinterpret_cast<const float*>(at[kB]);
                                              auto* out = reinterpret_cast<float*>(const_cast<char*>(at[kOut]));
                                              for (int64_t i = 0; i < count; ++i) {
                                                out[i] = a[i] * b[i];
                                                partial += out[i];
                                              }
                                            });
      std::memcpy(slice + buffer_bytes, &partial, sizeof partial);
      blocks_run[block] += 1;
    } else {
      double total = 0;
      for (uint64_t b = 0; b < stages[0].blocks; ++b) {
        double partial = 0;
        std::memcpy(&partial, BlockWorkspace(workspace, 0, b) + buffer_bytes, sizeof partial);
        total += partial;
      }
      *sum = total;
    }
  }
};

/// A tensor over host memory of float (a) values at the given view.
struct View {
  std::vector<int64_t> dims, strides;
  int64_t storage = 0;
  aclDataType dtype = ACL_FLOAT;
};

class ElementwiseLayer : public ::testing::Test {
 protected:
  // main() (tests/support/acl_test_main.cpp) has initialised the runtime.

  /// Runs the toy operator on views of a, b and out over @p shape and checks every result.
  void Check(const std::vector<int64_t>& shape, const View (&views)[kToyOperands], Access expected_a,
             Access expected_b, Access expected_out) {
    std::vector<std::vector<char>> storage(kToyOperands);
    const aclTensor* tensors[kToyOperands] = {};
    for (size_t o = 0; o < kToyOperands; ++o) {
      const View& v = views[o];
      storage[o].assign(static_cast<size_t>(v.storage) * DTypeSize(v.dtype), 0);
      float* f = reinterpret_cast<float*>(storage[o].data());
      for (int64_t i = 0; i < v.storage; ++i) {
        if (o == kOut) {
          f[i] = -7.25f;  // poison
        } else if (v.dtype == ACL_FLOAT) {
          f[i] = static_cast<float>(0.5 + 0.001 * static_cast<double>(i % 997) * (o == kA ? 1 : -3));
        }
      }
      if (v.dtype == ACL_DOUBLE) {
        auto* d = reinterpret_cast<double*>(storage[o].data());
        for (int64_t i = 0; i < v.storage; ++i) d[i] = 0.25 + 0.002 * static_cast<double>(i % 389);
      }
      const int64_t storage_dims[] = {v.storage};
      tensors[o] = aclCreateTensor(v.dims.data(), v.dims.size(), v.dtype, v.strides.data(), 0, ACL_FORMAT_ND,
                                   storage_dims, 1, storage[o].data());
      ASSERT_NE(tensors[o], nullptr);
    }
    auto plan = std::make_shared<ToyPlan>();
    DimVector dims;
    dims.rank = static_cast<int>(shape.size());
    int64_t numel = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
      dims.v[k] = shape[k];
      numel *= shape[k];
    }
    PlanElementwise<ToyTraits>(dims, tensors, ACL_FLOAT, plan->space, plan->operands);
    EXPECT_EQ(plan->operands[kA].access, expected_a);
    EXPECT_EQ(plan->operands[kB].access, expected_b);
    EXPECT_EQ(plan->operands[kOut].access, expected_out);

    // A pinned platform: 3 cores, room for 64 elements a tile, so blocks have several tiles.
    PlatformInfo platform;
    platform.core_num = 3;
    platform.block_size = 64;
    platform.ub_size = 64 * 3 * 4;
    OperandTraffic traffic[kToyOperands];
    const size_t n = OperandTrafficOf(plan->operands, traffic);
    const auto split = ComputeElementwiseTiling(
        platform, MakeElementwiseProblem(static_cast<uint64_t>(numel), KernelDType::kFloat, {traffic, n}));
    ASSERT_TRUE(split.has_value());
    plan->tiling = split->data;
    plan->buffer_bytes = BlockWorkspaceBytes(plan->operands, plan->tiling.tileDataNum, KernelDType::kFloat);
    plan->stages[0] = {plan->tiling.blockDim, plan->buffer_bytes + sizeof(double)};
    plan->stages[1] = {1, 0};
    plan->blocks_run.assign(plan->tiling.blockDim, 0);
    double sum = -1;
    plan->sum = &sum;
    ASSERT_GT(plan->tiling.blockDim, 1u);
    ASSERT_GT(plan->tiling.finalSmallTileNum, 1u);

    aclOpExecutor* executor = CreateExecutor(plan);
    ASSERT_NE(executor, nullptr);
    DeviceMemory workspace;
    ASSERT_EQ(workspace.Reserve(plan->WorkspaceSize()), ACL_SUCCESS);
    ASSERT_EQ(LaunchExecutor("toy", workspace.get(), plan->WorkspaceSize(), executor, nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);

    for (int count : plan->blocks_run) EXPECT_EQ(count, 1);
    // The reference: every position of the shape, each operand's element by its view.
    const auto element = [&](size_t o, int64_t linear) {
      const View& v = views[o];
      int64_t offset = 0;
      const size_t lead = shape.size() - v.dims.size();
      for (size_t k = shape.size(); k-- > 0;) {
        const int64_t index = linear % shape[k];
        linear /= shape[k];
        if (k >= lead && v.dims[k - lead] != 1) offset += index * v.strides[k - lead];
      }
      return offset;
    };
    const auto value = [&](size_t o, int64_t offset) {
      return views[o].dtype == ACL_DOUBLE ? reinterpret_cast<const double*>(storage[o].data())[offset]
                                          : static_cast<double>(reinterpret_cast<const float*>(storage[o].data())[offset]);
    };
    std::vector<bool> written(static_cast<size_t>(views[kOut].storage), false);
    double expected_sum = 0;
    for (int64_t i = 0; i < numel; ++i) {
      const double a = static_cast<double>(static_cast<float>(value(kA, element(kA, i))));
      const double b = static_cast<double>(static_cast<float>(value(kB, element(kB, i))));
      const float expected = static_cast<float>(a * b);  // one fp32 product, correctly rounded
      const int64_t at = element(kOut, i);
      ASSERT_EQ(reinterpret_cast<const float*>(storage[kOut].data())[at], expected) << "element " << i;
      written[static_cast<size_t>(at)] = true;
      expected_sum += expected;
    }
    for (size_t k = 0; k < written.size(); ++k) {
      if (!written[k]) {
        EXPECT_EQ(reinterpret_cast<const float*>(storage[kOut].data())[k], -7.25f) << k;
      }
    }
    EXPECT_NEAR(sum, expected_sum, 1e-12 * std::fabs(expected_sum));
    for (const aclTensor* t : tensors) aclDestroyTensor(t);
  }
};

TEST_F(ElementwiseLayer, DenseOperandsAreReadAndWrittenInPlace) {
  const View views[] = {{{700, 3}, {3, 1}, 2100}, {{700, 3}, {3, 1}, 2100}, {{700, 3}, {3, 1}, 2100}};
  Check({700, 3}, views, Access::kDirect, Access::kDirect, Access::kDirect);
}

TEST_F(ElementwiseLayer, ASharedTransposeIsDense) {
  const View views[] = {{{3, 700}, {1, 3}, 2100}, {{3, 700}, {1, 3}, 2100}, {{3, 700}, {1, 3}, 2100}};
  Check({3, 700}, views, Access::kDirect, Access::kDirect, Access::kDirect);
}

TEST_F(ElementwiseLayer, AScalarIsConstantAndARowIsRowDirect) {
  const View views[] = {{{}, {}, 1}, {{300}, {1}, 300}, {{5, 300}, {300, 1}, 1500}};
  Check({5, 300}, views, Access::kConstant, Access::kRowDirect, Access::kDirect);
}

TEST_F(ElementwiseLayer, StridedAndConvertedOperandsAreStagedBothWays) {
  // a is fp64 (converted in CopyIn), out a padded transposed view (scattered in CopyOut).
  const View views[] = {{{40, 30}, {30, 1}, 1200, ACL_DOUBLE}, {{40, 30}, {30, 1}, 1200}, {{40, 30}, {1, 41}, 1230}};
  Check({40, 30}, views, Access::kStaged, Access::kStaged, Access::kStaged);
}

// Note [Row groups]: a staged operand that reads the innermost dim with a wide stride makes the
// tiling's unit whole groups of kRowBlock rows, when one fits a tile.
struct RowGroupCase {
  IterSpace space;
  GlobalOperand operands[3];
};

/// A [rows, cols] space over a dense fp32 out and b, and an a of @p a_access whose inner stride is
/// @p a_inner_stride (a transposed view has stride rows).
RowGroupCase MakeRowGroupCase(int64_t rows, int64_t cols, Access a_access, int64_t a_inner_stride) {
  RowGroupCase c;
  c.space.ndim = 2;
  c.space.sizes[0] = rows;
  c.space.sizes[1] = cols;
  c.operands[kA].access = a_access;
  c.operands[kA].memory.strides[0] = 1;
  c.operands[kA].memory.strides[1] = a_inner_stride;
  for (size_t o : {size_t{kB}, size_t{kOut}}) {
    c.operands[o].access = Access::kDirect;
    c.operands[o].memory.strides[0] = cols;
    c.operands[o].memory.strides[1] = 1;
  }
  return c;
}

PlatformInfo RowGroupPlatform() {  // 2 cores, a 512 KiB tile budget, 64-byte units
  PlatformInfo p;
  p.core_num = 2;
  p.block_size = 64;
  p.ub_size = 512 * 1024;
  return p;
}

TEST(RowGroups, AWideStagedOperandMakesEveryBlockAndTileWholeGroupsOfRows) {
  constexpr int64_t kRows = 1000, kCols = 1024;  // 1000 rows: 62.5 groups, the last one short
  const RowGroupCase c = MakeRowGroupCase(kRows, kCols, Access::kStaged, kRows);
  const uint64_t ub_bytes = 12;  // three fp32 operands
  const PlatformInfo aligned =
      AlignTilesToRowGroups(RowGroupPlatform(), c.space, c.operands, KernelDType::kFloat, ub_bytes);
  EXPECT_EQ(aligned.block_size, uint64_t{kRowBlock} * kCols * 4);
  EXPECT_EQ(aligned.core_num, 2u);
  EXPECT_EQ(aligned.ub_size, RowGroupPlatform().ub_size);
  ElementwiseTilingProblem problem;
  problem.total_elems = kRows * kCols;
  problem.bytes_per_element = 12;
  problem.ub_bytes_per_element = ub_bytes;
  const auto split = ComputeElementwiseTiling(aligned, problem);
  ASSERT_TRUE(split.has_value());
  const ElementwiseTilingData& t = split->data;
  const uint64_t group = uint64_t{kRowBlock} * kCols;
  EXPECT_EQ(t.tileDataNum % group, 0u);
  EXPECT_GE(t.tileDataNum, group);
  EXPECT_LE(t.tileDataNum * ub_bytes, aligned.ub_size);
  uint64_t covered = 0;
  for (uint64_t b = 0; b < t.blockDim; ++b) {
    for (uint64_t k = 0; k < BlockTileNum(t, b); ++k) {
      const TileRange r = BlockTile(t, b, k);
      EXPECT_EQ(r.begin % group, 0u) << "block " << b << " tile " << k;
      EXPECT_EQ(r.begin, covered) << "block " << b << " tile " << k;  // in order, no gap, no overlap
      covered = r.end;
    }
  }
  EXPECT_EQ(covered, problem.total_elems);
}

TEST(RowGroups, OtherLaunchesKeepTheirUnit) {
  const PlatformInfo platform = RowGroupPlatform();
  const auto unit = [&](const RowGroupCase& c, uint64_t ub_bytes = 12) {
    return AlignTilesToRowGroups(platform, c.space, c.operands, KernelDType::kFloat, ub_bytes).block_size;
  };
  EXPECT_EQ(unit(MakeRowGroupCase(1000, 1024, Access::kStaged, kWideStride - 1)), 64u);  // not wide
  EXPECT_EQ(unit(MakeRowGroupCase(1000, 1024, Access::kRowDirect, 1)), 64u);              // not staged
  EXPECT_EQ(unit(MakeRowGroupCase(1000, 1024, Access::kDirect, 1)), 64u);
  // One group (16 rows of 4096 fp32 at 12 bytes an element: 768 KiB) does not fit the budget.
  EXPECT_EQ(unit(MakeRowGroupCase(1000, 4096, Access::kStaged, 1000)), 64u);
  RowGroupCase flat = MakeRowGroupCase(1000, 1024, Access::kStaged, 1000);
  flat.space.ndim = 1;  // one dim: no rows to group
  EXPECT_EQ(unit(flat), 64u);
  // A group of 16 x 100 fp32 is 6400 bytes: the unit is the least common multiple with 64.
  EXPECT_EQ(unit(MakeRowGroupCase(1000, 100, Access::kStaged, 1000)), 6400u);
  EXPECT_EQ(unit(MakeRowGroupCase(1000, 100, Access::kStaged, 1000), 0), 64u);  // malformed: unchanged
}

TEST(LaunchPlanWorkspace, StagesFollowOneAnotherEachAligned) {
  class Plan final : public LaunchPlan {
   public:
    LaunchStage stages[3] = {{3, 100}, {0, 64}, {2, 8}};
    std::span<const LaunchStage> Stages() const override { return stages; }
    bool RunInlineIfIdle() const override { return true; }
    void RunBlock(size_t, uint64_t, char*) const override {}
  } plan;
  EXPECT_EQ(plan.StageWorkspaceOffset(0), 0u);
  EXPECT_EQ(plan.StageWorkspaceOffset(1), 320u);  // 300 rounded up to 64
  EXPECT_EQ(plan.StageWorkspaceOffset(2), 320u);  // an empty stage takes no room
  std::vector<char> base(400);
  EXPECT_EQ(plan.BlockWorkspace(base.data(), 2, 1), base.data() + 328);
  EXPECT_EQ(plan.WorkspaceSize(), 320u + 64u + LaunchPlan::kWorkspaceAlignment);
  EXPECT_TRUE(plan.HasWork());
  plan.stages[0].blocks = plan.stages[2].blocks = 0;
  EXPECT_FALSE(plan.HasWork());
  EXPECT_EQ(plan.WorkspaceSize(), 0u);
}

}  // namespace
