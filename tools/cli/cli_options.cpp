#include "cli_options.h"

#include <cstdint>
#include <stdexcept>

#include "common/dtype.h"
#include "common/error.h"
#include "common/shape.h"

namespace aclnn_bce_cli {

namespace {
std::string OpName(const aclnn_cpu::apis::Api& api) {
  std::string name = api.short_name;
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return name;
}
}  // namespace

const std::vector<std::string>& OpChoices() {
  static const std::vector<std::string> choices = [] {
    std::vector<std::string> names;
    for (const aclnn_cpu::apis::Api& api : aclnn_cpu::apis::kAll) names.push_back(OpName(api));
    return names;
  }();
  return choices;
}

const aclnn_cpu::apis::Api& ApiOfOp(const std::string& op) {
  for (const aclnn_cpu::apis::Api& api : aclnn_cpu::apis::kAll) {
    if (OpName(api) == op) return api;
  }
  throw std::invalid_argument("--op " + op + " is not an operator of the API list");
}

const std::map<std::string, aclDataType>& DTypeChoices() {
  static const std::map<std::string, aclDataType> choices = [] {
    std::map<std::string, aclDataType> m;
    for (const aclDataType dtype : aclnn_cpu::kFloatDTypes) m.emplace(aclnn_cpu::DTypeShortName(dtype), dtype);
    return m;
  }();
  return choices;
}

const std::map<std::string, int64_t>& ReductionChoices() {
  static const std::map<std::string, int64_t> choices = {{"none", 0}, {"mean", 1}, {"sum", 2}};
  return choices;
}

const std::map<std::string, OperandShape>& OperandShapeChoices() {
  static const std::map<std::string, OperandShape> choices = {{"none", OperandShape::kNone},
                                                              {"full", OperandShape::kFull},
                                                              {"row", OperandShape::kRow},
                                                              {"scalar", OperandShape::kScalar}};
  return choices;
}

std::vector<int64_t> OperandDims(OperandShape shape, const std::vector<int64_t>& self_dims) {
  switch (shape) {
    case OperandShape::kFull: return self_dims;
    case OperandShape::kRow:
      if (self_dims.empty()) return {};
      return {self_dims.back()};
    case OperandShape::kNone:
    case OperandShape::kScalar: break;
  }
  return {};
}

std::optional<uint64_t> ParsePlainDecimal(std::string_view text, uint64_t max) {
  constexpr uint64_t kBase = 10;
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (max - digit) / kBase) return std::nullopt;  // value * 10 + digit > max
    value = value * kBase + digit;
  }
  return value;
}

std::vector<int64_t> ParseShape(const std::string& text) {
  // See Note [Shape spellings].
  if (text.empty() || text == "scalar" || text == "()") return {};
  const char separator = text.find(',') != std::string::npos ? ',' : 'x';
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (true) {
    const size_t end = text.find(separator, pos);
    const std::string_view part =
        std::string_view(text).substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    const std::optional<uint64_t> dim = ParsePlainDecimal(part, static_cast<uint64_t>(INT64_MAX));
    if (!dim) {
      throw std::invalid_argument("shape '" + text + "': '" + std::string(part) +
                                  "' is not a dim (digits only, at most " + std::to_string(INT64_MAX) +
                                  "; dims are separated by 'x' or by ',', e.g. 4096x1024 or 4096,1024; '', "
                                  "'scalar' or '()' for 0 dims)");
    }
    dims.push_back(static_cast<int64_t>(*dim));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (dims.size() > static_cast<size_t>(aclnn_cpu::kMaxDims)) {
    throw std::invalid_argument("shape '" + text + "' has more than " + std::to_string(aclnn_cpu::kMaxDims) +
                                " dims");
  }
  if (!aclnn_cpu::CheckedNumel(dims)) {
    throw std::invalid_argument("shape '" + text + "' has more than " + std::to_string(INT64_MAX) + " elements");
  }
  return dims;
}

CLI::Validator PlainDecimal(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        if (ParsePlainDecimal(text, max)) return {};
        return "'" + text + "' is not a whole number in [0, " + std::to_string(max) +
               "] (digits only: no sign, no spaces)";
      },
      "UINT in [0, " + std::to_string(max) + "]", "PlainDecimal");
}

CLI::Validator ShapeValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          ParseShape(text);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      },
      "DIMxDIM... or DIM,DIM...", "Shape");
}

std::string ShapeText(const std::vector<int64_t>& dims) { return aclnn_cpu::FormatDims(dims); }

}  // namespace aclnn_bce_cli
