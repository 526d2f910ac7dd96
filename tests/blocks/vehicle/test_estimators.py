"""Sensor and estimator blocks: the sensor's limits, skip and failure window; every estimator
on both back-ends (one diagram); each filter steps once per hit (output and update share the
step, through the memo of the interpreted methods and of the kernels); EKF localisation NEES
over 60 seeded Monte-Carlo members through simulate_batch inside the 95 % chi-square band."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2

from blocksim import Diagram, compile_diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.vehicle import (
    EKF,
    ParticleFilter,
    RandomPath,
    RangeBearingSensor,
    Vehicle,
)
from blocksim.blocks.vehicle import estimator_kernels as ek
from blocksim.engine.batch import simulate_batch
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.mobile import rb_h, wrap_angle

from ...examples_loader import load_example

W = np.diag([0.1, np.deg2rad(1.0)]) ** 2


def _sensor_run(**kw):
    d = Diagram("sensor")
    d.add(Constant(np.array([0.0, 0.0, 0.5])), name="pose")
    d.add(RangeBearingSensor(landmarks=[[3.0, 0.0], [0.0, 8.0], [-2.0, -2.0]], W=W, **kw),
          name="s")  # fmt: skip
    d.connect("pose", "s.pose")
    return simulate(d, 300.0)


def test_sensor_noise_statistics_and_landmark_choice():
    res = _sensor_run(seed=3)
    k, z, ok = res["s.k"][1:], res["s.z"][1:], res["s.valid"][1:]
    assert np.all(ok == 1.0) and set(np.unique(k)) == {0.0, 1.0, 2.0}
    lm = np.array([[3.0, 0.0], [0.0, 8.0], [-2.0, -2.0]])
    pose = np.array([0.0, 0.0, 0.5])
    err = np.array([z[i] - rb_h(pose, lm[int(k[i])]) for i in range(len(k))])
    err[:, 1] = wrap_angle(err[:, 1])
    np.testing.assert_allclose(np.cov(err.T), W, rtol=0.12, atol=1e-5)


def test_sensor_range_angle_skip_and_failure():
    res = _sensor_run(range=5.0, angle=1.0, skip=2, fail=(10, 20))
    c = np.arange(len(res.t)) + 1  # hit number
    ok = res["s.valid"] == 1.0
    assert not np.any(ok[c % 2 == 1]) and not np.any(ok[(c >= 10) & (c <= 20)])
    assert np.all(ok[(c % 2 == 0) & ((c < 10) | (c > 20))])
    # only landmark 0 is within 5 m and +-1 rad of the heading 0.5
    assert set(res["s.k"][ok]) == {0.0} and np.all(res["s.k"][~ok] == -1.0)


@pytest.fixture(scope="module")
def estimators():
    """Vehicle, driver, sensor and every estimator in one discrete diagram."""
    V = (0.02**2, np.deg2rad(0.5) ** 2)
    d = Diagram("estimators")
    d.add(Vehicle(V=V, seed=1), name="veh")
    d.add(RandomPath(dim=10.0, seed=2), name="drv")
    d.add(RangeBearingSensor(landmarks=6, W=W, seed=3), name="s")
    d.connect("veh.pose", "drv.pose")
    d.connect("drv.v", "veh.speed")
    d.connect("drv.gamma", "veh.steer")
    d.connect("veh.pose", "s.pose")
    for mode in ("dead_reckoning", "localisation", "slam", "mapping"):
        d.add(EKF(mode=mode, V_est=V, W_est=W, landmarks=6), name=mode)
        d.connect(
            "veh.pose" if mode == "mapping" else "veh.odo", f"{mode}.{d[mode].inputs[0].name}"
        )
        if mode != "dead_reckoning":
            for p in ("z", "k", "valid"):
                d.connect(f"s.{p}", f"{mode}.{p}")
    d.add(ParticleFilter(nparticles=100, landmarks=6, seed=4), name="pf")
    d.connect("veh.odo", "pf.odo")
    for p in ("z", "k", "valid"):
        d.connect(f"s.{p}", f"pf.{p}")
    return d


def test_estimators_agree_on_both_backends(estimators):
    a = simulate(estimators, 5.0, backend="compiled")
    b = simulate(estimators, 5.0, backend="interpreted")
    np.testing.assert_array_equal(a.t, b.t)
    for name in b.signals:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12, err_msg=name)
    assert b["slam.x"].shape == (51, 15) and b["mapping.P"].shape == (51, 12, 12)
    assert np.count_nonzero(b["slam.x"][-1][3:]) > 0


FILTERS = ("dead_reckoning", "localisation", "slam", "mapping", "pf")


def test_each_filter_steps_once_per_hit_in_the_interpreted_back_end(estimators):
    plan = compile_diagram(estimators)
    counts = dict.fromkeys(FILTERS, 0)
    saved = {}
    for name in FILTERS:
        memo = estimators[name]._memo
        saved[name] = fn = memo._fn

        def counted(*args, _fn=fn, _name=name):
            counts[_name] += 1
            return _fn(*args)

        memo._fn = counted
        memo._last = None  # forget the shape dry run's step at t = 0 (the same as the run's)
    try:
        res = simulate(plan, 2.0, backend="interpreted")
    finally:
        for name in FILTERS:
            estimators[name]._memo._fn = saved[name]
    # one step per hit (t = 0, 0.1, ..., 2.0): output computes it, update reuses it
    assert counts == dict.fromkeys(FILTERS, len(res.t)) and len(res.t) == 21


def _kernel_cases():
    odo, z, pose = np.array([0.3, 0.05]), np.array([4.0, 0.4]), np.array([1.0, -2.0, 0.3])
    obs = (z, 2.0, 1.0)
    return [
        (EKF(mode="dead_reckoning", landmarks=6), ek.ekf_dr_step, (odo,)),
        (EKF(mode="localisation", landmarks=6), ek.ekf_loc_step, (odo, *obs)),
        (EKF(mode="slam", landmarks=6), ek.ekf_slam_step, (odo, *obs)),
        (EKF(mode="mapping", landmarks=6), ek.ekf_map_step, (pose, *obs)),
        (ParticleFilter(nparticles=20, landmarks=6, seed=4), ek.pf_step, (odo, *obs)),
    ]


@pytest.mark.parametrize("case", range(5), ids=FILTERS)
def test_the_update_kernel_returns_the_step_the_output_kernel_kept(case):
    block, step, u = _kernel_cases()[case]
    k = block.kernels()
    p = (*k.params[:-1], np.zeros_like(k.params[-1]))  # a memo of this test's own
    memo = p[-1]
    x = block.x0.copy()
    want = step(0.0, x, *u, p)
    assert not np.array_equal(want, x)  # the step changes the state
    k.output(0.0, x, *u, p)
    np.testing.assert_array_equal(k.update(0.0, x, *u, p), want)
    # what update returns is the kept step: marked in the memo, it comes back marked
    memo[-1] += 1.0
    assert k.update(0.0, x, *u, p)[-1] == want[-1] + 1.0
    memo[-1] -= 1.0
    # another state or other inputs: a fresh step, bitwise that of the pure step
    x2 = x.copy()
    x2[-1] += 0.25
    np.testing.assert_array_equal(k.update(0.0, x2, *u, p), step(0.0, x2, *u, p))
    u2 = (u[0] * 1.5, *u[1:])
    np.testing.assert_array_equal(k.update(0.0, x, *u2, p), step(0.0, x, *u2, p))
    # the interpreted methods give the same outputs and next state
    outs = block.output(0.0, x, u)
    for a, b in zip(outs, k.output(0.0, x, *u, p)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(block.update(0.0, x, u), want)


def test_ekf_localisation_nees_over_monte_carlo_batch():
    m = load_example("ekf_localisation")
    members = 60
    overrides = [
        {"veh.seed": 10 + i, "driver.seed": 500 + i, "sensor.seed": 900 + i} for i in range(members)
    ]
    batch = simulate_batch(m.build(plot=False), overrides, 20.0, backend="compiled")
    assert not batch.failed.any()
    e = batch["ekf.x"][:, -1, :] - batch["veh.pose"][:, -1, :]
    e[:, 2] = wrap_angle(e[:, 2])
    P = batch["ekf.P"][:, -1]
    nees = np.einsum("mi,mi->m", e, np.linalg.solve(P, e[..., None])[..., 0])
    lo, hi = chi2.ppf([0.025, 0.975], 3 * members) / members
    assert lo < nees.mean() < hi, (lo, nees.mean(), hi)
    # the members differ (their seeds do)
    assert np.ptp(batch["veh.pose"][:, -1, 0]) > 1.0


@pytest.mark.parametrize(
    ("make", "word"),
    [
        (lambda: EKF(mode="fast"), "'mode'"),
        (lambda: EKF(W_est=[[1.0, 0.0]]), "'W_est'"),
        (lambda: RangeBearingSensor(skip=0), "'skip'"),
        (lambda: RangeBearingSensor(landmarks=[[1.0, 2.0, 3.0]]), "'landmarks'"),
        (lambda: ParticleFilter(nparticles=0), "'nparticles'"),
        (lambda: ParticleFilter(nparticles=3, x0=np.zeros((2, 3))), "'x0'"),
    ],
)
def test_bad_parameters_name_the_parameter(make, word):
    with pytest.raises(BlockParameterError, match=word):
        make()
