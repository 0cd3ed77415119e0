// The vocabulary of AscendC kernels on the CPU: the address-space and kernel qualifiers (empty
// here), GM_ADDR, the enums of positions, pipes, events and modes, and Atlas A2's sizes.
// Enumerator names follow the AscendC documentation; see README "What the twin models".
#ifndef ASCENDC_CPU_BASE_H
#define ASCENDC_CPU_BASE_H

#include <cstddef>
#include <cstdint>

#include "ascendc_cpu/number_formats.h"

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __host_aicore__
#define __host_aicore__
#endif
#ifndef __sync_alias__
#define __sync_alias__
#endif
#ifndef __sync_noalias__
#define __sync_noalias__
#endif
#ifndef __disable_kernel_type_autoinfer__
#define __disable_kernel_type_autoinfer__
#endif

// The element loops of vector instructions are also compiled for AVX2 and AVX-512 on x86-64
// (vector.h); -DASCENDC_CPU_SIMD_DISPATCH=0 keeps only the baseline. Multiply-adds are never
// contracted into fused ones there (GCC: this attribute; clang: pragmas in the element functions).
#ifndef ASCENDC_CPU_SIMD_DISPATCH
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ASCENDC_CPU_SIMD_DISPATCH 1
#else
#define ASCENDC_CPU_SIMD_DISPATCH 0
#endif
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define ASCENDC_CPU_NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define ASCENDC_CPU_NO_CONTRACT
#endif

#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// Type names kernels use besides half and bfloat16_t (a -D of the same name wins).
#ifndef float16_t
using float16_t = half;
#endif
#ifndef float32_t
using float32_t = float;
#endif
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13 && defined(__x86_64__)
using __bf16 = bfloat16_t;  // GCC 13 and clang know __bf16 themselves
#endif

/// The hardware pipes of an AI core (CCE's pipe_t; the twin models S, V, MTE2 and MTE3).
enum pipe_t : uint8_t {
    PIPE_S = 0,
    PIPE_V,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_ALL,
    PIPE_MTE4,
    PIPE_MTE5,
    PIPE_V2,
    PIPE_FIX,
};

/// tikicpulib's kernel modes; vector kernels run in AIV_MODE.
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };

/// Kernel types of KERNEL_TASK_TYPE_DEFAULT.
enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};

namespace AscendC {

using ::KernelMode;

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
    UNKNOWN = 0xFF,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

enum class SaturationMode : uint8_t { FLOAT, CAST };

using TEventID = int8_t;

/// Core types of ASCEND_IS_AIV / ASCEND_IS_AIC (g_coreType).
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;

// Atlas A2 (ascend910b, DAV_2201) sizes.
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t QUE_MAX_EVENT = 8;
constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;

}  // namespace AscendC

namespace ascendc_cpu {

/// Atlas A2's unified buffer per AI vector core, and the part of it PlatformAscendC's
/// GetCoreMemSize(UB) reports on 910B (256 B at the top are reserved).
constexpr uint32_t kUbBytes = 192 * 1024;
constexpr uint32_t kUbBudgetBytes = kUbBytes - 256;
/// DMA and vector operands are aligned to, and DataCopy moves, 32-byte blocks.
constexpr uint32_t kBlockBytes = 32;
/// A vector instruction's repeat reads 256 bytes.
constexpr uint32_t kRepeatBytes = 256;
/// TPipe manages at most this many buffers (queue buffers and TBufs together).
constexpr uint32_t kMaxPipeBuffers = 64;

}  // namespace ascendc_cpu

#endif  // ASCENDC_CPU_BASE_H
