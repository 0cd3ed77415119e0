"""``enable()`` / ``disable()``: route PyTorch's own loss through this library."""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

import torch
import torch.nn.functional as _torch_F
from torch import Tensor
from torch.overrides import has_torch_function_variadic

from . import _ops
from . import functional as _F

__all__ = ["enable", "disable", "is_enabled"]

_lock = threading.Lock()
_original: Optional[Callable[..., Tensor]] = None


def _ours_can_take(input: Any, target: Any, weight: Any, pos_weight: Any) -> bool:
    """Whether this library computes the call: plain CPU tensors of the four float dtypes, target
    of input's size, weight and pos_weight broadcasting to it and not requiring grad under grad
    mode. Anything else (CUDA or meta tensors, other dtypes, tensor subclasses with
    ``__torch_function__``, shapes PyTorch refuses) stays with PyTorch, errors included."""
    if has_torch_function_variadic(input, target, weight, pos_weight):
        return False
    grad_mode = torch.is_grad_enabled()
    for i, t in enumerate((input, target, weight, pos_weight)):
        if t is None and i >= 2:
            continue
        if not isinstance(t, Tensor) or t.device.type != "cpu" or t.dtype not in _ops.SUPPORTED_DTYPES:
            return False
        if i >= 2:
            if not _ops._broadcasts_to(t.shape, input.shape) or (grad_mode and t.requires_grad):
                return False
    return target.size() == input.size()


def _routed_binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    reduction: str = "mean",
    pos_weight: Optional[Tensor] = None,
) -> Tensor:
    """``torch.nn.functional.binary_cross_entropy_with_logits`` while ``aclnn_bce.torch`` is
    enabled: this library's forward and backward where it can take the call, PyTorch's original
    function for everything else."""
    original = _original
    if original is None:  # disabled between the lookup and the call
        original = _torch_F.binary_cross_entropy_with_logits
    if _ours_can_take(input, target, weight, pos_weight):
        # The functional reads the reduction arguments with PyTorch's own code (its ValueError for
        # a reduction it refuses, the legacy pair's warning).
        return _F.binary_cross_entropy_with_logits(input, target, weight, size_average, reduce, reduction, pos_weight)
    return original(input, target, weight, size_average, reduce, reduction, pos_weight)


def enable() -> None:
    """Make ``torch.nn.functional.binary_cross_entropy_with_logits`` (and so
    ``torch.nn.BCEWithLogitsLoss``, which calls it) run this library's forward and backward on
    CPU tensors of float16 / bfloat16 / float32 / float64; other calls go to PyTorch's original.
    Idempotent. Code that imported the function itself before the call keeps PyTorch's."""
    global _original
    with _lock:
        current = _torch_F.binary_cross_entropy_with_logits
        if current is _routed_binary_cross_entropy_with_logits:
            return
        _original = current
        _torch_F.binary_cross_entropy_with_logits = _routed_binary_cross_entropy_with_logits


def disable() -> None:
    """Put PyTorch's original function object back (a no-op when not enabled)."""
    global _original
    with _lock:
        if _torch_F.binary_cross_entropy_with_logits is _routed_binary_cross_entropy_with_logits:
            assert _original is not None
            _torch_F.binary_cross_entropy_with_logits = _original
        _original = None


def is_enabled() -> bool:
    """Whether ``torch.nn.functional.binary_cross_entropy_with_logits`` is routed here now."""
    return _torch_F.binary_cross_entropy_with_logits is _routed_binary_cross_entropy_with_logits
