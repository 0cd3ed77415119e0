// Shapes up to kMaxDims, checked element counts and numpy broadcasting.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace aclnn_cpu {

/// The most dims an operator accepts (CANN's MAX_SUPPORT_DIMS_NUMS).
inline constexpr int kMaxDims = 8;
/// The most dims aclCreateTensor accepts: more than operators do, so that an operator's own
/// dims check (and its error code) is reachable, as with CANN.
inline constexpr int kMaxTensorRank = 32;

/// A fixed-capacity shape or stride list; `rank` entries of `v` are meaningful, the others are
/// left uninitialized and never read, and a copy copies only the first `rank`. (Zeroing and
/// copying all 32 in 264-byte fills and moves cost aclCreateTensor a third of a 1 Ki-element
/// operator call's own overhead: docs/perf.md.)
struct DimVector {
  std::array<int64_t, kMaxTensorRank> v;
  int rank = 0;

  DimVector() = default;
  DimVector(const DimVector& other) : rank(other.rank) { CopyEntries(other); }
  DimVector& operator=(const DimVector& other) {
    rank = other.rank;
    CopyEntries(other);
    return *this;
  }

  std::span<const int64_t> span() const { return {v.data(), static_cast<size_t>(rank)}; }
  friend bool operator==(const DimVector& a, const DimVector& b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; ++i) {
      if (a.v[i] != b.v[i]) return false;
    }
    return true;
  }

 private:
  void CopyEntries(const DimVector& other) {
    for (int i = 0; i < rank; ++i) v[static_cast<size_t>(i)] = other.v[static_cast<size_t>(i)];
  }
};

/// Product of @p dims, or nullopt when it overflows int64 (dims must be >= 0).
std::optional<int64_t> CheckedNumel(std::span<const int64_t> dims);

/// numpy broadcast of @p a and @p b, or nullopt when a dim pair is neither equal nor has a 1.
std::optional<DimVector> BroadcastShapes(const DimVector& a, const DimVector& b);

/// Strides, in elements, with which an operand of shape @p dims / @p strides is read at each
/// index of @p target (right-aligned numpy broadcasting): a broadcast dim reads with stride 0.
/// Requires that @p dims broadcasts to @p target.
DimVector BroadcastStrides(const DimVector& dims, const DimVector& strides, const DimVector& target);

}  // namespace aclnn_cpu
