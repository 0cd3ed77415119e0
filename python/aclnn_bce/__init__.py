"""aclnn_bce: CANN's binary cross entropy (with logits, and on probabilities) on the CPU, for numpy and PyTorch.

The loss, its gradient with respect to the logits and to the labels, and a fused loss+gradient,
computed by the library's C API (the operators aclnnBinaryCrossEntropyWithLogits,
...Backward, ...TargetBackward and ...Fused) over numpy arrays and CPU torch tensors without
copying them; and the loss of probabilities and its gradient (aclnnBinaryCrossEntropy,
aclnnBinaryCrossEntropyBackward: PyTorch's binary_cross_entropy). ``aclnn_bce.torch`` makes them PyTorch operators with autograd; ``python -m
aclnn_bce`` (the ``aclnn-bce`` command) writes golden data and compares an NPU's output with it.
``Op`` and ``DType`` are the library's operators (its API list) and element types as enums.
"""

from ._aclnn_bce import DType, Op, get_num_threads, set_num_threads, simd_target
from ._api import (
    REDUCTIONS,
    PreparedCall,
    binary_cross_entropy,
    binary_cross_entropy_backward,
    binary_cross_entropy_with_logits,
    binary_cross_entropy_with_logits_backward,
    binary_cross_entropy_with_logits_fused,
    binary_cross_entropy_with_logits_target_backward,
    prepare,
)

__version__ = "0.1.0"

__all__ = [
    "DType",
    "Op",
    "REDUCTIONS",
    "PreparedCall",
    "binary_cross_entropy",
    "binary_cross_entropy_backward",
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward",
    "binary_cross_entropy_with_logits_fused",
    "get_num_threads",
    "prepare",
    "set_num_threads",
    "simd_target",
]
