// Harness of README's "The API: two phases" fragment: the operands of the CANN sample under the
// names the fragment uses (gradOutput, self, target, weight, posWeight, out, stream); the fragment
// declares workspaceSize, executor, ret and workspace itself. Checks every element of out.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "harness.h"

int main() {
  using namespace doc_harness;
  aclrtStream stream = Init();
  bool ok = true;
  {
    const Tensor grad_output_t({kSide, kSide}, kGrad), self_t({kSide, kSide}, kX), target_t({kSide, kSide}, kY),
        weight_t({kSide, kSide}, kWeight), pos_weight_t({kSide, kSide}, kPosWeight), out_t({kSide, kSide}, NAN);
    aclTensor* gradOutput = grad_output_t.get();
    aclTensor* self = self_t.get();
    aclTensor* target = target_t.get();
    aclTensor* weight = weight_t.get();
    aclTensor* posWeight = pos_weight_t.get();
    aclTensor* out = out_t.get();

    // SNIPPET

    Synchronize(stream);
    ok = out_t.AllNear(MeanGradient(), "out");
    if (workspace != nullptr) aclrtFree(workspace);
  }
  return Finish(stream, ok);
}
