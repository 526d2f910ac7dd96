"""benchmarks/mobile.py still runs: every measurement on a tiny horizon (numbers unchecked,
only that the back-ends agree with each other and with solve_ivp, and that the report prints)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    name = "bench_mobile"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "mobile.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_every_row_runs_and_the_report_prints(bench):
    dr = bench.drive(T=2.0, repeat=1)
    assert dr["agree"] < 1e-9 and dr["vs_scipy"] < 1e-3
    sl = bench.slam(steps=20, repeat=1)
    lo = bench.localisation(steps=20, repeat=1)
    mc = bench.nees_batch(members=4, steps=20)
    assert sl["landmarks"] >= 1 and mc["members"] == 4 and mc["nees"] > 0
    text = "\n".join(bench.report(dr, sl, lo, mc))
    assert "solve_ivp" in text and "bdsim" in text and text.count("targets") == 1
