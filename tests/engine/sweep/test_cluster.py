"""simulate_batch(client=...) on a real distributed.LocalCluster (two worker processes on
loopback): results identical to the local run member for member, summaries reduced on the
workers, a worker killed mid-sweep, and resuming only what is missing."""

from __future__ import annotations

import json

import dask
import distributed
import numpy as np
import pytest

from blocksim import compile_diagram, grid, simulate_batch
from blocksim.engine.sweep import Summaries, load_sweep

from .diagrams import crash_loop, pid_loop

OPTS = dict(T=1.0, solver="rk4", dt=1e-3, record_dt=0.05, backend="compiled")
GAINS = grid({"pid.Kp": list(np.linspace(2.0, 20.0, 8)), "pid.Ki": [0.0, 5.0, 10.0]})


@pytest.fixture(scope="module")
def client():
    """Two single-thread worker processes; a task running on a worker that dies is not
    retried (allowed-failures 0), so a death loses exactly the chunks it was running."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def plan():
    return compile_diagram(pid_loop())


def test_a_cluster_batch_equals_the_local_batch_member_for_member(client, plan, tmp_path):
    local = simulate_batch(plan, GAINS, **OPTS)
    res = simulate_batch(plan, GAINS, **OPTS, client=client, chunk=5, out=tmp_path / "s")
    assert res.stats["scheduler"] == "dask" and res.stats["chunks"] == 5
    assert res.stats["backend"] == "compiled" and res.stats["lost"] == 0
    assert res.overrides == local.overrides and list(res.status) == ["success"] * 24
    np.testing.assert_array_equal(res.t, local.t)
    np.testing.assert_array_equal(res.x, local.x)
    for name in local.signals:
        np.testing.assert_array_equal(res[name], local[name])
    # the workers wrote every chunk's traces into the shared folder
    full = load_sweep(tmp_path / "s")
    for name in local.signals:
        np.testing.assert_array_equal(full[name], local[name])


def test_summaries_are_reduced_on_the_workers(client, plan):
    keep = Summaries(["final", "max_abs", "rms"], ["err.y", "plant.y"])
    local = simulate_batch(plan, GAINS, **OPTS, keep=keep, chunk=24)
    res = simulate_batch(plan, GAINS, **OPTS, keep=keep, client=client)
    assert res.stats["chunks"] == 2  # default: >= 16 members a chunk, every worker busy
    assert set(res.summary) == set(local.summary) and res.signals == {}
    for name, value in local.summary.items():
        np.testing.assert_array_equal(res[name], value)
    # cost of a chunk reduced remotely: the callable travels to the workers
    peak = simulate_batch(
        plan,
        GAINS,
        **OPTS,
        client=client,
        chunk=7,
        keep=lambda c: {"peak": c["plant.y"].max(axis=1)},
    )
    full = simulate_batch(plan, GAINS, **OPTS)
    np.testing.assert_array_equal(peak["peak"], full["plant.y"].max(axis=1))


def test_a_bad_override_on_a_worker_ends_the_batch_naming_the_member(client, plan):
    members = [*GAINS[:5], {"pid.Kp": [1.0, 2.0]}]
    with pytest.raises(Exception, match=r"member 5"):
        simulate_batch(plan, members, **OPTS, client=client, chunk=2, keep="final")


def test_a_worker_killed_mid_sweep_loses_only_its_chunks_and_resume_reruns_them(client, tmp_path):
    client.wait_for_workers(2, timeout=60)
    marker = tmp_path / "kill-once"
    d = crash_loop(str(marker))
    ks = grid({"k.K": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0]})
    members = [dict(m, **{"crash.armed": 1.0 if i == 9 else 0.0}) for i, m in enumerate(ks)]
    opts = dict(T=1.0, solver="rk4", dt=1e-2, record_dt=0.1, backend="interpreted")
    clean = simulate_batch(d, members, **opts, workers=1, keep="final", chunk=12)
    marker.write_text("the process running the armed member dies, once")
    out = tmp_path / "sweep"

    res = simulate_batch(d, members, **opts, client=client, chunk=2, keep="final", out=out)
    assert not marker.exists()  # the armed member ran, and its worker died
    lost = [int(m) for m in res.failed]
    assert 9 in lost and res.stats["lost"] == len(lost) < 12
    for m in lost:
        err = res.errors[m]
        assert err.type == "KilledWorker" and "resume=True" in err.message
        assert res.overrides[m] == members[m]  # reported with its overrides
    done = [m for m in range(12) if m not in lost]
    np.testing.assert_array_equal(res["x.y"][done], clean["x.y"][done])
    assert np.isnan(res["x.y"][lost]).all()
    index = json.loads((out / "index.json").read_text())
    assert {f["member"] for f in index["failed"]} == set(lost)
    assert index["failed"][0]["error"]["type"] == "KilledWorker"
    states = {c["start"]: c["state"] for c in index["chunks"]}
    assert states[8] == "lost" and sum(s == "done" for s in states.values()) >= 1
    files = {p.name: p.stat().st_mtime_ns for p in out.glob("chunk-*.npz")}
    # every chunk done has its file; a lost chunk may have one too: the dying worker can
    # have written it before it died holding the chunk's result (then resume keeps it)
    done_files = {c["file"] for c in index["chunks"] if c["state"] == "done"}
    assert done_files <= set(files) and len(files) < 6

    again = simulate_batch(d, members, **opts, client=client, keep="final", out=out, resume=True)
    assert again.stats["chunks_run"] == 6 - len(files) >= 1
    assert again.stats["chunks_resumed"] == len(files)
    assert list(again.status) == ["success"] * 12 and again.stats["lost"] == 0
    np.testing.assert_array_equal(again["x.y"], clean["x.y"])
    for name, mtime in files.items():
        assert (out / name).stat().st_mtime_ns == mtime  # finished chunks were not rerun
    # x' = K (1 - x), x(0) = 0: x(1) = 1 - exp(-K) (rk4, 10 ms steps)
    np.testing.assert_allclose(
        again["x.y"][:, 0], 1 - np.exp(-np.array([m["k.K"] for m in members])), rtol=1e-7
    )
