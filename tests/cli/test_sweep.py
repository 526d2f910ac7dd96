"""`blocksim sweep`: grids and Monte Carlo from the command line, summaries against the
closed-form response, a results folder and resume, a Dask scheduler, bad arguments."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blocksim.cli import main
from blocksim.engine.sweep import load_sweep

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"


@pytest.fixture(scope="module")
def loop(tmp_path_factory) -> str:
    """diagrams/first_order_loop.json without its Scope (no figure per member):
    x' = K (1 - x), so x(T) = 1 - (1 - x0) exp(-K T)."""
    doc = json.loads((DIAGRAMS / "first_order_loop.json").read_text())
    del doc["blocks"]["scope"], doc["layout"]
    for wire in doc["wires"]:
        if isinstance(wire["to"], list):
            wire["to"] = [t for t in wire["to"] if t != "scope"]
    path = tmp_path_factory.mktemp("diagrams") / "first_order_loop.json"
    path.write_text(json.dumps(doc))
    return str(path)


FAST = ["--T", "1", "--solver", "rk4", "--dt", "1e-2", "--backend", "interpreted"]


def summary(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_a_grid_gives_the_closed_form_final_values(loop, tmp_path, capsys):
    out = tmp_path / "grid"
    argv = ["sweep", loop, "--grid", "gain.K=1:4:4", "--grid", "x.x0=0,0.5", *FAST]
    assert main([*argv, "--summary", "final,max", "--signals", "x.y", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "first_order_loop: 8 members on local (interpreted back-end, 1 chunk of 8)" in text
    assert "no member failed" in text and "final(x.y)" in text and "max(x.y)" in text
    s = summary(out / "summary.npz")
    K, x0 = s["param:gain.K"], s["param:x.x0"]
    np.testing.assert_array_equal(K, [1, 1, 2, 2, 3, 3, 4, 4])
    np.testing.assert_array_equal(x0, [0, 0.5] * 4)
    exact = 1 - (1 - x0) * np.exp(-K * 1.0)
    np.testing.assert_allclose(s["summary:final(x.y)"], exact, rtol=1e-8)
    np.testing.assert_allclose(s["summary:max(x.y)"], exact, rtol=1e-8)  # x rises to x(T)
    assert list(s["status"]) == ["success"] * 8
    # the folder holds every member's traces
    full = load_sweep(out)
    np.testing.assert_allclose(full["x.y"][:, -1], exact, rtol=1e-8)

    # resume: nothing left to run, the same summary
    (out / "chunk-000000.npz").unlink()
    assert main([*argv, "--summary", "final", "--out", str(out), "--resume"]) == 0
    assert "resumed" not in capsys.readouterr().out  # the only chunk was missing: it ran
    assert main([*argv, "--summary", "final", "--out", str(out), "--resume"]) == 0
    assert "resumed: 1 chunks read" in capsys.readouterr().out


def test_monte_carlo_draws_from_the_seed(loop, tmp_path, capsys):
    out = tmp_path / "mc"
    argv = [
        "sweep",
        loop,
        "--monte-carlo",
        "6",
        "--seed",
        "7",
        "--vary",
        "gain.K=uniform:1:3",
        *FAST,
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    assert capsys.readouterr().out == ""
    s = summary(out / "summary.npz")
    rng = np.random.default_rng(7)
    K = [rng.uniform(1, 3) for _ in range(6)]
    np.testing.assert_array_equal(s["param:gain.K"], K)
    np.testing.assert_allclose(s["summary:final(x.y)"], 1 - np.exp(-np.array(K)), rtol=1e-8)
    index = json.loads((out / "index.json").read_text())
    assert index["failed"] == [] and index["chunks"][0]["state"] == "done"


def test_a_dask_scheduler_runs_the_sweep(loop, tmp_path, capsys):
    import distributed
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        argv = [
            "sweep",
            loop,
            "--grid",
            "gain.K=1:4:7",
            *FAST,
            "--chunk",
            "2",
            "--scheduler",
            cluster.scheduler_address,
            "--out",
            str(tmp_path / "d"),
        ]
        assert main(argv) == 0
    text = capsys.readouterr().out
    assert f"7 members on Dask scheduler {cluster.scheduler_address}" in text
    assert "4 chunks of 2" in text
    s = summary(tmp_path / "d" / "summary.npz")
    K = np.linspace(1, 4, 7)
    np.testing.assert_allclose(s["summary:final(x.y)"], 1 - np.exp(-K), rtol=1e-8)


def test_failed_members_exit_1_and_are_listed(loop, tmp_path, capsys):
    # K h = 1e4: RK4 is unstable and x overflows to inf within the second
    out = tmp_path / "f"
    argv = ["sweep", loop, "--grid", "gain.K=1,1e6,2", *FAST, "--out", str(out)]
    assert main(argv) == 1
    assert "1 of 3 members failed: 1 x NonFiniteError" in capsys.readouterr().out
    [fail] = json.loads((out / "index.json").read_text())["failed"]
    assert fail["member"] == 1 and fail["overrides"] == {"gain.K": 1e6}
    assert list(summary(out / "summary.npz")["status"]) == ["success", "failed", "success"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--grid", "gain.K=1:4"], "expected block.param=start:stop:n"),
        (["--grid", "K=1,2"], "expected block.param=start:stop:n"),
        (["--monte-carlo", "0"], "--monte-carlo 0: expected N >= 1"),
        (
            ["--monte-carlo", "3", "--vary", "gain.K=gauss:1:2"],
            "did you mean 'uniform'|DIST one of",
        ),
        (["--monte-carlo", "3", "--vary", "gain.K=normal:1"], "normal takes 2 numbers"),
        (["--grid", "gain.K=1,2", "--vary", "gain.K=normal:1:2"], "--vary needs --monte-carlo"),
        (["--grid", "gain.K=1,2", "--resume"], "--resume needs the results folder"),
        (["--grid", "gain.K=1,2", "--summary", "final,rsm"], "unknown statistic 'rsm'"),
        (["--grid", "gain.K=1,2", "--signals", "x.z"], "names no signal 'x.z'"),
        (["--grid", "gian.K=1,2"], "no block 'gian'"),
        (["--grid", "gain.K=1,2", "--local-cluster", "0"], "--local-cluster 0: expected >= 1"),
        (["--grid", "gain.K=1,2", "--chunk", "0"], "--chunk 0: expected >= 1"),
    ],
)
def test_bad_arguments_exit_2_with_the_reason(loop, args, message, capsys):
    assert main(["sweep", loop, *FAST, "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert any(m in err for m in message.split("|")), err
