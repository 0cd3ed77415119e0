// The Python extension `aclnn_bce._aclnn_bce`: the two-phase calls of the APIs of the one API list
// (Note [One op list], cmake/aclnn_op.cmake; src/client/api_table.h) over arrays that nanobind
// imports without copying (numpy through the buffer protocol, torch and any other CPU array
// through DLPack). The operators are the enum Op, named by the list; an operand is passed by its
// role's keyword (input, target, weight, ...: the list's roles, `self` spelled `input` as PyTorch
// does). The Python layer (aclnn_bce/_api.py) checks the call's form, allocates the outputs in the
// caller's array type and passes every operand here; this file only describes the arrays to the
// library as aclTensors, runs both phases with the GIL released, waits for the launch and turns a
// refusal into the Python exception of the kind the library reports (aclnnCpuGetRecentErrorKind),
// carrying its message.
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
#include "client/api_table.h"

namespace nb = nanobind;
namespace apis = aclnn_cpu::apis;

namespace {

using Array = nb::ndarray<nb::ro, nb::device::cpu>;   ///< an input (read-only arrays too)
using OutArray = nb::ndarray<nb::device::cpu>;        ///< an output (writable)
using OptArray = std::optional<Array>;
using OptOutArray = std::optional<OutArray>;

using apis::ApiId;
using apis::kTensorSlots;

/// An exception raised with the GIL held, after the call: the library's message and its class.
struct Refusal {
  enum Kind { kNone, kValue, kType, kRuntime } kind = kNone;
  std::string message;
};

/// The name the Python layer gives the operand of a tensor slot: the list's role, but `input` for
/// self (PyTorch's name; the library's messages say self, as CANN does).
constexpr const char* PythonName(size_t slot) {
  return std::string_view(apis::kTensorRoles[slot]) == "self" ? "input" : apis::kTensorRoles[slot];
}

/// Whether a tensor slot is written by some API of the list (described as a writable array).
constexpr bool IsOutputSlot(size_t slot) {
  for (const apis::Api& api : apis::kAll) {
    for (const apis::Operand& o : api.operands) {
      if (o.is_tensor() && o.slot == slot && o.is_output()) return true;
    }
  }
  return false;
}

/// Each API's tensor slots as bits (a call checks its operands against them without comparing
/// role names).
constexpr std::array<uint64_t, apis::kApiCount> kApiSlotBits = [] {
  static_assert(kTensorSlots <= 64, "the tensor slots fit a uint64_t");
  std::array<uint64_t, apis::kApiCount> bits{};
  for (size_t i = 0; i < apis::kApiCount; ++i) {
    for (const apis::Operand& o : apis::kAll[i].operands) {
      if (o.is_tensor()) bits[i] |= uint64_t{1} << o.slot;
    }
  }
  return bits;
}();

/// Whether the API of index @p api takes the tensor of @p slot.
constexpr bool Takes(size_t api, size_t slot) { return (kApiSlotBits[api] >> slot & 1u) != 0; }

/// The aclDataType values asked of the library for their names (CANN's are -1 to 33).
constexpr int kMaxDTypeCode = 127;

constexpr size_t kSelfSlot = apis::TensorSlot("self");
constexpr size_t kTargetSlot = apis::TensorSlot("target");
constexpr size_t kReductionSlot = apis::IntSlot("reduction");
static_assert(kSelfSlot != apis::kNoSlot && kTargetSlot != apis::kNoSlot && kReductionSlot != apis::kNoSlot,
              "the Python layer's calls have self, target and reduction");

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

/// The refusal of a failed call, of the kind the library reports (Note [Error kinds] in the
/// library; aclnnCpuGetRecentErrorKind): TypeError for a dtype rule, ValueError for any other rule
/// on a parameter, RuntimeError for a call that could not be done.
Refusal RefusalOf(aclnnStatus status) {
  Refusal r;
  r.message = aclGetRecentErrMsg();
  switch (aclnnCpuGetRecentErrorKind()) {
    case ACLNN_CPU_ERROR_TYPE: r.kind = Refusal::kType; break;
    case ACLNN_CPU_ERROR_NULL_POINTER:
    case ACLNN_CPU_ERROR_VALUE: r.kind = Refusal::kValue; break;
    case ACLNN_CPU_ERROR_NONE:
    case ACLNN_CPU_ERROR_RUNTIME: r.kind = Refusal::kRuntime; break;
  }
  if (status == ACLNN_ERR_RUNTIME_ERROR && r.kind != Refusal::kRuntime) {
    r.kind = Refusal::kRuntime;  // the workspace or the synchronize failed after an earlier refusal's kind
  }
  return r;
}

/// The operands of one call, by tensor slot (an absent one stays empty).
using Tensors = std::array<Tensor, kTensorSlots>;

/// The API of @p op, with ValueError for an operand it does not take (the Python layer passes
/// only the roles of its operator).
const apis::Api& ApiOf(ApiId op, const Tensors& t) {
  const size_t index = static_cast<size_t>(op);
  if (index >= apis::kApiCount) throw nb::value_error("op: not an operator of the API list");
  const apis::Api& api = apis::kAll[index];
  for (size_t slot = 0; slot < kTensorSlots; ++slot) {
    if (t[slot].get() != nullptr && !Takes(index, slot)) {
      throw nb::value_error((std::string(api.short_name) + " takes no " + PythonName(slot)).c_str());
    }
  }
  return api;
}

/// The list's operands of @p api over @p t.
apis::Operands OperandsOf(const apis::Api& api, const Tensors& t, int64_t reduction) {
  apis::Operands o;
  for (const apis::Operand& operand : api.operands) {
    if (operand.is_tensor()) o.tensors[operand.slot] = t[operand.slot].get();
  }
  o.ints[kReductionSlot] = reduction;
  return o;
}

/// Both phases and the wait, on the calling thread without the GIL, through the project's one
/// client-side two-phase helper (client/two_phase_call.h) on the default stream. The workspace
/// is one per calling thread, kept for its next call: each call waits for its launch.
Refusal RunOp(const apis::Api& api, const apis::Operands& operands) {
  thread_local aclnn_cpu::DeviceMemory workspace;
  const aclnn_cpu::TwoPhaseResult result = apis::Call(api, operands, nullptr, workspace);
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

/// Both phases over described operands (an absent one stays null), the GIL released.
void Execute(ApiId op, const Tensors& t, int64_t reduction) {
  const apis::Api& api = ApiOf(op, t);
  const apis::Operands operands = OperandsOf(api, t, reduction);
  Refusal refusal;
  {
    nb::gil_scoped_release release;
    refusal = RunOp(api, operands);
  }
  Raise(refusal);
}

/// Describes an array that nanobind imports (numpy through the buffer protocol, anything with
/// __dlpack__) into the tensor of @p slot: writable for an output slot. TypeError for what is not
/// such an array.
void DescribeArray(nb::handle x, size_t slot, bool bf16, Tensor& t) {
  if (IsOutputSlot(slot)) {
    OutArray a;
    if (!nb::try_cast(x, a)) throw nb::type_error((std::string(PythonName(slot)) + ": not a writable array").c_str());
    t.Describe(a, bf16, PythonName(slot));
  } else {
    Array a;
    if (!nb::try_cast(x, a)) throw nb::type_error((std::string(PythonName(slot)) + ": not an array").c_str());
    t.Describe(a, bf16, PythonName(slot));
  }
}

/// An operand handle per tensor slot, for run() and run_raw(): None for an absent one.
using Handles = std::array<nb::handle, kTensorSlots>;
template <size_t>
using HandleOf = nb::handle;

/// Arrays that nanobind imports. Bits of @p bf16_mask (by slot): ml_dtypes bfloat16 arrays
/// passed as their uint16 view.
void Run(ApiId op, int64_t reduction, unsigned bf16_mask, const Handles& operands) {
  Tensors t;
  for (size_t s = 0; s < kTensorSlots; ++s) {
    if (!operands[s].is_none()) DescribeArray(operands[s], s, (bf16_mask >> s & 1u) != 0, t[s]);
  }
  Execute(op, t, reduction);
}

/// Descriptors (see Tensor::DescribeRaw) or None, by slot: the torch path, which skips DLPack's
/// export (several microseconds a tensor in PyTorch 2.x) for the tensor's own fields.
void RunRaw(ApiId op, int64_t reduction, const Handles& operands) {
  Tensors t;
  for (size_t s = 0; s < kTensorSlots; ++s) {
    if (!operands[s].is_none()) t[s].DescribeRaw(operands[s], PythonName(s));
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
  /// @p operands: {role's Python name: an array (nanobind's import), a descriptor tuple
  /// (Tensor::DescribeRaw) or None}; @p guards: the torch tensors among them, checked at each run;
  /// @p written: the torch tensors a run writes, versioned after each run; @p arrays: the numpy
  /// arrays checked at each run (Note [Prepared calls]).
  Prepared(ApiId op, nb::dict operands, int64_t reduction, unsigned bf16_mask, nb::list guards, nb::list written,
           nb::list arrays) {
    Tensors t;
    size_t named = 0;
    for (size_t s = 0; s < kTensorSlots; ++s) {
      if (!operands.contains(PythonName(s))) continue;
      ++named;
      nb::handle x = operands[PythonName(s)];
      if (x.is_none()) continue;
      if (nb::isinstance<nb::tuple>(x)) {
        t[s].DescribeRaw(x, PythonName(s));
      } else {
        DescribeArray(x, s, (bf16_mask >> s & 1u) != 0, t[s]);
      }
    }
    if (named != nb::len(operands)) throw nb::value_error("prepare: an operand that is not a role of the API list");
    api_ = &ApiOf(op, t);
    const apis::Operands described = OperandsOf(*api_, t, reduction);
    for (nb::handle g : guards) guards_.push_back(Guard{nb::borrow(g), Address(g)});
    for (nb::handle a : arrays) arrays_.push_back(ArrayGuard::Of(a));
    if (nb::len(written) != 0) written_ = nb::tuple(written);
    Refusal refusal;
    {
      nb::gil_scoped_release release;
      refusal = Plan(described);
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
      aclnnStatus status = api_->second_phase(workspace_.get(), workspace_size_, executor_, nullptr);
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
  Refusal Plan(const apis::Operands& operands) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = api_->first_phase(operands, &size, &executor);
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

  const apis::Api* api_ = nullptr;
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
nb::object NewOutput(const std::vector<size_t>& shape, aclDataType dtype, bool torch) {
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

/// The calling thread's slot for the @p k-th new 0-dim output of a call (Note [The loss through a
/// fixed address]).
void* ScalarSlot(size_t k) {
  alignas(64) thread_local unsigned char slots[kTensorSlots][64];
  return slots[k];
}

/// One operator call over plain CPU torch tensors, outputs made here, as Note [Torch tensors read
/// here] says: the result (a tensor, or a tuple of the outputs in the API's order where it has
/// several, as the fused call), or None, with nothing allocated or run, when the call is for the
/// Python layer's general path: an operand that is not a plain CPU tensor of a registered dtype (a
/// number, a subclass, another device), a lazy tensor (Note [Lazy tensors]), a given output that
/// PyTorch's out= would refuse, a reduction that is not one of the three names or a plain int, a
/// missing required input or an operand the API does not take. New outputs have self's shape (0-dim
/// for a reduced output of mean and sum) and the dtype the API list gives them. Refusals of the
/// library raise as run() does; given outputs are versioned once written (Note [Written tensors
/// are versioned]).
nb::object TorchCall(ApiId op, nb::handle reduction, const Handles& operands) {
  const TorchReader& reader = TorchReader::Get();
  const auto index = static_cast<size_t>(op);
  if (!reader.registered() || index >= apis::kApiCount || !reader.is_tensor(operands[kSelfSlot])) return nb::none();
  const apis::Api& api = apis::kAll[index];
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
  for (size_t s = 0; s < kTensorSlots; ++s) {
    if (!operands[s].is_none() && !Takes(index, s)) return nb::none();
  }
  Tensors t;
  TorchReader::Fields fields[kTensorSlots];
  // self and target first (what new outputs are made like; a view of self the library refuses is
  // refused before anything else is read), then the other inputs in the API's order.
  const auto describe = [&](const apis::Operand& o) {
    const nb::handle x = operands[o.slot];
    if (x.is_none()) return o.kind != apis::OperandKind::kInput;  // a missing one: the general path names it
    return reader.Describe(x.ptr(), t[o.slot], PythonName(o.slot), &fields[o.slot]);
  };
  for (const size_t first : {kSelfSlot, kTargetSlot}) {
    const apis::Operand* o = api.Find(apis::kTensorRoles[first]);
    if (o != nullptr && !describe(*o)) return nb::none();
  }
  for (const apis::Operand& o : api.operands) {
    if (!o.is_tensor() || o.is_output() || o.slot == kSelfSlot || o.slot == kTargetSlot) continue;
    if (!describe(o)) return nb::none();
  }
  // The given outputs are read before anything is allocated: a call the general path must take
  // allocates nothing here.
  std::vector<nb::handle> given;
  for (const apis::Operand& o : api.operands) {
    if (!o.is_output()) continue;
    const nb::handle x = operands[o.slot];
    if (x.is_none()) {
      if (fields[o.dtype_slot].code < 0) return nb::none();  // no dtype to make it with: the general path
      continue;
    }
    if (!reader.Describe(x.ptr(), t[o.slot], PythonName(o.slot)) || !reader.Writable(x)) return nb::none();
    given.push_back(x);
  }
  struct ScalarCopy {
    void* to;
    size_t bytes;
  };
  std::vector<ScalarCopy> scalar_copies;  // new 0-dim outputs, written through ScalarSlot()
  const auto make = [&](const apis::Operand& o) {
    const bool scalar = o.kind == apis::OperandKind::kReducedOutput && red != 0;
    const TorchReader::Fields& like = fields[o.dtype_slot];
    const nb::object& shape = scalar ? reader.scalar_shape() : fields[kSelfSlot].shape;
    uint64_t itemsize = 0;
    switch (like.code) {
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
    nb::object made = itemsize != 0 && bytes >= OutputCache::kCachedMinBytes ? NewOutput(dims, static_cast<aclDataType>(like.code), true)
                                                                             : reader.Empty(shape, like.dtype);
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
      scalar_copies.push_back({data, itemsize});
      data = ScalarSlot(scalar_copies.size() - 1);
    }
    t[o.slot].MakeView(dims.size(), sizes, strides, static_cast<aclDataType>(like.code), data, PythonName(o.slot));
    return made;
  };
  nb::object results[kTensorSlots];
  size_t result_count = 0;
  for (const apis::Operand& o : api.operands) {
    if (o.is_output()) results[result_count++] = operands[o.slot].is_none() ? make(o) : nb::borrow(operands[o.slot]);
  }
  Execute(op, t, red);
  for (size_t k = 0; k < scalar_copies.size(); ++k) std::memcpy(scalar_copies[k].to, ScalarSlot(k), scalar_copies[k].bytes);
  if (!given.empty()) {  // Note [Written tensors are versioned]
    nb::tuple written = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(given.size())));
    for (size_t k = 0; k < given.size(); ++k) PyTuple_SET_ITEM(written.ptr(), k, given[k].inc_ref().ptr());
    reader.BumpVersions(written);
  }
  if (result_count == 1) return results[0];
  nb::tuple all = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(result_count)));
  for (size_t k = 0; k < result_count; ++k) PyTuple_SET_ITEM(all.ptr(), k, results[k].release().ptr());
  return all;
}

/// Defines run, run_raw and torch_call with one keyword argument per tensor role of the API list
/// (None by default), after the leading ones.
template <size_t... kSlot>
void DefineCalls(nb::module_& m, std::index_sequence<kSlot...>) {
  const auto handles = [](auto... operands) { return Handles{nb::handle(operands)...}; };
  m.def(
      "run",
      [handles](ApiId op, int64_t reduction, unsigned bf16_mask, HandleOf<kSlot>... operands) {
        Run(op, reduction, bf16_mask, handles(operands...));
      },
      nb::arg("op"), nb::arg("reduction"), nb::arg("bf16_mask") = 0u, nb::kw_only(),
      nb::arg(PythonName(kSlot)).none() = nb::none()...,
      "Runs an operator's two phases over the arrays (by role: input=, target=, ...) and waits for the result. "
      "Raises TypeError, ValueError or RuntimeError, by the kind of the library's refusal, with its message.");
  m.def(
      "run_raw",
      [handles](ApiId op, int64_t reduction, HandleOf<kSlot>... operands) {
        RunRaw(op, reduction, handles(operands...));
      },
      nb::arg("op"), nb::arg("reduction"), nb::kw_only(), nb::arg(PythonName(kSlot)).none() = nb::none()...,
      "run() over descriptors (data address, shape, strides in elements, a DType or -2) or None.");
  m.def(
      "torch_call",
      [handles](ApiId op, nb::handle reduction, HandleOf<kSlot>... operands) {
        return TorchCall(op, reduction, handles(operands...));
      },
      nb::arg("op"), nb::arg("reduction").none(), nb::kw_only(), nb::arg(PythonName(kSlot)).none() = nb::none()...,
      "One call over plain CPU torch tensors (or None), read by their own fields, outputs made here: the "
      "result, or None, with nothing run, when the call is for the Python layer's general path (a number, a "
      "subclass, another device, an unregistered dtype, a reduction that is not a name or an int).");
}

}  // namespace

NB_MODULE(_aclnn_bce, m) {
  m.doc() = "The library's C API for aclnn_bce (use the functions of the aclnn_bce package).";
  pthread_atfork(nullptr, nullptr, CountFork);  // Note [Prepared calls after fork]
  nb::exception<NegativeStrides>(m, "NegativeStridesError", PyExc_ValueError);
  // The operators of the API list, by their short names (Note [One op list]).
  nb::enum_<ApiId> ops(m, "Op", "The operators of the library's API list, by their short names.");
  for (const apis::Api& api : apis::kAll) ops.value(api.short_name, api.id);
  // The dtypes the library names (aclDataType; aclnnCpuDataTypeName): CANN's enumerators without "ACL_".
  nb::enum_<aclDataType> dtype_enum(m, "DType", "The library's element types (aclDataType), by CANN's names.",
                                nb::is_arithmetic());
  for (int code = ACL_DT_UNDEFINED; code <= kMaxDTypeCode; ++code) {
    if (const char* name = aclnnCpuDataTypeName(static_cast<aclDataType>(code))) {
      dtype_enum.value(name, static_cast<aclDataType>(code));
    }
  }
  nb::list operands;
  for (size_t slot = 0; slot < kTensorSlots; ++slot) operands.append(PythonName(slot));
  m.attr("ROLES") = nb::tuple(operands);
  m.def(
      "api",
      [](ApiId op) {
        const auto index = static_cast<size_t>(op);
        if (index >= apis::kApiCount) throw nb::value_error("op: not an operator of the API list");
        const apis::Api& api = apis::kAll[index];
        static constexpr const char* kKindNames[] = {"input", "optional_input", "output", "reduced_output", "int64"};
        nb::list list;
        for (const apis::Operand& o : api.operands) {
          list.append(nb::make_tuple(o.parameter, o.is_tensor() ? PythonName(o.slot) : o.role,
                                     kKindNames[static_cast<size_t>(o.kind)]));
        }
        return nb::make_tuple(std::string("aclnn") + api.name, nb::tuple(list));
      },
      nb::arg("op"),
      "(CANN's API name, ((CANN's parameter, the Python layer's role, kind), ...)) of an operator, from the API "
      "list; kind is input, optional_input, output, reduced_output (one element for mean and sum) or int64.");
  m.def(
      "operand_facts",
      [](ApiId op) {
        const auto index = static_cast<size_t>(op);
        if (index >= apis::kApiCount) throw nb::value_error("op: not an operator of the API list");
        nb::dict facts;
        for (const apis::Operand& o : apis::kAll[index].operands) {
          if (!o.is_tensor()) continue;
          nb::dict f;
          if (o.dtype_slot == apis::kNoSlot) {
            f["dtype_of"] = nb::none();
          } else {
            f["dtype_of"] = PythonName(o.dtype_slot);
          }
          f["domain"] = o.domain == apis::Domain::kUnitInterval ? "unit_interval" : "real";
          facts[PythonName(o.slot)] = f;
        }
        return facts;
      },
      nb::arg("op"),
      "{role: {'dtype_of': the role whose dtype an output has (None for an input), 'domain': 'real' or "
      "'unit_interval' (an input meant to lie in [0, 1])}} of an operator's tensors, from the API list.");
  DefineCalls(m, std::make_index_sequence<kTensorSlots>());
  m.def(
      "register_torch",
      [](nb::handle tensor_type, nb::dict dtypes, nb::handle empty, nb::handle increment_version,
         nb::handle is_grad_enabled) {
        TorchReader::Get().Register(tensor_type, dtypes, empty, increment_version, is_grad_enabled);
      },
      nb::arg("tensor_type"), nb::arg("dtypes"), nb::arg("empty"), nb::arg("increment_version"),
      nb::arg("is_grad_enabled"),
      "Registers torch.Tensor, {torch dtype: DType}, torch.empty, torch._C._increment_version and "
      "torch.is_grad_enabled for torch_call and prepared calls (once, by the Python layer).");
  nb::class_<Prepared>(m, "Prepared",
                       "A call whose first phase ran once (a repeatable executor): run() launches it again over "
                       "the arrays' current contents (Note [Prepared calls]).")
      .def(nb::init<ApiId, nb::dict, int64_t, unsigned, nb::list, nb::list, nb::list>(), nb::arg("op"),
           nb::arg("operands"), nb::arg("reduction"), nb::arg("bf16_mask"), nb::arg("guards"), nb::arg("written"),
           nb::arg("arrays"))
      .def("run", &Prepared::Run, "The second phase and the wait.")
      .def("close", &Prepared::Close, "Destroys the executor; later runs raise RuntimeError.")
      .def_prop_ro("closed", &Prepared::closed);
  m.def("new_output", &NewOutput, nb::arg("shape"), nb::arg("dtype"), nb::arg("torch"),
        "A new C-contiguous output from the library's cache of large output blocks (a DType; "
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
