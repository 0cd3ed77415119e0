"""The golden-data tools for the operators on probabilities, ``--op bce`` and ``--op
bce-backward`` (aclnnBinaryCrossEntropy and ...Backward), and the operator list the tools take
from the library's API list (aclnn_bce.Op).

Golden values are checked against a float64 numpy reference written here from the formulas alone
(PyTorch's: the log terms clamped at -100, x * (1 - x) floored at 1e-12); inputs are random and
nonzero (never all-zero data)."""

import json
import subprocess
import sys

import numpy as np
import pytest

import aclnn_bce
from aclnn_bce import golden as G
from aclnn_bce.__main__ import main

REDUCTIONS = ("none", "mean", "sum")
PROB_OPS = ("bce", "bce-backward")


def _reduce(v, reduction):
    return v if reduction == "none" else (v.mean() if reduction == "mean" else v.sum())


def ref_bce(x, y, w, reduction):
    w = 1.0 if w is None else w
    with np.errstate(divide="ignore"):
        loss = -w * (y * np.maximum(np.log(x), -100.0) + (1 - y) * np.maximum(np.log1p(-x), -100.0))
    return _reduce(loss, reduction)


def ref_bce_grad(x, y, w, g, reduction):
    w = 1.0 if w is None else w
    v = g * (x - y) / np.maximum((1 - x) * x, 1e-12) * w
    return v / x.size if reduction == "mean" else v


def reference(op, x, y, w=None, g=None, reduction="mean"):
    x, y, w, g = (None if a is None else np.asarray(a).astype(np.float64) for a in (x, y, w, g))
    if op == "bce":
        return {"loss": ref_bce(x, y, w, reduction)}
    return {"grad_input": ref_bce_grad(x, y, w, g, reduction)}


def assert_f32_close(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    scale = max(float(np.abs(want).max()), 1e-30)
    assert scale > 1e-6  # never all-zero data
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6 * scale)


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def assert_usage_error(rc, err, *needles):
    assert rc == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("aclnn-bce: error: "), err
    for n in needles:
        assert n in err, (n, err)


@pytest.fixture
def rng():
    return np.random.default_rng(4321)


def make_case(rng, shape=(6, 5), dtype=np.float32):
    x = rng.uniform(0.02, 0.98, shape).astype(dtype)
    y = rng.uniform(0.05, 0.95, shape).astype(dtype)
    w = rng.uniform(0.5, 1.5, shape[-1:]).astype(dtype)
    g_full = (rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)
    g_scalar = np.asarray(rng.uniform(0.5, 2.0), dtype=dtype)
    return x, y, w, g_full, g_scalar


# ---------------------------------------------------------------- the operator list


def test_the_tools_operators_are_the_librarys_api_list():
    assert G.OPS == tuple(op.name.replace("_", "-") for op in aclnn_bce.Op)
    assert set(PROB_OPS) <= set(G.OPS)
    assert {"forward", "backward", "target-backward", "fused"} <= set(G.OPS)


def test_each_operators_operands_and_outputs_come_from_the_list():
    assert G.output_names("bce") == ("loss",)
    assert G.output_names("bce-backward") == ("grad_input",)
    assert G.output_names("fused") == ("loss", "grad_input")
    assert G.output_names("target-backward") == ("grad_target",)
    assert G.needs_grad_output("bce-backward") and not G.needs_grad_output("bce")
    assert not G.takes("bce", "pos_weight") and G.takes("bce", "weight")
    assert G.takes_probabilities("bce") and G.takes_probabilities("bce-backward")
    assert not any(G.takes_probabilities(op) for op in ("forward", "backward", "target-backward", "fused"))


# ---------------------------------------------------------------- golden


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("op", PROB_OPS)
@pytest.mark.parametrize("with_weight", [True, False], ids=["weight", "no-weight"])
def test_golden_npy_inputs(tmp_path, capsys, rng, op, reduction, with_weight):
    x, y, w, g_full, g_scalar = make_case(rng)
    files = {"input": x, "target": y}
    if with_weight:
        files["weight"] = w
    g = None
    if op == "bce-backward":
        g = files["grad-output"] = g_full if reduction == "none" else g_scalar
    argv = ["golden", "--op", op, "--reduction", reduction]
    for name, arr in files.items():
        np.save(tmp_path / f"{name}.npy", arr)
        argv += [f"--{name}", tmp_path / f"{name}.npy"]
    argv += ["--out", tmp_path / "out.npy", "--out-bin", tmp_path / "out.bin"]
    rc, out, err = run(capsys, *argv)
    assert rc == 0 and err == "", err
    got = np.load(tmp_path / "out.npy")
    assert got.dtype == np.float32  # input's dtype
    (want,) = reference(op, x, y, w if with_weight else None, g, reduction).values()
    assert_f32_close(got, want)
    assert np.fromfile(tmp_path / "out.bin", dtype="<f4").tobytes() == got.tobytes()


def test_golden_output_has_inputs_dtype(tmp_path, capsys, rng):
    """The loss of probabilities has input's dtype (the with-logits operators': target's)."""
    x, y, _, _, _ = make_case(rng)
    np.save(tmp_path / "x.npy", x.astype(np.float16))
    np.save(tmp_path / "y.npy", y.astype(np.float64))
    rc, _, err = run(capsys, "golden", "--op", "bce", "--reduction", "none", "--input", tmp_path / "x.npy",
                     "--target", tmp_path / "y.npy", "--out", tmp_path / "l.npy")
    assert rc == 0, err
    got = np.load(tmp_path / "l.npy")
    assert got.dtype == np.float16
    want = ref_bce(x.astype(np.float16).astype(np.float64), y, None, "none")
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2**-11)


def test_golden_of_exact_0_and_1_is_clamped(tmp_path, capsys):
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5], np.float32)
    y = np.array([0.0, 1.0, 1.0, 0.0, 0.5], np.float32)
    results = G.compute_golden("bce", x, y, reduction="none")
    np.testing.assert_array_equal(results["loss"], np.array([0, 0, 100, 100, np.log(2)], np.float32))
    grads = G.compute_golden("bce-backward", x, y, grad_output=np.ones(5, np.float32), reduction="none")
    np.testing.assert_allclose(grads["grad_input"], [0, 0, -1e12, 1e12, 0], rtol=1e-6)


def test_golden_of_an_input_outside_0_1_is_nan_as_the_npu_computes():
    """The golden tool describes the NPU kernel, which computes on without a check: NaN where
    aclnn_bce.binary_cross_entropy (PyTorch's behaviour) raises."""
    x = np.array([0.25, 1.5], np.float32)
    y = np.array([0.5, 0.5], np.float32)
    loss = G.compute_golden("bce", x, y, reduction="none")["loss"]
    assert np.isfinite(loss[0]) and np.isnan(loss[1])
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        aclnn_bce.binary_cross_entropy(x, y, reduction="none")


def test_golden_refuses_operands_the_operator_does_not_take(tmp_path, capsys, rng):
    x, y, w, _, _ = make_case(rng)
    for name, arr in (("x", x), ("y", y), ("pw", w)):
        np.save(tmp_path / f"{name}.npy", arr)
    rc, _, err = run(capsys, "golden", "--op", "bce", "--input", tmp_path / "x.npy", "--target", tmp_path / "y.npy",
                     "--pos-weight", tmp_path / "pw.npy", "--out", tmp_path / "o.npy")
    assert_usage_error(rc, err, "bce", "pos_weight")
    rc, _, err = run(capsys, "golden", "--op", "bce-backward", "--input", tmp_path / "x.npy",
                     "--target", tmp_path / "y.npy", "--out", tmp_path / "o.npy")
    assert_usage_error(rc, err, "grad_output")
    rc, _, err = run(capsys, "golden", "--op", "bce", "--input", tmp_path / "x.npy", "--target", tmp_path / "y.npy",
                     "--out", tmp_path / "o.npy", "--grad-out", tmp_path / "g.npy")
    assert_usage_error(rc, err, "--grad-out")
    assert not (tmp_path / "o.npy").exists()


# ---------------------------------------------------------------- gen and compare


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("op", PROB_OPS)
def test_gen_writes_a_case_of_probabilities(tmp_path, capsys, op, reduction):
    d = tmp_path / "case"
    rc, out, err = run(capsys, "gen", "--op", op, "--shape", "16,12", "--seed", 3, "--reduction", reduction,
                       "--with-weight", "--outdir", d)
    assert rc == 0, err
    manifest = json.loads((d / "case.json").read_text())
    assert manifest["op"] == op
    x, y, w = (np.load(d / f"{n}.npy") for n in ("input", "target", "weight"))
    assert np.all((x > 0) & (x < 1)) and np.ptp(x) > 0.5  # probabilities, spread
    assert np.all((y >= 0) & (y <= 1))
    g = np.load(d / "grad_output.npy") if op == "bce-backward" else None
    (name, want), = reference(op, x, y, w, g, reduction).items()
    gold = np.load(d / f"golden_{name}.npy")
    assert gold.dtype == np.float32
    assert_f32_close(gold, want)
    assert run(capsys, "compare", d / f"golden_{name}.bin", d / f"golden_{name}.npy")[0] == 0
    for hint in manifest["compare"]:
        assert "--dtype float32" in hint


def test_gen_refuses_a_pos_weight_for_bce(tmp_path, capsys):
    rc, _, err = run(capsys, "gen", "--op", "bce", "--shape", "4", "--with-pos-weight", "--outdir", tmp_path / "c")
    assert_usage_error(rc, err, "--with-pos-weight", "bce")
    rc, _, err = run(capsys, "gen", "--op", "bce-backward", "--shape", "4", "--with-grad-output",
                     "--outdir", tmp_path / "c")
    assert_usage_error(rc, err, "--with-grad-output")
    assert not (tmp_path / "c").exists()


def test_compare_judges_an_npu_output_of_bce(tmp_path, capsys, rng):
    x, y, _, _, _ = make_case(rng, (50, 40))
    gold = G.compute_golden("bce", x, y, reduction="none")["loss"]
    np.save(tmp_path / "gold.npy", gold)
    near = gold.astype(np.float64) * (1 + 1e-6)
    near.astype(np.float32).tofile(tmp_path / "npu.bin")
    assert run(capsys, "compare", tmp_path / "npu.bin", tmp_path / "gold.npy")[0] == 0
    far = gold.astype(np.float64)
    far[:5, :] *= 1.01  # 200 of 2000 elements off by 1%
    far.astype(np.float32).tofile(tmp_path / "npu.bin")
    rc, out, _ = run(capsys, "compare", tmp_path / "npu.bin", tmp_path / "gold.npy")
    assert rc == 1 and "FAIL" in out


def test_python_m_aclnn_bce_golden_op_bce(tmp_path, rng):
    x, y, _, _, _ = make_case(rng)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = subprocess.run([sys.executable, "-m", "aclnn_bce", "golden", "--op", "bce", "--input", str(tmp_path / "x.npy"),
                        "--target", str(tmp_path / "y.npy"), "--reduction", "sum", "--out", str(tmp_path / "l.npy")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert_f32_close(np.load(tmp_path / "l.npy"), ref_bce(x.astype(np.float64), y.astype(np.float64), None, "sum"))
    r = subprocess.run([sys.executable, "-m", "aclnn_bce", "golden", "--help"], capture_output=True, text=True)
    assert "bce-backward" in r.stdout


def test_case_bytes_of_bce():
    # bce none, fp32, weight: input, target, weight, loss in float64 and float32, one file's bytes.
    assert G.case_bytes("bce", (10, 4), "float32", "none", True) == 40 * (4 * 12 + 4)
    assert G.case_bytes("bce", (10, 4), "float32", "mean") == 40 * (2 * 12 + 4)
    # bce-backward none: grad_output too, and the gradient.
    assert G.case_bytes("bce-backward", (10, 4), "float32", "none") == 40 * (4 * 12 + 4)
