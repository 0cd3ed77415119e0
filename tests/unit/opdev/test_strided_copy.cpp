// GatherRange / ScatterRange (CopyIn / CopyOut of staged operands) on transposed views, against
// element-by-element index arithmetic, on every SIMD target of this machine. Transposed fp32
// views go through the target's N x N transposing copies (transpose_copy.h: N = 8 on AVX2 and
// AVX-512, 4 on SSE4 and EMU128; on AVX-512 whole groups of 16 rows go 16 x 16); these shapes put rows and columns on both sides of every
// multiple of 4 and 8 and of the 16-row group, and ranges start and end mid-row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "opdev/strided_iter.h"
#include "opdev/transpose_copy.h"
#include "simd_targets.h"

namespace {

using aclnn_cpu::GatherRange;
using aclnn_cpu::IterSpace;
using aclnn_cpu::ScatterRange;
using aclnn_cpu::StridedOperand;

/// A [rows, cols] view of fp32 storage laid out column-major with leading dimension `ld` and rows
/// `row_stride` elements apart (element (r, c) at c * ld + r * row_stride; the gaps must never be
/// written), with guard elements before and after. row_stride 1 is a plain transpose.
struct TransposedView {
  static constexpr int64_t kGuard = 32;
  static constexpr float kSentinel = -7.25f;
  int64_t rows, cols, ld, row_stride;
  std::vector<float> storage;

  TransposedView(int64_t r, int64_t c, int64_t leading, int64_t rs = 1) : rows(r), cols(c), ld(leading), row_stride(rs) {
    storage.assign(static_cast<size_t>(2 * kGuard + ld * cols), kSentinel);
  }
  int64_t Index(int64_t r, int64_t c) const { return kGuard + c * ld + r * row_stride; }
  IterSpace Space() const {
    IterSpace s;
    s.ndim = 2;
    s.sizes[0] = rows;
    s.sizes[1] = cols;
    return s;
  }
  StridedOperand Operand() const {
    StridedOperand op;
    op.first = reinterpret_cast<const char*>(storage.data() + kGuard);
    op.dtype = ACL_FLOAT;
    op.strides[0] = row_stride;
    op.strides[1] = ld;
    return op;
  }
  /// A distinct value per element of the view.
  static float Value(int64_t r, int64_t c) { return static_cast<float>(r * 1000 + c) + 0.5f; }
};

struct Shape {
  int64_t rows, cols, pad, row_stride;
  int64_t ld() const { return rows * row_stride + pad; }
};

std::vector<Shape> Shapes() {
  std::vector<Shape> shapes;
  for (int64_t rows : {1, 3, 4, 5, 8, 15, 16, 17, 33}) {
    for (int64_t cols : {1, 3, 4, 5, 16, 17, 23, 40}) {
      for (int64_t pad : {0, 3, 16}) {
        for (int64_t row_stride : {1, 2}) shapes.push_back({rows, cols, pad, row_stride});
      }
    }
  }
  return shapes;
}

/// [begin, count) ranges: the whole space, and pieces that start and end mid-row.
std::vector<std::pair<int64_t, int64_t>> Ranges(int64_t numel, int64_t cols) {
  std::vector<std::pair<int64_t, int64_t>> ranges = {{0, numel}};
  for (int64_t piece : {cols * 4 + 3, cols * 16 + 1, int64_t{7}}) {
    for (int64_t begin = 0; begin < numel; begin += piece) ranges.emplace_back(begin, std::min(piece, numel - begin));
  }
  return ranges;
}

/// Runs on the SIMD target of its parameter (the transposing copies are dispatched per target).
class StridedCopy : public acl_test::OnEverySimdTargetTest {
 protected:
  void SetUp() override {
    acl_test::OnEverySimdTargetTest::SetUp();
    // The dispatch really switched: the library reports the target it runs.
    ASSERT_STREQ(aclnnCpuSimdTargetName(), target_name());
  }
};

TEST_P(StridedCopy, TheTargetUnderTestProvidesTheTransposingCopies) {
  const aclnn_cpu::TransposeFloatKernels& kernels = aclnn_cpu::ChosenTransposeFloatKernels();
  EXPECT_STREQ(kernels.target_name, target_name());
  if (kernels.rows > 1) {
    EXPECT_TRUE(kernels.rows == 4 || kernels.rows == 8) << kernels.rows;
    EXPECT_NE(kernels.gather, nullptr);
    EXPECT_NE(kernels.scatter, nullptr);
  }
  // The 16-row gather exists exactly where the target has 512-bit vectors.
  const std::string name = target_name();
  EXPECT_EQ(kernels.gather16 != nullptr, name.rfind("AVX3", 0) == 0) << name;
}

TEST_P(StridedCopy, GatherOfATransposedFp32ViewReadsEveryElementOfTheRangeInOrder) {
  for (const Shape& shape : Shapes()) {
    TransposedView view(shape.rows, shape.cols, shape.ld(), shape.row_stride);
    for (int64_t r = 0; r < shape.rows; ++r) {
      for (int64_t c = 0; c < shape.cols; ++c) view.storage[static_cast<size_t>(view.Index(r, c))] = TransposedView::Value(r, c);
    }
    const int64_t numel = shape.rows * shape.cols;
    for (auto [begin, count] : Ranges(numel, shape.cols)) {
      std::vector<float> dst(static_cast<size_t>(count) + 8, TransposedView::kSentinel);
      GatherRange(view.Space(), view.Operand(), begin, count, dst.data());
      for (int64_t k = 0; k < count; ++k) {
        const int64_t linear = begin + k;
        ASSERT_EQ(dst[static_cast<size_t>(k)], TransposedView::Value(linear / shape.cols, linear % shape.cols))
            << shape.rows << "x" << shape.cols << " ld " << view.ld << " row stride " << shape.row_stride << ", range [" << begin << ", +" << count
            << "), element " << k;
      }
      for (size_t k = static_cast<size_t>(count); k < dst.size(); ++k) {
        ASSERT_EQ(dst[k], TransposedView::kSentinel) << "wrote past the range";
      }
    }
  }
}

TEST_P(StridedCopy, ScatterToATransposedFp32ViewWritesTheRangeAndNothingElse) {
  for (const Shape& shape : Shapes()) {
    const int64_t numel = shape.rows * shape.cols;
    for (auto [begin, count] : Ranges(numel, shape.cols)) {
      TransposedView view(shape.rows, shape.cols, shape.ld(), shape.row_stride);
      std::vector<float> src(static_cast<size_t>(count));
      for (int64_t k = 0; k < count; ++k) {
        const int64_t linear = begin + k;
        src[static_cast<size_t>(k)] = TransposedView::Value(linear / shape.cols, linear % shape.cols);
      }
      ScatterRange(view.Space(), src.data(), view.Operand(), begin, count);
      std::vector<float> expected(view.storage.size(), TransposedView::kSentinel);
      for (int64_t linear = begin; linear < begin + count; ++linear) {
        const int64_t r = linear / shape.cols, c = linear % shape.cols;
        expected[static_cast<size_t>(view.Index(r, c))] = TransposedView::Value(r, c);
      }
      ASSERT_EQ(view.storage, expected) << shape.rows << "x" << shape.cols << " ld " << view.ld << " row stride " << shape.row_stride << ", range ["
                                        << begin << ", +" << count << ")";
    }
  }
}

TEST_P(StridedCopy, GatherConvertsATransposedFp32ViewToFp64) {
  // Another destination type: the element-by-element path, same result.
  TransposedView view(19, 21, 24);
  for (int64_t r = 0; r < 19; ++r) {
    for (int64_t c = 0; c < 21; ++c) view.storage[static_cast<size_t>(view.Index(r, c))] = TransposedView::Value(r, c);
  }
  std::vector<double> dst(19 * 21);
  GatherRange(view.Space(), view.Operand(), 0, 19 * 21, dst.data());
  for (int64_t linear = 0; linear < 19 * 21; ++linear) {
    ASSERT_EQ(dst[static_cast<size_t>(linear)], TransposedView::Value(linear / 21, linear % 21)) << linear;
  }
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, StridedCopy, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         acl_test::SimdTargetName);

}  // namespace
