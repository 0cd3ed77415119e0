// ascendc/host_api/tiling/template_argument.h as a CPU debug build sees it: the ASCENDC_TPL_*_DECL
// declarations of a kernel's template arguments become a table (g_tilingDeclareParams) from which
// GET_TPL_TILING_KEY packs a tiling key; the *_SEL selections declare nothing. The constants keep
// their documented values.
#ifndef ASCENDC_CPU_TEMPLATE_ARGUMENT_H
#define ASCENDC_CPU_TEMPLATE_ARGUMENT_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <vector>

#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 4
#define ASCENDC_TPL_MIX_AIC_1_0 5
#define ASCENDC_TPL_MIX_AIC_1_1 6
#define ASCENDC_TPL_MIX_AIC_1_2 7
#define ASCENDC_TPL_AICORE 8
#define ASCENDC_TPL_VECTORCORE 9
#define ASCENDC_TPL_MIX_AICORE 10
#define ASCENDC_TPL_MIX_VECTOR_CORE 11
#define ASCENDC_TPL_MAX 12

#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8

#define ASCENDC_TPL_DTYPE 0
#define ASCENDC_TPL_FORMAT 1
#define ASCENDC_TPL_UINT 2
#define ASCENDC_TPL_BOOL 3

#define ASCENDC_TPL_INPUT_BIAS 100000000
#define ASCENDC_TPL_OUTPUT_BIAS 900000000
#define ASCENDC_TPL_INPUT(x) (ASCENDC_TPL_INPUT_BIAS + (x))
#define ASCENDC_TPL_OUTPUT(x) (ASCENDC_TPL_OUTPUT_BIAS + (x))

#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2

// The ge::DataType codes a declaration may list (C_DT_* as the C API spells them).
constexpr uint64_t DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6,
                   DT_UINT16 = 7, DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12,
                   DT_BF16 = 27;
constexpr uint64_t C_DT_FLOAT = DT_FLOAT, C_DT_FLOAT16 = DT_FLOAT16, C_DT_INT8 = DT_INT8, C_DT_INT32 = DT_INT32,
                   C_DT_UINT8 = DT_UINT8, C_DT_INT16 = DT_INT16, C_DT_UINT16 = DT_UINT16, C_DT_UINT32 = DT_UINT32,
                   C_DT_INT64 = DT_INT64, C_DT_UINT64 = DT_UINT64, C_DT_DOUBLE = DT_DOUBLE, C_DT_BOOL = DT_BOOL,
                   C_DT_BF16 = DT_BF16;
#define ASCENDC_TPL_FORMAT_ND 2

namespace ascendc_cpu {
namespace tpl {

/// One declared template argument: its name, kind, bits in the tiling key and its values.
struct Param {
    const char* name;
    uint32_t kind;
    uint32_t bits;
    std::vector<uint64_t> values;  // for ASCENDC_TPL_UINT: the expanded list the key indexes
};

/// ASCENDC_TPL_UINT_DECL's value spec: UI_LIST values..., UI_RANGE n lo hi..., UI_MIX n lo hi... values.
inline std::vector<uint64_t> ExpandUint(const std::vector<uint64_t>& spec)
{
    if (spec.empty() || spec[0] == ASCENDC_TPL_UI_LIST) {
        return spec.empty() ? spec : std::vector<uint64_t>(spec.begin() + 1, spec.end());
    }
    std::vector<uint64_t> values;
    const uint64_t ranges = spec.size() > 1 ? spec[1] : 0;
    size_t at = 2;
    for (uint64_t r = 0; r < ranges && at + 1 < spec.size(); ++r, at += 2) {
        for (uint64_t v = spec[at]; v <= spec[at + 1]; ++v) {
            values.push_back(v);
        }
    }
    if (spec[0] == ASCENDC_TPL_UI_MIX) {
        values.insert(values.end(), spec.begin() + static_cast<std::ptrdiff_t>(at), spec.end());
    }
    return values;
}

/// The tiling key of `args` (one per declared argument, in order): each argument's code, UINT
/// arguments by their index in the declared values, packed from the low bits up.
inline uint64_t EncodeKey(const std::vector<Param>& declared, std::initializer_list<uint64_t> args)
{
    uint64_t key = 0;
    uint32_t shift = 0;
    auto arg = args.begin();
    for (size_t i = 0; i < declared.size() && arg != args.end(); ++i, ++arg) {
        uint64_t code = *arg;
        if (declared[i].kind == ASCENDC_TPL_UINT) {
            const auto found = std::find(declared[i].values.begin(), declared[i].values.end(), code);
            if (found == declared[i].values.end()) {
                std::fprintf(stderr, "ascendc-cpu: GET_TPL_TILING_KEY: %s has no declared value %llu\n",
                             declared[i].name, static_cast<unsigned long long>(code));
                return UINT64_MAX;
            }
            code = static_cast<uint64_t>(found - declared[i].values.begin());
        }
        key |= code << shift;
        shift += declared[i].bits;
    }
    return key;
}

}  // namespace tpl
}  // namespace ascendc_cpu

// Declarations: a kernel unit test computes tiling keys from them with GET_TPL_TILING_KEY, as in
// CANN's CPU debug build; the selections (ASCENDC_TPL_SEL) only steer the NPU build.
#define ASCENDC_TPL_DTYPE_DECL(x, ...) ::ascendc_cpu::tpl::Param{#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__}}
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) ::ascendc_cpu::tpl::Param{#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__}}
#define ASCENDC_TPL_FORMAT_DECL(x, ...) ::ascendc_cpu::tpl::Param{#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__}}
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) \
    ::ascendc_cpu::tpl::Param{#x, ASCENDC_TPL_UINT, bw, ::ascendc_cpu::tpl::ExpandUint({__VA_ARGS__})}
#define ASCENDC_TPL_BOOL_DECL(x, ...) ::ascendc_cpu::tpl::Param{#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__}}
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) ::ascendc_cpu::tpl::Param{#x, 6, ASCENDC_TPL_8_BW, {__VA_ARGS__}}
#define ASCENDC_TPL_ARGS_DECL(x, ...) \
    static const std::vector<::ascendc_cpu::tpl::Param> g_tilingDeclareParams{__VA_ARGS__}
#define GET_TPL_TILING_KEY(...) ::ascendc_cpu::tpl::EncodeKey(g_tilingDeclareParams, {__VA_ARGS__})

#define ASCENDC_TPL_DTYPE_SEL(...)
#define ASCENDC_TPL_DATATYPE_SEL(...)
#define ASCENDC_TPL_FORMAT_SEL(...)
#define ASCENDC_TPL_UINT_SEL(...)
#define ASCENDC_TPL_BOOL_SEL(...)
#define ASCENDC_TPL_TILING_STRUCT_SEL(...)
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...)
#define ASCENDC_TPL_DETERMINISTIC_SEL(...)
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(...)
#define ASCENDC_TPL_ARGS_SEL(...)
#define ASCENDC_TPL_SEL(...)

#endif  // ASCENDC_CPU_TEMPLATE_ARGUMENT_H
