"""bench/python_bench.py runs: a one-round pass over the small sizes, without torch.compile and
JAX (minutes of compiling), so that the benchmark that judges the speed issue cannot rot. It
checks the contenders' results against float64 references itself; here its JSON must hold a
timed cell of every form of ours, and of the roofline loop when the release build made
libbce_roofline.so. Nothing here is a timing assertion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "python_bench.py"
ROOF = ROOT / "build" / "release" / "bench" / "libbce_roofline.so"


@pytest.mark.skipif(not BENCH.exists(), reason="run from a source tree")
def test_python_bench_runs_every_form_of_ours(tmp_path):
    out = tmp_path / "bench.json"
    cmd = [sys.executable, str(BENCH), "--no-compile", "--no-jax", "--sizes", "1Ki,64Ki", "--dtypes", "fp32,bf16",
           "--rounds", "1", "--min-sample-ms", "0.05", "--settle-ms", "0", "--json", str(out)]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(out.read_text())
    rows = [r for r in doc["results"] if r["section"] in ("backward", "forward")]
    assert len(rows) == 2 * 2 * 4  # sizes x dtypes x (two backward and two forward cases)
    for row in rows:
        for role in ("ours", "ours out=", "ours repeat", "eager"):
            cell = row["cells"][role]
            assert cell["ok"] and cell["median_us"] > 0, (row["case"], role, cell)
        if ROOF.exists():
            assert row["cells"]["roofline"]["median_us"] > 0
            assert row["floor_us"] > 0, row["case"]
    fused = [r for r in doc["results"] if r["case"].startswith("fused")]
    assert fused and all(r["cells"]["ours repeat"]["ok"] for r in fused)
    if ROOF.exists():
        assert all(r["floor_us"] > 0 for r in fused)
        assert "floor/roof" in done.stdout and "64 Ki: ours within 2x" in done.stdout
        assert "INFO: 64 Ki and up: ours / (roofline + floor): " in done.stdout
    assert "roofline loop: " in done.stdout


@pytest.mark.skipif(not ROOF.exists(), reason="the release build's libbce_roofline.so")
def test_kernel_floor_measures_and_refuses():
    import ctypes
    lib = ctypes.CDLL(str(ROOF))
    floor = lib.bce_kernel_floor
    floor.restype = ctypes.c_int
    floor.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                      ctypes.POINTER(ctypes.c_double)]
    ns = ctypes.c_double(-1.0)
    for kernel in range(5):  # backward, target backward, loss, loss of the sums, fused
        for dtype in range(4):  # fp32, fp16, bf16, fp64
            ns.value = -1.0
            assert floor(kernel, dtype, 3, None, 2, ctypes.byref(ns)) == 0, (kernel, dtype)
            assert 0 < ns.value < 1e4, (kernel, dtype, ns.value)
    ns.value = -1.0
    assert floor(0, 0, 4, None, 1, ctypes.byref(ns)) == 0 and ns.value > 0  # a 0-dim gradOutput
    # Refusals leave the result alone.
    ns.value = -1.0
    assert floor(5, 0, 0, None, 1, ctypes.byref(ns)) == -3  # no such kernel
    assert floor(0, 4, 0, None, 1, ctypes.byref(ns)) == -1  # no such dtype
    assert floor(0, 0, 0, b"NO_SUCH_TARGET", 1, ctypes.byref(ns)) == -9
    assert floor(0, 0, 0, None, 0, ctypes.byref(ns)) == -2  # no sample
    assert floor(0, 0, 0, None, 1, None) == -2
    assert ns.value == -1.0
