/**
 * The CANN sample of aclnnBinaryCrossEntropyWithLogitsBackward (operator
 * SigmoidCrossEntropyWithLogitsGradV2), written as a CANN user writes one. It builds unchanged
 * against CANN's toolkit on an Ascend NPU, or against this project's CPU implementation.
 *
 * Data (the seed document's, section 5.3): predict = 1.0, target = 0.5, gradOutput = 1.0,
 * weight = 1.0, posWeight = 2.0, all 32 x 32 fp32, reduction = 1 (mean). Every output is
 *   (1.5 * sigmoid(1) - 1) / 1024 = 9.4324090e-05
 * and the program exits non-zero when one differs from it by more than a relative 1e-5 (the
 * subtraction loses about 11x of fp32's relative precision, so a correct result is within ~1e-6).
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

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
  // deviceId is the device's id.
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Inputs and output; adapt them to the API being called.
  std::vector<int64_t> predictShape = {32, 32};
  std::vector<int64_t> targetShape = {32, 32};
  std::vector<int64_t> doutShape = {32, 32};
  std::vector<int64_t> weightShape = {32, 32};
  std::vector<int64_t> posWeightShape = {32, 32};
  std::vector<int64_t> outShape = {32, 32};
  void* predictDeviceAddr = nullptr;
  void* targetDeviceAddr = nullptr;
  void* doutDeviceAddr = nullptr;
  void* weightDeviceAddr = nullptr;
  void* posWeightDeviceAddr = nullptr;
  void* outDeviceAddr = nullptr;
  aclTensor* predict = nullptr;
  aclTensor* target = nullptr;
  aclTensor* dout = nullptr;
  aclTensor* weight = nullptr;
  aclTensor* posWeight = nullptr;
  aclTensor* out = nullptr;
  std::vector<float> predictHostData(GetShapeSize(predictShape), 1.0f);
  std::vector<float> targetHostData(GetShapeSize(targetShape), 0.5f);
  std::vector<float> doutHostData(GetShapeSize(doutShape), 1.0f);
  std::vector<float> weightHostData(GetShapeSize(weightShape), 1.0f);
  std::vector<float> posWeightHostData(GetShapeSize(posWeightShape), 2.0f);
  std::vector<float> outHostData(GetShapeSize(outShape), 0.0f);
  int64_t reduction = 1;  // 0: none, 1: mean, 2: sum

  // predict aclTensor
  ret = CreateAclTensor(predictHostData, predictShape, &predictDeviceAddr, aclDataType::ACL_FLOAT, &predict);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // target aclTensor
  ret = CreateAclTensor(targetHostData, targetShape, &targetDeviceAddr, aclDataType::ACL_FLOAT, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // dout aclTensor
  ret = CreateAclTensor(doutHostData, doutShape, &doutDeviceAddr, aclDataType::ACL_FLOAT, &dout);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // weight aclTensor
  ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT, &weight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // posWeight aclTensor
  ret = CreateAclTensor(posWeightHostData, posWeightShape, &posWeightDeviceAddr, aclDataType::ACL_FLOAT,
                        &posWeight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // out aclTensor
  ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the CANN operator library API; adapt to the API being called.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  // First phase: aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize.
  // Mind the order: gradOutput (dout) comes BEFORE self (predict).
  ret = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout,       // gradOutput
                                                                  predict,    // self (logits)
                                                                  target,     // target
                                                                  weight,     // weightOptional, may be nullptr
                                                                  posWeight,  // posWeightOptional, may be nullptr
                                                                  reduction, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize failed. ERROR: %d\n%s\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  // Device memory for the workspace the first phase asked for.
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  // Second phase: aclnnBinaryCrossEntropyWithLogitsBackward.
  ret = aclnnBinaryCrossEntropyWithLogitsBackward(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnBinaryCrossEntropyWithLogitsBackward failed. ERROR: %d\n%s\n", ret, aclGetRecentErrMsg());
            return ret);

  // 4. (Fixed pattern) wait for the task to finish.
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

  // 5. Copy the result from the device to the host; adapt to the API being called.
  auto size = GetShapeSize(outShape);
  std::vector<float> resultData(size, 0);
  ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), outDeviceAddr,
                    size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
  for (int64_t i = 0; i < 8; i++) {
    LOG_PRINT("result[%ld] is: %.7e\n", static_cast<long>(i), resultData[i]);
  }

  // Every element against the seed's value (see the header comment for the tolerance).
  const double expected = 9.4324090e-05;
  const double relativeTolerance = 1e-5;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < size; i++) {
    if (!(std::fabs(resultData[i] - expected) <= relativeTolerance * expected)) {
      if (mismatches < 8) {
        LOG_PRINT("result[%ld] = %.7e differs from the expected %.7e\n", static_cast<long>(i), resultData[i],
                  expected);
      }
      mismatches++;
    }
  }
  if (mismatches == 0) {
    LOG_PRINT("all %ld results equal the expected %.7e (relative tolerance %.0e)\n", static_cast<long>(size),
              expected, relativeTolerance);
  } else {
    LOG_PRINT("%ld of %ld results differ from the expected %.7e\n", static_cast<long>(mismatches),
              static_cast<long>(size), expected);
  }

  // 6. Destroy the aclTensors; adapt to the API being called.
  aclDestroyTensor(predict);
  aclDestroyTensor(target);
  aclDestroyTensor(dout);
  aclDestroyTensor(weight);
  aclDestroyTensor(posWeight);
  aclDestroyTensor(out);

  // 7. Release the device resources; adapt to the API being called.
  aclrtFree(predictDeviceAddr);
  aclrtFree(targetDeviceAddr);
  aclrtFree(doutDeviceAddr);
  aclrtFree(weightDeviceAddr);
  aclrtFree(posWeightDeviceAddr);
  aclrtFree(outDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return mismatches == 0 ? 0 : 1;
}
