// Harness of README's fused fragment (aclnnBinaryCrossEntropyWithLogitsFused): the CANN sample's
// operands (gradOutput one element), reduction mean (out 0-dim), and workspaceSize, executor and a
// workspace of kWorkspaceBytes under the fragment's names. Checks the loss and every element of
// gradInput.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_fused.h"
#include "harness.h"

int main() {
  using namespace doc_harness;
  aclrtStream stream = Init();
  bool ok = true;
  {
    const Tensor self_t({kSide, kSide}, kX), target_t({kSide, kSide}, kY), weight_t({kSide, kSide}, kWeight),
        pos_weight_t({kSide}, kPosWeight), grad_output_t({}, kGrad), out_t({}, NAN), grad_input_t({kSide, kSide}, NAN);
    aclTensor* self = self_t.get();
    aclTensor* target = target_t.get();
    aclTensor* weightOptional = weight_t.get();
    aclTensor* posWeightOptional = pos_weight_t.get();
    aclTensor* gradOutputOptional = grad_output_t.get();
    aclTensor* out = out_t.get();
    aclTensor* gradInput = grad_input_t.get();
    const int64_t reduction = 1;
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    void* workspace = nullptr;
    if (aclrtMalloc(&workspace, kWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) Fail("workspace");

    // SNIPPET

    Synchronize(stream);
    if (workspaceSize > kWorkspaceBytes) Fail("the fragment's problem asks for more than kWorkspaceBytes");
    ok = out_t.AllNear(MeanLoss(), "out");
    ok = grad_input_t.AllNear(MeanGradient(), "gradInput") && ok;
    aclrtFree(workspace);
  }
  return Finish(stream, ok);
}
