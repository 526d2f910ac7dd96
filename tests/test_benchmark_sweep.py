"""benchmarks/sweep.py still runs: its measurements on tiny sizes (numbers not checked, only
that blocksim and the hand loop agree, that the report prints and that the model is the
formula docs/scaling.md states)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    name = "bench_sweep"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "sweep.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_local_row_blocksim_equals_the_hand_prange_loop(bench):
    m = bench.local(M=20, T=0.05, repeat=1)
    assert m["diff"] < 1e-12 and m["nfailed"] == 0 and m["M"] == 20
    text = "\n".join(bench.local_lines(m))
    assert "hand-written numba prange loop" in text and "ms per member" in text


def test_the_hand_loop_is_rk4(bench):
    ex = bench.example
    np.testing.assert_array_equal(
        bench.HAND_PARAMS, [ex.KI, ex.KD, ex.N, ex.DAMPING, ex.STIFFNESS, ex.MASS]
    )
    # the closed loop with no controller (Kp = Ki = Kd = 0) is a free mass-spring-damper at
    # rest: it stays at rest; with Kp only, the static gain is Kp / (k + Kp)
    p = bench.HAND_PARAMS.copy()
    p[0] = p[1] = 0.0
    final = bench.hand_sweep(np.array([0.0, 8.0]), p, 1e-3, 60_000)
    np.testing.assert_array_equal(final[0, 2:], 0.0)  # v and x
    assert final[1, 3] == pytest.approx(8.0 / (bench.example.STIFFNESS + 8.0), rel=1e-6)


def test_memory_row_runs_in_a_child_process(bench):
    m = bench.memory(M=50)
    assert m["nfailed"] == 0 and m["peak"] >= m["base"] > 0 and m["kept"] > 0
    assert m["traces_1ms"] > m["traces"]
    assert "peak RSS" in "\n".join(bench.memory_lines(m))


def test_the_scaling_model_is_its_formula(bench):
    # locally 10 000 members in 5 s on 2 threads: 1 ms each; on the cluster 2 threads busy
    # 6 s (12 thread-seconds for 10 s of members): 2 s of overhead over 8 tasks
    cm = {
        "workers": 2,
        "warm": 6.0,
        "local": 5.0,
        "threads": 2,
        "M": 10_000,
        "chunks": 8,
        "chunk": 1250,
    }
    m = bench.model(cm, nodes=100, cores=32)
    assert m["t_m"] == pytest.approx(1e-3) and m["o"] == pytest.approx(0.25)
    assert m["predicted_here"] == pytest.approx(2 * 1250 / (0.25 + 1.25))
    rate = 3200 * 1024 / (0.25 + 1.024)
    assert m["rate_big"] == pytest.approx(min(rate, 1024 / bench.SCHEDULER_PER_TASK))
    assert "members/s" in "\n".join(bench.model_lines(m))
