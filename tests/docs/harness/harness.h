// What the C++ fragments of the documentation run inside (tests/docs/run_snippets.py): the ACL
// runtime set up as a CANN sample sets it up, and fp32 tensors over device memory filled with the
// CANN sample's seed values (self 1, target 0.5, gradOutput 1, weight 1, posWeight 2; 32 x 32,
// reduction mean), so that a harness can check the fragment's results against values worked out
// by hand. Each harness declares, under the names the fragment uses, what the fragment expects
// to exist, and checks afterwards; it exits non-zero on any failure.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace doc_harness {

inline constexpr int64_t kSide = 32;         // the CANN sample's 32 x 32
inline constexpr double kRelTolerance = 1e-5;  // the CANN sample's own check
/// Workspace given to fragments that call the second phase right after the first (the README's
/// signature blocks): more than any of these problems asks for; checked after the fragment.
inline constexpr uint64_t kWorkspaceBytes = 1 << 20;

[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "harness: %s (%s)\n", what, aclGetRecentErrMsg());
  std::exit(1);
}

/// aclInit, device 0, one stream; the fragments call it `stream`.
inline aclrtStream Init() {
  aclrtStream stream = nullptr;
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
    Fail("runtime setup");
  }
  return stream;
}

/// A contiguous fp32 tensor over aclrtMalloc memory, every element @p value.
class Tensor {
 public:
  Tensor(std::vector<int64_t> dims, float value) : dims_(std::move(dims)) {
    numel_ = 1;
    for (const int64_t d : dims_) numel_ *= d;
    std::vector<int64_t> strides(dims_.size(), 1);
    for (int64_t i = static_cast<int64_t>(dims_.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims_[i + 1];
    const std::vector<float> host(static_cast<size_t>(numel_), value);
    const size_t bytes = static_cast<size_t>(numel_) * sizeof(float);
    if (aclrtMalloc(&data_, bytes == 0 ? 1 : bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemcpy(data_, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
      Fail("tensor memory");
    }
    tensor_ = aclCreateTensor(dims_.data(), dims_.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, dims_.data(),
                              dims_.size(), data_);
    if (tensor_ == nullptr) Fail("aclCreateTensor");
  }
  ~Tensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  aclTensor* get() const { return tensor_; }

  /// Every element is @p expected within kRelTolerance; prints the first that is not.
  bool AllNear(double expected, const char* name) const {
    std::vector<float> host(static_cast<size_t>(numel_));
    const size_t bytes = host.size() * sizeof(float);
    if (aclrtMemcpy(host.data(), bytes, data_, bytes, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) Fail("copy back");
    for (size_t i = 0; i < host.size(); ++i) {
      if (std::fabs(host[i] - expected) > kRelTolerance * std::fabs(expected)) {
        std::fprintf(stderr, "harness: %s[%zu] = %.9g, expected %.9g\n", name, i, static_cast<double>(host[i]),
                     expected);
        return false;
      }
    }
    std::printf("harness: %s: all %zu elements %.8g as expected\n", name, host.size(), expected);
    return true;
  }

 private:
  std::vector<int64_t> dims_;
  int64_t numel_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// The seed values' results, worked out from the formulas (README "The math" and the loss's).
inline double Softplus(double t) { return std::fmax(t, 0.0) + std::log1p(std::exp(-std::fabs(t))); }
inline constexpr double kX = 1.0, kY = 0.5, kGrad = 1.0, kWeight = 1.0, kPosWeight = 2.0;
inline constexpr double kNumel = static_cast<double>(kSide * kSide);
/// The gradient with reduction mean: ((lw + 1 - y) * sigmoid(x) - lw) * g * w / N, lw = pw * y.
inline double MeanGradient() {
  const double lw = kPosWeight * kY;
  return ((lw + 1 - kY) / (1 + std::exp(-kX)) - lw) * kGrad * kWeight / kNumel;
}
/// The loss with reduction mean: w * (pw * y * softplus(-x) + (1 - y) * softplus(x)), the same
/// for every element, so its mean.
inline double MeanLoss() { return kWeight * (kPosWeight * kY * Softplus(-kX) + (1 - kY) * Softplus(kX)); }
/// The target gradient with reduction mean: (log_sigmoid(-x) - pw * log_sigmoid(x)) * g * w / N.
inline double MeanTargetGradient() {
  return (-Softplus(kX) + kPosWeight * Softplus(-kX)) * kGrad * kWeight / kNumel;
}

/// The loss of probabilities (aclnnBinaryCrossEntropy) at self kProbability, target kY, weight
/// kWeight: -w * (y log(x) + (1 - y) log(1 - x)), the same for every element, so its mean.
inline constexpr double kProbability = 0.25;
inline double MeanProbabilityLoss() {
  return -kWeight * (kY * std::log(kProbability) + (1 - kY) * std::log1p(-kProbability));
}
/// Its gradient with reduction mean: g * (x - y) / ((1 - x) x) * w / N.
inline double MeanProbabilityGradient() {
  return kGrad * (kProbability - kY) / ((1 - kProbability) * kProbability) * kWeight / kNumel;
}

/// Waits for the fragment's launches.
inline void Synchronize(aclrtStream stream) {
  if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) Fail("aclrtSynchronizeStream");
}

/// Tears the runtime down (after the tensors); returns 0, or 1 when @p ok is false.
inline int Finish(aclrtStream stream, bool ok) {
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return ok ? 0 : 1;
}

}  // namespace doc_harness
