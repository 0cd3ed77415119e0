// Harness of README's target gradient fragment (aclnnBinaryCrossEntropyWithLogitsTargetBackward):
// the CANN sample's operands (gradOutput 0-dim), reduction mean, and workspaceSize, executor and a
// workspace of kWorkspaceBytes under the fragment's names. Checks every element of gradTarget.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "harness.h"

int main() {
  using namespace doc_harness;
  aclrtStream stream = Init();
  bool ok = true;
  {
    const Tensor grad_output_t({}, kGrad), self_t({kSide, kSide}, kX), target_t({kSide, kSide}, kY),
        weight_t({kSide, kSide}, kWeight), pos_weight_t({kSide}, kPosWeight), grad_target_t({kSide, kSide}, NAN);
    aclTensor* gradOutput = grad_output_t.get();
    aclTensor* self = self_t.get();
    aclTensor* target = target_t.get();
    aclTensor* weightOptional = weight_t.get();
    aclTensor* posWeightOptional = pos_weight_t.get();
    aclTensor* gradTarget = grad_target_t.get();
    const int64_t reduction = 1;
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    void* workspace = nullptr;
    if (aclrtMalloc(&workspace, kWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) Fail("workspace");

    // SNIPPET

    Synchronize(stream);
    if (workspaceSize > kWorkspaceBytes) Fail("the fragment's problem asks for more than kWorkspaceBytes");
    ok = grad_target_t.AllNear(MeanTargetGradient(), "gradTarget");
    aclrtFree(workspace);
  }
  return Finish(stream, ok);
}
