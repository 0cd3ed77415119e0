// The calling thread's most recent error message (aclGetRecentErrMsg), its kind
// (aclnnCpuGetRecentErrorKind) and helpers that set them.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "aclnn/aclnn_cpu.h"

namespace aclnn_cpu {

/// The longest recent error message kept, in bytes; a longer one is cut and ends in "...".
inline constexpr size_t kMaxRecentErrorBytes = 2047;

/// Replaces the calling thread's recent error message (copied into a per-thread buffer: this
/// allocates nothing).
void SetRecentError(std::string_view message) noexcept;
/// Sets the recent error message to a fixed text that needs no allocation (used when the memory
/// to format a message cannot be had).
void SetStaticRecentError(const char* message) noexcept;
/// The calling thread's recent error message ("" when none).
const char* RecentError() noexcept;

// Note [Error kinds]
// Each recorded error has a kind besides its message and code, so that a client can tell a
// refused dtype from a refused value without reading the message (the Python layer raises
// TypeError, ValueError or RuntimeError by it; aclnnCpuGetRecentErrorKind). Fail takes the kind
// from the code (KindOfCode: a null pointer for ACLNN_ERR_PARAM_NULLPTR, a value for the codes of
// an invalid parameter, a runtime failure for every other code); a check whose rule is about a
// dtype says so with FailAs(ACLNN_CPU_ERROR_TYPE, ...) (opdev/tensor_checks.cpp, the promotion
// rule's CheckCastable in opdev/first_phase.cpp, aclCreateTensor's dataType).

/// Replaces the calling thread's recent error kind (the message is set apart).
void SetRecentErrorKind(aclnnCpuErrorKind kind) noexcept;
/// The calling thread's recent error kind (ACLNN_CPU_ERROR_NONE when none was recorded).
aclnnCpuErrorKind RecentErrorKind() noexcept;
/// The kind of an error returned as @p code (Note [Error kinds]).
aclnnCpuErrorKind KindOfCode(int64_t code) noexcept;

/// Fail, with the error recorded as of @p kind rather than the kind of @p code.
template <class Code, class... Parts>
Code FailAs(aclnnCpuErrorKind kind, Code code, Parts&&... parts) noexcept {
  SetRecentErrorKind(kind);
  try {
    std::ostringstream os;
    (os << ... << std::forward<Parts>(parts));
    SetRecentError(os.str());
  } catch (...) {
    SetStaticRecentError("out of memory while formatting the error message");
  }
  return code;
}

/// Concatenates the streamable arguments into the recent error message and returns @p code,
/// so that a failing check reads `return Fail(ACLNN_ERR_PARAM_INVALID, "self has ", n, " dims")`.
/// Never throws: when the message cannot be formatted (out of memory) a fixed one is kept.
/// The error's kind is that of @p code (Note [Error kinds]).
template <class Code, class... Parts>
Code Fail(Code code, Parts&&... parts) noexcept {
  return FailAs(KindOfCode(static_cast<int64_t>(code)), code, std::forward<Parts>(parts)...);
}

/// The codes an entry point of the C API returns when its body throws: @p memory for
/// std::bad_alloc, @p runtime for anything else (a thread that could not be started, ...).
template <class Code>
struct ExceptionCodes {
  Code memory;
  Code runtime;
};

/// Runs @p body (returning a Code) so that no C++ exception crosses the C API: an exception
/// becomes a code from @p codes and a message naming @p api and the cause. See Note [No exceptions
/// across the C API].
template <class Code, class Body>
Code Guarded(const char* api, ExceptionCodes<Code> codes, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(codes.memory, api, ": out of memory");
  } catch (const std::system_error& e) {
    return Fail(codes.runtime, api, ": the runtime could not get a resource it needs (", e.what(),
                "); raise the process's thread or memory limits, or use fewer threads (aclnnCpuSetNumThreads)");
  } catch (const std::exception& e) {
    return Fail(codes.runtime, api, ": internal error: ", e.what());
  } catch (...) {
    return Fail(codes.runtime, api, ": internal error (unknown exception)");
  }
}

/// "[2,3,4]" for a shape.
std::string FormatDims(std::span<const int64_t> dims);

}  // namespace aclnn_cpu
