// The CANN runtime subset (docs/contract.md §2): init, device, memory, copies, streams and the per-thread
// recent error message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/executor.h"
#include "runtime/launch_plan.h"
#include "test_tensor.h"

namespace acl_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Init and device (main() has called aclInit and aclrtSetDevice(0)).

TEST(AclRuntime, SecondInitIsReportedAsRepeated) { EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE); }

TEST(AclRuntime, DeviceZeroIsTheOnlyDevice) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
}

TEST(AclRuntime, SetDeviceOneFails) {
  PrimeRecentErrMsg();
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("deviceId"), std::string::npos) << aclGetRecentErrMsg();
}

TEST(AclRuntime, SetNegativeDeviceFails) { EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID); }

TEST(AclRuntime, ResetOfAnUnknownDeviceFails) { EXPECT_EQ(aclrtResetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID); }

TEST(AclRuntime, DataTypeSizesAreCanns) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_DOUBLE), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_BOOL), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
}

// ---------------------------------------------------------------------------------------------
// aclrtMalloc / aclrtFree.

TEST(AclMemory, MallocGives64ByteAlignedWritableMemory) {
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 1000, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 0x5A, 1000);
  EXPECT_EQ(static_cast<uint8_t*>(p)[999], 0x5A);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

TEST(AclMemory, MallocAcceptsEveryPolicy) {
  for (int policy = ACL_MEM_MALLOC_HUGE_FIRST; policy <= ACL_MEM_MALLOC_NORMAL_ONLY_P2P; ++policy) {
    void* p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, 16, static_cast<aclrtMemMallocPolicy>(policy)), ACL_SUCCESS) << policy;
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  }
}

TEST(AclMemory, MallocRejectsNullOutPointer) {
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

TEST(AclMemory, MallocRejectsSizeZero) {
  void* p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(p, nullptr);
}

TEST(AclMemory, MallocRejectsUnknownPolicy) {
  void* p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, 16, static_cast<aclrtMemMallocPolicy>(6)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&p, 16, static_cast<aclrtMemMallocPolicy>(-1)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(p, nullptr);
}

TEST(AclMemory, MallocOfAnImpossibleSizeFailsAsAllocationError) {
  void* p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(aclrtMalloc(&p, SIZE_MAX / 2, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(p, nullptr);
}

TEST(AclMemory, FreeRejectsNull) { EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM); }

TEST(AclMemory, FreeRejectsMemoryItDidNotAllocate) {
  int on_stack = 0;
  EXPECT_EQ(aclrtFree(&on_stack), ACL_ERROR_INVALID_PARAM);
  auto on_heap = std::make_unique<int[]>(4);
  EXPECT_EQ(aclrtFree(on_heap.get()), ACL_ERROR_INVALID_PARAM);
}

TEST(AclMemory, FreeRejectsAnInteriorPointer) {
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(static_cast<char*>(p) + 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

TEST(AclMemory, DoubleFreeIsRejected) {
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 32, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_INVALID_PARAM);
}

TEST(AclMemory, MallocHostAndFreeHostPair) {
  void* p = nullptr;
  ASSERT_EQ(aclrtMallocHost(&p, 100), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(p), ACL_ERROR_INVALID_PARAM);
}

// ---------------------------------------------------------------------------------------------
// aclrtMemcpy / aclrtMemset.

TEST(AclMemcpy, CopiesCountBytesForEveryKind) {
  const std::vector<uint8_t> src = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (int kind = ACL_MEMCPY_HOST_TO_HOST; kind <= ACL_MEMCPY_DEVICE_TO_DEVICE; ++kind) {
    std::vector<uint8_t> dst(12, 0xEE);
    ASSERT_EQ(aclrtMemcpy(dst.data(), dst.size(), src.data(), 7, static_cast<aclrtMemcpyKind>(kind)), ACL_SUCCESS);
    EXPECT_EQ(std::vector<uint8_t>(dst.begin(), dst.begin() + 7), std::vector<uint8_t>(src.begin(), src.begin() + 7));
    EXPECT_EQ(dst[7], 0xEE) << "wrote past count";
  }
}

TEST(AclMemcpy, CountEqualToDestMaxIsAccepted) {
  const uint8_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t dst[8] = {};
  EXPECT_EQ(aclrtMemcpy(dst, 8, src, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(dst, src, 8), 0);
}

TEST(AclMemcpy, CountLargerThanDestMaxIsRejectedAndCopiesNothing) {
  const uint8_t src[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  uint8_t dst[16] = {};
  PrimeRecentErrMsg();
  EXPECT_EQ(aclrtMemcpy(dst, 8, src, 9, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("destMax"), std::string::npos) << aclGetRecentErrMsg();
  for (uint8_t b : dst) EXPECT_EQ(b, 0);
}

TEST(AclMemcpy, UnknownKindIsRejectedAndCopiesNothing) {
  const uint8_t src[4] = {1, 2, 3, 4};
  uint8_t dst[4] = {};
  EXPECT_EQ(aclrtMemcpy(dst, 4, src, 4, static_cast<aclrtMemcpyKind>(4)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(dst, 4, src, 4, static_cast<aclrtMemcpyKind>(-1)), ACL_ERROR_INVALID_PARAM);
  for (uint8_t b : dst) EXPECT_EQ(b, 0);
}

TEST(AclMemcpy, NullPointersAreRejected) {
  uint8_t buffer[4] = {};
  EXPECT_EQ(aclrtMemcpy(nullptr, 4, buffer, 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(buffer, 4, nullptr, 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
}

TEST(AclMemcpy, OverlappingRangesAreRejected) {
  uint8_t buffer[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  EXPECT_EQ(aclrtMemcpy(buffer + 4, 12, buffer, 8, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(buffer[4], 5);
}

TEST(AclMemcpy, DeviceMemoryRoundTrip) {
  std::vector<float> host(257);
  for (size_t i = 0; i < host.size(); ++i) host[i] = 0.5f * static_cast<float>(i) - 3.0f;
  const size_t bytes = host.size() * sizeof(float);
  DeviceBuffer device(bytes);
  ASSERT_EQ(aclrtMemcpy(device.get(), bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  std::vector<float> back(host.size(), -1.0f);
  ASSERT_EQ(aclrtMemcpy(back.data(), bytes, device.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, host);
}

TEST(AclMemset, SetsCountBytesAndRejectsCountAboveMax) {
  uint8_t buffer[8] = {};
  EXPECT_EQ(aclrtMemset(buffer, 8, 0x7B, 5), ACL_SUCCESS);
  EXPECT_EQ(buffer[4], 0x7B);
  EXPECT_EQ(buffer[5], 0);
  EXPECT_EQ(aclrtMemset(buffer, 4, 0x11, 5), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(buffer[0], 0x7B);
  EXPECT_EQ(aclrtMemset(nullptr, 4, 0, 1), ACL_ERROR_INVALID_PARAM);
}

// ---------------------------------------------------------------------------------------------
// Streams.

TEST(AclStream, CreateSynchronizeDestroy) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_NE(stream, nullptr);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(AclStream, CreateRejectsNullOutPointer) { EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM); }

TEST(AclStream, DefaultStreamSynchronizes) { EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS); }

TEST(AclStream, DestroyingTwiceOrNullIsRejected) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(AclStream, SynchronizingAnUnknownStreamIsRejected) {
  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_INVALID_PARAM);
}

/// A plan over two float buffers: a launch reads @p from and writes to = from * scale + shift,
/// in blocks of kBlockElems on the worker pool. It never runs inline, so launches are queued.
class AffinePlan final : public aclnn_cpu::LaunchPlan {
 public:
  static constexpr int64_t kBlockElems = 1 << 14;
  AffinePlan(const TestTensor& from, const TestTensor& to, float scale, float shift)
      : from_(static_cast<const float*>(from.data())), to_(static_cast<float*>(to.data())), n_(from.numel()),
        scale_(scale), shift_(shift), stage_{static_cast<uint64_t>((n_ + kBlockElems - 1) / kBlockElems), 0} {}
  std::span<const aclnn_cpu::LaunchStage> Stages() const override { return {&stage_, 1}; }
  void RunBlock(size_t /*stage*/, uint64_t block, char* /*workspace*/) const override {
    const int64_t begin = static_cast<int64_t>(block) * kBlockElems;
    const int64_t end = std::min(n_, begin + kBlockElems);
    for (int64_t i = begin; i < end; ++i) to_[i] = from_[i] * scale_ + shift_;
  }
  bool RunInlineIfIdle() const override { return false; }

 private:
  const float* from_;
  float* to_;
  int64_t n_;
  float scale_, shift_;
  aclnn_cpu::LaunchStage stage_;
};

/// Two repeatable executors that feed each other through two buffers: forward reads a and writes
/// b, backward reads b and writes a. Each launch depends on the one before it, so a launch run out
/// of order, early or twice changes the result.
class PingPong {
 public:
  static constexpr float kScale[2] = {0.75f, 1.5f}, kShift[2] = {1.0f, -2.0f};

  explicit PingPong(int64_t n) : a_({n}, ACL_FLOAT), b_({n}, ACL_FLOAT) {
    FillRandom(a_, 90, -4, 4);
    for (int64_t j = 0; j < n; ++j) initial_.push_back(static_cast<float>(a_.Get(j)));
    for (int i = 0; i < 2; ++i) {
      const TestTensor& from = i == 0 ? a_ : b_;
      const TestTensor& to = i == 0 ? b_ : a_;
      executor_[i] = aclnn_cpu::CreateExecutor(std::make_shared<AffinePlan>(from, to, kScale[i], kShift[i]));
      EXPECT_NE(executor_[i], nullptr);
      EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor_[i]), ACLNN_SUCCESS);
    }
  }
  ~PingPong() {
    for (aclOpExecutor* e : executor_) aclDestroyAclOpExecutor(e);
  }
  PingPong(const PingPong&) = delete;
  PingPong& operator=(const PingPong&) = delete;

  /// Launch number @p k (alternating forward / backward) on @p stream, not synchronised.
  aclnnStatus Launch(int k, aclrtStream stream) {
    return aclnn_cpu::LaunchExecutor("PingPong", nullptr, 0, executor_[k % 2], stream);
  }

  /// Whether a holds what @p launches launches in order make of the initial values, computed
  /// here on the host with the same float operations.
  ::testing::AssertionResult HoldsTheResultOf(int launches) const {
    std::vector<float> a = initial_, b(a.size());
    for (int k = 0; k < launches; ++k) {
      std::vector<float>& from = k % 2 == 0 ? a : b;
      std::vector<float>& to = k % 2 == 0 ? b : a;
      for (size_t j = 0; j < a.size(); ++j) to[j] = from[j] * kScale[k % 2] + kShift[k % 2];
    }
    for (size_t j = 0; j < a.size(); ++j) {
      if (static_cast<float>(a_.Get(static_cast<int64_t>(j))) != a[j]) {
        return ::testing::AssertionFailure() << "element " << j << ": " << a_.Get(static_cast<int64_t>(j))
                                             << " instead of " << a[j];
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  TestTensor a_, b_;
  std::vector<float> initial_;  // a before the first launch
  aclOpExecutor* executor_[2] = {};
};

TEST(AclStream, LaunchesOnAStreamRunInOrderWithOneSynchronize) {
  constexpr int64_t kElements = 1 << 20;  // 64 blocks per launch
  constexpr int kLaunches = 10;
  PingPong queued(kElements);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (int k = 0; k < kLaunches; ++k) ASSERT_EQ(queued.Launch(k, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(queued.HoldsTheResultOf(kLaunches));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(AclStream, DestroyingAStreamWaitsForItsLaunches) {
  constexpr int64_t kElements = 1 << 20;
  constexpr int kLaunches = 6;
  PingPong queued(kElements);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (int k = 0; k < kLaunches; ++k) ASSERT_EQ(queued.Launch(k, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(queued.HoldsTheResultOf(kLaunches));
}

TEST(AclStream, SynchronizeDeviceWaitsForEveryStream) {
  constexpr int64_t kElements = 1 << 19;
  constexpr int kLaunches = 4;
  PingPong queued(kElements);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (int k = 0; k < kLaunches; ++k) ASSERT_EQ(queued.Launch(k, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_TRUE(queued.HoldsTheResultOf(kLaunches));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Contexts (source compatibility) and the recent error message.

TEST(AclContext, TheImplicitContextCanBeCreatedSetAndDestroyed) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS);
  aclrtContext current = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, context);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateContext(&context, 1), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST(AclErrorMessage, IsPerThread) {
  PrimeRecentErrMsg();
  std::string other_thread_message;
  std::thread other([&] {
    EXPECT_EQ(aclrtSetDevice(5), ACL_ERROR_RT_INVALID_DEVICEID);
    other_thread_message = aclGetRecentErrMsg();
  });
  other.join();
  EXPECT_NE(other_thread_message.find("deviceId"), std::string::npos) << other_thread_message;
  EXPECT_STREQ(aclGetRecentErrMsg(), "aclrtFree: devPtr is null");
}

}  // namespace
}  // namespace acl_test
