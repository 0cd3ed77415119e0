"""aclnn_bce.torch against PyTorch: values, gradients, gradcheck, the module, errors, enable()."""

from __future__ import annotations

import warnings
import zlib

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import aclnn_bce.torch as at  # noqa: E402
from aclnn_bce import _api  # noqa: E402
from aclnn_bce.torch import functional as atF  # noqa: E402

# PyTorch's own function object, taken before any test could enable the routing.
TORCH_BCE = F.binary_cross_entropy_with_logits
REDUCTIONS = ("none", "mean", "sum")
# Relative tolerance against a float64 reference, by result dtype.
RTOL = {torch.float64: 1e-12, torch.float32: 2e-6, torch.bfloat16: 2e-2, torch.float16: 2e-3}
ATOL = {torch.float64: 1e-14, torch.float32: 1e-7, torch.bfloat16: 1e-3, torch.float16: 1e-5}


@pytest.fixture(autouse=True)
def _restore_routing():
    """No test leaves PyTorch's function routed to this library."""
    yield
    at.disable()
    assert F.binary_cross_entropy_with_logits is TORCH_BCE


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _case(shape, dtype, seed, weight=None, pos_weight=None):
    """Random logits in [-4, 4], labels in [0, 1] (no zeros everywhere), positive weights of the
    given shapes (None: none)."""
    g = _gen(seed)
    x = (torch.rand(shape, generator=g, dtype=torch.float64) * 8 - 4).to(dtype)
    y = torch.rand(shape, generator=g, dtype=torch.float64).to(dtype)
    w = None if weight is None else (torch.rand(weight, generator=g, dtype=torch.float64) + 0.25).to(dtype)
    pw = None if pos_weight is None else (torch.rand(pos_weight, generator=g, dtype=torch.float64) * 2 + 0.1).to(dtype)
    return x, y, w, pw


def _f64(t):
    return None if t is None else t.detach().to(torch.float64)


def _reference(x, y, w, pw, reduction, grad_output=None, target_grad=True):
    """PyTorch's loss and gradients (input, target) in float64 on the same values."""
    x64 = _f64(x).requires_grad_()
    y64 = _f64(y).requires_grad_(target_grad)
    loss = TORCH_BCE(x64, y64, _f64(w), reduction=reduction, pos_weight=_f64(pw))
    go = torch.ones_like(loss) if grad_output is None else _f64(grad_output)
    grads = torch.autograd.grad(loss, [x64, y64] if target_grad else [x64], go)
    return loss.detach(), grads[0], (grads[1] if target_grad else None)


def _close(actual, expected, dtype, scale=1.0):
    torch.testing.assert_close(actual.to(torch.float64), expected, rtol=RTOL[dtype] * scale,
                               atol=ATOL[dtype] * scale)


WEIGHTS = [  # (weight shape, pos_weight shape) for input (B, C) = (5, 7)
    (None, None),
    ((5, 7), None),
    (None, (7,)),
    ((7,), (7,)),
    ((5, 1), (1, 7)),
    ((), ()),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("wshapes", WEIGHTS, ids=[f"w{w}-pw{p}" for w, p in WEIGHTS])
def test_loss_and_gradients_match_torch_float64(dtype, reduction, wshapes):
    """Loss, gradient for input and for target equal PyTorch's float64 results within the
    dtype's tolerance, with broadcast weight / pos_weight; results have target's dtype."""
    seed = zlib.crc32(f"{dtype}{reduction}{wshapes}".encode()) & 0xFFFF
    x, y, w, pw = _case((5, 7), dtype, seed, *wshapes)
    xr = x.clone().requires_grad_()
    yr = y.clone().requires_grad_()
    loss = at.binary_cross_entropy_with_logits(xr, yr, w, reduction=reduction, pos_weight=pw)
    assert loss.dtype == dtype and loss.shape == ((5, 7) if reduction == "none" else ())
    go = None
    if reduction == "none":
        go = (torch.rand((5, 7), generator=_gen(seed + 1), dtype=torch.float64) + 0.5).to(dtype)
    loss.backward(go)
    ref_loss, ref_gx, ref_gy = _reference(x, y, w, pw, reduction, go)
    scale = 8.0 if reduction == "sum" and dtype in (torch.bfloat16, torch.float16) else 1.0
    _close(loss.detach(), ref_loss, dtype, scale)
    assert xr.grad.dtype == dtype and yr.grad.dtype == dtype
    _close(xr.grad, ref_gx, dtype)
    _close(yr.grad, ref_gy, dtype)


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "separate"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_input_only_gradient_both_paths(monkeypatch, fused, dtype, reduction):
    """With only input requiring grad the forward uses the fused operator (small inputs) or the
    forward + backward operators (large ones): both give PyTorch's gradient, also for a
    non-unit grad_output."""
    monkeypatch.setattr(atF, "FUSED_MAX_NUMEL", 1 << 30 if fused else -1)
    calls = _OpCalls(monkeypatch)
    x, y, w, pw = _case((6, 4), dtype, 11, (4,), (4,))
    xr = x.clone().requires_grad_()
    loss = at.binary_cross_entropy_with_logits(xr, y, w, reduction=reduction, pos_weight=pw)
    go = torch.full_like(loss, 1.5) if reduction != "none" else (torch.rand((6, 4), generator=_gen(3)) + 0.5).to(dtype)
    loss.backward(go)
    n_fused, n_forward = (1, 0) if fused else (0, 1)
    assert calls.count == {"binary_cross_entropy_with_logits": n_forward,
                           "binary_cross_entropy_with_logits_backward": n_forward,
                           "binary_cross_entropy_with_logits_target_backward": 0,
                           "binary_cross_entropy_with_logits_fused": n_fused}
    ref_loss, ref_gx, _ = _reference(x, y, w, pw, reduction, go, target_grad=False)
    _close(loss.detach(), ref_loss, dtype, 4.0 if reduction == "sum" and dtype == torch.bfloat16 else 1.0)
    _close(xr.grad, ref_gx, dtype, 2.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_fused_unit_grad_output_hands_the_saved_gradient_over(monkeypatch, dtype, reduction):
    """loss.backward() (a 0-dim 1): the fused path's gradient has the separate path's bits; a
    retained graph's second backward and gradient accumulation see an untouched saved gradient."""
    x, y, w, pw = _case((5, 16), dtype, 29, (5, 16), (16,))
    grads = {}
    for fused in (True, False):
        monkeypatch.setattr(atF, "FUSED_MAX_NUMEL", 1 << 30 if fused else -1)
        xr = x.clone().requires_grad_()
        at.binary_cross_entropy_with_logits(xr, y, w, reduction=reduction, pos_weight=pw).backward()
        grads[fused] = xr.grad
    assert torch.equal(grads[True].view(torch.int16), grads[False].view(torch.int16))

    monkeypatch.setattr(atF, "FUSED_MAX_NUMEL", 1 << 30)
    xr = x.clone().requires_grad_()
    loss = at.binary_cross_entropy_with_logits(xr, y, w, reduction=reduction, pos_weight=pw)
    loss.backward(retain_graph=True)
    first = xr.grad.clone()
    loss.backward(retain_graph=True)  # accumulates: x.grad must not be the saved tensor itself
    loss.backward()
    assert torch.equal(xr.grad, first + first + first)
    # A second step accumulating into the first step's gradient leaves that step's loss alone.
    xr.grad = None
    at.binary_cross_entropy_with_logits(xr, y, w, reduction=reduction, pos_weight=pw).backward()
    at.binary_cross_entropy_with_logits(xr, y, w, reduction=reduction, pos_weight=pw).backward()
    assert torch.equal(xr.grad, first + first)


def test_mixed_dtypes_cast_input_gradient():
    """Input bfloat16 / float16 with a float32 target: the loss has target's dtype, input's
    gradient is cast to input's dtype (and target's gradient keeps target's)."""
    for xdt in (torch.bfloat16, torch.float16):
        x, y, _, pw = _case((3, 8), torch.float32, 5, None, (8,))
        x = x.to(xdt)
        xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
        loss = at.binary_cross_entropy_with_logits(xr, yr, pos_weight=pw, reduction="sum")
        loss.backward()
        assert loss.dtype == torch.float32 and xr.grad.dtype == xdt and yr.grad.dtype == torch.float32
        ref_loss, ref_gx, ref_gy = _reference(x, y, None, pw, "sum")
        _close(loss.detach(), ref_loss, torch.float32, 4.0)
        _close(xr.grad, ref_gx, xdt)
        _close(yr.grad, ref_gy, torch.float32, 4.0)
        # Against PyTorch on the same dtypes: same dtype for the loss.
        assert TORCH_BCE(x, y, pos_weight=pw, reduction="sum").dtype == loss.dtype


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("wshapes", [(None, None), ((3, 4), None), (None, (4,)), ((4,), (4,))],
                         ids=["plain", "weight", "pos_weight[C]", "both[C]"])
def test_gradcheck_float64(reduction, wshapes):
    """torch.autograd.gradcheck in float64 for input and target together, and for input alone
    (the fused path)."""
    x, y, w, pw = _case((3, 4), torch.float64, 17, *wshapes)
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()

    def f(a, b):
        return at.binary_cross_entropy_with_logits(a, b, w, reduction=reduction, pos_weight=pw)

    assert torch.autograd.gradcheck(f, (xr, yr))
    assert torch.autograd.gradcheck(lambda a: f(a, y), (xr,))
    assert torch.autograd.gradcheck(lambda b: f(x, b), (yr,))


def test_gradcheck_separate_path(monkeypatch):
    """gradcheck for input alone through the forward + backward operators (no fused)."""
    monkeypatch.setattr(atF, "FUSED_MAX_NUMEL", -1)
    x, y, w, pw = _case((2, 5), torch.float64, 23, (2, 1), (5,))
    for reduction in REDUCTIONS:
        assert torch.autograd.gradcheck(
            lambda a: at.binary_cross_entropy_with_logits(a, y, w, reduction=reduction, pos_weight=pw),
            (x.clone().requires_grad_(),))


def test_zero_dim_and_empty():
    """0-dim operands (loss 0-dim for every reduction) and empty ones (mean is NaN, as in
    PyTorch)."""
    for reduction in REDUCTIONS:
        x = torch.tensor(0.75, dtype=torch.float64, requires_grad=True)
        y = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)
        pw = torch.tensor(1.5, dtype=torch.float64)
        loss = at.binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction=reduction)
        assert loss.shape == ()
        loss.backward()
        ref_loss, ref_gx, ref_gy = _reference(x, y, None, pw, reduction)
        _close(loss.detach(), ref_loss, torch.float64)
        _close(x.grad, ref_gx, torch.float64)
        _close(y.grad, ref_gy, torch.float64)
    for reduction in REDUCTIONS:
        e = torch.empty(0, 3)
        torch.testing.assert_close(at.binary_cross_entropy_with_logits(e, e, reduction=reduction),
                                   TORCH_BCE(e, e, reduction=reduction), equal_nan=True)


def test_non_contiguous_operands():
    """Transposed, strided and expanded operands (and an expanded grad_output) give the results
    of their contiguous copies and PyTorch's."""
    g = _gen(29)
    base_x = torch.rand(8, 12, generator=g, dtype=torch.float64) * 6 - 3
    base_y = torch.rand(12, 8, generator=g, dtype=torch.float64)
    w = (torch.rand(8, generator=g, dtype=torch.float64) + 0.5).expand(6, 8)  # stride 0
    pw = torch.rand(1, generator=g, dtype=torch.float64).add(0.5).expand(8)
    for reduction in REDUCTIONS:
        bx, by = base_x.clone().requires_grad_(), base_y.clone().requires_grad_()
        x = bx[:, ::2].t()  # (6, 8), strides (2, 12)
        y = by[::2]  # (6, 8), row stride 16
        assert not x.is_contiguous() and not y.is_contiguous()
        loss = at.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw)
        go = torch.rand(8, dtype=torch.float64, generator=g).add(0.5).expand(6, 8) if reduction == "none" else None
        loss.backward(go)
        ref_loss, ref_gx, ref_gy = _reference(x, y, w, pw, reduction, go)
        _close(loss.detach(), ref_loss, torch.float64)
        _close(bx.grad[:, ::2].t(), ref_gx, torch.float64)
        _close(by.grad[::2], ref_gy, torch.float64)
        assert not bx.grad[:, 1::2].any() and not by.grad[1::2].any()
        with torch.no_grad():
            plain = at.binary_cross_entropy_with_logits(x.contiguous(), y.contiguous(), w.contiguous(),
                                                        reduction=reduction, pos_weight=pw.contiguous())
            torch.testing.assert_close(at.binary_cross_entropy_with_logits(x, y, w, reduction=reduction,
                                                                           pos_weight=pw), plain)


def test_module_matches_torch_module():
    """BCEWithLogitsLoss: PyTorch's subclass, weight / pos_weight as buffers (state_dict, .to),
    PyTorch's results, legacy size_average / reduce."""
    x, y, w, pw = _case((4, 6), torch.float32, 31, (6,), (6,))
    ours = at.BCEWithLogitsLoss(weight=w, pos_weight=pw)
    theirs = torch.nn.BCEWithLogitsLoss(weight=w, pos_weight=pw)
    assert isinstance(ours, torch.nn.BCEWithLogitsLoss)
    assert set(dict(ours.named_buffers())) == {"weight", "pos_weight"}
    assert set(ours.state_dict()) == set(theirs.state_dict()) == {"weight", "pos_weight"}
    torch.testing.assert_close(ours(x, y), theirs(x, y))
    ours64 = ours.to(torch.float64)
    assert ours64.weight.dtype == torch.float64 and ours64.pos_weight.dtype == torch.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for size_average, reduce, expected in ((False, None, "sum"), (None, False, "none"), (True, True, "mean")):
            m = at.BCEWithLogitsLoss(size_average=size_average, reduce=reduce)
            assert m.reduction == expected
            torch.testing.assert_close(m(x, y), torch.nn.BCEWithLogitsLoss(size_average=size_average, reduce=reduce)(x, y))
            torch.testing.assert_close(
                at.binary_cross_entropy_with_logits(x, y, size_average=size_average, reduce=reduce),
                TORCH_BCE(x, y, size_average=size_average, reduce=reduce))
    plain = at.BCEWithLogitsLoss(reduction="none")
    assert plain.weight is None and plain.pos_weight is None
    torch.testing.assert_close(plain(x, y), TORCH_BCE(x, y, reduction="none"))


def test_errors_match_torch_classes():
    """Wrong shapes -> ValueError (target size: PyTorch's class and message), unsupported dtypes
    -> TypeError, non-CPU tensors -> ValueError, a weight requiring grad -> RuntimeError."""
    x, y, _, _ = _case((3, 4), torch.float32, 37)
    with pytest.raises(ValueError, match=r"Target size .* must be the same as input size"):
        at.binary_cross_entropy_with_logits(x, y[0])
    with pytest.raises(ValueError):
        TORCH_BCE(x, y[0])
    with pytest.raises(ValueError, match="weight shape"):
        at.binary_cross_entropy_with_logits(x, y, torch.rand(5))
    with pytest.raises(ValueError, match="pos_weight shape"):
        at.binary_cross_entropy_with_logits(x, y, pos_weight=torch.rand(2, 3, 4))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        at.binary_cross_entropy_with_logits(x, y, reduction="avg")
    with pytest.raises(TypeError, match="dtype"):
        at.binary_cross_entropy_with_logits(x, (y > 0.5).long())
    with pytest.raises(TypeError, match="dtype"):
        at.binary_cross_entropy_with_logits(x.to(torch.complex64), y.to(torch.complex64))
    with pytest.raises(TypeError, match="torch.Tensor"):
        at.binary_cross_entropy_with_logits(x, y.numpy())
    with pytest.raises(ValueError, match="CPU tensor"):
        at.binary_cross_entropy_with_logits(x.to("meta"), y.to("meta"))
    w = torch.rand(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        at.binary_cross_entropy_with_logits(x, y, w)
    with pytest.raises(RuntimeError):
        TORCH_BCE(x, y, w)
    with torch.no_grad():  # allowed without grad mode, as in PyTorch
        torch.testing.assert_close(at.binary_cross_entropy_with_logits(x, y, w), TORCH_BCE(x, y, w))


def test_custom_ops_registered_and_opcheck():
    """The four operators exist in torch.ops.aclnn_bce and pass torch.library.opcheck (schema,
    fake kernel, autograd registration, AOT dispatch)."""
    x, y, w, pw = _case((3, 5), torch.float32, 41, (5,), (1, 5))
    ops = torch.ops.aclnn_bce
    for reduction in (0, 1, 2):
        xr = x.clone().requires_grad_()
        torch.library.opcheck(ops.binary_cross_entropy_with_logits, (xr, y, w, pw, reduction))
        torch.library.opcheck(ops.binary_cross_entropy_with_logits_fused, (xr, y, None, pw, reduction))
        go = torch.rand((3, 5) if reduction == 0 else (), generator=_gen(reduction)) + 0.5
        torch.library.opcheck(ops.binary_cross_entropy_with_logits_backward, (go, x, y, w, pw, reduction))
        torch.library.opcheck(ops.binary_cross_entropy_with_logits_target_backward, (go, x, y, w, None, reduction))
    with pytest.raises(ValueError):
        ops.binary_cross_entropy_with_logits(x, y, w, pw, 3)


# --------------------------------------------------------------------------------------------
# enable() / disable()


class _OpCalls:
    """Counts the calls of the library's functions behind the custom operators."""

    NAMES = ("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits_backward",
             "binary_cross_entropy_with_logits_target_backward", "binary_cross_entropy_with_logits_fused")

    def __init__(self, monkeypatch):
        self.count = {n: 0 for n in self.NAMES}
        for n in self.NAMES:
            real = getattr(_api, n)

            def counted(*a, _real=real, _n=n, **k):
                self.count[_n] += 1
                return _real(*a, **k)

            monkeypatch.setattr(_api, n, counted)

    def total(self) -> int:
        return sum(self.count.values())


def test_enable_routes_torch_loss_to_ours(monkeypatch):
    """After enable(), PyTorch's function and module (unchanged code) run our operators for every
    supported dtype, forward and backward, with PyTorch's results; disable() restores the very
    function object."""
    calls = _OpCalls(monkeypatch)
    assert not at.is_enabled()
    at.enable()
    at.enable()  # idempotent
    assert at.is_enabled() and F.binary_cross_entropy_with_logits is not TORCH_BCE
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        x, y, w, pw = _case((4, 3), dtype, 43, (3,), (3,))
        xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
        before = dict(calls.count)
        loss = torch.nn.BCEWithLogitsLoss(weight=w, pos_weight=pw)(xr, yr)
        loss.backward()
        assert calls.count["binary_cross_entropy_with_logits"] == before["binary_cross_entropy_with_logits"] + 1
        assert calls.count["binary_cross_entropy_with_logits_backward"] == before["binary_cross_entropy_with_logits_backward"] + 1
        assert calls.count["binary_cross_entropy_with_logits_target_backward"] == before["binary_cross_entropy_with_logits_target_backward"] + 1
        ref_loss, ref_gx, ref_gy = _reference(x, y, w, pw, "mean")
        _close(loss.detach(), ref_loss, dtype)
        _close(xr.grad, ref_gx, dtype)
        _close(yr.grad, ref_gy, dtype)
    # The profiler sees our operators and not PyTorch's.
    x, y, _, _ = _case((4, 3), torch.float32, 47)
    xr = x.clone().requires_grad_()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        F.binary_cross_entropy_with_logits(xr, y, reduction="sum").backward()
    names = {e.key for e in prof.key_averages()}
    assert "_EagerLoss" in names and "_EagerLossBackward" in names  # the eager path of functional.py
    assert not any(n.startswith("aten::binary_cross_entropy_with_logits") for n in names)
    at.disable()
    assert not at.is_enabled() and F.binary_cross_entropy_with_logits is TORCH_BCE
    at.disable()  # idempotent
    n = calls.total()
    torch.nn.BCEWithLogitsLoss()(xr, y).backward()
    assert calls.total() == n


def test_enable_leaves_other_calls_to_torch(monkeypatch):
    """Routed calls that the library cannot take go to PyTorch's original, errors included:
    meta (non-CPU) tensors, integer targets, weights PyTorch's broadcasting refuses, weights
    requiring grad, and target size mismatches (PyTorch's ValueError)."""
    calls = _OpCalls(monkeypatch)
    at.enable()
    x, y, _, _ = _case((3, 4), torch.float32, 53)
    out = F.binary_cross_entropy_with_logits(x.to("meta"), y.to("meta"), reduction="none")
    assert out.device.type == "meta" and out.shape == (3, 4)
    with pytest.raises(RuntimeError):  # PyTorch's own refusal of a Long target
        F.binary_cross_entropy_with_logits(x, (y > 0.5).long())
    with pytest.raises(RuntimeError):  # PyTorch's broadcasting error (ours would be ValueError)
        F.binary_cross_entropy_with_logits(x, y, torch.rand(5))
    with pytest.raises(RuntimeError, match="not differentiable"):
        F.binary_cross_entropy_with_logits(x, y, torch.rand(4, requires_grad=True))
    with pytest.raises(ValueError, match="Target size"):
        F.binary_cross_entropy_with_logits(x, y[:2])
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.binary_cross_entropy_with_logits(x, y, reduction="avg")
    assert calls.total() == 0
    # A supported call after all of that is still ours.
    F.binary_cross_entropy_with_logits(x, y)
    assert calls.count["binary_cross_entropy_with_logits"] == 1


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("op", ["binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits_fused"])
def test_gradcheck_through_the_custom_operators(op, reduction):
    """The custom operators' own autograd (register_autograd), which torch.compile uses, called
    directly: the eager path of the functional does not go through it."""
    x, y, w, pw = _case((3, 4), torch.float64, 61 + reduction, (4,), (3, 1))
    x.requires_grad_()
    y.requires_grad_(op == "binary_cross_entropy_with_logits")
    fn = getattr(torch.ops.aclnn_bce, op)
    if op.endswith("fused"):
        assert torch.autograd.gradcheck(lambda a: fn(a, y, w, pw, reduction)[0], (x,))
    else:
        assert torch.autograd.gradcheck(lambda a, b: fn(a, b, w, pw, reduction), (x, y))


# --------------------------------------------------------------------------------------------
# Double backward, fresh gradients, torch.func, other wrappers


HESSIAN_X = (0.5, -1.0, 2.0)
HESSIAN_Y = (0.2, 0.7, 1.0)


def _routes():
    """(name, loss function of (input, target, weight, pos_weight, reduction)) for each way in:
    the functional, PyTorch's function and module after enable(), the custom operator."""
    reductions = {"none": 0, "mean": 1, "sum": 2}
    return [
        ("functional", lambda a, b, w, pw, r: at.binary_cross_entropy_with_logits(a, b, w, reduction=r, pos_weight=pw)),
        ("F after enable", lambda a, b, w, pw, r: F.binary_cross_entropy_with_logits(a, b, w, reduction=r,
                                                                                     pos_weight=pw)),
        ("module after enable", lambda a, b, w, pw, r: torch.nn.BCEWithLogitsLoss(w, reduction=r, pos_weight=pw)(a, b)),
        ("custom operator", lambda a, b, w, pw, r: torch.ops.aclnn_bce.binary_cross_entropy_with_logits(
            a, b, w, pw, reductions[r])),
        ("fused custom operator", lambda a, b, w, pw, r: torch.ops.aclnn_bce.binary_cross_entropy_with_logits_fused(
            a, b, w, pw, reductions[r])[0]),
    ]


ROUTES = _routes()


@pytest.mark.parametrize("name,loss", ROUTES, ids=[r[0] for r in ROUTES])
def test_hessian_matches_pytorch(name, loss, monkeypatch):
    """torch.autograd.functional.hessian: the issue's numbers (float64, mean), with only input
    requiring grad (the functional's fused path)."""
    at.enable()
    calls = _OpCalls(monkeypatch)
    x = torch.tensor(HESSIAN_X, dtype=torch.float64)
    y = torch.tensor(HESSIAN_Y, dtype=torch.float64)
    h = torch.autograd.functional.hessian(lambda t: loss(t, y, None, None, "mean"), x)
    expected = torch.autograd.functional.hessian(lambda t: TORCH_BCE(t, y), x)
    torch.testing.assert_close(h, expected, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(h.diagonal(), torch.tensor([0.078, 0.066, 0.035], dtype=torch.float64), atol=6e-4,
                               rtol=0)
    assert calls.total() > 0  # the library took part


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,loss", ROUTES, ids=[r[0] for r in ROUTES])
def test_gradgradcheck_float64(name, loss, reduction):
    """Second derivatives (with respect to input, target and the incoming gradient) are exact:
    gradgradcheck in float64 with broadcast weight and pos_weight, for input and target together
    and for input alone (the fused path)."""
    at.enable()
    x, y, w, pw = _case((3, 4), torch.float64, 71, (3, 1), (4,))
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
    if name != "fused custom operator":
        assert torch.autograd.gradgradcheck(lambda a, b: loss(a, b, w, pw, reduction), (xr, yr))
    assert torch.autograd.gradgradcheck(lambda a: loss(a, y, w, pw, reduction), (xr,))
    assert torch.autograd.gradgradcheck(lambda a: loss(a, y, None, None, reduction), (xr,))


def test_a_gradient_taken_with_create_graph_has_its_own_derivative():
    """A gradient penalty: autograd.grad(loss, x, create_graph=True) returns a gradient with a
    grad_fn, and the penalty's gradient is PyTorch's."""
    x, y, w, pw = _case((4, 5), torch.float64, 73, (5,), (5,))
    grads = {}
    for name, fn in (("ours", at.binary_cross_entropy_with_logits), ("torch", TORCH_BCE)):
        xr = x.clone().requires_grad_()
        (g,) = torch.autograd.grad(fn(xr, y, w, pos_weight=pw), xr, create_graph=True)
        assert g.grad_fn is not None
        (grads[name],) = torch.autograd.grad(g.pow(2).sum(), xr)
    torch.testing.assert_close(grads["ours"], grads["torch"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "separate"])
def test_retained_graph_gradients_are_fresh_tensors(monkeypatch, fused, reduction):
    """autograd.grad twice over a retained graph returns two tensors of their own; scaling the
    first in place changes neither the second nor what a third call returns."""
    monkeypatch.setattr(atF, "FUSED_MAX_NUMEL", 1 << 30 if fused else -1)
    x, y, w, pw = _case((4, 5), torch.float32, 79, (5,), (5,))
    xr = x.clone().requires_grad_()
    loss = at.binary_cross_entropy_with_logits(xr, y, w, reduction=reduction, pos_weight=pw)
    (first,) = torch.autograd.grad(loss, xr, retain_graph=True)
    expected = first.clone()
    (second,) = torch.autograd.grad(loss, xr, retain_graph=True)
    assert first.data_ptr() != second.data_ptr()
    first.mul_(10)
    (third,) = torch.autograd.grad(loss, xr)
    assert torch.equal(second, expected) and torch.equal(third, expected)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:FutureWarning")  # inside torch.func.hessian
def test_vmap_and_func_grad_after_enable_fall_back_to_pytorch(monkeypatch):
    """After enable(), torch.vmap and torch.func.grad over PyTorch's function work: the calls
    under a transform go to PyTorch's kernel (their tensors have no memory of their own)."""
    at.enable()
    calls = _OpCalls(monkeypatch)
    x, y, w, pw = _case((3, 4), torch.float64, 83, (4,), (4,))

    def loss(a, b):
        return F.binary_cross_entropy_with_logits(a, b, w, pos_weight=pw)

    torch.testing.assert_close(torch.vmap(loss)(x, y), torch.stack([TORCH_BCE(a, b, w, pos_weight=pw)
                                                                    for a, b in zip(x, y)]))
    torch.testing.assert_close(torch.func.grad(loss)(x, y), _reference(x, y, w, pw, "mean")[1])
    torch.testing.assert_close(torch.func.hessian(loss)(x[0], y[0]),
                               torch.autograd.functional.hessian(lambda t: TORCH_BCE(t, y[0], w, pos_weight=pw), x[0]))
    assert calls.total() == 0
    loss(x, y)  # outside a transform: ours again
    assert calls.total() == 1


def test_the_functional_refuses_torch_func_transforms_clearly():
    x, y, _, _ = _case((3, 4), torch.float32, 89)
    with pytest.raises(RuntimeError, match="torch.func transforms"):
        torch.vmap(at.binary_cross_entropy_with_logits)(x, y)
    with pytest.raises(RuntimeError, match="torch.func transforms"):
        torch.func.grad(lambda a: at.binary_cross_entropy_with_logits(a, y[0]))(x[0])


def test_disable_after_another_wrapper_keeps_the_chain_working(monkeypatch):
    """enable(), another library wraps PyTorch's function, disable(): the wrapper stays and calls
    pass through to PyTorch (meta tensors included, no RecursionError); enable() again routes
    through the chain; the wrapper's removal and disable() restore PyTorch's function."""
    calls = _OpCalls(monkeypatch)
    at.enable()
    routed = F.binary_cross_entropy_with_logits
    wrapped = []

    def wrapper(*args, **kwargs):
        wrapped.append(1)
        return routed(*args, **kwargs)

    F.binary_cross_entropy_with_logits = wrapper
    try:
        at.disable()
        assert F.binary_cross_entropy_with_logits is wrapper and not at.is_enabled()
        x, y, _, _ = _case((3, 4), torch.float32, 97)
        out = F.binary_cross_entropy_with_logits(x.to("meta"), y.to("meta"), reduction="none")
        assert out.device.type == "meta" and out.shape == (3, 4)
        torch.testing.assert_close(F.binary_cross_entropy_with_logits(x, y), TORCH_BCE(x, y))
        assert calls.total() == 0 and len(wrapped) == 2
        at.enable()
        assert at.is_enabled() and F.binary_cross_entropy_with_logits is wrapper
        torch.testing.assert_close(F.binary_cross_entropy_with_logits(x, y), TORCH_BCE(x, y))
        assert calls.total() == 1 and len(wrapped) == 3
        out = F.binary_cross_entropy_with_logits(x.to("meta"), y.to("meta"), reduction="none")
        assert out.device.type == "meta"
    finally:
        F.binary_cross_entropy_with_logits = routed  # the other library unwraps
    at.disable()
    assert F.binary_cross_entropy_with_logits is TORCH_BCE
