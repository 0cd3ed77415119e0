// Harness of README's fragment of the gradient of the loss of probabilities
// (aclnnBinaryCrossEntropyBackward): gradOutput 1 (0-dim, as the mean's), self kProbability,
// target 0.5, weight 1 (32 x 32), reduction mean, and workspaceSize, executor and a workspace of
// kWorkspaceBytes under the fragment's names. Checks every element of out.
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"
#include "harness.h"

int main() {
  using namespace doc_harness;
  aclrtStream stream = Init();
  bool ok = true;
  {
    const Tensor grad_output_t({}, kGrad), self_t({kSide, kSide}, kProbability), target_t({kSide, kSide}, kY),
        weight_t({kSide, kSide}, kWeight), out_t({kSide, kSide}, NAN);
    aclTensor* gradOutput = grad_output_t.get();
    aclTensor* self = self_t.get();
    aclTensor* target = target_t.get();
    aclTensor* weightOptional = weight_t.get();
    aclTensor* out = out_t.get();
    const int64_t reduction = 1;
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    void* workspace = nullptr;
    if (aclrtMalloc(&workspace, kWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) Fail("workspace");

    // SNIPPET

    Synchronize(stream);
    if (workspaceSize > kWorkspaceBytes) Fail("the fragment's problem asks for more than kWorkspaceBytes");
    ok = out_t.AllNear(MeanProbabilityGradient(), "out");
    aclrtFree(workspace);
  }
  return Finish(stream, ok);
}
