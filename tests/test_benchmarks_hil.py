"""benchmarks/hil.py still runs: its measurements on tiny sizes (numbers not checked)."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load():
    name = "bench_hil"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "hil.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_hil_benchmark_measures_and_reports():
    bench = _load()
    lat = bench.arbotix_latency(n=20)
    assert lat["getpos"]["n"] == 20 and 0 < lat["getpos"]["median"] < 0.5
    vrep = bench.max_rate("vrep", [20.0], 0.2)
    assert vrep[20.0]["hits"] == 5
    step = {"median": 2e-4, "p99": 1e-3, "n": 1}
    lines = bench.report(lat, step, {50.0: vrep[20.0]}, vrep, 0.2, sync_rates=vrep)
    text = "\n".join(lines)
    assert "Arbotix getpos" in text and "highest rate without overrun" in text
    assert text.count("target:") == 2 and "Arbotix SYNC_READ" in text
    # the V-REP rows alone (--vrep-only), with the moving-command diagram: it sends 6 targets
    # per hit more than the held command (sent once)
    moving = bench.max_rate("vrep-moving", [20.0], 0.2)
    extra = moving[20.0]["calls_per_hit"] - vrep[20.0]["calls_per_hit"]
    assert extra == pytest.approx(6 * 4 / 5)  # 6 more at each of the 4 hits after the first
    text = "\n".join(bench.report(None, step, None, vrep, 0.2, moving_rates=moving))
    assert "Arbotix" not in text and "V-REP moving cmd" in text and "calls/hit" in text
    assert text.count("target:") == 1
