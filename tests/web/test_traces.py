"""The traces the page plots: a run's scopes and its recorded signals as JSON."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.engine.record import SimResult
from blocksim.web.traces import MAX_SIGNALS, TraceError, traces

from .test_runs import _run, _wait


def test_a_run_names_its_scopes_and_gives_its_traces(editor):
    client, _ = editor
    body = _wait(client, _run(client, {"T": 2.0, "solver": "RK45",
                                       "backend": "interpreted", "record_dt": 0.01}))
    assert body["state"] == "finished"
    assert body["scopes"] == [{"name": "scope", "kind": "Scope", "title": "first-order loop",
                               "labels": ["x"], "signals": ["x.y"]}]
    status, data = client.call("GET", body["traces"])
    assert status == 200, data
    t = np.array(data["t"])
    assert t[0] == 0.0 and t[-1] == 2.0 and data["points"] == data["recorded"] == len(t)
    x = np.array(data["signals"]["x.y"][0])
    assert np.allclose(x, 1 - np.exp(-2 * t), atol=1e-3)  # K = 2 in the file
    assert data["shapes"]["x.y"] == []
    status, data = client.call("GET", body["traces"] + "?signals=x.y,gain.y")
    assert status == 200 and set(data["signals"]) == {"x.y", "gain.y"}
    status, data = client.call("GET", body["traces"] + "?signals=nope.y")
    assert status == 400 and "'nope.y' was not recorded" in data["error"]
    status, data = client.call("GET", body["traces"], token=None)
    assert status == 403


def _saved(tmp_path, n, signals):
    t = np.linspace(0.0, 1.0, n)
    result = SimResult(t, np.zeros((n, 0)), {k: f(t) for k, f in signals.items()}, [])
    path = tmp_path / "r.npz"
    result.save(path)
    return path, t


def test_long_traces_are_strided_keeping_both_ends_and_vectors_split_by_element(tmp_path):
    path, _ = _saved(tmp_path, 10_001, {
        "a.y": lambda t: t ** 2,
        "q.y": lambda t: np.stack([np.sin(t), np.cos(t), t], axis=1),
    })
    data = traces(path, max_points=500)
    tt = np.array(data["t"])
    assert data["recorded"] == 10_001 and data["points"] == len(tt) <= 500
    assert tt[0] == 0.0 and tt[-1] == 1.0 and np.all(np.diff(tt) > 0)
    assert np.allclose(data["signals"]["a.y"][0], tt ** 2, rtol=0, atol=0)
    q = data["signals"]["q.y"]
    assert len(q) == 3 and data["shapes"]["q.y"] == [3]
    assert np.allclose(q[1], np.cos(tt), rtol=0, atol=0)


def test_non_finite_samples_are_written_as_the_diagram_format_does(tmp_path):
    path, _ = _saved(tmp_path, 4, {"a.y": lambda t: np.array([0.0, np.inf, -np.inf, np.nan])})
    assert traces(path)["signals"]["a.y"][0] == [0.0, "=inf", "=-inf", "=nan"]


def test_asking_for_too_many_signals_is_refused(tmp_path):
    path, _ = _saved(tmp_path, 3, {"a.y": lambda t: t})
    with pytest.raises(TraceError, match=f"at most {MAX_SIGNALS} signals"):
        traces(path, ["a.y"] * (MAX_SIGNALS + 1))
