"""aclnn_bce.torch's loss of probabilities against PyTorch's binary_cross_entropy: values and
gradients, gradcheck and gradgradcheck in float64, the module, the custom operators (opcheck,
torch.compile), and enable() routing torch.nn.functional.binary_cross_entropy and nn.BCELoss."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import aclnn_bce.torch as at  # noqa: E402
from aclnn_bce import _api  # noqa: E402

# PyTorch's own function objects, taken before any test could enable the routing.
TORCH_BCE = F.binary_cross_entropy
TORCH_BCE_WITH_LOGITS = F.binary_cross_entropy_with_logits
REDUCTIONS = ("none", "mean", "sum")
DTYPES = (torch.float64, torch.float32, torch.bfloat16, torch.float16)
RTOL = {torch.float64: 1e-12, torch.float32: 2e-6, torch.bfloat16: 2e-2, torch.float16: 2e-3}
ATOL = {torch.float64: 1e-14, torch.float32: 1e-7, torch.bfloat16: 1e-3, torch.float16: 1e-5}
INPUT_RANGE = "all elements of input should be between 0 and 1"


@pytest.fixture(autouse=True)
def _restore_routing():
    """No test leaves PyTorch's functions routed to this library."""
    yield
    at.disable()
    assert F.binary_cross_entropy is TORCH_BCE and F.binary_cross_entropy_with_logits is TORCH_BCE_WITH_LOGITS


def _case(shape, dtype, seed, weight=None):
    """Probabilities in (0.02, 0.98) (away from the clamps, where finite differences cannot go),
    labels in [0, 1], a positive weight of the given shape (None: none)."""
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(shape, generator=g, dtype=torch.float64) * 0.96 + 0.02).to(dtype)
    y = torch.rand(shape, generator=g, dtype=torch.float64).to(dtype)
    w = None if weight is None else (torch.rand(weight, generator=g, dtype=torch.float64) + 0.5).to(dtype)
    return x, y, w


def _reference(x, y, w, reduction):
    """PyTorch float64: (loss, d loss / d input, d loss / d target) of the sum of the loss."""
    xd = x.detach().double().requires_grad_()
    yd = y.detach().double().requires_grad_()
    wd = None if w is None else w.double()
    loss = TORCH_BCE(xd, yd, wd, reduction=reduction)  # PyTorch's, also while routing is enabled
    gx, gy = torch.autograd.grad(loss.sum(), (xd, yd))
    return loss.detach(), gx, gy


def _close(got, ref, dtype):
    torch.testing.assert_close(got.double(), ref, rtol=RTOL[dtype], atol=ATOL[dtype])


class _Calls:
    """Counts the calls of the library functions behind the functional, the module and the
    custom operators."""

    NAMES = ("binary_cross_entropy", "binary_cross_entropy_backward")

    def __init__(self, monkeypatch):
        self.count = dict.fromkeys(self.NAMES, 0)
        for name in self.NAMES:
            real = getattr(_api, name)

            def counted(*a, _real=real, _name=name, **k):
                self.count[_name] += 1
                return _real(*a, **k)

            monkeypatch.setattr(_api, name, counted)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, (4,), (3, 4), (3, 1)])
def test_loss_and_gradients_match_torch_float64(dtype, reduction, weight):
    x, y, w = _case((3, 4), dtype, 1, weight)
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
    loss = at.binary_cross_entropy(xr, yr, w, reduction=reduction)
    assert loss.dtype == dtype
    loss.sum().backward()
    ref_loss, ref_gx, ref_gy = _reference(x, y, w, reduction)
    assert ref_gx.abs().max() > 0 and ref_gy.abs().max() > 0
    _close(loss.detach(), ref_loss, dtype)
    _close(xr.grad, ref_gx, dtype)
    _close(yr.grad, ref_gy, dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, (4,), (3, 4)])
def test_gradcheck_float64(reduction, weight):
    x, y, w = _case((3, 4), torch.float64, 2, weight)
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: at.binary_cross_entropy(a, b, w, reduction=reduction), (xr, yr))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradgradcheck_float64(reduction):
    """Double backward (Note [Probabilities: gradients]): with respect to input and target
    together, and to input alone, with a broadcast weight."""
    x, y, w = _case((3, 4), torch.float64, 3, (4,))
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
    assert torch.autograd.gradgradcheck(lambda a, b: at.binary_cross_entropy(a, b, w, reduction=reduction), (xr, yr))
    assert torch.autograd.gradgradcheck(lambda a: at.binary_cross_entropy(a, y, None, reduction=reduction), (xr,))


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_gradcheck_through_the_custom_operators(reduction):
    x, y, w = _case((3, 4), torch.float64, 4, (4,))
    xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
    op = torch.ops.aclnn_bce.binary_cross_entropy
    assert torch.autograd.gradcheck(lambda a, b: op(a, b, w, reduction), (xr, yr))
    assert torch.autograd.gradgradcheck(lambda a, b: op(a, b, w, reduction), (xr, yr))
    go = torch.rand((), dtype=torch.float64) + 0.5 if reduction else torch.rand(3, 4, dtype=torch.float64)
    gr = go.clone().requires_grad_()
    bwd = torch.ops.aclnn_bce.binary_cross_entropy_backward
    assert torch.autograd.gradcheck(lambda g, a, b: bwd(g, a, b, w, reduction), (gr, xr, yr))


def test_hessian_matches_pytorch():
    x, y, w = _case((2, 3), torch.float64, 5, (3,))
    ours = torch.autograd.functional.hessian(lambda a: at.binary_cross_entropy(a, y, w), x)
    ref = torch.autograd.functional.hessian(lambda a: TORCH_BCE(a, y, w), x)
    torch.testing.assert_close(ours, ref, rtol=1e-10, atol=1e-12)


def test_custom_ops_registered_and_opcheck():
    x, y, w = _case((3, 4), torch.float64, 6, (4,))
    ops = torch.ops.aclnn_bce
    for reduction in (0, 1, 2):
        xr = x.clone().requires_grad_()
        torch.library.opcheck(ops.binary_cross_entropy, (xr, y, w, reduction))
        go = torch.rand(3, 4, dtype=torch.float64) if reduction == 0 else torch.tensor(0.75, dtype=torch.float64)
        torch.library.opcheck(ops.binary_cross_entropy_backward, (go, x, y, w, reduction))


def test_module_matches_torch_module():
    x, y, w = _case((5, 4), torch.float32, 7, (4,))
    for reduction in REDUCTIONS:
        ours = at.BCELoss(weight=w, reduction=reduction)
        assert isinstance(ours, torch.nn.BCELoss) and "weight" in dict(ours.named_buffers())
        _close(ours(x, y), TORCH_BCE(x.double(), y.double(), w.double(), reduction=reduction), torch.float32)


def test_legacy_reduction_arguments_as_pytorch_reads_them():
    x, y, _ = _case((3, 4), torch.float64, 8)
    with pytest.warns(UserWarning):
        got = at.binary_cross_entropy(x, y, size_average=False)
    torch.testing.assert_close(got, TORCH_BCE(x, y, reduction="sum"))


def test_errors_match_torch_classes_and_messages():
    x, y, _ = _case((3, 4), torch.float32, 9)
    for fn in (TORCH_BCE, at.binary_cross_entropy):
        with pytest.raises(ValueError, match="Using a target size"):
            fn(x, y[:2])
        with pytest.raises(ValueError, match="not a valid value for reduction"):
            fn(x, y, reduction="avg")
        with pytest.raises(RuntimeError, match=INPUT_RANGE):
            fn(x + 1, y)
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
            fn(x, y - 1)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
            fn(x, y, torch.rand(4, requires_grad=True))
    with pytest.raises(TypeError):
        at.binary_cross_entropy(x, (y > 0.5).long())
    with pytest.raises(ValueError):
        at.binary_cross_entropy(x.to("meta"), y.to("meta"))
    with pytest.raises(RuntimeError, match="torch.func"):
        torch.vmap(lambda a: at.binary_cross_entropy(a, y[0]))(x)


def test_a_range_error_under_autograd_raises_before_anything_is_recorded():
    x, y, _ = _case((3, 4), torch.float32, 10)
    xr = (x * 3).detach().requires_grad_()
    with pytest.raises(RuntimeError, match=INPUT_RANGE):
        at.binary_cross_entropy(xr, y)


def test_enable_routes_pytorchs_function_and_module_and_disable_restores_them(monkeypatch):
    calls = _Calls(monkeypatch)
    assert not at.is_enabled()
    at.enable()
    at.enable()  # idempotent
    assert F.binary_cross_entropy is not TORCH_BCE and F.binary_cross_entropy_with_logits is not TORCH_BCE_WITH_LOGITS
    for dtype in DTYPES:
        x, y, w = _case((4, 3), dtype, 11, (3,))
        xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
        before = dict(calls.count)
        loss = torch.nn.BCELoss(weight=w)(xr, yr)
        loss.backward()
        assert calls.count["binary_cross_entropy"] == before["binary_cross_entropy"] + 1
        assert calls.count["binary_cross_entropy_backward"] == before["binary_cross_entropy_backward"] + 1
        ref_loss, ref_gx, ref_gy = _reference(x, y, w, "mean")
        _close(loss.detach(), ref_loss, dtype)
        _close(xr.grad, ref_gx, dtype)
        _close(yr.grad, ref_gy, dtype)
        F.binary_cross_entropy(x, y, reduction="none")
        assert calls.count["binary_cross_entropy"] == before["binary_cross_entropy"] + 2
    # PyTorch's range error, through the routed function.
    x, y, _ = _case((4, 3), torch.float32, 12)
    with pytest.raises(RuntimeError, match=INPUT_RANGE):
        torch.nn.BCELoss()(x * 2 + 1, y)
    at.disable()
    assert not at.is_enabled() and F.binary_cross_entropy is TORCH_BCE
    at.disable()  # idempotent
    n = sum(calls.count.values())
    torch.nn.BCELoss()(x, y)
    assert sum(calls.count.values()) == n


def test_enable_leaves_other_calls_to_torch(monkeypatch):
    calls = _Calls(monkeypatch)
    at.enable()
    x, y, _ = _case((3, 4), torch.float32, 13)
    out = F.binary_cross_entropy(x.to("meta"), y.to("meta"), reduction="none")
    assert out.device.type == "meta" and out.shape == (3, 4)
    with pytest.raises(RuntimeError):  # PyTorch's broadcasting error
        F.binary_cross_entropy(x, y, torch.rand(5))
    with pytest.raises(RuntimeError, match="not differentiable"):
        F.binary_cross_entropy(x, y, torch.rand(4, requires_grad=True))
    with pytest.raises(ValueError, match="Using a target size"):
        F.binary_cross_entropy(x, y[:2])
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.binary_cross_entropy(x, y, reduction="avg")
    assert torch.vmap(lambda a, b: F.binary_cross_entropy(a, b))(x, y).shape == (3,)
    assert sum(calls.count.values()) == 0
    F.binary_cross_entropy(x, y)
    assert calls.count["binary_cross_entropy"] == 1


def test_disable_after_another_wrapper_keeps_the_chain_working(monkeypatch):
    """As for the loss with logits (Note [Routing and other wrappers]): the wrapper stays after
    disable() and calls pass through to PyTorch; enable() again routes through the chain."""
    calls = _Calls(monkeypatch)
    at.enable()
    routed = F.binary_cross_entropy

    def wrapper(*args, **kwargs):
        return routed(*args, **kwargs)

    F.binary_cross_entropy = wrapper
    try:
        at.disable()
        assert F.binary_cross_entropy is wrapper and not at.is_enabled()
        assert F.binary_cross_entropy_with_logits is TORCH_BCE_WITH_LOGITS
        x, y, _ = _case((2, 3), torch.float32, 14)
        torch.testing.assert_close(F.binary_cross_entropy(x, y), TORCH_BCE(x, y))
        assert F.binary_cross_entropy(x.to("meta"), y.to("meta")).device.type == "meta"
        assert sum(calls.count.values()) == 0
        at.enable()
        assert F.binary_cross_entropy is wrapper
        torch.testing.assert_close(F.binary_cross_entropy(x, y), TORCH_BCE(x, y))
        assert calls.count["binary_cross_entropy"] == 1
    finally:
        F.binary_cross_entropy = routed  # the other library unwraps
    at.disable()
    assert F.binary_cross_entropy is TORCH_BCE


@pytest.fixture
def backward_tracing():
    if not hasattr(torch._dynamo.config, "trace_autograd_ops"):
        pytest.skip("this PyTorch's dynamo cannot trace Tensor.backward()")
    torch._dynamo.reset()
    with torch._dynamo.config.patch(trace_autograd_ops=True):
        yield
    torch._dynamo.reset()


def test_compiled_training_step_runs_our_operators(backward_tracing, monkeypatch):
    """A fullgraph-compiled step through nn.BCELoss after enable() (sigmoid outputs, weight [C])
    runs the custom operators, no graph break, and matches the eager step of PyTorch's loss."""
    calls = _Calls(monkeypatch)
    torch._dynamo.utils.counters.clear()
    loss_fn = torch.nn.BCELoss(weight=torch.tensor([0.5, 1.5, 2.0, 1.0], dtype=torch.float64))

    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Sigmoid()).to(torch.float64)

    def step(m, x, y):
        loss = loss_fn(m(x), y)
        loss.backward()
        return loss.detach()

    g = torch.Generator().manual_seed(15)
    x, y = torch.randn(12, 8, generator=g, dtype=torch.float64), torch.rand(12, 4, generator=g, dtype=torch.float64)
    eager_model, compiled_model = model(), model()
    expected = step(eager_model, x, y)
    assert sum(calls.count.values()) == 0
    at.enable()
    got = torch.compile(step, fullgraph=True, backend="aot_eager")(compiled_model, x, y)
    at.disable()
    assert not torch._dynamo.utils.counters["graph_break"]
    assert calls.count["binary_cross_entropy"] == 1 and calls.count["binary_cross_entropy_backward"] == 1
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-14)
    for a, b in zip(compiled_model.parameters(), eager_model.parameters()):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-12, atol=1e-14)
