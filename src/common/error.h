// The calling thread's most recent error message (aclGetRecentErrMsg) and helpers that set it.
#pragma once

#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <utility>

namespace aclnn_cpu {

/// Replaces the calling thread's recent error message.
void SetRecentError(std::string message);
/// The calling thread's recent error message ("" when none).
const char* RecentError();

/// Concatenates the streamable arguments into the recent error message and returns @p code,
/// so that a failing check reads `return Fail(ACLNN_ERR_PARAM_INVALID, "self has ", n, " dims")`.
template <class Code, class... Parts>
Code Fail(Code code, Parts&&... parts) {
  std::ostringstream os;
  (os << ... << std::forward<Parts>(parts));
  SetRecentError(os.str());
  return code;
}

/// "[2,3,4]" for a shape.
std::string FormatDims(std::span<const int64_t> dims);

}  // namespace aclnn_cpu
