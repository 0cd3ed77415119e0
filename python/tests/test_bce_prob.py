"""aclnn_bce.binary_cross_entropy and binary_cross_entropy_backward (the loss of probabilities,
PyTorch's binary_cross_entropy) on numpy arrays and CPU torch tensors.

Results are compared element by element with PyTorch's float64 loss and gradient of the inputs as
the library reads them (rounded to their dtypes), within a bound of a few units of roundoff of the
compute type times the magnitude of the result (the loss's two terms are >= 0, so nothing cancels;
the gradient's x - y and 1 - x are rounded once), plus one rounding to the output dtype. The range
errors are PyTorch's: the same class and message.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aclnn_bce

torch = pytest.importorskip("torch")
ml_dtypes = pytest.importorskip("ml_dtypes")

F = torch.nn.functional
BCE = aclnn_bce.binary_cross_entropy
BCE_BWD = aclnn_bce.binary_cross_entropy_backward
BF16 = np.dtype(ml_dtypes.bfloat16)
NP_DTYPES = {"float16": np.dtype(np.float16), "bfloat16": BF16, "float32": np.dtype(np.float32),
             "float64": np.dtype(np.float64)}
TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "float64": torch.float64}
DTYPES = list(NP_DTYPES)
UNIT = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}
TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149, "float64": 2.0**-1074}
REDUCTIONS = ["none", "mean", "sum"]
FAMILIES = ["numpy", "torch"]
INPUT_RANGE = "all elements of input should be between 0 and 1"
TARGET_RANGE = "all elements of target should be between 0 and 1"


# --------------------------------------------------------------------------------------------
# Inputs and references


def make(rng, shape, dtype, kind):
    """A numpy array of dtype (a name): probabilities (spread over (0, 1), many near 0 and 1),
    labels in [0, 1], weights in [0.25, 2] or grads in [-2, 2]."""
    if kind == "probabilities":
        v = 1.0 / (1.0 + np.exp(-rng.standard_normal(shape) * 4.0))
    elif kind == "labels":
        v = rng.uniform(0.0, 1.0, shape)
    elif kind == "weights":
        v = rng.uniform(0.25, 2.0, shape)
    else:
        v = rng.uniform(-2.0, 2.0, shape)
    return np.asarray(v).astype(NP_DTYPES[dtype])


def to_family(a, family):
    if a is None or family == "numpy" or not isinstance(a, np.ndarray):
        return a
    if a.dtype == BF16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy(order="C"))


def f64(a):
    if a is None:
        return None
    if isinstance(a, torch.Tensor):
        return a.detach().to(torch.float64)
    return torch.from_numpy(np.asarray(a).astype(np.float64))


def name_of(a):
    if isinstance(a, torch.Tensor):
        return {v: k for k, v in TORCH_DTYPES.items()}[a.dtype]
    return {v: k for k, v in NP_DTYPES.items()}[a.dtype]


def compute_unit(*arrays):
    return UNIT["float64"] if any(a is not None and name_of(a) == "float64" for a in arrays) else UNIT["float32"]


def loss_reference(x, y, w, reduction):
    """PyTorch's float64 loss of the values as read, and the magnitude for the bound (the loss's
    terms are >= 0 for weights >= 0: the magnitude is the loss)."""
    xd, yd, wd = f64(x), f64(y), f64(w)
    loss = F.binary_cross_entropy(xd, yd, weight=wd, reduction=reduction)
    mag = F.binary_cross_entropy(xd, yd, weight=None if wd is None else wd.abs(), reduction=reduction).abs()
    return loss.numpy(), mag.numpy()


def grad_reference(g, x, y, w, reduction):
    """The float64 gradient of sum(loss_i * g_i) (/ N for mean) with respect to input (the
    library's gradOutput broadcasts to input's shape for every reduction), and its magnitude."""
    xd = f64(x).clone().requires_grad_()
    yd, wd, gd = f64(y), f64(w), f64(g)
    loss = F.binary_cross_entropy(xd, yd, weight=wd, reduction="none")
    total = (loss * gd).sum() / (xd.numel() if reduction == "mean" else 1)
    (grad,) = torch.autograd.grad(total, xd)
    return grad.numpy(), np.abs(grad.numpy())


def assert_close(got, ref, mag, out_dtype, unit, ulps=16, what="result"):
    """|got - ref| <= ulps * unit * mag + one rounding to out_dtype (+ its smallest subnormal)."""
    got64 = f64(got).numpy()
    ref = np.asarray(ref, dtype=np.float64)
    assert got64.shape == ref.shape, f"{what}: shape {got64.shape} != {ref.shape}"
    np.testing.assert_array_equal(np.isnan(got64), np.isnan(ref), err_msg=f"{what}: NaN positions")
    # A value beyond the output dtype's range (float16's 65504: the gradient near 0 and 1) is
    # that dtype's infinity of its sign.
    with np.errstate(over="ignore"):
        overflow = np.isfinite(ref) & np.isinf(ref.astype(NP_DTYPES[out_dtype]).astype(np.float64))
    np.testing.assert_array_equal(got64[overflow], np.sign(ref[overflow]) * np.inf, err_msg=f"{what}: overflow")
    bound = ulps * unit * np.asarray(mag) + UNIT[out_dtype] * np.abs(ref) + TINY[out_dtype]
    err = np.abs(got64 - ref)
    bad = np.isfinite(ref) & ~overflow & ~(err <= bound)
    if bad.any():
        i = int(np.argmax(np.where(bad, err / np.maximum(bound, 1e-300), 0)))
        raise AssertionError(f"{what}: {bad.sum()} elements outside the bound; worst at flat index {i}: "
                             f"got {got64.flat[i]!r}, reference {ref.flat[i]!r}, bound {np.ravel(bound)[i]!r}")


def problem(seed, dtype, shape=(6, 17), weight_shape=None, other=None):
    rng = np.random.default_rng(seed)
    x = make(rng, shape, dtype, "probabilities")
    y = make(rng, shape, other or dtype, "labels")
    w = None if weight_shape is None else make(rng, weight_shape, dtype, "weights")
    g = make(rng, shape, dtype, "grads")
    return x, y, w, g


# --------------------------------------------------------------------------------------------
# Values


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_matches_pytorch_float64_for_every_dtype(family, dtype, reduction):
    x, y, w, _ = problem(1, dtype, weight_shape=(6, 17))
    loss = BCE(to_family(x, family), to_family(y, family), to_family(w, family), reduction)
    assert type(loss) is type(to_family(x, family))
    assert name_of(loss) == dtype
    assert tuple(loss.shape) == (x.shape if reduction == "none" else ())
    ref, mag = loss_reference(x, y, w, reduction)
    assert np.abs(ref).max() > 0  # never all-zero data
    assert_close(loss, ref, mag, dtype, compute_unit(x), what="loss")


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradient_matches_pytorch_float64_for_every_dtype(family, dtype, reduction):
    x, y, w, g = problem(2, dtype, weight_shape=(17,))
    if reduction != "none":
        g = g[:1, :1].reshape(())  # the loss's gradient: one element (a 0-dim array)
    grad = BCE_BWD(*(to_family(a, family) for a in (g, x, y, w)), reduction)
    assert type(grad) is type(to_family(x, family))
    assert name_of(grad) == dtype and tuple(grad.shape) == x.shape
    ref, mag = grad_reference(g, x, y, w, reduction)
    assert np.abs(ref).max() > 0
    assert_close(grad, ref, mag, dtype, compute_unit(x), what="grad")


@pytest.mark.parametrize("weight_shape", [(17,), (1, 17), (6, 1), (), (1, 1)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weight_broadcasts_to_input(weight_shape, reduction):
    x, y, w, g = problem(3, "float32", weight_shape=weight_shape)
    assert_close(BCE(x, y, w, reduction), *loss_reference(x, y, w, reduction), "float32", UNIT["float32"])
    assert_close(BCE_BWD(g, x, y, w, reduction), *grad_reference(g, x, y, w, reduction), "float32",
                 UNIT["float32"])


@pytest.mark.parametrize("family", FAMILIES)
def test_a_python_number_weight_and_grad_output(family):
    x, y, _, _ = problem(4, "float64")
    xs, ys = to_family(x, family), to_family(y, family)
    ref, mag = loss_reference(x, y, np.full(x.shape, 0.5), "sum")
    assert_close(BCE(xs, ys, 0.5, "sum"), ref, mag, "float64", UNIT["float64"], ulps=64)
    ref, mag = grad_reference(np.full(x.shape, 2.0), x, y, None, "mean")
    assert_close(BCE_BWD(2.0, xs, ys, None, "mean"), ref, mag, "float64", UNIT["float64"], ulps=64)


@pytest.mark.parametrize("input_dtype,target_dtype", [("float32", "float64"), ("float64", "float32"),
                                                      ("bfloat16", "float16"), ("float16", "float32")])
def test_mixed_dtypes_give_inputs_dtype(input_dtype, target_dtype):
    x, y, _, g = problem(5, input_dtype, other=target_dtype)
    loss = BCE(x, y, reduction="none")
    assert loss.dtype == NP_DTYPES[input_dtype]
    assert_close(loss, *loss_reference(x, y, None, "none"), input_dtype, compute_unit(x, y))
    grad = BCE_BWD(g, x, y, reduction="none")
    assert grad.dtype == NP_DTYPES[input_dtype]
    assert_close(grad, *grad_reference(g, x, y, None, "none"), input_dtype, compute_unit(x, y, g))


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_inputs_of_exactly_0_and_1_are_clamped_as_pytorch_clamps_them(family, dtype):
    """log is clamped at -100: a wrong label at x = 0 or 1 costs 100 per unit of it, a right one
    nothing; the gradient's x * (1 - x) is floored at 1e-12 (a large finite gradient)."""
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0], NP_DTYPES[dtype])
    y = np.array([0.0, 1.0, 1.0, 0.0, 0.5, 0.25], NP_DTYPES[dtype])
    xs, ys = to_family(x, family), to_family(y, family)
    loss = f64(BCE(xs, ys, reduction="none")).numpy()
    np.testing.assert_array_equal(loss, [0.0, 0.0, 100.0, 100.0, 50.0, 75.0])
    assert float(BCE(xs, ys, reduction="sum")) == float(np.array(325.0).astype(NP_DTYPES[dtype]))
    grad = f64(BCE_BWD(1.0, xs, ys, reduction="none")).numpy()
    # PyTorch float32 computes the same floor (1e-12 in the compute type): compare with it, rounded
    # to the dtype (float16 cannot hold 1e12: infinity of the same sign).
    xt = torch.tensor(x.astype(np.float32), requires_grad=True)
    F.binary_cross_entropy(xt, torch.tensor(y.astype(np.float32)), reduction="sum").backward()
    ref = xt.grad.to(TORCH_DTYPES[dtype]).double().numpy() if dtype != "float64" else xt.grad.double().numpy()
    assert np.abs(ref).max() > 1e11
    assert np.all(np.isfinite(grad)) == (dtype != "float16")
    out_unit = UNIT[dtype] if dtype != "float64" else UNIT["float32"]
    np.testing.assert_allclose(grad, ref, rtol=4 * out_unit, atol=0)


def test_empty_input_gives_nan_for_mean_and_zero_for_sum():
    x = np.empty((0, 3), np.float32)
    assert math.isnan(float(BCE(x, x, reduction="mean")))
    assert float(BCE(x, x, reduction="sum")) == 0.0
    assert BCE(x, x, reduction="none").shape == (0, 3)
    assert BCE_BWD(1.0, x, x, reduction="none").shape == (0, 3)


def test_zero_dim_operands():
    x, y = np.array(0.25, np.float64), np.array(0.75, np.float64)
    ref = F.binary_cross_entropy(f64(x), f64(y), reduction="sum").item()
    assert float(BCE(x, y, reduction="sum")) == pytest.approx(ref, rel=1e-14)
    assert float(BCE(x, 0.75, reduction="none")) == pytest.approx(ref, rel=1e-14)


# --------------------------------------------------------------------------------------------
# out=, views, torch tensors


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_out_receives_the_result_in_place(family, reduction):
    x, y, w, _ = problem(6, "float32", weight_shape=(17,))
    xs, ys, ws = (to_family(a, family) for a in (x, y, w))
    expected = BCE(xs, ys, ws, reduction)
    shape = x.shape if reduction == "none" else ()
    out = np.full(shape, np.nan, np.float32) if family == "numpy" else torch.full(shape, float("nan"))
    assert BCE(xs, ys, ws, reduction, out=out) is out
    assert (f64(out) == f64(expected)).all()
    g = np.full(x.shape, 0.5, np.float32)
    grad_out = np.full(x.shape, np.nan, np.float32) if family == "numpy" else torch.full(x.shape, float("nan"))
    assert BCE_BWD(to_family(g, family), xs, ys, ws, reduction, out=grad_out) is grad_out
    assert (f64(grad_out) == f64(BCE_BWD(to_family(g, family), xs, ys, ws, reduction))).all()


def test_in_place_loss_over_input():
    x, y, _, _ = problem(7, "float64")
    expected = BCE(x, y, reduction="none")
    assert BCE(x, y, reduction="none", out=x) is x
    assert (x == expected).all()


def test_in_place_gradient_over_input():
    x, y, _, g = problem(8, "float64")
    expected = BCE_BWD(g, x, y, reduction="none")
    assert BCE_BWD(g, x, y, reduction="none", out=x) is x
    assert (x == expected).all()


def test_strided_and_negative_stride_views():
    x, y, _, g = problem(9, "float32", shape=(8, 12))
    xv, yv, gv = x[::2, ::-3], y.T.T[::2, ::-3], g[::2, ::-3]
    ref = BCE(np.ascontiguousarray(xv), np.ascontiguousarray(yv), reduction="none")
    assert (BCE(xv, yv, reduction="none") == ref).all()
    out = np.full((4, 8), np.nan, np.float32)[:, ::-2]
    assert BCE_BWD(gv, xv, yv, reduction="none", out=out) is out
    assert (out == BCE_BWD(np.ascontiguousarray(gv), np.ascontiguousarray(xv), np.ascontiguousarray(yv),
                           reduction="none")).all()


def with_negative_bit(values):
    """A tensor whose values are ``values`` and whose memory holds -values (the negative bit)."""
    t = torch.complex(torch.zeros_like(values), -values).conj().imag
    assert t.is_neg()
    return t


@pytest.mark.parametrize("slot", ["input", "target", "weight"])
def test_a_tensor_with_the_negative_bit_is_read_by_its_values(slot):
    x, y, w, g = (to_family(a, "torch") for a in problem(10, "float64", weight_shape=(17,)))
    ops = {"input": x, "target": y, "weight": w}
    expected = BCE(x, y, w, "none"), BCE_BWD(g, x, y, w, "none")
    lazy = dict(ops, **{slot: with_negative_bit(ops[slot])})
    assert torch.equal(BCE(lazy["input"], lazy["target"], lazy["weight"], "none"), expected[0])
    assert torch.equal(BCE_BWD(g, lazy["input"], lazy["target"], lazy["weight"], "none"), expected[1])


def test_an_out_with_the_negative_bit_receives_the_values():
    x, y, _, _ = (to_family(a, "torch") for a in problem(11, "float64"))
    out = with_negative_bit(torch.full(x.shape, float("nan"), dtype=torch.float64))
    assert BCE(x, y, reduction="none", out=out) is out
    assert torch.equal(out, BCE(x, y, reduction="none"))


def test_written_tensors_are_versioned_as_in_place_operations():
    x, y, _, g = (to_family(a, "torch") for a in problem(12, "float32"))
    out, grad = torch.empty(x.shape), torch.empty(x.shape)
    before = out._version, grad._version
    BCE(x, y, reduction="none", out=out)
    BCE_BWD(g, x, y, reduction="none", out=grad)
    assert out._version > before[0] and grad._version > before[1]


def test_an_out_that_requires_grad_is_refused_under_grad_mode():
    x, y, _, _ = (to_family(a, "torch") for a in problem(13, "float32"))
    out = torch.empty(x.shape, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        BCE(x, y, reduction="none", out=out)
    with torch.no_grad():
        assert BCE(x, y, reduction="none", out=out) is out


def test_an_out_overlapping_an_input_other_than_as_the_same_view_is_refused():
    x = np.linspace(0.1, 0.9, 24).astype(np.float32)
    y = np.full(23, 0.5, np.float32)
    with pytest.raises(ValueError):
        BCE(x[:23], y, reduction="none", out=x[1:])
    # Through a temporary (a negative-stride out) the same rule holds, and nothing is written.
    before = x.copy()
    with pytest.raises(ValueError, match="share"):
        BCE(x[:23], y, reduction="none", out=x[:0:-1])
    assert (x == before).all()


def test_prepared_calls_run_the_operators_again():
    x, y, _, g = problem(14, "float32")
    with aclnn_bce.prepare(BCE, x, y, None, "mean") as step:
        first = float(step())
        x[...] = np.float32(0.5)
        assert float(step()) == pytest.approx(math.log(2), rel=1e-6) and first != float(step())
    with aclnn_bce.prepare(BCE_BWD, g, x, y, reduction="none") as step:
        assert (step() == BCE_BWD(g, x, y, reduction="none")).all()


# --------------------------------------------------------------------------------------------
# Errors


def a32(*shape):
    return np.full(shape, 0.5, np.float32)


@pytest.mark.parametrize("call,error,words", [
    (lambda: BCE(a32(3, 4), a32(4, 3)), ValueError, ["target"]),
    (lambda: BCE(a32(3, 4), a32(3, 4), a32(5)), ValueError, ["weight"]),
    (lambda: BCE(a32(3, 4), a32(3, 4), reduction="avg"), ValueError, ["reduction"]),
    (lambda: BCE(a32(3, 4), a32(3, 4), reduction=3), ValueError, ["reduction"]),
    (lambda: BCE(a32(3, 4), np.zeros((3, 4), np.int32)), TypeError, ["dtype"]),
    (lambda: BCE(a32(3, 4), a32(3, 4), out=np.empty((3, 4), np.float64), reduction="none"), TypeError, ["dtype"]),
    (lambda: BCE(a32(3, 4), a32(3, 4), out=np.empty((3,), np.float32), reduction="none"), ValueError, ["out"]),
    (lambda: BCE(a32(3, 4), a32(3, 4), out=np.empty((2,), np.float32)), ValueError, ["out"]),
    (lambda: BCE([0.5], a32(1)), TypeError, ["input"]),
    (lambda: BCE(a32(3, 4), None), TypeError, ["target"]),
    (lambda: BCE_BWD(a32(2, 4), a32(3, 4), a32(3, 4)), ValueError, ["gradOutput"]),
    (lambda: BCE_BWD(None, a32(3, 4), a32(3, 4)), TypeError, ["grad_output"]),
    (lambda: BCE_BWD(1.0, a32(3, 4), a32(3, 4), out=np.empty((4, 3), np.float32)), ValueError, ["out"]),
    (lambda: BCE_BWD(1.0, a32(3, 4), a32(3, 4), out=np.empty((3, 4), np.float16)), TypeError, ["dtype"]),
])
def test_refused_calls_raise_the_librarys_kind_of_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{word!r} not in {str(info.value)!r}"


def test_target_of_another_shape_is_a_value_error_as_in_pytorch():
    """PyTorch's F.binary_cross_entropy raises ValueError; so does the library, with its rule,
    even where the values are out of range too (the shape is refused first)."""
    with pytest.raises(ValueError):
        F.binary_cross_entropy(torch.full((3,), 0.5), torch.full((4,), 0.5))
    with pytest.raises(ValueError, match="target"):
        BCE(np.full(3, 2.0, np.float32), np.full(4, 0.5, np.float32))
    with pytest.raises(ValueError, match="target"):
        BCE(torch.full((3,), 0.5), torch.full((1,), 7.0))


BAD_VALUES = [-0.25, 1.5, float("nan"), float("inf"), -1e-30]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("bad", BAD_VALUES)
def test_an_input_outside_0_1_raises_pytorchs_runtime_error(family, dtype, reduction, bad):
    x, y, _, _ = problem(15, dtype)
    x[2, 3] = bad
    if dtype != "float64" and bad == -1e-30:
        x[2, 3] = -NP_DTYPES[dtype].type(2.0**-14 if dtype == "float16" else 2.0**-126)
    xt = to_family(x, "torch") if dtype == "bfloat16" else torch.from_numpy(x.copy())
    with pytest.raises(RuntimeError, match=INPUT_RANGE):
        F.binary_cross_entropy(xt.float(), to_family(y, "torch").float(), reduction=reduction)
    with pytest.raises(RuntimeError, match=INPUT_RANGE):
        BCE(to_family(x, family), to_family(y, family), reduction=reduction)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("bad", BAD_VALUES)
def test_a_target_outside_0_1_raises_pytorchs_runtime_error(family, dtype, reduction, bad):
    x, y, _, _ = problem(16, dtype)
    y[0, 0] = bad
    if dtype != "float64" and bad == -1e-30:
        y[0, 0] = -NP_DTYPES[dtype].type(2.0**-14 if dtype == "float16" else 2.0**-126)
    with pytest.raises(RuntimeError, match=TARGET_RANGE):
        F.binary_cross_entropy(to_family(x, "torch").float(), to_family(y, "torch").float(), reduction=reduction)
    with pytest.raises(RuntimeError, match=TARGET_RANGE):
        BCE(to_family(x, family), to_family(y, family), reduction=reduction)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_input_and_target_both_out_of_range_name_the_input(family, reduction):
    x, y, _, _ = problem(17, "float32")
    x[1, 1], y[4, 4] = 1.5, -0.5
    with pytest.raises(RuntimeError, match=INPUT_RANGE):
        BCE(to_family(x, family), to_family(y, family), reduction=reduction)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_a_given_out_is_checked_before_it_is_written(family, reduction):
    x, y, _, _ = problem(18, "float32")
    x[0, 0] = 2.0
    out = np.full((), 7.0, np.float32) if family == "numpy" else torch.full((), 7.0)
    with pytest.raises(RuntimeError, match=INPUT_RANGE):
        BCE(to_family(x, family), to_family(y, family), reduction=reduction, out=out)
    assert float(out) == 7.0


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_a_nan_weight_gives_nan_not_an_error(family, reduction):
    x, y, w, _ = problem(19, "float32", weight_shape=(17,))
    w[3] = np.nan
    loss = f64(BCE(to_family(x, family), to_family(y, family), to_family(w, family), reduction)).numpy()
    ref = F.binary_cross_entropy(f64(x), f64(y), f64(w), reduction=reduction).numpy()
    np.testing.assert_array_equal(np.isnan(loss), np.isnan(ref))
    assert np.isnan(loss).any()


def test_the_backward_computes_any_input_as_pytorch_does():
    """No range check in the backward (PyTorch's has none): the formula at x = 2 and -1, where
    x * (1 - x) < 0 takes the floor. (PyTorch 2.15's float64 floor is float32's 1e-12,
    9.999999960041972e-13; the library's is 1e-12 in float64: 4e-9 apart, hence the bound.)"""
    x, y = np.array([2.0, -1.0, 0.75]), np.array([0.5, 0.5, 0.25])
    got = BCE_BWD(1.0, x, y, reduction="none")
    ref = torch.ops.aten.binary_cross_entropy_backward(torch.ones(3, dtype=torch.float64), f64(x), f64(y), None, 0)
    assert np.abs(got[:2]).min() > 1e11
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-8)


def test_a_python_number_target_out_of_range_is_refused():
    with pytest.raises(RuntimeError, match=TARGET_RANGE):
        BCE(np.array(0.5), 2.0)


def test_plain_tensors_take_the_extension_path_with_any_reduction_form(monkeypatch):
    """Plain CPU tensors never reach the Python layer's general path (the range check aside),
    whether reduction is a name or an int, and give the bits of the numpy arrays over the same
    memory."""
    x, y, w, g = (torch.from_numpy(a) for a in problem(20, "float32", weight_shape=(17,)))
    BCE(x, y)  # registers torch with the extension
    for red, value in (("none", 0), ("mean", 1), ("sum", 2)):
        expected = BCE(x.numpy(), y.numpy(), w.numpy(), red), BCE_BWD(g.numpy(), x.numpy(), y.numpy(), w.numpy(), red)
        with monkeypatch.context() as m:
            m.setattr(aclnn_bce._api, "_general", lambda *args: pytest.fail("the general path ran"))
            for r in (red, value):
                np.testing.assert_array_equal(BCE(x, y, w, r).numpy(), expected[0])
                np.testing.assert_array_equal(BCE_BWD(g, x, y, w, r).numpy(), expected[1])


def test_the_form_of_a_call_is_refused_before_the_range():
    """A call the library or this layer refuses for its form raises that refusal, whatever the
    values: an input that is not an array, a mix of numpy and torch, an integer target."""
    with pytest.raises(TypeError, match="input"):
        BCE(2.0, np.array(0.5))
    with pytest.raises(TypeError, match="target"):
        BCE(torch.full((3,), 0.5), np.full(3, 2.0))
    with pytest.raises(TypeError, match="dtype"):
        BCE(np.full(3, 0.5, np.float32), np.full(3, 2, np.int32))
