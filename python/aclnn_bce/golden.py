"""Golden data for NPU kernels of the library's operators, and the comparison of an NPU's output with it.

* :func:`compute_golden` runs one operator on arrays (by default in float64, every operand widened
  exactly, the result rounded once to the output dtype) and returns its outputs by name.
* :func:`generate_inputs` makes a seeded random case (logits spread around 0, or probabilities for
  the operators on probabilities; labels in [0, 1]).
* :func:`compare` judges an output against the golden under the precision standard of the
  output's dtype (:data:`STANDARDS`) and :func:`format_report` prints the verdict as a table.

The command line (``aclnn-bce golden|gen|compare``, ``python -m aclnn_bce``) is in ``__main__``;
the user documentation is ``docs/golden.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _aclnn_bce as _ext
from . import _api
from .npy import DTYPES, dtype_from_name, dtype_name

__all__ = [
    "OPS",
    "needs_grad_output",
    "takes",
    "takes_probabilities",
    "STANDARDS",
    "Standard",
    "GoldenError",
    "compute_golden",
    "generate_inputs",
    "case_bytes",
    "output_names",
    "compare",
    "CompareResult",
    "format_report",
    "default_floor",
    "FLOOR_SCALE",
]

# Note [The golden tool's operators]
# The operators are the library's API list (the enum aclnn_bce.Op), by their short names with '_'
# spelled '-' (forward, backward, target-backward, fused, bce, bce-backward, ...), and what the tool
# does with each comes from the list's operands: which operands it takes (a pos_weight given to an
# operator without one is refused), whether grad_output is required (an input) or optional, and
# its outputs, named by kind: a reduced output is the loss; another output is named by CANN's
# parameter (gradTarget: grad_target, gradInput: grad_input), and "out" is the gradient with
# respect to input. Whether input holds logits or probabilities, which generate_inputs needs, is
# the list's domain of input (ACLNN_PROBABILITY_INPUT: operand_facts' "unit_interval").


def _cli_name(op: "_ext.Op") -> str:
    return op.name.replace("_", "-")


#: The operators by their command-line name (Note [The golden tool's operators]).
OPS = tuple(_cli_name(op) for op in _ext.Op)
_OP_OF = {_cli_name(op): op for op in _ext.Op}
#: Each operator's operands: {name: {role: kind}} (kinds as aclnn_bce._aclnn_bce.api() gives them).
_ROLES = {name: {role: kind for _, role, kind in _ext.api(op)[1]} for name, op in _OP_OF.items()}
_OPERAND_ROLES = ("input", "target", "weight", "pos_weight", "grad_output")


class GoldenError(ValueError):
    """Operands the operator refuses, or options that do not fit together (one-line message)."""


@dataclass(frozen=True)
class Standard:
    """A precision standard: an element fails when its relative error exceeds ``rtol``; the output
    passes when at most ``ratio`` of its elements fail (and no NaN/Inf differs)."""

    rtol: float
    ratio: float
    name: str
    source: str


# The precision standards of CANN's operator tests, by output dtype.
#
# float16 "double thousandth" (双千分之一) and float32 "double ten-thousandth" (双万分之一): the
# comparison script of the CANN operator samples (verify_result.py of gitee.com/ascend/samples,
# operator/AddCustomSample/.../scripts/verify_result.py, copied into many Ascend C projects, e.g.
# github.com/sunkafei/ascend-operator-challenge 01-Addcmul/AclNNInvocation/scripts/verify_result.py):
# loss = 1e-3 for float16 and 1e-4 otherwise, used both as the per-element error threshold and as the
# share of elements allowed to exceed it ("np.sum(result_rtol == False) > real_result.size * loss"
# fails). bfloat16 "double four-thousandth" (双千分之四): the acceptance table of CANN community
# operator design documents, "float32双万分之一，float16双千分之一，bfloat16双千分之四", source given
# there as "AscendOpTest工具默认阈值" (the AscendOpTest tool's default thresholds). CANN states none for
# float64 (the NPU kernels do not produce it); float32's is used. See docs/golden.md, "Precision".
STANDARDS: Dict[str, Standard] = {
    # names in ASCII: the report may go to a terminal or log that is not UTF-8
    "float16": Standard(1e-3, 1e-3, "double thousandth", "CANN samples verify_result.py"),
    "bfloat16": Standard(4e-3, 4e-3, "double four-thousandth", "AscendOpTest default"),
    "float32": Standard(1e-4, 1e-4, "double ten-thousandth", "CANN samples verify_result.py"),
    "float64": Standard(1e-4, 1e-4, "float32's (no CANN standard for float64)", "this tool"),
}

#: The default small-value floor is FLOOR_SCALE times the golden's largest finite magnitude (and at
#: least the output dtype's smallest normal number): see :func:`default_floor`.
FLOOR_SCALE = 1e-3


def _snake(parameter: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in parameter)


def output_names(op: str) -> Tuple[str, ...]:
    """The names of an operator's outputs, in the API's order (Note [The golden tool's
    operators]): ('loss',) for the forward operators, ('grad_input',) for the backward ones,
    ('grad_target',) for target-backward, ('loss', 'grad_input') for fused."""
    names = []
    for parameter, role, kind in _ext.api(_OP_OF[_check_op(op)])[1]:
        if kind == "reduced_output":
            names.append("loss")
        elif kind == "output":
            names.append("grad_input" if parameter == "out" else _snake(parameter))
    return tuple(names)


def needs_grad_output(op: str) -> bool:
    """Whether the operator requires a grad_output (the backward operators)."""
    return _ROLES[_check_op(op)].get("grad_output") == "input"


def takes(op: str, role: str) -> bool:
    """Whether the operator takes the operand ``role`` (input, target, weight, pos_weight, grad_output)."""
    return role in _ROLES[_check_op(op)]


def takes_probabilities(op: str) -> bool:
    """Whether the operator's input holds probabilities rather than logits (Note [The golden
    tool's operators])."""
    return _ext.operand_facts(_OP_OF[_check_op(op)])["input"]["domain"] == "unit_interval"


def _check_op(op: str) -> str:
    if op not in OPS:
        raise GoldenError(f"unknown operator {op!r}: use one of {', '.join(OPS)}")
    return op


def compute_golden(op: str, input: np.ndarray, target: np.ndarray, weight: Optional[np.ndarray] = None,
                   pos_weight: Optional[np.ndarray] = None, grad_output: Optional[np.ndarray] = None,
                   reduction: str = "mean", precision: str = "float64",
                   out_dtype: Optional[str] = None) -> Dict[str, np.ndarray]:
    """The outputs of ``op`` by name (see :func:`output_names`).

    ``precision="float64"`` (the golden): every operand is widened to float64 (exactly) and the
    operator computes in float64; the result is rounded once to ``out_dtype``. ``"native"``: the
    operator runs on the operands as they are (fp16/bf16/fp32 compute in fp32, as the NPU kernels
    do) and the result has the operator's output dtype before it is converted to ``out_dtype``.
    ``out_dtype`` defaults to the dtype the operator's output has: target's, input's for the
    operators on probabilities (bce, bce-backward). Those take input as the NPU does: a value
    outside [0, 1] gives NaN (the library's result; ``aclnn_bce.binary_cross_entropy`` raises
    there as PyTorch does, an NPU kernel computes on).
    """
    _check_op(op)
    if precision not in ("float64", "native"):
        raise GoldenError(f"precision must be 'float64' or 'native', not {precision!r}")
    if reduction not in _api.REDUCTIONS:
        raise GoldenError(f"reduction must be one of none, mean, sum, not {reduction!r}")
    if needs_grad_output(op) and grad_output is None:
        raise GoldenError(f"operator {op} needs a grad_output")
    operands = [input, target, weight, pos_weight, grad_output]
    for name, arr in zip(_OPERAND_ROLES, operands):
        if arr is not None:
            if not takes(op, name):
                raise GoldenError(f"operator {op} takes no {name}")
            dtype_name(arr.dtype)  # only the four float dtypes
    like = input if _OP_OF[op] in _api._OUT_LIKE_INPUT else target
    result_dtype = DTYPES[dtype_name(like.dtype)] if out_dtype is None else dtype_from_name(out_dtype)
    if precision == "float64":
        operands = [None if a is None else np.asarray(a).astype(np.float64) for a in operands]
    x, y, w, pw, g = operands
    try:
        # The operator's call itself (no range check of probabilities: the NPU's semantics).
        results = _api._call(_OP_OF[op], x, y, w, pw, g, reduction, None, None)
    except (TypeError, ValueError) as e:
        raise GoldenError(_one_line(e)) from None
    names = output_names(op)
    outs = dict(zip(names, results if len(names) > 1 else (results,)))
    return {k: _cast(v, result_dtype) for k, v in outs.items()}


def _cast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    # numpy and ml_dtypes round float64 to float16 / bfloat16 / float32 directly (once, to nearest
    # even), never through float32.
    return np.asarray(a).astype(dtype)


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def generate_inputs(op: str, shape: Sequence[int], dtype: str = "float32", seed: int = 0,
                    reduction: str = "mean", with_weight: bool = False, with_pos_weight: bool = False,
                    with_grad_output: bool = False, logit_scale: float = 4.0,
                    hard_labels: bool = False) -> Dict[str, np.ndarray]:
    """A seeded random case: ``input`` (logits ~ N(0, logit_scale^2); for the operators on
    probabilities, the sigmoid of such logits: probabilities in (0, 1)), ``target`` (uniform in
    [0, 1], or 0/1 with ``hard_labels``), optional ``weight`` (uniform in [0.5, 1.5], input's shape)
    and ``pos_weight`` (uniform in [0.5, 3], shape [C] for the last dimension C, as PyTorch's
    per-class pos_weight), and ``grad_output`` (magnitude in [0.5, 1.5], random sign): input's shape
    for reduction none, 0-dim for mean and sum; the backward operators always get one, fused only
    with ``with_grad_output`` (0-dim: fused takes one element). Everything in ``dtype``. An
    operand the operator does not take is refused (GoldenError)."""
    _check_op(op)
    for role, asked in (("weight", with_weight), ("pos_weight", with_pos_weight), ("grad_output", with_grad_output)):
        if asked and not takes(op, role):
            raise GoldenError(f"operator {op} takes no {role}")
    dt = dtype_from_name(dtype)
    shape = tuple(int(d) for d in shape)
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal(shape) * float(logit_scale)
    if takes_probabilities(op):
        with np.errstate(over="ignore"):  # exp(-x) of a very negative logit: inf, the probability 0
            logits = 1.0 / (1.0 + np.exp(-logits))
    case = {"input": logits}
    case["target"] = (rng.random(shape) < 0.5).astype(np.float64) if hard_labels else rng.random(shape)
    if with_weight:
        case["weight"] = rng.uniform(0.5, 1.5, shape)
    if with_pos_weight:
        case["pos_weight"] = rng.uniform(0.5, 3.0, shape[-1:])
    if needs_grad_output(op) or with_grad_output:
        g_shape = shape if reduction == "none" and needs_grad_output(op) else ()
        case["grad_output"] = rng.uniform(0.5, 1.5, g_shape) * rng.choice([-1.0, 1.0], g_shape)
    return {k: np.asarray(v).astype(dt) for k, v in case.items()}


def case_bytes(op: str, shape: Sequence[int], dtype: str = "float32", reduction: str = "mean",
               with_weight: bool = False, with_pos_weight: bool = False,
               with_grad_output: bool = False) -> Optional[int]:
    """About the most bytes that :func:`generate_inputs` and then :func:`compute_golden` (float64)
    hold at once for this case: each input of input's shape (and pos_weight) in float64 and in
    ``dtype``, each output of input's shape in float64 and in ``dtype``, and one file's bytes. None when the shape
    is one that no numpy array can have (its bytes do not fit in 64 bits)."""
    _check_op(op)
    itemsize = dtype_from_name(dtype).itemsize
    elements = 1
    for d in shape:
        if d < 0 or d >= 2**63:
            return None
        elements *= d
    nonzero = 8
    for d in shape:
        nonzero *= max(d, 1)
    if nonzero >= 2**63:
        return None
    full_inputs = 2 + int(with_weight) + int(needs_grad_output(op) and reduction == "none")
    full_outputs = sum(int(kind == "output" or reduction == "none")
                       for kind in _ROLES[op].values() if kind in ("output", "reduced_output"))
    per_element = (full_inputs + full_outputs) * (8 + itemsize) + itemsize
    pos_weight = shape[-1] if with_pos_weight and shape else 0  # [C]; the 0-dim ones are not counted
    return elements * per_element + pos_weight * (8 + itemsize)


def default_floor(golden: np.ndarray, output_dtype: np.dtype) -> float:
    """max(FLOOR_SCALE * largest finite |golden|, smallest normal of the output dtype)."""
    g = np.asarray(golden, dtype=np.float64)
    finite = np.abs(g[np.isfinite(g)])
    scale = float(finite.max()) if finite.size else 0.0
    return max(FLOOR_SCALE * scale, _smallest_normal(output_dtype))


def _smallest_normal(dtype: np.dtype) -> float:
    name = dtype_name(dtype)
    return {"float16": 2.0**-14, "bfloat16": 2.0**-126, "float32": 2.0**-126, "float64": 2.0**-1022}[name]


@dataclass
class Worst:
    index: Tuple[int, ...]
    output: float
    golden: float
    abs_err: float
    rel_err: float


@dataclass
class CompareResult:
    """What :func:`compare` found; ``passed`` is the verdict."""

    shape: Tuple[int, ...]
    output_dtype: str
    golden_dtype: str
    size: int
    rtol: float
    ratio: float
    floor: float
    standard: Standard
    max_abs: float = 0.0
    max_rel: float = 0.0
    mean_rel: float = 0.0
    over_rtol: int = 0
    nan_both: int = 0
    inf_same: int = 0
    nan_mismatch: int = 0
    inf_mismatch: int = 0
    worst: List[Worst] = field(default_factory=list)

    @property
    def allowed(self) -> int:
        """The most elements that may exceed rtol (fails when over_rtol > ratio * size)."""
        return int(math.floor(self.ratio * self.size + 1e-9))

    @property
    def over_share(self) -> float:
        return self.over_rtol / self.size if self.size else 0.0

    @property
    def passed(self) -> bool:
        return self.nan_mismatch == 0 and self.inf_mismatch == 0 and self.over_rtol <= self.ratio * self.size


def compare(output: np.ndarray, golden: np.ndarray, rtol: Optional[float] = None,
            ratio: Optional[float] = None, floor: Optional[float] = None, show: int = 5) -> CompareResult:
    """Judges ``output`` against ``golden`` (same shape; dtypes may differ).

    Per element, both widened to float64: NaN in both is equal; the same infinity in both is equal;
    a NaN or an infinity on one side only (or infinities of opposite signs) is a mismatch, and any
    mismatch fails the comparison. Otherwise ``rel = |output - golden| / max(|golden|, floor)``,
    ``floor`` by default :func:`default_floor`. The output passes when no NaN/Inf mismatches and
    at most ``ratio * size`` elements have ``rel > rtol``; rtol and ratio default to the standard of
    the output's dtype (:data:`STANDARDS`).
    """
    output = np.asarray(output)
    golden = np.asarray(golden)
    out_name, gold_name = dtype_name(output.dtype), dtype_name(golden.dtype)
    if output.shape != golden.shape:
        raise GoldenError(f"shape mismatch: output {output.shape} vs golden {golden.shape}")
    std = STANDARDS[out_name]
    rtol = std.rtol if rtol is None else float(rtol)
    ratio = std.ratio if ratio is None else float(ratio)
    if not (rtol >= 0 and math.isfinite(rtol)) or not (0 <= ratio <= 1):
        raise GoldenError("rtol must be a finite number >= 0 and ratio a number in [0, 1]")
    a = output.astype(np.float64).ravel()
    g = golden.astype(np.float64).ravel()
    fl = default_floor(g, output.dtype) if floor is None else float(floor)
    if not (fl >= 0 and math.isfinite(fl)):
        raise GoldenError("floor must be a finite number >= 0")
    res = CompareResult(shape=output.shape, output_dtype=out_name, golden_dtype=gold_name, size=a.size,
                        rtol=rtol, ratio=ratio, floor=fl, standard=std)
    if a.size == 0:
        return res
    nan_a, nan_g = np.isnan(a), np.isnan(g)
    inf_a, inf_g = np.isinf(a), np.isinf(g)
    res.nan_both = int(np.count_nonzero(nan_a & nan_g))
    res.nan_mismatch = int(np.count_nonzero(nan_a ^ nan_g))
    same_inf = inf_a & inf_g & (a == g)
    res.inf_same = int(np.count_nonzero(same_inf))
    res.inf_mismatch = int(np.count_nonzero((inf_a | inf_g) & ~same_inf & ~nan_a & ~nan_g))
    both_finite = np.isfinite(a) & np.isfinite(g)
    abs_err = np.zeros_like(a)
    rel_err = np.zeros_like(a)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        abs_err[both_finite] = np.abs(a[both_finite] - g[both_finite])
        denom = np.maximum(np.abs(g[both_finite]), fl)
        rel = np.where(denom > 0, abs_err[both_finite] / np.where(denom > 0, denom, 1.0),
                       np.where(abs_err[both_finite] > 0, np.inf, 0.0))
    rel_err[both_finite] = rel
    n_finite = int(np.count_nonzero(both_finite))
    if n_finite:
        res.max_abs = float(abs_err[both_finite].max())
        res.max_rel = float(rel.max())
        res.mean_rel = float(rel.mean()) if np.all(np.isfinite(rel)) else math.inf
        res.over_rtol = int(np.count_nonzero(rel > rtol))
    # The worst elements: special-value mismatches first, then by relative error.
    key = np.where(both_finite, rel_err, -1.0)
    key[(nan_a ^ nan_g) | ((inf_a | inf_g) & ~same_inf & ~nan_a & ~nan_g)] = np.inf
    if show > 0:
        order = np.argsort(-key, kind="stable")[:show]
        for i in order:
            if key[i] <= 0:
                break
            res.worst.append(Worst(tuple(int(j) for j in np.unravel_index(int(i), output.shape)) if output.shape else (),
                                   float(a[i]), float(g[i]), float(abs_err[i]) if both_finite[i] else math.nan,
                                   float(rel_err[i]) if both_finite[i] else math.inf))
    return res


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return f"{v:.6g}"


def format_report(res: CompareResult, output_label: str = "output", golden_label: str = "golden") -> str:
    """The comparison as a table and a verdict line (PASS / FAIL)."""
    rows: List[Tuple[str, str, str]] = []
    limit_count = f"<= {res.allowed} ({_fmt(res.ratio * 100)}%)"
    rows.append(("elements", str(res.size), ""))
    rows.append(("max absolute error", _fmt(res.max_abs), ""))
    rows.append(("max relative error", _fmt(res.max_rel), ""))
    rows.append(("mean relative error", _fmt(res.mean_rel), ""))
    rows.append((f"relative error > {_fmt(res.rtol)}",
                 f"{res.over_rtol} ({_fmt(res.over_share * 100)}%)", limit_count))
    rows.append(("NaN in both (equal)", str(res.nan_both), ""))
    rows.append(("NaN on one side", str(res.nan_mismatch), "0"))
    rows.append(("Inf equal / differing", f"{res.inf_same} / {res.inf_mismatch}", "- / 0"))
    w0 = max(len(r[0]) for r in rows + [("metric", "", "")])
    w1 = max(len(r[1]) for r in rows + [("", "value", "")])
    w2 = max(len(r[2]) for r in rows + [("", "", "limit")])
    sep = f"+-{'-' * w0}-+-{'-' * w1}-+-{'-' * w2}-+"
    lines = [
        f"compare {output_label} against {golden_label}",
        f"  shape {res.shape}, output {res.output_dtype}, golden {res.golden_dtype}",
        f"  standard: {res.output_dtype} {res.standard.name}: rtol {_fmt(res.rtol)}, ratio {_fmt(res.ratio)}",
        f"  relative error = |output - golden| / max(|golden|, floor), floor = {_fmt(res.floor)}",
        sep, f"| {'metric':<{w0}} | {'value':>{w1}} | {'limit':<{w2}} |", sep,
    ]
    lines += [f"| {a:<{w0}} | {b:>{w1}} | {c:<{w2}} |" for a, b, c in rows]
    lines.append(sep)
    if res.worst:
        lines.append("worst elements (index: output, golden, abs err, rel err):")
        for w in res.worst:
            idx = ",".join(map(str, w.index))
            lines.append(f"  [{idx}]: {_fmt(w.output)}, {_fmt(w.golden)}, {_fmt(w.abs_err)}, {_fmt(w.rel_err)}")
    if res.passed:
        lines.append("PASS")
    else:
        why = []
        if res.nan_mismatch or res.inf_mismatch:
            why.append(f"{res.nan_mismatch + res.inf_mismatch} NaN/Inf mismatch(es)")
        if res.over_rtol > res.ratio * res.size:
            why.append(f"{res.over_rtol} elements over rtol, at most {res.allowed} allowed")
        lines.append("FAIL: " + "; ".join(why))
    return "\n".join(lines)
