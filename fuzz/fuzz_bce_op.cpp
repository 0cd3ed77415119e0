// libFuzzer target: both phases of the four operators (aclnnBinaryCrossEntropyWithLogitsBackward,
// ...TargetBackward, aclnnBinaryCrossEntropyWithLogits and ...Fused) with arbitrary shapes (ranks 0..10, broadcasts, mismatches), views (strides, offsets, stride 0, permutations,
// overlaps), storage dims, dtypes (every aclDataType value), formats, reductions, null patterns,
// in-place aliasing (out the same view as any input), out over an input's storage with a view of
// its own (disjoint, interleaved or partially overlapping, at any byte shift), destroyed tensor
// handles (behind BCE_FUZZ_DESTROYED_HANDLES=1), workspaces (exact, larger, smaller, null), streams (default, created, not a
// stream) and repeatable executors. Storage is capped at 4096 elements per tensor.
//
// The operator is an appended decision (inputs that end before it drive the backward), and so are
// the forward's one-element out for mean and sum and the fused call's gradOutput and gradInput
// (its own storage, the same view as self or as out, or a view of its own over out's storage).
//
// Invariants (abort on violation): no crash and no sanitizer report; the first phase returns the
// status of a model of docs/contract.md (§3 for the backward and the target gradient, §8 and §10
// for the forward and the fused call: 161001 for a null required pointer, else 161002 for any
// broken rule, else success; the memory rules by brute-force listing of the views' bytes) and the
// second phase the documented code of its misuse; every failure leaves a message of its own; on
// failure no storage is touched; on success every output element is within the bound of the
// operator's long double reference (bce_reliability::Judge for the gradient, LossErrorBound,
// TargetErrorBound; the reduced loss within the sum of its elements' bounds; NaN in -> NaN out),
// nothing outside the outputs' views and no input is written, a repeatable executor gives the
// same bits again, and a consumed executor is refused.
//   scripts/fuzz.sh            (builds the fuzz preset, replays fuzz/corpus/bce_op)
//   build/fuzz/fuzz/fuzz_bce_op fuzz/corpus/bce_op -max_total_time=60
//   BCE_FUZZ_DESCRIBE=1 build/fuzz/fuzz/fuzz_bce_op -runs=0 fuzz/corpus/bce_op    (what each seed is)
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "client/api_table.h"
#include "common/dtype.h"
#include "dims.h"
#include "fuzz_input.h"
#include "ops/binary_cross_entropy/tests/ut/binary_cross_entropy_reference.h"
#include "ops/binary_cross_entropy_grad/tests/ut/binary_cross_entropy_grad_reference.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_reference.h"
#include "tolerance.h"

namespace {

using bce_fuzz::ByteReader;
using bce_fuzz::SplitMix;
using acl_test::DimsText;
using acl_test::Numel;

constexpr int64_t kMaxStorageElems = 4096;
constexpr int64_t kMaxSelfElems = 1024;
constexpr int kMaxOperatorRank = 8;

/// kOut is the backward's gradInput, the target gradient's gradTarget and the loss of the forward
/// and the fused call; kGrad is the fused call's gradInput. kDout is the fused call's
/// gradOutputOptional and is not passed to the forward.
enum Slot : int { kDout = 0, kSelf, kTarget, kWeight, kPosWeight, kOut, kGrad, kSlots };
constexpr int kBackwardSlots = 6;  ///< the slots of the original decoding (a destroyed slot is one of them)
constexpr const char* kSlotNames[kSlots] = {"gradOutput", "self", "target", "weight", "posWeight", "out", "gradInput"};

/// The roles of the API list (src/client/api_table.h) the slots stand for.
constexpr const char* kSlotRoles[kSlots] = {"grad_output", "self", "target", "weight", "pos_weight", "out",
                                            "grad_input"};

/// The operators: the APIs of the list. Decoded over the whole list; the model of the first phase
/// knows the rules of those Modelled() names, and a case of another (an API added to the list
/// before the model learns its rules) is not run.
namespace apis = aclnn_cpu::apis;
using Op = apis::ApiId;
constexpr Op kBackward = Op::kBinaryCrossEntropyWithLogitsBackward;
constexpr Op kTargetBackward = Op::kBinaryCrossEntropyWithLogitsTargetBackward;
constexpr Op kForward = Op::kBinaryCrossEntropyWithLogits;
constexpr Op kFused = Op::kBinaryCrossEntropyWithLogitsFused;
constexpr Op kProbLoss = Op::kBinaryCrossEntropy;              ///< the loss of probabilities
constexpr Op kProbBackward = Op::kBinaryCrossEntropyBackward;  ///< its gradient
bool OfProbabilities(Op op) { return op == kProbLoss || op == kProbBackward; }
bool Modelled(Op op) {
  return op == kBackward || op == kTargetBackward || op == kForward || op == kFused || OfProbabilities(op);
}

/// Whether @p op must get the tensor of @p slot (a required input or an output).
bool Required(Op op, int slot) {
  const apis::Operand* o = apis::Get(op).Find(kSlotRoles[slot]);
  return o != nullptr && (o->kind == apis::OperandKind::kInput || o->is_output());
}
/// Whether @p op takes the tensor of @p slot at all.
bool Passed(Op op, int slot) { return apis::Get(op).Has(kSlotRoles[slot]); }
/// Whether @p op's out is one element for mean and sum (the loss).
bool ReducedOut(Op op) { return apis::Get(op).Find("out")->kind == apis::OperandKind::kReducedOutput; }
bool IsOutputSlot(int slot) { return slot == kOut || slot == kGrad; }

aclrtStream g_stream = nullptr;  // a created stream, alive for the whole run

using Dims = std::vector<int64_t>;

bool IsFloat(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE; }

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------
struct OperandPlan {
  bool present = false;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  Dims dims, strides;
  int64_t offset = 0;
  int64_t storage_elems = 1;
  bool storage_as_view_dims = false;
  int value_class = 0;
};

enum class Alias { kNone, kOutIsSelf, kOutIsDout };
/// Beyond Alias: out the same view as any input, or out over an input's storage with its own view.
enum class Share { kNone, kSameView, kOwnView };
enum class WorkspaceMode { kExact, kLarger, kSmaller, kNull, kZeroSize };
enum class StreamMode { kDefault, kCreated, kNotAStream };
/// The fused call's gradInput: its own storage, the same view as self or as out, or its own view
/// over out's storage (at out's offset: the two outputs share bytes).
enum class GradShare { kNone, kSameViewAsSelf, kSameViewAsOut, kOwnViewOverOut };

struct Case {
  int64_t reduction = 0;
  Dims self_dims;
  OperandPlan operands[kSlots];
  Alias alias = Alias::kNone;
  bool null_workspace_size = false, null_executor = false;
  WorkspaceMode workspace_mode = WorkspaceMode::kExact;
  StreamMode stream_mode = StreamMode::kDefault;
  bool repeatable = false;
  uint64_t seed = 0;
  Share share = Share::kNone;
  int share_slot = kSelf;     ///< the input whose storage out shares
  int64_t share_shift = 0;    ///< bytes from that input's storage to out's (kOwnView)
  int destroyed_slot = -1;    ///< an operand passed as a destroyed handle (BCE_FUZZ_DESTROYED_HANDLES)
  Op op = kBackward;
  GradShare grad_share = GradShare::kNone;
};

/// Destroyed handles are passed only when BCE_FUZZ_DESTROYED_HANDLES=1: until liveness is decided
/// by a registry, detecting one reads freed memory, which ASan reports.
bool DestroyedHandlesEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("BCE_FUZZ_DESTROYED_HANDLES");
    return v != nullptr && std::string(v) == "1";
  }();
  return enabled;
}

Dims DecodeSelfDims(ByteReader& in) {
  const uint8_t r = in.Byte();
  const size_t rank = r < 250 ? r % (kMaxOperatorRank + 1) : static_cast<size_t>(kMaxOperatorRank + 1 + r % 2);
  Dims dims(rank);
  for (auto& d : dims) {
    const uint32_t v = in.Below(16);
    d = v == 15 ? 0 : static_cast<int64_t>(v % 5) + 1;  // 1..5, sometimes 0
  }
  if (!dims.empty() && in.OneIn(8)) dims.back() = 7 + in.Below(60);  // a longer inner row
  while (Numel(dims) > kMaxSelfElems) *std::max_element(dims.begin(), dims.end()) /= 2;
  return dims;
}

/// A shape for gradOutput / weight / posWeight: mostly one that broadcasts to self.
Dims DecodeBroadcastDims(ByteReader& in, const Dims& self) {
  switch (in.Below(9)) {
    case 0: return self;
    case 1: return {};
    case 2: return self.empty() ? Dims{} : Dims{1};
    case 3: return self.empty() ? Dims{} : Dims{self.back()};
    case 4: return Dims(self.size(), 1);
    case 5:
    case 6: {
      const size_t drop = in.Below(static_cast<uint32_t>(self.size()) + 1);
      Dims dims(self.begin() + static_cast<ptrdiff_t>(drop), self.end());
      for (auto& d : dims) {
        if (in.Below(2) == 1) d = 1;
      }
      return dims;
    }
    case 7: {  // one dim changed: usually not broadcastable
      Dims dims = self.empty() ? Dims{2} : self;
      dims[in.Below(static_cast<uint32_t>(dims.size()))] += 1 + in.Below(3);
      return dims;
    }
    default: {  // one more leading dim: the broadcast result would outgrow self
      Dims dims = self;
      dims.insert(dims.begin(), 2);
      return dims;
    }
  }
}

/// Strides, offset and storage size for @p dims; false when the storage would pass the cap.
bool DecodeLayout(ByteReader& in, OperandPlan& op) {
  const Dims& dims = op.dims;
  const size_t rank = dims.size();
  op.strides.assign(rank, 0);
  std::vector<size_t> order(rank);  // memory order, outermost first
  std::iota(order.begin(), order.end(), size_t{0});
  const uint32_t kind = in.Below(7);
  int64_t pad_max = 0;
  switch (kind) {
    case 2:  // permuted and padded
      for (size_t k = rank; k > 1; --k) std::swap(order[k - 1], order[in.Below(static_cast<uint32_t>(k))]);
      pad_max = 2;
      break;
    case 5:  // reversed: a transpose
      std::reverse(order.begin(), order.end());
      break;
    default: break;
  }
  int64_t s = 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t d = order[k];
    op.strides[d] = s;
    s *= std::max<int64_t>(dims[d], 1) + (pad_max ? in.Below(static_cast<uint32_t>(pad_max + 1)) : 0);
  }
  if (kind == 3) {  // some dims read with stride 0 (expanded)
    for (auto& st : op.strides) {
      if (in.Below(2) == 1) st = 0;
    }
  }
  if (kind == 4) {  // anything small: may overlap
    for (auto& st : op.strides) st = in.Below(6);
  }
  op.offset = kind == 0 ? 0 : in.Below(5);
  int64_t last = op.offset;
  for (size_t d = 0; d < rank; ++d) last += (std::max<int64_t>(dims[d], 1) - 1) * op.strides[d];
  const bool empty = Numel(dims) == 0;
  op.storage_elems = empty ? in.Below(3) : last + 1 + (kind == 0 ? 0 : in.Below(3));
  op.storage_as_view_dims = kind == 0 && !empty && in.Below(2) == 1;
  return op.storage_elems <= kMaxStorageElems;
}

std::optional<Case> Decode(ByteReader& in) {
  Case c;
  c.seed = in.U64();
  const uint8_t r = in.Byte();
  c.reduction = r < 240 ? r % 3 : in.InterestingI64();
  c.self_dims = DecodeSelfDims(in);
  for (int slot : {kSelf, kTarget, kDout, kWeight, kPosWeight, kOut}) {
    OperandPlan& op = c.operands[slot];
    op.present = Required(kBackward, slot) ? !in.OneIn(40) : in.Below(2) == 1;
    op.dtype = in.AnyDType();
    if (slot == kOut && in.Below(8) != 7) op.dtype = c.operands[kTarget].dtype;  // mostly the rule
    op.format = in.AnyFormat();
    if (slot == kSelf || slot == kTarget || slot == kOut) {
      op.dims = in.OneIn(16) ? DecodeBroadcastDims(in, c.self_dims) : c.self_dims;
    } else {
      op.dims = DecodeBroadcastDims(in, c.self_dims);
    }
    if (slot == kSelf) op.dims = c.self_dims;
    if (!DecodeLayout(in, op)) return std::nullopt;
    op.value_class = static_cast<int>(in.Below(8));
  }
  const uint32_t alias = in.Below(16);
  c.alias = alias == 14 ? Alias::kOutIsSelf : (alias == 15 ? Alias::kOutIsDout : Alias::kNone);
  c.null_workspace_size = in.OneIn(64);
  c.null_executor = in.OneIn(64);
  const uint32_t ws = in.Below(16);
  c.workspace_mode = ws < 11 ? WorkspaceMode::kExact
                             : static_cast<WorkspaceMode>(static_cast<int>(WorkspaceMode::kLarger) + (ws - 11) % 4);
  const uint32_t stream = in.Below(16);
  c.stream_mode = stream < 10 ? StreamMode::kDefault : (stream < 15 ? StreamMode::kCreated : StreamMode::kNotAStream);
  c.repeatable = in.Below(4) == 3;
  // Appended decisions (older inputs read zeros here: no sharing, no destroyed handle).
  const uint32_t share = in.Below(16);
  c.share = share < 11 ? Share::kNone : (share < 13 ? Share::kSameView : Share::kOwnView);
  static constexpr int kInputs[] = {kDout, kSelf, kTarget, kWeight, kPosWeight};
  c.share_slot = kInputs[in.Below(5)];
  c.share_shift = in.Below(24);
  if (in.OneIn(24)) c.destroyed_slot = static_cast<int>(in.Below(kBackwardSlots));
  // Appended again (older inputs read zeros: the backward).
  c.op = static_cast<Op>(in.Below(apis::kApiCount));
  if (!Passed(c.op, kDout)) c.operands[kDout].present = false;
  if (ReducedOut(c.op) && (c.reduction == 1 || c.reduction == 2) && !in.OneIn(8)) {
    OperandPlan& out = c.operands[kOut];  // mostly the one element the rule asks for
    out.dims = in.Below(2) == 0 ? Dims{} : Dims{1};
    if (!DecodeLayout(in, out)) return std::nullopt;
  }
  if (OfProbabilities(c.op) && in.Below(8) != 7) c.operands[kOut].dtype = c.operands[kSelf].dtype;  // mostly the rule
  if (c.op == kFused) {
    OperandPlan& dout = c.operands[kDout];
    dout.present = !in.OneIn(4);  // null means 1
    const uint32_t shape = in.Below(8);
    if (shape < 6) {  // mostly one element, as the rule asks
      dout.dims = shape < 3 ? Dims{} : (shape < 5 ? Dims{1} : Dims(c.self_dims.size(), 1));
      if (!DecodeLayout(in, dout)) return std::nullopt;
    }
    OperandPlan& grad = c.operands[kGrad];
    grad.present = !in.OneIn(40);
    grad.dtype = in.Below(8) != 7 ? c.operands[kTarget].dtype : in.AnyDType();
    grad.format = in.AnyFormat();
    grad.dims = in.OneIn(16) ? DecodeBroadcastDims(in, c.self_dims) : c.self_dims;
    if (!DecodeLayout(in, grad)) return std::nullopt;
    const uint32_t grad_share = in.Below(16);
    c.grad_share = grad_share < 12 ? GradShare::kNone
                                   : static_cast<GradShare>(static_cast<int>(GradShare::kSameViewAsSelf) +
                                                            (grad_share - 12) % 3);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Tensors over aclrtMalloc'd storage
// ---------------------------------------------------------------------------------------------
struct Operand {
  OperandPlan plan;
  void* data = nullptr;  // owned unless aliased
  bool owns = false;
  size_t allocation_bytes = 0;  ///< at least StorageBytes(): more when out's view shares it
  aclTensor* tensor = nullptr;
  std::vector<uint8_t> before;  // storage bytes before the call

  size_t ElemSize() const { return aclDataTypeSize(plan.dtype); }
  size_t StorageBytes() const { return static_cast<size_t>(std::max<int64_t>(plan.storage_elems, 1)) * ElemSize(); }
  std::vector<uint8_t> Bytes() const {
    if (data == nullptr) return {};
    const auto* p = static_cast<const uint8_t*>(data);
    return std::vector<uint8_t>(p, p + StorageBytes());
  }
  ~Operand() {
    if (tensor != nullptr) aclDestroyTensor(tensor);
    if (owns && data != nullptr) aclrtFree(data);
  }
};

/// A value of class @p value_class for @p slot; kept within 1e4 in magnitude (so that no fp32
/// intermediate can overflow) except for logits and the special values. A probability input
/// (Domain::kUnitInterval: the loss of probabilities' self) is mostly in [0, 1].
double MakeValue(SplitMix& rng, int slot, int value_class, bool probability) {
  if (probability && value_class < 4) return rng.Uniform(0.0, 1.0);
  static constexpr double kScales[] = {1e-3, 0.1, 1.0, 8.0, 100.0, 1e4};
  const double scale = kScales[rng.Next() % 6];
  switch (value_class) {
    case 5: return static_cast<double>(rng.Next() % 2);
    case 6: {
      static constexpr double kSpecial[] = {NAN, HUGE_VAL, -HUGE_VAL, 0.0, -0.0, 0x1p-140, -0x1p-1070, 0x1p-20, 1.0};
      return kSpecial[rng.Next() % std::size(kSpecial)];
    }
    case 7:
      if (slot == kSelf) return (rng.Next() % 2 ? 1.0 : -1.0) * (rng.Next() % 2 ? 1e30 : 1e300);
      [[fallthrough]];
    default:
      if (slot == kTarget && value_class < 3) return rng.Uniform(0.0, 1.0);
      return rng.Uniform(-scale, scale);
  }
}

/// Creates the tensor of @p op over fresh storage filled with values (or random bytes for out);
/// @p probability: its values are meant to lie in [0, 1].
void Materialise(Operand& op, int slot, SplitMix& rng, bool probability) {
  const OperandPlan& p = op.plan;
  const size_t elem = op.ElemSize();
  if (elem != 0) {
    op.allocation_bytes = std::max(op.allocation_bytes, op.StorageBytes());
    if (aclrtMalloc(&op.data, op.allocation_bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) std::abort();
    op.owns = true;
    auto* bytes = static_cast<uint8_t*>(op.data);
    for (size_t b = 0; b < op.allocation_bytes; ++b) bytes[b] = static_cast<uint8_t>(rng.Next());
    if (!IsOutputSlot(slot) && IsFloat(p.dtype)) {
      for (int64_t i = 0; i < p.storage_elems; ++i) {
        aclnn_cpu::StoreFromDouble(op.data, p.dtype, i, MakeValue(rng, slot, p.value_class, probability));
      }
    }
  }
  const Dims storage_dims = p.storage_as_view_dims ? p.dims : Dims{p.storage_elems};
  op.tensor = aclCreateTensor(p.dims.data(), p.dims.size(), p.dtype, p.strides.data(), p.offset, p.format,
                              storage_dims.data(), storage_dims.size(), op.data);
}

// ---------------------------------------------------------------------------------------------
// The model of the first phase (docs/contract.md §3)
// ---------------------------------------------------------------------------------------------
bool BroadcastsTo(const Dims& operand, const Dims& self) {
  if (operand.size() > self.size()) return false;
  for (size_t k = 0; k < operand.size(); ++k) {
    const int64_t d = operand[operand.size() - 1 - k];
    if (d != 1 && d != self[self.size() - 1 - k]) return false;
  }
  return true;
}

/// The storage index of every element of the view of @p p, in row-major order of its own dims.
std::vector<int64_t> ViewIndices(const OperandPlan& p) {
  const int64_t n = Numel(p.dims);
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, index = p.offset;
    for (size_t k = p.dims.size(); k-- > 0;) {
      index += (rem % p.dims[k]) * p.strides[k];
      rem /= p.dims[k];
    }
    indices.push_back(index);
  }
  return indices;
}

/// Whether two elements of the view share a storage element (brute force: views are small).
bool SharesMemory(const OperandPlan& p) {
  std::vector<bool> seen(static_cast<size_t>(p.storage_elems), false);
  for (int64_t index : ViewIndices(p)) {
    if (seen[static_cast<size_t>(index)]) return true;
    seen[static_cast<size_t>(index)] = true;
  }
  return false;
}

/// Start addresses of the elements of @p p over storage @p data, in any order (brute force).
std::vector<uintptr_t> ElementStarts(const OperandPlan& p, const void* data) {
  const auto elem = static_cast<int64_t>(aclDataTypeSize(p.dtype));
  std::vector<uintptr_t> starts;
  for (int64_t index : ViewIndices(p)) {
    starts.push_back(reinterpret_cast<uintptr_t>(data) + static_cast<uintptr_t>(index * elem));
  }
  return starts;
}

/// Whether some byte of an element of @p a is a byte of an element of @p b (brute force).
bool SharesBytes(const OperandPlan& a, const void* data_a, const OperandPlan& b, const void* data_b) {
  std::vector<uintptr_t> bytes;
  const size_t elem_a = aclDataTypeSize(a.dtype), elem_b = aclDataTypeSize(b.dtype);
  for (uintptr_t s : ElementStarts(a, data_a)) {
    for (size_t k = 0; k < elem_a; ++k) bytes.push_back(s + k);
  }
  std::sort(bytes.begin(), bytes.end());
  for (uintptr_t s : ElementStarts(b, data_b)) {
    for (size_t k = 0; k < elem_b; ++k) {
      if (std::binary_search(bytes.begin(), bytes.end(), s + k)) return true;
    }
  }
  return false;
}

/// The identical-view rule: same first byte and element size, and the same (size, stride) pairs
/// over the dims of size > 1, in order.
bool IsSameView(const OperandPlan& a, const void* data_a, const OperandPlan& b, const void* data_b) {
  const size_t elem = aclDataTypeSize(a.dtype);
  if (elem != aclDataTypeSize(b.dtype)) return false;
  if (static_cast<const char*>(data_a) + a.offset * static_cast<int64_t>(elem) !=
      static_cast<const char*>(data_b) + b.offset * static_cast<int64_t>(elem)) {
    return false;
  }
  auto pairs = [](const OperandPlan& p) {
    std::vector<std::pair<int64_t, int64_t>> v;
    for (size_t k = 0; k < p.dims.size(); ++k) {
      if (p.dims[k] != 1) v.emplace_back(p.dims[k], p.strides[k]);
    }
    return v;
  };
  return pairs(a) == pairs(b);
}

struct Expected {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string rule;
};

/// An output's memory rules against the inputs (Note [Aliasing]): no element shared within it, and
/// an input only as the very same view.
std::optional<std::string> OutputMemoryRule(int out_slot, const std::array<const OperandPlan*, kSlots>& passed,
                                            const std::array<const void*, kSlots>& data) {
  if (SharesMemory(*passed[out_slot])) return std::string(kSlotNames[out_slot]) + " shares memory";
  for (int slot : {kDout, kSelf, kTarget, kWeight, kPosWeight}) {
    if (passed[slot] == nullptr || IsSameView(*passed[out_slot], data[out_slot], *passed[slot], data[slot])) continue;
    if (SharesBytes(*passed[out_slot], data[out_slot], *passed[slot], data[slot])) {
      return std::string(kSlotNames[out_slot]) + " partially overlaps " + kSlotNames[slot];
    }
  }
  return std::nullopt;
}

/// The forward's and the fused call's rules after the null, liveness, rank and dtype-kind ones
/// (docs/contract.md §8, §10): no format rule; shapes checked even for an empty self; out one
/// element for mean and sum, whose memory may overlap any input (Note [Loss aliasing]); the two
/// outputs of the fused call share no byte (Note [Fused aliasing]). Every float type casts to
/// every other, so the promotion rule never fails here.
Expected ModelLossRules(const Case& c, const std::array<const OperandPlan*, kSlots>& passed,
                        const std::array<const void*, kSlots>& data, Expected e) {
  auto invalid = [&](std::string rule) {
    e.status = ACLNN_ERR_PARAM_INVALID;
    e.rule = std::move(rule);
    return e;
  };
  const bool fused = c.op == kFused;
  if (passed[kOut]->dtype != passed[kTarget]->dtype) return invalid("out dtype != target dtype");
  if (fused && passed[kGrad]->dtype != passed[kTarget]->dtype) return invalid("gradInput dtype != target dtype");
  if (c.reduction < 0 || c.reduction > 2) return invalid("reduction outside [0, 2]");
  const Dims& self = passed[kSelf]->dims;
  if (passed[kTarget]->dims != self) return invalid("target shape != self");
  if (fused && passed[kGrad]->dims != self) return invalid("gradInput shape != self");
  for (int slot : {kDout, kWeight, kPosWeight}) {
    if (passed[slot] != nullptr && !BroadcastsTo(passed[slot]->dims, self)) return invalid("does not broadcast");
  }
  if (fused && passed[kDout] != nullptr && Numel(passed[kDout]->dims) != 1) return invalid("gradOutput not one element");
  const Dims& out = passed[kOut]->dims;
  if (c.reduction == 0 ? out != self : !(out.empty() || out == Dims{1})) return invalid("out shape");
  if (Numel(self) != 0) {
    if (fused) {
      if (auto rule = OutputMemoryRule(kGrad, passed, data)) return invalid(*rule);
    }
    if (c.reduction == 0) {
      if (auto rule = OutputMemoryRule(kOut, passed, data)) return invalid(*rule);
    }
    if (fused && SharesBytes(*passed[kOut], data[kOut], *passed[kGrad], data[kGrad])) {
      return invalid("out and gradInput share memory");
    }
  }
  return e;
}

/// The rules of the loss of probabilities and of its gradient after the null, liveness, rank and
/// dtype-kind ones (their headers): out of self's dtype; the reduction; the loss's target of self's
/// shape, weight broadcasting, out of self's shape for none and one element for mean and sum; the
/// gradient's out of self's shape, gradOutput, target and weight broadcasting; for a non-empty
/// self, the output memory rule where out is written element by element.
Expected ModelProbabilityRules(const Case& c, const std::array<const OperandPlan*, kSlots>& passed,
                               const std::array<const void*, kSlots>& data, Expected e) {
  auto invalid = [&](std::string rule) {
    e.status = ACLNN_ERR_PARAM_INVALID;
    e.rule = std::move(rule);
    return e;
  };
  const bool loss = c.op == kProbLoss;
  if (passed[kOut]->dtype != passed[kSelf]->dtype) return invalid("out dtype != self dtype");
  if (c.reduction < 0 || c.reduction > 2) return invalid("reduction outside [0, 2]");
  const Dims& self = passed[kSelf]->dims;
  const Dims& out = passed[kOut]->dims;
  if (loss && passed[kTarget]->dims != self) return invalid("target shape != self");
  if (!loss && out != self) return invalid("out shape != self");
  for (int slot : {kDout, kTarget, kWeight}) {
    if (passed[slot] != nullptr && !BroadcastsTo(passed[slot]->dims, self)) return invalid("does not broadcast");
  }
  if (loss && (c.reduction == 0 ? out != self : !(out.empty() || out == Dims{1}))) return invalid("out shape");
  if (Numel(self) != 0 && (!loss || c.reduction == 0)) {
    if (auto rule = OutputMemoryRule(kOut, passed, data)) return invalid(*rule);
  }
  return e;
}

Expected ModelFirstPhase(const Case& c, const std::array<const OperandPlan*, kSlots>& passed,
                         const std::array<const void*, kSlots>& data, int destroyed) {
  Expected e;
  auto invalid = [&](std::string rule) {
    e.status = ACLNN_ERR_PARAM_INVALID;
    e.rule = std::move(rule);
    return e;
  };
  for (int slot = 0; slot < kSlots; ++slot) {
    if (Required(c.op, slot) && passed[slot] == nullptr) {
      e.status = ACLNN_ERR_PARAM_NULLPTR;
      e.rule = std::string(kSlotNames[slot]) + " is null";
      return e;
    }
  }
  if (c.null_workspace_size || c.null_executor) {
    e.status = ACLNN_ERR_PARAM_NULLPTR;
    e.rule = "null out-pointer";
    return e;
  }
  if (destroyed >= 0) return invalid(std::string(kSlotNames[destroyed]) + " is a destroyed tensor");
  for (const OperandPlan* p : passed) {
    if (p != nullptr && p->dims.size() > static_cast<size_t>(kMaxOperatorRank)) return invalid("more than 8 dims");
  }
  for (const OperandPlan* p : passed) {
    if (p != nullptr && !IsFloat(p->dtype)) return invalid("dtype not a float type");
  }
  if (c.op == kForward || c.op == kFused) return ModelLossRules(c, passed, data, e);
  if (OfProbabilities(c.op)) return ModelProbabilityRules(c, passed, data, e);
  if (passed[kOut]->dtype != passed[kTarget]->dtype) return invalid("out dtype != target dtype");
  if (passed[kTarget]->format != passed[kSelf]->format || passed[kOut]->format != passed[kSelf]->format) {
    return invalid("formats of self, target, out differ");
  }
  const Dims& self = passed[kSelf]->dims;
  if (Numel(self) != 0) {
    if (passed[kTarget]->dims != self || passed[kOut]->dims != self) return invalid("target/out shape != self");
    for (int slot : {kDout, kWeight, kPosWeight}) {
      if (passed[slot] != nullptr && !BroadcastsTo(passed[slot]->dims, self)) return invalid("does not broadcast");
    }
    if (SharesMemory(*passed[kOut])) return invalid("out shares memory");
    for (int slot : {kDout, kSelf, kTarget, kWeight, kPosWeight}) {
      if (passed[slot] == nullptr || IsSameView(*passed[kOut], data[kOut], *passed[slot], data[slot])) continue;
      if (SharesBytes(*passed[kOut], data[kOut], *passed[slot], data[slot])) {
        return invalid(std::string("out partially overlaps ") + kSlotNames[slot]);
      }
    }
  }
  if (c.reduction < 0 || c.reduction > 2) return invalid("reduction outside [0, 2]");
  return e;
}

// ---------------------------------------------------------------------------------------------
// Checking a result
// ---------------------------------------------------------------------------------------------
int64_t StorageIndexOf(const OperandPlan& p, const Dims& self, const Dims& index) {
  int64_t at = p.offset;
  const size_t lead = self.size() - p.dims.size();
  for (size_t k = 0; k < p.dims.size(); ++k) {
    if (p.dims[k] != 1) at += index[lead + k] * p.strides[k];
  }
  return at;
}

std::string Describe(const Case& c, const std::array<const OperandPlan*, kSlots>& passed) {
  std::string s = std::string(apis::Get(c.op).short_name) + ", reduction " + std::to_string(c.reduction) + ", self dims " + DimsText(c.self_dims) + "\n";
  for (int slot = 0; slot < kSlots; ++slot) {
    const OperandPlan* p = passed[slot];
    s += std::string("  ") + kSlotNames[slot] + ": ";
    if (p == nullptr) {
      s += "null\n";
      continue;
    }
    s += "dtype " + std::to_string(static_cast<int>(p->dtype)) + " format " + std::to_string(static_cast<int>(p->format)) +
         " dims " + DimsText(p->dims) + " strides " + DimsText(p->strides) + " offset " + std::to_string(p->offset) +
         " storage " + std::to_string(p->storage_elems) + (p->storage_as_view_dims ? " (view dims)" : "") +
         " values " + std::to_string(p->value_class) + "\n";
  }
  s += "  alias " + std::to_string(static_cast<int>(c.alias)) + ", null workspaceSize/executor " +
       std::to_string(c.null_workspace_size) + "/" + std::to_string(c.null_executor) + ", workspace mode " +
       std::to_string(static_cast<int>(c.workspace_mode)) + ", stream mode " +
       std::to_string(static_cast<int>(c.stream_mode)) + ", repeatable " + std::to_string(c.repeatable) +
       ", share " + std::to_string(static_cast<int>(c.share)) + " with " + kSlotNames[c.share_slot] + " at +" +
       std::to_string(c.share_shift) + " bytes, destroyed " +
       (c.destroyed_slot >= 0 && DestroyedHandlesEnabled() ? kSlotNames[c.destroyed_slot] : "none") +
       ", gradInput share " + std::to_string(static_cast<int>(c.grad_share));
  return s;
}

class Checker {
 public:
  Checker(const Case& c, const std::array<const OperandPlan*, kSlots>& passed) : c_(c), passed_(passed) {}
  [[noreturn]] void Fail(const char* what, const std::string& detail = "") const {
    bce_fuzz::Violation(what, (Describe(c_, passed_) + "\n" + detail).c_str());
  }
  /// A failing call must leave a message of its own (not the sentinel set before it).
  void ExpectOwnMessage(const std::string& sentinel, const char* call) const {
    const std::string message = aclGetRecentErrMsg();
    if (message.empty() || message == sentinel) Fail("a failing call left no message of its own", call);
  }

 private:
  const Case& c_;
  const std::array<const OperandPlan*, kSlots>& passed_;
};

std::string SetSentinel() {
  aclrtFree(nullptr);  // "aclrtFree: devPtr is null"
  return aclGetRecentErrMsg();
}

/// The element-wise view of the inputs as they were before the call, element by element of self.
class Inputs {
 public:
  Inputs(const Case& c, const std::array<Operand*, kSlots>& ops) : c_(c), ops_(ops), index_(c.self_dims.size(), 0) {}
  void Seek(int64_t i) {
    for (size_t k = c_.self_dims.size(); k-- > 0;) {
      index_[k] = i % c_.self_dims[k];
      i /= c_.self_dims[k];
    }
  }
  std::optional<double> operator()(int slot) const {
    if (ops_[slot] == nullptr) return std::nullopt;
    const OperandPlan& p = ops_[slot]->plan;
    return aclnn_cpu::LoadAsDouble(ops_[slot]->before.data(), p.dtype, StorageIndexOf(p, c_.self_dims, index_));
  }
  double Output(int slot) const {
    const OperandPlan& p = ops_[slot]->plan;
    return aclnn_cpu::LoadAsDouble(ops_[slot]->data, p.dtype, StorageIndexOf(p, c_.self_dims, index_));
  }

 private:
  const Case& c_;
  const std::array<Operand*, kSlots>& ops_;
  Dims index_;
};

/// The compute type: fp64 when any input read is fp64 (ChooseKernelDType: a uniform plan keeps its
/// dtype, a mixed one the promoted dtype, and every output has the target's dtype).
aclDataType ComputeType(const std::array<Operand*, kSlots>& ops) {
  for (int slot : {kDout, kSelf, kTarget, kWeight, kPosWeight}) {
    if (ops[slot] != nullptr && ops[slot]->plan.dtype == ACL_DOUBLE) return ACL_DOUBLE;
  }
  return ACL_FLOAT;
}

/// Whether a running product of @p factors (exact, in long double) leaves the range of the compute
/// type before the last factor: the kernel's products in the contract's order then overflow.
bool IntermediateOverflows(std::initializer_list<long double> factors, aclDataType compute) {
  const long double limit = compute == ACL_DOUBLE ? static_cast<long double>(DBL_MAX) : static_cast<long double>(FLT_MAX);
  long double product = 1;
  for (long double f : factors) {
    product *= f;
    if (std::fabs(product) > limit) return true;
  }
  return false;
}

double SmallestStep(aclDataType compute) { return compute == ACL_DOUBLE ? 0x1p-1074 : 0x1p-149; }

/// Judge's rules for a value with a plain bound: NaN only for NaN, Inf only where the exact value
/// is within the bound of the overflow threshold on the same side (or is that Inf).
bool Acceptable(double got, double ref, double bound, aclDataType compute, aclDataType out_dtype) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
  if (std::isinf(ref)) return got == ref;
  if (std::isinf(got)) {
    const double limit = std::min(bce_reliability::OverflowThreshold(out_dtype),
                                  compute == ACL_DOUBLE ? HUGE_VAL : bce_reliability::OverflowThreshold(ACL_FLOAT));
    return std::signbit(got) == std::signbit(ref) && std::fabs(ref) + bound >= limit;
  }
  return std::fabs(got - ref) <= bound;
}

[[noreturn]] void FailElement(const Checker& check, const char* what, int64_t i, double got, double ref, double bound,
                              const Inputs& in) {
  char detail[512];
  std::snprintf(detail, sizeof(detail),
                "element %lld: got %.17g, reference %.17g, bound %.3g (x=%.17g y=%.17g dout=%.17g w=%.17g pw=%.17g)",
                static_cast<long long>(i), got, ref, bound, in(kSelf).value_or(NAN), in(kTarget).value_or(NAN),
                in(kDout).value_or(1.0), in(kWeight).value_or(1.0), in(kPosWeight).value_or(1.0));
  check.Fail(what, detail);
}

/// Every gradInput element (@p out_slot: the backward's out, the fused call's gradInput) against
/// the float64 reference; the fused call's absent gradOutput is 1.
void CheckGradient(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops, int out_slot) {
  const int64_t n = Numel(c.self_dims);
  const aclDataType compute = ComputeType(ops), out_dtype = ops[out_slot]->plan.dtype;
  const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  Inputs input(c, ops);
  for (int64_t i = 0; i < n; ++i) {
    input.Seek(i);
    const double x = *input(kSelf), y = *input(kTarget), g = input(kDout).value_or(1.0);
    const std::optional<double> w = input(kWeight), pw = input(kPosWeight);
    const double got = input.Output(out_slot);
    const bool nan_in = std::isnan(x) || std::isnan(y) || std::isnan(g) || (w && std::isnan(*w)) || (pw && std::isnan(*pw));
    if (nan_in) {
      if (!std::isnan(got)) check.Fail("NaN input gave a non-NaN gradient", "element " + std::to_string(i));
      continue;
    }
    if (std::isinf(y) || std::isinf(g) || (w && std::isinf(*w)) || (pw && std::isinf(*pw))) continue;
    const auto terms = bce_reliability::ComputeGradTerms(x, y, g, w, pw, scale);
    const auto v = bce_reliability::Judge(got, terms.g, terms, compute, out_dtype);
    if (!v.ok) FailElement(check, "gradient outside the error bound", i, got, terms.g, v.bound, input);
  }
}

/// Every gradTarget element against TargetReferenceTerms (the target itself is never read).
void CheckTargetGradient(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops) {
  const int64_t n = Numel(c.self_dims);
  // The target's dtype still decides the plan's (gradTarget has it): see ComputeType.
  const aclDataType compute = ComputeType(ops), out_dtype = ops[kOut]->plan.dtype;
  const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  const double tiny = SmallestStep(compute);
  Inputs input(c, ops);
  for (int64_t i = 0; i < n; ++i) {
    input.Seek(i);
    const double x = *input(kSelf), g = *input(kDout);
    const std::optional<double> w = input(kWeight), pw = input(kPosWeight);
    const double got = input.Output(kOut);
    if (std::isnan(x) || std::isnan(g) || (w && std::isnan(*w)) || (pw && std::isnan(*pw))) {
      if (!std::isnan(got)) check.Fail("NaN input gave a non-NaN target gradient", "element " + std::to_string(i));
      continue;
    }
    if (std::isinf(g) || (w && std::isinf(*w)) || (pw && std::isinf(*pw))) continue;
    const auto t = aclnn_cpu::bce_grad::ComputeTargetReferenceTerms(x, g, w, pw, scale);
    // The contract's order is ((t * dout) * weight) * scale: where one of those products overflows
    // the compute type, the result is that of IEEE arithmetic (+-inf, or NaN once an infinite
    // product meets a zero factor) even when the exact value, scale included, is finite. Such an
    // element is not judged.
    if (IntermediateOverflows({static_cast<long double>(t.c) - t.l, g, w.value_or(1.0)}, compute)) continue;
    // A subnormal intermediate of the compute type carries a few of its smallest steps, which the
    // factors after it magnify: (pw - 1) * tail or pw * x times m, t * dout times |w| * scale, ...
    const double pw_abs = std::fabs(pw.value_or(1.0)), w_abs = std::fabs(w.value_or(1.0));
    const double gain = (pw_abs + 2.0) * std::fabs(t.m) + (w_abs + 1.0) * scale + 1.0;
    const double bound = aclnn_cpu::bce_grad::TargetErrorBound(t, compute, out_dtype) + 4.0 * tiny * gain;
    if (!Acceptable(got, t.g, bound, compute, out_dtype)) {
      FailElement(check, "target gradient outside the error bound", i, got, t.g, bound, input);
    }
  }
}

/// The loss: every element for none; for mean and sum the one element against the long double sum
/// of the elements' references, within the sum of their bounds (fp64 accumulation adds a relative
/// n * 2^-52 of the sum of magnitudes) plus one rounding to out. An empty self gives NaN for mean
/// and 0 for sum.
/// What the elements of a loss add up to, for the check of its mean or sum (CheckReducedLoss): the
/// long double sum of their references, the sums of their magnitudes and error bounds, and whether
/// an input was NaN or an element is not judged.
struct LossSums {
  long double sum = 0;
  double magnitudes = 0, bounds = 0;
  bool any_nan = false, unjudged = false;
  void Add(double loss, double bound) {
    sum += loss;
    magnitudes += std::fabs(loss);
    bounds += bound;
  }
};

void CheckReducedLoss(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops,
                      const LossSums& sums, aclDataType compute);

void CheckLoss(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops) {
  const int64_t n = Numel(c.self_dims);
  const aclDataType compute = ComputeType(ops), out_dtype = ops[kOut]->plan.dtype;
  const double tiny = SmallestStep(compute);
  const double compute_limit = compute == ACL_DOUBLE ? HUGE_VAL : bce_reliability::OverflowThreshold(ACL_FLOAT);
  Inputs input(c, ops);
  LossSums sums;
  bool& any_nan = sums.any_nan;
  bool& unjudged = sums.unjudged;
  for (int64_t i = 0; i < n; ++i) {
    input.Seek(i);
    const double x = *input(kSelf), y = *input(kTarget);
    const std::optional<double> w = input(kWeight), pw = input(kPosWeight);
    if (std::isnan(x) || std::isnan(y) || (w && std::isnan(*w)) || (pw && std::isnan(*pw))) {
      any_nan = true;
      if (c.reduction == 0 && !std::isnan(input.Output(kOut))) {
        check.Fail("NaN input gave a non-NaN loss", "element " + std::to_string(i));
      }
      continue;
    }
    if (std::isinf(y) || (w && std::isinf(*w)) || (pw && std::isinf(*pw))) {
      unjudged = true;
      continue;
    }
    // An infinite logit takes the limit of each term whose factor is not zero in the compute
    // type: a pos_weight * target that underflows to zero there drops its infinite term (the
    // contract's zero factor), where the exact factor is a tiny nonzero. Not judged.
    if (std::isinf(x) && pw && *pw * static_cast<long double>(y) != 0 &&
        (compute == ACL_DOUBLE ? *pw * y : static_cast<double>(static_cast<float>(*pw) * static_cast<float>(y))) == 0) {
      if (c.reduction != 0) unjudged = true;
      continue;
    }
    const auto t = aclnn_cpu::bce_loss::ComputeLossReferenceTerms(x, y, w, pw);
    const double lw_abs = std::fabs(pw.value_or(1.0) * y), w_abs = std::fabs(t.w);
    // A subnormal intermediate carries a few of the compute type's smallest steps, magnified by
    // the factors after it: a subnormal pw * y by softplus(-x) (up to |x| + 1) and the weight, a
    // subnormal softplus by pw * y or 1 - y and the weight.
    const double softplus_gain = std::isfinite(x) ? std::fabs(x) + 2.0 : 2.0;
    const double gain = (lw_abs + std::fabs(1.0 - y) + softplus_gain) * (w_abs + 1.0);
    const double bound = aclnn_cpu::bce_loss::LossErrorBound(t, compute, out_dtype) + 4.0 * tiny * gain;
    if (c.reduction == 0) {
      const double got = input.Output(kOut);
      if (!Acceptable(got, t.loss, bound, compute, out_dtype)) {
        FailElement(check, "loss outside the error bound", i, got, t.loss, bound, input);
      }
      continue;
    }
    // An element whose terms overflow the compute type may make the kernel's sum Inf - Inf where
    // the exact one is finite: such a sum is not judged.
    if (std::isfinite(x) && (std::fabs(t.pos * t.w) >= compute_limit || std::fabs(t.neg * t.w) >= compute_limit ||
                             std::fabs(t.pos) >= compute_limit || std::fabs(t.neg) >= compute_limit)) {
      unjudged = true;
    }
    sums.Add(t.loss, 5.0 * 2 * aclnn_cpu::RoundingOf(compute).unit_roundoff * (std::fabs(t.pos) + std::fabs(t.neg)) *
                         w_abs +
                     4.0 * tiny * (gain + 1.0));
  }
  if (c.reduction != 0) CheckReducedLoss(check, c, ops, sums, compute);
}

/// The mean or sum of a loss (its one element) against the long double sum of the elements'
/// references, within the sum of their bounds plus the fp64 accumulation's relative n * 2^-52 of
/// the sum of magnitudes and one rounding to out. An empty self gives NaN for mean and 0 for sum.
void CheckReducedLoss(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops,
                      const LossSums& sums, aclDataType compute) {
  const int64_t n = Numel(c.self_dims);
  const OperandPlan& out = ops[kOut]->plan;
  const double got = aclnn_cpu::LoadAsDouble(ops[kOut]->data, out.dtype, ViewIndices(out).front());
  if (n == 0) {
    if (c.reduction == 1 ? !std::isnan(got) : got != 0.0) check.Fail("the reduced loss of an empty self is wrong");
    return;
  }
  if (sums.any_nan) {
    if (!std::isnan(got)) check.Fail("NaN input gave a non-NaN reduced loss");
    return;
  }
  // A partial sum can overflow (to either infinity) only when the magnitudes add up to the range
  // of fp64, the accumulators' type, although the exact sum is finite: not judged.
  if (sums.unjudged || sums.magnitudes >= 0.5 * DBL_MAX) return;
  const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  const double ref = static_cast<double>(sums.sum) * scale;
  const double eps_o = aclnn_cpu::RoundingOf(out.dtype).unit_roundoff;
  const double bound = (sums.bounds + sums.magnitudes * static_cast<double>(n) * 0x1p-52) * scale * (1 + eps_o) +
                       eps_o * std::fabs(ref) + aclnn_cpu::RoundingOf(out.dtype).smallest_subnormal;
  if (!Acceptable(got, ref, bound, compute, out.dtype)) {
    char detail[256];
    std::snprintf(detail, sizeof(detail), "got %.17g, reference %.17g, bound %.3g over %lld elements", got, ref, bound,
                  static_cast<long long>(n));
    check.Fail("reduced loss outside the error bound", detail);
  }
}

/// The loss of probabilities against its reference (ComputeProbLossReference, ProbLossErrorBound)
/// plus a few of the compute type's smallest steps magnified by the factors after them; x outside
/// [0, 1] or a NaN input gives NaN. Infinite labels or weights are not judged.
void CheckProbabilityLoss(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops) {
  const int64_t n = Numel(c.self_dims);
  const aclDataType compute = ComputeType(ops), out_dtype = ops[kOut]->plan.dtype;
  const double tiny = SmallestStep(compute);
  Inputs input(c, ops);
  LossSums sums;
  for (int64_t i = 0; i < n; ++i) {
    input.Seek(i);
    const double x = *input(kSelf), y = *input(kTarget);
    const std::optional<double> w = input(kWeight);
    const auto r = aclnn_cpu::bce_prob::ComputeProbLossReference(x, y, w);
    if (std::isnan(y) || (w && std::isnan(*w)) || std::isnan(r.loss)) {
      sums.any_nan = true;
      if (c.reduction == 0 && !std::isnan(input.Output(kOut))) {
        check.Fail("a NaN input or an x outside [0, 1] gave a non-NaN loss", "element " + std::to_string(i));
      }
      continue;
    }
    if (std::isinf(y) || (w && std::isinf(*w))) {
      sums.unjudged = true;
      continue;
    }
    const double gain = (std::fabs(y) + std::fabs(1 - y) + 200.0) * (std::fabs(r.w) + 1.0);
    if (c.reduction == 0) {
      const double bound = aclnn_cpu::bce_prob::ProbLossErrorBound(r, compute, out_dtype) + 4.0 * tiny * gain;
      const double got = input.Output(kOut);
      if (!Acceptable(got, r.loss, bound, compute, out_dtype)) {
        FailElement(check, "loss of probabilities outside the error bound", i, got, r.loss, bound, input);
      }
      continue;
    }
    sums.Add(r.loss, aclnn_cpu::bce_prob::ProbLossErrorBound(r, compute, compute) + 4.0 * tiny * gain);
  }
  if (c.reduction != 0) CheckReducedLoss(check, c, ops, sums, compute);
}

/// Its gradient against its reference (ProbGradReference, ProbGradErrorBound) plus the compute
/// type's smallest steps magnified by the division and the factors after it. NaN in gives NaN;
/// infinite operands, and quotients beyond the compute type's range (their product by the weight
/// is then IEEE's, not the exact value's), are not judged.
void CheckProbabilityGradient(const Checker& check, const Case& c, const std::array<Operand*, kSlots>& ops) {
  const int64_t n = Numel(c.self_dims);
  const aclDataType compute = ComputeType(ops), out_dtype = ops[kOut]->plan.dtype;
  const double tiny = SmallestStep(compute);
  const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  const long double limit = compute == ACL_DOUBLE ? static_cast<long double>(DBL_MAX) : static_cast<long double>(FLT_MAX);
  Inputs input(c, ops);
  for (int64_t i = 0; i < n; ++i) {
    input.Seek(i);
    const double x = *input(kSelf), y = *input(kTarget), dout = *input(kDout);
    const std::optional<double> w = input(kWeight);
    const double got = input.Output(kOut);
    if (std::isnan(x) || std::isnan(y) || std::isnan(dout) || (w && std::isnan(*w))) {
      if (!std::isnan(got)) check.Fail("NaN input gave a non-NaN gradient", "element " + std::to_string(i));
      continue;
    }
    if (std::isinf(x) || std::isinf(y) || std::isinf(dout) || (w && std::isinf(*w))) continue;
    const long double lx = x, num = dout * (lx - y);
    const long double den = std::max((1 - lx) * lx, static_cast<long double>(aclnn_cpu::bce_prob_grad::kDenominatorFloor));
    if (std::fabs(num) > limit || std::fabs(num / den) > limit || std::fabs(num / den * w.value_or(1.0)) > limit) continue;
    const double g = aclnn_cpu::bce_prob_grad::ProbGradReference(x, y, dout, w, scale);
    const double gain = (std::fabs(dout) + std::fabs(x - y) + 2.0) * (std::fabs(w.value_or(1.0)) + 1.0) / static_cast<double>(den);
    const double bound =
        aclnn_cpu::bce_prob_grad::ProbGradErrorBound(g, c.reduction == 1, compute, out_dtype) + 4.0 * tiny * gain;
    if (!Acceptable(got, g, bound, compute, out_dtype)) {
      FailElement(check, "gradient of probabilities outside the error bound", i, got, g, bound, input);
    }
  }
}

/// Bytes of an output's storage that lie outside its view must equal @p before.
void CheckOutsideViewUntouched(const Checker& check, const Operand& out, const std::vector<uint8_t>& before) {
  const std::vector<uint8_t> after = out.Bytes();
  std::vector<bool> in_view(static_cast<size_t>(out.plan.storage_elems), false);
  for (int64_t index : ViewIndices(out.plan)) in_view[static_cast<size_t>(index)] = true;
  const size_t elem = out.ElemSize();
  for (size_t e = 0; e < in_view.size(); ++e) {
    if (in_view[e]) continue;
    if (std::memcmp(after.data() + e * elem, before.data() + e * elem, elem) != 0) {
      check.Fail("a storage element outside an output's view was written", "storage element " + std::to_string(e));
    }
  }
}

aclrtStream StreamOf(StreamMode mode, void* not_a_stream) {
  switch (mode) {
    case StreamMode::kCreated: return g_stream;
    case StreamMode::kNotAStream: return not_a_stream;
    default: return nullptr;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtCreateStream(&g_stream);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const std::optional<Case> decoded = Decode(in);
  if (!decoded) return -1;
  const Case& c = *decoded;
  if (!Modelled(c.op)) return 0;  // an API of the list whose rules the model does not know yet
  SplitMix rng(c.seed);

  // Tensors. Out may be a second tensor over self's or gradOutput's storage and view.
  std::array<std::unique_ptr<Operand>, kSlots> owned;
  for (int slot = 0; slot < kSlots; ++slot) {
    if (!c.operands[slot].present || !Passed(c.op, slot)) continue;
    owned[slot] = std::make_unique<Operand>();
    owned[slot]->plan = c.operands[slot];
  }
  int aliased = c.alias == Alias::kOutIsSelf ? kSelf : (c.alias == Alias::kOutIsDout ? kDout : -1);
  if (aliased < 0 && c.share == Share::kSameView) aliased = c.share_slot;
  const bool alias = aliased >= 0 && owned[aliased] != nullptr && owned[kOut] != nullptr;
  if (alias) owned[kOut]->plan = owned[aliased]->plan;
  // out over an input's storage with its own view, c.share_shift bytes in.
  const int shared = !alias && c.share == Share::kOwnView && owned[c.share_slot] != nullptr && owned[kOut] != nullptr &&
                             aclDataTypeSize(owned[c.share_slot]->plan.dtype) != 0 &&
                             aclDataTypeSize(owned[kOut]->plan.dtype) != 0
                         ? c.share_slot
                         : -1;
  // The shift is kept a multiple of out's element size: the checks below read out with typed loads.
  // Inputs of another element size still meet out at byte offsets that are not multiples of theirs.
  const int64_t share_shift =
      shared >= 0 ? c.share_shift - c.share_shift % static_cast<int64_t>(aclDataTypeSize(owned[kOut]->plan.dtype)) : 0;
  if (shared >= 0) {
    owned[shared]->allocation_bytes = static_cast<size_t>(share_shift) + owned[kOut]->StorageBytes();
  }
  // The fused call's gradInput over self's or out's storage (same view, or its own view at out's
  // storage: out's allocation is made large enough for it). Not combined with out over an input.
  const int grad_over = owned[kGrad] == nullptr || c.grad_share == GradShare::kNone ? -1
                        : c.grad_share == GradShare::kSameViewAsSelf                 ? kSelf
                                                                                     : kOut;
  const bool grad_over_ok = grad_over >= 0 && owned[grad_over] != nullptr &&
                            aclDataTypeSize(owned[grad_over]->plan.dtype) != 0 &&
                            aclDataTypeSize(owned[kGrad]->plan.dtype) != 0 && !alias && shared < 0;
  const bool grad_same_view = grad_over_ok && c.grad_share != GradShare::kOwnViewOverOut;
  if (grad_same_view) owned[kGrad]->plan = owned[grad_over]->plan;
  if (grad_over_ok && !grad_same_view) {
    owned[kOut]->allocation_bytes = std::max(owned[kOut]->StorageBytes(), owned[kGrad]->StorageBytes());
  }
  std::array<Operand*, kSlots> ops{};
  std::array<const OperandPlan*, kSlots> passed{};
  for (int slot = 0; slot < kSlots; ++slot) {
    Operand* op = owned[slot].get();
    if (op == nullptr) continue;
    const bool over_other = ((alias || shared >= 0) && slot == kOut) || (grad_over_ok && slot == kGrad);
    if (over_other) {
      if (slot == kGrad) {
        op->data = owned[grad_over]->data;
      } else {
        op->data = alias ? owned[aliased]->data : static_cast<uint8_t*>(owned[shared]->data) + share_shift;
      }
      const OperandPlan& p = op->plan;
      const Dims storage_dims = p.storage_as_view_dims ? p.dims : Dims{p.storage_elems};
      op->tensor = aclCreateTensor(p.dims.data(), p.dims.size(), p.dtype, p.strides.data(), p.offset, p.format,
                                   storage_dims.data(), storage_dims.size(), op->data);
    } else {
      const apis::Operand* listed = apis::Get(c.op).Find(kSlotRoles[slot]);
      Materialise(*op, slot, rng, listed != nullptr && listed->domain == apis::Domain::kUnitInterval);
    }
    // Layouts are valid by construction: only a dtype without a size may be refused.
    if (op->tensor == nullptr && aclDataTypeSize(op->plan.dtype) != 0) {
      bce_fuzz::Violation("aclCreateTensor refused a valid tensor", aclGetRecentErrMsg());
    }
    if (op->tensor != nullptr) {
      ops[slot] = op;
      passed[slot] = &op->plan;
    }
  }
  const Checker check(c, passed);
  for (Operand* op : ops) {
    if (op != nullptr) op->before = op->Bytes();
  }
  std::vector<uint8_t> out_allocation_before;  // gradInput's own view over out's allocation
  if (grad_over_ok && !grad_same_view && ops[kOut] != nullptr) {
    const auto* p = static_cast<const uint8_t*>(ops[kOut]->data);
    out_allocation_before.assign(p, p + ops[kOut]->allocation_bytes);
  }

  // A destroyed handle for one operand (its storage stays: only the tensor object is freed).
  int destroyed = -1;
  if (DestroyedHandlesEnabled() && c.destroyed_slot >= 0 && ops[c.destroyed_slot] != nullptr) {
    destroyed = c.destroyed_slot;
    aclDestroyTensor(ops[destroyed]->tensor);  // the pointer is still passed below
  }
  std::array<const void*, kSlots> storage{};
  for (int slot = 0; slot < kSlots; ++slot) storage[slot] = ops[slot] != nullptr ? ops[slot]->data : nullptr;

  // First phase.
  const Expected expected = ModelFirstPhase(c, passed, storage, destroyed);
  auto tensor = [&](int slot) { return ops[slot] != nullptr ? ops[slot]->tensor : nullptr; };
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  std::string sentinel = SetSentinel();
  uint64_t* const ws_out = c.null_workspace_size ? nullptr : &workspace_size;
  aclOpExecutor** const executor_out = c.null_executor ? nullptr : &executor;
  aclnnStatus first = ACLNN_SUCCESS;
  const apis::Api& api = apis::Get(c.op);
  apis::Operands operands;
  for (int slot = 0; slot < kSlots; ++slot) {
    if (api.Has(kSlotRoles[slot])) operands.Set(kSlotRoles[slot], tensor(slot));
  }
  operands.SetInt("reduction", c.reduction);
  first = api.first_phase(operands, ws_out, executor_out);
  const auto second_phase = api.second_phase;
  if (std::getenv("BCE_FUZZ_DESCRIBE") != nullptr) {  // what a corpus file means
    std::fprintf(stderr, "%s\n  -> first phase %d (model %d) %s\n", Describe(c, passed).c_str(), first,
                 expected.status, first == 0 ? "" : aclGetRecentErrMsg());
  }
  if (first != expected.status) {
    check.Fail("first phase status differs from the model",
               "got " + std::to_string(first) + " (" + aclGetRecentErrMsg() + "), model " +
                   std::to_string(expected.status) + " (" + expected.rule + ")");
  }
  auto untouched = [&](const char* when) {
    for (Operand* op : ops) {
      if (op != nullptr && op->Bytes() != op->before) check.Fail("storage written by a failing call", when);
    }
  };
  if (destroyed >= 0) ops[destroyed]->tensor = nullptr;  // not destroyed again by ~Operand
  if (first != ACLNN_SUCCESS) {
    check.ExpectOwnMessage(sentinel, "first phase");
    untouched("first phase");
    return 0;
  }
  if (executor == nullptr) check.Fail("first phase succeeded without an executor");
  const bool reduced_loss = ReducedOut(c.op) && c.reduction != 0;
  if (Numel(c.self_dims) == 0 && workspace_size != 0 && !reduced_loss) check.Fail("empty self asks for a workspace");

  // Second phase: one misuse at most, then a proper launch.
  int not_a_stream = 0;
  void* workspace = nullptr;
  const uint64_t allocated = workspace_size + 64;
  if (aclrtMalloc(&workspace, allocated, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) std::abort();
  void* pass_workspace = workspace;
  uint64_t pass_size = workspace_size;
  aclnnStatus misuse_expected = ACLNN_SUCCESS;
  switch (c.workspace_mode) {
    case WorkspaceMode::kLarger: pass_size = allocated; break;
    case WorkspaceMode::kSmaller:
      if (workspace_size > 0) {
        pass_size = workspace_size - 1;
        misuse_expected = ACLNN_ERR_PARAM_INVALID;
      }
      break;
    case WorkspaceMode::kNull:
      pass_workspace = nullptr;
      if (workspace_size > 0) misuse_expected = ACLNN_ERR_PARAM_NULLPTR;
      break;
    case WorkspaceMode::kZeroSize:
      pass_size = 0;
      if (workspace_size > 0) misuse_expected = ACLNN_ERR_PARAM_INVALID;
      break;
    default: break;
  }
  if (c.stream_mode == StreamMode::kNotAStream) misuse_expected = ACLNN_ERR_PARAM_INVALID;
  aclrtStream stream = StreamOf(c.stream_mode, &not_a_stream);
  // In place (also an own view over an input's storage that lands on the same view), a repeat
  // reads its own results.
  const bool repeatable = c.repeatable && !alias && shared < 0 && !grad_over_ok;
  if (repeatable && aclSetAclOpExecutorRepeatable(executor) != ACLNN_SUCCESS) {
    check.Fail("aclSetAclOpExecutorRepeatable failed on a fresh executor", aclGetRecentErrMsg());
  }
  bool consumed = false;
  if (misuse_expected != ACLNN_SUCCESS) {
    sentinel = SetSentinel();
    const aclnnStatus s = second_phase(pass_workspace, pass_size, executor, stream);
    if (s != misuse_expected) {
      check.Fail("second phase misuse gave another status",
                 "got " + std::to_string(s) + ", expected " + std::to_string(misuse_expected));
    }
    check.ExpectOwnMessage(sentinel, "second phase");
    aclrtSynchronizeStream(nullptr);
    aclrtSynchronizeStream(g_stream);
    untouched("second phase");
    // The refused launch did not consume the executor: a proper launch follows.
    pass_workspace = workspace;
    pass_size = workspace_size;
    stream = c.stream_mode == StreamMode::kNotAStream ? nullptr : stream;
  }
  const aclnnStatus second = second_phase(pass_workspace, pass_size, executor, stream);
  if (second != ACLNN_SUCCESS) {
    check.Fail("second phase failed on a good executor", std::to_string(second) + ": " + aclGetRecentErrMsg());
  }
  consumed = !repeatable;
  if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) check.Fail("aclrtSynchronizeStream failed");

  // Each operator's outputs against its reference (Modelled() operators only run).
  if (c.op == kBackward) CheckGradient(check, c, ops, kOut);
  if (c.op == kTargetBackward) CheckTargetGradient(check, c, ops);
  if (c.op == kForward || c.op == kFused) CheckLoss(check, c, ops);
  if (c.op == kFused) CheckGradient(check, c, ops, kGrad);
  if (c.op == kProbLoss) CheckProbabilityLoss(check, c, ops);
  if (c.op == kProbBackward) CheckProbabilityGradient(check, c, ops);
  // An output over another operand's storage: the bytes outside both views are checked below.
  if (!grad_over_ok) {
    CheckOutsideViewUntouched(check, *ops[kOut], ops[kOut]->before);
    if (ops[kGrad] != nullptr) CheckOutsideViewUntouched(check, *ops[kGrad], ops[kGrad]->before);
  } else if (!grad_same_view) {  // gradInput's own view over out's allocation: neither view's bytes
    const auto* p = static_cast<const uint8_t*>(ops[kOut]->data);
    const std::vector<uint8_t> after(p, p + ops[kOut]->allocation_bytes);
    std::vector<bool> in_view(static_cast<size_t>(ops[kOut]->plan.storage_elems), false);
    for (int64_t index : ViewIndices(ops[kOut]->plan)) in_view[static_cast<size_t>(index)] = true;
    std::vector<bool> in_grad(after.size(), false);
    const auto base = reinterpret_cast<uintptr_t>(ops[kOut]->data);
    const size_t elem = ops[kOut]->ElemSize(), grad_elem = ops[kGrad]->ElemSize();
    for (uintptr_t start : ElementStarts(ops[kGrad]->plan, ops[kGrad]->data)) {
      for (size_t k = 0; k < grad_elem; ++k) in_grad[start - base + k] = true;  // within: allocated so
    }
    for (size_t b = 0; b < after.size(); ++b) {
      const bool in_out = b / elem < in_view.size() && in_view[b / elem];
      if (!in_out && !in_grad[b] && after[b] != out_allocation_before[b]) {
        check.Fail("a byte outside the outputs' views was written", "byte " + std::to_string(b));
      }
    }
  } else {  // the same view as self or out: its storage's other bytes stay too
    CheckOutsideViewUntouched(check, *ops[kOut], ops[kOut]->before);
    CheckOutsideViewUntouched(check, *ops[kGrad], ops[kGrad]->before);
  }
  for (int slot : {kDout, kSelf, kTarget, kWeight, kPosWeight}) {
    // A storage out shares is checked by CheckOutsideViewUntouched, as far as out's storage reaches.
    if (ops[slot] == nullptr || (alias && slot == aliased) || slot == shared) continue;
    if (grad_over_ok && slot == grad_over) continue;
    if (ops[slot]->Bytes() != ops[slot]->before) check.Fail("an input's storage was written", kSlotNames[slot]);
  }

  if (repeatable) {
    const std::vector<uint8_t> first_result = ops[kOut]->Bytes();
    for (int k = 0; k < 2; ++k) {
      if (second_phase(workspace, workspace_size, executor, stream) != ACLNN_SUCCESS) {
        check.Fail("a repeatable executor failed on a repeat", aclGetRecentErrMsg());
      }
    }
    aclrtSynchronizeStream(stream);
    if (ops[kOut]->Bytes() != first_result) check.Fail("a repeatable executor gave other bits on a repeat");
    if (aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) check.Fail("destroying a repeatable executor failed");
  } else if (consumed) {
    sentinel = SetSentinel();
    if (second_phase(workspace, workspace_size, executor, stream) !=
        ACLNN_ERR_PARAM_INVALID) {
      check.Fail("a consumed executor ran again");
    }
    check.ExpectOwnMessage(sentinel, "consumed executor");
    if (aclDestroyAclOpExecutor(executor) != ACLNN_ERR_PARAM_INVALID) check.Fail("a consumed executor was destroyed");
  }
  aclrtSynchronizeStream(stream);
  aclrtFree(workspace);
  return 0;
}
