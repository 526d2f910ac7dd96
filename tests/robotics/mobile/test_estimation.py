"""Jacobians against finite differences; EKF (four modes) and particle filter statistics."""

import numpy as np
import pytest
from scipy.stats import chi2

from blocksim.robotics.mobile import (
    EKF,
    LandmarkMap,
    ParticleFilter,
    RandomPath,
    RangeBearingSensor,
    Vehicle,
    nees,
    odo_f,
    odo_Fv,
    odo_Fx,
    rb_g,
    rb_Gx,
    rb_Gz,
    rb_h,
    rb_Hx,
    rb_Hxf,
    wrap_angle,
)

V = np.diag([0.02, 0.5 * np.pi / 180]) ** 2
W = np.diag([0.1, np.pi / 180]) ** 2
P0 = np.diag([0.005, 0.005, 0.001]) ** 2


def fd(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    cols = []
    for i in range(x.size):
        dx = np.zeros_like(x)
        dx[i] = eps
        d = f(x + dx) - f(x - dx)
        cols.append(d / (2 * eps))
    return np.array(cols).T


@pytest.mark.parametrize("seed", range(5))
def test_jacobians_against_finite_differences(seed):
    rng = np.random.default_rng(seed)
    xv = np.array([*rng.uniform(-5, 5, 2), rng.uniform(-3, 3)])
    xf = rng.uniform(-5, 5, 2)
    d, dth = rng.uniform(-1, 1), rng.uniform(-0.3, 0.3)

    np.testing.assert_allclose(
        odo_Fx(xv, d, dth), fd(lambda x: odo_f(x, d, dth, 0, 0), xv), atol=1e-7
    )
    np.testing.assert_allclose(
        odo_Fv(xv, d, dth), fd(lambda w: odo_f(xv, d, dth, w[0], w[1]), [0.0, 0.0]), atol=1e-7
    )
    np.testing.assert_allclose(rb_Hx(xv, xf), fd(lambda x: rb_h(x, xf), xv), atol=1e-6)
    np.testing.assert_allclose(rb_Hxf(xv, xf), fd(lambda p: rb_h(xv, p), xf), atol=1e-6)
    z = rb_h(xv, xf)
    np.testing.assert_allclose(rb_g(xv, z), xf, atol=1e-12)  # g inverts h
    np.testing.assert_allclose(rb_Gx(xv, z), fd(lambda x: rb_g(x, z), xv), atol=1e-6)
    np.testing.assert_allclose(rb_Gz(xv, z), fd(lambda q: rb_g(xv, q), z), atol=1e-6)


def test_vehicle_true_motion_is_the_odometry_model():
    veh = Vehicle(V, L=2.0, seed=1)
    veh.add_driver(RandomPath(10, seed=4))
    x = veh.x.copy()
    for _ in range(50):
        u = veh.control()
        odo = veh.update(u)
        np.testing.assert_allclose(Vehicle.f(x, odo), veh.x, atol=1e-14)
        x = veh.x.copy()
    assert np.all(np.abs(veh.control(10.0, 2.0)) == [5.0, 0.5])
    # noisy odometry has covariance V
    veh = Vehicle(V, seed=2)
    odos = np.array([veh.step(1.0, 0.1) - veh.odometry for _ in range(4000)])
    np.testing.assert_allclose(np.cov(odos.T), V, rtol=0.1, atol=0.05 * np.sqrt(V[0, 0] * V[1, 1]))


def _setup(seed, n_landmarks=20):
    veh = Vehicle(V, seed=seed)
    veh.add_driver(RandomPath(10, seed=seed + 100))
    lm = LandmarkMap(n_landmarks, 10, seed=7)
    sensor = RangeBearingSensor(veh, lm, W, seed=seed + 200)
    return veh, lm, sensor


def test_ekf_localisation_nees_inside_chi_square_band():
    runs, steps = 50, 150
    total = 0.0
    for seed in range(runs):
        veh, lm, sensor = _setup(seed)
        ekf = EKF(veh, V, P0, sensor, W, lm)
        ekf.run(steps)
        e = ekf.x_est - veh.x
        e[2] = wrap_angle(e[2])
        total += nees(e, ekf.P)
    lo, hi = chi2.ppf([0.025, 0.975], 3 * runs) / runs
    assert lo < total / runs < hi, (lo, total / runs, hi)


def test_dead_reckoning_covariance_grows_and_error_is_consistent():
    veh, _, _ = _setup(0)
    ekf = EKF(veh, V, P0)
    ekf.run(300)
    m = ekf.plot_P()
    assert np.all(np.diff(m[10:]) > 0)
    assert ekf.mode == "dead_reckoning" and len(ekf.history) == 300


def test_slam_landmarks_inside_3_sigma_and_shrinking():
    veh, lm, sensor = _setup(1)
    ekf = EKF(veh, V, P0, sensor, W)
    ekf.run(1200)
    assert ekf.mode == "slam" and len(ekf.features) == lm.nfeatures
    for k in ekf.features:
        p, Pk = ekf.landmark(k)
        assert nees(p - lm.landmarks[k], Pk) < chi2.ppf(0.9999, 2)
    # a landmark's uncertainty shrinks from its first sighting to the end
    k0 = ekf.history[[h.landmark for h in ekf.history].index(next(iter(ekf.features)))]
    j = ekf.features[k0.landmark]
    assert np.trace(ekf.P[j : j + 2, j : j + 2]) < 0.5 * np.trace(k0.P[j : j + 2, j : j + 2])


def test_mapping_with_known_vehicle():
    veh, lm, sensor = _setup(2)
    ekf = EKF(veh, None, None, sensor, W)
    ekf.run(600)
    assert ekf.mode == "mapping" and ekf.x_est.size == 2 * len(ekf.features)
    errs = [nees(ekf.landmark(k)[0] - lm.landmarks[k], ekf.landmark(k)[1]) for k in ekf.features]
    assert max(errs) < chi2.ppf(0.9999, 2)


def test_particle_filter_converges_from_uniform_prior():
    veh, _lm, sensor = _setup(3)
    pf = ParticleFilter(
        veh, sensor, np.diag([0.1, 0.1, np.pi / 180]) ** 2, np.diag([0.1, 0.1]), 500
    )
    spread0 = pf.std.copy()
    pf.run(300)
    e = pf.error()
    assert np.hypot(e[0], e[1]) < 0.5 and abs(e[2]) < 0.1
    assert np.all(pf.std[:2] < 0.1 * spread0[:2])


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="V must be"):
        Vehicle(np.eye(3))
    with pytest.raises(ValueError, match="P0"):
        EKF(Vehicle(V), V, None)
    with pytest.raises(ValueError, match="range"):
        RangeBearingSensor(Vehicle(V), LandmarkMap(3), W, range=(5.0, 1.0))
