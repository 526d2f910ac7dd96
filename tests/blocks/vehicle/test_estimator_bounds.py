"""The EKF and ParticleFilter blocks never index their landmark map out of bounds: a sensor
whose map is larger than the filter's is refused before the run, naming both blocks (the
issue's repros on both back-ends), and an id outside the map at run time is an error naming
the block and the id on both back-ends (the kernels raise; before, numba read other memory)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant, Step
from blocksim.blocks.vehicle import EKF, ParticleFilter
from blocksim.blocks.vehicle import estimator_kernels as ek
from blocksim.cli import main
from blocksim.engine.errors import BlockParameterError, BlockRuntimeError, SimulationError
from blocksim.io import load, loads

DIAGRAMS = Path(__file__).resolve().parents[3] / "diagrams"
BACKENDS = ["interpreted", "compiled"]


def _diagram(name: str, **params):
    """``diagrams/<name>.json`` with block parameters changed (``{"ekf": {...}}``)."""
    doc = json.loads((DIAGRAMS / f"{name}.json").read_text())
    for block, changes in params.items():
        doc["blocks"][block]["params"].update(changes)
    return loads(json.dumps(doc), name=name).diagram


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "name, params, filt, m, n",
    [
        ("ekf_localisation", {"ekf": {"landmarks": 10}}, "EKF 'ekf': its map holds", 10, 20),
        ("ekf_localisation", {"sensor": {"landmarks": 40}}, "EKF 'ekf': its map holds", 20, 40),
        ("ekf_slam", {"ekf": {"landmarks": 5}}, "EKF 'ekf': its map has slots for", 5, 20),
        ("ekf_mapping", {"ekf": {"landmarks": 5}}, "EKF 'ekf': its map has slots for", 5, 20),
        ("pf_localisation", {"pf": {"landmarks": 10}}, "ParticleFilter 'pf': its map holds",
         10, 20),
    ],
)
def test_a_sensor_map_larger_than_the_filters_is_refused_naming_both_blocks(
    name, params, filt, m, n, backend
):
    d = _diagram(name, **params)
    with pytest.raises(BlockParameterError) as info:
        simulate(d, 1.0, solver="rk4", dt=0.1, backend=backend)
    msg = str(info.value)
    assert msg.startswith(f"{filt} {m} landmarks"), msg
    assert f"sensor 'sensor' (RangeBearingSensor) observes {n} (ids 0..{n - 1})" in msg, msg


def test_the_cli_repro_exits_with_the_message(capsys):
    code = main(["run", str(DIAGRAMS / "ekf_localisation.json"), "--set", "ekf.landmarks=10",
                 "--T", "1", "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code != 0 and "its map holds 10 landmarks" in err and "sensor 'sensor'" in err, err


def test_a_smaller_sensor_map_is_fine():
    d = _diagram("ekf_localisation", sensor={"landmarks": 10})
    res = simulate(d, 5.0, solver="rk4", dt=0.1, backend="interpreted")
    assert np.all(np.isfinite(res["ekf.x"])) and res["sensor.k"].max() < 10


def _bad_id_diagram(kind: str, k: float) -> Diagram:
    """A filter of 4 landmarks fed id ``k`` from t = 0.5 s (valid throughout)."""
    d = Diagram(f"bad_id_{kind}")
    d.add(Constant(np.array([0.1, 0.0])), name="odo")
    d.add(Constant(np.array([5.0, 0.1])), name="z")
    d.add(Step(0.5, 0.0, k), name="k")
    d.add(Constant(1.0), name="valid")
    if kind == "pf":
        d.add(ParticleFilter(landmarks=4, nparticles=20), name="f")
    else:
        d.add(EKF(mode=kind, landmarks=4), name="f")
    if kind == "mapping":
        d.add(Constant(np.zeros(3)), name="pose")
        d.connect("pose", "f.pose")
    else:
        d.connect("odo", "f.odo")
    for port in ("z", "k", "valid"):
        d.connect(port, f"f.{port}")
    return d


@pytest.mark.parametrize("kind", ["localisation", "slam", "mapping", "pf"])
def test_an_id_outside_the_map_at_run_time_interpreted(kind):
    with pytest.raises(BlockRuntimeError) as info:
        simulate(_bad_id_diagram(kind, 12.0), 1.0, backend="interpreted")
    msg = str(info.value)
    owner = "ParticleFilter" if kind == "pf" else "EKF"
    assert f"block 'f' ({owner})" in msg and "t=0.5 s" in msg, msg
    assert "landmark id k = 12 is outside its map of 4 landmarks (ids 0..3)" in msg, msg
    assert info.value.block == "f"


@pytest.mark.parametrize("kind", ["localisation", "slam", "mapping", "pf"])
def test_an_id_outside_the_map_at_run_time_compiled(kind):
    with pytest.raises(BlockRuntimeError) as info:
        simulate(_bad_id_diagram(kind, 12.0), 1.0, backend="compiled", fuse=False)
    assert info.value.block == "f" and "t=0.5 s" in str(info.value), str(info.value)


def test_an_id_outside_the_map_at_run_time_compiled_fused():
    with pytest.raises(SimulationError) as info:
        simulate(_bad_id_diagram("localisation", 7.0), 1.0, backend="compiled", fuse=True)
    msg = str(info.value)
    assert "landmark id (input k) outside the filter's map" in msg and "7.0, 4" in msg, msg


def _kernel_calls(k: float):
    """Every filter step with landmark id ``k`` against a map of 4 landmarks."""
    odo, z, pose = np.array([0.1, 0.0]), np.array([5.0, 0.1]), np.zeros(3)
    out = {}
    for mode, step in (("localisation", ek.ekf_loc_step), ("slam", ek.ekf_slam_step),
                       ("mapping", ek.ekf_map_step)):  # fmt: skip
        b = EKF(mode=mode, landmarks=4)
        a = pose if mode == "mapping" else odo
        out[mode] = lambda b=b, a=a, step=step: step(0.0, b.x0.copy(), a, z, k, 1.0, b._p)
    pf = ParticleFilter(landmarks=4, nparticles=10)
    out["pf"] = lambda: ek.pf_step(0.0, pf.x0.copy(), odo, z, k, 1.0, pf._p)
    return out


@pytest.mark.parametrize("k", [4.0, 12.0, -1.0, 2.5, math.nan, math.inf, 1e300])
def test_the_kernels_refuse_every_id_outside_the_map(k):
    for name, call in _kernel_calls(k).items():
        with pytest.raises(ValueError, match="outside the filter's map") as info:
            call()
        got = info.value.args[1]
        assert got == k or (math.isnan(k) and math.isnan(got)), (name, info.value.args)
        assert info.value.args[2] == 4, (name, info.value.args)
        msg = ek.landmark_problem("EKF", k, 4)
        assert msg and "outside its map of 4 landmarks" in msg


def test_the_kernels_take_every_id_inside_the_map():
    for k in (0.0, 1.0, 3.0):
        for name, call in _kernel_calls(k).items():
            assert np.all(np.isfinite(call())), name
        assert ek.landmark_problem("EKF", k, 4) is None


def test_messages_print_plain_numbers():
    msg = ek.landmark_problem("EKF", np.float64(-0.5), 4)
    assert "np.float64" not in msg and "k = -0.5" in msg


def test_the_python_ekf_class_refuses_a_smaller_map():
    from blocksim.robotics.mobile import EKF as PyEKF
    from blocksim.robotics.mobile import LandmarkMap, RandomPath, RangeBearingSensor, Vehicle

    veh = Vehicle(np.diag([0.02, 0.01]) ** 2, seed=1)
    veh.add_driver(RandomPath(10, seed=4))
    sensor = RangeBearingSensor(veh, LandmarkMap(20, 10), np.diag([0.1, 0.01]) ** 2, seed=2)
    with pytest.raises(ValueError, match="the map holds 10 landmarks but the sensor observes 20"):
        PyEKF(veh, np.diag([0.02, 0.01]) ** 2, np.eye(3) * 1e-4, sensor,
              np.diag([0.1, 0.01]) ** 2, LandmarkMap(10, 10))  # fmt: skip


def test_load_with_overrides_gives_the_same_refusal():
    d = load(DIAGRAMS / "ekf_localisation.json", overrides={"ekf.landmarks": 10}).diagram
    with pytest.raises(BlockParameterError, match=r"'ekf'.*'sensor'"):
        simulate(d, 1.0, backend="interpreted")
