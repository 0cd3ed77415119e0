/**
 * The CANN sample of aclnnBinaryCrossEntropyWithLogits (operator SigmoidCrossEntropyWithLogitsV2,
 * the loss), written as a CANN user writes one. It builds unchanged against CANN's toolkit on an
 * Ascend NPU, or against this project's CPU implementation.
 *
 * Data: self (logits) x[i] = (i % 17 - 8) / 2, target y[i] = (i % 5) / 4, weight [32] w[j] =
 * 1 + j / 32, posWeight [32] all 2.0, all fp32 over 32 x 32, reduction = 1 (mean). The program
 * computes the mean loss on the host in double,
 *   loss = w * (pw * y * log(1 + e^-x) + (1 - y) * log(1 + e^x)),
 * and exits non-zero when the operator's mean differs from it by more than a relative 1e-5.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  // Fixed pattern: initialise the runtime, the device and a stream.
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  // Device memory with aclrtMalloc.
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  // Host data to the device with aclrtMemcpy.
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);

  // Strides of a contiguous tensor.
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }

  // The aclTensor over the device memory.
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed. %s\n", aclGetRecentErrMsg()); return -1);
  return 0;
}

int main() {
  // 1. (Fixed pattern) device/stream initialisation; see the acl API reference.
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Inputs and output; adapt them to the API being called.
  std::vector<int64_t> selfShape = {32, 32};
  std::vector<int64_t> targetShape = {32, 32};
  std::vector<int64_t> weightShape = {32};
  std::vector<int64_t> posWeightShape = {32};
  std::vector<int64_t> outShape = {1};
  void* selfDeviceAddr = nullptr;
  void* targetDeviceAddr = nullptr;
  void* weightDeviceAddr = nullptr;
  void* posWeightDeviceAddr = nullptr;
  void* outDeviceAddr = nullptr;
  aclTensor* self = nullptr;
  aclTensor* target = nullptr;
  aclTensor* weight = nullptr;
  aclTensor* posWeight = nullptr;
  aclTensor* out = nullptr;
  std::vector<float> selfHostData(GetShapeSize(selfShape));
  std::vector<float> targetHostData(GetShapeSize(targetShape));
  std::vector<float> weightHostData(GetShapeSize(weightShape));
  std::vector<float> posWeightHostData(GetShapeSize(posWeightShape), 2.0f);
  std::vector<float> outHostData(GetShapeSize(outShape), 0.0f);
  for (int64_t i = 0; i < GetShapeSize(selfShape); i++) {
    selfHostData[i] = static_cast<float>(i % 17 - 8) / 2.0f;
    targetHostData[i] = static_cast<float>(i % 5) / 4.0f;
  }
  for (int64_t j = 0; j < GetShapeSize(weightShape); j++) weightHostData[j] = 1.0f + static_cast<float>(j) / 32.0f;
  int64_t reduction = 1;  // 0: none, 1: mean, 2: sum

  ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(targetHostData, targetShape, &targetDeviceAddr, aclDataType::ACL_FLOAT, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT, &weight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(posWeightHostData, posWeightShape, &posWeightDeviceAddr, aclDataType::ACL_FLOAT, &posWeight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the CANN operator library API; adapt to the API being called.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self, target, weight, posWeight, reduction, out,
                                                          &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize failed. ERROR: %d\n%s\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  ret = aclnnBinaryCrossEntropyWithLogits(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnBinaryCrossEntropyWithLogits failed. ERROR: %d\n%s\n", ret, aclGetRecentErrMsg());
            return ret);

  // 4. (Fixed pattern) wait for the task to finish.
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy the result from the device to the host; adapt to the API being called.
  float result = 0.0f;
  ret = aclrtMemcpy(&result, sizeof(result), outDeviceAddr, sizeof(result), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  double expected = 0.0;
  for (int64_t i = 0; i < GetShapeSize(selfShape); i++) {
    const double x = selfHostData[i], y = targetHostData[i];
    const double w = weightHostData[i % 32], pw = posWeightHostData[i % 32];
    const double softplusX = std::fmax(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
    const double softplusNegX = std::fmax(-x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
    expected += w * (pw * y * softplusNegX + (1.0 - y) * softplusX);
  }
  expected /= static_cast<double>(GetShapeSize(selfShape));
  LOG_PRINT("mean loss is: %.7e (expected %.7e)\n", result, expected);
  const bool ok = std::fabs(result - expected) <= 1e-5 * std::fabs(expected);

  // 6. Destroy the aclTensors; adapt to the API being called.
  aclDestroyTensor(self);
  aclDestroyTensor(target);
  aclDestroyTensor(weight);
  aclDestroyTensor(posWeight);
  aclDestroyTensor(out);

  // 7. Release the device resources; adapt to the API being called.
  aclrtFree(selfDeviceAddr);
  aclrtFree(targetDeviceAddr);
  aclrtFree(weightDeviceAddr);
  aclrtFree(posWeightDeviceAddr);
  aclrtFree(outDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return ok ? 0 : 1;
}
