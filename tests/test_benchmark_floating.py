"""benchmarks/floating_base.py still runs (tiny horizon, one repeat; numbers not checked, only
that the measurements agree and the report prints)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load():
    name = "bench_floating_base"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" /
                                                      "floating_base.py")  # fmt: skip
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_floating_base_benchmark_runs():
    bench = _load()
    fd = bench.fd_per_call(repeat=1)
    assert fd["api_us"] > 0 and fd["kernel_us"] > 0
    if fd["pin_us"] is not None:
        assert fd["pin_diff"] < 1e-9  # the same dynamics as Pinocchio's aba
    sim = bench.simulation(T=0.05, compiled=False)
    text = bench.report(fd, sim)
    assert "per call" in text and "interpreted" in text and sim["interpreted_s"] > 0
