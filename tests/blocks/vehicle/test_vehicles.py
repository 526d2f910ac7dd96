"""Vehicle and driver blocks: analytic checks, kernels equal to the interpreted methods, both
back-ends on one diagram of every continuous block, parameter errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant, Step
from blocksim.blocks.vehicle import (
    Bicycle,
    Braitenberg,
    BraitenbergField,
    DiffSteer,
    DriveToPoint,
    DriveToPose,
    FollowLine,
    PathSource,
    PioneerDynamics,
    PurePursuit,
    RandomPath,
    Unicycle,
    Vehicle,
)
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.mobile import odo_f, path_point


def _drive(d, name, block, v, g):
    d.add(block, name=name)
    d.connect(v, f"{name}.{block.inputs[0].name}")
    d.connect(g, f"{name}.{block.inputs[1].name}")


def test_bicycle_constant_steer_drives_the_analytic_circle():
    d = Diagram("circle")
    d.add(Constant(1.5), name="v")
    d.add(Constant(0.3), name="g")
    _drive(d, "car", Bicycle(L=2.0, x0=(1.0, 2.0, 0.5)), "v", "g")
    res = simulate(d, 10.0, rtol=1e-10, atol=1e-12)
    R = 2.0 / math.tan(0.3)
    c = np.array([1.0 - R * math.sin(0.5), 2.0 + R * math.cos(0.5)])
    r = np.hypot(res["car.x"] - c[0], res["car.y"] - c[1])
    np.testing.assert_allclose(r, R, atol=1e-7)
    assert res["car.theta"][-1] == pytest.approx(0.5 + 15.0 / R, abs=1e-8)


def test_bicycle_limits_acceleration_and_handbrake():
    d = Diagram("limits")
    d.add(Constant(10.0), name="v")
    d.add(Constant(2.0), name="g")  # clipped to stlim
    d.add(Step(time=3.0), name="hb")
    car = Bicycle(vmax=2.0, stlim=0.4, accelmax=0.5, tau=0.01, handbrake=True)
    d.add(car, name="car")
    d.connect("v", "car.v")
    d.connect("g", "car.gamma")
    d.connect("hb", "car.hb")
    res = simulate(d, 4.0, solver="rk4", dt=0.001)
    v = res.x[:, 3]
    i1 = np.searchsorted(res.t, 2.0)
    assert v[i1] == pytest.approx(1.0, abs=0.02)  # 0.5 m/s^2 for 2 s
    assert np.all(np.diff(v[: i1 + 1]) <= 0.5 * 0.001 + 1e-12)
    after = res.t > 3.5
    assert np.ptp(res["car.x"][after]) < 1e-3 and abs(v[-1]) < 1e-3  # braked
    # steer clipped: turn rate v tan(0.4) / L while moving
    k = np.searchsorted(res.t, 1.0)
    rate = (res["car.theta"][k + 1] - res["car.theta"][k - 1]) / (res.t[k + 1] - res.t[k - 1])
    assert rate == pytest.approx(v[k] * math.tan(0.4), rel=1e-3)


def test_vehicle_block_moves_by_its_true_odometry_and_adds_noise_of_covariance_V():
    V = np.diag([0.02, 0.01]) ** 2
    d = Diagram("veh")
    d.add(Constant(7.0), name="v")  # clipped to vmax = 5
    d.add(Constant(0.2), name="g")
    d.add(Vehicle(V=V, L=1.5, dt=0.1, seed=4), name="veh")
    d.connect("v", "veh.speed")
    d.connect("g", "veh.steer")
    res = simulate(d, 200.0)
    pose, odo, odo_true = res["veh.pose"], res["veh.odo"], res["veh.odo_true"]
    np.testing.assert_allclose(odo_true[1:], [[0.5, 0.5 * math.tan(0.2) / 1.5]] * (len(pose) - 1))
    for k in range(1, 50):
        np.testing.assert_allclose(pose[k], odo_f(pose[k - 1], *odo_true[k], 0.0, 0.0), atol=1e-14)
    noise = odo[1:] - odo_true[1:]
    np.testing.assert_allclose(np.cov(noise.T), V, rtol=0.1, atol=2e-5)
    assert abs(np.mean(noise[:, 0])) < 4 * 0.02 / math.sqrt(len(noise))


def test_path_source_interpolates_and_holds():
    P = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 2.0]])
    src = PathSource(path=P, dt=0.5)
    np.testing.assert_allclose(src.output(0.25, np.zeros(0), ())[0], [0.5, 1.0])
    np.testing.assert_allclose(src.output(9.0, np.zeros(0), ())[0], [3.0, 2.0])
    k = src.kernels()
    np.testing.assert_array_equal(k.output(0.7, np.zeros(0), k.params), path_point(P, 0.5, 0.7))


@pytest.fixture(scope="module")
def every_block():
    """One diagram of every continuous vehicle and driver block (one compile)."""
    d = Diagram("vehicles")
    d.add(Bicycle(L=1.0, vmax=2.0, stlim=0.8, accelmax=1.0, x0=(8.0, 5.0, 1.5)), name="car1")
    d.add(DriveToPoint(goal=(5.0, 5.0)), name="pt")
    d.connect("car1.pose", "pt.pose")
    d.connect("pt.v", "car1.v")
    d.connect("pt.gamma", "car1.gamma")
    for i, drv in enumerate(
        [DriveToPose(goal=(5.0, 5.0, 1.0)), FollowLine(line=(1.0, -2.0, 4.0)),
         Braitenberg(source=(5.0, 3.0))]
    ):  # fmt: skip
        car = f"car{i + 2}"
        d.add(Bicycle(x0=(1.0, 1.0, 0.2 * i)), name=car)
        d.add(drv, name=f"drv{i + 2}")
        d.connect(f"{car}.pose", f"drv{i + 2}.pose")
        d.connect(f"drv{i + 2}.v", f"{car}.v")
        d.connect(f"drv{i + 2}.gamma", f"{car}.gamma")
    d.add(PathSource(path=[[0.0, 0.0], [2.0, 1.0], [4.0, 0.0]], dt=0.5), name="path")
    d.add(PurePursuit(), name="pursue")
    d.add(Bicycle(), name="car5")
    d.connect("path", "pursue.target")
    d.connect("car5.pose", "pursue.pose")
    d.connect("pursue.v", "car5.v")
    d.connect("pursue.gamma", "car5.gamma")
    d.add(Constant(0.3), name="c1")
    d.add(Constant(0.5), name="c2")
    _drive(d, "uni", Unicycle(wmax=0.4), "c1", "c2")
    _drive(d, "diff", DiffSteer(), "c1", "c2")
    _drive(d, "pioneer", PioneerDynamics(), "c2", "c1")
    _drive(d, "uni2", Unicycle(), "pioneer.v", "pioneer.w")
    return d


def test_continuous_blocks_agree_on_both_backends(every_block):
    a = simulate(every_block, 2.0, solver="rk4", dt=0.02, backend="compiled")
    b = simulate(every_block, 2.0, solver="rk4", dt=0.02, backend="interpreted")
    assert sorted(a.signals) == sorted(b.signals)
    for name in b.signals:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12, err_msg=name)
    assert np.ptp(b["car1.x"]) > 0.5 and np.ptp(b["uni2.x"]) > 0.1


def test_kernels_equal_interpreted_methods(every_block):
    rng = np.random.default_rng(0)
    for name, blk in every_block.blocks.items():
        k = blk.kernels()
        if k is None or not blk.inputs:
            continue
        for _ in range(3):
            u = [rng.uniform(-2, 2, p.shape) if p.shape else float(rng.uniform(-1, 1))
                 for p in blk.inputs]  # fmt: skip
            fixed = {"pose": np.array([1.0, 2.0, 0.3]), "target": np.array([3.0, -1.0])}
            u = [fixed.get(p.name, v) for p, v in zip(blk.inputs, u)]
            x = blk.x0 + rng.uniform(-0.1, 0.1, blk.x0.shape)
            for got, want in zip(k.output(0.3, x, *u, k.params), blk.output(0.3, x, u)):
                np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15, err_msg=name)
            if k.deriv is not None:
                np.testing.assert_allclose(
                    np.asarray(k.deriv(0.3, x, *u, k.params)),
                    np.asarray(blk.deriv(0.3, x, u), dtype=float), rtol=1e-14, atol=1e-15,
                    err_msg=name,
                )  # fmt: skip


def test_user_field_braitenberg_runs_interpreted_only():
    d = Diagram("user_field")
    d.add(Bicycle(), name="car")
    d.add(BraitenbergField(field=lambda x, y: 1.0 / (1.0 + (x - 3.0) ** 2 + y**2)), name="drv")
    d.connect("car.pose", "drv.pose")
    d.connect("drv.v", "car.v")
    d.connect("drv.gamma", "car.gamma")
    assert d["drv"].kernels() is None
    res = simulate(d, 1.0)
    assert res["car.x"][-1] > 0.5


def test_random_path_changes_waypoint_when_reached():
    blk = RandomPath(dim=10.0, dthresh=1.0)
    x = blk.x0.copy()
    goal = x[:2].copy()
    x = blk.update(0.0, x, (np.array([goal[0] + 5, goal[1], 0.0]),))
    np.testing.assert_array_equal(x[:2], goal)  # far: same goal, distance remembered
    x2 = blk.update(0.1, x, (np.array([goal[0] + 0.5, goal[1], 0.0]),))
    assert x2[3] == 1.0 and np.all(np.abs(x2[:2]) <= 8.0) and not np.allclose(x2[:2], goal)


@pytest.mark.parametrize(
    ("make", "word"),
    [
        (lambda: Bicycle(L=0.0), "'L'"),
        (lambda: Bicycle(stlim=2.0), "'stlim'"),
        (lambda: Bicycle(x0=(1.0, 2.0)), "'x0'"),
        (lambda: Vehicle(V=[[1.0, 2.0], [0.0, 1.0]]), "'V'"),
        (lambda: Vehicle(V=[[1.0, 0.0], [0.0, -1e-6]]), "'V'"),  # indefinite
        (lambda: DriveToPose(direction=2), "'direction'"),
        (lambda: FollowLine(line=(0.0, 0.0, 1.0)), "'line'"),
        (lambda: PathSource(path=[1.0, 2.0]), "'path'"),
        (lambda: BraitenbergField(field=3), "'field'"),
    ],
)
def test_bad_parameters_name_the_block_and_parameter(make, word):
    with pytest.raises(BlockParameterError, match=word):
        make()


def test_a_covariance_symmetric_to_rounding_is_accepted():
    V = np.array([[0.02, 1e-3], [1e-3 * (1 + 1e-9), 0.5]])
    np.testing.assert_array_equal(Vehicle(V=V).V, V)
