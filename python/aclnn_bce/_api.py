"""The four operators on arrays: numpy arrays and CPU torch tensors, without copying.

Every function describes its arrays to the library as they are (shape, strides, dtype, data
pointer), runs the operator's two phases with the GIL released and waits for the result before it
returns, so the operands only have to live for the call. Results have the caller's array type:
the type of ``input`` (numpy in, numpy out; torch in, torch out).

What the library checks it reports with its own message (the parameter and the rule; the library
calls ``input`` "self", as CANN does): ``TypeError`` for a dtype rule, ``ValueError`` for any other.
What this layer checks itself (array types, devices, the reduction's name) raises the same
classes with a message of the same form.
"""

from __future__ import annotations

import inspect
import math
import sys
from typing import Any, Optional, Tuple, Union

import numpy as np

from . import _aclnn_bce as _ext

__all__ = [
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward",
    "binary_cross_entropy_with_logits_fused",
    "prepare",
    "PreparedCall",
    "REDUCTIONS",
]

#: The reductions by name, with the values the C API takes (0 none, 1 mean, 2 sum).
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}

_FORWARD, _BACKWARD, _TARGET_BACKWARD, _FUSED = 0, 1, 2, 3
# Bit positions of the extension's bf16_mask (the slots of aclnn_bce_module.cpp).
_SELF, _TARGET, _WEIGHT, _POS_WEIGHT, _GRAD_OUTPUT, _OUT, _GRAD_INPUT = range(7)

try:  # numpy's bfloat16 comes from ml_dtypes, an optional dependency
    import ml_dtypes as _ml_dtypes

    _NP_BF16: Optional[np.dtype] = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - exercised only without ml_dtypes
    _NP_BF16 = None

Array = Any  # numpy.ndarray or torch.Tensor
Scalar = Union[float, int]


# aclDataType values (include/acl/acl_base.h) of torch dtypes, made when first needed.
_TORCH_CODES: dict = {}


def _torch_codes(torch) -> dict:
    if not _TORCH_CODES:
        names = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6, "uint16": 7,
                 "uint32": 8, "int64": 9, "uint64": 10, "float64": 11, "bool": 12, "complex64": 16,
                 "complex128": 17, "bfloat16": 27}
        for name, code in names.items():
            if hasattr(torch, name):
                _TORCH_CODES[getattr(torch, name)] = code
        _ext.register_torch(torch.Tensor, _TORCH_CODES, torch.empty)  # for torch_call
    return _TORCH_CODES


def _torch_module():
    """torch if the process has imported it (a caller passing tensors has); never imports it."""
    return sys.modules.get("torch")


def _is_tensor(x: Any) -> bool:
    torch = _torch_module()
    return torch is not None and isinstance(x, torch.Tensor)


def _reduction_value(reduction: Union[str, int]) -> int:
    if isinstance(reduction, str):
        value = REDUCTIONS.get(reduction)
        if value is None:
            raise ValueError(f"reduction {reduction!r} must be one of 'none', 'mean', 'sum'")
        return value
    if isinstance(reduction, (int, np.integer)) and not isinstance(reduction, bool):
        # Passed to the library as it is: its own rule ([0, 2]) refuses anything else.
        return int(reduction)
    raise TypeError(f"reduction must be a str ('none', 'mean', 'sum') or an int, not {type(reduction).__name__}")


class _Call:
    """One call's operands: the array family (numpy or torch, from ``input``), the arrays as the
    extension takes them, and which of them are numpy bfloat16 passed as their uint16 view."""

    def __init__(self, input: Array):
        if _is_tensor(input):
            self.torch = _torch_module()
        elif isinstance(input, np.ndarray):
            self.torch = None
        else:
            raise TypeError(f"input must be a numpy.ndarray or a torch.Tensor, not {type(input).__name__}")
        self.bf16_mask = 0
        self.input_dtype = input.dtype
        self.copies: list = []  # (written, out): numpy outs with negative strides, written through a copy
        self.keep: list = []  # tensors made here, referenced until the call returns

    def describe(self, t: Any, name: str) -> tuple:
        """A torch tensor as the extension's run_raw takes it: (address, shape, strides, dtype)."""
        if not t.is_cpu:
            raise ValueError(f"{name} must be a CPU tensor, not on {t.device}")
        return (t.data_ptr(), t.shape, t.stride(), _torch_codes(self.torch).get(t.dtype, -2))

    def run(self, op: int, operands: list, reduction: int) -> None:
        if self.torch is not None:
            _ext.run_raw(op, *operands[:5], reduction, *operands[5:])
        else:
            _ext.run(op, *operands[:5], reduction, *operands[5:], self.bf16_mask)

    def finish(self) -> None:
        for written, given in self.copies:
            given[...] = written

    def operand(self, x: Any, name: str, slot: int) -> Any:
        """An input as the extension takes it (None stays None). Python and numpy scalars become
        0-dim arrays of input's dtype; numpy inputs with negative strides are copied (the library
        describes views with strides >= 0), every other array is passed as it is."""
        if x is None:
            return None
        if self.torch is not None:
            if isinstance(x, self.torch.Tensor):
                return self.describe(x, name)
            if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
                scalar = self.torch.tensor(float(x), dtype=self.input_dtype)
                self.keep.append(scalar)  # alive until the call returns
                return self.describe(scalar, name)
            raise TypeError(f"{name} must be a torch.Tensor like input, not {type(x).__name__}")
        if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
            x = np.asarray(x, dtype=self.input_dtype)
        if not isinstance(x, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray like input, not {type(x).__name__}")
        if any(s < 0 for s in x.strides):
            x = np.ascontiguousarray(x)
        return self._bf16_view(x, slot)

    def output(self, given: Any, name: str, slot: int, shape: Tuple[int, ...], dtype: Any) -> Tuple[Any, Any]:
        """(the array the extension writes, the array returned): a new array of input's family, or
        the caller's ``out``. A numpy ``out`` with negative strides is written through a copy."""
        if given is None:
            if self.torch is not None:
                new = _fresh_tensor(self.torch, shape, dtype)
                return self.describe(new, name), new
            new = _fresh_numpy(shape, dtype)
            return self._bf16_view(new, slot), new
        if self.torch is not None:
            if not isinstance(given, self.torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor like input, not {type(given).__name__}")
            return self.describe(given, name), given
        if not isinstance(given, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray like input, not {type(given).__name__}")
        if not given.flags.writeable:
            raise ValueError(f"{name} must be writable")
        if any(s < 0 for s in given.strides):
            temp = np.empty(given.shape, dtype=given.dtype)
            self.copies.append((temp, given))
            return self._bf16_view(temp, slot), given
        return self._bf16_view(given, slot), given

    def _bf16_view(self, x: np.ndarray, slot: int) -> np.ndarray:
        if _NP_BF16 is not None and x.dtype == _NP_BF16:
            self.bf16_mask |= 1 << slot
            return x.view(np.uint16)
        return x


#: Outputs this large (bytes) come from the library's cache of output blocks (Note [Output cache]
#: in aclnn_bce_module.cpp): a fresh 64 MiB output's page faults cost more than the operator.
_CACHED_OUTPUT_BYTES = _ext.CACHED_OUTPUT_MIN_BYTES
_NP_CODES = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(np.float64): 11}


def _fresh_numpy(shape: Tuple[int, ...], dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    code = _NP_CODES.get(dtype)
    if code is not None and dtype.itemsize * math.prod(shape) >= _CACHED_OUTPUT_BYTES:  # (np.prod: 2 us)
        return _ext.new_output(list(shape), code, False)
    return np.empty(shape, dtype=dtype)


def _fresh_tensor(torch: Any, shape: Any, dtype: Any) -> Any:
    code = (_TORCH_CODES or _torch_codes(torch)).get(dtype)
    if code in (0, 1, 11, 27) and math.prod(shape) * dtype.itemsize >= _CACHED_OUTPUT_BYTES:
        return _ext.new_output(list(shape), code, True)
    # size= as a keyword: torch's argument parser takes it in 0.6-0.7 us, a positional torch.Size
    # or tuple in 1.0-1.4 us (PyTorch 2.15, AMD Zen 5).
    return torch.empty(size=shape, dtype=dtype)


def _plain(x: Any) -> bool:
    """None, or a numpy array that nanobind imports as it is (not bfloat16)."""
    return x is None or (type(x) is np.ndarray and x.dtype is not _NP_BF16)


def _call(op: int, input: Array, target: Array, weight: Any, pos_weight: Any, grad_output: Any,
          reduction: Union[str, int], out: Any, grad_input: Any) -> Any:
    """One operator call: the fast path for plain numpy arrays (no per-operand work in Python),
    else the general one (torch tensors, bfloat16, scalars, negative strides, checks of form)."""
    red = REDUCTIONS.get(reduction) if type(reduction) is str else None
    if red is None:
        red = _reduction_value(reduction)
    # The loss of mean and sum is 0-dim; every other result has input's shape (None for what is
    # not an array: the general path refuses it before any output is made).
    out_shape = () if red != 0 and (op == _FORWARD or op == _FUSED) else getattr(input, "shape", None)
    if type(grad_output) is float and type(input) is np.ndarray and input.dtype is not _NP_BF16:
        grad_output = np.array(grad_output, dtype=input.dtype)  # as the general path does
    if (type(input) is np.ndarray and input.dtype is not _NP_BF16 and _plain(target) and target is not None
            and _plain(weight) and _plain(pos_weight) and _plain(grad_output)
            and (grad_output is not None or op == _FORWARD or op == _FUSED)
            and (out is None or (_plain(out) and out.flags.writeable))
            and (grad_input is None or (_plain(grad_input) and grad_input.flags.writeable))):
        if out is None:
            out = _fresh_numpy(out_shape, target.dtype)
        if op == _FUSED and grad_input is None:
            grad_input = _fresh_numpy(input.shape, target.dtype)
        try:
            _ext.run(op, input, target, weight, pos_weight, grad_output, red, out, grad_input, 0)
            return (out, grad_input) if op == _FUSED else out
        except _ext.NegativeStridesError:
            pass  # the general path copies such views
    torch = sys.modules.get("torch")
    if torch is not None and type(input) is torch.Tensor and not _TORCH_CODES:
        _torch_codes(torch)  # registers torch.Tensor, the dtypes and torch.empty with the extension
        result = _torch_call(op, input, target, weight, pos_weight, grad_output, red, out, grad_input)
        if result is not None:
            return result
    return _general(op, input, target, weight, pos_weight, grad_output, red, out, grad_input, out_shape)


#: The whole call for plain CPU torch tensors, outputs included, in the extension (Note [Torch
#: tensors read here] in aclnn_bce_module.cpp): None, with nothing run, for anything else (numpy,
#: numbers, subclasses, other devices, a reduction that is not a name or an int), which _call
#: then takes. Each public function tries it first: the Python work of a 1 Ki call is most of it.
_torch_call = _ext.torch_call


def _describe(op: int, input: Array, target: Array, weight: Any, pos_weight: Any, grad_output: Any, out: Any,
              grad_input: Any, out_shape: Any) -> Tuple[_Call, list, Any, Any]:
    """The general path's operands: (the call, the seven operands in slot order as the extension
    takes them, the result to return, the fused call's gradient to return or None)."""
    call = _Call(input)
    x = call.operand(input, "input", _SELF)
    y = call.operand(target, "target", _TARGET)
    if y is None:
        raise TypeError("target must be an array, not None")
    w = call.operand(weight, "weight", _WEIGHT)
    pw = call.operand(pos_weight, "pos_weight", _POS_WEIGHT)
    g = call.operand(grad_output, "grad_output", _GRAD_OUTPUT)
    if g is None and op in (_BACKWARD, _TARGET_BACKWARD):
        raise TypeError("grad_output must be an array or a number, not None")
    written, returned = call.output(out, "out", _OUT, tuple(out_shape), target.dtype)
    grad_written = grad = None
    if op == _FUSED:
        grad_written, grad = call.output(grad_input, "grad_input", _GRAD_INPUT, tuple(input.shape), target.dtype)
    return call, [x, y, w, pw, g, written, grad_written], returned, grad


def _general(op: int, input: Array, target: Array, weight: Any, pos_weight: Any, grad_output: Any, red: int,
             out: Any, grad_input: Any, out_shape: Any) -> Any:
    call, operands, returned, grad = _describe(op, input, target, weight, pos_weight, grad_output, out, grad_input,
                                               out_shape)
    call.run(op, operands, red)
    call.finish()
    return (returned, grad) if op == _FUSED else returned


def binary_cross_entropy_with_logits(
    input: Array,
    target: Array,
    weight: Optional[Array] = None,
    pos_weight: Optional[Array] = None,
    reduction: Union[str, int] = "mean",
    out: Optional[Array] = None,
) -> Array:
    """The loss, ``aclnnBinaryCrossEntropyWithLogits``: per element
    ``weight * (pos_weight * y * softplus(-x) + (1 - y) * softplus(x))``, then ``reduction``.

    input (logits) and target have one shape; weight and pos_weight broadcast to it (either may be
    a Python number). The result has target's dtype: input's shape for 'none', a 0-dim array for
    'mean' and 'sum' (deterministic: the same bits for any thread count; an empty input gives NaN
    for 'mean' and 0 for 'sum'). Any strides, 0-dim arrays and float16 / bfloat16 / float32 /
    float64 in any mix (computed in float32, or float64 when an operand is float64); ``out``
    receives the result in place and is returned.
    """
    result = _torch_call(_FORWARD, input, target, weight, pos_weight, None, reduction, out, None)
    if result is None:
        result = _call(_FORWARD, input, target, weight, pos_weight, None, reduction, out, None)
    return result


def binary_cross_entropy_with_logits_backward(
    grad_output: Union[Array, Scalar],
    input: Array,
    target: Array,
    weight: Optional[Array] = None,
    pos_weight: Optional[Array] = None,
    reduction: Union[str, int] = "mean",
    out: Optional[Array] = None,
) -> Array:
    """The gradient with respect to input, ``aclnnBinaryCrossEntropyWithLogitsBackward``:
    ``((1 - y) * sigmoid(x) - pos_weight * y * sigmoid(-x)) * grad_output * weight`` (``/ N`` for
    'mean'), without cancellation. grad_output, weight and pos_weight broadcast to input's shape
    for every reduction (CANN's rule; grad_output may be a Python number); the result has input's
    shape and target's dtype.
    """
    result = _torch_call(_BACKWARD, input, target, weight, pos_weight, grad_output, reduction, out, None)
    if result is None:
        result = _call(_BACKWARD, input, target, weight, pos_weight, grad_output, reduction, out, None)
    return result


def binary_cross_entropy_with_logits_target_backward(
    grad_output: Union[Array, Scalar],
    input: Array,
    target: Array,
    weight: Optional[Array] = None,
    pos_weight: Optional[Array] = None,
    reduction: Union[str, int] = "mean",
    out: Optional[Array] = None,
) -> Array:
    """The gradient with respect to target, ``aclnnBinaryCrossEntropyWithLogitsTargetBackward``
    (PyTorch's ``binary_cross_entropy_with_logits_target_backward``): with pos_weight
    ``(log_sigmoid(-x) - pos_weight * log_sigmoid(x)) * grad_output * weight``, without it
    ``-x * grad_output * weight`` (``/ N`` for 'mean'). target's values are not read (only its
    shape and dtype). The result has input's shape and target's dtype.
    """
    result = _torch_call(_TARGET_BACKWARD, input, target, weight, pos_weight, grad_output, reduction, out, None)
    if result is None:
        result = _call(_TARGET_BACKWARD, input, target, weight, pos_weight, grad_output, reduction, out, None)
    return result


def binary_cross_entropy_with_logits_fused(
    input: Array,
    target: Array,
    weight: Optional[Array] = None,
    pos_weight: Optional[Array] = None,
    reduction: Union[str, int] = "mean",
    grad_output: Optional[Union[Array, Scalar]] = None,
    out: Optional[Array] = None,
    grad_input: Optional[Array] = None,
) -> Tuple[Array, Array]:
    """The loss and its gradient with respect to input in one pass over the inputs,
    ``aclnnBinaryCrossEntropyWithLogitsFused`` (an extension of this library; CANN has no such
    call): returns ``(loss, grad)``, bitwise what the forward and the backward return for the
    one-element ``grad_output`` (None: 1), the training-loop case. ``out`` and ``grad_input``
    receive the results in place; they must not share memory.
    """
    result = _torch_call(_FUSED, input, target, weight, pos_weight, grad_output, reduction, out, grad_input)
    if result is None:
        result = _call(_FUSED, input, target, weight, pos_weight, grad_output, reduction, out, grad_input)
    return result


# ------------------------------------------------------------------------------------------------
# Prepared calls: the first phase once, the second phase at every call (a repeatable executor).

_OPS = {
    binary_cross_entropy_with_logits: _FORWARD,
    binary_cross_entropy_with_logits_backward: _BACKWARD,
    binary_cross_entropy_with_logits_target_backward: _TARGET_BACKWARD,
    binary_cross_entropy_with_logits_fused: _FUSED,
}


class PreparedCall:
    """A call of one of the four functions whose checks, plan and workspace were made once by
    :func:`prepare`. Calling it runs the operator again over the same arrays' *current contents*
    and returns the same output array(s) each time (written in place). ``close()`` (or leaving a
    ``with`` block) frees the executor; a closed call raises ``RuntimeError``.
    """

    __slots__ = ("_prepared", "_result", "_keep", "__weakref__")

    def __init__(self, prepared: Any, result: Any, keep: list):
        self._prepared = prepared
        self._result = result
        self._keep = keep  # every array the executor reads or writes, referenced while it may run

    def __call__(self) -> Any:
        self._prepared.run()
        return self._result

    def close(self) -> None:
        """Destroys the executor and frees its workspace (idempotent)."""
        self._prepared.close()
        self._keep = []

    @property
    def closed(self) -> bool:
        return self._prepared.closed

    def __enter__(self) -> "PreparedCall":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<aclnn_bce.PreparedCall{' (closed)' if self.closed else ''}>"


def prepare(function: Any, *args: Any, **kwargs: Any) -> PreparedCall:
    """Prepares ``function(*args, **kwargs)`` (one of the four operator functions of this module)
    for repeated calls: the library checks the arguments and plans the call once (the first
    phase, kept as a repeatable executor, ``aclSetAclOpExecutorRepeatable``), and each call of
    the returned :class:`PreparedCall` runs only the operator over the arrays' current contents,
    into the same output(s): ``out`` / ``grad_input`` when given, else arrays made here once.

    The arguments are those of ``function`` and are refused with the same errors. The prepared
    call keeps a reference to every array; the arrays must keep their memory: numpy arrays with
    negative strides are refused (the functions copy them, which a repeated call cannot), and a
    torch tensor moved to other memory in place (``resize_`` growing it, ``set_``, its storage
    resized: its ``data_ptr()`` changes) makes the next call raise ``RuntimeError`` without
    running. A view changed in place over the same memory (``as_strided_``) is not seen: the call
    keeps the view it was prepared with. One call at a time: calling it while it runs in
    another thread raises ``RuntimeError``.

        step = aclnn_bce.prepare(aclnn_bce.binary_cross_entropy_with_logits_backward,
                                 1.0, x, y, None, pw, "mean", out=grad)
        for batch in batches:
            x[...] = batch.logits; y[...] = batch.labels
            step()   # writes grad
    """
    op = _OPS.get(function)
    if op is None:
        raise TypeError("function must be one of aclnn_bce's four operator functions "
                        "(binary_cross_entropy_with_logits, ..._backward, ..._target_backward, ..._fused)")
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"prepare: {e}") from None
    bound.apply_defaults()
    a = bound.arguments
    red = _reduction_value(a["reduction"])
    names = ("input", "target", "weight", "pos_weight", "grad_output", "out", "grad_input")
    for name in names:
        x = a.get(name)
        if isinstance(x, np.ndarray) and any(s < 0 for s in x.strides):
            raise ValueError(f"{name}: negative strides are not supported by prepare() (pass a copy)")
    input = a["input"]
    out_shape = () if red != 0 and op in (_FORWARD, _FUSED) else getattr(input, "shape", None)
    call, operands, returned, grad = _describe(op, *(a.get(name) for name in names), out_shape)
    # Every array the executor reads or writes: the caller's, the 0-dim arrays made of numbers,
    # the outputs made here.
    arrays = [v for v in (a.get(name) for name in names[:5])
              if v is not None and not isinstance(v, (float, int, np.floating, np.integer))]
    arrays += [v for v in (returned, grad) if v is not None] + call.keep
    guards = [v for v in arrays if call.torch is not None and isinstance(v, call.torch.Tensor)]
    keep = arrays + [o for o in operands if isinstance(o, np.ndarray)]
    prepared = _ext.Prepared(op, operands, red, call.bf16_mask, guards)
    return PreparedCall(prepared, (returned, grad) if op == _FUSED else returned, keep)
