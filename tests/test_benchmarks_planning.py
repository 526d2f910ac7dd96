"""benchmarks/planning.py still runs (tiny sizes; numbers not checked, only their agreement)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    name = "bench_planning"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "planning.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_measurements_agree_with_their_references(bench):
    m = bench.dxform(n=40, repeat=1)
    assert m["max_diff"] < 1e-9 and m["edt_diff"] < 1e-12
    m = bench.lattice(n=8, repeat=1)
    assert m["cost"] == m["dijkstra_cost"]
    m = bench.prm(npoints=150, repeat=1)
    assert m["edges"] > 0
    m = bench.dstar(n=30, repeat=1, where=0.5)
    assert m["same_as_fresh"] and m["replan_iter"] < m["fresh_iter"]
