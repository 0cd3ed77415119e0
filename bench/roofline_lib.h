// libbce_roofline.so: bce_bench's roofline loop (roofline.h) and the kernels' arithmetic floor
// (kernel_floor.cpp) for other benchmarks, through two C functions (Python's ctypes:
// bench/python_bench.py). The library has its own copy of the worker pool and of the kernels
// (aclnn_bce_internal, linked statically and hidden), so it can be loaded beside libaclnn_bce.so:
// nothing but bce_roofline_run and bce_kernel_floor is exported, and the two never interpose.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What bce_roofline_run returns: 0, or why it refused its arguments (or failed) without
/// touching memory.
enum BceRooflineStatus {
  BCE_ROOFLINE_OK = 0,
  BCE_ROOFLINE_BAD_ELEM_BYTES = -1,   ///< elem_bytes is not 2, 4 or 8
  BCE_ROOFLINE_NULL_INPUT = -2,       ///< inputs, or one of its num_inputs pointers, is NULL
  BCE_ROOFLINE_BAD_NUM_INPUTS = -3,   ///< num_inputs is not in 2..5
  BCE_ROOFLINE_BAD_N = -4,            ///< n < 0, or a stream of n elements does not fit the address space
  BCE_ROOFLINE_BAD_THREADS = -5,      ///< threads is not in 1..ACLNN_CPU_MAX_THREADS (1024)
  BCE_ROOFLINE_MISALIGNED = -6,       ///< an input or out is not aligned to elem_bytes
  BCE_ROOFLINE_OUT_OVERLAPS = -7,     ///< out's n elements overlap an input's
  BCE_ROOFLINE_POOL_FAILED = -8,      ///< the pool could not start its workers (or another failure)
  BCE_ROOFLINE_BAD_TARGET = -9        ///< bce_kernel_floor: no such SIMD target in this build and CPU
};

/// Runs the roofline loop once on this library's own worker pool: out[i] = sum of the inputs'
/// element i (elem_bytes 4: float adds; 8: double; 2: uint16 adds of the bit patterns, the bf16/fp16
/// traffic), or, with out == NULL, each chunk's sum only (the loop of a reduction: reads, writes
/// nothing but one partial per chunk).
/// num_inputs 2..5, every stream n elements, contiguous; the inputs may overlap each other, not out.
/// threads: the pool's thread count (1..the pool's maximum, ACLNN_CPU_MAX_THREADS), set when it
/// differs from the current one (the workers started then stay until the process exits).
/// The chunk count and non-temporal stores follow bce_bench's rule (roofline.h: chunks =
/// min(threads, bytes / 64 KiB + 1) with bytes = (num_inputs + (out ? 1 : 0)) * n * elem_bytes;
/// stream out when bytes > the last-level cache).
/// sum_out (may be NULL): with out == NULL, the chunks' sums added up (float accumulators: a
/// checksum, not an exact sum); with out, 0.
/// Returns BCE_ROOFLINE_OK, or a negative BceRooflineStatus for arguments it refuses (it checks
/// every argument before touching memory). Never throws. Thread-safe: concurrent calls share the
/// pool (a call that finds it busy runs its chunks on the calling thread).
__attribute__((visibility("default"))) int bce_roofline_run(int elem_bytes, const void* const* inputs, int num_inputs,
                                                            void* out, int64_t n, int threads, double* sum_out);

/// The kernels bce_kernel_floor measures: the backward (gradient of self), the target's gradient,
/// the loss (reduction none), the loss of mean and sum (losses in the compute type, for the
/// chunk sums), and the fused loss and gradient of mean and sum.
enum BceFloorKernel {
  BCE_FLOOR_BACKWARD = 0,
  BCE_FLOOR_TARGET_BACKWARD = 1,
  BCE_FLOOR_LOSS = 2,
  BCE_FLOOR_LOSS_SUM = 3,
  BCE_FLOOR_FUSED_SUM = 4
};
/// bce_kernel_floor's flags: which optional operands the variant reads, and (backward) whether
/// gradOutput is one value (a 0-dim gradOutput).
enum BceFloorFlags { BCE_FLOOR_WEIGHT = 1, BCE_FLOOR_POS_WEIGHT = 2, BCE_FLOOR_UNIFORM_DOUT = 4 };

/// The arithmetic floor of one kernel variant on this CPU (Note [Arithmetic floor],
/// kernel_floor.cpp): ns per element of the library's own tile function (this CPU's SIMD target)
/// on one thread, every operand in L1, the fastest of @p samples samples of about 100 us.
/// kernel: a BceFloorKernel; dtype: 0 fp32, 1 fp16, 2 bf16, 3 fp64; flags: BceFloorFlags;
/// target: the SIMD target's name (Highway's: "AVX3", "AVX2", ...), null for the one the library
/// runs on this CPU (aclnnCpuSimdTargetName). Not thread-safe (it sets the process's dispatch
/// while it measures another target).
/// Returns BCE_ROOFLINE_OK, BCE_ROOFLINE_NULL_INPUT (ns_per_element null or samples < 1),
/// BCE_ROOFLINE_BAD_ELEM_BYTES (dtype), BCE_ROOFLINE_BAD_NUM_INPUTS (kernel),
/// BCE_ROOFLINE_BAD_TARGET (target), or
/// BCE_ROOFLINE_POOL_FAILED (out of memory).
__attribute__((visibility("default"))) int bce_kernel_floor(int kernel, int dtype, int flags, const char* target,
                                                            int samples, double* ns_per_element);

#ifdef __cplusplus
}
#endif
