"""The operators as PyTorch custom operators (``torch.ops.aclnn_bce.*``), with fake kernels and autograd.

Six operators in the namespace ``aclnn_bce``, each a thin call of the ``aclnn_bce._api``
function of the same name on CPU tensors (``reduction`` is the int PyTorch uses: 0 none, 1 mean,
2 sum):

- ``binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction) -> loss``
- ``binary_cross_entropy_with_logits_backward(grad_output, input, target, weight, pos_weight,
  reduction) -> grad_input``
- ``binary_cross_entropy_with_logits_target_backward(...same...) -> grad_target``
- ``binary_cross_entropy_with_logits_fused(input, target, weight, pos_weight, reduction)
  -> (loss, grad)``: the loss and its gradient with respect to input for a unit ``grad_output``;
- ``binary_cross_entropy(input, target, weight, reduction) -> loss`` and
  ``binary_cross_entropy_backward(grad_output, input, target, weight, reduction) -> grad_input``:
  the loss of probabilities and its gradient (input's dtype), differentiable with respect to input
  and target, twice (Note [Probabilities: gradients]).

The forward and the fused operator are differentiable with respect to ``input`` and ``target``
(weight and pos_weight are not, as in PyTorch): the gradient for input comes from the backward
operator (or, for the fused operator, from the gradient it saved, times the incoming gradient),
the gradient for target from the target-backward operator, each computed only when
``ctx.needs_input_grad`` asks for it. The two gradient operators are differentiable in turn
(with respect to grad_output, input and target: Note [Double backward]), so double backward
works. Results have target's dtype; the gradient for input is cast to input's dtype where the
two differ, as autograd requires.
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
    "bce",
    "bce_backward",
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


def _refuse_weight_gradients(weight: Optional[torch.Tensor], pos_weight: Optional[torch.Tensor]) -> None:
    """PyTorch's refusal of a weight or pos_weight that requires grad under grad mode."""
    if torch.is_grad_enabled():
        for name, t in (("weight", weight), ("pos_weight", pos_weight)):
            if t is not None and t.requires_grad:
                raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable "
                                   f"with respect to argument '{name}'. This input cannot have requires_grad True.")


def _to_input_dtype(grad: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return grad if grad.dtype == dtype else grad.to(dtype)


def _setup_forward(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    input, target, weight, pos_weight, reduction = inputs
    _refuse_weight_gradients(weight, pos_weight)
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
    _refuse_weight_gradients(weight, pos_weight)
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
        if torch.is_grad_enabled():  # create_graph: a gradient with derivatives of its own (Note [Double backward])
            grad_input = _to_input_dtype(
                bce_with_logits_backward(grad, input, target, weight, pos_weight, ctx.reduction), ctx.input_dtype)
        else:
            # d loss / d input for a unit grad_output, times the incoming gradient (0-dim for mean
            # and sum, any shape broadcasting to input's for none): a new tensor.
            grad_input = _to_input_dtype(saved_grad * grad, ctx.input_dtype)
    if ctx.needs_input_grad[1]:
        grad_target = bce_with_logits_target_backward(grad, input, target, weight, pos_weight, ctx.reduction)
    return grad_input, grad_target, None, None, None


bce_with_logits_fused.register_autograd(_backward_fused, setup_context=_setup_fused)


# Note [Double backward]
# The gradient operators are differentiable too, so that a gradient taken with create_graph=True
# (a gradient penalty, torch.autograd.functional.hessian, gradgradcheck) has the exact
# derivatives of its own. Their values come from the library; their derivatives are written here
# in torch ops (so they are differentiable again). With s = 1/N for mean (N = input's numel) and
# 1 otherwise, p = sigmoid(x), w = weight (1 when absent), q = pos_weight (1 when absent) and
# c = 1 + (q - 1) * y, the two gradients are
#     gx = g * s * w * (p * c - q * y)                      (the backward operator)
#     gy = g * s * w * (q * softplus(-x) - softplus(x))     (the target-backward operator;
#        = g * s * w * (-x) without pos_weight)
# and their derivatives
#     d gx / dx = g * s * w * c * p * (1 - p)      d gx / dy = g * s * w * ((q - 1) * p - q)
#     d gy / dx = -g * s * w * (q * (1 - p) + p)   d gy / dy = 0 (target's values are not read)
#     d gx / dg = s * w * (p * c - q * y)          d gy / dg = s * w * (q * softplus(-x) - softplus(x))
# (the last two summed over the dims where g was broadcast). weight and pos_weight are not
# differentiable, as in PyTorch (a weight that requires grad under grad mode is refused).


def _setup_gradient(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    grad_output, input, target, weight, pos_weight, reduction = inputs
    _refuse_weight_gradients(weight, pos_weight)
    ctx.reduction = reduction
    ctx.save_for_backward(grad_output, input, target, weight, pos_weight)


def _scale(grad_output: torch.Tensor, input: torch.Tensor, weight: Optional[torch.Tensor],
           reduction: int) -> torch.Tensor:
    """g * s * w of Note [Double backward]."""
    scaled = grad_output / max(input.numel(), 1) if reduction == 1 else grad_output
    return scaled if weight is None else scaled * weight


def _to(grad: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """A gradient for ``like``: summed to its shape (where it was broadcast) and in its dtype."""
    return _to_input_dtype(grad if grad.shape == like.shape else grad.sum_to_size(like.shape), like.dtype)


def _backward_gradient(ctx: Any, gg: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
    """The derivatives of gx (Note [Double backward]) times the incoming gradient gg."""
    grad_output, input, target, weight, pos_weight = ctx.saved_tensors
    need_g, need_x, need_y = ctx.needs_input_grad[:3]
    p = torch.sigmoid(input)
    q = pos_weight
    c = 1 + (q - 1) * target if q is not None else torch.ones_like(target)
    d_g = d_x = d_y = None
    if need_x or need_y:
        gsw = gg * _scale(grad_output, input, weight, ctx.reduction)
        if need_x:  # p * (1 - p) as p * sigmoid(-x): no cancellation where p is near 1
            d_x = _to(gsw * c * p * torch.sigmoid(-input), input)
        if need_y:
            d_y = _to(gsw * ((q - 1) * p - q) if q is not None else -gsw, target)
    if need_g:
        qy = target if q is None else q * target
        d_g = _to(gg * _scale(torch.ones_like(grad_output), input, weight, ctx.reduction) * (p * c - qy), grad_output)
    return d_g, d_x, d_y, None, None, None


def _target_backward_gradient(ctx: Any, gg: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
    """The derivatives of gy (Note [Double backward]) times the incoming gradient gg."""
    grad_output, input, target, weight, pos_weight = ctx.saved_tensors
    need_g, need_x = ctx.needs_input_grad[:2]
    q = pos_weight
    d_g = d_x = None
    if need_x:
        gsw = gg * _scale(grad_output, input, weight, ctx.reduction)
        if q is None:
            d_x = _to(-gsw, input)
        else:
            d_x = _to(-gsw * (q * torch.sigmoid(-input) + torch.sigmoid(input)), input)
    if need_g:
        dldy = -input if q is None else q * torch.nn.functional.softplus(-input) - torch.nn.functional.softplus(input)
        d_g = _to(gg * _scale(torch.ones_like(grad_output), input, weight, ctx.reduction) * dldy, grad_output)
    return d_g, d_x, None, None, None, None


bce_with_logits_backward.register_autograd(_backward_gradient, setup_context=_setup_gradient)
bce_with_logits_target_backward.register_autograd(_target_backward_gradient, setup_context=_setup_gradient)


# --------------------------------------------------------------------------------------------
# The loss of probabilities (aclnnBinaryCrossEntropy) and its gradient


@torch.library.custom_op("aclnn_bce::binary_cross_entropy", mutates_args=(), device_types="cpu")
def bce(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor], reduction: int) -> torch.Tensor:
    """The loss of probabilities (``aclnnBinaryCrossEntropy``): input's shape for reduction 0,
    else 0-dim; input's dtype. RuntimeError for an input or target outside [0, 1], as PyTorch."""
    return _api.binary_cross_entropy(input, target, weight, _reduction_name(reduction))


@torch.library.custom_op("aclnn_bce::binary_cross_entropy_backward", mutates_args=(), device_types="cpu")
def bce_backward(grad_output: torch.Tensor, input: torch.Tensor, target: torch.Tensor,
                 weight: Optional[torch.Tensor], reduction: int) -> torch.Tensor:
    """The gradient of the loss of probabilities with respect to input
    (``aclnnBinaryCrossEntropyBackward``): input's shape and dtype."""
    return _api.binary_cross_entropy_backward(grad_output, input, target, weight, _reduction_name(reduction))


@bce.register_fake
def _fake_bce(input: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor],
              reduction: int) -> torch.Tensor:
    _reduction_name(reduction)
    check_operands(input, target, weight, None, where="aclnn_bce.binary_cross_entropy")
    return input.new_empty(tuple(input.shape) if reduction == 0 else ())


@bce_backward.register_fake
def _fake_bce_backward(grad_output: torch.Tensor, input: torch.Tensor, target: torch.Tensor,
                       weight: Optional[torch.Tensor], reduction: int) -> torch.Tensor:
    _reduction_name(reduction)
    check_operands(input, target, weight, None, grad_output, where="aclnn_bce.binary_cross_entropy_backward")
    return input.new_empty(input.shape)


# Note [Probabilities: gradients]
# With s = 1/N for mean and 1 otherwise, w = weight (1 when absent), g the incoming gradient and
# d = max(x * (1 - x), eps) (eps = 1e-12, PyTorch's EPSILON), the loss's gradients are
#     gx = g * s * w * (x - y) / d             (the backward operator, aclnnBinaryCrossEntropyBackward)
#     gy = -g * s * w * logit(x)               (torch ops: the library has no target gradient; this
#                                               is PyTorch's binary_cross_entropy_target_backward)
# and, for double backward, the derivatives of gx (PyTorch's binary_cross_entropy_double_backward
# and its _target / _grad_output siblings, FunctionsManual.cpp, with their eps placement):
#     d gx / dx = g * s * w * (x^2 - 2xy + y) / ((x + eps)^2 * (1 - x + eps)^2)
#     d gx / dy = -g * s * w / d
#     d gx / dg = s * w * (x - y) / d          (the backward operator again, with gg for g)
# gy is made of torch ops, so autograd differentiates it itself. weight is not differentiable
# (PyTorch refuses a weight that requires grad under grad mode).

_EPSILON = 1e-12  # PyTorch's floor of x * (1 - x) in the gradient (Loss.cpp, EPSILON)


def refuse_bce_weight_gradient(weight: Optional[torch.Tensor]) -> None:
    """PyTorch's refusal of a weight that requires grad under grad mode."""
    if torch.is_grad_enabled() and weight is not None and weight.requires_grad:
        raise RuntimeError("The function 'binary_cross_entropy' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")


def bce_target_gradient(grad: torch.Tensor, input: torch.Tensor, weight: Optional[torch.Tensor],
                        reduction: int) -> torch.Tensor:
    """gy of Note [Probabilities: gradients], in torch ops (differentiable again), computed in
    float32 at least (float16 and bfloat16 inputs: one rounding to the caller's dtype, by _to, not
    one per op)."""
    compute = torch.promote_types(input.dtype, torch.float32)
    x = input.to(compute)
    return _scale(grad.to(compute), x, None if weight is None else weight.to(compute), reduction) * torch.logit(x).neg()


def _setup_bce(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    input, target, weight, reduction = inputs
    refuse_bce_weight_gradient(weight)
    ctx.reduction = reduction
    ctx.save_for_backward(input, target, weight)


def _backward_bce(ctx: Any, grad: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
    input, target, weight = ctx.saved_tensors
    grad_input = grad_target = None
    if ctx.needs_input_grad[0]:
        grad_input = bce_backward(grad, input, target, weight, ctx.reduction)
    if ctx.needs_input_grad[1]:
        grad_target = _to(bce_target_gradient(grad, input, weight, ctx.reduction), target)
    return grad_input, grad_target, None, None


bce.register_autograd(_backward_bce, setup_context=_setup_bce)


def _setup_bce_backward(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    grad_output, input, target, weight, reduction = inputs
    refuse_bce_weight_gradient(weight)
    ctx.reduction = reduction
    ctx.save_for_backward(grad_output, input, target, weight)


def _backward_bce_backward(ctx: Any, gg: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
    """The derivatives of gx (Note [Probabilities: gradients]) times the incoming gradient gg."""
    grad_output, input, target, weight = ctx.saved_tensors
    need_g, need_x, need_y = ctx.needs_input_grad[:3]
    d_g = d_x = d_y = None
    if need_x or need_y:
        gsw = gg * _scale(grad_output, input, weight, ctx.reduction)
        if need_x:
            numerator = input * input - 2 * input * target + target
            d_x = _to(gsw * numerator / ((input + _EPSILON) ** 2 * (1 - input + _EPSILON) ** 2), input)
        if need_y:
            d_y = _to(-gsw / ((1 - input) * input).clamp_min(_EPSILON), target)
    if need_g:
        # s * w * (x - y) / d times gg: the backward operator with gg as its incoming gradient.
        d_g = _to(bce_backward(gg, input, target, weight, ctx.reduction), grad_output)
    return d_g, d_x, d_y, None, None


bce_backward.register_autograd(_backward_bce_backward, setup_context=_setup_bce_backward)
