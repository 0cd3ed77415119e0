// The Python extension `aclnn_bce._aclnn_bce`: the four operators' two-phase calls over arrays that
// nanobind imports without copying (numpy through the buffer protocol, torch and any other CPU
// array through DLPack). The Python layer (aclnn_bce/_api.py) checks the call's form, allocates
// the outputs in the caller's array type and passes every operand here; this file only describes
// the arrays to the library as aclTensors, runs both phases with the GIL released, waits for the
// launch and turns a refusal into a Python exception carrying the library's message.
//
// Lifetimes: the call is synchronous (the stream is synchronized before returning), and the
// arrays are arguments of this call, so every operand outlives the launch.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>
#include <optional>
#include <stdexcept>
#include <string>

#include "acl/acl.h"
#include "aclnn/aclnn_cpu.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_fused.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "common/two_phase_call.h"

namespace nb = nanobind;

namespace {

using Array = nb::ndarray<nb::ro, nb::device::cpu>;   ///< an input (read-only arrays too)
using OutArray = nb::ndarray<nb::device::cpu>;        ///< an output (writable)
using OptArray = std::optional<Array>;
using OptOutArray = std::optional<OutArray>;

enum class Op : int { kForward = 0, kBackward = 1, kTargetBackward = 2, kFused = 3 };

/// An exception raised with the GIL held, after the call: the library's message and its class.
struct Refusal {
  enum Kind { kNone, kValue, kType, kRuntime } kind = kNone;
  std::string message;
};

/// The aclDataType of a DLPack dtype (an ml_dtypes bfloat16 numpy array arrives as its uint16
/// view with @p bf16 set: numpy exports no bfloat16 of its own). Integer, bool and complex arrays
/// map to their CANN types, so that the library's own dtype rule refuses them with its message.
aclDataType ToAclType(nb::dlpack::dtype t, bool bf16) {
  using nb::dlpack::dtype_code;
  if (bf16 && t.code == static_cast<uint8_t>(dtype_code::UInt) && t.bits == 16) return ACL_BF16;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Float:
      return t.bits == 16 ? ACL_FLOAT16 : t.bits == 32 ? ACL_FLOAT : t.bits == 64 ? ACL_DOUBLE : ACL_DT_UNDEFINED;
    case dtype_code::Bfloat: return t.bits == 16 ? ACL_BF16 : ACL_DT_UNDEFINED;
    case dtype_code::Int:
      return t.bits == 8 ? ACL_INT8 : t.bits == 16 ? ACL_INT16 : t.bits == 32 ? ACL_INT32 : t.bits == 64 ? ACL_INT64
                                                                                                          : ACL_DT_UNDEFINED;
    case dtype_code::UInt:
      return t.bits == 8 ? ACL_UINT8 : t.bits == 16 ? ACL_UINT16 : t.bits == 32 ? ACL_UINT32 : t.bits == 64 ? ACL_UINT64
                                                                                                            : ACL_DT_UNDEFINED;
    case dtype_code::Bool: return ACL_BOOL;
    case dtype_code::Complex: return t.bits == 64 ? ACL_COMPLEX64 : t.bits == 128 ? ACL_COMPLEX128 : ACL_DT_UNDEFINED;
    default: return ACL_DT_UNDEFINED;
  }
}

/// A view with a negative stride: aclCreateTensor takes strides >= 0 (raised to Python as
/// aclnn_bce._aclnn_bce.NegativeStridesError, a ValueError; the Python layer copies such a view).
struct NegativeStrides : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An aclTensor over an array, destroyed with this object.
class Tensor {
 public:
  Tensor() = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }

  /// Describes @p a as a view over the storage it spans (storage dims [extent], offset 0). Throws
  /// nb::value_error / nb::type_error naming @p name for what aclCreateTensor cannot describe,
  /// NegativeStrides for a view with a negative stride (the Python layer then copies it).
  template <typename A>
  void Describe(const A& a, bool bf16, const char* name) {
    const size_t rank = a.ndim();
    if (rank > 32) throw nb::value_error((std::string(name) + ": more than 32 dims").c_str());
    int64_t dims[32], strides[32];
    for (size_t k = 0; k < rank; ++k) {
      dims[k] = static_cast<int64_t>(a.shape(k));
      strides[k] = a.stride(k);
    }
    Make(rank, dims, strides, ToAclType(a.dtype(), bf16), const_cast<void*>(a.data()), name);
  }

  /// Describes the view of a descriptor (data address, shape, strides in elements, aclDataType
  /// value or -2 for a dtype the library has no name for), as the Python layer makes one of a
  /// torch tensor: t.data_ptr(), t.shape, t.stride(), the dtype's code.
  void DescribeRaw(nb::handle desc, const char* name) {
    if (!nb::isinstance<nb::tuple>(desc) || nb::len(desc) != 4) {
      throw nb::type_error((std::string(name) + ": not an array descriptor").c_str());
    }
    nb::tuple t = nb::borrow<nb::tuple>(desc);
    const auto address = nb::cast<uintptr_t>(t[0]);
    nb::handle shape = t[1], stride = t[2];
    const size_t rank = nb::len(shape);
    if (rank > 32) throw nb::value_error((std::string(name) + ": more than 32 dims").c_str());
    if (nb::len(stride) != rank) throw nb::value_error((std::string(name) + ": one stride per dim").c_str());
    int64_t dims[32], strides[32];
    for (size_t k = 0; k < rank; ++k) {
      dims[k] = nb::cast<int64_t>(shape[k]);
      strides[k] = nb::cast<int64_t>(stride[k]);
    }
    const int code = nb::cast<int>(t[3]);
    const aclDataType dtype = code == -2 ? ACL_DT_UNDEFINED : static_cast<aclDataType>(code);
    Make(rank, dims, strides, dtype, reinterpret_cast<void*>(address), name);
  }

  aclTensor* get() const { return tensor_; }
  /// Describes the view (shape @p dims, @p strides in elements) at @p data, as Describe does.
  void MakeView(size_t rank, const int64_t* dims, const int64_t* strides, aclDataType dtype, void* data,
                const char* name) {
    Make(rank, dims, strides, dtype, data, name);
  }

 private:
  void Make(size_t rank, const int64_t* dims, const int64_t* strides, aclDataType dtype, void* data,
            const char* name) {
    int64_t extent = 1;
    bool empty = false;
    for (size_t k = 0; k < rank; ++k) {
      if (dims[k] <= 0) empty = true;  // a negative dim: aclCreateTensor refuses it with its rule
      if (strides[k] < 0) throw NegativeStrides(std::string(name) + ": negative strides are not supported");
    }
    if (!empty) {
      for (size_t k = 0; k < rank; ++k) {
        int64_t span = 0;
        if (__builtin_mul_overflow(dims[k] - 1, strides[k], &span) || __builtin_add_overflow(extent, span, &extent)) {
          throw nb::value_error((std::string(name) + ": the view spans more than 2^63 elements").c_str());
        }
      }
    } else {
      extent = 0;
    }
    if (dtype == ACL_DT_UNDEFINED) {
      throw nb::type_error((std::string(name) + ": an array dtype the library has no name for").c_str());
    }
    const int64_t storage[1] = {extent};
    tensor_ = aclCreateTensor(rank == 0 ? nullptr : dims, rank, dtype, rank == 0 ? nullptr : strides, 0,
                              ACL_FORMAT_ND, storage, 1, data);
    if (tensor_ == nullptr) throw nb::value_error((std::string(name) + ": " + aclGetRecentErrMsg()).c_str());
  }

  aclTensor* tensor_ = nullptr;
};

Refusal RefusalOf(aclnnStatus status) {
  Refusal r;
  r.message = aclGetRecentErrMsg();
  if (status == ACLNN_ERR_PARAM_NULLPTR || status == ACLNN_ERR_PARAM_INVALID) {
    r.kind = r.message.find(" dtype ") != std::string::npos ? Refusal::kType : Refusal::kValue;
  } else {
    r.kind = Refusal::kRuntime;
  }
  return r;
}

/// The first phase of @p op over described operands (an absent one is null).
aclnnStatus FirstPhase(Op op, const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                       const aclTensor* pos_weight, const aclTensor* grad_output, int64_t reduction, aclTensor* out,
                       aclTensor* grad_input, uint64_t* workspace_size, aclOpExecutor** executor) {
  switch (op) {
    case Op::kForward:
      return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self, target, weight, pos_weight, reduction, out,
                                                               workspace_size, executor);
    case Op::kBackward:
      return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(grad_output, self, target, weight, pos_weight,
                                                                       reduction, out, workspace_size, executor);
    case Op::kTargetBackward:
      return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
          grad_output, self, target, weight, pos_weight, reduction, out, workspace_size, executor);
    case Op::kFused:
      return aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(self, target, weight, pos_weight, grad_output,
                                                                    reduction, out, grad_input, workspace_size,
                                                                    executor);
  }
  return ACLNN_ERR_INNER;
}

/// The second phase of @p op.
aclnnStatus SecondPhase(Op op, void* workspace, uint64_t size, aclOpExecutor* executor, aclrtStream stream) {
  switch (op) {
    case Op::kForward: return aclnnBinaryCrossEntropyWithLogits(workspace, size, executor, stream);
    case Op::kBackward: return aclnnBinaryCrossEntropyWithLogitsBackward(workspace, size, executor, stream);
    case Op::kTargetBackward: return aclnnBinaryCrossEntropyWithLogitsTargetBackward(workspace, size, executor, stream);
    case Op::kFused: return aclnnBinaryCrossEntropyWithLogitsFused(workspace, size, executor, stream);
  }
  return ACLNN_ERR_INNER;
}

/// Both phases and the wait, on the calling thread without the GIL, through the project's one
/// client-side two-phase helper (common/two_phase_call.h) on the default stream. The workspace
/// is one per calling thread, kept for its next call: each call waits for its launch.
Refusal RunOp(Op op, const aclTensor* self, const aclTensor* target, const aclTensor* weight,
              const aclTensor* pos_weight, const aclTensor* grad_output, int64_t reduction, aclTensor* out,
              aclTensor* grad_input) {
  thread_local aclnn_cpu::DeviceMemory workspace;
  const auto first_phase = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
    return FirstPhase(op, self, target, weight, pos_weight, grad_output, reduction, out, grad_input, workspace_size,
                      executor);
  };
  const auto second_phase = [op](void* w, uint64_t size, aclOpExecutor* executor, aclrtStream stream) {
    return SecondPhase(op, w, size, executor, stream);
  };
  const aclnn_cpu::TwoPhaseResult result = aclnn_cpu::CallTwoPhase(first_phase, second_phase, nullptr, workspace);
  return result.ok() ? Refusal{} : RefusalOf(result.status);
}

/// Raises @p refusal as the Python exception of its kind (nothing for kNone).
void Raise(const Refusal& refusal) {
  switch (refusal.kind) {
    case Refusal::kNone: return;
    case Refusal::kType: throw nb::type_error(refusal.message.c_str());
    case Refusal::kValue: throw nb::value_error(refusal.message.c_str());
    case Refusal::kRuntime: throw std::runtime_error(refusal.message);
  }
}

/// The operands of one call, in the order of the slots.
enum Slot : unsigned { kSelf = 0, kTarget, kWeight, kPosWeight, kGradOutput, kOut, kGradInput, kSlots };
constexpr const char* kSlotNames[kSlots] = {"input", "target", "weight", "pos_weight", "grad_output", "out",
                                            "grad_input"};

/// Both phases over described operands (an absent one stays null), the GIL released.
void Execute(int op, const Tensor (&t)[kSlots], int64_t reduction) {
  if (op < 0 || op > 3) throw nb::value_error("op must be 0 (forward), 1 (backward), 2 (target backward) or 3 (fused)");
  Refusal refusal;
  {
    nb::gil_scoped_release release;
    refusal = RunOp(static_cast<Op>(op), t[kSelf].get(), t[kTarget].get(), t[kWeight].get(), t[kPosWeight].get(),
                    t[kGradOutput].get(), reduction, t[kOut].get(), t[kGradInput].get());
  }
  Raise(refusal);
}

/// Arrays that nanobind imports (numpy through the buffer protocol, anything with __dlpack__).
/// Bits of @p bf16_mask (by slot): ml_dtypes bfloat16 arrays passed as their uint16 view.
void Run(int op, const Array& self, const Array& target, const OptArray& weight, const OptArray& pos_weight,
         const OptArray& grad_output, int64_t reduction, const OutArray& out, const OptOutArray& grad_input,
         unsigned bf16_mask) {
  auto bf16 = [&](Slot s) { return (bf16_mask >> s & 1u) != 0; };
  Tensor t[kSlots];
  t[kSelf].Describe(self, bf16(kSelf), kSlotNames[kSelf]);
  t[kTarget].Describe(target, bf16(kTarget), kSlotNames[kTarget]);
  if (weight) t[kWeight].Describe(*weight, bf16(kWeight), kSlotNames[kWeight]);
  if (pos_weight) t[kPosWeight].Describe(*pos_weight, bf16(kPosWeight), kSlotNames[kPosWeight]);
  if (grad_output) t[kGradOutput].Describe(*grad_output, bf16(kGradOutput), kSlotNames[kGradOutput]);
  t[kOut].Describe(out, bf16(kOut), kSlotNames[kOut]);
  if (grad_input) t[kGradInput].Describe(*grad_input, bf16(kGradInput), kSlotNames[kGradInput]);
  Execute(op, t, reduction);
}

/// Descriptors (see Tensor::DescribeRaw) or None, in slot order: the torch path, which skips
/// DLPack's export (several microseconds a tensor in PyTorch 2.x) for the tensor's own fields.
void RunRaw(int op, nb::handle self, nb::handle target, nb::handle weight, nb::handle pos_weight,
            nb::handle grad_output, int64_t reduction, nb::handle out, nb::handle grad_input) {
  const nb::handle operands[kSlots] = {self, target, weight, pos_weight, grad_output, out, grad_input};
  Tensor t[kSlots];
  for (unsigned s = 0; s < kSlots; ++s) {
    if (!operands[s].is_none()) t[s].DescribeRaw(operands[s], kSlotNames[s]);
  }
  Execute(op, t, reduction);
}

/// Bumps the version counter of each torch tensor in @p tensors (a tuple or list), as PyTorch's
/// in-place operations do (Note [Written tensors are versioned]).
void BumpVersions(nb::handle tensors);

// Note [Prepared calls]
// aclnn_bce.prepare() describes a call's arrays once and keeps the executor of its first phase
// (aclSetAclOpExecutorRepeatable) with a workspace of its own: each run is the second phase and
// the wait, over the arrays' current contents. The object holds a reference to every array it
// reads or writes, so none dies while it may run. An array can still be moved to other memory
// in place while referenced, so each run first checks every operand and raises RuntimeError
// (running nothing) when one has moved:
// - a torch tensor re-pointed in place (resize_ growing it, set_, its storage resized): its
//   data_ptr() is compared with the address it was described with. Only the address: a view
//   changed in place over the same memory (as_strided_, resize_ shrinking it) keeps its storage,
//   so the run stays inside memory the tensor holds, over the view it was prepared with.
//   (Reading shape and strides too cost 0.4 us a tensor, 2.6 us a call of six tensors, against
//   the 0.4 us of the whole numpy run; data_ptr() alone costs 0.07 us; AMD Zen 5, PyTorch 2.15.)
// - a numpy array resized in place (ndarray.resize(..., refcheck=False) reallocates its block,
//   or shrinks it where it is, leaving views of it dangling): the caller's arrays and the arrays
//   their memory comes from (the .base chain) are compared, address, dims and strides, with what
//   they were prepared with. These are read from the array object itself (Note [numpy's array
//   head]), a few nanoseconds an array.
// One launch at a time: a run that finds the object running in another thread raises
// RuntimeError instead of waiting (two launches of one executor would write the same outputs).
// The mark of a running launch carries the process's fork generation (Note [Prepared calls
// after fork]). After a successful run the torch tensors it wrote have their version counters
// bumped (Note [Written tensors are versioned]).

// Note [numpy's array head]
// numpy's public C API reads an array's address, dims and strides (PyArray_DATA, PyArray_NDIM,
// PyArray_DIMS, PyArray_STRIDES) from the first fields of its object, which numpy keeps in this
// order as part of its ABI (numpy/ndarraytypes.h, PyArrayObject_fields, numpy 1.x and 2.x). The
// extension does not include numpy's headers (numpy is not a build requirement), so it reads the
// same fields through this mirror; a prepared call checks, when it is made, that what it reads
// agrees with what the array says of itself in Python, and refuses to be made otherwise.
struct NumpyArrayHead {
  PyObject_HEAD
  char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
};

// Note [Prepared calls after fork]
// A prepared call marks itself running with the process's fork generation, a number the child of
// every fork() adds one to (pthread_atfork). A child forked while another thread of the parent
// runs the call inherits the mark, but not the thread that would clear it (fork copies only the
// calling thread), and the runtime's fork handlers let the launch finish before the fork (README,
// "Lifetimes, resource limits, exit and fork"). So a mark of an older generation is stale: a run
// in the child takes the call over instead of refusing it as running.
std::atomic<uint64_t> g_fork_generation{1};

void CountFork() { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

class Prepared {
 public:
  /// @p operands: one entry per slot, None, an array (nanobind's import) or a descriptor tuple
  /// (Tensor::DescribeRaw); @p guards: the torch tensors among them, checked at each run;
  /// @p written: the torch tensors a run writes, versioned after each run; @p arrays: the numpy
  /// arrays checked at each run (Note [Prepared calls]).
  Prepared(int op, nb::list operands, int64_t reduction, unsigned bf16_mask, nb::list guards, nb::list written,
           nb::list arrays) {
    if (op < 0 || op > 3) throw nb::value_error("op must be 0 (forward), 1 (backward), 2 (target backward) or 3 (fused)");
    if (nb::len(operands) != kSlots) throw nb::value_error("prepare: one operand per slot");
    op_ = static_cast<Op>(op);
    Tensor t[kSlots];
    for (unsigned s = 0; s < kSlots; ++s) {
      nb::handle x = operands[s];
      if (x.is_none()) continue;
      const bool bf16 = (bf16_mask >> s & 1u) != 0;
      if (nb::isinstance<nb::tuple>(x)) {
        t[s].DescribeRaw(x, kSlotNames[s]);
      } else if (s >= kOut) {
        t[s].Describe(nb::cast<OutArray>(x), bf16, kSlotNames[s]);
      } else {
        t[s].Describe(nb::cast<Array>(x), bf16, kSlotNames[s]);
      }
    }
    for (nb::handle g : guards) guards_.push_back(Guard{nb::borrow(g), Address(g)});
    for (nb::handle a : arrays) arrays_.push_back(ArrayGuard::Of(a));
    if (nb::len(written) != 0) written_ = nb::tuple(written);
    Refusal refusal;
    {
      nb::gil_scoped_release release;
      refusal = Plan(t, reduction);
    }
    Raise(refusal);
  }
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared() {
    if (executor_ != nullptr) aclDestroyAclOpExecutor(executor_);
  }

  /// The second phase and the wait, the GIL released.
  void Run() {
    if (executor_ == nullptr) throw std::runtime_error("prepared call: closed");
    for (const Guard& g : guards_) {
      if (Address(g.tensor) != g.address) {
        throw std::runtime_error(
            "prepared call: a torch tensor it was prepared with has been resized or re-pointed in place "
            "(its data_ptr() changed); prepare the call again");
      }
    }
    for (const ArrayGuard& a : arrays_) {
      if (!a.Unchanged()) {
        throw std::runtime_error(
            "prepared call: a numpy array it was prepared with (or the array its memory comes from) has been "
            "resized or reshaped in place (its address, dims or strides changed); prepare the call again");
      }
    }
    Claim("prepared call: already running in another thread (one launch at a time)");
    Refusal refusal;
    {
      nb::gil_scoped_release release;
      aclnnStatus status = SecondPhase(op_, workspace_.get(), workspace_size_, executor_, nullptr);
      if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
      if (status != ACLNN_SUCCESS) refusal = RefusalOf(status);
    }
    busy_.store(0, std::memory_order_release);
    Raise(refusal);
    if (written_.is_valid()) BumpVersions(written_);
  }

  /// Destroys the executor and frees the workspace; later runs raise. Closing twice is allowed.
  void Close() {
    Claim("prepared call: cannot close while it runs in another thread");
    if (executor_ != nullptr) aclDestroyAclOpExecutor(executor_);
    executor_ = nullptr;
    workspace_.Reset();
    guards_.clear();
    arrays_.clear();
    written_ = nb::object();
    busy_.store(0, std::memory_order_release);
  }
  bool closed() const { return executor_ == nullptr; }

 private:
  struct Guard {
    nb::object tensor;
    uintptr_t address;
  };

  /// A numpy array's address, dims and strides as prepared (Note [numpy's array head]).
  struct ArrayGuard {
    nb::object array;
    char* data = nullptr;
    std::vector<Py_ssize_t> dims, strides;

    static const NumpyArrayHead* Head(nb::handle a) { return reinterpret_cast<const NumpyArrayHead*>(a.ptr()); }

    static ArrayGuard Of(nb::handle a) {
      const NumpyArrayHead* head = Head(a);
      ArrayGuard g{nb::borrow(a), head->data, {}, {}};
      if (head->nd < 0 || head->nd > 64) throw std::runtime_error("prepare: a numpy array's head is not as expected");
      g.dims.assign(head->dimensions, head->dimensions + head->nd);
      g.strides.assign(head->strides, head->strides + head->nd);
      // What numpy says of the array in Python must be what the head holds.
      nb::dict iface = nb::cast<nb::dict>(a.attr("__array_interface__"));
      const auto address = nb::cast<uintptr_t>(nb::cast<nb::tuple>(iface["data"])[0]);
      nb::tuple shape = nb::cast<nb::tuple>(a.attr("shape")), strides = nb::cast<nb::tuple>(a.attr("strides"));
      bool same = address == reinterpret_cast<uintptr_t>(g.data) && nb::len(shape) == g.dims.size();
      for (size_t k = 0; same && k < g.dims.size(); ++k) {
        same = nb::cast<Py_ssize_t>(shape[k]) == g.dims[k] && nb::cast<Py_ssize_t>(strides[k]) == g.strides[k];
      }
      if (!same) throw std::runtime_error("prepare: a numpy array's head is not as expected (Note [numpy's array head])");
      return g;
    }

    bool Unchanged() const {
      const NumpyArrayHead* head = Head(array);
      return head->data == data && static_cast<size_t>(head->nd) == dims.size() &&
             std::equal(dims.begin(), dims.end(), head->dimensions) &&
             std::equal(strides.begin(), strides.end(), head->strides);
    }
  };

  /// Marks the call running in this process, or raises @p busy where another thread of this
  /// process runs it (Note [Prepared calls after fork]).
  void Claim(const char* busy) {
    const uint64_t generation = g_fork_generation.load(std::memory_order_relaxed);
    uint64_t held = 0;
    if (busy_.compare_exchange_strong(held, generation, std::memory_order_acquire)) return;
    // A mark of an older generation was left by a thread of a parent process: take it over.
    if (held != generation && busy_.compare_exchange_strong(held, generation, std::memory_order_acquire)) return;
    throw std::runtime_error(busy);
  }

  /// The first phase, made repeatable, and the workspace: a refusal leaves nothing behind.
  Refusal Plan(const Tensor (&t)[kSlots], int64_t reduction) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = FirstPhase(op_, t[kSelf].get(), t[kTarget].get(), t[kWeight].get(), t[kPosWeight].get(),
                                    t[kGradOutput].get(), reduction, t[kOut].get(), t[kGradInput].get(), &size,
                                    &executor);
    if (status != ACLNN_SUCCESS) return RefusalOf(status);
    status = aclSetAclOpExecutorRepeatable(executor);
    if (status == ACLNN_SUCCESS && workspace_.Reserve(size) != ACL_SUCCESS) status = ACLNN_ERR_RUNTIME_ERROR;
    if (status != ACLNN_SUCCESS) {
      Refusal refusal = RefusalOf(status);
      aclDestroyAclOpExecutor(executor);
      return refusal;
    }
    executor_ = executor;
    workspace_size_ = size;
    return {};
  }

  /// tensor.data_ptr().
  static uintptr_t Address(nb::handle tensor) {
    static PyObject* const name = PyUnicode_InternFromString("data_ptr");  // the process's, never freed
    nb::object r = nb::steal(PyObject_CallMethodNoArgs(tensor.ptr(), name));
    if (!r.is_valid()) throw nb::python_error();
    const auto address = static_cast<uintptr_t>(PyLong_AsUnsignedLongLong(r.ptr()));
    if (PyErr_Occurred()) throw nb::python_error();
    return address;
  }

  Op op_ = Op::kForward;
  aclOpExecutor* executor_ = nullptr;
  aclnn_cpu::DeviceMemory workspace_;
  uint64_t workspace_size_ = 0;
  std::atomic<uint64_t> busy_{0};  ///< 0, or the fork generation of the process whose thread runs it
  std::vector<Guard> guards_;
  std::vector<ArrayGuard> arrays_;
  nb::object written_;  ///< a tuple of the torch tensors a run writes, or unset
};

// Note [Torch tensors read here]
// The torch path describes each tensor by its own fields (data_ptr(), shape, stride(), dtype,
// is_cpu) rather than through DLPack, whose export costs several microseconds a tensor in
// PyTorch 2.x, and does the whole call here (torch_call): the reduction's name, the operands,
// the new outputs (torch.empty, or the output cache from 4 MiB), both phases. Each public
// function of the Python layer tries it first. A 1 Ki-element forward with a new 0-dim loss went
// from 3.82 to 2.74 us (timeit, AMD Zen 5, PyTorch 2.15) against the same steps written in
// Python: most of a call this small is Python work, not the operator. The Python layer registers
// torch.Tensor, the dtypes, torch.empty, torch._C._increment_version and torch.is_grad_enabled
// once (register_torch). A tensor of a subclass, not on the CPU or of an unregistered dtype, a
// number where a tensor goes, a reduction that is not one of the three names or a plain int, a
// tensor whose memory is not its values (Note [Lazy tensors]) and a given output that requires
// grad under grad mode (PyTorch's out= refuses it) make torch_call return None without
// allocating or running anything, and the Python layer's general path then handles (or refuses)
// the call with its messages.

// Note [Lazy tensors]
// A torch tensor's memory is not always its values: a tensor with the negative bit (the
// imaginary part of a conjugate view, torch._neg_view) holds -values, a ZeroTensor has no memory
// (data_ptr() 0), and a tensor of a torch.func transform (vmap, grad), of functionalization, a
// nested or a sparse tensor cannot be described by an address and strides (data_ptr() or
// stride() raises, or gives 0). (The conjugate bit only exists on complex tensors, which the
// library refuses by dtype before it reads anything.) The extension never reads such a tensor:
// is_neg() is asked of every operand (it costs about what data_ptr() does), a failing field or a
// null address of a non-empty tensor declines the call, and the Python layer's general path
// resolves the tensor (a copy: resolve_neg(), zeros) or refuses it with a message naming it.

// Note [Reading a tensor's fields]
// Each field the torch path reads (is_cpu, dtype, is_neg(), data_ptr(), shape, stride(),
// requires_grad) is a getter or a method that torch.Tensor inherits from C (torch._C.TensorBase).
// Register finds each one's descriptor in the class once; a call then invokes the descriptor on
// the tensor directly (its getter, or a vectorcall of the method) rather than looking the name up
// through the class's bases each time. With the lazy-tensor check (Note [Lazy tensors]) a tensor
// costs six such reads; the direct calls took back 50-150 ns of a 1 Ki forward's (timeit with
// thread_time on a busy 2-core machine; the reads run the same code either way). A name not
// found as such a descriptor (a future torch that defines it in Python) is read the ordinary way.

// Note [Written tensors are versioned]
// PyTorch's autograd checks, when a backward unpacks a saved tensor, that no in-place operation
// has changed it since (its version counter); an out= of PyTorch's own bumps the counter. Every
// torch tensor the library writes (out=, grad_input=, a prepared call's outputs) is bumped the
// same way once the call has written it (torch._C._increment_version, the function behind
// torch.autograd.graph.increment_version, which leaves inference tensors alone), so a backward
// over values it overwrote raises "modified by an inplace operation" as it would after PyTorch's
// own out=. New outputs made by the call need none.
class TorchReader {
 public:
  static TorchReader& Get() {
    static auto* reader = new TorchReader;  // never destroyed: module objects may outlive it at exit
    return *reader;
  }
  /// torch.Tensor, {torch dtype: aclDataType value}, torch.empty, torch._C._increment_version and
  /// torch.is_grad_enabled; the references are kept for the process.
  void Register(nb::handle tensor_type, nb::dict dtypes, nb::handle empty, nb::handle increment_version,
                nb::handle is_grad_enabled) {
    tensor_type_ = tensor_type.inc_ref().ptr();
    empty_ = empty.inc_ref().ptr();
    increment_version_ = increment_version.inc_ref().ptr();
    is_grad_enabled_ = is_grad_enabled.inc_ref().ptr();
    dtypes_.clear();
    for (auto [key, value] : dtypes) dtypes_.push_back({key.inc_ref().ptr(), nb::cast<int>(value)});
    descriptors_.clear();
    for (PyObject* name : {is_cpu_, dtype_, data_ptr_, shape_, stride_, is_neg_, requires_grad_}) {
      PyObject* d = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(tensor_type_), name);  // borrowed
      if (d != nullptr && (Py_IS_TYPE(d, &PyMethodDescr_Type) || Py_IS_TYPE(d, &PyGetSetDescr_Type))) {
        descriptors_.push_back({name, nb::handle(d).inc_ref().ptr()});
      }
    }
  }
  bool registered() const { return tensor_type_ != nullptr; }
  bool is_tensor(nb::handle obj) const { return Py_TYPE(obj.ptr()) == reinterpret_cast<PyTypeObject*>(tensor_type_); }

  /// What Describe read of a tensor that the caller may need again (to make an output like it).
  struct Fields {
    nb::object dtype, shape;
    int code = -1;
  };

  /// Describes @p obj into @p t; false (nothing described, no Python error left set) for what the
  /// general path must handle, lazy tensors included (Note [Lazy tensors]).
  bool Describe(PyObject* obj, Tensor& t, const char* name, Fields* fields = nullptr) const {
    if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(tensor_type_)) return false;
    nb::object is_cpu = Field(obj, is_cpu_, false);
    if (is_cpu.ptr() != Py_True) return false;
    nb::object dtype = Field(obj, dtype_, false);
    int code = -1;
    for (const auto& [known, value] : dtypes_) {
      if (known == dtype.ptr()) code = value;
    }
    if (code < 0) return false;
    if (Field(obj, is_neg_, true).ptr() != Py_False) return false;
    nb::object address = Field(obj, data_ptr_, true);
    nb::object shape = Field(obj, shape_, false);
    nb::object stride = Field(obj, stride_, true);
    if (!address.is_valid() || !shape.is_valid() || !stride.is_valid()) return false;
    if (!PyTuple_Check(shape.ptr()) || !PyTuple_Check(stride.ptr())) return false;
    const Py_ssize_t rank = PyTuple_GET_SIZE(shape.ptr());
    if (rank > 32 || PyTuple_GET_SIZE(stride.ptr()) != rank) return false;
    int64_t dims[32], strides[32];
    bool empty = false;
    for (Py_ssize_t k = 0; k < rank; ++k) {
      dims[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), k));
      strides[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(stride.ptr(), k));
      empty = empty || dims[k] == 0;
    }
    const auto data = reinterpret_cast<void*>(static_cast<uintptr_t>(PyLong_AsUnsignedLongLong(address.ptr())));
    if (PyErr_Occurred()) throw nb::python_error();
    if (data == nullptr && !empty) return false;  // no memory behind the values: a ZeroTensor, say
    t.MakeView(static_cast<size_t>(rank), dims, strides, static_cast<aclDataType>(code), data, name);
    if (fields != nullptr) *fields = Fields{std::move(dtype), std::move(shape), code};
    return true;
  }

  /// Whether the library may write the given output @p out here: false, for the general path to
  /// refuse it with PyTorch's message, where out requires grad under grad mode (PyTorch's out=
  /// refuses it: autograd cannot follow an out= call).
  bool Writable(nb::handle out) const {
    if (Field(out.ptr(), requires_grad_, false).ptr() == Py_False) return true;
    nb::object grad_mode = nb::steal(PyObject_CallNoArgs(is_grad_enabled_));
    if (!grad_mode.is_valid()) throw nb::python_error();
    return grad_mode.ptr() != Py_True;
  }

  /// torch._C._increment_version(@p tensors) (Note [Written tensors are versioned]).
  void BumpVersions(nb::handle tensors) const {
    nb::object r = nb::steal(PyObject_CallOneArg(increment_version_, tensors.ptr()));
    if (!r.is_valid()) throw nb::python_error();
  }

  /// t.data_ptr() of a tensor.
  void* DataPointer(nb::handle tensor) const {
    nb::object address = nb::steal(PyObject_CallMethodNoArgs(tensor.ptr(), data_ptr_));
    if (!address.is_valid()) throw nb::python_error();
    const auto data = reinterpret_cast<void*>(static_cast<uintptr_t>(PyLong_AsUnsignedLongLong(address.ptr())));
    if (PyErr_Occurred()) throw nb::python_error();
    return data;
  }

  /// The shape of a 0-dim tensor, ().
  const nb::object& scalar_shape() const { return scalar_shape_; }

  /// A new C-contiguous CPU tensor: torch.empty(size=@p shape, dtype=@p dtype). (size= as a
  /// keyword: torch's argument parser takes it in 0.6-0.7 us, a positional torch.Size in
  /// 1.0-1.4 us; PyTorch 2.15, AMD Zen 5.)
  nb::object Empty(nb::handle shape, nb::handle dtype) const {
    PyObject* args[2] = {shape.ptr(), dtype.ptr()};
    nb::object result = nb::steal(PyObject_Vectorcall(empty_, args, 0, empty_kwnames_));
    if (!result.is_valid()) throw nb::python_error();
    return result;
  }

 private:
  TorchReader()
      : is_cpu_(PyUnicode_InternFromString("is_cpu")),
        dtype_(PyUnicode_InternFromString("dtype")),
        data_ptr_(PyUnicode_InternFromString("data_ptr")),
        shape_(PyUnicode_InternFromString("shape")),
        stride_(PyUnicode_InternFromString("stride")),
        is_neg_(PyUnicode_InternFromString("is_neg")),
        requires_grad_(PyUnicode_InternFromString("requires_grad")),
        empty_kwnames_(Py_BuildValue("(ss)", "size", "dtype")),
        scalar_shape_(nb::steal(PyTuple_New(0))) {}

  /// The attribute @p name of a plain tensor @p obj, or its method of that name called without
  /// arguments when @p call is set; an unset object (the error cleared) where that raises. The
  /// class's own descriptor is used where torch.Tensor has one from C (a getter, a method):
  /// found once (Register), it saves each call the lookup through the class (Note [Reading a
  /// tensor's fields]).
  nb::object Field(PyObject* obj, PyObject* name, bool call) const {
    PyObject* descriptor = nullptr;
    for (const auto& [known, d] : descriptors_) {
      if (known == name) descriptor = d;
    }
    PyObject* r = nullptr;
    if (descriptor == nullptr) {
      r = call ? PyObject_CallMethodNoArgs(obj, name) : PyObject_GetAttr(obj, name);
    } else if (call) {
      r = PyObject_Vectorcall(descriptor, &obj, 1, nullptr);
    } else {
      r = Py_TYPE(descriptor)->tp_descr_get(descriptor, obj, reinterpret_cast<PyObject*>(Py_TYPE(obj)));
    }
    if (r == nullptr) PyErr_Clear();
    return nb::steal(r);
  }

  PyObject* tensor_type_ = nullptr;
  PyObject* empty_ = nullptr;
  PyObject* increment_version_ = nullptr;
  PyObject* is_grad_enabled_ = nullptr;
  std::vector<std::pair<PyObject*, int>> dtypes_;
  PyObject* is_cpu_;
  PyObject* dtype_;
  PyObject* data_ptr_;
  PyObject* shape_;
  PyObject* stride_;
  PyObject* is_neg_;
  PyObject* requires_grad_;
  std::vector<std::pair<PyObject*, PyObject*>> descriptors_;  ///< (name, torch.Tensor's C descriptor)
  PyObject* empty_kwnames_;
  nb::object scalar_shape_;
};

void BumpVersions(nb::handle tensors) { TorchReader::Get().BumpVersions(tensors); }

// Note [Output cache]
// A fresh output of 16 Mi floats (64 MiB) takes 16 Ki page faults on its first write, and the
// kernel zeroes each page: measured 16-22 ms on AMD EPYC, where the operator itself writes it in
// 7 ms (PyTorch's CPU allocator hands such blocks back to the system when a tensor dies, so every
// step of a training loop pays this again). Outputs of kCachedMinBytes and more are therefore
// allocated here and handed to Python through DLPack with an owner whose release returns the
// block to a cache; the next output of the same size class reuses its pages, already faulted in.
// (Transparent huge pages through madvise were tried first: 3-10 ms when the kernel has free
// huge pages, 70-80 ms when it compacts memory to make them.) The cache keeps at most
// kMaxCachedBytes; it is never destroyed (arrays may outlive the module at exit), and fork()
// holds its lock across the call.
class OutputCache {
 public:
  static constexpr uint64_t kCachedMinBytes = uint64_t{4} << 20;
  static constexpr uint64_t kMaxCachedBytes = uint64_t{512} << 20;
  static constexpr uint64_t kSizeClass = uint64_t{1} << 20;

  static OutputCache& Get() {
    static OutputCache* cache = [] {
      auto* c = new OutputCache;  // never destroyed: see the note
      pthread_atfork([] { Get().mutex_.lock(); }, [] { Get().mutex_.unlock(); }, [] { Get().mutex_.unlock(); });
      return c;
    }();
    return *cache;
  }

  static uint64_t SizeClass(uint64_t bytes) { return (bytes + kSizeClass - 1) / kSizeClass * kSizeClass; }

  /// A block of SizeClass(bytes) bytes, 4 KiB aligned, or null when memory runs out.
  void* Take(uint64_t bytes) {
    const uint64_t size = SizeClass(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = free_.size(); i-- > 0;) {  // the most recently freed first: the warmest
        if (free_[i].size == size) {
          void* p = free_[i].data;
          free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
          free_bytes_ -= size;
          return p;
        }
      }
    }
    return std::aligned_alloc(4096, size);
  }

  /// Returns a block from Take (its array has died): kept for reuse, or freed when the cache is full.
  void Give(void* data, uint64_t bytes) noexcept {
    const uint64_t size = SizeClass(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (free_bytes_ + size <= kMaxCachedBytes) {
        try {
          free_.push_back({data, size});
          free_bytes_ += size;
          return;
        } catch (const std::bad_alloc&) {
        }
      }
    }
    std::free(data);
  }

 private:
  struct Block {
    void* data;
    uint64_t size;
  };
  std::mutex mutex_;
  std::vector<Block> free_;
  uint64_t free_bytes_ = 0;
};

/// What an output's owner capsule holds.
struct CachedBlock {
  void* data;
  uint64_t bytes;
};

/// A new C-contiguous output of @p shape and @p dtype (float32, float16, float64 or bfloat16 as
/// their aclDataType values) from the output cache (Note [Output cache]), as a torch tensor when
/// @p torch is set, else a numpy array (not for bfloat16: numpy has none of its own).
nb::object NewOutput(const std::vector<size_t>& shape, int dtype, bool torch) {
  nb::dlpack::dtype t{static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 0, 1};
  switch (dtype) {
    case ACL_FLOAT: t.bits = 32; break;
    case ACL_FLOAT16: t.bits = 16; break;
    case ACL_DOUBLE: t.bits = 64; break;
    case ACL_BF16:
      if (!torch) throw nb::type_error("new_output: numpy has no bfloat16 of its own");
      t.code = static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat);
      t.bits = 16;
      break;
    default: throw nb::type_error("new_output: dtype must be float32, float16, float64 or bfloat16");
  }
  uint64_t bytes = t.bits / 8;
  for (size_t d : shape) {
    // More bytes than a size class can hold (a stride-0 view of 2^62 elements, say): MemoryError.
    if (__builtin_mul_overflow(bytes, d, &bytes) || bytes > (uint64_t{1} << 62)) throw std::bad_alloc();
  }
  if (bytes == 0) bytes = 1;
  auto* block = new CachedBlock{OutputCache::Get().Take(bytes), bytes};
  if (block->data == nullptr) {
    delete block;
    throw std::bad_alloc();
  }
  nb::capsule owner(block, [](void* p) noexcept {
    auto* b = static_cast<CachedBlock*>(p);
    OutputCache::Get().Give(b->data, b->bytes);
    delete b;
  });
  if (torch) {
    return nb::cast(nb::ndarray<nb::pytorch, nb::device::cpu>(block->data, shape.size(), shape.data(), owner,
                                                              nullptr, t));
  }
  return nb::cast(nb::ndarray<nb::numpy, nb::device::cpu>(block->data, shape.size(), shape.data(), owner, nullptr, t));
}

/// The calling thread's slot for a new 0-dim loss (Note [The loss through a fixed address]).
void* LossSlot() {
  alignas(64) thread_local unsigned char slot[64];
  return slot;
}

/// One operator call over plain CPU torch tensors, outputs made here, as Note [Torch tensors read
/// here] says: the result (a tensor, or (loss, grad) for the fused call), or None, with nothing
/// allocated or run, when the call is for the Python layer's general path: an operand that is
/// not a plain CPU tensor of a registered dtype (a number, a subclass, another device), a lazy
/// tensor (Note [Lazy tensors]), a given output that PyTorch's out= would refuse, a reduction
/// that is not one of the three names or a plain int, a missing grad_output where one is needed.
/// Refusals of the library raise as run() does; given outputs are versioned once written (Note
/// [Written tensors are versioned]).
nb::object TorchCall(int op, nb::handle self, nb::handle target, nb::handle weight, nb::handle pos_weight,
                     nb::handle grad_output, nb::handle reduction, nb::handle out, nb::handle grad_input) {
  const TorchReader& reader = TorchReader::Get();
  if (!reader.registered() || !reader.is_tensor(self) || op < 0 || op > 3) return nb::none();
  int64_t red = -1;
  if (PyUnicode_CheckExact(reduction.ptr())) {
    const char* names[3] = {"none", "mean", "sum"};
    for (int64_t k = 0; k < 3; ++k) {
      if (PyUnicode_CompareWithASCIIString(reduction.ptr(), names[k]) == 0) red = k;
    }
    if (red < 0) return nb::none();  // the general path names the three
  } else if (PyLong_CheckExact(reduction.ptr())) {
    red = PyLong_AsLongLong(reduction.ptr());
    if (red == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return nb::none();
    }
  } else {
    return nb::none();
  }
  const auto kind = static_cast<Op>(op);
  if (grad_output.is_none() && (kind == Op::kBackward || kind == Op::kTargetBackward)) return nb::none();
  Tensor t[kSlots];
  TorchReader::Fields self_fields, target_fields;
  if (!reader.Describe(self.ptr(), t[kSelf], kSlotNames[kSelf], &self_fields) ||
      !reader.Describe(target.ptr(), t[kTarget], kSlotNames[kTarget], &target_fields)) {
    return nb::none();
  }
  const nb::handle inputs[3] = {weight, pos_weight, grad_output};
  for (unsigned s = kWeight; s <= kGradOutput; ++s) {
    const nb::handle x = inputs[s - kWeight];
    if (!x.is_none() && !reader.Describe(x.ptr(), t[s], kSlotNames[s])) return nb::none();
  }
  // The given outputs are read before anything is allocated: a call the general path must take
  // allocates nothing here.
  const bool scalar_loss = red != 0 && (kind == Op::kForward || kind == Op::kFused);
  const nb::handle given[2] = {out, kind == Op::kFused ? grad_input : nb::none()};
  for (unsigned k = 0; k < 2; ++k) {
    if (given[k].is_none()) continue;
    if (!reader.Describe(given[k].ptr(), t[kOut + k], kSlotNames[kOut + k]) || !reader.Writable(given[k])) {
      return nb::none();
    }
  }
  // Outputs have target's dtype: the loss of mean and sum is 0-dim, every other one has self's shape.
  std::pair<void*, size_t> loss_copy{nullptr, 0};  // a new 0-dim loss, written through LossSlot()
  const auto make = [&](bool scalar, Slot slot) {
    const nb::object& shape = scalar ? reader.scalar_shape() : self_fields.shape;
    uint64_t itemsize = 0;
    switch (target_fields.code) {
      case ACL_FLOAT: itemsize = 4; break;
      case ACL_FLOAT16: case ACL_BF16: itemsize = 2; break;
      case ACL_DOUBLE: itemsize = 8; break;
      default: break;
    }
    std::vector<size_t> dims;
    uint64_t bytes = itemsize;
    if (!scalar) {
      for (size_t k = 0; k < nb::len(shape); ++k) {
        dims.push_back(nb::cast<size_t>(shape[k]));
        // A stride-0 view can have more elements than memory: NewOutput raises MemoryError.
        if (__builtin_mul_overflow(bytes, dims.back(), &bytes)) bytes = UINT64_MAX;
      }
    }
    nb::object made = itemsize != 0 && bytes >= OutputCache::kCachedMinBytes
                          ? NewOutput(dims, target_fields.code, true)
                          : reader.Empty(shape, target_fields.dtype);
    // A new tensor is C-contiguous with the dims and dtype it was made with: only its address is read.
    int64_t sizes[32], strides[32];
    int64_t stride = 1;
    for (size_t k = dims.size(); k-- > 0;) {
      sizes[k] = static_cast<int64_t>(dims[k]);
      strides[k] = stride;
      stride *= std::max<int64_t>(sizes[k], 1);
    }
    void* data = reader.DataPointer(made);
    if (scalar && itemsize != 0) {
      // Note [The loss through a fixed address]
      // A new 0-dim loss has a new address at every call, and the library's plan cache (Note
      // [Plan cache] in src/opdev/plan_cache.h) keys plans on every address: a loop over the same
      // inputs would plan every call anew (0.41 us instead of 0.10). So the library writes the
      // loss to this thread's fixed slot, copied to the new tensor once the call has returned.
      loss_copy = {data, itemsize};
      data = LossSlot();
    }
    t[slot].MakeView(dims.size(), sizes, strides, static_cast<aclDataType>(target_fields.code), data,
                     kSlotNames[slot]);
    return made;
  };
  nb::object result = out.is_none() ? make(scalar_loss, kOut) : nb::borrow(out);
  nb::object grad;
  if (kind == Op::kFused) grad = grad_input.is_none() ? make(false, kGradInput) : nb::borrow(grad_input);
  Execute(op, t, red);
  if (loss_copy.first != nullptr) std::memcpy(loss_copy.first, LossSlot(), loss_copy.second);
  if (!given[0].is_none() || !given[1].is_none()) {  // Note [Written tensors are versioned]
    reader.BumpVersions(given[1].is_none() ? nb::make_tuple(given[0])
                        : given[0].is_none() ? nb::make_tuple(given[1])
                                             : nb::make_tuple(given[0], given[1]));
  }
  if (kind == Op::kFused) return nb::make_tuple(result, grad);
  return result;
}

}  // namespace

NB_MODULE(_aclnn_bce, m) {
  m.doc() = "The library's C API for aclnn_bce (use the functions of the aclnn_bce package).";
  pthread_atfork(nullptr, nullptr, CountFork);  // Note [Prepared calls after fork]
  nb::exception<NegativeStrides>(m, "NegativeStridesError", PyExc_ValueError);
  m.def("run", &Run, nb::arg("op"), nb::arg("self"), nb::arg("target"), nb::arg("weight").none(),
        nb::arg("pos_weight").none(), nb::arg("grad_output").none(), nb::arg("reduction"), nb::arg("out"),
        nb::arg("grad_input").none(), nb::arg("bf16_mask"),
        "Runs one operator's two phases over the arrays and waits for the result (op: 0 forward, 1 backward, "
        "2 target backward, 3 fused). Raises ValueError or TypeError with the library's message.");
  m.def("run_raw", &RunRaw, nb::arg("op"), nb::arg("self").none(), nb::arg("target").none(),
        nb::arg("weight").none(), nb::arg("pos_weight").none(), nb::arg("grad_output").none(), nb::arg("reduction"),
        nb::arg("out").none(), nb::arg("grad_input").none(),
        "run() over descriptors (data address, shape, strides in elements, aclDataType value or -2) or None.");
  m.def(
      "register_torch",
      [](nb::handle tensor_type, nb::dict dtypes, nb::handle empty, nb::handle increment_version,
         nb::handle is_grad_enabled) {
        TorchReader::Get().Register(tensor_type, dtypes, empty, increment_version, is_grad_enabled);
      },
      nb::arg("tensor_type"), nb::arg("dtypes"), nb::arg("empty"), nb::arg("increment_version"),
      nb::arg("is_grad_enabled"),
      "Registers torch.Tensor, {torch dtype: aclDataType value}, torch.empty, torch._C._increment_version and "
      "torch.is_grad_enabled for torch_call and prepared calls (once, by the Python layer).");
  m.def("torch_call", &TorchCall, nb::arg("op"), nb::arg("self").none(), nb::arg("target").none(),
        nb::arg("weight").none(), nb::arg("pos_weight").none(), nb::arg("grad_output").none(),
        nb::arg("reduction").none(), nb::arg("out").none(), nb::arg("grad_input").none(),
        "One call over plain CPU torch tensors (or None), read by their own fields, outputs made here: the "
        "result, or None, with nothing run, when the call is for the Python layer's general path (a number, a "
        "subclass, another device, an unregistered dtype, a reduction that is not a name or an int).");
  nb::class_<Prepared>(m, "Prepared",
                       "A call whose first phase ran once (a repeatable executor): run() launches it again over "
                       "the arrays' current contents (Note [Prepared calls]).")
      .def(nb::init<int, nb::list, int64_t, unsigned, nb::list, nb::list, nb::list>(), nb::arg("op"),
           nb::arg("operands"), nb::arg("reduction"), nb::arg("bf16_mask"), nb::arg("guards"), nb::arg("written"),
           nb::arg("arrays"))
      .def("run", &Prepared::Run, "The second phase and the wait.")
      .def("close", &Prepared::Close, "Destroys the executor; later runs raise RuntimeError.")
      .def_prop_ro("closed", &Prepared::closed);
  m.def("new_output", &NewOutput, nb::arg("shape"), nb::arg("dtype"), nb::arg("torch"),
        "A new C-contiguous output from the library's cache of large output blocks (aclDataType value; "
        "torch tensor or numpy array).");
  m.attr("CACHED_OUTPUT_MIN_BYTES") = OutputCache::kCachedMinBytes;
  m.def(
      "simd_target", [] { return std::string(aclnnCpuSimdTargetName()); },
      "The SIMD instruction set the kernels run with on this CPU (e.g. 'AVX3').");
  m.def(
      "set_num_threads",
      [](int n) {
        if (aclnnCpuSetNumThreads(n) != ACL_SUCCESS) throw nb::value_error(aclGetRecentErrMsg());
      },
      nb::arg("n"), "Sets the number of threads the kernels use (aclnnCpuSetNumThreads).");
  m.def("get_num_threads", &aclnnCpuGetNumThreads, "The number of threads the kernels use.");
}
