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

# Note [Routing and other wrappers]
# enable() puts _routed_binary_cross_entropy_with_logits in torch.nn.functional and keeps the
# function it replaced (_original), to which the routed function passes every call this library
# does not take. Another library may wrap the routed function in turn; disable() then cannot take
# it out of torch.nn.functional without dropping that wrapper, so it leaves it there and turns
# routing off (_enabled): the routed function then passes every call on, to the function it
# replaced, and the chain works as if it were not there; a later enable() turns routing back on
# in place. _original is never unset (a routed function still in a chain needs it), and a call
# that comes back into the routed function while it passes a call on (a chain that loops through
# it twice) goes to the function the first enable() replaced, so no chain recurses.

_lock = threading.Lock()
_original: Optional[Callable[..., Tensor]] = None
_first_original: Optional[Callable[..., Tensor]] = None  # what the first enable() replaced
_enabled = False
_in_a_chain = False  # disable() left the routed function inside another library's wrapper
_passing = threading.local()  # .on: this thread is passing a call on (Note [Routing and other wrappers])


def _ours_can_take(input: Any, target: Any, weight: Any, pos_weight: Any) -> bool:
    """Whether this library computes the call: plain CPU tensors of the four float dtypes, target
    of input's size, weight and pos_weight broadcasting to it and not requiring grad under grad
    mode, no torch.func transform (vmap, grad, ...) active. Anything else (CUDA or meta tensors,
    other dtypes, tensor subclasses with ``__torch_function__``, the tensors of torch.func
    transforms, shapes PyTorch refuses) stays with PyTorch, errors included."""
    if has_torch_function_variadic(input, target, weight, pos_weight) or torch._C._are_functorch_transforms_active():
        return False  # a subclass's own handling, or torch.func's wrapped tensors (no memory of their own)
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
    enabled: this library's forward and backward where it can take the call, the function that
    enable() replaced for everything else (Note [Routing and other wrappers])."""
    if _enabled and _ours_can_take(input, target, weight, pos_weight):
        # The functional reads the reduction arguments with PyTorch's own code (its ValueError for
        # a reduction it refuses, the legacy pair's warning).
        return _F.binary_cross_entropy_with_logits(input, target, weight, size_average, reduce, reduction, pos_weight)
    if getattr(_passing, "on", False):  # back here from the chain it passed the call to: no loop
        return _first_original(input, target, weight, size_average, reduce, reduction, pos_weight)
    _passing.on = True
    try:
        return _original(input, target, weight, size_average, reduce, reduction, pos_weight)
    finally:
        _passing.on = False


def enable() -> None:
    """Make ``torch.nn.functional.binary_cross_entropy_with_logits`` (and so
    ``torch.nn.BCEWithLogitsLoss``, which calls it) run this library's forward and backward on
    CPU tensors of float16 / bfloat16 / float32 / float64; other calls go to the function it
    replaces (PyTorch's). Idempotent. Code that imported the function itself before the call
    keeps PyTorch's."""
    global _original, _first_original, _enabled, _in_a_chain
    with _lock:
        current = _torch_F.binary_cross_entropy_with_logits
        if current is not _routed_binary_cross_entropy_with_logits and not _in_a_chain:
            _original = current
            if _first_original is None:
                _first_original = current
            _torch_F.binary_cross_entropy_with_logits = _routed_binary_cross_entropy_with_logits
        _enabled = True


def disable() -> None:
    """Put PyTorch's original function object back (a no-op when not enabled). Where another
    library has wrapped the routed function since enable(), its wrapper stays and the routed
    function inside it passes every call on (Note [Routing and other wrappers])."""
    global _enabled, _in_a_chain
    with _lock:
        if _torch_F.binary_cross_entropy_with_logits is _routed_binary_cross_entropy_with_logits:
            _torch_F.binary_cross_entropy_with_logits = _original
            _in_a_chain = False
        elif _enabled:
            _in_a_chain = True
        _enabled = False


def is_enabled() -> bool:
    """Whether ``torch.nn.functional.binary_cross_entropy_with_logits`` is routed here now."""
    return _enabled
