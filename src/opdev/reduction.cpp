#include "opdev/reduction.h"

namespace aclnn_cpu {

std::optional<ReductionType> FromAclnnReduction(int64_t reduction) {
  switch (reduction) {
    case 0: return ReductionType::kNone;
    case 1: return ReductionType::kMean;
    case 2: return ReductionType::kSum;
    default: return std::nullopt;
  }
}

namespace {
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}
}  // namespace

std::optional<ReductionType> ParseReductionAttr(std::string_view text) {
  if (EqualsIgnoreCase(text, "none") || EqualsIgnoreCase(text, "n")) return ReductionType::kNone;
  if (EqualsIgnoreCase(text, "mean") || EqualsIgnoreCase(text, "m")) return ReductionType::kMean;
  if (EqualsIgnoreCase(text, "sum") || EqualsIgnoreCase(text, "s")) return ReductionType::kSum;
  return std::nullopt;
}

std::optional<ReductionType> ResolveReductionAttr(const ReductionAttr& attr) {
  if (const auto* text = std::get_if<std::string_view>(&attr)) return ParseReductionAttr(*text);
  return FromAclnnReduction(std::get<int64_t>(attr));
}

}  // namespace aclnn_cpu
