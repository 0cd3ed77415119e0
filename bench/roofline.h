// The roofline of the benchmarks: a plain loop on the library's worker pool that reads the same
// input streams and writes the same output bytes as an operator, with trivial arithmetic.
// bce_bench times it beside the operator in C++, and libbce_roofline.so (roofline_lib.cpp) runs
// the same loop for the Python benchmark through ctypes.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "platform/platform_info.h"

// "No iteration's store feeds another iteration's load" for the next loop, in each compiler's
// spelling (clang ignores GCC's with a warning, and GCC clang's).
#if defined(__clang__)
#define BCE_BENCH_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define BCE_BENCH_IVDEP _Pragma("GCC ivdep")
#endif

namespace bce_bench {

/// Traffic that pays for one more chunk, i.e. one more worker: the tiling's per-core start cost
/// (kCpuMinBytesPerCore in platform_info.cpp), so that the roofline runs on as many workers as
/// the operator's tiling would give the same bytes.
inline constexpr double kRooflineBytesPerChunk = 64.0 * 1024.0;

/// This machine's last-level cache, read once (CpuLastLevelCacheBytes reads sysfs at each call).
inline uint64_t LastLevelCacheBytes() {
  static const uint64_t bytes = aclnn_cpu::CpuLastLevelCacheBytes();
  return bytes;
}

/// How a roofline launch is cut.
struct RooflineLaunch {
  int64_t chunks = 1;   ///< one contiguous chunk per worker
  bool stream = false;  ///< non-temporal stores of out (RooflineJob::stream)
};

/// The launch for @p bytes of traffic on a pool of @p threads threads: the worker count the
/// operator's tiling would use for this many bytes, and the tiling's rule for streaming its output
/// (nonTemporalOut: the traffic exceeds the last-level cache).
inline RooflineLaunch PlanRooflineLaunch(double bytes, int64_t threads) {
  const int64_t by_bytes = static_cast<int64_t>(bytes / kRooflineBytesPerChunk) + 1;
  RooflineLaunch launch;
  launch.chunks = std::max<int64_t>(1, std::min(threads, by_bytes));
  launch.stream = bytes > static_cast<double>(LastLevelCacheBytes());
  return launch;
}

/// The roofline: out[i] = sum of the per-element input streams, in the storage type, on the
/// library's worker pool with one contiguous chunk per thread (cache-line aligned). Without an
/// out (a reduction) each chunk adds its inputs up into partials[chunk].
/// Run is the pool's block function (ThreadPool::Run(chunks, &Run, &job)); it expects
/// kMinInputs..kMaxInputs inputs of n elements each, an out that overlaps none of them, and
/// partials with room for `chunks` sums when out is null.
template <class T>
struct RooflineJob {
  static constexpr int kMinInputs = 2;
  static constexpr int kMaxInputs = 5;
  // A fixed array, not a vector: building a vector of five pointers at each call (four
  // allocations) was 0.03-0.04 us of the 0.26 us roofline of 1 Ki fp32 elements.
  const T* inputs[kMaxInputs] = {};
  int num_inputs = 0;
  T* out = nullptr;
  double* partials = nullptr;
  int64_t n = 0;
  int64_t chunks = 1;
  /// Write out with non-temporal stores, as the operators do when their traffic exceeds the
  /// last-level cache (tiling's nonTemporalOut): a plain store reads each line first, so a
  /// roofline with plain stores would move more bytes than the operator and lose to it.
  bool stream = false;

  void AddInput(const T* input) { inputs[num_inputs++] = input; }
  void SetLaunch(const RooflineLaunch& launch) {
    chunks = launch.chunks;
    stream = launch.stream;
  }

  /// out[i] = f(i) for i in [begin, end): whole cache lines through a buffer and non-temporal
  /// stores when streaming (begin is line-aligned; the last partial line is stored plainly).
  template <class F>
  void Write(int64_t begin, int64_t end, F f) const {
    T* __restrict o = out;
    int64_t i = begin;
#if defined(__SSE2__)
    constexpr int64_t kLine = 64 / sizeof(T);
    if (stream && reinterpret_cast<uintptr_t>(o) % 64 == 0) {
      alignas(64) T line[kLine];
      for (; i + kLine <= end; i += kLine) {
        BCE_BENCH_IVDEP
        for (int64_t l = 0; l < kLine; ++l) line[l] = f(i + l);
        for (int q = 0; q < 4; ++q) {
          _mm_stream_si128(reinterpret_cast<__m128i*>(o + i) + q, _mm_load_si128(reinterpret_cast<const __m128i*>(line) + q));
        }
      }
      _mm_sfence();
    }
#endif
    // The inputs reach f through a lambda's captures, which lose __restrict: ivdep keeps the
    // loop vectorized (no output element is an input's).
    BCE_BENCH_IVDEP
    for (; i < end; ++i) o[i] = f(i);
  }

  /// Chunk @p block with kInputs streams: one loop per stream count, so that every input is a
  /// __restrict pointer of its own and the adds are spelled out (no loop over the inputs).
  template <int kInputs>
  void RunChunk(int64_t block) const {
    static_assert(kInputs >= kMinInputs && kInputs <= kMaxInputs);
    constexpr int64_t kLine = 64 / sizeof(T);
    // Whole lines per chunk, from the rounded-up share so that the chunks always cover n.
    const int64_t per = ((n + chunks - 1) / chunks + kLine - 1) / kLine * kLine;
    const int64_t begin = std::min(n, block * per);
    const int64_t end = std::min(n, begin + per);
    const T* __restrict a = inputs[0];
    const T* __restrict b = inputs[1];
    const T* __restrict c = kInputs > 2 ? inputs[2] : nullptr;
    const T* __restrict d = kInputs > 3 ? inputs[3] : nullptr;
    const T* __restrict e = kInputs > 4 ? inputs[4] : nullptr;
    // Element i of the inputs added up, in the type they promote to (int for the 16-bit types).
    const auto sum = [&](int64_t i) {
      if constexpr (kInputs == 2) {
        return a[i] + b[i];
      } else if constexpr (kInputs == 3) {
        return a[i] + b[i] + c[i];
      } else if constexpr (kInputs == 4) {
        return a[i] + b[i] + c[i] + d[i];
      } else {
        return a[i] + b[i] + c[i] + d[i] + e[i];
      }
    };
    if (out == nullptr) {  // read the streams, write nothing but the chunk's sum
      // Sixteen independent sums so that the adds pipeline and vectorize (one chain would make
      // the loop latency-bound, not a roofline).
      constexpr int64_t kLanes = 16;
      float acc[kLanes] = {};
      int64_t i = begin;
      for (; i + kLanes <= end; i += kLanes) {
        for (int64_t l = 0; l < kLanes; ++l) acc[l] += static_cast<float>(sum(i + l));
      }
      for (; i < end; ++i) acc[0] += static_cast<float>(sum(i));
      float total = 0;
      for (float v : acc) total += v;
      partials[block] = total;
    } else {
      Write(begin, end, [&](int64_t i) { return static_cast<T>(sum(i)); });
    }
  }

  static void Run(const void* ctx, int64_t block) {
    const auto* job = static_cast<const RooflineJob*>(ctx);
    switch (job->num_inputs) {
      case 2: job->template RunChunk<2>(block); break;
      case 3: job->template RunChunk<3>(block); break;
      case 4: job->template RunChunk<4>(block); break;
      case 5: job->template RunChunk<5>(block); break;
      default: break;  // outside the contract: nothing to run
    }
  }
};

}  // namespace bce_bench
