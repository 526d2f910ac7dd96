"""benchmarks/multirotor.py still runs: its measurements on a tiny horizon, and the report."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_multirotor_benchmark_measures_and_reports():
    bench = _load(ROOT / "benchmarks" / "multirotor.py", "bench_multirotor")
    m = bench.measure(T=0.2, repeat=1, bdsim=False)
    for key in ("bdsim_tol", "blocksim_tol"):
        assert m[key]["compiled_vs_interpreted"] < 1e-6
        assert m[key]["nfev_interpreted"] > 0
    text = "\n".join(bench.report(m))
    assert "interpreted back-end" in text and "compiled back-end" in text and "bdsim" in text
