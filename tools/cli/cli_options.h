// Option values the subcommands share: dtypes, reductions, operand shapes, --shape text and
// strictly parsed numbers.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl_base.h"
#include "aclnn/aclnn_cpu.h"
#include "client/api_table.h"

namespace aclnn_bce_cli {

/// The largest --threads: aclnnCpuSetNumThreads accepts 1 to ACLNN_CPU_MAX_THREADS (and 0 for
/// the default).
inline constexpr uint64_t kMaxThreads = ACLNN_CPU_MAX_THREADS;

/// --op names: the short names of the API list (src/client/api_table.h), '_' spelled '-'
/// (target-backward), in list order.
const std::vector<std::string>& OpChoices();
/// The API of an --op name (one of OpChoices()).
const aclnn_cpu::apis::Api& ApiOfOp(const std::string& op);

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

// Note [Shape spellings]
// --shape takes what the Python golden tool (aclnn-bce --shape) takes, so that a shape can be
// copied from one command line to the other: dims separated by 'x' (4096x1024) or by ','
// (4096,1024), one separator throughout; a single dim alone (7); and the 0-dim shape as '',
// 'scalar' or '()'. Each dim is digits only, as every number of this tool: no sign, no spaces,
// no empty part (the Python tool is laxer; what both accept is the spelling to use in scripts).

/// Parses a shape (Note [Shape spellings]): at most 8 dims, each a plain decimal (see
/// ParsePlainDecimal), whose product fits int64. Throws std::invalid_argument with the reason.
std::vector<int64_t> ParseShape(const std::string& text);

/// Parses a plain decimal in [0, @p max]: digits only (no sign, no spaces, nothing else), at
/// least one. nullopt otherwise, also on overflow.
std::optional<uint64_t> ParsePlainDecimal(std::string_view text, uint64_t max);

/// CLI11 check that an option's text is a plain decimal in [0, @p max]. CLI11's own conversion
/// accepts " 4" and "+4", and wraps "-1" and saturates 99999999999999999999 for unsigned options.
CLI::Validator PlainDecimal(uint64_t max);
/// CLI11 check that an option's text is a shape ParseShape accepts.
CLI::Validator ShapeValidator();
/// "[4096,1024]".
std::string ShapeText(const std::vector<int64_t>& dims);

}  // namespace aclnn_bce_cli
