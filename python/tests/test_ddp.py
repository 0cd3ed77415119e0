"""DistributedDataParallel with aclnn_bce.torch's loss: 2 processes, gloo on 127.0.0.1.

The test starts this file twice as a script (ranks 0 and 1). Each rank trains the same small
model for a few SGD steps on its own data, once with aclnn_bce.torch.BCEWithLogitsLoss and once
with torch.nn.BCEWithLogitsLoss, in float64 and float32, and saves its losses, gradients (after
DDP's all-reduce) and final parameters; the test compares them.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

STEPS = 4
WORLD = 2
TIMEOUT_S = 50
DTYPES = ("float64", "float32")
TOL = {"float64": dict(rtol=1e-12, atol=1e-13), "float32": dict(rtol=2e-5, atol=2e-6)}


def _worker(rank: int, world: int, port: int, out: Path) -> None:
    """One rank: train with each loss and dtype, save what happened to out/rank{rank}.pt."""
    import datetime

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import aclnn_bce
    import aclnn_bce.torch as at

    torch.set_num_threads(1)
    aclnn_bce.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=30))
    try:
        results = {}
        for dtype_name in DTYPES:
            dtype = getattr(torch, dtype_name)
            g = torch.Generator().manual_seed(1234)  # the same on every rank
            pos_weight = torch.rand(3, generator=g, dtype=dtype) + 0.5
            weight = torch.rand(3, generator=g, dtype=dtype) + 0.5
            for kind in ("ours", "torch"):
                torch.manual_seed(0)
                model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3)).to(dtype)
                ddp = DDP(model)
                cls = at.BCEWithLogitsLoss if kind == "ours" else torch.nn.BCEWithLogitsLoss
                loss_fn = cls(weight=weight, pos_weight=pos_weight)
                opt = torch.optim.SGD(ddp.parameters(), lr=0.2)
                losses, grads = [], []
                for step in range(STEPS):
                    data = torch.Generator().manual_seed(1000 * step + rank)  # each rank its own batch
                    x = torch.randn(10, 6, generator=data, dtype=torch.float64).to(dtype)
                    y = torch.rand(10, 3, generator=data, dtype=torch.float64).to(dtype)
                    opt.zero_grad()
                    loss = loss_fn(ddp(x), y)
                    loss.backward()
                    losses.append(loss.detach().clone())
                    grads.append([p.grad.detach().clone() for p in model.parameters()])
                    opt.step()
                results[(kind, dtype_name)] = {
                    "losses": losses,
                    "grads": grads,
                    "params": [p.detach().clone() for p in model.parameters()],
                }
        torch.save(results, out / f"rank{rank}.pt")
        dist.barrier()
    finally:
        dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(out: Path) -> list:
    """Runs the two ranks; returns their (returncode, output). Kills both on a timeout."""
    port = _free_port()
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    procs = [subprocess.Popen([sys.executable, __file__, "--rank", str(r), "--world", str(WORLD),
                               "--port", str(port), "--out", str(out)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for r in range(WORLD)]
    deadline = time.monotonic() + TIMEOUT_S
    results = []
    try:
        for p in procs:
            output, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            results.append((p.returncode, output.decode(errors="replace")))
    finally:
        for p in procs:  # clean up whatever still runs (a timeout, a failure of the other rank)
            if p.poll() is None:
                p.kill()
                p.communicate()
    return results


def test_ddp_training_matches_torch_loss(tmp_path):
    """2-rank DDP (gloo, loopback): with our loss the per-rank losses, the all-reduced gradients
    and the final parameters equal those with PyTorch's loss within the dtype's tolerance; the
    gradients are the same on both ranks (DDP averaged them) while the losses differ (own data)."""
    pytest.importorskip("torch.distributed")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    start = time.monotonic()
    runs = _launch(tmp_path)
    for rank, (rc, output) in enumerate(runs):
        assert rc == 0, f"rank {rank} failed (rc {rc}):\n{output[-4000:]}"
    assert time.monotonic() - start < TIMEOUT_S
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in range(WORLD)]
    for dtype_name in DTYPES:
        tol = TOL[dtype_name]
        for rank, res in enumerate(ranks):
            ours, theirs = res[("ours", dtype_name)], res[("torch", dtype_name)]
            assert ours["losses"][0].dtype == getattr(torch, dtype_name)
            for step in range(STEPS):
                torch.testing.assert_close(ours["losses"][step], theirs["losses"][step], **tol)
                for a, b in zip(ours["grads"][step], theirs["grads"][step]):
                    assert a.abs().sum() > 0
                    torch.testing.assert_close(a, b, **tol)
            for a, b in zip(ours["params"], theirs["params"]):
                torch.testing.assert_close(a, b, **tol)
        # DDP all-reduced the gradients: equal on both ranks, although the batches differ.
        r0, r1 = ranks[0][("ours", dtype_name)], ranks[1][("ours", dtype_name)]
        assert not torch.equal(r0["losses"][0], r1["losses"][0])
        for step in range(STEPS):
            for a, b in zip(r0["grads"][step], r1["grads"][step]):
                torch.testing.assert_close(a, b, rtol=0, atol=0)
        for a, b in zip(r0["params"], r1["params"]):
            torch.testing.assert_close(a, b, rtol=0, atol=0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="one rank of test_ddp (started by the test)")
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--world", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    _worker(args.rank, args.world, args.port, args.out)
