"""aclnn_bce.torch: the library's operators as PyTorch operators, with autograd and torch.compile.

Importing this module registers six custom operators in the namespace ``aclnn_bce`` with
``torch.library`` (``torch.ops.aclnn_bce.binary_cross_entropy_with_logits``, ``..._backward``,
``..._target_backward``, ``..._fused``, and for probabilities ``binary_cross_entropy`` and
``binary_cross_entropy_backward``): CPU kernels calling ``aclnn_bce._api``, fake kernels
for tracing (``torch.compile``, ``torch.export``), and autograd formulas that use the backward
operators themselves. On top of them:

- ``functional.binary_cross_entropy_with_logits`` and ``BCEWithLogitsLoss``,
  ``functional.binary_cross_entropy`` and ``BCELoss``: PyTorch's functions and modules, same
  signatures and results (range errors of the loss of probabilities included), differentiable
  with respect to input and target;
- ``enable()`` / ``disable()`` / ``is_enabled()``: opt-in routing of PyTorch's own
  ``torch.nn.functional.binary_cross_entropy_with_logits`` and ``binary_cross_entropy`` (hence
  ``torch.nn.BCEWithLogitsLoss`` and ``torch.nn.BCELoss`` in unchanged model code) to this
  library for CPU tensors of float16, bfloat16, float32 and float64; everything else still goes
  to PyTorch. ``disable()`` puts PyTorch's function objects back. Nothing is routed until
  ``enable()`` is called.

Ownership: every operator reads its operands and writes fresh result tensors before it returns
(the library's two phases run synchronously), so operands only need to live for the call; no
tensor is kept by the library afterwards. Autograd keeps what the backward needs (input, target,
weight, pos_weight, and the fused operator's gradient) the way any PyTorch operator does; each
gradient it returns is a tensor of its own.

Double backward works: a gradient taken with ``create_graph=True`` has exact derivatives of its
own (the gradient operators are differentiable: Note [Double backward] in ``_ops.py``), so
gradient penalties, ``torch.autograd.functional.hessian`` and ``gradgradcheck`` work. torch.func
transforms (``vmap``, ``grad``, ...) are not taken: after ``enable()`` such calls go to PyTorch,
and ``functional.binary_cross_entropy_with_logits`` refuses them with a RuntimeError.
"""

from __future__ import annotations

from . import _ops, functional
from ._ops import SUPPORTED_DTYPES
from ._patch import disable, enable, is_enabled
from .functional import binary_cross_entropy, binary_cross_entropy_with_logits
from .modules import BCELoss, BCEWithLogitsLoss

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "SUPPORTED_DTYPES",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "disable",
    "enable",
    "functional",
    "is_enabled",
]
