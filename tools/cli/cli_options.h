// Option values the subcommands share: dtypes, reductions, operand shapes and --shape text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace aclnn_bce_cli {

/// --dtype names: fp32, fp16, bf16, fp64.
const std::map<std::string, aclDataType>& DTypeChoices();

/// --reduction names in ACLNN's encoding: none 0, mean 1, sum 2.
const std::map<std::string, int64_t>& ReductionChoices();

/// How an operand that broadcasts to self is shaped.
enum class OperandShape {
  kNone,    ///< not given (only for the optional weight and pos_weight)
  kFull,    ///< self's shape
  kRow,     ///< [C], C = self's last dim: one value per column, broadcast over the rows
  kScalar,  ///< 0-dim tensor
};
/// none, full, row, scalar.
const std::map<std::string, OperandShape>& OperandShapeChoices();

/// The dims of an operand of @p shape for self dims @p self_dims.
std::vector<int64_t> OperandDims(OperandShape shape, const std::vector<int64_t>& self_dims);

/// Parses "4096x1024" (also "4096,1024"; "scalar" for a 0-dim tensor) into at most 8 dims >= 0.
/// Throws std::invalid_argument with the reason.
std::vector<int64_t> ParseShape(const std::string& text);
/// "[4096,1024]".
std::string ShapeText(const std::vector<int64_t>& dims);

}  // namespace aclnn_bce_cli
