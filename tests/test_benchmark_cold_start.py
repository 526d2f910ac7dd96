"""benchmarks/cold_start.py still runs: its cheap pieces in this process (no cold compile in a
child process; numbers not checked): the random structures are valid diagrams whose wired and
interpreted runs agree, the output watcher counts carriage-return updates as output, and the
rows print their before, target and verdict."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from blocksim import compile_diagram, simulate
from blocksim.io import dumps

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    name = "bench_cold_start"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "cold_start.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_random_structures_are_seeded_and_use_every_type(bench):
    d = bench.random_structure(30, seed=5)
    assert len(d.blocks) == 30
    kinds = {type(b).__name__ for b in d.blocks.values()}
    assert kinds == set(bench.STRUCTURE_TYPES)
    assert dumps(bench.random_structure(30, seed=5)) == dumps(d)  # the seed decides all
    assert dumps(bench.random_structure(30, seed=6)) != dumps(d)
    with pytest.raises(ValueError, match="at least"):
        bench.random_structure(5)


@pytest.mark.parametrize("seed", [0, 6])
def test_random_structure_compiles_and_the_wired_tier_agrees(bench, seed):
    plan = compile_diagram(bench.random_structure(20, seed))  # no algebraic loop, all wired
    ref = simulate(plan, 0.5, "rk4", dt=1e-3)
    wired = simulate(plan, 0.5, "rk4", dt=1e-3, backend="compiled", fuse=False)
    assert wired.stats["tier"] == "wired"
    assert np.isfinite(ref.x).all() and ref.x.shape[1] > 0
    # zero crossings (Saturation) may add points: compare on the wired run's times
    x = np.column_stack([np.interp(wired.t, ref.t, ref.x[:, k]) for k in range(ref.x.shape[1])])
    np.testing.assert_allclose(wired.x, x, rtol=1e-6, atol=1e-8)


def test_watch_counts_carriage_return_updates_and_sees_the_file(bench, tmp_path):
    out = tmp_path / "out.txt"
    code = ("import sys, time\n"
            "for k in range(3):\n"
            "    sys.stderr.write(f'\\rbar {k}'); sys.stderr.flush(); time.sleep(0.15)\n"
            "time.sleep(0.4)\n"
            f"open({str(out)!r}, 'w').write('x')\n"
            "print('done')\n")
    w = bench.watch([sys.executable, "-c", code], dict(os.environ), file=out, timeout=30)
    assert w.returncode == 0 and not w.timed_out
    assert len(w.chunks) >= 4 and "bar 2" in w.text and "done" in w.text
    gap, start, end = w.longest_gap
    assert 0.4 <= gap < 5 and start < end <= w.whole
    assert w.file_at is not None and w.file_at <= w.whole
    timeline = w.timeline()
    assert sum("bar" in line for line in timeline) == 1 and any("done" in x for x in timeline)


def test_watch_gives_tqdm_a_terminal_it_can_draw_on(bench):
    # a new pseudo-terminal is 0 x 0 characters: tqdm would draw its bar zero characters wide
    code = ("import sys\nfrom tqdm import tqdm\n"
            "tqdm(total=None, file=sys.stderr, desc='compiling x', bar_format='{desc}').close()\n")
    w = bench.watch([sys.executable, "-c", code], dict(os.environ), timeout=30)
    assert w.returncode == 0 and "compiling x" in w.text


def test_gaps_cover_the_process(bench):
    w = bench.Watched(0, 10.0, None, [(1.0, b"a"), (1.5, b"\rb"), (7.0, b"c\n")])
    assert w.gaps == [(0.0, 1.0), (1.0, 1.5), (1.5, 7.0), (7.0, 10.0)]
    assert w.longest_gap == (5.5, 1.5, 7.0)
    silent = bench.Watched(0, 3.0, None, [])
    assert silent.longest_gap == (3.0, 0.0, 3.0)


def test_fresh_env_has_empty_caches(bench, tmp_path):
    env = bench.fresh_env(tmp_path, CI="true")
    for key in ("NUMBA_CACHE_DIR", "BLOCKSIM_CACHE_DIR", "HOME"):
        folder = Path(env[key])
        assert folder.is_dir() and tmp_path in folder.parents and not any(folder.iterdir())
    assert env["CI"] == "true" and "PYTHONDONTWRITEBYTECODE" not in env


def test_rows_print_before_target_and_verdict(bench, capsys):
    met = bench.Row("puma-warm", "wired 1.05x the fused", True, ["detail"])
    missed = bench.Row("warmup", "120 s", False)
    text = "\n".join(met.lines())
    assert "before:   4.1 ms (fused)" in text and "target:   wired <= 1.3x" in text
    assert "verdict:  met" in text and "    detail" in text
    assert "verdict:  MISSED" in "\n".join(missed.lines())
    table = bench.table([met, missed])
    assert len(table) == 3 and table[1].endswith("met") and table[2].endswith("MISSED")
    assert "193 s quiet" in table[2] and "<= 90 s" in table[2]
    bench.main(["--only", "suite"])
    out = capsys.readouterr().out
    assert "not measured (run with --suite)" in out and "load average" in out
    assert "931-1015 s on 2 cores" in out and "<= 6 min" in out


def test_the_json_child_reports_its_tier(bench):
    code = bench.bench().CHILD_JSON + bench.CHILD_TIER
    compile(code, "<child>", "exec")
    assert set(bench.ROWS) >= set(bench.COLD_ROWS) and "suite" in bench.ROWS
