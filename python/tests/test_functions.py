"""The four functions of aclnn_bce on numpy arrays and CPU torch tensors.

Every result is compared element by element with a float64 reference computed by PyTorch from the
inputs as the library reads them (rounded to their dtypes), within a bound of a few units of
roundoff of the compute type times the magnitude of the terms that are added (so cancellation in
the exact value is not blamed on the library), plus one rounding to the output dtype.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import aclnn_bce

torch = pytest.importorskip("torch")
ml_dtypes = pytest.importorskip("ml_dtypes")

F = torch.nn.functional
BF16 = np.dtype(ml_dtypes.bfloat16)
NP_DTYPES = {"float16": np.dtype(np.float16), "bfloat16": BF16, "float32": np.dtype(np.float32),
             "float64": np.dtype(np.float64)}
TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "float64": torch.float64}
# Unit roundoff of each dtype (half an ulp at 1).
UNIT = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}
REDUCTIONS = ["none", "mean", "sum"]


# --------------------------------------------------------------------------------------------
# Inputs and references
# --------------------------------------------------------------------------------------------
def make(rng, shape, dtype, kind):
    """A numpy array of dtype (a name) with values of kind: logits, labels, weights or grads."""
    if kind == "logits":
        v = rng.standard_normal(shape) * 4.0
    elif kind == "labels":
        v = rng.uniform(0.0, 1.0, shape)
    elif kind == "weights":
        v = rng.uniform(0.25, 2.0, shape)
    else:
        v = rng.uniform(-2.0, 2.0, shape)
    return np.asarray(v).astype(NP_DTYPES[dtype])


def f64(a):
    """The values of a numpy array or a tensor as a float64 tensor (exact for every float dtype)."""
    if isinstance(a, torch.Tensor):
        return a.detach().to(torch.float64)
    if a.dtype == BF16:
        return torch.from_numpy(a.astype(np.float64))
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def as_f64_numpy(a):
    if isinstance(a, torch.Tensor):
        return a.detach().to(torch.float64).numpy()
    return np.asarray(a.astype(np.float64) if a.dtype == BF16 else a, dtype=np.float64)


def compute_unit(*arrays):
    """Unit roundoff of the compute type: float64 when any input is float64, else float32."""
    names = [dtype_name(a) for a in arrays if a is not None]
    return UNIT["float64"] if "float64" in names else UNIT["float32"]


def dtype_name(a):
    if isinstance(a, torch.Tensor):
        return {v: k for k, v in TORCH_DTYPES.items()}[a.dtype]
    return {v: k for k, v in NP_DTYPES.items()}[a.dtype]


def loss_reference(x, y, w, pw, reduction):
    """(loss, magnitude): PyTorch float64, and the elements' term magnitudes for the bound."""
    xd, yd = f64(x), f64(y)
    wd = None if w is None else f64(w)
    pwd = None if pw is None else f64(pw)
    loss = F.binary_cross_entropy_with_logits(xd, yd, weight=wd, pos_weight=pwd, reduction=reduction)
    sp_pos, sp_neg = F.softplus(-xd), F.softplus(xd)
    lw = yd if pwd is None else pwd * yd
    mag = (lw.abs() * sp_pos + (1 - yd).abs() * sp_neg) * (1 if wd is None else wd.abs())
    mag = torch.broadcast_to(mag, xd.shape)
    if reduction == "mean":
        mag = mag.sum() / max(xd.numel(), 1)
    elif reduction == "sum":
        mag = mag.sum()
    return loss.numpy(), mag.numpy()


def grad_reference(g, x, y, w, pw, reduction, wrt="input"):
    """(grad, magnitude) by float64 autograd through PyTorch's loss. The library's gradOutput
    broadcasts to input's shape for every reduction (CANN's rule), so the reference differentiates
    sum(loss_i * g_i) (/ N for mean)."""
    xd = f64(x).clone().requires_grad_(wrt == "input")
    yd = f64(y).clone().requires_grad_(wrt == "target")
    wd = None if w is None else f64(w)
    pwd = None if pw is None else f64(pw)
    loss = F.binary_cross_entropy_with_logits(xd, yd, weight=wd, pos_weight=pwd, reduction="none")
    gd = f64(g) if g is not None else torch.ones((), dtype=torch.float64)
    total = (loss * gd).sum() / (xd.numel() if reduction == "mean" else 1)
    (grad,) = torch.autograd.grad(total, xd if wrt == "input" else yd)
    with torch.no_grad():
        p, q = torch.sigmoid(xd), torch.sigmoid(-xd)
        if wrt == "input":
            lw = yd if pwd is None else pwd * yd
            terms = ((1 - yd).abs() * p + lw.abs() * q)
        else:
            terms = xd.abs() if pwd is None else (F.softplus(xd) + pwd.abs() * F.softplus(-xd))
        scale = (gd.abs() * (1 if wd is None else wd.abs())) / (xd.numel() if reduction == "mean" else 1)
        mag = torch.broadcast_to(terms * scale, xd.shape)
    return grad.numpy(), mag.numpy()


def assert_close(got, ref, mag, out_dtype, unit, ulps=16, what="result"):
    """|got - ref| <= ulps * unit * mag + one rounding to out_dtype (+ its smallest subnormal).
    With a float64 compute type the reference (PyTorch float64, whose autograd formulas cancel
    where ours do not) carries errors of the same order as ours: the bound then allows 64 units."""
    if unit == UNIT["float64"]:
        ulps = max(ulps, 64)
    got64 = as_f64_numpy(got)
    ref = np.asarray(ref, dtype=np.float64)
    assert got64.shape == ref.shape, f"{what}: shape {got64.shape} != {ref.shape}"
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(np.isnan(got64), np.isnan(ref), err_msg=f"{what}: NaN positions")
    out_unit = UNIT[out_dtype]
    tiny = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149, "float64": 2.0**-1074}[out_dtype]
    bound = ulps * unit * np.asarray(mag) + out_unit * np.abs(ref) + tiny
    err = np.abs(got64 - ref)
    bad = finite & ~(err <= bound)
    if bad.any():
        i = np.argmax(np.where(bad, err / np.maximum(bound, 1e-300), 0))
        raise AssertionError(f"{what}: {bad.sum()} elements outside the bound; worst at flat index {i}: "
                             f"got {got64.flat[i]!r}, reference {ref.flat[i]!r}, bound {np.ravel(bound)[i]!r}")


def to_family(a, family):
    if a is None or family == "numpy":
        return a
    if a.dtype == BF16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy(order="C"))  # (np.ascontiguousarray makes a 0-dim array 1-dim)


# --------------------------------------------------------------------------------------------
# Random problems
# --------------------------------------------------------------------------------------------
SHAPES = [(), (1,), (7,), (3, 5), (2, 3, 4), (4, 1, 6), (2, 3, 2, 5)]


def random_problem(rng):
    shape = SHAPES[rng.integers(len(SHAPES))]
    dtype = ["float16", "bfloat16", "float32", "float64"][rng.integers(4)]
    other = dtype if rng.random() < 0.6 else ["float16", "bfloat16", "float32", "float64"][rng.integers(4)]

    def bshape():  # a shape that broadcasts to shape
        r = rng.integers(0, len(shape) + 1)
        tail = list(shape[len(shape) - r:])
        return tuple(1 if rng.random() < 0.4 else d for d in tail)

    x = make(rng, shape, dtype, "logits")
    y = make(rng, shape, other, "labels")
    w = make(rng, bshape(), dtype, "weights") if rng.random() < 0.5 else None
    pw = make(rng, bshape(), other, "weights") if rng.random() < 0.5 else None
    g = make(rng, bshape(), dtype, "grads")
    return x, y, w, pw, g


@pytest.mark.parametrize("family", ["numpy", "torch"])
@pytest.mark.parametrize("seed", range(40))
def test_random_problems_against_pytorch_float64(family, seed):
    rng = np.random.default_rng(seed)
    x, y, w, pw, g = random_problem(rng)
    reduction = REDUCTIONS[seed % 3]
    xs, ys, ws, pws, gs = (to_family(a, family) for a in (x, y, w, pw, g))
    out_dtype = dtype_name(y)
    unit = compute_unit(x, y, w, pw, g)

    loss = aclnn_bce.binary_cross_entropy_with_logits(xs, ys, ws, pws, reduction)
    assert type(loss) is type(xs)
    assert dtype_name(loss) == out_dtype
    ref, mag = loss_reference(x, y, w, pw, reduction)
    assert_close(loss, ref, mag, out_dtype, unit, what="loss")

    grad = aclnn_bce.binary_cross_entropy_with_logits_backward(gs, xs, ys, ws, pws, reduction)
    ref, mag = grad_reference(g, x, y, w, pw, reduction)
    assert_close(grad, ref, mag, out_dtype, unit, what="grad")

    tgrad = aclnn_bce.binary_cross_entropy_with_logits_target_backward(gs, xs, ys, ws, pws, reduction)
    ref, mag = grad_reference(g, x, y, w, pw, reduction, wrt="target")
    assert_close(tgrad, ref, mag, out_dtype, unit, what="target grad")


@pytest.mark.parametrize("family", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_fused_is_bitwise_forward_and_backward(family, dtype, reduction):
    rng = np.random.default_rng(7)
    x, y = make(rng, (5, 33), dtype, "logits"), make(rng, (5, 33), dtype, "labels")
    pw = make(rng, (33,), dtype, "weights")
    g = make(rng, (), dtype, "grads")
    xs, ys, pws, gs = (to_family(a, family) for a in (x, y, pw, g))
    loss, grad = aclnn_bce.binary_cross_entropy_with_logits_fused(xs, ys, pos_weight=pws, reduction=reduction,
                                                                  grad_output=gs)
    loss2 = aclnn_bce.binary_cross_entropy_with_logits(xs, ys, pos_weight=pws, reduction=reduction)
    grad2 = aclnn_bce.binary_cross_entropy_with_logits_backward(gs, xs, ys, pos_weight=pws, reduction=reduction)
    np.testing.assert_array_equal(as_f64_numpy(loss), as_f64_numpy(loss2))
    np.testing.assert_array_equal(as_f64_numpy(grad), as_f64_numpy(grad2))
    # grad_output None means 1.
    _, grad1 = aclnn_bce.binary_cross_entropy_with_logits_fused(xs, ys, pos_weight=pws, reduction=reduction)
    grad1b = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, xs, ys, pos_weight=pws, reduction=reduction)
    np.testing.assert_array_equal(as_f64_numpy(grad1), as_f64_numpy(grad1b))


# --------------------------------------------------------------------------------------------
# Views, out=, scalars, empty
# --------------------------------------------------------------------------------------------
def test_strided_and_transposed_views_without_copies():
    rng = np.random.default_rng(3)
    base_x = make(rng, (8, 12), "float32", "logits")
    base_y = make(rng, (12, 8), "float32", "labels")
    x = base_x[::2, 1::3]  # steps in both dims
    y = base_y.T[::2, 1::3]  # transposed, then stepped
    w = np.broadcast_to(make(rng, (4,), "float32", "weights"), (4, 4))  # read-only, stride 0
    assert not x.flags.c_contiguous and not y.flags.c_contiguous and not w.flags.writeable
    ref, mag = loss_reference(x, y, w, None, "none")
    got = aclnn_bce.binary_cross_entropy_with_logits(x, y, w, reduction="none")
    assert_close(got, ref, mag, "float32", UNIT["float32"], what="strided loss")
    tx, ty = torch.from_numpy(base_x)[::2, 1::3], torch.from_numpy(base_y).t()[::2, 1::3]
    got_t = aclnn_bce.binary_cross_entropy_with_logits(tx, ty, torch.from_numpy(np.ascontiguousarray(w)),
                                                       reduction="none")
    np.testing.assert_array_equal(got_t.numpy(), got)


def test_negative_strides_in_and_out():
    rng = np.random.default_rng(4)
    x, y = make(rng, (6, 5), "float64", "logits"), make(rng, (6, 5), "float64", "labels")
    g = make(rng, (6, 5), "float64", "grads")
    expect = aclnn_bce.binary_cross_entropy_with_logits_backward(g, x, y, reduction="none")
    got = aclnn_bce.binary_cross_entropy_with_logits_backward(g[::-1], x[::-1], y[::-1], reduction="none")
    np.testing.assert_array_equal(got, expect[::-1])
    storage = np.full((6, 5), np.nan)
    out = storage[::-1, ::-1]
    ret = aclnn_bce.binary_cross_entropy_with_logits_backward(g, x, y, reduction="none", out=out)
    assert ret is out
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("family", ["numpy", "torch"])
def test_out_is_written_in_place_and_nothing_else(family):
    rng = np.random.default_rng(5)
    x, y = make(rng, (4, 6), "float32", "logits"), make(rng, (4, 6), "float32", "labels")
    storage = np.full((4, 12), 1234.5, dtype=np.float32)  # poison; out is every other column
    out = storage[:, ::2]
    xs, ys = to_family(x, family), to_family(y, family)
    outs = out if family == "numpy" else torch.from_numpy(storage)[:, ::2]
    ret = aclnn_bce.binary_cross_entropy_with_logits(xs, ys, reduction="none", out=outs)
    assert ret is outs
    expect = aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none")
    np.testing.assert_array_equal(storage[:, ::2], expect)
    assert (storage[:, 1::2] == np.float32(1234.5)).all(), "an element outside out's view was written"
    scalar_out = np.full((), np.nan, dtype=np.float32)
    if family == "torch":
        scalar_out = torch.from_numpy(scalar_out)
    ret = aclnn_bce.binary_cross_entropy_with_logits(xs, ys, reduction="sum", out=scalar_out)
    assert ret is scalar_out and float(scalar_out) == pytest.approx(float(expect.astype(np.float64).sum()),
                                                                       rel=1e-6)


def test_in_place_gradient_over_input():
    rng = np.random.default_rng(6)
    x, y = make(rng, (3, 7), "float32", "logits"), make(rng, (3, 7), "float32", "labels")
    expect = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y, reduction="sum")
    xi = x.copy()
    aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, xi, y, reduction="sum", out=xi)
    np.testing.assert_array_equal(xi, expect)


def test_scalars_zero_dim_and_empty():
    x = np.array(1.0, np.float32)
    y = np.array(0.5, np.float32)
    got = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y, pos_weight=2.0, reduction="none")
    assert got.shape == () and float(got) == pytest.approx(1.5 / (1 + np.exp(-1.0)) - 1, rel=1e-6)
    empty = np.zeros((0, 3), np.float32)
    assert np.isnan(aclnn_bce.binary_cross_entropy_with_logits(empty, empty, reduction="mean"))
    assert aclnn_bce.binary_cross_entropy_with_logits(empty, empty, reduction="sum") == 0
    assert aclnn_bce.binary_cross_entropy_with_logits(empty, empty, reduction="none").shape == (0, 3)


def test_special_values():
    x = np.array([np.inf, -np.inf, np.nan, -30.0, 30.0], np.float32)
    y = np.array([1.0, 0.0, 0.5, 0.0, 1.0], np.float32)
    loss = aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none")
    assert loss[0] == 0 and loss[1] == 0 and np.isnan(loss[2])
    assert loss[3] == pytest.approx(np.log1p(np.exp(-30.0)), rel=1e-6)  # no cancellation
    assert loss[4] == pytest.approx(np.log1p(np.exp(-30.0)), rel=1e-6)


def test_bfloat16_numpy_and_torch_agree():
    rng = np.random.default_rng(8)
    x, y = make(rng, (9, 10), "bfloat16", "logits"), make(rng, (9, 10), "bfloat16", "labels")
    a = aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none")
    b = aclnn_bce.binary_cross_entropy_with_logits(to_family(x, "torch"), to_family(y, "torch"), reduction="none")
    assert a.dtype == BF16 and b.dtype == torch.bfloat16
    np.testing.assert_array_equal(a.astype(np.float32), b.to(torch.float32).numpy())


def test_threads_run_at_once_and_get_their_own_results():
    """The GIL is released during the call: several threads compute side by side, each correct."""
    rng = np.random.default_rng(9)
    problems = [(make(rng, (256, 257), "float32", "logits"), make(rng, (256, 257), "float32", "labels"))
                for _ in range(4)]
    expect = [aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none") for x, y in problems]
    errors = []

    def work(k):
        try:
            for _ in range(20):
                got = aclnn_bce.binary_cross_entropy_with_logits(*problems[k], reduction="none")
                np.testing.assert_array_equal(got, expect[k])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# --------------------------------------------------------------------------------------------
# Refused calls: the class, and the library's message naming the parameter and the rule
# --------------------------------------------------------------------------------------------
def a32(*shape):
    return np.linspace(-2, 2, int(np.prod(shape)) or 1, dtype=np.float32)[: int(np.prod(shape))].reshape(shape)


@pytest.mark.parametrize("call, error, words", [
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(4, 3)), ValueError, ["target", "shape"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), a32(5)), ValueError, ["weight"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), pos_weight=a32(2, 1, 4)),
     ValueError, ["posWeight"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4).astype(np.int32), a32(3, 4)), TypeError,
     ["self", "dtype"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4).astype(np.int64)), TypeError,
     ["target", "dtype"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), out=np.empty((3, 4), np.float64)),
     TypeError, ["out", "dtype"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), out=np.empty((3, 4), np.float32)),
     ValueError, ["out", "shape"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), reduction="avg"), ValueError,
     ["reduction", "'none'"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), reduction=3), ValueError,
     ["reduction"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), reduction=None), TypeError,
     ["reduction"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits([1.0], a32(1)), TypeError, ["input", "numpy"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3), [0.5, 0.5, 0.5]), TypeError, ["target"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3), None), TypeError, ["target"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3), torch.ones(3)), TypeError, ["target", "numpy"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(torch.ones(3), a32(3)), TypeError, ["target", "torch"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(torch.ones(3), torch.ones(3, device="meta")), ValueError,
     ["target", "CPU"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(3), a32(3), out=np.broadcast_to(a32(1), (3,))),
     ValueError, ["out", "writable"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits(a32(*[1] * 9), a32(*[1] * 9), reduction="none"),
     ValueError, ["8"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits_backward(a32(2, 4), a32(3, 4), a32(3, 4)), ValueError,
     ["gradOutput"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits_backward(None, a32(3, 4), a32(3, 4)), TypeError,
     ["grad_output"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits_target_backward(1.0, a32(3, 4), a32(3, 4),
                                                                         out=np.empty((4, 3), np.float32)),
     ValueError, ["gradTarget"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits_fused(a32(3, 4), a32(3, 4), grad_output=a32(2)),
     ValueError, ["gradOutput"]),
    (lambda: aclnn_bce.binary_cross_entropy_with_logits_fused(a32(3, 4), a32(3, 4), reduction="none",
                                                              grad_input=np.empty((3, 4), np.float16)),
     TypeError, ["gradInput", "dtype"]),
])
def test_refused_calls_raise_with_the_rule(call, error, words):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


def test_a_refused_call_writes_nothing():
    out = np.full((3, 4), 77.0, np.float32)
    with pytest.raises(ValueError):
        aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4), a32(3, 4), a32(5), reduction="none", out=out)
    assert (out == np.float32(77.0)).all()


def _loss_in_child(seed):
    rng = np.random.default_rng(seed)
    x, y = make(rng, (64, 65), "float32", "logits"), make(rng, (64, 65), "float32", "labels")
    return aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none")


def test_forked_children_compute_after_the_parent_has():
    """The runtime's fork rule (README, "Lifetimes, resource limits, exit and fork"): a child forked
    after the parent has run launches, with the worker threads started, computes on its own."""
    import multiprocessing

    aclnn_bce.set_num_threads(2)
    expect = [_loss_in_child(s) for s in range(3)]  # the parent's threads are started now
    with multiprocessing.get_context("fork").Pool(2) as pool:
        got = pool.map(_loss_in_child, range(3))
    for a, b in zip(got, expect):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("family", ["numpy", "torch"])
def test_large_outputs_come_from_the_cache_and_never_share_memory(family):
    """Outputs of 4 MiB and more come from the library's block cache (Note [Output cache]): each
    live output has its own memory, a dead one's block serves the next output of its size, and
    the values are those of a caller's out=."""
    rng = np.random.default_rng(10)
    n = (aclnn_bce._aclnn_bce.CACHED_OUTPUT_MIN_BYTES // 4) + 4096  # just above the threshold
    x, y = make(rng, (n,), "float32", "logits"), make(rng, (n,), "float32", "labels")
    xs, ys = to_family(x, family), to_family(y, family)
    expect = np.empty(n, np.float32)
    aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none", out=expect)

    def address(a):
        return a.data_ptr() if family == "torch" else a.__array_interface__["data"][0]

    first = aclnn_bce.binary_cross_entropy_with_logits(xs, ys, reduction="none")
    second = aclnn_bce.binary_cross_entropy_with_logits(xs, ys, reduction="none")
    assert type(first) is type(xs) and tuple(first.shape) == (n,)
    assert address(first) != address(second)
    np.testing.assert_array_equal(as_f64_numpy(first), expect.astype(np.float64))
    np.testing.assert_array_equal(as_f64_numpy(second), expect.astype(np.float64))
    first[0] = 42  # writable, and only first
    assert float(second[0]) == float(expect[0])
    freed = address(second)
    del second
    third = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, xs, ys, reduction="none")
    assert address(third) == freed, "a dead output's block was not reused"
    grad = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y, reduction="none")
    np.testing.assert_array_equal(as_f64_numpy(third), grad.astype(np.float64))
    loss, g = aclnn_bce.binary_cross_entropy_with_logits_fused(xs, ys, reduction="sum")
    assert address(g) not in (address(first), address(third))
    np.testing.assert_array_equal(as_f64_numpy(g), grad.astype(np.float64))


def test_hostile_descriptors_are_refused_not_read():
    """run_raw takes addresses as given (as ctypes would); what cannot be a view is refused."""
    ext = aclnn_bce._aclnn_bce
    good = np.ones(4, np.float32)
    desc = (good.__array_interface__["data"][0], (4,), (1,), 0)
    out = np.empty(4, np.float32)
    out_desc = (out.__array_interface__["data"][0], (4,), (1,), 0)
    for bad, error, words in [
        ((desc[0], (2**62, 4), (2**62, 1), 0), ValueError, "more than 2\\^63"),
        ((desc[0], (-3,), (1,), 0), ValueError, "input"),
        ((desc[0], (4,), (-1,), 0), ValueError, "negative"),
        ((desc[0], (4,), (1, 1), 0), ValueError, "stride"),
        ((desc[0], (4,), (1,), -2), TypeError, "dtype"),
        ((desc[0], (4,)), TypeError, "descriptor"),
    ]:
        with pytest.raises(error, match=words):
            ext.run_raw(ext.Op.forward, 0, input=bad, target=desc, out=out_desc)


def test_torch_tensors_the_extension_reads_and_the_ones_it_declines(monkeypatch):
    """Plain CPU tensors are read by the extension itself (torch_call, Note [Torch tensors read
    here]); what it declines (a subclass such as a Parameter, a tensor on another device) takes
    the general path, with the same bits or the same refusal, and a dtype it reads but the library
    refuses gets the library's rule."""
    rng = np.random.default_rng(5)
    x = torch.from_numpy(make(rng, (6, 7), "float32", "logits"))
    y = torch.from_numpy(make(rng, (6, 7), "float32", "labels"))
    pw = torch.rand(7, generator=torch.Generator().manual_seed(5)) + 0.5
    general = aclnn_bce._api._general
    with monkeypatch.context() as m:  # plain CPU tensors never reach the general path
        m.setattr(aclnn_bce._api, "_general", lambda *args: pytest.fail("the general path ran"))
        plain = aclnn_bce.binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction="none")
    assert aclnn_bce._api._general is general
    as_parameters = aclnn_bce.binary_cross_entropy_with_logits(
        torch.nn.Parameter(x.clone(), requires_grad=False), y,
        pos_weight=torch.nn.Parameter(pw.clone(), requires_grad=False), reduction="none")
    assert torch.equal(plain, as_parameters)
    out = torch.full((6, 7), 77.0)
    assert aclnn_bce.binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction="none", out=out) is out
    assert torch.equal(out, plain)
    with pytest.raises(TypeError, match="target"):
        aclnn_bce.binary_cross_entropy_with_logits(x, y.to(torch.int64))
    with pytest.raises(ValueError, match="CPU"):
        aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none", out=torch.empty(6, 7, device="meta"))


def test_every_operator_takes_the_extension_path_for_plain_tensors_with_any_reduction_form(monkeypatch):
    """The four operators over plain CPU tensors never reach the Python layer's general path,
    whether reduction is a name or an int, and give the bits of the general path (the numpy
    arrays over the same memory); a reduction of another type or name is refused as before."""
    rng = np.random.default_rng(11)
    x, g = (torch.from_numpy(make(rng, (5, 9), "float32", kind)) for kind in ("logits", "grads"))
    y = torch.from_numpy(make(rng, (5, 9), "float32", "labels"))
    pw = torch.from_numpy(make(rng, (9,), "float32", "weights"))
    g0 = torch.tensor(0.75)
    calls = {
        "forward": lambda t, red: aclnn_bce.binary_cross_entropy_with_logits(t(x), t(y), None, t(pw), red),
        "backward": lambda t, red: aclnn_bce.binary_cross_entropy_with_logits_backward(t(g), t(x), t(y), None,
                                                                                        t(pw), red),
        "target": lambda t, red: aclnn_bce.binary_cross_entropy_with_logits_target_backward(t(g), t(x), t(y), t(pw),
                                                                                            None, red),
        "fused": lambda t, red: aclnn_bce.binary_cross_entropy_with_logits_fused(t(x), t(y), t(pw), None, red,
                                                                                 grad_output=t(g0)),
    }
    def results(r):  # every result of a call, as a tuple
        return r if isinstance(r, tuple) else (r,)

    aclnn_bce.binary_cross_entropy_with_logits(x, y)  # registers torch with the extension
    for name, call in calls.items():
        for red, value in (("none", 0), ("mean", 1), ("sum", 2)):
            expected = results(call(lambda t: t.numpy(), red))
            with monkeypatch.context() as m:
                m.setattr(aclnn_bce._api, "_general", lambda *args: pytest.fail(f"{name}: the general path ran"))
                by_name, by_int = results(call(lambda t: t, red)), results(call(lambda t: t, value))
            for got in (by_name, by_int, results(call(lambda t: t, np.int64(value)))):  # np.int64: general path
                assert len(got) == len(expected)
                for a, b in zip(got, expected):
                    assert isinstance(a, torch.Tensor) and a.shape == b.shape, (name, red)
                    np.testing.assert_array_equal(a.numpy(), b, err_msg=f"{name} {red}")
        with pytest.raises(TypeError, match="reduction"):
            call(lambda t: t, True)
        with pytest.raises(ValueError, match="reduction"):
            call(lambda t: t, "avg")
        with pytest.raises(ValueError, match="reduction"):
            call(lambda t: t, 3)


def test_an_output_larger_than_memory_raises_memory_error():
    """A stride-0 view can describe more elements than memory holds; its new output is refused
    with MemoryError before anything runs, for torch tensors and numpy arrays alike; a view of
    more bytes than 64 bits count is refused with the library's rule."""
    x = torch.zeros(1).expand(2**60)  # 4 EiB of float32
    with pytest.raises(MemoryError):
        aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, x, reduction="none")
    with pytest.raises(MemoryError):
        aclnn_bce.binary_cross_entropy_with_logits_fused(x, x, reduction="sum")
    xn = np.broadcast_to(np.float32(0.5), (2**60,))
    with pytest.raises(MemoryError):
        aclnn_bce.binary_cross_entropy_with_logits(xn, xn, reduction="none")
    huge = torch.zeros(1).expand(2**62)
    with pytest.raises(ValueError, match="64 bits"):
        aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, huge, huge, reduction="none")


def test_new_zero_dim_losses_are_their_own_tensors():
    """A new 0-dim loss is written by the library to the calling thread's fixed slot and copied
    into a new tensor (Note [The loss through a fixed address]): every result keeps its own value
    after later calls, on any thread, and equals the numpy path's bits."""
    rng = np.random.default_rng(21)
    cases = [tuple(torch.from_numpy(make(rng, (8, 5), "float32", kind)) for kind in ("logits", "labels"))
             for _ in range(6)]
    kept = [(aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction=red),
             aclnn_bce.binary_cross_entropy_with_logits_fused(x, y, reduction=red)[0], x, y, red)
            for x, y in cases for red in ("mean", "sum")]
    assert len({loss.data_ptr() for loss, *_ in kept} | {fused.data_ptr() for _, fused, *_ in kept}) == 2 * len(kept)
    for loss, fused, x, y, red in kept:
        want = aclnn_bce.binary_cross_entropy_with_logits(x.numpy(), y.numpy(), reduction=red)
        assert loss.shape == () and loss.dtype == torch.float32
        np.testing.assert_array_equal(loss.numpy(), want)
        np.testing.assert_array_equal(fused.numpy(), want)
    results = {}

    def worker(k):
        x, y = cases[k]
        results[k] = [aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="sum") for _ in range(200)]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, losses in results.items():
        want = aclnn_bce.binary_cross_entropy_with_logits(cases[k][0].numpy(), cases[k][1].numpy(), reduction="sum")
        for loss in losses:
            np.testing.assert_array_equal(loss.numpy(), want)


# --------------------------------------------------------------------------------------------
# numpy dtypes nanobind cannot take; negative-stride outputs and the aliasing rule
# --------------------------------------------------------------------------------------------
UNSUPPORTED_NUMPY = [
    ("object", lambda a: a.astype(object)),
    ("str", lambda a: a.astype("U8")),
    ("bytes", lambda a: a.astype("S8")),
    ("void", lambda a: np.zeros(a.shape, "V4")),
    ("datetime", lambda a: np.zeros(a.shape, "datetime64[s]")),
    ("big-endian float32", lambda a: a.astype(">f4")),
    ("structured", lambda a: np.zeros(a.shape, [("v", "<f4")])),
]
if np.dtype(np.longdouble).itemsize > 8:
    UNSUPPORTED_NUMPY.append(("longdouble", lambda a: a.astype(np.longdouble)))


@pytest.mark.parametrize("slot", ["input", "target", "weight", "pos_weight", "out"])
@pytest.mark.parametrize("what,convert", UNSUPPORTED_NUMPY, ids=[u[0] for u in UNSUPPORTED_NUMPY])
def test_unsupported_numpy_dtypes_get_a_type_error_naming_the_parameter(what, convert, slot):
    args = {"input": a32(3, 4), "target": a32(3, 4) * 0 + 0.5, "weight": None, "pos_weight": None,
            "out": np.full((3, 4), 7.0, np.float32)}
    args[slot] = convert(a32(3, 4))
    with pytest.raises(TypeError) as info:
        aclnn_bce.binary_cross_entropy_with_logits(args["input"], args["target"], args["weight"], args["pos_weight"],
                                                   reduction="none", out=args["out"])
    message = str(info.value)
    assert message.startswith(f"{slot}: dtype ") and "use float32, float16, bfloat16 or float64" in message, message
    assert "incompatible function arguments" not in message
    if slot != "out":
        assert (args["out"] == 7.0).all()


@pytest.mark.parametrize("dtype,name", [(np.int32, "self"), (np.bool_, "self"), (np.complex64, "self"),
                                        (np.uint8, "self")])
def test_integer_bool_and_complex_arrays_get_the_librarys_dtype_rule(dtype, name):
    with pytest.raises(TypeError) as info:
        aclnn_bce.binary_cross_entropy_with_logits(a32(3, 4).astype(dtype), a32(3, 4))
    assert name in str(info.value) and "dtype" in str(info.value)
    assert "incompatible function arguments" not in str(info.value)


def test_fused_outputs_never_share_memory_through_negative_strides():
    """The issue's case: out=buf[::-1], grad_input=buf; and partial overlaps through a reversed
    view; each refused before anything is written."""
    x, y = a32(5), np.full(5, 0.25, np.float32)
    buf = np.full(10, 7.0, np.float32)
    for out, grad in ((buf[:5][::-1], buf[:5]), (buf[:5], buf[:5][::-1]), (buf[2:7][::-1], buf[:5]),
                      (buf[::-2], buf[1::2])):
        with pytest.raises(ValueError, match="share memory"):
            aclnn_bce.binary_cross_entropy_with_logits_fused(x, y, reduction="none", out=out, grad_input=grad)
        assert (buf == 7.0).all()
    # Interleaved without a shared byte: accepted, each written.
    loss, grad = aclnn_bce.binary_cross_entropy_with_logits_fused(x, y, reduction="none", out=buf[::-2],
                                                                  grad_input=buf[-2::-2])
    np.testing.assert_array_equal(buf[::-2], aclnn_bce.binary_cross_entropy_with_logits(x, y, reduction="none"))
    np.testing.assert_array_equal(buf[-2::-2], aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y,
                                                                                                   reduction="none"))


def test_a_negative_stride_out_follows_the_aliasing_rule():
    """An out with negative strides is written through a temporary, and the library's rule holds
    for the caller's arrays: the very same view as an input is an in-place call (the bits of the
    out-of-place one); any other sharing with an input is refused (out=x[:, ::-1] with input x);
    sharing nothing is accepted."""
    rng = np.random.default_rng(12)
    x, y = make(rng, (4, 6), "float32", "logits"), make(rng, (4, 6), "float32", "labels")
    expect = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y, reduction="none")
    kept = x.copy()
    with pytest.raises(ValueError, match="out shares memory with input other than as the very same view"):
        aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y, reduction="none", out=x[:, ::-1])
    np.testing.assert_array_equal(x, kept)
    with pytest.raises(ValueError, match="out shares memory with target"):
        aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, x, y[::-1], reduction="none", out=y)
    xr = x[::-1].copy()[::-1]  # a reversed view over its own buffer, holding x's values
    ret = aclnn_bce.binary_cross_entropy_with_logits_backward(1.0, xr, y, reduction="none", out=xr)
    assert ret is xr
    np.testing.assert_array_equal(xr, expect)


def test_an_out_overlapping_itself_through_a_temporary_is_refused():
    x, y = a32(4), np.full(4, 0.25, np.float32)
    base = np.full(8, 7.0, np.float32)
    out = np.lib.stride_tricks.as_strided(base[4:], shape=(2, 2), strides=(-4, -4), writeable=True)
    with pytest.raises(ValueError, match="out: its elements may share memory"):
        aclnn_bce.binary_cross_entropy_with_logits(x.reshape(2, 2), y.reshape(2, 2), reduction="none", out=out)
    assert (base == 7.0).all()


def test_operators_and_dtypes_are_enums_of_the_library():
    """The extension's Op names the library's API list (each with its CANN name and operands by
    role) and DType the library's element types by CANN's names; the Python layer passes these,
    never numbers of its own."""
    ext = aclnn_bce._aclnn_bce
    names = {op.name: ext.api(op) for op in aclnn_bce.Op}
    assert {"forward", "backward", "target_backward", "fused"} <= set(names)
    assert names["forward"][0] == "aclnnBinaryCrossEntropyWithLogits"
    assert names["fused"][0] == "aclnnBinaryCrossEntropyWithLogitsFused"
    roles = {role: kind for _, role, kind in names["fused"][1]}
    assert roles["out"] == "reduced_output" and roles["grad_input"] == "output"
    assert roles["grad_output"] == "optional_input" and roles["reduction"] == "int64"
    assert [p for p, _, _ in names["backward"][1]] == ["gradOutput", "self", "target", "weightOptional",
                                                      "posWeightOptional", "reduction", "out"]
    assert {"FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT32"} <= {d.name for d in aclnn_bce.DType}
    assert aclnn_bce._api._NP_CODES[np.dtype(np.float64)] is aclnn_bce.DType.DOUBLE
    with pytest.raises(ValueError, match="takes no grad_input"):
        ext.run(aclnn_bce.Op.forward, 0, input=np.zeros(2, np.float32), target=np.zeros(2, np.float32),
                out=np.zeros(2, np.float32), grad_input=np.zeros(2, np.float32))


def test_the_exception_class_is_the_kind_the_library_reports():
    """TypeError for a dtype rule, ValueError for any other rule, whatever the message says."""
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match="dtype"):
        aclnn_bce.binary_cross_entropy_with_logits(x, x.astype(np.int32))
    with pytest.raises(ValueError, match="shape"):
        aclnn_bce.binary_cross_entropy_with_logits(x, np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="reduction"):
        aclnn_bce.binary_cross_entropy_with_logits(x, x, reduction=7)
