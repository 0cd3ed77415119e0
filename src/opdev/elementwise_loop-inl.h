// The per-target loop of every elementwise operator's tile function (ElementwiseTile): groups of
// interleaved chunks, the staged blocks (Note [Staged passes], src/simd/exp-inl.h), single chunks,
// the padded tail, the streaming decision. An operator gives only its vector functors (Op below).
// Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_OPDEV_ELEMENTWISE_LOOP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_OPDEV_ELEMENTWISE_LOOP_INL_H_
#undef ACLNN_CPU_OPDEV_ELEMENTWISE_LOOP_INL_H_
#else
#define ACLNN_CPU_OPDEV_ELEMENTWISE_LOOP_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "hwy/highway.h"
#include "opdev/kernel_variant.h"
#include "simd/convert-inl.h"
#include "simd/kernel_table-inl.h"
#include "simd/staged-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The staged passes an operator's staged form takes (Note [Staged passes]): none (whole
/// vectors only), x in the compute type with e = exp(-|x|), or those and tail =
/// log1p(exp(-|x|)) (SoftplusTailFromExpN).
enum class StagedForm { kNone, kExp, kExpLog1p };

/// Calls f(std::integral_constant<size_t, j>{}) for j = 0 .. N - 1, in order.
template <size_t N, class F>
HWY_INLINE void ForEachIndex(F&& f) {
  [&]<size_t... j>(std::index_sequence<j...>) { (f(std::integral_constant<size_t, j>{}), ...); }(
      std::make_index_sequence<N>());
}

/// The kVectors compute vectors of one storage chunk whose every element is p[0], through the
/// usual storage load (a uniform operand read once: the same bits as the materialized one).
template <class T, class D, class V = hn::Vec<D>>
HWY_INLINE void LoadUniformChunk(D d, const T* p, V* v) {
  using ChunkIo = StorageChunk<T, D>;
  HWY_ALIGN T filled[HWY_MAX_BYTES / sizeof(hn::TFromD<D>) * ChunkIo::kVectors];
  for (size_t k = 0; k < hn::Lanes(d) * ChunkIo::kVectors; ++k) filled[k] = p[0];
  ChunkIo::Load(d, filled, v);
}

/// The compute type's tag of storage type T: float lanes, double lanes for double storage.
template <class T>
using ComputeTag = hn::ScalableTag<std::conditional_t<std::is_same_v<T, double>, double, float>>;

/// ElementwiseTile<Op>::Run computes a tile of `count` elements (any count >= 0) of an operator
/// given by Op, its vector functors with the values every chunk shares as members:
///   using T: the storage type; using D: the compute type's ScalableTag (float, double for T = double)
///   static constexpr int kInputOperands[kInputs], kOutputOperands[kOutputs]: the operator's
///     operand index (TileArgs::at) of input / output j
///   static constexpr bool Reads(size_t j): input j is loaded (otherwise its vectors are zero and
///     its pointer may be null); input 0 is x, the one the staged passes take
///   static constexpr bool ComputeOutput(size_t j): output j is written in the compute type
///     (StoreCompute; never streamed), otherwise in T (optional: none is)
///   static constexpr StagedForm kStaged (optional: kNone)
///   template <size_t K> void Vectors(D, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const:
///     K independent vectors (Note [Interleaved vectors]), K a multiple of the chunk's vectors
///   template <size_t K> void Staged(D, const V (&in)[kInputs][K], const V* e, const V* tail,
///     V (&out)[kOutputs][K]) const: the same from in[0] = x in the compute type, e = exp(-|x|)
///     and tail = log1p(exp(-|x|)) (SoftplusTailFromExpN; kExpLog1p; e again for kExp), in the
///     same bits as Vectors
/// A partial last chunk is copied into a full one (padded with copies of its first element) and
/// run through the same code, so every element goes through identical instructions wherever it
/// sits. No HWY_RESTRICT: an output may be the very same view as an input (in place); each chunk
/// is loaded before it is stored, which is all the in-place call needs.
template <class Op>
struct ElementwiseTile {
  static constexpr StagedForm kStaged = [] {
    if constexpr (requires { Op::kStaged; }) return Op::kStaged;
    return StagedForm::kNone;
  }();
  static constexpr bool ComputeOutput(size_t j) {
    if constexpr (requires { Op::ComputeOutput(size_t{}); }) return Op::ComputeOutput(j);
    return false;
  }
  using T = typename Op::T;
  using D = typename Op::D;
  using C = hn::TFromD<D>;
  using V = hn::Vec<D>;
  using ChunkIo = StorageChunk<T, D>;
  static constexpr size_t kIn = Op::kInputs;
  static constexpr size_t kOut = Op::kOutputs;
  static constexpr size_t kVectors = ChunkIo::kVectors;
  static constexpr size_t kMaxChunk = HWY_MAX_BYTES / sizeof(C) * kVectors;
  static constexpr size_t kGroupChunks = kStagedGroupChunks<T, D>;
  /// A staged block's buffer lanes; a struct constant, since GCC 12 fails on arrays sized by the
  /// enclosing function's constants inside its generic lambdas.
  static constexpr size_t kBlockLanes = kStagedBlockLanes<T, D>;
  static constexpr bool kLog1p = kStaged == StagedForm::kExpLog1p;

  /// Input vectors of CHUNKS chunks from element i (input 0 only WITH_X).
  template <size_t CHUNKS, bool WITH_X>
  static HWY_INLINE void LoadInputs(D d, const T* const* in, size_t i, size_t chunk, V (&v)[kIn][CHUNKS * kVectors]) {
    ForEachIndex<kIn>([&](auto j_tag) HWY_ATTR {
      constexpr size_t j = decltype(j_tag)::value;
      if constexpr (j == 0 && !WITH_X) {
        return;
      } else if constexpr (Op::Reads(j)) {
        for (size_t c = 0; c < CHUNKS; ++c) ChunkIo::Load(d, in[j] + i + c * chunk, v[j] + c * kVectors);
      } else {
        for (size_t k = 0; k < CHUNKS * kVectors; ++k) v[j][k] = hn::Zero(d);
      }
    });
  }

  template <bool STREAM, size_t CHUNKS>
  static HWY_INLINE void StoreOutputs(D d, void* const* out, size_t i, size_t chunk,
                                      const V (&v)[kOut][CHUNKS * kVectors]) {
    ForEachIndex<kOut>([&](auto j_tag) HWY_ATTR {
      constexpr size_t j = decltype(j_tag)::value;
      for (size_t c = 0; c < CHUNKS; ++c) {
        if constexpr (ComputeOutput(j)) {
          ChunkIo::StoreCompute(d, v[j] + c * kVectors, static_cast<C*>(out[j]) + i + c * chunk);
        } else {
          ChunkIo::template Store<STREAM>(d, v[j] + c * kVectors, static_cast<T*>(out[j]) + i + c * chunk);
        }
      }
    });
  }

  /// CHUNKS consecutive chunks from element i, computed together. Forced inline: at -O2 GCC
  /// keeps it out of line otherwise, which costs the bf16 kernels about a third of their speed
  /// (the chunk's vectors go through memory).
  template <size_t CHUNKS, bool STREAM>
  static HWY_INLINE void Group(const Op& op, D d, const T* const* in, void* const* out, size_t i, size_t chunk) {
    constexpr size_t K = CHUNKS * kVectors;
    V vin[kIn][K], vout[kOut][K];
    LoadInputs<CHUNKS, true>(d, in, i, chunk, vin);
    op.template Vectors<K>(d, vin, vout);
    StoreOutputs<STREAM, CHUNKS>(d, out, i, chunk, vout);
  }

  /// GROUPS groups (at most kStagedBlockGroups) from element i in the staged passes: x in the
  /// compute type and e, then the tail where the operator takes it, then the results one chunk at
  /// a time (the last pass has no long chain: one chunk keeps its many operands in registers).
  template <bool STREAM, size_t GROUPS>
  static HWY_INLINE void Block(const Op& op, D d, const T* const* in, void* const* out, size_t i, size_t chunk) {
    constexpr size_t groups = GROUPS;
    HWY_ALIGN C xs[kBlockLanes];
    HWY_ALIGN C es[kBlockLanes];
    HWY_ALIGN C tails[kLog1p ? kBlockLanes : 1];
    const size_t lanes = hn::Lanes(d);
    StageXAndExp<T, kGroupChunks>(d, in[0] + i, groups, chunk, xs, es);
    if constexpr (kLog1p) StageTail<kGroupChunks * kVectors>(d, xs, es, groups, tails);
    for (size_t c = 0; c < groups * kGroupChunks; ++c) {
      const size_t at = i + c * chunk;
      V vin[kIn][kVectors], e[kVectors], tail[kVectors], vout[kOut][kVectors];
      for (size_t v = 0; v < kVectors; ++v) {
        vin[0][v] = hn::Load(d, xs + (c * kVectors + v) * lanes);
        e[v] = hn::Load(d, es + (c * kVectors + v) * lanes);
        if constexpr (kLog1p) tail[v] = hn::Load(d, tails + (c * kVectors + v) * lanes);
      }
      LoadInputs<1, false>(d, in, at, chunk, vin);
      op.template Staged<kVectors>(d, vin, e, kLog1p ? tail : e, vout);
      StoreOutputs<STREAM, 1>(d, out, at, chunk, vout);
    }
  }

  // Note [Prefetch from memory]
  // A kernel with this much arithmetic per element gets about half the memory bandwidth of a
  // plain copy loop on one core: its loads come too slowly for the hardware prefetchers to keep
  // enough lines in flight. Where a launch's data comes from memory (PrefetchesInputs), each step
  // of the loop below first prefetches, into L1, the lines of its streamed inputs
  // kPrefetchAheadBytes ahead (a few lines per input a step, never one burst per tile). One thread
  // on the Intel VM over 8 Mi elements (ns per 16 lanes): the fp32 loss 34-36 -> 23, bf16 16 ->
  // 9.5-12, the fused call 46-50 -> 27-29, the backward with a 0-dim gradOutput 32 -> 22-23; the
  // five-input backward, bound by its bandwidth already, unchanged. From L2 and L3 the same
  // prefetches cost up to 14% (docs/perf.md), hence the size rule. A prefetch past an input's end
  // reads nothing and faults nowhere; no value changes.
  /// Prefetches the lines of the streamed inputs from element i + kPrefetchAheadBytes' worth on,
  /// for @p elements elements.
  static HWY_INLINE void PrefetchInputs(const T* const* in, size_t i, size_t elements) {
    constexpr size_t kAhead = kPrefetchAheadBytes / sizeof(T);
    constexpr size_t kLine = 64;
    ForEachIndex<kIn>([&](auto j_tag) HWY_ATTR {
      constexpr size_t j = decltype(j_tag)::value;
      if constexpr (Op::Reads(j)) {
        const char* p = reinterpret_cast<const char*>(in[j] + i + kAhead);
        for (size_t b = 0; b < elements * sizeof(T); b += kLine) __builtin_prefetch(p + b, 0, 3);
      }
    });
  }

  /// Elements [0, result) in whole chunks: staged blocks of whole groups where the operator has a
  /// staged form, else whole groups; then single chunks. The operator and the operand addresses
  /// are copied into locals first: the vector stores may alias any memory (Highway's store types
  /// do), so values read through the caller's references could be loaded again after every store;
  /// locals whose address never escapes can stay in registers.
  template <bool STREAM>
  static HWY_INLINE size_t WholeChunks(const Op& op_at, D d, const T* const* in_at, void* const* out_at,
                                         size_t count, bool prefetch) {
    const Op op = op_at;
    const T* in[kIn];
    void* out[kOut];
    for (size_t j = 0; j < kIn; ++j) in[j] = in_at[j];
    for (size_t j = 0; j < kOut; ++j) out[j] = out_at[j];
    const size_t chunk = hn::Lanes(d) * kVectors;
    const size_t group_elements = kGroupChunks * chunk;
    size_t k = 0;
    if constexpr (kStaged != StagedForm::kNone) {
      // Whole blocks, then one of fewer groups: each with its group count known at compile time,
      // so the passes unroll (with a run-time count the last pass stayed rolled, and the shared
      // loop was up to 20% slower than the operators' own loops had been).
      static_assert(kStagedBlockGroups == 2, "the blocks below are of two groups and of one");
      for (; k + kStagedBlockGroups * group_elements <= count; k += kStagedBlockGroups * group_elements) {
        if (prefetch) PrefetchInputs(in, k, kStagedBlockGroups * group_elements);
        Block<STREAM, kStagedBlockGroups>(op, d, in, out, k, chunk);
      }
      if (k + group_elements <= count) {
        Block<STREAM, 1>(op, d, in, out, k, chunk);
        k += group_elements;
      }
    } else {
      for (; k + group_elements <= count; k += group_elements) {
        if (prefetch) PrefetchInputs(in, k, group_elements);
        Group<kGroupChunks, STREAM>(op, d, in, out, k, chunk);
      }
    }
    for (; k + chunk <= count; k += chunk) Group<1, STREAM>(op, d, in, out, k, chunk);
    return k;
  }

  /// Computes the tile of @p args: @p count elements of the operands at Op::kInputOperands into
  /// those at Op::kOutputOperands (a TileFn's body).
  static void Run(const Op& op, const TileArgs& args, size_t count) {
    const T* in[kIn];
    void* out[kOut];
    for (size_t j = 0; j < kIn; ++j) {
      in[j] = Op::Reads(j) ? static_cast<const T*>(args.at[Op::kInputOperands[j]]) : nullptr;
    }
    for (size_t j = 0; j < kOut; ++j) out[j] = const_cast<void*>(args.at[Op::kOutputOperands[j]]);
    RunOver(op, in, out, count, args.stream_outputs, args.prefetch_inputs);
  }

  /// Computes @p count elements from the inputs @p in (null where !Op::Reads) into @p out.
  /// @p prefetch: prefetch the inputs ahead (Note [Prefetch from memory]).
  /// @p stream: store the T outputs' full, aligned vectors with non-temporal stores (values
  /// unchanged), left unfenced (Note [Streaming stores], src/opdev/elementwise_block.h); taken
  /// only where the storage type streams whole chunks and every T output is chunk-aligned (the
  /// outputs advance together).
  static void RunOver(const Op& op, const T* const (&in)[kIn], void* const (&out)[kOut], size_t count, bool stream,
                      bool prefetch = false) {
    const D d;
    const size_t chunk = hn::Lanes(d) * kVectors;
    bool aligned = true;
    for (size_t j = 0; j < kOut; ++j) {
      aligned &= ComputeOutput(j) || reinterpret_cast<uintptr_t>(out[j]) % (chunk * sizeof(T)) == 0;
    }
    const size_t i = ChunkIo::kCanStreamChunk && stream && aligned
                         ? WholeChunks<true>(op, d, in, out, count, prefetch)
                         : WholeChunks<false>(op, d, in, out, count, prefetch);
    if (i >= count) return;
    // Tail: pad to a full chunk with copies of element i (any finite value would do).
    constexpr size_t kOutBytes = std::max(sizeof(T), sizeof(C)) * kMaxChunk;
    HWY_ALIGN T in_buf[kIn][kMaxChunk];
    HWY_ALIGN unsigned char out_buf[kOut][kOutBytes];
    const T* padded_in[kIn] = {};
    void* padded_out[kOut];
    const size_t rest = count - i;
    for (size_t j = 0; j < kIn; ++j) {
      if (!Op::Reads(j)) continue;
      std::memcpy(in_buf[j], in[j] + i, rest * sizeof(T));
      for (size_t k = rest; k < chunk; ++k) in_buf[j][k] = in[j][i];
      padded_in[j] = in_buf[j];
    }
    for (size_t j = 0; j < kOut; ++j) padded_out[j] = out_buf[j];
    Group<1, false>(op, d, padded_in, padded_out, 0, chunk);
    for (size_t j = 0; j < kOut; ++j) {
      const size_t size = ComputeOutput(j) ? sizeof(C) : sizeof(T);
      std::memcpy(static_cast<unsigned char*>(out[j]) + i * size, out_buf[j], rest * size);
    }
  }
};

/// An Op for ElementwiseTile from an operator's math alone, for an operator whose math does not
/// depend on the storage type: Math gives kInputOperands, kOutputOperands, Reads(j), optionally
/// ComputeOutput(j) and kStaged, a constructor from the tile's TileArgs where it takes anything
/// from them, and
///   template <size_t K, class D, class V> void Vectors(D, const V (&in)[kInputs][K],
///                                                      V (&out)[kOutputs][K]) const
/// (and Staged likewise); this adds the storage type, the compute type and the operand counts.
template <class Storage, class Math>
struct ElementwiseOp : Math {
  using T = Storage;
  using D = ComputeTag<T>;
  using V = hn::Vec<D>;
  static constexpr size_t kInputs = std::size(Math::kInputOperands);
  static constexpr size_t kOutputs = std::size(Math::kOutputOperands);
  using Math::Math;
};

/// A tile function (TileFn) of an operator given by its Op alone: the shared loop over Op(args),
/// or over Op{} where Op takes nothing from the tile's arguments.
template <class Op>
void RunElementwiseTile(const TileArgs& args, size_t count) {
  if constexpr (std::is_constructible_v<Op, const TileArgs&>) {
    ElementwiseTile<Op>::Run(Op(args), args, count);
  } else {
    ElementwiseTile<Op>::Run(Op{}, args, count);
  }
}

/// An operator's FillKernelPart where each variant is its math's template arguments: fills @p
/// table's variants of kernel part kPart's element type T with the shared loop over
/// ElementwiseOp<T, MATH<F...>> for every combination F... of the table's feature bits, in the
/// key's order (FillVariantsOfPart).
template <size_t kPart, template <bool...> class MATH, class Table>
bool FillElementwiseVariants(Table& table) {
  return FillVariantsOfPart<kPart>(
      table, []<class T, bool... F>() { return &RunElementwiseTile<ElementwiseOp<T, MATH<F...>>>; });
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_OPDEV_ELEMENTWISE_LOOP_INL_H_
