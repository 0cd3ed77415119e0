// Harness of README's fragment of the loss of probabilities (aclnnBinaryCrossEntropy): self
// kProbability, target 0.5, weight 1 (32 x 32), reduction mean (out 0-dim), and workspaceSize,
// executor and a workspace of kWorkspaceBytes under the fragment's names. Checks the mean loss.
#include "aclnnop/aclnn_binary_cross_entropy.h"
#include "harness.h"

int main() {
  using namespace doc_harness;
  aclrtStream stream = Init();
  bool ok = true;
  {
    const Tensor self_t({kSide, kSide}, kProbability), target_t({kSide, kSide}, kY),
        weight_t({kSide, kSide}, kWeight), out_t({}, NAN);
    aclTensor* self = self_t.get();
    aclTensor* target = target_t.get();
    aclTensor* weight = weight_t.get();
    aclTensor* out = out_t.get();
    const int64_t reduction = 1;
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    void* workspace = nullptr;
    if (aclrtMalloc(&workspace, kWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) Fail("workspace");

    // SNIPPET

    Synchronize(stream);
    if (workspaceSize > kWorkspaceBytes) Fail("the fragment's problem asks for more than kWorkspaceBytes");
    ok = out_t.AllNear(MeanProbabilityLoss(), "out");
    aclrtFree(workspace);
  }
  return Finish(stream, ok);
}
