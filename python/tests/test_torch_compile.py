"""torch.compile(fullgraph=True) of a training step through aclnn_bce.torch: no graph break, our
operators inside the compiled graph, the eager losses and parameters."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import aclnn_bce.torch as at  # noqa: E402
from aclnn_bce import _api  # noqa: E402

LR = 0.1


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4)).to(torch.float64)


def _data(step: int):
    g = torch.Generator().manual_seed(100 + step)
    x = torch.randn(12, 8, generator=g, dtype=torch.float64)
    y = torch.rand(12, 4, generator=g, dtype=torch.float64)
    return x, y


def _train(step_fn, model, steps: int):
    losses = []
    for i in range(steps):
        x, y = _data(i)
        losses.append(step_fn(model, x, y))
    return losses


@pytest.fixture
def backward_tracing():
    """Dynamo traces Tensor.backward() (as autograd.grad plus accumulation) only with
    ``trace_autograd_ops`` (off by default); without the option this PyTorch cannot compile a
    whole training step in one graph."""
    if not hasattr(torch._dynamo.config, "trace_autograd_ops"):
        pytest.skip("this PyTorch's dynamo cannot trace Tensor.backward()")
    torch._dynamo.reset()
    with torch._dynamo.config.patch(trace_autograd_ops=True):
        yield
    torch._dynamo.reset()


@pytest.fixture
def counted_api(monkeypatch):
    """Counts the calls of the library functions behind the custom operators (they run inside the
    compiled code too)."""
    count = {}
    for name in ("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits_backward",
                 "binary_cross_entropy_with_logits_target_backward", "binary_cross_entropy_with_logits_fused"):
        real = getattr(_api, name)
        count[name] = 0

        def counted(*a, _real=real, _name=name, **k):
            count[_name] += 1
            return _real(*a, **k)

        monkeypatch.setattr(_api, name, counted)
    return count


def test_compiled_training_step_matches_eager(backward_tracing, counted_api):
    """A fullgraph-compiled step (forward, our BCEWithLogitsLoss with weight and a [C]
    pos_weight, backward, an SGD update) runs without graph breaks, calls our operators (the
    fused one: only input needs grad) and reproduces the eager losses and parameters; a second
    loss on the same step makes target require grad, covering the target-backward operator."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()

    g = torch.Generator().manual_seed(7)
    loss_fn = at.BCEWithLogitsLoss(weight=torch.rand(4, generator=g, dtype=torch.float64) + 0.5,
                                   pos_weight=torch.rand(4, generator=g, dtype=torch.float64) + 0.5)
    soft_target = torch.nn.Parameter(torch.rand(12, 4, generator=g, dtype=torch.float64))

    def make_step(module_loss, functional_loss):
        """A training step: the module loss against y plus the functional loss against the learned
        soft_target, backward, and a hand-written SGD update (optimizers break the graph)."""

        def step(model, x, y):
            logits = model(x)
            loss = module_loss(logits, y) + 0.5 * functional_loss(logits, soft_target, reduction="sum") / 48
            loss.backward()
            with torch.no_grad():
                for p in list(model.parameters()) + [soft_target]:
                    p.add_(p.grad, alpha=-LR)
                    p.grad = None
            return loss.detach()

        return step

    step = make_step(loss_fn, at.binary_cross_entropy_with_logits)

    def fresh():
        with torch.no_grad():
            soft_target.copy_(torch.rand(12, 4, generator=torch.Generator().manual_seed(9), dtype=torch.float64))
        return _model()

    eager_model = fresh()
    eager_losses = _train(step, eager_model, 3)
    eager_target = soft_target.detach().clone()
    eager_calls = dict(counted_api)
    assert eager_calls["binary_cross_entropy_with_logits_fused"] == 3
    assert eager_calls["binary_cross_entropy_with_logits_target_backward"] == 3

    for k in counted_api:
        counted_api[k] = 0
    compiled_model = fresh()
    compiled = torch.compile(step, fullgraph=True)
    compiled_losses = _train(compiled, compiled_model, 3)

    assert not torch._dynamo.utils.counters["graph_break"]
    # The compiled graph runs our operators, not a decomposition.
    assert counted_api["binary_cross_entropy_with_logits_fused"] == 3
    assert counted_api["binary_cross_entropy_with_logits"] == 3
    assert counted_api["binary_cross_entropy_with_logits_target_backward"] == 3
    assert counted_api["binary_cross_entropy_with_logits_backward"] == 3
    for a, b in zip(compiled_losses, eager_losses):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)
    for (name, a), (_, b) in zip(compiled_model.named_parameters(), eager_model.named_parameters()):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14, msg=name)
    torch.testing.assert_close(soft_target.detach(), eager_target, rtol=1e-12, atol=1e-14)
    # And the eager run equals the same training with PyTorch's loss.
    torch_model = fresh()
    torch_loss = torch.nn.BCEWithLogitsLoss(weight=loss_fn.weight, pos_weight=loss_fn.pos_weight)

    torch_step = make_step(torch_loss, F.binary_cross_entropy_with_logits)

    torch_losses = _train(torch_step, torch_model, 3)
    for a, b in zip(torch_losses, eager_losses):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)
    for a, b in zip(torch_model.parameters(), eager_model.parameters()):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)


def test_compiled_enable_routing(backward_tracing, counted_api):
    """With enable(), unchanged model code using torch.nn.BCEWithLogitsLoss compiles with
    fullgraph=True (AOT autograd, eager kernels) into our operators, forward and backward."""
    torch._dynamo.reset()
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([0.5, 1.5, 2.0, 1.0], dtype=torch.float64))

    def step(model, x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss.detach()

    x, y = _data(0)
    eager_model, compiled_model = _model(), _model()
    expected = step(eager_model, x, y)
    assert sum(counted_api.values()) == 0  # not enabled yet: PyTorch's loss
    at.enable()
    try:
        got = torch.compile(step, fullgraph=True, backend="aot_eager")(compiled_model, x, y)
    finally:
        at.disable()
    assert counted_api["binary_cross_entropy_with_logits_fused"] == 1
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-14)
    for a, b in zip(compiled_model.parameters(), eager_model.parameters()):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-12, atol=1e-14)
    assert not at.is_enabled()
