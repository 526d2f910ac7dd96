"""Runs through the API: in worker processes, with progress, final values, stop, failure."""

from __future__ import annotations

import io
import json
import os
import signal
import time

import numpy as np

import blocksim
from blocksim.engine.record import SimResult
from blocksim.io import load

from .conftest import start

FAILING = {"blocksim": 1, "name": "fails",
           "blocks": {"x": {"type": "Integrator", "params": {"x0": 1.0}},
                      "sq": {"type": "Product", "params": {"ops": "**"}}},
           "wires": [{"from": "x", "to": ["sq.u0", "sq.u1"]}, {"from": "sq", "to": "x"}],
           "simulation": {"T": 5.0}}


def _wait(client, run_id, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status, body = client.call("GET", f"/api/run/{run_id}")
        assert status == 200
        if body["done"]:
            return body
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not end: {body}")


def _run(client, options):
    status, body = client.call("POST", "/api/run", options)
    assert status == 202, body
    return body["id"]


def test_a_run_ends_with_the_final_values_of_simulate(editor):
    client, folder = editor
    run_id = _run(client, {"T": 2.0, "solver": "RK45", "backend": "interpreted"})
    body = _wait(client, run_id)
    assert body["state"] == "finished" and body["error"] is None and body["progress"] == 1.0
    expected = blocksim.simulate(load(folder / "first_order_loop.json").diagram, T=2.0,
                                 solver="RK45")
    assert set(body["final"]) == set(expected.signals)
    for name in expected.signals:
        assert np.allclose(body["final"][name], expected[name][-1], rtol=0, atol=0), name
    status, data = client.call("GET", body["result"])
    assert status == 200
    with np.load(io.BytesIO(data)) as npz:
        assert "t" in npz.files
        assert float(npz["t"][-1]) == 2.0


def test_bad_run_options_are_refused_before_a_worker_starts(editor):
    client, _ = editor
    status, body = client.call("POST", "/api/run", {"T": 1, "colour": "red"})
    assert status == 400 and "colour" in body["error"]
    status, body = client.call("POST", "/api/run", {"solver": "nope"})
    assert status == 400 and "\n" not in body["error"]
    assert client.call("POST", "/api/run", [1])[0] == 400
    assert client.call("GET", "/api/run/0123456789abcdef")[0] == 404


def _running_until(client, run_id, t_min, timeout=30.0):
    """Poll a running run until its progress passes ``t_min``; its last state."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        body = client.call("GET", f"/api/run/{run_id}")[1]
        assert body["state"] == "running", body
        if body["t"] > t_min:
            return body
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} made no progress past t = {t_min}: {body}")


def test_a_long_real_time_run_shows_progress_and_stops_with_its_partial_result(editor):
    client, _ = editor
    # ten minutes of wall time: a diagram without clocks, paced only at 0 and T
    T = 600.0
    run_id = _run(client, {"T": T, "realtime": 1.0, "solver": "rk4", "dt": 0.01,
                           "backend": "interpreted"})
    first = _running_until(client, run_id, 0.0)
    later = _running_until(client, run_id, first["t"] + 0.3)
    assert 0 < first["t"] < later["t"] < 60 and 0 < later["progress"] < 0.1
    t0 = time.monotonic()
    status, body = client.call("POST", f"/api/run/{run_id}/stop")
    assert status == 200
    body = _wait(client, run_id, timeout=30)
    assert time.monotonic() - t0 < 3.0  # stopped by the worker itself, not terminated
    assert body["state"] == "stopped" and body["error"] is None, body
    assert later["t"] <= body["t"] < 60
    status, data = client.call("GET", body["result"])
    assert status == 200
    path = client.server.scratch / "downloaded.npz"
    path.write_bytes(data)
    result = SimResult.load(path)
    # the partial result, up to where the run stood in real time
    assert 0 < result.t[-1] < T and abs(result.t[-1] - body["t"]) < 0.05
    assert np.allclose(result["x.y"], 1 - np.exp(-2 * result.t), atol=1e-6)
    assert body["final"]["x.y"] == result["x.y"][-1]
    assert client.call("GET", "/api/diagram")[0] == 200


OSCILLATOR = {"blocksim": 1, "name": "oscillator",
              "blocks": {"x": {"type": "Integrator", "params": {"x0": 1.0}},
                         "v": {"type": "Integrator", "params": {"x0": 0.0}},
                         "k": {"type": "Gain", "params": {"K": -1.0}}},
              "wires": [{"from": "x", "to": "k"}, {"from": "k", "to": "v"},
                        {"from": "v", "to": "x"}]}


def test_a_long_run_between_major_times_stops_with_its_partial_result(editor):
    client, _ = editor
    # x'' = -x for a billion seconds: no clock, no major time before T, so no progress call
    # to stop at; the stop interrupts the worker as Ctrl-C would
    assert client.call("PUT", "/api/diagram", OSCILLATOR)[1]["ok"]
    T = 1e9
    run_id = _run(client, {"T": T, "solver": "RK45", "rtol": 1e-9,
                           "backend": "interpreted"})
    time.sleep(1.5)
    assert client.call("GET", f"/api/run/{run_id}")[1]["state"] == "running"
    t0 = time.monotonic()
    assert client.call("POST", f"/api/run/{run_id}/stop")[0] == 200
    body = _wait(client, run_id, timeout=30)
    assert time.monotonic() - t0 < 4.0  # not left to the terminate after STOP_GRACE
    assert body["state"] == "stopped" and body["error"] is None, body
    status, data = client.call("GET", body["result"])
    assert status == 200
    path = client.server.scratch / "oscillator.npz"
    path.write_bytes(data)
    result = SimResult.load(path)
    assert 1.0 < result.t[-1] < T and len(result.t) > 10
    early = result.t < 50.0
    assert np.allclose(result["x.y"][early], np.cos(result.t[early]), atol=1e-6)


def test_a_failing_run_leaves_the_server_serving(editor):
    client, _ = editor
    assert client.call("PUT", "/api/diagram", FAILING)[1]["ok"]
    body = _wait(client, _run(client, {}))
    assert body["state"] == "failed" and "failed" in body["error"]
    assert body["final"]["x.y"] > 1e6  # the partial result, up to the blow-up at t = 1
    assert client.call("GET", "/api/blocks")[0] == 200


def test_a_crashing_worker_leaves_the_server_serving(editor):
    client, _ = editor
    run_id = _run(client, {"T": 600.0, "realtime": 1.0, "solver": "rk4", "dt": 0.01})
    body = _running_until(client, run_id, 0.0)
    os.kill(body["pid"], signal.SIGKILL)  # as a segfault in a block's native code would
    body = _wait(client, run_id, timeout=30)
    assert body["state"] == "crashed" and "exit code" in body["error"]
    assert client.call("GET", f"/api/run/{run_id}/result.npz")[0] == 404
    assert client.call("GET", "/api/diagram")[0] == 200
    assert _wait(client, _run(client, {"T": 0.5}))["state"] == "finished"


def test_closing_the_server_ends_its_runs(tmp_path):
    (tmp_path / "f.json").write_text(json.dumps(FAILING | {"simulation": {"T": 0.5}}))
    server, client = start(tmp_path, "f.json")
    run_id = _run(client, {"T": 600.0, "realtime": 1.0, "solver": "rk4", "dt": 0.01})
    run = server.runs.get(run_id)
    server.shutdown()
    server.server_close()
    assert run.done.wait(30) and not run.process.is_alive()
