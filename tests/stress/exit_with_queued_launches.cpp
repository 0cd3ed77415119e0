// A CANN-style program that exits with launches still queued on a created stream and on the
// default stream (no synchronize, no destroy, no reset). Run by ctest directly and under valgrind
// (label `limits`): the exit must be clean, with no use of the runtime's destroyed state by a
// stream's thread (see Note [Exit and fork] in src/runtime/stream.cpp). Uses only the public API.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_cpu.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

// Buffers with static storage: they outlive main's frame, as a program's globals do.
constexpr int64_t kElems = int64_t{1} << 20;  // 12 MiB of traffic per launch: queued, several blocks
std::vector<float> g_x(kElems, 0.5f), g_y(kElems, 0.25f), g_out(kElems);
float g_dout = 1.0f;

// A program's own teardown that takes a while (flushing logs, closing files): static destructors
// run meanwhile, and a stream's thread must not go on running launches on what they destroy.
struct SlowTeardown {
  ~SlowTeardown() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }
} g_slow_teardown;

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
  if (aclnnCpuSetNumThreads(2) != ACL_SUCCESS) return 3;
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 4;
  const int64_t dims[] = {kElems};
  aclTensor* x = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, g_x.data());
  aclTensor* y = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, g_y.data());
  aclTensor* out = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, g_out.data());
  aclTensor* dout = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, &g_dout);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout, x, y, nullptr, nullptr, 0, out, &workspace_size,
                                                                &executor) != ACLNN_SUCCESS ||
      aclSetAclOpExecutorRepeatable(executor) != ACLNN_SUCCESS) {
    std::fprintf(stderr, "%s\n", aclGetRecentErrMsg());
    return 5;
  }
  static std::vector<char> workspace;  // static: queued launches may still use it during exit
  workspace.resize(workspace_size + 64);
  for (int k = 0; k < 16; ++k) {
    for (aclrtStream s : {stream, static_cast<aclrtStream>(nullptr)}) {
      if (aclnnBinaryCrossEntropyWithLogitsBackward(workspace.data(), workspace_size, executor, s) != ACLNN_SUCCESS) {
        std::fprintf(stderr, "%s\n", aclGetRecentErrMsg());
        return 6;
      }
    }
  }
  std::puts("exiting with launches queued");
  return 0;  // exit() with launches still queued and running
}
