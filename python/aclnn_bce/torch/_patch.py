"""``enable()`` / ``disable()``: route PyTorch's own losses through this library."""

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
# enable() puts a routed function in torch.nn.functional for each loss (binary_cross_entropy_with_logits,
# binary_cross_entropy: one _Route each) and keeps the function it replaced (original), to which
# the routed function passes every call this library does not take. Another library may wrap the
# routed function in turn; disable() then cannot take it out of torch.nn.functional without
# dropping that wrapper, so it leaves it there and turns routing off (enabled): the routed
# function then passes every call on, to the function it replaced, and the chain works as if it
# were not there; a later enable() turns routing back on in place. original is never unset (a
# routed function still in a chain needs it), and a call that comes back into the routed function
# while it passes a call on (a chain that loops through it twice) goes to the function the first
# enable() replaced, so no chain recurses.

_lock = threading.Lock()


def _plain_cpu_operands(required: tuple, optional: tuple) -> bool:
    """Whether this library computes a call on these operands: plain CPU tensors of the four
    float dtypes (the optional ones, where given, broadcasting to the first and not requiring grad
    under grad mode), no torch.func transform (vmap, grad, ...) active. Anything else (CUDA or
    meta tensors, other dtypes, tensor subclasses with ``__torch_function__``, the tensors of
    torch.func transforms, shapes PyTorch refuses) stays with PyTorch, errors included."""
    if has_torch_function_variadic(*required, *optional) or torch._C._are_functorch_transforms_active():
        return False  # a subclass's own handling, or torch.func's wrapped tensors (no memory of their own)
    grad_mode = torch.is_grad_enabled()
    input = required[0]
    for t in required + tuple(o for o in optional if o is not None):
        if not isinstance(t, Tensor) or t.device.type != "cpu" or t.dtype not in _ops.SUPPORTED_DTYPES:
            return False
    for t in optional:
        if t is not None and (not _ops._broadcasts_to(t.shape, input.shape) or (grad_mode and t.requires_grad)):
            return False
    return all(t.size() == input.size() for t in required[1:])


class _Route:
    """One loss of torch.nn.functional routed here: its name there, the routed function and the
    state of Note [Routing and other wrappers]."""

    def __init__(self, name: str):
        self.name = name
        self.routed: Optional[Callable[..., Tensor]] = None  # set by _route
        self.original: Optional[Callable[..., Tensor]] = None
        self.first_original: Optional[Callable[..., Tensor]] = None  # what the first enable() replaced
        self.enabled = False
        self.in_a_chain = False  # disable() left the routed function inside another library's wrapper
        self.passing = threading.local()  # .on: this thread is passing a call on

    def pass_on(self, *args: Any) -> Tensor:
        """The call to the function that enable() replaced (Note [Routing and other wrappers])."""
        if getattr(self.passing, "on", False):  # back here from the chain it passed the call to: no loop
            return self.first_original(*args)
        self.passing.on = True
        try:
            return self.original(*args)
        finally:
            self.passing.on = False

    def enable(self) -> None:
        current = getattr(_torch_F, self.name)
        if current is not self.routed and not self.in_a_chain:
            self.original = current
            if self.first_original is None:
                self.first_original = current
            setattr(_torch_F, self.name, self.routed)
        self.enabled = True

    def disable(self) -> None:
        if getattr(_torch_F, self.name) is self.routed:
            setattr(_torch_F, self.name, self.original)
            self.in_a_chain = False
        elif self.enabled:
            self.in_a_chain = True
        self.enabled = False


_WITH_LOGITS = _Route("binary_cross_entropy_with_logits")
_PROBABILITIES = _Route("binary_cross_entropy")
_ROUTES = (_WITH_LOGITS, _PROBABILITIES)


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
    if _WITH_LOGITS.enabled and _plain_cpu_operands((input, target), (weight, pos_weight)):
        # The functional reads the reduction arguments with PyTorch's own code (its ValueError for
        # a reduction it refuses, the legacy pair's warning).
        return _F.binary_cross_entropy_with_logits(input, target, weight, size_average, reduce, reduction, pos_weight)
    return _WITH_LOGITS.pass_on(input, target, weight, size_average, reduce, reduction, pos_weight)


def _routed_binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    reduction: str = "mean",
) -> Tensor:
    """``torch.nn.functional.binary_cross_entropy`` while ``aclnn_bce.torch`` is enabled: this
    library's forward and backward where it can take the call (its range errors are PyTorch's),
    the function that enable() replaced for everything else."""
    if _PROBABILITIES.enabled and _plain_cpu_operands((input, target), (weight,)):
        return _F.binary_cross_entropy(input, target, weight, size_average, reduce, reduction)
    return _PROBABILITIES.pass_on(input, target, weight, size_average, reduce, reduction)


_WITH_LOGITS.routed = _routed_binary_cross_entropy_with_logits
_PROBABILITIES.routed = _routed_binary_cross_entropy


def enable() -> None:
    """Make ``torch.nn.functional.binary_cross_entropy_with_logits`` and
    ``torch.nn.functional.binary_cross_entropy`` (and so ``torch.nn.BCEWithLogitsLoss`` and
    ``torch.nn.BCELoss``, which call them) run this library's forward and backward on CPU tensors
    of float16 / bfloat16 / float32 / float64; other calls go to the functions it replaces
    (PyTorch's). Idempotent. Code that imported a function itself before the call keeps
    PyTorch's."""
    with _lock:
        for route in _ROUTES:
            route.enable()


def disable() -> None:
    """Put PyTorch's original function objects back (a no-op when not enabled). Where another
    library has wrapped a routed function since enable(), its wrapper stays and the routed
    function inside it passes every call on (Note [Routing and other wrappers])."""
    with _lock:
        for route in _ROUTES:
            route.disable()


def is_enabled() -> bool:
    """Whether the two losses of ``torch.nn.functional`` are routed here now."""
    return _WITH_LOGITS.enabled
