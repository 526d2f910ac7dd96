"""KalmanFilter: the steady-state gain is python-control's dlqe (1e-10); the time-varying
covariance converges to the DARE solution; on the noisy mass-spring example (seeded noise) the
estimate's error is a fraction of the sensor noise and matches the filter's own covariance;
both back-ends agree (time-varying and steady-state filters in one diagram); bad parameters
are refused naming them."""

from __future__ import annotations

import control
import numpy as np
import pytest

from blocksim.blocks.control import KalmanFilter
from blocksim.engine.errors import BlockParameterError

from ...examples_loader import load_example
from ..backends import assert_backends_agree

C = np.array([[1.0, 0.0]])


def _model():
    ex = load_example("kalman_mass_spring")
    A, B = (np.array(M) for M in ex.discrete_model())
    return ex, A, B


def test_steady_state_gain_is_dlqe_and_the_time_varying_covariance_converges_to_it():
    _ex, A, B = _model()
    Q, R = np.array([[0.3]]), np.array([[0.02]])
    L, P, _E = control.dlqe(A, B, C, Q, R)
    kf = KalmanFilter(A, B, C, Q, R, dt=0.1, steady_state=True, G=B)
    np.testing.assert_allclose(kf.L, L, rtol=0, atol=1e-10)
    np.testing.assert_allclose(kf.P_dare, P, rtol=0, atol=1e-10)
    Q2 = np.diag([1e-3, 2e-2])  # G = I (the default)
    L2, _P2, _E = control.dlqe(A, np.eye(2), C, Q2, R)
    np.testing.assert_allclose(KalmanFilter(A, B, C, Q2, R, dt=0.1, steady_state=True).L, L2,
                               rtol=0, atol=1e-10)
    # the steady-state output is x + M (z - C x), M = A^-1 L
    x = np.array([0.3, -0.2])
    xhat, Pf = kf.output(0.0, x, [0.5, 1.0])
    M = np.linalg.solve(A, L)
    np.testing.assert_allclose(xhat, x + M @ (np.array([1.0]) - C @ x), atol=1e-12)
    np.testing.assert_allclose(kf.update(0.0, x, [0.5, 1.0]), A @ xhat + B[:, 0] * 0.5,
                               atol=1e-12)
    # time-varying: P[k|k-1] -> the DARE solution, whatever P0
    tv = KalmanFilter(A, B, C, Q, R, dt=0.1, G=B, P0=[[5.0, 1.0], [1.0, 2.0]])
    s = tv.x0
    for _ in range(400):
        s = tv.update(0.0, s, [0.1, 0.2])
    np.testing.assert_allclose(s[2:].reshape(2, 2), P, rtol=0, atol=1e-10)
    np.testing.assert_allclose(tv.output(0.0, s, [0.1, 0.2])[1], Pf, rtol=0, atol=1e-10)


def test_noisy_mass_spring_estimate_beats_the_sensor():
    ex = load_example("kalman_mass_spring")
    res = ex.main(T=30.0, rtol=1e-9, atol=1e-12)
    hit = (np.abs(res.t - np.round(res.t / ex.DT) * ex.DT) < 1e-9) & (res.t > 2.0)  # samples
    err = res["kf.xhat"][hit] - res["plant.y"][hit]
    sensor = res["z.y"][hit] - res["plant.y"][hit, 0]
    rms = np.sqrt(np.mean(err**2, axis=0))
    assert np.std(sensor) == pytest.approx(ex.SIGMA_V, rel=0.15)
    assert rms[0] < 0.35 * ex.SIGMA_V
    # the filter's covariance predicts its errors (within sampling error)
    sd = np.sqrt(np.mean(res["kf.P"][hit][:, [0, 1], [0, 1]], axis=0))
    np.testing.assert_allclose(rms, sd, rtol=0.3)


def test_both_backends_agree():
    ex, A, B = _model()
    d = ex.build()
    ss = d.add(KalmanFilter(A, B, C, Q=[[ex.SIGMA_W**2]], R=[[ex.SIGMA_V**2]], dt=ex.DT,
                            steady_state=True, G=B), name="kf_ss")
    d.connect("held", ss["u"])
    d.connect("z", ss["z"])
    nou = d.add(KalmanFilter(A, None, C, Q=np.diag([1e-4, 1e-3]), R=ex.SIGMA_V**2, dt=ex.DT),
                name="kf_nou")
    d.connect("z", nou["z"])
    assert_backends_agree(d, T=1.0, dt=0.01, close={"kf.P": 1e-15})


def test_bad_parameters_are_refused():
    A, B = np.eye(2), np.ones((2, 1))
    with pytest.raises(BlockParameterError, match="'dt' is required"):
        KalmanFilter(A, B, C, np.eye(2), 1.0)
    with pytest.raises(BlockParameterError, match="'R' must be positive definite"):
        KalmanFilter(A, B, C, np.eye(2), 0.0, dt=0.1)
    with pytest.raises(BlockParameterError, match="'C'"):
        KalmanFilter(A, B, np.ones((1, 3)), np.eye(2), 1.0, dt=0.1)
    with pytest.raises(BlockParameterError, match="'Q'"):
        KalmanFilter(A, B, C, np.ones(3), 1.0, dt=0.1)
    with pytest.raises(BlockParameterError, match="DARE"):
        KalmanFilter(np.diag([2.0, 1.0]), B, [[0.0, 1.0]], np.eye(2), 1.0, dt=0.1,
                     steady_state=True)
    with pytest.raises(BlockParameterError, match="'D' needs an input"):
        KalmanFilter(A, None, C, np.eye(2), 1.0, dt=0.1, D=[[1.0]])
