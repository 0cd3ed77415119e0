"""The golden-data tools: ``aclnn-bce golden|gen|compare`` (aclnn_bce.__main__, aclnn_bce.golden)
and the strict file reader (aclnn_bce.npy). docs/golden.md is the manual these tests hold to.

Golden values are checked against a float64 numpy reference written here from the formulas alone;
inputs are random and nonzero (never all-zero data)."""

import io
import os
import pickle
import shlex
import struct
import subprocess
import sys

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)

from aclnn_bce import golden as G  # noqa: E402
from aclnn_bce import npy  # noqa: E402
from aclnn_bce.__main__ import main  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS = ("forward", "backward", "target-backward", "fused")
REDUCTIONS = ("none", "mean", "sum")


# ---------------------------------------------------------------- float64 reference (formulas only)

def softplus(z):
    return np.logaddexp(0.0, z)


def sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def log_sigmoid(z):
    return -softplus(-z)


def _reduce(v, reduction):
    return v if reduction == "none" else (v.mean() if reduction == "mean" else v.sum())


def ref_loss(x, y, w, pw, reduction):
    w = 1.0 if w is None else w
    pw = 1.0 if pw is None else pw
    return _reduce(w * (pw * y * softplus(-x) + (1 - y) * softplus(x)), reduction)


def ref_grad(x, y, w, pw, g, reduction):
    w = 1.0 if w is None else w
    pw = 1.0 if pw is None else pw
    v = w * ((1 - y) * sigmoid(x) - pw * y * sigmoid(-x)) * g
    return v / x.size if reduction == "mean" else v


def ref_target_grad(x, y, w, pw, g, reduction):
    w = 1.0 if w is None else w
    v = w * g * (log_sigmoid(-x) - pw * log_sigmoid(x)) if pw is not None else -x * w * g
    return np.broadcast_to(v / x.size if reduction == "mean" else v, x.shape)


def f64(a):
    return None if a is None else np.asarray(a).astype(np.float64)


def reference(op, x, y, w=None, pw=None, g=None, reduction="mean"):
    x, y, w, pw, g = map(f64, (x, y, w, pw, g))
    if op == "forward":
        return {"loss": ref_loss(x, y, w, pw, reduction)}
    if op == "backward":
        return {"grad_input": ref_grad(x, y, w, pw, g, reduction)}
    if op == "target-backward":
        return {"grad_target": ref_target_grad(x, y, w, pw, g, reduction)}
    return {"loss": ref_loss(x, y, w, pw, reduction),
            "grad_input": ref_grad(x, y, w, pw, 1.0 if g is None else g, reduction)}


def assert_f32_close(got, want):
    """float32 golden (computed in float64, rounded once) against the float64 reference."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    scale = max(float(np.abs(want).max()), 1e-30)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6 * scale)


# ---------------------------------------------------------------- helpers

def run(capsys, *argv):
    """main(argv) -> (status, stdout, stderr)."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def assert_usage_error(rc, out, err, *needles):
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("aclnn-bce: error: "), err
    assert "internal error" not in err, err
    for n in needles:
        assert n in err, (n, err)


def make_case(rng, shape=(6, 5), dtype=np.float32):
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    y = rng.uniform(0.05, 0.95, shape).astype(dtype)
    w = rng.uniform(0.5, 1.5, shape).astype(dtype)
    pw = rng.uniform(0.5, 3.0, shape[-1:]).astype(dtype)
    g_full = (rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)
    g_scalar = np.asarray(rng.uniform(0.5, 2.0), dtype=dtype)
    assert np.all(x != 0) and np.all(y != 0)
    return x, y, w, pw, g_full, g_scalar


def npy_header_file(header, data=b""):
    text = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1") + data


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# ---------------------------------------------------------------- golden, end to end

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("optional", ["all", "none"])
def test_golden_npy_inputs_every_op(tmp_path, capsys, rng, op, reduction, optional):
    x, y, w, pw, g_full, g_scalar = make_case(rng)
    full = optional == "all"
    files = {"input": x, "target": y}
    if full:
        files.update({"weight": w, "pos-weight": pw})
    g = None
    if op in ("backward", "target-backward"):
        g = g_full if (reduction == "none" and full) else g_scalar
    elif op == "fused" and full:
        g = g_scalar
    if g is not None:
        files["grad-output"] = g
    argv = ["golden", "--op", op, "--reduction", reduction]
    for name, arr in files.items():
        path = tmp_path / f"{name}.npy"
        np.save(path, arr)
        argv += [f"--{name}", path]
    argv += ["--out", tmp_path / "out.npy", "--out-bin", tmp_path / "out.bin"]
    if op == "fused":
        argv += ["--grad-out", tmp_path / "grad.npy", "--grad-out-bin", tmp_path / "grad.bin"]
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    assert err == ""
    want = reference(op, x, y, w if full else None, pw if full else None, g, reduction)
    got = {G.output_names(op)[0]: np.load(tmp_path / "out.npy")}
    if op == "fused":
        got["grad_input"] = np.load(tmp_path / "grad.npy")
    assert set(got) == set(want)
    for name in want:
        assert got[name].dtype == np.float32  # target's dtype
        assert_f32_close(got[name], want[name])
    raw = np.fromfile(tmp_path / "out.bin", dtype="<f4")
    assert raw.tobytes() == got[G.output_names(op)[0]].tobytes()  # raw = the values alone
    if op == "fused":
        assert np.fromfile(tmp_path / "grad.bin", dtype="<f4").tobytes() == got["grad_input"].tobytes()


def test_golden_bin_inputs_as_the_brief_example(tmp_path, capsys, rng, monkeypatch):
    """aclnn-bce golden --op backward --input x.npy --target y.npy --grad-output g.bin --dtype
    float32 --shape 1 --out grad.bin --out-npy grad.npy"""
    x, y, *_ = make_case(rng, (32, 32))
    g = np.array([0.75], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    g.tofile(tmp_path / "g.bin")
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, "golden", "--op", "backward", "--input", "x.npy", "--target", "y.npy",
                       "--grad-output", "g.bin", "--dtype", "float32", "--shape", "1",
                       "--out", "grad.bin", "--out-npy", "grad.npy")
    assert rc == 0, err
    assert "grad.bin" in out and "grad.npy" in out
    grad = np.fromfile("grad.bin", dtype=np.float32).reshape(32, 32)
    assert np.load("grad.npy").tobytes() == grad.tobytes()
    assert_f32_close(grad, ref_grad(f64(x), f64(y), None, None, 0.75, "mean"))


def test_golden_all_raw_inputs_with_own_dtypes_and_shapes(tmp_path, capsys, rng):
    x, y, w, pw, g_full, _ = make_case(rng, (4, 8))
    x16 = x.astype(np.float16)
    paths = {}
    for name, arr in (("input", x16), ("target", y), ("weight", w), ("pos-weight", pw), ("grad-output", g_full)):
        paths[name] = tmp_path / f"{name}.bin"
        arr.tofile(paths[name])
    rc, out, err = run(capsys, "golden", "--op", "target-backward", "--reduction", "sum",
                       "--input", paths["input"], "--input-dtype", "float16",
                       "--target", paths["target"], "--weight", paths["weight"],
                       "--pos-weight", paths["pos-weight"], "--pos-weight-shape", "8",
                       "--grad-output", paths["grad-output"],
                       "--dtype", "float32", "--shape", "4,8", "--out", tmp_path / "gt.npy")
    assert rc == 0, err
    got = np.load(tmp_path / "gt.npy")
    assert got.dtype == np.float32 and got.shape == (4, 8)
    assert_f32_close(got, ref_target_grad(f64(x16), f64(y), f64(w), f64(pw), f64(g_full), "sum"))


def test_golden_out_dtype_and_native_precision(tmp_path, capsys, rng):
    x, y, *_ = make_case(rng, (16, 16), np.float16)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    base = ["golden", "--op", "forward", "--reduction", "none", "--input", tmp_path / "x.npy",
            "--target", tmp_path / "y.npy"]
    assert run(capsys, *base, "--out", tmp_path / "hi.npy", "--out-dtype", "float64")[0] == 0
    assert run(capsys, *base, "--out", tmp_path / "f16.npy")[0] == 0
    assert run(capsys, *base, "--out", tmp_path / "nat.npy", "--precision", "native")[0] == 0
    hi, f16, nat = (np.load(tmp_path / n) for n in ("hi.npy", "f16.npy", "nat.npy"))
    assert hi.dtype == np.float64 and f16.dtype == np.float16 and nat.dtype == np.float16
    assert_f32_close(hi, ref_loss(f64(x), f64(y), None, None, "none"))
    assert np.array_equal(f16, hi.astype(np.float16))  # rounded once from float64
    assert G.compare(nat, f16).passed  # what an fp32-computing kernel gives passes


def test_golden_bfloat16_npy_round_trip(tmp_path, capsys, rng):
    x, y, *_ = make_case(rng, (8, 8))
    xb, yb = x.astype(BF16), y.astype(BF16)
    np.save(tmp_path / "x.npy", xb)  # numpy writes descr '<V2'
    np.save(tmp_path / "y.npy", yb)
    with open(tmp_path / "x.npy", "rb") as f:
        assert b"'descr': '<V2'" in f.read(128)
    rc, out, err = run(capsys, "golden", "--op", "forward", "--reduction", "none", "--input", tmp_path / "x.npy",
                       "--target", tmp_path / "y.npy", "--out", tmp_path / "l.npy", "--out", tmp_path / "l.bin")
    assert rc == 0, err
    loss = np.load(tmp_path / "l.npy").view(BF16)  # numpy gives void16 back; view it
    assert npy.read_npy(str(tmp_path / "l.npy")).dtype == BF16
    assert np.fromfile(tmp_path / "l.bin", dtype="<u2").tobytes() == loss.tobytes()
    want = ref_loss(f64(xb), f64(yb), None, None, "none")
    assert np.array_equal(loss, want.astype(BF16))


def test_fused_matches_forward_and_backward(tmp_path, capsys, rng):
    x, y, w, pw, _, g = make_case(rng, (5, 7))
    for name, arr in (("x", x), ("y", y), ("w", w), ("pw", pw), ("g", g)):
        np.save(tmp_path / f"{name}.npy", arr)
    common = ["--input", tmp_path / "x.npy", "--target", tmp_path / "y.npy", "--weight", tmp_path / "w.npy",
              "--pos-weight", tmp_path / "pw.npy", "--reduction", "mean"]
    assert run(capsys, "golden", "--op", "fused", *common, "--grad-output", tmp_path / "g.npy",
               "--out", tmp_path / "fl.npy", "--grad-out", tmp_path / "fg.npy")[0] == 0
    assert run(capsys, "golden", "--op", "forward", *common, "--out", tmp_path / "l.npy")[0] == 0
    assert run(capsys, "golden", "--op", "backward", *common, "--grad-output", tmp_path / "g.npy",
               "--out", tmp_path / "g_in.npy")[0] == 0
    assert np.load(tmp_path / "fl.npy").tobytes() == np.load(tmp_path / "l.npy").tobytes()
    assert np.load(tmp_path / "fg.npy").tobytes() == np.load(tmp_path / "g_in.npy").tobytes()


@pytest.mark.parametrize("op", OPS)
def test_gen_writes_a_whole_case(tmp_path, capsys, op):
    d = tmp_path / "case"
    rc, out, err = run(capsys, "gen", "--op", op, "--shape", "16,12", "--dtype", "float32", "--seed", 7,
                       "--reduction", "none", "--with-weight", "--with-pos-weight", "--outdir", d,
                       *(["--with-grad-output"] if op == "fused" else []))
    assert rc == 0, err
    import json
    manifest = json.loads((d / "case.json").read_text())
    assert manifest["op"] == op and manifest["seed"] == 7
    x, y, w, pw = (np.load(d / f"{n}.npy") for n in ("input", "target", "weight", "pos_weight"))
    assert x.shape == (16, 12) and pw.shape == (12,) and x.dtype == np.float32
    assert np.all((y >= 0) & (y <= 1)) and np.ptp(x) > 4 and np.all(x != 0)
    g = np.load(d / "grad_output.npy") if (d / "grad_output.npy").exists() else None
    assert (g is not None) == (op != "forward")
    want = reference(op, x, y, w, pw, g, "none")
    for name in want:
        gold = np.load(d / f"golden_{name}.npy")
        assert np.fromfile(d / f"golden_{name}.bin", dtype="<f4").tobytes() == gold.tobytes()
        assert_f32_close(gold, want[name])
        assert run(capsys, "compare", d / f"golden_{name}.bin", d / f"golden_{name}.npy")[0] == 0
    # the same seed gives the same case
    assert run(capsys, "gen", "--op", op, "--shape", "16,12", "--seed", 7, "--reduction", "none",
               "--with-weight", "--with-pos-weight", "--outdir", tmp_path / "again", "--format", "bin", "-q",
               *(["--with-grad-output"] if op == "fused" else []))[0] == 0
    assert (tmp_path / "again" / "input.bin").read_bytes() == (d / "input.bin").read_bytes()
    assert not (tmp_path / "again" / "input.npy").exists()


# ---------------------------------------------------------------- compare

def _golden_values(rng, n=4000, dtype=np.float32):
    v = rng.uniform(0.1, 2.0, n) * rng.choice([-1.0, 1.0], n)
    return v.astype(dtype)


def _with_errors(golden, k, rel, rng):
    """golden with k elements off by the relative error rel (the others exact)."""
    out = golden.astype(np.float64).copy()
    idx = rng.choice(golden.size, size=k, replace=False)
    out[idx] *= 1.0 + rel
    return out.astype(golden.dtype)


@pytest.mark.parametrize("dtype,rtol,ratio", [(np.float16, 1e-3, 1e-3), (BF16, 4e-3, 4e-3), (np.float32, 1e-4, 1e-4)])
def test_compare_standard_thresholds(tmp_path, capsys, rng, dtype, rtol, ratio):
    std = G.STANDARDS[npy.dtype_name(dtype)]
    assert (std.rtol, std.ratio) == (rtol, ratio)
    gold = _golden_values(rng, 5000, dtype)
    np.save(tmp_path / "gold.npy", gold)
    allowed = int(ratio * gold.size)
    # every element slightly off, below rtol: PASS
    small = (gold.astype(np.float64) * (1 + 0.4 * rtol)).astype(dtype)
    np.save(tmp_path / "small.npy", small)
    rc, out, _ = run(capsys, "compare", tmp_path / "small.npy", tmp_path / "gold.npy")
    assert rc == 0 and "PASS" in out
    # exactly the allowed share above rtol: PASS; one more: FAIL
    np.save(tmp_path / "edge.npy", _with_errors(gold, allowed, 5 * rtol, rng))
    rc, out, _ = run(capsys, "compare", tmp_path / "edge.npy", tmp_path / "gold.npy")
    assert rc == 0, out
    np.save(tmp_path / "over.npy", _with_errors(gold, allowed + 1, 5 * rtol, rng))
    rc, out, _ = run(capsys, "compare", tmp_path / "over.npy", tmp_path / "gold.npy")
    assert rc == 1 and "FAIL" in out and f"{allowed + 1} elements over rtol" in out


def test_compare_one_element_over_fails_when_no_allowance(tmp_path, capsys, rng):
    gold = _golden_values(rng, 1000)
    out_arr = gold.copy()
    out_arr[17] = np.float32(gold[17] * (1 + 3e-3))
    np.save(tmp_path / "gold.npy", gold)
    np.save(tmp_path / "npu.npy", out_arr)
    rc, out, _ = run(capsys, "compare", tmp_path / "npu.npy", tmp_path / "gold.npy")
    assert rc == 1  # float32: 1e-4 * 1000 = 0.1 element allowed, one exceeds
    for needle in ("max absolute error", "max relative error", "relative error > 0.0001", "1 (0.1%)",
                   "<= 0 (0.01%)", "[17]", "FAIL"):
        assert needle in out, (needle, out)
    res = G.compare(out_arr, gold)
    assert res.over_rtol == 1 and res.worst[0].index == (17,)
    assert res.max_abs == pytest.approx(abs(float(out_arr[17]) - float(gold[17])))
    assert res.max_rel == pytest.approx(3e-3, rel=1e-3)
    # the overrides: a looser rtol or ratio passes it
    assert run(capsys, "compare", tmp_path / "npu.npy", tmp_path / "gold.npy", "--rtol", "4e-3")[0] == 0
    assert run(capsys, "compare", tmp_path / "npu.npy", tmp_path / "gold.npy", "--ratio", "0.001")[0] == 0
    assert run(capsys, "compare", tmp_path / "npu.npy", tmp_path / "gold.npy", "--rtol", "1e-3", "--ratio", "0")[0] == 1


def test_compare_nan_and_inf(tmp_path, capsys, rng):
    gold = _golden_values(rng, 2000)

    def verdict(o, g):
        np.save(tmp_path / "o.npy", o)
        np.save(tmp_path / "g.npy", g)
        return run(capsys, "compare", tmp_path / "o.npy", tmp_path / "g.npy")

    g2, o2 = gold.copy(), gold.copy()
    g2[[3, 9]] = np.nan
    o2[[3, 9]] = np.nan
    rc, out, _ = verdict(o2, g2)
    assert rc == 0 and "NaN in both" in out  # NaN in both places: equal
    o3 = gold.copy()
    o3[5] = np.nan
    rc, out, _ = verdict(o3, gold)  # NaN only in the output: FAIL, whatever the ratio
    assert rc == 1 and "NaN/Inf mismatch" in out
    rc, _, _ = verdict(gold, o3)  # NaN only in the golden: FAIL
    assert rc == 1
    assert run(capsys, "compare", tmp_path / "g.npy", tmp_path / "o.npy", "--ratio", "1")[0] == 1
    g4, o4 = gold.copy(), gold.copy()
    g4[[0, 1]] = [np.inf, -np.inf]
    o4[[0, 1]] = [np.inf, -np.inf]
    assert verdict(o4, g4)[0] == 0  # the same infinities: equal
    o4[1] = np.inf
    assert verdict(o4, g4)[0] == 1  # opposite infinities
    o5 = gold.copy()
    o5[2] = np.inf
    assert verdict(o5, gold)[0] == 1  # overflow where the golden is finite


def test_compare_small_value_floor(tmp_path, capsys, rng):
    gold = _golden_values(rng, 2000).astype(np.float64)
    gold[:100] = rng.uniform(-1e-9, 1e-9, 100)  # tiny golden values (a cancellation, say)
    gold = gold.astype(np.float32)
    out_arr = gold.copy()
    out_arr[:100] += np.float32(3e-8)  # absolute error far below anything that matters
    np.save(tmp_path / "g.npy", gold)
    np.save(tmp_path / "o.npy", out_arr)
    res = G.compare(out_arr, gold)
    assert res.floor == pytest.approx(G.FLOOR_SCALE * float(np.abs(gold).max()))
    assert res.passed and res.over_rtol == 0
    rc, out, _ = run(capsys, "compare", tmp_path / "o.npy", tmp_path / "g.npy")
    assert rc == 0 and "floor = " in out
    # without a floor those 100 elements have huge relative errors: FAIL
    assert run(capsys, "compare", tmp_path / "o.npy", tmp_path / "g.npy", "--floor", "0")[0] == 1
    # and a zero golden with a nonzero output under --floor 0 is an infinite relative error
    assert G.compare(np.array([1e-30], np.float32), np.array([0.0], np.float32), floor=0).max_rel == np.inf
    assert G.compare(np.zeros(3, np.float32), np.zeros(3, np.float32), floor=0).passed


def test_compare_raw_output_takes_the_golden_npy_dtype_and_shape(tmp_path, capsys, rng):
    gold = _golden_values(rng, 60, np.float16).reshape(6, 10)
    np.save(tmp_path / "g.npy", gold)
    gold.tofile(tmp_path / "o.bin")
    rc, out, err = run(capsys, "compare", tmp_path / "o.bin", tmp_path / "g.npy")
    assert rc == 0, err
    assert "output float16" in out and "(6, 10)" in out and "double thousandth" in out


def test_compare_empty_and_0dim(tmp_path, capsys, rng):
    np.save(tmp_path / "e.npy", np.zeros((0, 4), np.float32))
    assert run(capsys, "compare", tmp_path / "e.npy", tmp_path / "e.npy")[0] == 0
    np.save(tmp_path / "s.npy", np.asarray(0.6931, np.float32))
    np.asarray(0.6931, np.float32).tofile(tmp_path / "s.bin")
    assert run(capsys, "compare", tmp_path / "s.bin", tmp_path / "s.npy", "--shape", "")[0] == 0
    np.asarray(0.70, np.float32).tofile(tmp_path / "s2.bin")
    assert run(capsys, "compare", tmp_path / "s2.bin", tmp_path / "s.npy")[0] == 1


# ---------------------------------------------------------------- strict reading: exit 2, one line

def _broken_files(tmp_path):
    good = io.BytesIO()
    np.save(good, np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    good = good.getvalue()
    cases = {}

    def put(name, data):
        p = tmp_path / name
        p.write_bytes(data)
        cases[name] = str(p)

    put("empty.npy", b"")
    put("trunc_magic.npy", good[:5])
    put("trunc_header.npy", good[:40])
    put("trunc_data.npy", good[:-2])
    put("trailing.npy", good + b"\x00\x00\x00\x00")
    put("bad_magic.npy", b"PK\x03\x04" + good[4:])
    put("bad_version.npy", good[:6] + b"\x04\x00" + good[8:])
    put("long_header.npy", good[:8] + struct.pack("<H", 65535) + good[10:])
    for name, arr, kw in (("big_endian.npy", np.arange(1, 4, dtype=">f4"), {}),
                          ("fortran.npy", np.asfortranarray(np.arange(1, 7, dtype=np.float32).reshape(2, 3)), {}),
                          ("object.npy", np.array([1.5, "x", None], dtype=object), {"allow_pickle": True}),
                          ("int32.npy", np.arange(1, 4, dtype=np.int32), {}),
                          ("complex.npy", np.arange(1, 4).astype(np.complex64), {}),
                          ("structured.npy", np.ones(2, dtype=[("a", "<f4")]), {})):
        b = io.BytesIO()
        np.save(b, arr, **kw)
        put(name, b.getvalue())
    put("not_literal.npy", npy_header_file("{'descr': open('/etc/passwd').read(), 'fortran_order': False, 'shape': ()}"))
    put("not_dict.npy", npy_header_file("('<f4', False, ())"))
    put("shape_float.npy", npy_header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }", b"\0" * 8))
    put("shape_negative.npy", npy_header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"))
    put("header_binary.npy", npy_header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }\x00\xff"))
    return cases


def test_strict_reader_rejects_broken_files_on_one_line(tmp_path, capsys):
    cases = _broken_files(tmp_path)
    np.save(tmp_path / "ok.npy", np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    expected = {
        "empty.npy": "empty file", "trunc_magic.npy": "truncated", "trunc_header.npy": "truncated .npy header",
        "trunc_data.npy": "(truncated)", "trailing.npy": "(trailing bytes)", "bad_magic.npy": "not a .npy file",
        "bad_version.npy": "version 4.0", "long_header.npy": "longer than", "big_endian.npy": "big-endian",
        "fortran.npy": "Fortran", "object.npy": "object (pickled)", "int32.npy": "unsupported .npy dtype '<i4'",
        "complex.npy": "unsupported .npy dtype", "structured.npy": "structured", "not_literal.npy": "literal",
        "not_dict.npy": "not a dict", "shape_float.npy": "tuple of integers", "shape_negative.npy": "negative",
        "header_binary.npy": "literal",
    }
    assert set(expected) == set(cases)
    for name, path in cases.items():
        with pytest.raises(npy.NpyError) as info:
            npy.read_npy(path)
        assert expected[name] in str(info.value), (name, info.value)
        # as the golden's input and as compare's output or golden: exit 2, one line, no traceback
        rc, out, err = run(capsys, "golden", "--op", "forward", "--input", path, "--target", tmp_path / "ok.npy",
                           "--out", tmp_path / "o.npy")
        assert_usage_error(rc, out, err, name, expected[name])
        assert_usage_error(*run(capsys, "compare", path, tmp_path / "ok.npy"), expected[name])
        assert_usage_error(*run(capsys, "compare", tmp_path / "ok.npy", path), expected[name])
    assert not (tmp_path / "o.npy").exists()


def test_pickles_are_never_loaded(tmp_path, capsys):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    payload = pickle.dumps(Evil())
    path = tmp_path / "evil.npy"
    path.write_bytes(npy_header_file("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", payload))
    np.save(tmp_path / "ok.npy", np.ones(1, np.float32))
    assert_usage_error(*run(capsys, "compare", path, tmp_path / "ok.npy"), "object (pickled)")
    assert not marker.exists()


def test_raw_size_and_option_errors(tmp_path, capsys, rng):
    x, y, *_ = make_case(rng, (4, 4))
    x.tofile(tmp_path / "x.bin")
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "x16.npy", x.astype(np.float16))
    (tmp_path / "odd.bin").write_bytes(x.tobytes()[:-1])
    out = ["--out", tmp_path / "o.npy"]
    g = ["golden", "--op", "forward", "--target", tmp_path / "y.npy"]
    # .bin size != prod(shape) * itemsize, both ways
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x.bin", "--dtype", "float32", "--shape", "4,5", *out),
                       "size is 64 bytes", "needs 80", "truncated")
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x.bin", "--dtype", "float16", "--shape", "4,4", *out),
                       "needs 32", "too large")
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "odd.bin", "--dtype", "float32", "--shape", "4,4", *out),
                       "63 bytes")
    # a raw file without a dtype or shape
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x.bin", "--shape", "4,4", *out), "needs a dtype")
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x.bin", "--dtype", "float32", *out), "needs a shape")
    # unsupported dtype names, bad shapes
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x.bin", "--dtype", "int8", "--shape", "4,4", *out),
                       "unsupported dtype 'int8'")
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x.bin", "--dtype", "float32", "--shape", "4,-4", *out),
                       "bad shape")
    # a .npy whose dtype differs from what its own option says
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x16.npy", "--input-dtype", "float32", *out),
                       "holds float16")
    # a missing file, a directory
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "nope.npy", *out), "nope.npy", "cannot read")
    assert_usage_error(*run(capsys, *g, "--input", tmp_path, "--dtype", "float32", "--shape", "4,4", *out),
                       "cannot read")
    # the operator's own refusals: shapes that do not match
    np.save(tmp_path / "y5.npy", rng.uniform(0.1, 0.9, (4, 5)).astype(np.float32))
    assert_usage_error(*run(capsys, "golden", "--op", "forward", "--input", tmp_path / "x.bin", "--dtype", "float32",
                            "--shape", "4,4", "--target", tmp_path / "y5.npy", *out), "target shape [4,5]")
    # an output file that cannot be written
    assert_usage_error(*run(capsys, *g, "--input", tmp_path / "x16.npy", "--out", tmp_path / "no" / "dir" / "o.npy"),
                       "cannot write")


def test_compare_shape_mismatch_is_a_usage_error(tmp_path, capsys, rng):
    a = _golden_values(rng, 12)
    np.save(tmp_path / "a.npy", a.reshape(3, 4))
    np.save(tmp_path / "b.npy", a.reshape(4, 3))
    a.tofile(tmp_path / "a.bin")
    assert_usage_error(*run(capsys, "compare", tmp_path / "a.npy", tmp_path / "b.npy"), "shape mismatch")
    assert_usage_error(*run(capsys, "compare", tmp_path / "a.bin", tmp_path / "b.npy", "--shape", "12"),
                       "shape mismatch")
    assert_usage_error(*run(capsys, "compare", tmp_path / "a.bin", tmp_path / "a.bin"), "needs a dtype")


def test_cli_usage_errors(tmp_path, capsys, rng):
    x, y, *_ = make_case(rng, (3, 3))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    io_args = ["--input", tmp_path / "x.npy", "--target", tmp_path / "y.npy"]
    assert_usage_error(*run(capsys, "golden", "--op", "forward", *io_args), "no output file")
    assert_usage_error(*run(capsys, "golden", "--op", "forward", *io_args, "--grad-out", tmp_path / "g.npy"),
                       "--grad-out")
    assert_usage_error(*run(capsys, "golden", "--op", "backward", *io_args, "--out", tmp_path / "g.npy"),
                       "needs a grad_output")
    assert_usage_error(*run(capsys, "golden", "--op", "sideways", *io_args, "--out", tmp_path / "g.npy"), "--op")
    assert_usage_error(*run(capsys, "golden", "--op", "forward", "--reduction", "max", *io_args), "--reduction")
    assert_usage_error(*run(capsys, "golden", "--op", "forward", "--input", tmp_path / "x.npy"), "--target")
    assert_usage_error(*run(capsys, "golden", "--op", "forward", *io_args, "--weight-dtype", "float32",
                            "--out", tmp_path / "o.npy"), "without --weight")
    assert_usage_error(*run(capsys, "compare", tmp_path / "x.npy", tmp_path / "x.npy", "--rtol", "-1"), "--rtol")
    assert_usage_error(*run(capsys, "compare", tmp_path / "x.npy", tmp_path / "x.npy", "--ratio", "2"), "ratio")
    assert_usage_error(*run(capsys, "gen", "--op", "forward", "--shape", "3", "--outdir", tmp_path / "d",
                            "--with-grad-output"), "--with-grad-output")
    assert_usage_error(*run(capsys, "frobnicate"), "frobnicate")
    rc, out, err = run(capsys)
    assert rc == 2 and "golden" in err
    rc, out, err = run(capsys, "--help")
    assert rc == 0 and "golden" in out and "compare" in out
    rc, out, err = run(capsys, "golden", "--help")
    assert rc == 0 and "--grad-output" in out and "--out-npy" in out


def test_python_m_aclnn_bce_subprocess(tmp_path, rng):
    gold = _golden_values(rng, 500)
    np.save(tmp_path / "g.npy", gold)
    bad = gold.copy()
    bad[:10] *= 1.01
    bad.tofile(tmp_path / "npu.bin")
    env = dict(os.environ, PYTHONIOENCODING="ascii")  # the report is ASCII: no encoding trouble
    cmd = [sys.executable, "-m", "aclnn_bce", "compare", str(tmp_path / "npu.bin"), str(tmp_path / "g.npy")]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "FAIL" in p.stdout and "max relative error" in p.stdout and p.stderr == ""
    p = subprocess.run(cmd[:-1] + [str(tmp_path / "missing.npy")], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- commands as a shell runs them

@pytest.fixture(scope="module")
def bash(tmp_path_factory):
    """bash(script, cwd): runs ``script`` with bash, ``aclnn-bce`` on the PATH (this interpreter's
    package): the commands as a user types them."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "aclnn-bce"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m aclnn_bce "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONIOENCODING="utf-8")

    def run_bash(script, cwd):
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)

    return run_bash


def files_under(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("op,reduction", [("forward", "mean"), ("fused", "sum"), ("backward", "none")])
def test_gen_check_commands_run_in_bash_as_printed(bash, tmp_path, op, reduction):
    """The compare commands that gen prints ("check:") and stores in case.json run in bash as they
    are: the outdir quoted (a space and a quote in it), a 0-dim golden's shape spelled 'scalar'."""
    outdir = "case a'b"
    p = bash(f"aclnn-bce gen --op {op} --reduction {reduction} --shape 3,4 --outdir \"{outdir}\"",
             cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    printed = [line.split("check: ", 1)[1] for line in p.stdout.splitlines() if "check: " in line]
    import json
    stored = json.loads((tmp_path / outdir / "case.json").read_text())["compare"]
    assert printed == stored and len(printed) == len(G.output_names(op))
    if reduction != "none" and op != "backward":
        assert any("--shape scalar" in c for c in printed), printed
    for command in printed:
        npu, golden = shlex.split(command)[2:4]  # the words bash sees
        assert golden.startswith(outdir + "/")
        (tmp_path / npu).write_bytes((tmp_path / golden).read_bytes())  # the NPU's output: the golden's bytes
        p = bash(command, cwd=tmp_path)
        assert p.returncode == 0 and "PASS" in p.stdout, (command, p.stdout, p.stderr)


@pytest.mark.parametrize("spelling", ["scalar", "''", "'()'"])
def test_a_zero_dim_shape_spelled_for_the_shell_is_accepted(bash, tmp_path, rng, spelling):
    gold = np.asarray(rng.uniform(0.5, 1.5), np.float32)
    gold.tofile(tmp_path / "g.bin")
    gold.tofile(tmp_path / "o.bin")
    p = bash(f"aclnn-bce compare o.bin g.bin --dtype float32 --shape {spelling}", cwd=tmp_path)
    assert p.returncode == 0 and "shape ()" in p.stdout, (p.stdout, p.stderr)


def test_a_failing_golden_leaves_no_file_behind(bash, tmp_path, rng):
    """golden --out first.bin --out missing_dir/second.bin: exit 2, and first.bin is not written
    (nor any temporary); an existing output keeps its bytes."""
    x, y, *_ = make_case(rng, (3, 4))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    before = files_under(tmp_path)
    cmd = "aclnn-bce golden --op forward --input x.npy --target y.npy --out first.bin --out missing_dir/second.bin"
    p = bash(cmd, cwd=tmp_path)
    assert p.returncode == 2 and "missing_dir/second.bin" in p.stderr and "internal error" not in p.stderr, p.stderr
    assert files_under(tmp_path) == before
    (tmp_path / "first.bin").write_bytes(b"kept")
    (tmp_path / "a_dir.npy").mkdir()
    p = bash(cmd.replace("missing_dir/second.bin", "a_dir.npy"), cwd=tmp_path)
    assert p.returncode == 2 and "a_dir.npy" in p.stderr, p.stderr
    assert (tmp_path / "first.bin").read_bytes() == b"kept"
    assert files_under(tmp_path) == sorted(before + ["a_dir.npy", "first.bin"])


def test_a_failing_gen_leaves_no_file_behind(bash, tmp_path):
    """gen writes every file or none: a case.json it cannot write (a directory of that name)
    leaves the outdir as it was; an outdir it made itself goes too."""
    (tmp_path / "case" / "case.json").mkdir(parents=True)
    p = bash("aclnn-bce gen --op fused --shape 4,5 --outdir case", cwd=tmp_path)
    assert p.returncode == 2 and "case.json" in p.stderr, p.stderr
    assert files_under(tmp_path / "case") == ["case.json"]
    p = bash("aclnn-bce gen --op fused --shape 4,5 --outdir new/case --format bin", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (tmp_path / "new" / "case" / "golden_loss.bin").unlink()
    (tmp_path / "new" / "case" / "golden_loss.bin").mkdir()  # a rename onto it fails after the others
    p = bash("aclnn-bce gen --op fused --shape 4,5 --outdir new/case --format bin --seed 3", cwd=tmp_path)
    assert p.returncode == 2 and "golden_loss.bin" in p.stderr
    assert not any(name.endswith(".tmp") for name in files_under(tmp_path))


@pytest.mark.parametrize("shape,words", [
    ("1000000,1000000", ["1000000,1000000", "1000000000000 elements", "GiB"]),
    ("99999999999999999999,99999999999", ["99999999999999999999,99999999999", "too large"]),
])
def test_impossible_sizes_are_usage_errors_with_the_numbers(bash, tmp_path, shape, words):
    p = bash(f"aclnn-bce gen --op forward --shape {shape} --outdir case", cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aclnn-bce: error: --shape ") and "internal error" not in p.stderr
    for word in words:
        assert word in p.stderr, (word, p.stderr)
    assert not (tmp_path / "case").exists()


def test_case_bytes_counts_every_array_of_the_case():
    # forward none, fp32, weight and pos_weight[C]: input, target, weight, loss in float64 and
    # float32, one file's bytes; pos_weight [C] both ways.
    assert G.case_bytes("forward", (10, 4), "float32", "none", True, True) == 40 * (4 * 12 + 4) + 4 * 12
    assert G.case_bytes("forward", (10, 4), "float32", "mean") == 40 * (2 * 12 + 4)
    assert G.case_bytes("fused", (10, 4), "float16", "none") == 40 * (4 * 10 + 2)
    assert G.case_bytes("forward", (2**62, 4), "float32") is None


# ---------------------------------------------------------------- the .npy reader and writer

@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, BF16])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 1, 5)])
def test_npy_writer_matches_numpy_save(tmp_path, rng, dtype, shape):
    arr = (rng.standard_normal(shape) * 10 + 0.5).astype(dtype)
    b = io.BytesIO()
    np.save(b, arr)
    assert npy.dumps_npy(arr) == b.getvalue()
    back = npy.loads_npy(b.getvalue())
    assert back.dtype == arr.dtype and back.shape == arr.shape and back.tobytes() == arr.tobytes()
    npy.write_bin(str(tmp_path / "a.bin"), arr)
    assert npy.read_bin(str(tmp_path / "a.bin"), npy.dtype_name(dtype), shape).tobytes() == arr.tobytes()


def test_npy_reader_versions_and_views(tmp_path):
    arr = np.arange(1, 13, dtype=np.float32).reshape(3, 4)[:, ::2]  # not contiguous
    npy.write_npy(str(tmp_path / "v.npy"), arr)
    assert np.array_equal(npy.read_npy(str(tmp_path / "v.npy")), arr)
    for version in ((2, 0), (3, 0)):
        b = io.BytesIO()
        np.lib.format.write_array(b, arr, version=version)
        assert np.array_equal(npy.loads_npy(b.getvalue()), arr)
    assert npy.parse_shape("32,32") == (32, 32) and npy.parse_shape("7") == (7,)
    assert npy.parse_shape("") == () and npy.parse_shape("()") == () and npy.parse_shape("(2, 3)") == (2, 3)


def test_fuzzer_replays_its_seed_corpus(tmp_path):
    pytest.importorskip("atheris")
    corpus = os.path.join(REPO, "fuzz", "corpus", "npy")
    assert len(os.listdir(corpus)) >= 10
    env = dict(os.environ, FUZZ_NPY_WORKDIR=str(tmp_path))
    p = subprocess.run([sys.executable, os.path.join(REPO, "fuzz", "fuzz_npy.py"), "-runs=0", corpus],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "files found in" in p.stderr
