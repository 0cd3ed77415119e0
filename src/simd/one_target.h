// Makes the rest of a translation unit compile for the one SIMD target ACLNN_KERNEL_TARGET (a
// Highway target bit such as HWY_AVX2), Note [One target per translation unit]
// (src/simd/kernel_parts.h). Include it first, before any Highway header but detect_targets.h.
// ACLNN_KERNEL_TARGET_ENABLED is 1 where this build compiles that target (HWY_TARGETS, after
// ACLNN_BCE_DISABLED_SIMD_TARGETS) and the part has code for it (ACLNN_KERNEL_PART), 0
// elsewhere: the unit then compiles nothing.
#pragma once

#include "hwy/detect_targets.h"

#ifndef ACLNN_KERNEL_TARGET
#error "define ACLNN_KERNEL_TARGET (cmake/kernel_parts.cmake does)"
#endif
#ifdef HWY_HIGHWAY_INCLUDED
#error "simd/one_target.h must come before hwy/highway.h"
#endif

// The native bf16 part (kNativeBFloat16Part of kKernelPartCount element parts, src/simd/
// kernel_parts.h, which checks these two numbers) has code only on the x86 AVX-512 targets (Note
// [Native bf16 stores], src/simd/convert-inl.h); elsewhere its unit compiles nothing, and the
// dispatch file does not call it (KernelPartCompiled).
#define ACLNN_KERNEL_ELEMENT_PARTS 5
#define ACLNN_KERNEL_NATIVE_BF16_PART 3
#if HWY_ARCH_X86 && (ACLNN_KERNEL_TARGET) <= HWY_AVX3
#define ACLNN_KERNEL_TARGET_HAS_NATIVE_BF16 1
#else
#define ACLNN_KERNEL_TARGET_HAS_NATIVE_BF16 0
#endif

#if (HWY_TARGETS & (ACLNN_KERNEL_TARGET)) != 0 && \
    (ACLNN_KERNEL_PART % ACLNN_KERNEL_ELEMENT_PARTS != ACLNN_KERNEL_NATIVE_BF16_PART || ACLNN_KERNEL_TARGET_HAS_NATIVE_BF16)
// highway.h, included first after this, compiles the target HWY_TARGET names, as foreach_target.h
// has it do for each target in turn.
#undef HWY_TARGET
#define HWY_TARGET (ACLNN_KERNEL_TARGET)
#define ACLNN_KERNEL_TARGET_ENABLED 1
#else
#define ACLNN_KERNEL_TARGET_ENABLED 0
#endif
