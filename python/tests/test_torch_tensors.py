"""What the four functions do with every kind of torch tensor: lazy tensors (the negative bit,
ZeroTensors) are read by their values, never by their raw memory; the tensors written are
versioned as PyTorch's in-place operations version them; PyTorch's own rules for out= (autograd,
inference tensors) hold; and tensors without memory of their own (sparse, nested, quantized,
functional, fake, torch.func's, meta) are refused with an error naming the parameter.

Values are checked against PyTorch's float64 loss and gradients; outputs are poisoned (NaN)
before each call, so an output left unwritten fails.
"""

from __future__ import annotations

import numpy as np
import pytest

import aclnn_bce

torch = pytest.importorskip("torch")

F = torch.nn.functional
FWD = aclnn_bce.binary_cross_entropy_with_logits
BWD = aclnn_bce.binary_cross_entropy_with_logits_backward
TBWD = aclnn_bce.binary_cross_entropy_with_logits_target_backward
FUSED = aclnn_bce.binary_cross_entropy_with_logits_fused
SLOTS = ("input", "target", "weight", "pos_weight", "grad_output")


def with_negative_bit(values):
    """A tensor whose values are ``values`` and whose memory holds -values: PyTorch's negative
    bit, as the imaginary part of a conjugate view has it."""
    t = torch.complex(torch.zeros_like(values), -values).conj().imag
    assert t.is_neg()
    torch.testing.assert_close(t, values, rtol=0, atol=0, equal_nan=True)
    return t


def operands(dtype=torch.float64, shape=(4, 6)):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(shape, generator=g, dtype=torch.float64).mul(3).to(dtype)
    y = torch.rand(shape, generator=g, dtype=torch.float64).to(dtype)
    w = torch.rand(shape, generator=g, dtype=torch.float64).add(0.5).to(dtype)
    pw = torch.rand(shape[-1:], generator=g, dtype=torch.float64).add(0.5).to(dtype)
    go = torch.rand(shape, generator=g, dtype=torch.float64).sub(0.5).to(dtype)
    return dict(zip(SLOTS, (x, y, w, pw, go)))


def reference(ops, reduction):
    """PyTorch float64: (loss, d loss/d input, d loss/d target) for grad_output (broadcast to
    input's shape, CANN's rule: sum(loss_i * g_i), / N for mean)."""
    x = ops["input"].double().clone().requires_grad_()
    y = ops["target"].double().clone().requires_grad_()
    w, pw, go = (ops[k].double() for k in ("weight", "pos_weight", "grad_output"))
    loss = F.binary_cross_entropy_with_logits(x, y, w, pos_weight=pw, reduction=reduction)
    per_element = F.binary_cross_entropy_with_logits(x, y, w, pos_weight=pw, reduction="none")
    total = (per_element * go).sum() / (x.numel() if reduction == "mean" else 1)
    gx, gy = torch.autograd.grad(total, (x, y))
    return loss.detach(), gx, gy


def calls(ops, reduction):
    """The four functions over ops: {name: result tensor}."""
    x, y, w, pw, go = (ops[k] for k in SLOTS)
    loss, grad = FUSED(x, y, w, pw, reduction, grad_output=go[0, 0])  # one element (a view: lazy as go is)
    return {"forward": FWD(x, y, w, pw, reduction), "backward": BWD(go, x, y, w, pw, reduction),
            "target": TBWD(go, x, y, w, pw, reduction), "fused loss": loss, "fused grad": grad}


@pytest.mark.parametrize("reduction", ["none", "sum"])
@pytest.mark.parametrize("slot", SLOTS)
def test_an_operand_with_the_negative_bit_is_read_by_its_values(slot, reduction):
    ops = operands()
    expected = calls(ops, reduction)
    ref_loss, ref_gx, ref_gy = reference(ops, reduction)
    lazy = dict(ops, **{slot: with_negative_bit(ops[slot])})
    got = calls(lazy, reduction)
    for name in expected:
        assert torch.equal(got[name], expected[name]), name
    torch.testing.assert_close(got["forward"], ref_loss, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(got["backward"], ref_gx, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(got["target"], ref_gy, rtol=1e-12, atol=1e-12)


def test_the_issues_example_gives_pytorchs_loss():
    z = torch.complex(torch.zeros(4), torch.full((4,), -0.25))
    y = z.conj().imag  # values +0.25, memory -0.25
    got = FWD(torch.ones(4), y, reduction="none")
    torch.testing.assert_close(got, F.binary_cross_entropy_with_logits(torch.ones(4), y, reduction="none"))
    assert abs(float(got[0]) - 1.0633) < 1e-4


@pytest.mark.parametrize("which", ["out", "grad_input"])
def test_an_output_with_the_negative_bit_receives_the_values(which):
    ops = operands()
    x, y, w, pw = (ops[k] for k in SLOTS[:4])
    expected_loss, expected_grad = FUSED(x, y, w, pw, "none")
    given = with_negative_bit(torch.full((4, 6), float("nan"), dtype=torch.float64))
    kwargs = {which: given}
    loss, grad = FUSED(x, y, w, pw, "none", **kwargs)
    assert (loss if which == "out" else grad) is given
    assert torch.equal(loss, expected_loss) and torch.equal(grad, expected_grad)
    assert torch.equal(given.resolve_neg(), expected_loss if which == "out" else expected_grad)
    out = with_negative_bit(torch.full((4, 6), float("nan"), dtype=torch.float64))
    assert BWD(1.0, x, y, w, pw, "none", out=out) is out
    assert torch.equal(out, BWD(1.0, x, y, w, pw, "none"))


def test_an_output_with_the_negative_bit_follows_the_aliasing_rule():
    """Such an output is written through a temporary; the library's aliasing rule still holds
    for the caller's tensors: the very same view as an input is an in-place call, any other
    sharing is refused before anything is written."""
    ops = operands()
    x, y = ops["input"], ops["target"]
    expected = BWD(1.0, x, y, reduction="none")
    x_lazy = with_negative_bit(x.clone())
    assert BWD(1.0, x_lazy, y, reduction="none", out=x_lazy) is x_lazy  # in place
    assert torch.equal(x_lazy, expected)
    storage = torch.full((5, 6), 7.0, dtype=torch.float64)
    lazy_storage = with_negative_bit(storage)  # rows 1..4 as input overlap rows 0..3 as out
    with pytest.raises(ValueError, match="shares memory with input"):
        BWD(1.0, lazy_storage[1:], y, reduction="none", out=lazy_storage[:4])
    assert torch.equal(lazy_storage, storage)
    with pytest.raises(ValueError, match="out and grad_input share memory"):
        FUSED(x, y, reduction="none", out=lazy_storage[:4], grad_input=lazy_storage[1:])
    assert torch.equal(lazy_storage, storage)


def test_zero_tensors_are_read_as_zeros_and_refused_as_outputs():
    ops = operands()
    x, y = ops["input"], ops["target"]
    zeros = torch._efficientzerotensor((4, 6), dtype=torch.float64)
    assert zeros._is_zerotensor() and zeros.data_ptr() == 0
    assert torch.equal(FWD(x, zeros, reduction="none"), FWD(x, torch.zeros(4, 6, dtype=torch.float64), reduction="none"))
    assert torch.equal(BWD(zeros, x, y, reduction="none"), torch.zeros(4, 6, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="ZeroTensors are immutable"):
        FWD(x, y, reduction="none", out=torch._efficientzerotensor((4, 6), dtype=torch.float64))


# --------------------------------------------------------------------------------------------
# Written tensors are versioned; PyTorch's rules for out=


def test_a_backward_over_an_overwritten_out_raises_as_after_pytorchs_out():
    """The issue's scenario: buf filled with out=buf, z = (buf * p).sum(), out=buf again, then
    z.backward() raises "modified by an inplace operation" (PyTorch's own out= does so)."""
    x, y = operands(torch.float32)["input"], operands(torch.float32)["target"]
    p = torch.ones(4, 6, requires_grad=True)
    buf = torch.empty(4, 6)
    FWD(x, y, reduction="none", out=buf)
    z = (buf * p).sum()
    FWD(x * 2, y, reduction="none", out=buf)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    # The same with PyTorch's own out= (what this mirrors).
    q = torch.ones(4, 6, requires_grad=True)
    z = (torch.sigmoid(x, out=buf) * q).sum()
    torch.sigmoid(x * 2, out=buf)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


@pytest.mark.parametrize("path", ["extension", "general"])
def test_every_written_tensor_has_its_version_bumped(path):
    """out= and grad_input= of every function, through the extension's own path and through the
    general one (a Parameter input takes it), each bumped once written."""
    ops = operands(torch.float32)
    x, y, w, pw, go = (ops[k] for k in SLOTS)
    if path == "general":
        x = torch.nn.Parameter(x, requires_grad=False)
    for call in (lambda out: FWD(x, y, w, pw, "none", out=out), lambda out: BWD(go, x, y, w, pw, "none", out=out),
                 lambda out: TBWD(go, x, y, w, pw, "none", out=out),
                 lambda out: FUSED(x, y, w, pw, "none", out=out)[0],
                 lambda out: FUSED(x, y, w, pw, "none", grad_input=out)[1]):
        out = torch.full((4, 6), float("nan"))
        before = out._version
        assert call(out) is out
        assert out._version > before and not out.isnan().any()


@pytest.mark.parametrize("which", ["out", "grad_input"])
def test_an_output_requiring_grad_is_refused_as_pytorch_refuses(which):
    """PyTorch's out= under grad mode refuses an output that requires grad ("functions with
    out=... arguments don't support automatic differentiation"); so do the functions, writing
    nothing. Under no_grad it is written."""
    ops = operands(torch.float32)
    x, y = ops["input"], ops["target"]
    given = torch.full((4, 6), 3.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.sigmoid(x, out=given)  # PyTorch's own
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        FUSED(x, y, reduction="none", **{which: given})
    if which == "out":
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            FWD(x, y, reduction="none", out=given)
    assert torch.all(given.detach() == 3.0)
    with torch.no_grad():
        assert FUSED(x, y, reduction="none", **{which: given})[0 if which == "out" else 1] is given
    expected = FUSED(x, y, reduction="none")[0 if which == "out" else 1]
    assert torch.equal(given.detach(), expected)


def test_an_inference_tensor_is_written_with_the_values():
    """An inference tensor as out= gets the values, in inference mode or not (PyTorch's own out=
    refuses it outside: an inference tensor has no version counter; it cannot be saved for a
    backward either, so no autograd check is at stake)."""
    ops = operands(torch.float32)
    x, y = ops["input"], ops["target"]
    expected = FWD(x, y, reduction="none")
    with torch.inference_mode():
        out = torch.full((4, 6), 3.0)
        assert FWD(x, y, reduction="none", out=out) is out
    assert torch.equal(out, expected)
    with torch.inference_mode():
        out.fill_(3.0)
    assert FWD(x, y, reduction="none", out=out) is out
    assert torch.equal(out, expected)


# --------------------------------------------------------------------------------------------
# Every other property of a tensor the extension reads


def test_a_storage_offset_is_read_and_written_where_the_view_is():
    ops = operands(torch.float32)
    x, y = ops["input"], ops["target"]
    base_x = torch.full((30,), 5.0)
    base_x[3:27] = x.reshape(-1)
    storage = torch.full((40,), 9.0)
    out = storage[7:31].view(4, 6)
    assert out.storage_offset() == 7
    assert FWD(base_x[3:27].view(4, 6), y, reduction="none", out=out) is out
    assert torch.equal(out, FWD(x, y, reduction="none"))
    assert torch.all(storage[:7] == 9.0) and torch.all(storage[31:] == 9.0)


def fake_tensor():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        return torch.ones(4, 6)


def refusals():
    """(what, make the tensor, error class, words in the message)."""
    return [
        ("sparse", lambda: torch.ones(4, 6).to_sparse(), TypeError, "torch.sparse_coo"),
        ("sparse csr", lambda: torch.ones(4, 6).to_sparse_csr(), TypeError, "torch.sparse_csr"),
        ("quantized", lambda: torch.quantize_per_tensor(torch.ones(4, 6), 0.1, 0, torch.qint8), TypeError,
         "torch.qint8"),
        ("nested", lambda: torch.nested.nested_tensor([torch.ones(6)] * 4), TypeError, "nested"),
        ("functional", lambda: torch._to_functional_tensor(torch.ones(4, 6)), TypeError, "functionalization"),
        ("fake", fake_tensor, TypeError, "__torch_dispatch__"),
        ("meta", lambda: torch.ones(4, 6, device="meta"), ValueError, "CPU tensor"),
        ("complex conjugate", lambda: torch.ones(4, 6, dtype=torch.complex64).conj(), TypeError, "dtype"),
    ]


@pytest.mark.filterwarnings("ignore::UserWarning")  # the prototype and deprecation warnings of nested / quantized
@pytest.mark.parametrize("slot", ["input", "target", "weight", "out"])
@pytest.mark.parametrize("what,make,error,words", refusals(), ids=[r[0] for r in refusals()])
def test_tensors_without_memory_holding_their_values_are_refused_naming_the_parameter(what, make, error, words,
                                                                                     slot):
    x, y = torch.full((4, 6), 0.5), torch.full((4, 6), 0.25)
    out = torch.full((4, 6), 3.0)
    args = {"input": x, "target": y, "weight": None, "out": out}
    args[slot] = make()
    name = "self" if slot == "input" and what == "complex conjugate" else slot
    with pytest.raises(error) as info:
        FWD(args["input"], args["target"], args["weight"], reduction="none", out=args["out"])
    assert words in str(info.value) and name in str(info.value), str(info.value)
    if slot != "out":
        assert torch.all(out == 3.0)


def test_tensors_of_a_torch_func_transform_are_refused_inside_it():
    y = torch.full((3,), 0.25)

    def loss(t):
        return FWD(t, y, reduction="sum")

    with pytest.raises(TypeError, match="input: a tensor of a torch.func transform"):
        torch.vmap(loss)(torch.ones(2, 3))
    with pytest.raises(TypeError, match="input: a tensor of a torch.func transform"):
        torch.func.grad(loss)(torch.ones(3))


def test_an_expanded_out_is_refused():
    x, y = torch.full((4, 6), 0.5), torch.full((4, 6), 0.25)
    out = torch.zeros(6).expand(4, 6)
    with pytest.raises(ValueError, match="out"):
        FWD(x, y, reduction="none", out=out)
    assert torch.all(out == 0)


def test_a_subclass_with_torch_function_only_is_read_as_a_plain_tensor():
    class Logged(torch.Tensor):
        calls = 0

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls += 1
            return super().__torch_function__(func, types, args, kwargs or {})

    ops = operands(torch.float32)
    x = ops["input"].as_subclass(Logged)
    got = FWD(x, ops["target"], reduction="none")
    assert type(got) is torch.Tensor or isinstance(got, torch.Tensor)
    assert torch.equal(got.as_subclass(torch.Tensor), FWD(ops["input"], ops["target"], reduction="none"))


def test_the_extension_declines_lazy_tensors_for_the_general_path():
    """The extension's own path (torch_call) never describes a lazy tensor: it returns None, with
    nothing written, and the general path resolves or refuses it."""
    ext = aclnn_bce._aclnn_bce
    x = torch.ones(3)
    FWD(x, x)  # registers torch with the extension
    assert ext.torch_call(ext.Op.forward, "none", input=torch._efficientzerotensor(3), target=x) is None
    assert ext.torch_call(ext.Op.forward, "none", input=with_negative_bit(x), target=x) is None
    assert ext.torch_call(ext.Op.forward, "none", input=x, target=x, out=with_negative_bit(x.clone())) is None
    assert np.all(x.numpy() == 1)


def test_fused_outputs_overlapping_through_torch_views_are_refused():
    """Plain torch views go to the library as they are; its rule refuses the fused call's two
    outputs sharing any byte (partly, or interleaved over one element), writing nothing."""
    x, y = torch.linspace(-2, 2, 5), torch.full((5,), 0.25)
    buf = torch.full((12,), 7.0)
    for out, grad in ((buf[:5], buf[2:7]), (buf[:10:2], buf[4:9]), (buf[:5], buf[:5])):
        with pytest.raises(ValueError, match="gradInput|out"):
            FUSED(x, y, reduction="none", out=out, grad_input=grad)
        assert torch.all(buf == 7.0)
    loss, grad = FUSED(x, y, reduction="none", out=buf[:10:2], grad_input=buf[1:10:2])  # interleaved, no byte shared
    assert torch.equal(loss, FWD(x, y, reduction="none")) and torch.equal(grad, BWD(1.0, x, y, reduction="none"))
