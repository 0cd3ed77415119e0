// The reduction of the loss operators (none, mean, sum): its internal enum, the ACLNN integer and
// the graph attribute.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace aclnn_cpu {

/// The tiling's reduction encoding, as in the NPU original: 0 none, 1 sum, 2 mean. It differs
/// from ACLNN's (0 none, 1 mean, 2 sum); FromAclnnReduction maps once, at the API boundary.
enum class ReductionType : int64_t { kNone = 0, kSum = 1, kMean = 2 };

/// ACLNN's integer reduction (0 none, 1 mean, 2 sum) -> ReductionType; nullopt outside [0, 2].
std::optional<ReductionType> FromAclnnReduction(int64_t reduction);

/// The string attribute: "none", "mean", "sum" or the letters n/m/s, any case.
std::optional<ReductionType> ParseReductionAttr(std::string_view text);

/// The attribute as a graph carries it: a string (the IR default "mean"), or an integer in the
/// ACLNN encoding.
using ReductionAttr = std::variant<std::string_view, int64_t>;
inline constexpr std::string_view kDefaultReduction = "mean";
std::optional<ReductionType> ResolveReductionAttr(const ReductionAttr& attr);

}  // namespace aclnn_cpu
