"""The benchmark scripts still run: their cheapest measurements on tiny horizons.

``benchmarks/compiled.py`` and ``benchmarks/puma_computed_torque.py`` are not part of the
package; these tests import them by file name and run each measurement function with few
steps and one repeat (numbers are not checked, only that the measurements agree with each
other and that the report prints), so that an API change cannot leave them broken.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

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


@pytest.fixture(scope="module")
def bench():
    return _load(ROOT / "benchmarks" / "compiled.py", "bench_compiled")


def test_pid_row_hand_loop_matches_blocksim(bench):
    m = bench.pid(T=0.05, repeat=1)
    assert m["max_diff"] < 1e-12  # the same closed loop, the same RK4 steps
    assert m["records"] == m["records_hand"] == (51, bench.NSIG)
    targets = bench.Targets()
    text = "\n".join(bench.pid_lines(m, targets))
    assert "ratio" in text and "interpreted" in text and len(targets.rows) == 1
    t, x, s = bench.hand_rk4(bench.H, 3, bench.PID_PARAMS)
    assert t.shape == (4,) and x.shape == (4, 4) and s.shape == (4, bench.NSIG)


def test_puma_row(bench):
    m = bench.puma.measure(T=0.05, repeat=1, bdsim=False)
    assert m["hand_vs_blocksim"] < 1e-6 and m["compiled_vs_interpreted"] < 1e-6
    targets = bench.Targets()
    text = "\n".join(bench.puma_lines(m, targets))
    assert "solve_ivp" in text and "bdsim" in text and len(targets.rows) == 2


@pytest.mark.parametrize("n", [10, 11, 12, 30, 31])
def test_chain_has_n_blocks_and_runs(bench, n):
    d = bench.chain(n)
    assert len(d.blocks) == n
    r = bench.simulate(d, 0.01, "rk4", dt=bench.H)
    assert np.isfinite(r.x).all()


def test_new_process_row(bench):
    path = str(ROOT / "diagrams" / "pid_mass_spring_damper.json")
    elapsed, text = bench._process(["-c", bench.CHILD_JSON, path])
    child = json.loads(text)
    m = {"python": 0.01, "import": 0.5, "pid_mass_spring_damper.json":
         dict(whole=elapsed, child=child, warmup=child)}
    targets = bench.Targets()
    lines = bench.new_process_lines(m, targets)
    assert "compile_load" in "\n".join(lines) and len(targets.rows) == 1


def test_compile_row_formatting(bench):
    stats = dict(compile_time=1.0, compile_kernels=0.0, compile_diagram=0.4, compile_loop=0.5,
                 compile_load=0.1, compiled_functions=8)
    targets = bench.Targets()
    lines = bench.compile_lines({10: stats, 30: stats, 100: stats, 300: {"projected": 9.0}},
                               targets)
    assert len(lines) == 8 and len(targets.rows) == 2
    assert all("target met" in line for line in targets.lines()[1:])


def test_discrete_and_sweep_rows(bench):
    targets = bench.Targets()
    text = "\n".join(bench.discrete_lines(bench.discrete(T=0.05, repeat=1)) +
                     bench.sweep_lines(bench.sweep(members=4, T=0.05, repeat=1), targets))
    assert "per member" in text and "0 failed" in text and len(targets.rows) == 1
