// libbce_roofline.so: see roofline_lib.h.
#include "roofline_lib.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <limits>

#include "aclnn/aclnn_cpu.h"
#include "roofline.h"
#include "runtime/thread_pool.h"

namespace {

using aclnn_cpu::ThreadPool;
using bce_bench::RooflineJob;

// This library's pool is a copy of the operator library's, without its streams, whose fork
// handlers keep the pool usable in a child (see Note [Exit and fork]): install the pool's own
// when the library is loaded, before any worker of it exists.
const bool g_fork_handlers = [] {
  return pthread_atfork([] { ThreadPool::Instance().PrepareFork(); },
                        [] { ThreadPool::Instance().ParentAfterFork(); },
                        [] { ThreadPool::Instance().ChildAfterFork(); }) == 0;
}();

/// The address range [p, p + bytes) as integers, for the overlap check.
struct ByteRange {
  uintptr_t begin;
  uintptr_t end;
  bool Overlaps(const ByteRange& other) const { return begin < other.end && other.begin < end; }
};

ByteRange RangeOf(const void* p, uint64_t bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  return {begin, begin + static_cast<uintptr_t>(bytes)};
}

/// Whether a stream of @p bytes starting at @p p fits the address space (its end does not wrap).
bool FitsAddressSpace(const void* p, uint64_t bytes) {
  return p == nullptr || bytes <= std::numeric_limits<uintptr_t>::max() - reinterpret_cast<uintptr_t>(p);
}

/// Every check of roofline_lib.h, before anything is touched.
BceRooflineStatus CheckArguments(int elem_bytes, const void* const* inputs, int num_inputs, const void* out, int64_t n,
                                 int threads) {
  if (elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) return BCE_ROOFLINE_BAD_ELEM_BYTES;
  if (inputs == nullptr) return BCE_ROOFLINE_NULL_INPUT;
  if (num_inputs < RooflineJob<float>::kMinInputs || num_inputs > RooflineJob<float>::kMaxInputs) {
    return BCE_ROOFLINE_BAD_NUM_INPUTS;
  }
  for (int k = 0; k < num_inputs; ++k) {
    if (inputs[k] == nullptr) return BCE_ROOFLINE_NULL_INPUT;
  }
  if (n < 0 || static_cast<uint64_t>(n) > std::numeric_limits<uint64_t>::max() / 8) return BCE_ROOFLINE_BAD_N;
  const uint64_t stream_bytes = static_cast<uint64_t>(n) * static_cast<uint64_t>(elem_bytes);
  if (!FitsAddressSpace(out, stream_bytes)) return BCE_ROOFLINE_BAD_N;
  for (int k = 0; k < num_inputs; ++k) {
    if (!FitsAddressSpace(inputs[k], stream_bytes)) return BCE_ROOFLINE_BAD_N;
  }
  if (threads < 1 || threads > ThreadPool::kMaxThreads) return BCE_ROOFLINE_BAD_THREADS;
  const auto alignment = static_cast<uintptr_t>(elem_bytes);
  if (reinterpret_cast<uintptr_t>(out) % alignment != 0) return BCE_ROOFLINE_MISALIGNED;
  for (int k = 0; k < num_inputs; ++k) {
    if (reinterpret_cast<uintptr_t>(inputs[k]) % alignment != 0) return BCE_ROOFLINE_MISALIGNED;
  }
  if (out != nullptr) {
    const ByteRange out_range = RangeOf(out, stream_bytes);
    for (int k = 0; k < num_inputs; ++k) {
      if (out_range.Overlaps(RangeOf(inputs[k], stream_bytes))) return BCE_ROOFLINE_OUT_OVERLAPS;
    }
  }
  return BCE_ROOFLINE_OK;
}

template <class T>
double RunTyped(const void* const* inputs, int num_inputs, void* out, int64_t n, int threads) {
  RooflineJob<T> job;
  for (int k = 0; k < num_inputs; ++k) job.AddInput(static_cast<const T*>(inputs[k]));
  job.out = static_cast<T*>(out);
  // One partial per chunk; chunks <= threads <= ACLNN_CPU_MAX_THREADS, and every chunk writes its
  // own, so only the first `chunks` are read and none needs clearing.
  double partials[ACLNN_CPU_MAX_THREADS];
  job.partials = partials;
  job.n = n;
  const double bytes = static_cast<double>(num_inputs + (out != nullptr ? 1 : 0)) * static_cast<double>(n) *
                       static_cast<double>(sizeof(T));
  job.SetLaunch(bce_bench::PlanRooflineLaunch(bytes, threads));
  ThreadPool::Instance().Run(job.chunks, &RooflineJob<T>::Run, &job);
  if (out != nullptr) return 0;
  double total = 0;
  for (int64_t chunk = 0; chunk < job.chunks; ++chunk) total += partials[chunk];
  return total;
}

}  // namespace

extern "C" int bce_roofline_run(int elem_bytes, const void* const* inputs, int num_inputs, void* out, int64_t n,
                                int threads, double* sum_out) {
  const BceRooflineStatus status = CheckArguments(elem_bytes, inputs, num_inputs, out, n, threads);
  if (status != BCE_ROOFLINE_OK) return status;
  try {
    ThreadPool& pool = ThreadPool::Instance();
    if (pool.NumThreads() != threads) pool.SetNumThreads(threads);
    double total = 0;
    switch (elem_bytes) {
      case 2: total = RunTyped<uint16_t>(inputs, num_inputs, out, n, threads); break;
      case 4: total = RunTyped<float>(inputs, num_inputs, out, n, threads); break;
      default: total = RunTyped<double>(inputs, num_inputs, out, n, threads); break;
    }
    // The total is a result, so the reduction's loop cannot be dropped even when nobody asks.
    static std::atomic<double> sink{0};
    sink.store(total, std::memory_order_relaxed);
    if (sum_out != nullptr) *sum_out = total;
    return BCE_ROOFLINE_OK;
  } catch (...) {
    return BCE_ROOFLINE_POOL_FAILED;
  }
}
