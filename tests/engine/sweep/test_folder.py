"""Results folders on one machine: full traces per chunk plus an index, read back whole, and
resuming runs only the chunks that have no file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from blocksim import compile_diagram, grid, simulate_batch
from blocksim.engine.sweep import Summaries, load_sweep

from .diagrams import blowup, pid_loop

OPTS = dict(T=1.0, solver="rk4", dt=1e-3, record_dt=0.1, backend="compiled")
GAINS = grid({"pid.Kp": list(np.linspace(2.0, 20.0, 10))})


@pytest.fixture(scope="module")
def plan():
    return compile_diagram(pid_loop())


@pytest.fixture(scope="module")
def traces(plan):
    return simulate_batch(plan, GAINS, **OPTS)


def test_the_folder_holds_every_trace_per_chunk_and_an_index(plan, traces, tmp_path):
    out = tmp_path / "sweep"
    res = simulate_batch(
        plan, GAINS, **OPTS, keep=Summaries(["final"], ["plant.y"]), chunk=3, out=out
    )
    assert res.folder == str(out.resolve())
    assert sorted(p.name for p in out.glob("chunk-*.npz")) == [
        f"chunk-00000{k}.npz" for k in range(4)
    ]
    index = json.loads((out / "index.json").read_text())
    assert [(c["start"], c["stop"], c["state"]) for c in index["chunks"]] == [
        (0, 3, "done"),
        (3, 6, "done"),
        (6, 9, "done"),
        (9, 10, "done"),
    ]
    assert index["failed"] == []
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["members"] == 10 and meta["chunk"] == 3 and meta["diagram"] == plan.name
    assert json.loads((out / "overrides.json").read_text()) == GAINS
    # in memory only the summary; on disk every trace, equal to the one-call batch
    np.testing.assert_array_equal(res["final(plant.y)"], traces["plant.y"][:, -1])
    full = load_sweep(out)
    np.testing.assert_array_equal(full.t, traces.t)
    np.testing.assert_array_equal(full.x, traces.x)
    for name in traces.signals:
        np.testing.assert_array_equal(full[name], traces[name])
    assert list(full.status) == ["success"] * 10 and full.overrides == GAINS


def test_resume_runs_only_the_missing_chunks(plan, traces, tmp_path):
    out = tmp_path / "sweep"
    simulate_batch(plan, GAINS, **OPTS, keep="final", chunk=4, out=out)
    kept = {p.name: p.stat().st_mtime_ns for p in out.glob("chunk-*.npz")}
    (out / "chunk-000001.npz").unlink()
    res = simulate_batch(plan, GAINS, **OPTS, keep="final", out=out, resume=True)
    assert res.stats["chunk"] == 4  # the folder's chunk size
    assert res.stats["chunks_run"] == 1 and res.stats["chunks_resumed"] == 2
    for name, mtime in kept.items():
        if name != "chunk-000001.npz":
            assert (out / name).stat().st_mtime_ns == mtime  # not rewritten
    assert (out / "chunk-000001.npz").exists()
    for name in traces.signals:
        np.testing.assert_array_equal(res[name][:, 0], traces[name][:, -1])
    # resumed with another keep: kept parts are recomputed from the chunks' traces
    again = simulate_batch(plan, GAINS, **OPTS, keep=["plant.y"], out=out, resume=True)
    assert again.stats["chunks_run"] == 0
    np.testing.assert_array_equal(again["plant.y"], traces["plant.y"])


def test_a_folder_is_not_overwritten_or_resumed_by_another_batch(plan, tmp_path):
    out = tmp_path / "sweep"
    simulate_batch(plan, GAINS, **OPTS, keep="final", chunk=5, out=out)
    with pytest.raises(
        ValueError,
        match=r"already holds a batch of 10 members; pass "
        r"resume=True",
    ):
        simulate_batch(plan, GAINS, **OPTS, keep="final", chunk=5, out=out)
    with pytest.raises(ValueError, match=r"holds another batch \(what differs: members\)"):
        simulate_batch(plan, GAINS[:9], **OPTS, keep="final", out=out, resume=True)
    with pytest.raises(
        ValueError,
        match=r"another batch \(what differs: the members' overrides\)",
    ):
        simulate_batch(
            plan, [*GAINS[:9], {"pid.Kp": 1.0}], **OPTS, keep="final", out=out, resume=True
        )
    with pytest.raises(ValueError, match=r"\(what differs: config\)"):
        simulate_batch(plan, GAINS, **{**OPTS, "T": 2.0}, keep="final", out=out, resume=True)
    with pytest.raises(ValueError, match=r"holds no batch \(no sweep.json\)"):
        simulate_batch(plan, GAINS, **OPTS, out=tmp_path / "empty", resume=True)


def test_failed_members_are_listed_in_the_index_with_overrides_and_error(tmp_path):
    ks = grid({"g.K": [0.0, 1.0, 0.0]})
    out = tmp_path / "blowup"
    res = simulate_batch(
        blowup(), ks, 2.0, "rk4", dt=1e-3, backend="compiled", keep="final", chunk=2, out=out
    )
    assert list(res.failed) == [1]
    index = json.loads((out / "index.json").read_text())
    [fail] = index["failed"]
    assert fail["member"] == 1 and fail["overrides"] == {"g.K": 1.0}
    assert fail["error"]["type"] == "NonFiniteError" and 0.95 < fail["error"]["time"] < 1.01
    full = load_sweep(out)
    assert full.errors[1] == res.errors[1] and full.errors[0] is None
    assert list(full.status) == ["success", "failed", "success"]
