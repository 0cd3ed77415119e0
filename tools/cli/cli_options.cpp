#include "cli_options.h"

#include <stdexcept>

#include "common/error.h"
#include "common/shape.h"

namespace aclnn_bce_cli {

const std::map<std::string, aclDataType>& DTypeChoices() {
  static const std::map<std::string, aclDataType> choices = {
      {"fp32", ACL_FLOAT}, {"fp16", ACL_FLOAT16}, {"bf16", ACL_BF16}, {"fp64", ACL_DOUBLE}};
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

std::vector<int64_t> ParseShape(const std::string& text) {
  if (text == "scalar") return {};
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = text.find_first_of("x,", pos);
    const std::string part = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || value < 0) {
      throw std::invalid_argument("shape '" + text + "': '" + part + "' is not a dim >= 0 (write e.g. 4096x1024)");
    }
    dims.push_back(value);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (dims.size() > static_cast<size_t>(aclnn_cpu::kMaxDims)) {
    throw std::invalid_argument("shape '" + text + "' has more than " + std::to_string(aclnn_cpu::kMaxDims) +
                                " dims");
  }
  return dims;
}

std::string ShapeText(const std::vector<int64_t>& dims) { return aclnn_cpu::FormatDims(dims); }

}  // namespace aclnn_bce_cli
