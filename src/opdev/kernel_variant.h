// The one kernel ABI of the elementwise operators: a tile's arguments (TileArgs), the tile
// function every kernel variant is (TileFn), the variant key (the kernel dtype and the variant's
// feature bits), a variant table per SIMD target, and the visitor from a kernel dtype to its
// element type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "common/dtype.h"
#include "opdev/kernel_dtype.h"

namespace aclnn_cpu {

/// One tile of an elementwise operator: its operands' elements, contiguous, in the kernel dtype,
/// indexed by the operator's operand index (inputs and outputs alike, as the block driver hands
/// them out); an output may be in the compute type where the variant says so (the loss's sums).
struct TileArgs {
  static constexpr size_t kMaxOperands = 8;
  /// Null where the operand is absent (and, for an input the variant does not read, ignored).
  const void* at[kMaxOperands] = {};
  /// Bit o: operand o is one value, read at its first element only (a broadcast scalar).
  uint32_t read_once = 0;
  /// The operator's scale (the gradients' 1/N for mean, else 1).
  double scale = 1;
  /// Store full, aligned vectors of the outputs in the kernel dtype with non-temporal stores
  /// (values unchanged), left unfenced (Note [Streaming stores], elementwise_block.h).
  bool stream_outputs = false;
  /// Prefetch each streamed input kPrefetchAheadBytes ahead of where the kernel reads it (values
  /// unchanged; Note [Prefetch from memory], elementwise_loop-inl.h): set for launches whose data
  /// comes from memory (PrefetchesInputs).
  bool prefetch_inputs = false;

  bool ReadsOnce(size_t o) const { return (read_once >> o & 1u) != 0; }
  /// Copies the block driver's operand addresses (at[o] for o < n).
  void Take(const char* const* operands, size_t n) {
    for (size_t o = 0; o < n; ++o) at[o] = operands[o];
  }
};

/// How far ahead of its reads a kernel prefetches a streamed input (Note [Prefetch from memory]).
inline constexpr size_t kPrefetchAheadBytes = 2048;
/// Launches moving at least this many bytes prefetch their inputs: far beyond every core's L2 and
/// the L3 share a core can count on, so their data comes from memory.
inline constexpr uint64_t kPrefetchMinBytes = uint64_t{64} << 20;
/// Whether a launch of @p elements elements, each moving @p bytes_per_element bytes over its
/// streamed operands, prefetches its inputs.
constexpr bool PrefetchesInputs(uint64_t elements, uint64_t bytes_per_element) {
  return bytes_per_element != 0 && elements >= kPrefetchMinBytes / bytes_per_element;
}

/// Computes @p count elements of a tile (any count >= 0). Each element's result depends only on
/// that element's inputs and the tile's scalars: no tile or lane position changes a bit of it.
using TileFn = void (*)(const TileArgs& args, size_t count);

/// A kernel variant's key: the kernel dtype in the high bits, then the features in the order
/// given (the first the highest bit). FEATURES: how many feature bits the operator's keys have.
template <uint32_t FEATURES>
constexpr uint32_t MakeVariantKey(KernelDType dtype, std::initializer_list<bool> features) {
  uint32_t key = static_cast<uint32_t>(dtype);
  uint32_t bits = 0;
  for (const bool feature : features) {
    key = key * 2 + (feature ? 1 : 0);
    ++bits;
  }
  return bits == FEATURES ? key : ~0u;  // ~0u: out of every table, a wrong feature count
}
/// Keys of an operator with FEATURES feature bits.
template <uint32_t FEATURES>
inline constexpr uint32_t kVariantKeyCount = kKernelDTypeCount << FEATURES;
/// The kernel dtype of a key.
template <uint32_t FEATURES>
constexpr KernelDType VariantKeyDType(uint32_t key) {
  return static_cast<KernelDType>(key >> FEATURES);
}

/// An operator's kernel variants of one SIMD target, by variant key (BuildKernelTable in
/// src/simd/kernel_table-inl.h fills one per target).
template <uint32_t FEATURES>
struct VariantTable {
  static constexpr uint32_t kFeatures = FEATURES;
  TileFn fn[kVariantKeyCount<FEATURES>];
  const char* target_name;
};

/// Calls f.template operator()<T>() with T the element type of @p dtype (float, Half, BFloat16,
/// double) and returns its result.
template <class F>
decltype(auto) VisitKernelDType(KernelDType dtype, F&& f) {
  switch (dtype) {
    case KernelDType::kFloat16: return f.template operator()<Half>();
    case KernelDType::kBFloat16: return f.template operator()<BFloat16>();
    case KernelDType::kDouble: return f.template operator()<double>();
    case KernelDType::kFloat: break;
  }
  return f.template operator()<float>();
}

}  // namespace aclnn_cpu
