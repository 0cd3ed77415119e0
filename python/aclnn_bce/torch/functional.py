"""``binary_cross_entropy_with_logits`` and ``binary_cross_entropy`` with PyTorch's signatures,
computed by this library.

Drop-ins for ``torch.nn.functional.binary_cross_entropy_with_logits`` and
``binary_cross_entropy`` on CPU tensors of float16, bfloat16, float32 and float64: the same
arguments (legacy ``size_average`` / ``reduce`` included), the same result (with logits: target's
dtype; on probabilities: input's; input's shape for 'none', 0-dim for 'mean' and 'sum') and
autograd to ``input`` and ``target``. What it cannot compute it refuses with a clear error rather
than passing it on (``aclnn_bce.torch.enable()`` is the routing that passes it on to PyTorch).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import torch
from torch import Tensor
from torch.nn import _reduction as _Reduction
from torch.overrides import handle_torch_function, has_torch_function_variadic

from .. import _api
from . import _ops

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits"]


def _reduction_enum(size_average: Optional[bool], reduce: Optional[bool], reduction: str) -> int:
    """PyTorch's reading of the reduction arguments (the legacy pair overrides ``reduction``)."""
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


#: The largest input (in elements) whose forward uses the fused operator when only input needs a
#: gradient (a knob the tests use to force either path). Measured (AMD Zen 5, 2 threads, a training
#: step loss + backward, mean, pos_weight [C]): the fused path is faster at every size, fp32 64 Ki
#: 57 -> 46 us, 1 Mi 363 -> 278 us, 16 Mi 5.5 -> 4.2 ms, bf16 1.24-1.29x alike, because
#: loss.backward() passes a 0-dim 1 and the backward then hands the saved gradient over without
#: a pass over it. The cost is memory: the gradient (input's size) exists from the forward on
#: instead of from the backward on.
FUSED_MAX_NUMEL = 1 << 62


def _use_fused(input: Tensor, target: Tensor) -> bool:
    """Whether the forward runs the fused operator: when the backward will want only input's
    gradient, the fused operator computes it with the loss and saves it, and the backward only
    scales it by the incoming gradient (see ``FUSED_MAX_NUMEL``)."""
    return (torch.is_grad_enabled() and input.requires_grad and not target.requires_grad
            and input.numel() <= FUSED_MAX_NUMEL)


class _EagerLoss(torch.autograd.Function):
    """The eager path: the same computation as the custom operators (the same library calls, so
    the same bits), through a plain autograd.Function. A custom operator's dispatch costs about
    6 us a call in PyTorch 2.15 and a training step makes two of them, which is most of the step
    on small inputs; ``torch.compile`` and other tracing still see the custom operators (see
    ``binary_cross_entropy_with_logits``). A backward with ``create_graph=True`` goes through the
    gradient operators, whose own derivatives are exact (Note [Double backward] in _ops.py)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, target: Tensor, weight: Optional[Tensor], pos_weight: Optional[Tensor],
                reduction: int, fused: bool) -> Tensor:
        ctx.reduction, ctx.input_dtype = reduction, input.dtype
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx.gradient = None
        if fused:
            loss, ctx.gradient = _api.binary_cross_entropy_with_logits_fused(input, target, weight, pos_weight,
                                                                            reduction)
            return loss
        return _api.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], ...]:
        grad_input = grad_target = None
        if torch.is_grad_enabled():  # create_graph=True: gradients that autograd can differentiate again
            input, target, weight, pos_weight = ctx.saved_tensors
            if ctx.needs_input_grad[0]:
                grad_input = _ops.bce_with_logits_backward(grad, input, target, weight, pos_weight, ctx.reduction)
            if ctx.needs_input_grad[1]:
                grad_target = _ops.bce_with_logits_target_backward(grad, input, target, weight, pos_weight,
                                                                   ctx.reduction)
        elif ctx.gradient is not None:  # fused: only input needs a gradient, the one saved times grad
            # loss.backward() passes a 0-dim 1: the saved gradient is then the answer, in the same
            # bits (x * 1 == x), without a pass over it. It is handed over once (ctx lets go of it),
            # so every gradient returned is a tensor of its own: a second backward of a retained
            # graph computes it again.
            if grad.dim() == 0 and grad.item() == 1.0:
                grad_input, ctx.gradient = ctx.gradient, None
            else:
                grad_input = ctx.gradient * grad
        else:
            input, target, weight, pos_weight = ctx.saved_tensors
            if ctx.needs_input_grad[0]:
                grad_input = _api.binary_cross_entropy_with_logits_backward(grad, input, target, weight, pos_weight,
                                                                            ctx.reduction)
            if ctx.needs_input_grad[1]:
                grad_target = _api.binary_cross_entropy_with_logits_target_backward(grad, input, target, weight,
                                                                                    pos_weight, ctx.reduction)
        if grad_input is not None and grad_input.dtype != ctx.input_dtype:
            grad_input = grad_input.to(ctx.input_dtype)
        return grad_input, grad_target, None, None, None, None


def _plain_eager(*tensors: Optional[Tensor]) -> bool:
    """Whether the call may take the eager path: no tracing, and plain tensors (not subclasses such
    as the fake tensors of tracing, which the custom operators' fake kernels serve)."""
    if torch.compiler.is_compiling():
        return False
    return all(t is None or type(t) is Tensor for t in tensors)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    reduction: str = "mean",
    pos_weight: Optional[Tensor] = None,
) -> Tensor:
    """Binary cross entropy between the logits ``input`` and the labels ``target``, like
    ``torch.nn.functional.binary_cross_entropy_with_logits`` (same arguments and results).

    Per element ``weight * (pos_weight * y * softplus(-x) + (1 - y) * softplus(x))``, then
    ``reduction`` ('none', 'mean' or 'sum'; ``size_average`` / ``reduce`` are PyTorch's deprecated
    pair and override it). weight and pos_weight broadcast to input's shape. The result has
    target's dtype. Differentiable with respect to input and target; weight and pos_weight must
    not require grad while grad mode is on (PyTorch refuses them too).

    Raises ``ValueError`` when target's size differs from input's (PyTorch's message), when weight
    or pos_weight do not broadcast to input's shape, for an unknown reduction or a tensor not on
    the CPU; ``TypeError`` for a dtype other than float16 / bfloat16 / float32 / float64 or an
    operand that is not a tensor; ``RuntimeError`` when weight or pos_weight requires grad.
    """
    if has_torch_function_variadic(input, target, weight, pos_weight):
        return handle_torch_function(
            binary_cross_entropy_with_logits,
            (input, target, weight, pos_weight),
            input,
            target,
            weight=weight,
            size_average=size_average,
            reduce=reduce,
            reduction=reduction,
            pos_weight=pos_weight,
        )
    if torch._C._are_functorch_transforms_active():
        raise RuntimeError("aclnn_bce.torch.functional.binary_cross_entropy_with_logits does not run under torch.func "
                           "transforms (vmap, grad, jacrev, ...): its operands there have no memory of their own; use "
                           "torch.nn.functional.binary_cross_entropy_with_logits (after aclnn_bce.torch.enable() it "
                           "leaves such calls to PyTorch)")
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    for name, t in (("input", input), ("target", target), ("weight", weight), ("pos_weight", pos_weight)):
        if t is None and name in ("weight", "pos_weight"):
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"binary_cross_entropy_with_logits: {name} must be a torch.Tensor, not "
                            f"{type(t).__name__}")
        if t.device.type != "cpu":
            raise ValueError(f"binary_cross_entropy_with_logits: {name} must be a CPU tensor, not on "
                             f"{t.device} (use torch.nn.functional.binary_cross_entropy_with_logits)")
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    _ops.check_operands(input, target, weight, pos_weight, where="binary_cross_entropy_with_logits")
    if torch.is_grad_enabled():
        for name, t in (("weight", weight), ("pos_weight", pos_weight)):
            if t is not None and t.requires_grad:
                raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable "
                                   f"with respect to argument '{name}'. This input cannot have requires_grad True.")
    fused = _use_fused(input, target)
    if _plain_eager(input, target, weight, pos_weight):
        if torch.is_grad_enabled() and (input.requires_grad or target.requires_grad):
            return _EagerLoss.apply(input, target, weight, pos_weight, reduction_enum, fused)
        return _api.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)
    if fused:
        loss, _ = _ops.bce_with_logits_fused(input, target, weight, pos_weight, reduction_enum)
        return loss
    return _ops.bce_with_logits(input, target, weight, pos_weight, reduction_enum)


class _EagerProbabilityLoss(torch.autograd.Function):
    """The eager path of ``binary_cross_entropy``, as ``_EagerLoss`` is for the loss with logits:
    the library's forward and backward through a plain autograd.Function (the custom operators'
    dispatch costs more than a small call); a backward with ``create_graph=True`` goes through
    the custom operators, whose derivatives are exact (Note [Probabilities: gradients] in
    _ops.py)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int) -> Tensor:
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight)
        return _api.binary_cross_entropy(input, target, weight, reduction)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tuple[Optional[Tensor], ...]:
        input, target, weight = ctx.saved_tensors
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            if torch.is_grad_enabled():  # create_graph=True: a gradient autograd can differentiate again
                grad_input = _ops.bce_backward(grad, input, target, weight, ctx.reduction)
            else:
                grad_input = _api.binary_cross_entropy_backward(grad, input, target, weight, ctx.reduction)
        if ctx.needs_input_grad[1]:
            grad_target = _ops._to(_ops.bce_target_gradient(grad, input, weight, ctx.reduction), target)
        return grad_input, grad_target, None, None


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross entropy between the probabilities ``input`` and the labels ``target``, like
    ``torch.nn.functional.binary_cross_entropy`` (same arguments and results).

    Per element ``-weight * (y * max(log(x), -100) + (1 - y) * max(log(1 - x), -100))``, then
    ``reduction`` ('none', 'mean' or 'sum'; ``size_average`` / ``reduce`` are PyTorch's deprecated
    pair and override it). weight broadcasts to input's shape. The result has input's dtype.
    Differentiable with respect to input (through ``aclnnBinaryCrossEntropyBackward``) and target
    (PyTorch's formula in torch ops), twice; weight must not require grad while grad mode is on.

    Raises ``ValueError`` when target's size differs from input's (PyTorch's message), when weight
    does not broadcast to input's shape, for an unknown reduction or a tensor not on the CPU;
    ``TypeError`` for a dtype other than float16 / bfloat16 / float32 / float64 or an operand that
    is not a tensor; ``RuntimeError`` for an input or target outside [0, 1] (PyTorch's messages)
    and when weight requires grad.
    """
    if has_torch_function_variadic(input, target, weight):
        return handle_torch_function(binary_cross_entropy, (input, target, weight), input, target, weight=weight,
                                     size_average=size_average, reduce=reduce, reduction=reduction)
    if torch._C._are_functorch_transforms_active():
        raise RuntimeError("aclnn_bce.torch.functional.binary_cross_entropy does not run under torch.func transforms "
                           "(vmap, grad, jacrev, ...): its operands there have no memory of their own; use "
                           "torch.nn.functional.binary_cross_entropy (after aclnn_bce.torch.enable() it leaves such "
                           "calls to PyTorch)")
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    for name, t in (("input", input), ("target", target), ("weight", weight)):
        if t is None and name == "weight":
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"binary_cross_entropy: {name} must be a torch.Tensor, not {type(t).__name__}")
        if t.device.type != "cpu":
            raise ValueError(f"binary_cross_entropy: {name} must be a CPU tensor, not on {t.device} "
                             "(use torch.nn.functional.binary_cross_entropy)")
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    _ops.check_operands(input, target, weight, None, where="binary_cross_entropy")
    _ops.refuse_bce_weight_gradient(weight)
    if _plain_eager(input, target, weight):
        if torch.is_grad_enabled() and (input.requires_grad or target.requires_grad):
            return _EagerProbabilityLoss.apply(input, target, weight, reduction_enum)
        return _api.binary_cross_entropy(input, target, weight, reduction_enum)
    return _ops.bce(input, target, weight, reduction_enum)
