"""`blocksim sweep --local-cluster 2` compiles its diagram once: the parent compiles (or
loads) the chunks' code before submitting them, so the workers load it from the disk cache
instead of compiling the same code at once. Run in a fresh process with empty numba and
blocksim caches (a real LocalCluster: slow, one test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from blocksim.engine.sweep.warm import cache_key, warm_workers

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"


def test_two_workers_load_what_the_parent_compiled_once(tmp_path):
    import distributed  # noqa: F401  (the test extra installs it)
    doc = json.loads((DIAGRAMS / "first_order_loop.json").read_text())
    del doc["blocks"]["scope"], doc["layout"]
    for wire in doc["wires"]:
        if isinstance(wire["to"], list):
            wire["to"] = [t for t in wire["to"] if t != "scope"]
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(doc))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               BLOCKSIM_CACHE_DIR=str(tmp_path / "blocksim"))
    argv = [sys.executable, "-m", "blocksim.cli", "sweep", str(path), "--grid",
            "gain.K=1:4:8", "--T", "1", "--solver", "rk4", "--dt", "1e-2", "--backend",
            "compiled", "--chunk", "2", "--local-cluster", "2"]
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    # compiled once (here), not by both workers at once: each message once
    assert run.stderr.count("compiling the data-wired RK4 loop") == 1, run.stderr[-3000:]
    assert "compiled once, before the run" in run.stdout, run.stdout
    assert "compiled again" not in run.stdout


class FakeClient:
    """Two workers on this machine's cache and one on another machine's."""

    def __init__(self):
        self.submitted = []

    def run(self, f):
        here = cache_key()
        return {"tcp://a": here, "tcp://b": here, "tcp://c": ("elsewhere", *here[1:]),
                "tcp://d": ("elsewhere", *here[1:])}

    def submit(self, f, *args, workers=None, **kw):
        self.submitted.append(workers)
        return workers

    def gather(self, futures):
        return [{"worker": w} for w in futures]

    def cancel(self, futures):
        pass


def test_one_worker_per_other_cache_is_warmed_before_the_chunks():
    from blocksim.engine.config import RunConfig

    client = FakeClient()
    config = RunConfig(T=1.0, solver="rk4", dt=1e-2, backend="compiled")
    assert warm_workers(client, None, {}, config) == [{"worker": ["tcp://c"]}]
    assert client.submitted == [["tcp://c"]]
    interpreted = RunConfig(T=1.0, solver="rk4", dt=1e-2, backend="interpreted")
    assert warm_workers(client, None, {}, interpreted) == []
