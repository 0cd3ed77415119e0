// The one API list as a table (Note [One op list], cmake/aclnn_op.cmake): every ACLNN API an
// operator folder declares (its op_api/aclnn_apis.def), with its names, its first phase's operands
// in order and a call through it. The Python extension's enums, the CLI's --op, the benchmark, the
// fuzzer and the tests' call harness take the operators from here, so that an operator added to
// the list needs no switch of theirs. Link the CMake target aclnn_api_list for the list itself.
//
// src/client/ holds what a client of the library writes over the public headers only (this
// table, two_phase_call.h): nothing here includes the library's internals, so the Python
// extension may use it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "client/two_phase_call.h"

// The operator headers the declarations include, read here at file scope with every entry left
// out: the later reads of the list, inside this header's namespaces, find them included.
#define ACLNN_API_ENTRY(api, name, operands)
#include "aclnn_api_list.def"
#undef ACLNN_API_ENTRY

namespace aclnn_cpu::apis {

/// No slot: a role the list does not have.
inline constexpr size_t kNoSlot = SIZE_MAX;

/// What an operand of a first phase is.
enum class OperandKind : uint8_t {
  kInput,          ///< a tensor the API reads, never null
  kOptionalInput,  ///< a tensor the API reads, or null
  kOutput,         ///< a tensor the API writes, of self's shape
  kReducedOutput,  ///< a tensor the API writes: self's shape for reduction none, one element for mean and sum
  kInt64,          ///< an int64_t attribute
};

/// The values an input is defined for: what the tools draw, and where the operator's result is
/// its formula's (Note [One op list]).
enum class Domain : uint8_t {
  kReal,          ///< any value
  kUnitInterval,  ///< [0, 1]: a probability (outside it the operator's header says what comes)
};

/// One operand of a first phase, in the API's order.
struct Operand {
  OperandKind kind;
  const char* parameter;  ///< CANN's name: weightOptional, gradTarget, ...
  const char* role;       ///< the tools' and the Python layer's name, one meaning across APIs: weight, out, ...
  size_t slot;            ///< the role's index in Operands::tensors (a tensor) or Operands::ints (an attribute)
  size_t dtype_slot;      ///< an output: the slot of the tensor whose dtype it has; kNoSlot otherwise
  Domain domain;          ///< an input's values (kReal for the rest)

  constexpr bool is_tensor() const { return kind != OperandKind::kInt64; }
  constexpr bool is_output() const { return kind == OperandKind::kOutput || kind == OperandKind::kReducedOutput; }
};

// The operand forms of the list's declarations, each as ACLNN_LIST_OPERAND(kind, parameter, role,
// dtype of, domain), which each reading of the list below defines (an input's dtype-of is empty).
#define ACLNN_INPUT(parameter, role) ACLNN_LIST_OPERAND(kInput, parameter, role, , kReal)
#define ACLNN_PROBABILITY_INPUT(parameter, role) ACLNN_LIST_OPERAND(kInput, parameter, role, , kUnitInterval)
#define ACLNN_OPTIONAL_INPUT(parameter, role) ACLNN_LIST_OPERAND(kOptionalInput, parameter, role, , kReal)
#define ACLNN_OUTPUT(parameter, role, dtype_of) ACLNN_LIST_OPERAND(kOutput, parameter, role, dtype_of, kReal)
#define ACLNN_REDUCED_OUTPUT(parameter, role, dtype_of) \
  ACLNN_LIST_OPERAND(kReducedOutput, parameter, role, dtype_of, kReal)
#define ACLNN_INT64(parameter, role) ACLNN_LIST_OPERAND(kInt64, parameter, role, , kReal)

namespace detail {

/// A role as an operand of some entry uses it.
struct RoleUse {
  bool tensor;
  std::string_view role;
};

// Every role of every entry in list order, repeated; an empty first entry so that the array is
// never empty.
#define ACLNN_LIST_OPERAND(kind, parameter, role, dtype_of, domain) \
  RoleUse{OperandKind::kind != OperandKind::kInt64, #role},
#define ACLNN_API_ENTRY(api, name, operands) operands
inline constexpr RoleUse kRoleUses[] = {RoleUse{false, std::string_view()},
#include "aclnn_api_list.def"
};
#undef ACLNN_LIST_OPERAND
#undef ACLNN_API_ENTRY

/// The distinct roles of tensors (@p tensor) or attributes, in order of first use: @p roles
/// null counts them.
constexpr size_t Roles(bool tensor, const char** roles) {
  size_t count = 0;
  for (size_t i = 1; i < std::size(kRoleUses); ++i) {
    if (kRoleUses[i].tensor != tensor) continue;
    bool seen = false;
    for (size_t j = 1; j < i; ++j) seen = seen || kRoleUses[j].role == kRoleUses[i].role;
    if (seen) continue;
    if (roles != nullptr) roles[count] = kRoleUses[i].role.data();  // a string literal: null-terminated
    ++count;
  }
  return count;
}

template <size_t kCount>
constexpr std::array<const char*, kCount> RoleArray(bool tensor) {
  std::array<const char*, kCount> roles{};
  Roles(tensor, roles.data());
  return roles;
}

}  // namespace detail

/// The tensor roles of the list, in order of first use: the slots of Operands::tensors.
inline constexpr auto kTensorRoles = detail::RoleArray<detail::Roles(true, nullptr)>(true);
/// The int64_t attribute roles of the list: the slots of Operands::ints.
inline constexpr auto kIntRoles = detail::RoleArray<detail::Roles(false, nullptr)>(false);
inline constexpr size_t kTensorSlots = kTensorRoles.size();
inline constexpr size_t kIntSlots = kIntRoles.size();

/// The slot of a tensor role, kNoSlot for a role the list does not have.
constexpr size_t TensorSlot(std::string_view role) {
  for (size_t i = 0; i < kTensorSlots; ++i) {
    if (role == kTensorRoles[i]) return i;
  }
  return kNoSlot;
}
/// The slot of an attribute role, kNoSlot for a role the list does not have.
constexpr size_t IntSlot(std::string_view role) {
  for (size_t i = 0; i < kIntSlots; ++i) {
    if (role == kIntRoles[i]) return i;
  }
  return kNoSlot;
}

/// The operands of one call by slot; an absent optional tensor stays null. Inputs are passed to
/// the API as const (the slots hold them as written to keep one array for all roles).
struct Operands {
  std::array<aclTensor*, kTensorSlots> tensors{};
  std::array<int64_t, kIntSlots> ints{};

  /// Sets the tensor of a role of the list; std::out_of_range for a role the list does not have.
  Operands& Set(std::string_view role, const aclTensor* tensor) {
    tensors.at(TensorSlot(role)) = const_cast<aclTensor*>(tensor);
    return *this;
  }
  /// Sets an attribute of the list; std::out_of_range for a role the list does not have.
  Operands& SetInt(std::string_view role, int64_t value) {
    ints.at(IntSlot(role)) = value;
    return *this;
  }
  const aclTensor* Get(std::string_view role) const {
    const size_t slot = TensorSlot(role);
    return slot == kNoSlot ? nullptr : tensors[slot];
  }
};

/// The APIs of the list, by CANN's name: ApiId::kBinaryCrossEntropyWithLogits, ...
enum class ApiId : uint8_t {
#define ACLNN_API_ENTRY(api, name, operands) k##api,
#include "aclnn_api_list.def"
#undef ACLNN_API_ENTRY
};

/// One ACLNN API of the list.
struct Api {
  ApiId id;
  const char* name;               ///< after "aclnn": BinaryCrossEntropyWithLogitsBackward
  const char* short_name;         ///< backward: the Python enum's name; the CLI's --op, '_' spelled '-'
  const char* first_phase_name;   ///< aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize
  const char* second_phase_name;  ///< aclnnBinaryCrossEntropyWithLogitsBackward
  std::span<const Operand> operands;  ///< the first phase's, in order (workspaceSize and executor follow)
  aclnnStatus (*first_phase)(const Operands& operands, uint64_t* workspace_size, aclOpExecutor** executor);
  aclnnStatus (*second_phase)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream);

  /// The operand of @p role, or null when the API has none.
  constexpr const Operand* Find(std::string_view role) const {
    for (const Operand& o : operands) {
      if (role == o.role) return &o;
    }
    return nullptr;
  }
  constexpr bool Has(std::string_view role) const { return Find(role) != nullptr; }
};

namespace detail {

/// The slot of a role of @p kind.
constexpr size_t SlotOf(OperandKind kind, std::string_view role) {
  return kind == OperandKind::kInt64 ? IntSlot(role) : TensorSlot(role);
}

// Each API's operands.
#define ACLNN_LIST_OPERAND(kind, parameter, role, dtype_of, domain)                                    \
  Operand{OperandKind::kind, #parameter, #role, SlotOf(OperandKind::kind, #role), TensorSlot(#dtype_of), \
          Domain::domain},
#define ACLNN_API_ENTRY(api, name, operands) inline constexpr Operand k##api##Operands[] = {operands};
#include "aclnn_api_list.def"
#undef ACLNN_LIST_OPERAND
#undef ACLNN_API_ENTRY

/// The argument of the operand of @p kKind in @p kSlot (a constant: no lookup at run time).
template <OperandKind kKind, size_t kSlot>
auto Argument(const Operands& o) {
  if constexpr (kKind == OperandKind::kInt64) {
    return o.ints[kSlot];
  } else {
    return o.tensors[kSlot];
  }
}

// Each API's first phase over Operands.
#define ACLNN_LIST_OPERAND(kind, parameter, role, dtype_of, domain) \
  Argument<OperandKind::kind, SlotOf(OperandKind::kind, #role)>(o),
#define ACLNN_API_ENTRY(api, name, operands)                                                                   \
  inline aclnnStatus api##FirstPhase(const Operands& o, uint64_t* workspace_size, aclOpExecutor** executor) { \
    return aclnn##api##GetWorkspaceSize(operands workspace_size, executor);                                   \
  }
#include "aclnn_api_list.def"
#undef ACLNN_LIST_OPERAND
#undef ACLNN_API_ENTRY

}  // namespace detail

/// Every API of the list, in list order (kAll[i].id == ApiId(i)).
inline constexpr Api kAll[] = {
#define ACLNN_API_ENTRY(api, name, operands)                                                                   \
  Api{ApiId::k##api, #api, #name, "aclnn" #api "GetWorkspaceSize", "aclnn" #api, detail::k##api##Operands, \
      detail::api##FirstPhase, aclnn##api},
#include "aclnn_api_list.def"
#undef ACLNN_API_ENTRY
};
inline constexpr size_t kApiCount = std::size(kAll);

/// The API of @p id.
constexpr const Api& Get(ApiId id) { return kAll[static_cast<size_t>(id)]; }

/// The API whose short name is @p short_name, or null.
constexpr const Api* Find(std::string_view short_name) {
  for (const Api& api : kAll) {
    if (short_name == api.short_name) return &api;
  }
  return nullptr;
}

/// Both phases of @p api over @p operands through CallTwoPhase (client/two_phase_call.h).
inline TwoPhaseResult Call(const Api& api, const Operands& operands, aclrtStream stream, DeviceMemory& workspace,
                           Synchronize synchronize = Synchronize::kYes) {
  return CallTwoPhase(
      [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        return api.first_phase(operands, workspace_size, executor);
      },
      api.second_phase, stream, workspace, synchronize);
}

}  // namespace aclnn_cpu::apis

#undef ACLNN_INPUT
#undef ACLNN_OPTIONAL_INPUT
#undef ACLNN_OUTPUT
#undef ACLNN_REDUCED_OUTPUT
#undef ACLNN_INT64
