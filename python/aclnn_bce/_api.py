"""The operators on arrays: numpy arrays and CPU torch tensors, without copying.

Every function describes its arrays to the library as they are (shape, strides, dtype, data
pointer), runs the operator's two phases with the GIL released and waits for the result before it
returns, so the operands only have to live for the call. Results have the caller's array type:
the type of ``input`` (numpy in, numpy out; torch in, torch out).

What the library checks it reports with its own message (the parameter and the rule; the library
calls ``input`` "self", as CANN does): ``TypeError`` for a dtype rule, ``ValueError`` for any other.
What this layer checks itself (array types, dtypes the library has no name for, devices, tensors
without memory of their own, the reduction's name) raises the same classes with a message of the
same form. Two kinds of array are read and written through copies, with the aliasing rule kept
(Note [Copies in the general path]): numpy views with negative strides and lazy torch tensors.
Every torch tensor written has its version counter bumped as by an in-place operation; an out=
that requires grad under grad mode is refused as PyTorch refuses it. The functions record no
autograd (``aclnn_bce.torch`` is the differentiable interface). binary_cross_entropy (on
probabilities) also raises PyTorch's ``RuntimeError`` for an input or target outside [0, 1]
(Note [Probabilities are checked here]).
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
    "binary_cross_entropy",
    "binary_cross_entropy_backward",
    "prepare",
    "PreparedCall",
    "REDUCTIONS",
]

#: The reductions by name, with the values the C API takes (0 none, 1 mean, 2 sum).
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}

# The operators, by the library's API list (Note [One op list]; the extension's enum Op).
_FORWARD, _BACKWARD = _ext.Op.forward, _ext.Op.backward
_TARGET_BACKWARD, _FUSED = _ext.Op.target_backward, _ext.Op.fused
_BCE, _BCE_BACKWARD = _ext.Op.bce, _ext.Op.bce_backward
#: Each operator's operands by role (input, target, weight, ...): {op: {role: kind}}, the kinds of
#: the API list (input, optional_input, output, reduced_output, int64).
_OPERANDS = {op: {role: kind for _, role, kind in _ext.api(op)[1]} for op in _ext.Op}
#: The operators whose out is one element for mean and sum (the loss), those that need a
#: grad_output and those that also write grad_input.
_REDUCED_OUT = frozenset(op for op, roles in _OPERANDS.items() if roles.get("out") == "reduced_output")
_NEEDS_GRAD_OUTPUT = frozenset(op for op, roles in _OPERANDS.items() if roles.get("grad_output") == "input")
_WRITES_GRAD_INPUT = frozenset(op for op, roles in _OPERANDS.items() if "grad_input" in roles)
#: The operators whose outputs have input's dtype (the API list's "dtype of" self); the others'
#: have target's.
_OUT_LIKE_INPUT = frozenset(op for op in _ext.Op if _ext.operand_facts(op)["out"]["dtype_of"] == "input")
# The bits of the extension's bf16_mask, by role (the list's order of roles).
_BF16_BIT = {role: 1 << i for i, role in enumerate(_ext.ROLES)}
_DTYPE = _ext.DType

try:  # numpy's bfloat16 comes from ml_dtypes, an optional dependency
    import ml_dtypes as _ml_dtypes

    _NP_BF16: Optional[np.dtype] = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - exercised only without ml_dtypes
    _NP_BF16 = None

Array = Any  # numpy.ndarray or torch.Tensor
Scalar = Union[float, int]


# The library's dtypes (the extension's DType: aclDataType by CANN's names) of torch dtypes, by
# their names in each, made when first needed.
_TORCH_CODES: dict = {}
_TORCH_DTYPE_NAMES = {"float32": "FLOAT", "float16": "FLOAT16", "int8": "INT8", "int32": "INT32", "uint8": "UINT8",
                      "int16": "INT16", "uint16": "UINT16", "uint32": "UINT32", "int64": "INT64", "uint64": "UINT64",
                      "float64": "DOUBLE", "bool": "BOOL", "complex64": "COMPLEX64", "complex128": "COMPLEX128",
                      "bfloat16": "BF16"}


def _torch_codes(torch) -> dict:
    if not _TORCH_CODES:
        for name, library_name in _TORCH_DTYPE_NAMES.items():
            if hasattr(torch, name):
                _TORCH_CODES[getattr(torch, name)] = _DTYPE[library_name]
        # For torch_call and prepared calls (Note [Written tensors are versioned] in
        # aclnn_bce_module.cpp: the function behind torch.autograd.graph.increment_version).
        _ext.register_torch(torch.Tensor, _TORCH_CODES, torch.empty, torch._C._increment_version,
                            torch.is_grad_enabled)
    return _TORCH_CODES


#: The numpy dtypes the library computes in; integer, unsigned, bool and complex arrays go to the
#: library, whose dtype rule refuses them with its message; any other dtype is refused here.
_NP_LIBRARY_KINDS = frozenset("iubc")
_DTYPE_RULE = "use float32, float16, bfloat16 or float64"


def _numpy_dtype_check(x: np.ndarray, name: str) -> None:
    """TypeError naming ``name`` for a numpy dtype that nanobind cannot hand to the library:
    object, strings, bytes, void and structured dtypes, datetimes, float128, non-native byte
    order."""
    dt = x.dtype
    if (_NP_BF16 is not None and dt == _NP_BF16) or (dt.isnative and (dt.kind in _NP_LIBRARY_KINDS or dt.kind == "f" and dt.itemsize <= 8)):
        return
    what = str(dt) if dt.isnative else f"{dt.str} (not the machine's byte order)"
    raise TypeError(f"{name}: dtype {what} is not supported; {_DTYPE_RULE}")


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


# Note [Copies in the general path]
# Two kinds of array are read through a copy, and written through a temporary copied back once
# the call has run: a numpy view with negative strides (the library describes strides >= 0) and a
# torch tensor whose memory is not its values (the negative or conjugate bit, a ZeroTensor: Note
# [Lazy tensors] in aclnn_bce_module.cpp). The library then sees the copies, so the aliasing rule
# it applies to the arrays it sees (an output is the very same view as an input, an in-place
# call, or shares no byte with it; the fused call's two outputs share none; no output overlaps
# itself) is applied here to the caller's arrays, before anything runs (_Call.check_aliasing;
# exact for numpy.shares_memory's question, conservative for an output overlapping itself). A
# prepared call takes no copies: it refuses such arrays, since a repeated run could not see later
# writes to the caller's array through a copy made once.


class _Call:
    """One call's operands: the array family (numpy or torch, from ``input``), the arrays as the
    extension takes them, which of them are numpy bfloat16 passed as their uint16 view, and the
    copies made of the caller's arrays (Note [Copies in the general path])."""

    def __init__(self, input: Array, prepared: bool = False):
        if _is_tensor(input):
            self.torch = _torch_module()
        elif isinstance(input, np.ndarray):
            self.torch = None
        else:
            raise TypeError(f"input must be a numpy.ndarray or a torch.Tensor, not {type(input).__name__}")
        self.prepared = prepared
        self.bf16_mask = 0
        self.input_dtype = input.dtype
        self.copies: list = []  # (written, given): outputs written through a temporary
        self.keep: list = []  # arrays made here, referenced until the call returns
        self.given: list = []  # (name, the caller's array, is an output): for check_aliasing
        self.copied = False  # an operand is a copy or a temporary
        self.written: list = []  # the caller's torch tensors the library writes itself (versioned)

    def describe(self, t: Any, name: str) -> tuple:
        """A torch tensor as the extension's run_raw takes it: (address, shape, strides, dtype)."""
        if t.data_ptr() == 0 and t.numel() != 0:
            raise TypeError(f"{name}: the tensor has no memory of its own to read or write")
        return (t.data_ptr(), t.shape, t.stride(), _torch_codes(self.torch)[t.dtype])

    def run(self, op: Any, operands: dict, reduction: int) -> None:
        if self.torch is not None:
            _ext.run_raw(op, reduction, **operands)
        else:
            _ext.run(op, reduction, self.bf16_mask, **operands)

    def finish(self) -> None:
        """Copies the temporaries into the caller's outputs; versions the torch tensors written
        (Note [Written tensors are versioned] in aclnn_bce_module.cpp; copy_ versions its own)."""
        for written, given in self.copies:
            if self.torch is not None:
                given.copy_(written)
            else:
                given[...] = written
        if self.written:
            self.torch._C._increment_version(self.written)

    def operand(self, x: Any, name: str) -> Any:
        """An input as the extension takes it (None stays None). Python and numpy scalars become
        0-dim arrays of input's dtype; numpy inputs with negative strides and lazy torch tensors
        are copied (Note [Copies in the general path]), every other array is passed as it is."""
        if x is None:
            return None
        if self.torch is not None:
            if isinstance(x, self.torch.Tensor):
                self.given.append((name, x, False))
                return self.describe(self._resolved(x, name), name)
            if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
                scalar = self.torch.tensor(float(x), dtype=self.input_dtype)
                self.keep.append(scalar)  # alive until the call returns
                return self.describe(scalar, name)
            raise TypeError(f"{name} must be a torch.Tensor like input, not {type(x).__name__}")
        if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
            x = np.asarray(x, dtype=self.input_dtype)
        if not isinstance(x, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray like input, not {type(x).__name__}")
        _numpy_dtype_check(x, name)
        self.given.append((name, x, False))
        if any(s < 0 for s in x.strides):
            self._copy_allowed(name, "a view with negative strides")
            x = np.ascontiguousarray(x)
        return self._bf16_view(x, name)

    def output(self, given: Any, name: str, shape: Tuple[int, ...], dtype: Any) -> Tuple[Any, Any]:
        """(the array the extension writes, the array returned): a new array of input's family, or
        the caller's ``out``. A numpy ``out`` with negative strides or a lazy torch ``out`` is
        written through a temporary (Note [Copies in the general path])."""
        if given is None:
            if self.torch is not None:
                new = _fresh_tensor(self.torch, shape, dtype)
                return self.describe(new, name), new
            new = _fresh_numpy(shape, dtype)
            return self._bf16_view(new, name), new
        if self.torch is not None:
            if not isinstance(given, self.torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor like input, not {type(given).__name__}")
            self._check_tensor(given, name)
            self.given.append((name, given, True))
            if given._is_zerotensor():  # PyTorch's refusal of an in-place write
                raise RuntimeError("ZeroTensors are immutable. Please use the materialized zero tensor obtained using "
                                   ".clone() if you want a mutable tensor.")
            if given.is_neg() or given.is_conj():
                self._copy_allowed(name, "a tensor with the negative or conjugate bit")
                temp = self.torch.empty(size=given.shape, dtype=given.dtype)
                self.copies.append((temp, given))
                return self.describe(temp, name), given
            self.written.append(given)
            return self.describe(given, name), given
        if not isinstance(given, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray like input, not {type(given).__name__}")
        _numpy_dtype_check(given, name)
        if not given.flags.writeable:
            raise ValueError(f"{name} must be writable")
        self.given.append((name, given, True))
        if any(s < 0 for s in given.strides):
            self._copy_allowed(name, "a view with negative strides")
            temp = np.empty(given.shape, dtype=given.dtype)
            self.copies.append((temp, given))
            return self._bf16_view(temp, name), given
        return self._bf16_view(given, name), given

    def check_aliasing(self) -> None:
        """The library's aliasing rule on the caller's arrays where copies stand in for some of
        them (Note [Copies in the general path]): ValueError naming the arrays."""
        if not self.copied:
            return
        views = [(name, _memory_view(a), is_out) for name, a, is_out in self.given]
        for i, (name, a, is_out) in enumerate(views):
            if not is_out:
                continue
            if _overlaps_itself(a):
                raise ValueError(f"{name}: its elements may share memory (an output's elements must not)")
            for other, b, other_out in views[:i] + views[i + 1:]:
                if a.size == 0 or b.size == 0 or not np.shares_memory(a, b):
                    continue
                if other_out:
                    raise ValueError(f"{name} and {other} share memory: the outputs of one call must not overlap")
                if not _same_view(a, b):
                    raise ValueError(f"{name} shares memory with {other} other than as the very same view "
                                     "(an output is either the same view as an input, an in-place call, or shares "
                                     "no byte with it)")

    def _copy_allowed(self, name: str, what: str) -> None:
        if self.prepared:
            raise ValueError(f"{name}: {what} is not supported by prepare() (pass a copy: a prepared call reads and "
                             "writes the arrays' own memory at every run)")
        self.copied = True

    def _check_tensor(self, t: Any, name: str) -> None:
        """Refuses (TypeError, ValueError) a torch tensor the library cannot read or write as an
        address and strides, naming it."""
        torch = self.torch
        if t.is_nested:
            raise TypeError(f"{name}: nested tensors are not supported")
        if t.layout is not torch.strided:
            raise TypeError(f"{name}: {t.layout} tensors are not supported (dense, strided ones only: use .to_dense())")
        if t._python_dispatch:
            raise TypeError(f"{name}: a {type(t).__name__} (a tensor subclass with __torch_dispatch__) has no memory "
                            "of its own that holds its values; pass a plain tensor")
        if not t.is_cpu:
            raise ValueError(f"{name} must be a CPU tensor, not on {t.device}")
        if torch._C._functorch.is_functorch_wrapped_tensor(t) or torch._is_functional_tensor(t):
            raise TypeError(f"{name}: a tensor of a torch.func transform (vmap, grad, ...) or of functionalization "
                            "has no memory of its own; call aclnn_bce outside the transform")
        if t.dtype not in _torch_codes(torch):
            raise TypeError(f"{name}: dtype {t.dtype} is not supported; {_DTYPE_RULE}")

    def _resolved(self, t: Any, name: str) -> Any:
        """An input tensor whose memory holds its values: t itself, or a copy of a lazy tensor."""
        self._check_tensor(t, name)
        if t._is_zerotensor():
            self._copy_allowed(name, "a ZeroTensor")
            t = self.torch.zeros(size=t.shape, dtype=t.dtype)
        elif t.is_neg() or t.is_conj():
            self._copy_allowed(name, "a tensor with the negative or conjugate bit")
            t = t.resolve_conj().resolve_neg()
        else:
            return t
        self.keep.append(t)  # alive until the call returns
        return t

    def _bf16_view(self, x: np.ndarray, role: str) -> np.ndarray:
        if _NP_BF16 is not None and x.dtype == _NP_BF16:
            self.bf16_mask |= _BF16_BIT[role]
            return x.view(np.uint16)
        return x


class _Memory:
    """An object numpy views through ``__array_interface__``: the bytes of a torch tensor."""

    def __init__(self, address: int, shape: tuple, strides: tuple, itemsize: int):
        self.__array_interface__ = {"data": (address, False), "shape": shape, "strides": strides,
                                    "typestr": f"|V{itemsize}", "version": 3}


def _memory_view(a: Any) -> np.ndarray:
    """A numpy array over the memory of a numpy array or a torch tensor, for overlap tests."""
    if isinstance(a, np.ndarray):
        return a
    size = a.element_size()
    if a.data_ptr() == 0:  # a ZeroTensor: no memory
        return np.empty(0, f"V{size}")
    return np.asarray(_Memory(a.data_ptr(), tuple(a.shape), tuple(s * size for s in a.stride()), size))


def _same_view(a: np.ndarray, b: np.ndarray) -> bool:
    """The library's "very same view": the same address of the first element, element size, and
    sizes and strides over the dims of size > 1."""
    def dims(x):
        return [(n, s) for n, s in zip(x.shape, x.strides) if n > 1]

    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.itemsize == b.itemsize
            and dims(a) == dims(b))


def _overlaps_itself(a: np.ndarray) -> bool:
    """Whether elements of ``a`` may share memory: false where the dims, ordered by the size of
    their strides, each step past all the elements of the smaller ones (a sufficient test)."""
    span = a.itemsize
    for n, s in sorted(((n, abs(s)) for n, s in zip(a.shape, a.strides) if n > 1), key=lambda d: d[1]):
        if s < span:
            return a.size != 0
        span = s * (n - 1) + span
    return False


#: Outputs this large (bytes) come from the library's cache of output blocks (Note [Output cache]
#: in aclnn_bce_module.cpp): a fresh 64 MiB output's page faults cost more than the operator.
_CACHED_OUTPUT_BYTES = _ext.CACHED_OUTPUT_MIN_BYTES
_NP_CODES = {np.dtype(np.float32): _DTYPE.FLOAT, np.dtype(np.float16): _DTYPE.FLOAT16,
             np.dtype(np.float64): _DTYPE.DOUBLE}
#: The dtypes the library computes in, which new_output makes.
_FLOAT_DTYPES = frozenset((_DTYPE.FLOAT, _DTYPE.FLOAT16, _DTYPE.DOUBLE, _DTYPE.BF16))


def _fresh_numpy(shape: Tuple[int, ...], dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    code = _NP_CODES.get(dtype)
    if code is not None and dtype.itemsize * math.prod(shape) >= _CACHED_OUTPUT_BYTES:  # (np.prod: 2 us)
        return _ext.new_output(list(shape), code, False)
    return np.empty(shape, dtype=dtype)


def _fresh_tensor(torch: Any, shape: Any, dtype: Any) -> Any:
    code = (_TORCH_CODES or _torch_codes(torch)).get(dtype)
    if code in _FLOAT_DTYPES and math.prod(shape) * dtype.itemsize >= _CACHED_OUTPUT_BYTES:
        return _ext.new_output(list(shape), code, True)
    # size= as a keyword: torch's argument parser takes it in 0.6-0.7 us, a positional torch.Size
    # or tuple in 1.0-1.4 us (PyTorch 2.15, AMD Zen 5).
    return torch.empty(size=shape, dtype=dtype)


def _plain(x: Any) -> bool:
    """None, or a numpy array that nanobind imports as it is (not bfloat16)."""
    return x is None or (type(x) is np.ndarray and x.dtype is not _NP_BF16)


def _call(op: Any, input: Array, target: Array, weight: Any, pos_weight: Any, grad_output: Any,
          reduction: Union[str, int], out: Any, grad_input: Any) -> Any:
    """One operator call: the fast path for plain numpy arrays (no per-operand work in Python),
    else the general one (torch tensors, bfloat16, scalars, negative strides, checks of form)."""
    red = REDUCTIONS.get(reduction) if type(reduction) is str else None
    if red is None:
        red = _reduction_value(reduction)
    if type(grad_output) is float and type(input) is np.ndarray and input.dtype is not _NP_BF16:
        grad_output = np.array(grad_output, dtype=input.dtype)  # as the general path does
    if (type(input) is np.ndarray and input.dtype is not _NP_BF16 and _plain(target) and target is not None
            and _plain(weight) and _plain(pos_weight) and _plain(grad_output)
            and (grad_output is not None or op not in _NEEDS_GRAD_OUTPUT)
            and (out is None or (_plain(out) and out.flags.writeable))
            and (grad_input is None or (_plain(grad_input) and grad_input.flags.writeable))):
        dtype = input.dtype if op in _OUT_LIKE_INPUT else target.dtype
        if out is None:  # (_out_shape inlined: the fast path's cost is per call)
            result = _fresh_numpy(() if red != 0 and op in _REDUCED_OUT else input.shape, dtype)
        else:
            result = out
        grad = _fresh_numpy(input.shape, dtype) if op in _WRITES_GRAD_INPUT and grad_input is None else grad_input
        try:
            _ext.run(op, red, 0, input=input, target=target, weight=weight, pos_weight=pos_weight,
                     grad_output=grad_output, out=result, grad_input=grad)
            return (result, grad) if op in _WRITES_GRAD_INPUT else result
        except (_ext.NegativeStridesError, TypeError):
            # The general path copies such views, and names the operand whose dtype nanobind
            # cannot import (object, strings, ...), where nanobind's TypeError would list run()'s
            # signature; a refusal of the library raises again there.
            pass
    torch = sys.modules.get("torch")
    if torch is not None and type(input) is torch.Tensor and not _TORCH_CODES:
        _torch_codes(torch)  # registers torch.Tensor, the dtypes and torch.empty with the extension
        result = _torch_call(op, red, input=input, target=target, weight=weight, pos_weight=pos_weight,
                             grad_output=grad_output, out=out, grad_input=grad_input)
        if result is not None:
            return result
    return _general(op, input, target, weight, pos_weight, grad_output, red, out, grad_input)


def _out_shape(op: Any, red: int, input: Array) -> Tuple[int, ...]:
    """The shape of the result: 0-dim for the loss of mean and sum, else input's."""
    return () if red != 0 and op in _REDUCED_OUT else tuple(input.shape)


#: The whole call for plain CPU torch tensors, outputs included, in the extension (Note [Torch
#: tensors read here] in aclnn_bce_module.cpp): None, with nothing run, for anything else (numpy,
#: numbers, subclasses, other devices, a reduction that is not a name or an int), which _call
#: then takes. Each public function tries it first: the Python work of a 1 Ki call is most of it.
_torch_call = _ext.torch_call


_OP_NAMES = {_FORWARD: "binary_cross_entropy_with_logits", _BACKWARD: "binary_cross_entropy_with_logits_backward",
             _TARGET_BACKWARD: "binary_cross_entropy_with_logits_target_backward",
             _FUSED: "binary_cross_entropy_with_logits_fused", _BCE: "binary_cross_entropy",
             _BCE_BACKWARD: "binary_cross_entropy_backward"}


def _describe(op: Any, input: Array, target: Array, weight: Any, pos_weight: Any, grad_output: Any, out: Any,
              grad_input: Any, red: int, prepared: bool = False) -> Tuple[_Call, dict, Any, Any]:
    """The general path's operands: (the call, the operands by role (input=, target=, ...) as the extension
    takes them, the result to return, the fused call's gradient to return or None). Refuses what
    the library cannot be given (the checks of this layer, the aliasing rule where copies stand
    in, autograd's rule for out=) before anything is written."""
    call = _Call(input, prepared)
    x = call.operand(input, "input")
    y = call.operand(target, "target")
    if y is None:
        raise TypeError("target must be an array, not None")
    w = call.operand(weight, "weight")
    pw = call.operand(pos_weight, "pos_weight")
    g = call.operand(grad_output, "grad_output")
    if g is None and op in _NEEDS_GRAD_OUTPUT:
        raise TypeError("grad_output must be an array or a number, not None")
    out_dtype = input.dtype if op in _OUT_LIKE_INPUT else target.dtype
    written, returned = call.output(out, "out", _out_shape(op, red, input), out_dtype)
    grad_written = grad = None
    if op in _WRITES_GRAD_INPUT:
        grad_written, grad = call.output(grad_input, "grad_input", tuple(input.shape), out_dtype)
    torch = call.torch
    if torch is not None and torch.is_grad_enabled():
        # PyTorch refuses an out= that requires grad under grad mode (its message): autograd cannot
        # follow the write. (The functions record no autograd whatever their inputs require:
        # aclnn_bce.torch is the differentiable interface.)
        if any(is_out and t.requires_grad for _, t, is_out in call.given):
            raise RuntimeError(f"{_OP_NAMES[op]}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
    call.check_aliasing()
    operands = {"input": x, "target": y, "weight": w, "pos_weight": pw, "grad_output": g, "out": written,
                "grad_input": grad_written}
    return call, operands, returned, grad


def _general(op: Any, input: Array, target: Array, weight: Any, pos_weight: Any, grad_output: Any, red: int,
             out: Any, grad_input: Any) -> Any:
    call, operands, returned, grad = _describe(op, input, target, weight, pos_weight, grad_output, out, grad_input,
                                               red)
    call.run(op, operands, red)
    call.finish()
    return (returned, grad) if op in _WRITES_GRAD_INPUT else returned


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
    result = _torch_call(_FORWARD, reduction, input=input, target=target, weight=weight, pos_weight=pos_weight,
                         out=out)
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
    result = _torch_call(_BACKWARD, reduction, input=input, target=target, weight=weight, pos_weight=pos_weight,
                         grad_output=grad_output, out=out)
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
    result = _torch_call(_TARGET_BACKWARD, reduction, input=input, target=target, weight=weight,
                         pos_weight=pos_weight, grad_output=grad_output, out=out)
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
    result = _torch_call(_FUSED, reduction, input=input, target=target, weight=weight, pos_weight=pos_weight,
                         grad_output=grad_output, out=out, grad_input=grad_input)
    if result is None:
        result = _call(_FUSED, input, target, weight, pos_weight, grad_output, reduction, out, grad_input)
    return result


# Note [Probabilities are checked here]
# PyTorch's CPU kernel of binary_cross_entropy raises RuntimeError "all elements of input should be
# between 0 and 1" (and "... of target ...") for a value outside [0, 1] or NaN; the library
# computes on without a check, as the NPU does: an input outside [0, 1] gives NaN for its element
# and for mean and sum, a target outside it is computed by the formula. binary_cross_entropy raises
# as PyTorch does, after the checks of form (dtypes, shapes, devices: the library's and this
# layer's refusals come first, as PyTorch's ValueError for a target size does) and at this cost:
# - target: one pass over it before the call (torch.aminmax: one read of target; numpy: min and
#   max, two reads), since nothing in the library's result tells of a target outside [0, 1];
# - input, reduction 'none' or a given out=: one pass over it before the call as for target (the
#   result cannot tell: an in-place out= overwrites input);
# - input, 'mean' and 'sum' into a new result: no pass while the loss is not NaN (an input outside
#   [0, 1] makes it NaN); a NaN loss is followed by one pass over input to tell that from a NaN
#   weight (or the NaN mean of an empty input). That pass reads the caller's input after the call: nothing aliases it,
#   since the result is new.
# Where target is out of range the input is checked first all the same, so the message is
# PyTorch's for an input and a target both out of range. Only arrays the library reads as they
# are (numpy arrays and CPU strided torch tensors of the four float dtypes, target of input's
# shape) are checked: anything else is refused by the call itself. A prepared call
# (prepare(binary_cross_entropy, ...)) checks nothing at its runs: it gives the library's NaN.
# The backward checks nothing (PyTorch's does not either).

_FLOAT_TORCH_DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64")


def _checkable(x: Any) -> bool:
    """Whether x is an array whose values the range check can read as they are (Note
    [Probabilities are checked here]): a numpy array of a float dtype, a dense CPU torch tensor of
    one with memory of its own."""
    if isinstance(x, np.ndarray):
        return (x.dtype.kind == "f" and x.dtype.isnative and x.dtype.itemsize <= 8) or x.dtype == _NP_BF16
    torch = _torch_module()
    if torch is None or not isinstance(x, torch.Tensor):
        return False
    return (str(x.dtype)[6:] in _FLOAT_TORCH_DTYPE_NAMES and x.device.type == "cpu" and x.layout is torch.strided
            and not x.is_nested and not x._python_dispatch and not torch._C._functorch.is_functorch_wrapped_tensor(x)
            and not torch._is_functional_tensor(x))


def _in_unit_interval(x: Any) -> bool:
    """False for an array with an element outside [0, 1] or NaN; True for one without, and for
    anything the range check does not read (_checkable)."""
    if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
        return 0 <= x <= 1
    if not _checkable(x) or math.prod(x.shape) == 0:
        return True
    if isinstance(x, np.ndarray):
        low, high = x.min(), x.max()  # NaN propagates: both comparisons then fail
    else:
        low, high = (v.item() for v in x.detach().aminmax())
    return bool(low >= 0 and high <= 1)


def _same_shape(input: Any, target: Any) -> bool:
    shape = getattr(target, "shape", ())
    return tuple(getattr(input, "shape", ())) == tuple(shape)


def _check_probabilities(input: Any, target: Any, check_input: bool) -> None:
    """PyTorch's RuntimeError for an input (when ``check_input``) or a target outside [0, 1]
    (Note [Probabilities are checked here])."""
    if not _checkable(input) or not _same_shape(input, target):
        return  # the call refuses the shapes (as PyTorch does) or the input first
    if not isinstance(target, (float, int, np.floating, np.integer)) and \
            isinstance(target, np.ndarray) != isinstance(input, np.ndarray):
        return  # numpy with torch: the call refuses the mix first
    target_ok = _in_unit_interval(target)
    if (check_input or not target_ok) and not _in_unit_interval(input):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not target_ok:
        raise RuntimeError("all elements of target should be between 0 and 1")


def binary_cross_entropy(
    input: Array,
    target: Array,
    weight: Optional[Array] = None,
    reduction: Union[str, int] = "mean",
    out: Optional[Array] = None,
) -> Array:
    """The loss of probabilities, ``aclnnBinaryCrossEntropy`` (PyTorch's ``binary_cross_entropy``):
    per element ``-weight * (y * max(log(x), -100) + (1 - y) * max(log(1 - x), -100))``, then
    ``reduction``.

    input (probabilities) and target have one shape; weight broadcasts to it (a Python number
    too). The result has input's dtype: input's shape for 'none', a 0-dim array for 'mean' and
    'sum' (deterministic: the same bits for any thread count; an empty input gives NaN for 'mean'
    and 0 for 'sum'). x = 0 or 1 gives a finite loss (the log terms are clamped at -100, as in
    PyTorch). Raises ``RuntimeError("all elements of input should be between 0 and 1")`` (and the
    same for target) as PyTorch's CPU kernel does, at the cost Note [Probabilities are checked
    here] gives; a 'mean' / 'sum' ``out`` then holds NaN. Any strides, 0-dim arrays and float16 /
    bfloat16 / float32 / float64 in any mix (computed in float32, or float64 when an operand is
    float64); ``out`` receives the result in place and is returned.
    """
    red = REDUCTIONS.get(reduction) if type(reduction) is str else None
    if red is None:
        red = _reduction_value(reduction)  # its refusal of a name comes before the range check
    new_loss = out is None and red in (1, 2)
    _check_probabilities(input, target, check_input=not new_loss)
    result = _torch_call(_BCE, reduction, input=input, target=target, weight=weight, out=out)
    if result is None:
        result = _call(_BCE, input, target, weight, None, None, reduction, out, None)
    if new_loss and math.isnan(float(result)) and not _in_unit_interval(input):
        raise RuntimeError("all elements of input should be between 0 and 1")
    return result


def binary_cross_entropy_backward(
    grad_output: Union[Array, Scalar],
    input: Array,
    target: Array,
    weight: Optional[Array] = None,
    reduction: Union[str, int] = "mean",
    out: Optional[Array] = None,
) -> Array:
    """The gradient of :func:`binary_cross_entropy` with respect to input,
    ``aclnnBinaryCrossEntropyBackward`` (PyTorch's ``binary_cross_entropy_backward``):
    ``grad_output * (x - y) / max((1 - x) * x, 1e-12) * weight`` (``/ N`` for 'mean'): x = 0 or 1
    gives a large finite gradient. grad_output, target and weight broadcast to input's shape
    (grad_output may be a Python number); the result has input's shape and dtype. No range check
    (PyTorch's backward has none): any x is computed by the formula.
    """
    result = _torch_call(_BCE_BACKWARD, reduction, input=input, target=target, weight=weight,
                         grad_output=grad_output, out=out)
    if result is None:
        result = _call(_BCE_BACKWARD, input, target, weight, None, grad_output, reduction, out, None)
    return result


# ------------------------------------------------------------------------------------------------
# Prepared calls: the first phase once, the second phase at every call (a repeatable executor).

_OPS = {
    binary_cross_entropy_with_logits: _FORWARD,
    binary_cross_entropy_with_logits_backward: _BACKWARD,
    binary_cross_entropy_with_logits_target_backward: _TARGET_BACKWARD,
    binary_cross_entropy_with_logits_fused: _FUSED,
    binary_cross_entropy: _BCE,
    binary_cross_entropy_backward: _BCE_BACKWARD,
}


class PreparedCall:
    """A call of one of the operator functions whose checks, plan and workspace were made once by
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
    """Prepares ``function(*args, **kwargs)`` (one of the six operator functions of this module)
    for repeated calls: the library checks the arguments and plans the call once (the first
    phase, kept as a repeatable executor, ``aclSetAclOpExecutorRepeatable``), and each call of
    the returned :class:`PreparedCall` runs only the operator over the arrays' current contents,
    into the same output(s): ``out`` / ``grad_input`` when given, else arrays made here once.

    The arguments are those of ``function`` and are refused with the same errors. The prepared
    call keeps a reference to every array; the arrays must keep their memory: numpy arrays with
    negative strides and lazy torch tensors (the negative or conjugate bit, ZeroTensors) are
    refused (the functions read and write them through copies, which a repeated call cannot). A
    torch tensor moved to other memory in place (``resize_`` growing it, ``set_``, its storage
    resized: its ``data_ptr()`` changes) and a numpy array resized in place
    (``resize(..., refcheck=False)``, of the array or of the array its memory comes from) make the
    next call raise ``RuntimeError`` without running. A torch view changed in place over the same
    memory (``as_strided_``) is not seen: the call keeps the view it was prepared with. One call
    at a time: calling it while it runs in another thread raises ``RuntimeError`` (a process
    forked meanwhile starts with the call idle). Each call bumps the version counters of the
    torch tensors it writes, as an in-place operation does.

        step = aclnn_bce.prepare(aclnn_bce.binary_cross_entropy_with_logits_backward,
                                 1.0, x, y, None, pw, "mean", out=grad)
        for batch in batches:
            x[...] = batch.logits; y[...] = batch.labels
            step()   # writes grad
    """
    op = _OPS.get(function)
    if op is None:
        raise TypeError("function must be one of aclnn_bce's four operator functions with logits "
                        "(binary_cross_entropy_with_logits, ..._backward, ..._target_backward, ..._fused) or "
                        "binary_cross_entropy, binary_cross_entropy_backward")
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"prepare: {e}") from None
    bound.apply_defaults()
    a = bound.arguments
    red = _reduction_value(a["reduction"])
    names = ("input", "target", "weight", "pos_weight", "grad_output", "out", "grad_input")
    call, operands, returned, grad = _describe(op, *(a.get(name) for name in names), red, prepared=True)
    # Every array the executor reads or writes: the caller's, the 0-dim arrays made of numbers,
    # the outputs made here.
    arrays = [v for v in (a.get(name) for name in names[:5])
              if v is not None and not isinstance(v, (float, int, np.floating, np.integer))]
    outputs = [v for v in (returned, grad) if v is not None]
    arrays += outputs + call.keep
    torch = call.torch
    guards = [v for v in arrays if torch is not None and isinstance(v, torch.Tensor)]
    written = [v for v in outputs if torch is not None and isinstance(v, torch.Tensor)]
    keep = arrays + [o for o in operands.values() if isinstance(o, np.ndarray)]
    # The numpy arrays and the arrays their memory comes from, checked at every run (Note
    # [Prepared calls] in aclnn_bce_module.cpp).
    numpy_arrays: dict = {}
    for v in keep:
        while isinstance(v, np.ndarray):
            numpy_arrays[id(v)] = v
            v = v.base
    prepared = _ext.Prepared(op, operands, red, call.bf16_mask, guards, written, list(numpy_arrays.values()))
    return PreparedCall(prepared, (returned, grad) if op in _WRITES_GRAD_INPUT else returned, keep)
