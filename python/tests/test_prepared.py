"""aclnn_bce.prepare: a call planned once (a repeatable executor), run again over the arrays'
current contents.

Each prepared result must be bitwise the result of the same function called directly on the same
arrays (those are checked against float64 references in test_functions.py), and one case here is
checked against a float64 reference itself. Inputs are rewritten in place between runs, so a run
that did not read the current contents fails; outputs are poisoned before each run, so a run
that did not write every element fails.
"""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import aclnn_bce

torch = pytest.importorskip("torch")
ml_dtypes = pytest.importorskip("ml_dtypes")

F = torch.nn.functional
BF16 = np.dtype(ml_dtypes.bfloat16)
FWD = aclnn_bce.binary_cross_entropy_with_logits
BWD = aclnn_bce.binary_cross_entropy_with_logits_backward
TBWD = aclnn_bce.binary_cross_entropy_with_logits_target_backward
FUSED = aclnn_bce.binary_cross_entropy_with_logits_fused


def operands(rng, shape, np_dtype, as_torch):
    x = (rng.standard_normal(shape) * 4.0).astype(np_dtype)
    y = rng.uniform(0.0, 1.0, shape).astype(np_dtype)
    w = rng.uniform(0.25, 2.0, shape).astype(np_dtype)
    pw = rng.uniform(0.5, 3.0, shape[-1:]).astype(np_dtype)
    g = rng.uniform(-2.0, 2.0, shape).astype(np_dtype)
    if as_torch:
        conv = (lambda a: torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)) if np_dtype == BF16 else torch.from_numpy
        return [conv(a) for a in (x, y, w, pw, g)]
    return [x, y, w, pw, g]


def refill(rng, arrays):
    """New values in place (the same memory)."""
    for a in arrays:
        if isinstance(a, torch.Tensor):
            a.copy_(torch.from_numpy(rng.uniform(-3.0, 3.0, tuple(a.shape))).to(a.dtype))
        else:
            a[...] = rng.uniform(-3.0, 3.0, a.shape).astype(a.dtype)


def poison(a):
    if isinstance(a, torch.Tensor):
        a.fill_(float("nan"))
    else:
        a[...] = np.nan


def bits(a):
    if isinstance(a, torch.Tensor):
        return a.view(torch.int16 if a.element_size() == 2 else torch.int32 if a.element_size() == 4
                      else torch.int64).clone().numpy()
    return np.asarray(a).view(np.uint16 if a.dtype.itemsize == 2 else np.uint32 if a.dtype.itemsize == 4
                              else np.uint64).copy()


CASES = [
    ("forward none", FWD, lambda x, y, w, pw, g: ((x, y, w, pw, "none"), {})),
    ("forward mean", FWD, lambda x, y, w, pw, g: ((x, y, None, pw, "mean"), {})),
    ("backward x5", BWD, lambda x, y, w, pw, g: ((g, x, y, w, pw, "none"), {})),
    ("backward 0-dim mean", BWD, lambda x, y, w, pw, g: ((0.75, x, y, None, pw, "mean"), {})),
    ("target backward", TBWD, lambda x, y, w, pw, g: ((g, x, y, w, pw), {"reduction": "sum"})),
    ("fused mean", FUSED, lambda x, y, w, pw, g: ((x, y, w, pw, "mean"), {})),
]


@pytest.mark.parametrize("family", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.float64], ids=["fp32", "fp16", "bf16", "fp64"])
@pytest.mark.parametrize("name,fn,args", CASES, ids=[c[0] for c in CASES])
def test_prepared_matches_direct_calls_after_inputs_change(name, fn, args, dtype, family):
    rng = np.random.default_rng(7)
    ops = operands(rng, (33, 70), np.dtype(dtype), family == "torch")
    a, kw = args(*ops)
    with aclnn_bce.prepare(fn, *a, **kw) as step:
        for _ in range(3):
            refill(rng, ops)
            result = step()
            first = result if fn is not FUSED else result[0]
            outs = [first] if fn is not FUSED else list(result)
            for o in outs:
                poison(o)
            again = step()
            assert again is result or (fn is FUSED and all(p is q for p, q in zip(again, result)))
            direct = fn(*a, **kw)
            for o, d in zip(outs, [direct] if fn is not FUSED else list(direct)):
                np.testing.assert_array_equal(bits(o), bits(d))
    assert step.closed
    with pytest.raises(RuntimeError, match="closed"):
        step()
    step.close()  # idempotent


def test_prepared_backward_against_float64_reference():
    rng = np.random.default_rng(3)
    x, y, w, pw, g = operands(rng, (64, 257), np.dtype(np.float32), False)
    grad = np.full(x.shape, np.nan, np.float32)
    step = aclnn_bce.prepare(BWD, g, x, y, w, pw, reduction="none", out=grad)
    for _ in range(2):
        refill(rng, [x, g])
        y[...] = rng.uniform(0.0, 1.0, y.shape).astype(np.float32)
        assert step() is grad
        t = [torch.from_numpy(v.astype(np.float64)) for v in (x, y, w, pw, g)]
        xs = t[0].clone().requires_grad_(True)
        loss = F.binary_cross_entropy_with_logits(xs, t[1], t[2], pos_weight=t[3], reduction="none")
        (ref,) = torch.autograd.grad(loss, xs, t[4])
        scale = (t[2].abs() * t[4].abs() * (1 + t[3] * t[1])).numpy()
        assert np.all(np.abs(grad - ref.numpy()) <= 8 * 2.0**-24 * scale + 1e-30)


def test_given_outputs_are_written_in_place_and_nothing_else():
    rng = np.random.default_rng(5)
    x, y, w, pw, g = operands(rng, (16, 40), np.dtype(np.float32), False)
    storage = np.full((16, 50), -7.0, np.float32)
    out = storage[:, 5:45]  # a strided view: the columns outside it must keep their bits
    loss = np.full((), np.nan, np.float32)
    grad = np.full((16, 40), np.nan, np.float32)
    step = aclnn_bce.prepare(BWD, g, x, y, w, pw, "none", out=out)
    assert step() is out
    np.testing.assert_array_equal(out, BWD(g, x, y, w, pw, "none"))
    assert np.all(storage[:, :5] == -7.0) and np.all(storage[:, 45:] == -7.0)
    fused = aclnn_bce.prepare(FUSED, x, y, w, pw, "sum", out=loss, grad_input=grad)
    got_loss, got_grad = fused()
    assert got_loss is loss and got_grad is grad
    ref_loss, ref_grad = FUSED(x, y, w, pw, "sum")
    np.testing.assert_array_equal(loss, ref_loss)
    np.testing.assert_array_equal(grad, ref_grad)


def test_refusals_are_the_functions_and_write_nothing():
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    y = np.full((3, 4), 0.25, np.float32)
    out = np.full((3, 4), 9.0, np.float32)
    with pytest.raises(ValueError, match="reduction"):
        aclnn_bce.prepare(FWD, x, y, reduction="avg")
    with pytest.raises(ValueError) as e:
        aclnn_bce.prepare(BWD, 1.0, x, y[:2], out=out)
    with pytest.raises(ValueError) as direct:
        BWD(1.0, x, y[:2], out=out)
    assert str(e.value) == str(direct.value) and "target" in str(e.value)
    with pytest.raises(TypeError):
        aclnn_bce.prepare(BWD, 1.0, x, y.astype(np.int32), out=out)
    with pytest.raises(TypeError, match="grad_output"):
        aclnn_bce.prepare(BWD, None, x, y)
    with pytest.raises(TypeError, match="four operator functions"):
        aclnn_bce.prepare(np.add, x, y)
    with pytest.raises(TypeError, match="prepare"):
        aclnn_bce.prepare(FWD, x, y, bogus=1)
    with pytest.raises(ValueError, match="negative strides"):
        aclnn_bce.prepare(FWD, x[::-1], y[::-1], reduction="none")
    assert np.all(out == 9.0)


def test_arrays_are_kept_alive():
    rng = np.random.default_rng(11)
    x, y, w, _, _ = operands(rng, (8, 300), np.dtype(np.float32), False)
    want = FWD(x, y, w, 2.0, "none")
    # Copies that nothing else references, and a number made into a 0-dim array inside prepare.
    step = aclnn_bce.prepare(FWD, x.copy(), y.copy(), w.copy(), 2.0, "none")
    gc.collect()
    junk = [np.full(x.shape, 1e30, np.float32) for _ in range(8)]  # reuse of freed memory would show
    np.testing.assert_array_equal(step(), want)
    del junk


@pytest.mark.parametrize("change", ["resize_", "set_", "storage"])
def test_torch_tensor_moved_in_place_raises(change):
    x = torch.linspace(-4, 4, 600).reshape(20, 30)
    y = torch.full((20, 30), 0.5)
    out = torch.full((20, 30), 3.0)
    step = aclnn_bce.prepare(BWD, 1.0, x, y, None, None, "none", out=out)
    step()
    out.fill_(3.0)
    if change == "resize_":
        x.resize_(4000)
    elif change == "set_":
        x.set_(torch.zeros(20, 30))
    else:
        y.untyped_storage().resize_(0)
    with pytest.raises(RuntimeError, match="resized or re-pointed"):
        step()
    assert torch.all(out == 3.0)
    step.close()


def test_one_launch_at_a_time_from_threads():
    rng = np.random.default_rng(13)
    x, y, w, pw, g = operands(rng, (512, 1024), np.dtype(np.float32), True)
    step = aclnn_bce.prepare(BWD, g, x, y, w, pw, "none")
    want = BWD(g, x, y, w, pw, "none")
    ran, busy, errors = [0, 0], [0, 0], []

    def worker(k):
        try:
            for _ in range(40):
                try:
                    step()
                    ran[k] += 1
                except RuntimeError as e:
                    assert "another thread" in str(e)
                    busy[k] += 1
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sum(ran) + sum(busy) == 80 and sum(ran) >= 40
    assert torch.equal(step(), want)


@pytest.mark.parametrize("change", ["grow", "shrink", "base grown"])
def test_numpy_array_resized_in_place_raises(change):
    """ndarray.resize(..., refcheck=False) moves or shrinks the array's memory under a prepared
    call (its own reference does not stop it): the next run raises instead of writing freed
    memory, and writes nothing."""
    base = np.linspace(-4, 4, 1200, dtype=np.float32)
    x = base[:600].reshape(20, 30)  # a view: resizing base leaves it dangling
    y = np.full((20, 30), 0.5, np.float32)
    out = np.full((20, 30), 3.0, np.float32)
    step = aclnn_bce.prepare(BWD, 1.0, x, y, None, None, "none", out=out)
    step()
    if change == "grow":
        out.resize(1 << 20, refcheck=False)
    elif change == "shrink":
        out.resize(4, refcheck=False)
    else:
        base.resize(1 << 20, refcheck=False)
    out[...] = 3.0
    with pytest.raises(RuntimeError, match="resized or reshaped in place"):
        step()
    assert np.all(out == 3.0)
    step.close()


def test_forked_child_starts_with_no_prepared_call_running():
    """fork() while another thread runs a prepared call: in the child, where that thread does not
    exist, the call runs (it is not "already running") and gives the parent's result."""
    import os

    rng = np.random.default_rng(17)
    x, y, w, pw, g = operands(rng, (1024, 2048), np.dtype(np.float32), False)
    step = aclnn_bce.prepare(BWD, g, x, y, w, pw, "none")
    want = BWD(g, x, y, w, pw, "none")
    stop = threading.Event()
    running = threading.Event()

    def loop():
        while not stop.is_set():
            running.set()
            step()

    thread = threading.Thread(target=loop)
    thread.start()
    statuses = []
    try:
        running.wait()
        for _ in range(4):  # each fork most likely lands while the thread runs the call
            pid = os.fork()
            if pid == 0:  # the child: one thread, this one
                code = 1
                try:
                    code = 0 if np.array_equal(step(), want) else 2
                finally:
                    os._exit(code)
            statuses.append(os.waitpid(pid, 0)[1])
    finally:
        stop.set()
        thread.join()
    assert statuses == [0, 0, 0, 0], statuses
    step.close()


def test_prepare_refuses_lazy_tensors():
    """A prepared call cannot read a lazy tensor through a copy made once (later writes to the
    tensor would not be seen): a tensor with the negative bit or a ZeroTensor is refused."""
    x = torch.linspace(-4, 4, 12)
    lazy = torch.complex(torch.zeros(12), -x).conj().imag
    assert lazy.is_neg() and torch.equal(lazy, x)
    with pytest.raises(ValueError, match="input: a tensor with the negative or conjugate bit is not supported by prepare"):
        aclnn_bce.prepare(FWD, lazy, x, reduction="none")
    with pytest.raises(ValueError, match="out: a tensor with the negative or conjugate bit"):
        aclnn_bce.prepare(FWD, x, x, reduction="none", out=torch.complex(torch.zeros(12), x).conj().imag)
    with pytest.raises(ValueError, match="target: a ZeroTensor"):
        aclnn_bce.prepare(FWD, x, torch._efficientzerotensor(12), reduction="none")


@pytest.mark.parametrize("given", [True, False], ids=["out", "made"])
def test_prepared_torch_outputs_are_versioned_at_every_run(given):
    x = torch.linspace(-4, 4, 12)
    y = torch.full((12,), 0.25)
    with aclnn_bce.prepare(FUSED, x, y, reduction="none",
                           **({"out": torch.empty(12), "grad_input": torch.empty(12)} if given else {})) as step:
        loss, grad = step()
        versions = (loss._version, grad._version)
        p = torch.ones(12, requires_grad=True)
        z = (loss * p).sum()
        step()
        assert loss._version > versions[0] and grad._version > versions[1]
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()
