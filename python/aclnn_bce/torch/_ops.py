"""The operators as PyTorch custom operators (``torch.ops.aclnn_bce.*``), with fake kernels and autograd.

Four operators in the namespace ``aclnn_bce``, each a thin call of the ``aclnn_bce._api``
function of the same name on CPU tensors (``reduction`` is the int PyTorch uses: 0 none, 1 mean,
2 sum):

- ``binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction) -> loss``
- ``binary_cross_entropy_with_logits_backward(grad_output, input, target, weight, pos_weight,
  reduction) -> grad_input``
- ``binary_cross_entropy_with_logits_target_backward(...same...) -> grad_target``
- ``binary_cross_entropy_with_logits_fused(input, target, weight, pos_weight, reduction)
  -> (loss, grad)``: the loss and its gradient with respect to input for a unit ``grad_output``.

The forward and the fused operator are differentiable with respect to ``input`` and ``target``
(weight and pos_weight are not, as in PyTorch): the gradient for input comes from the backward
operator (or, for the fused operator, from the gradient it saved, times the incoming gradient),
the gradient for target from the target-backward operator, each computed only when
``ctx.needs_input_grad`` asks for it. Results have target's dtype; the gradient for input is cast
to input's dtype where the two differ, as autograd requires.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import torch

from .. import _api

__all__ = [
    "SUPPORTED_DTYPES",
    "check_operands",
    "bce_with_logits",
    "bce_with_logits_backward",
    "bce_with_logits_target_backward",
    "bce_with_logits_fused",
]

#: The dtypes the library computes in (any mix of them across the operands).
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

_REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


def _reduction_name(reduction: int) -> str:
    name = _REDUCTION_NAMES.get(reduction)
    if name is None:
        raise ValueError(f"reduction {reduction} must be 0 (none), 1 (mean) or 2 (sum)")
    return name


def _broadcasts_to(shape: Sequence[int], to: Sequence[int]) -> bool:
    """Whether a tensor of ``shape`` broadcasts to ``to`` (the result has exactly shape ``to``)."""
    if len(shape) > len(to):
        return False
    for s, t in zip(reversed(tuple(shape)), reversed(tuple(to))):
        if s != 1 and s != t:
            return False
    return True


def check_operands(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor],
                   pos_weight: Optional[torch.Tensor], grad_output: Optional[torch.Tensor] = None,
                   where: str = "aclnn_bce") -> None:
    """The library's rules on dtypes and shapes, checked on metadata alone (the fake kernels use
    it, so that tracing refuses what the library would): ``TypeError`` for a dtype, ``ValueError``
    for a shape."""
    named = [("input", input), ("target", target), ("weight", weight), ("pos_weight", pos_weight),
             ("grad_output", grad_output)]
    for name, t in named:
        if t is not None and t.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"{where}: {name} dtype {t.dtype} is not supported; expected float16, "
                            "bfloat16, float32 or float64")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"{where}: target shape {list(target.shape)} must equal input shape "
                         f"{list(input.shape)}")
    for name, t in named[2:]:
        if t is not None and not _broadcasts_to(t.shape, input.shape):
            raise ValueError(f"{where}: {name} shape {list(t.shape)} must broadcast to input shape "
                             f"{list(input.shape)}")


# --------------------------------------------------------------------------------------------
# The operators


@torch.library.custom_op("aclnn_bce::binary_cross_entropy_with_logits", mutates_args=(), device_types="cpu")
def bce_with_logits(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor],
                    pos_weight: Optional[torch.Tensor], reduction: int) -> torch.Tensor:
    """The loss (``aclnnBinaryCrossEntropyWithLogits``): input's shape for reduction 0, else 0-dim;
    target's dtype."""
    return _api.binary_cross_entropy_with_logits(input, target, weight, pos_weight, _reduction_name(reduction))


@torch.library.custom_op("aclnn_bce::binary_cross_entropy_with_logits_backward", mutates_args=(),
                         device_types="cpu")
def bce_with_logits_backward(grad_output: torch.Tensor, input: torch.Tensor, target: torch.Tensor,
                             weight: Optional[torch.Tensor], pos_weight: Optional[torch.Tensor],
                             reduction: int) -> torch.Tensor:
    """The gradient with respect to input (``aclnnBinaryCrossEntropyWithLogitsBackward``): input's
    shape, target's dtype."""
    return _api.binary_cross_entropy_with_logits_backward(grad_output, input, target, weight, pos_weight,
                                                          _reduction_name(reduction))


@torch.library.custom_op("aclnn_bce::binary_cross_entropy_with_logits_target_backward", mutates_args=(),
                         device_types="cpu")
def bce_with_logits_target_backward(grad_output: torch.Tensor, input: torch.Tensor, target: torch.Tensor,
                                    weight: Optional[torch.Tensor], pos_weight: Optional[torch.Tensor],
                                    reduction: int) -> torch.Tensor:
    """The gradient with respect to target (``aclnnBinaryCrossEntropyWithLogitsTargetBackward``):
    input's shape, target's dtype."""
    return _api.binary_cross_entropy_with_logits_target_backward(grad_output, input, target, weight, pos_weight,
                                                                 _reduction_name(reduction))


@torch.library.custom_op("aclnn_bce::binary_cross_entropy_with_logits_fused", mutates_args=(), device_types="cpu")
def bce_with_logits_fused(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor],
                          pos_weight: Optional[torch.Tensor], reduction: int) -> Tuple[torch.Tensor, torch.Tensor]:
    """The loss and its gradient with respect to input for a unit grad_output, in one pass
    (``aclnnBinaryCrossEntropyWithLogitsFused``)."""
    return _api.binary_cross_entropy_with_logits_fused(input, target, weight, pos_weight, _reduction_name(reduction))


# --------------------------------------------------------------------------------------------
# Fake kernels: the results' metadata (fresh contiguous tensors, target's dtype)


@bce_with_logits.register_fake
def _fake_loss(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor],
               pos_weight: Optional[torch.Tensor], reduction: int) -> torch.Tensor:
    _reduction_name(reduction)
    check_operands(input, target, weight, pos_weight, where="aclnn_bce.binary_cross_entropy_with_logits")
    return input.new_empty(tuple(input.shape) if reduction == 0 else (), dtype=target.dtype)


def _fake_gradient(grad_output: torch.Tensor, input: torch.Tensor, target: torch.Tensor,
                   weight: Optional[torch.Tensor], pos_weight: Optional[torch.Tensor], reduction: int) -> torch.Tensor:
    _reduction_name(reduction)
    check_operands(input, target, weight, pos_weight, grad_output, where="aclnn_bce gradient")
    return input.new_empty(input.shape, dtype=target.dtype)


bce_with_logits_backward.register_fake(_fake_gradient)
bce_with_logits_target_backward.register_fake(_fake_gradient)


@bce_with_logits_fused.register_fake
def _fake_fused(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor],
                pos_weight: Optional[torch.Tensor], reduction: int) -> Tuple[torch.Tensor, torch.Tensor]:
    _reduction_name(reduction)
    check_operands(input, target, weight, pos_weight, where="aclnn_bce.binary_cross_entropy_with_logits_fused")
    loss = input.new_empty(tuple(input.shape) if reduction == 0 else (), dtype=target.dtype)
    return loss, input.new_empty(input.shape, dtype=target.dtype)


# --------------------------------------------------------------------------------------------
# Autograd


def _to_input_dtype(grad: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return grad if grad.dtype == dtype else grad.to(dtype)


def _setup_forward(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    input, target, weight, pos_weight, reduction = inputs
    ctx.reduction = reduction
    ctx.input_dtype = input.dtype
    ctx.save_for_backward(input, target, weight, pos_weight)


def _backward_forward(ctx: Any, grad: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
    input, target, weight, pos_weight = ctx.saved_tensors
    grad_input = grad_target = None
    if ctx.needs_input_grad[0]:
        grad_input = _to_input_dtype(
            bce_with_logits_backward(grad, input, target, weight, pos_weight, ctx.reduction), ctx.input_dtype)
    if ctx.needs_input_grad[1]:
        grad_target = bce_with_logits_target_backward(grad, input, target, weight, pos_weight, ctx.reduction)
    return grad_input, grad_target, None, None, None


bce_with_logits.register_autograd(_backward_forward, setup_context=_setup_forward)


def _setup_fused(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    input, target, weight, pos_weight, reduction = inputs
    _, grad = output
    ctx.reduction = reduction
    ctx.input_dtype = input.dtype
    ctx.mark_non_differentiable(grad)
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(grad, input, target, weight, pos_weight)


def _backward_fused(ctx: Any, grad: Optional[torch.Tensor],
                    _unused: Optional[torch.Tensor]) -> Tuple[Optional[torch.Tensor], ...]:
    saved_grad, input, target, weight, pos_weight = ctx.saved_tensors
    if grad is None:  # the loss took no part in what was differentiated
        return None, None, None, None, None
    grad_input = grad_target = None
    if ctx.needs_input_grad[0]:
        # d loss / d input for a unit grad_output, times the incoming gradient (0-dim for mean and
        # sum, any shape broadcasting to input's for none).
        grad_input = _to_input_dtype(saved_grad * grad, ctx.input_dtype)
    if ctx.needs_input_grad[1]:
        grad_target = bce_with_logits_target_backward(grad, input, target, weight, pos_weight, ctx.reduction)
    return grad_input, grad_target, None, None, None


bce_with_logits_fused.register_autograd(_backward_fused, setup_context=_setup_fused)
