"""benchmarks/arm_dynamics.py still runs (tiny repeat counts; numbers not checked): every row
is measured, the report prints, and blocksim agrees with Pinocchio to 1e-12."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_arm_dynamics_benchmark_measures_and_reports():
    name = "bench_arm_dynamics"
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "arm_dynamics.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    m = module.measure(repeat=1, number=20)
    assert set(m["blocksim"]) == set(module.CALLS)
    assert all(v > 0 for row in m["blocksim"].values() for v in row.values())
    assert m["pinocchio"] is not None and max(m["pinocchio"]["max_diff"].values()) < 1e-12
    text = "\n".join(module.report(m))
    assert "Pinocchio" in text and "target" in text and "rnea" in text
