"""UnscentedKalmanFilter: on a linear model it is the KalmanFilter (1e-10); one pendulum step
equals a sigma-point computation written out here with numpy/scipy; it tracks a noisy
pendulum (seeded) and estimates the unmeasured rate; both back-ends agree (pendulum and
unicycle); bad parameters are refused naming them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import cholesky

from blocksim import Diagram
from blocksim.blocks import ZOH, Constant, Sine
from blocksim.blocks.control import KalmanFilter, UnscentedKalmanFilter
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.control.ukf_models import PENDULUM, model_f, model_params

from ..backends import assert_backends_agree

A = np.array([[1.0, 0.1], [0.0, 0.95]])
B = np.array([[0.005], [0.1]])
C = np.array([[1.0, 0.0], [0.5, 1.0]])
Q = np.array([[1e-3, 2e-4], [2e-4, 1e-2]])
R = np.diag([0.04, 0.09])


def _run(block, steps, u, z):
    x, out = block.x0, []
    for k in range(steps):
        ins = [z(k)] if u is None else [u(k), z(k)]
        out.append(block.output(0.0, x, ins))
        x = block.update(0.0, x, ins)
    return out


@pytest.mark.parametrize("with_input", [True, False])
def test_on_a_linear_model_it_is_the_kalman_filter(with_input):
    Bm, D = (B, np.array([[0.2], [0.0]])) if with_input else (None, None)
    kw = dict(x0=[0.3, -0.1], P0=[[2.0, 0.5], [0.5, 1.0]], dt=0.1)
    ukf = UnscentedKalmanFilter("linear", Q, R, A=A, B=Bm, C=C, D=D, alpha=0.5, kappa=1.0, **kw)
    kf = KalmanFilter(A, Bm, C, Q, R, D=D, **kw)
    u = (lambda k: math.cos(0.3 * k)) if with_input else None
    z = lambda k: np.array([math.sin(0.2 * k), 0.1 * k])  # noqa: E731
    for (xu, Pu), (xk, Pk) in zip(_run(ukf, 60, u, z), _run(kf, 60, u, z)):
        np.testing.assert_allclose(xu, xk, rtol=0, atol=1e-10)
        np.testing.assert_allclose(Pu, Pk, rtol=0, atol=1e-10)


def _pendulum_step_by_hand(x, P, u, z, Qp, Rp, mp, dt, alpha, beta, kappa):
    """One correction then one prediction of the UKF, written out with numpy and scipy."""
    n = 2
    lam = alpha**2 * (n + kappa) - n
    wm = np.r_[lam / (n + lam), np.full(2 * n, 0.5 / (n + lam))]
    wc = wm.copy()
    wc[0] += 1 - alpha**2 + beta

    def points(m, S):
        L = cholesky((n + lam) * S, lower=True)
        return np.vstack([m, m + L.T, m - L.T])

    X = points(x, P)
    Z = X[:, :1]                                   # the pendulum measures theta
    zh = wm @ Z
    S = (Z - zh).T @ np.diag(wc) @ (Z - zh) + Rp
    Pxz = (X - x).T @ np.diag(wc) @ (Z - zh)
    K = Pxz @ np.linalg.inv(S)
    xf = x + K @ (z - zh)
    Pf = P - K @ S @ K.T
    g, ell, m, b = mp

    def rate(s):
        return np.array([s[1], -g / ell * math.sin(s[0]) - b / (m * ell**2) * s[1]
                         + u / (m * ell**2)])

    def f(s):
        h = dt / 10
        for _ in range(10):
            k1 = rate(s)
            k2 = rate(s + h / 2 * k1)
            k3 = rate(s + h / 2 * k2)
            k4 = rate(s + h * k3)
            s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return s

    F = np.array([f(p) for p in points(xf, Pf)])
    xp = wm @ F
    Pp = (F - xp).T @ np.diag(wc) @ (F - xp) + Qp
    return xf, Pf, xp, Pp


def test_a_pendulum_step_equals_the_sigma_point_computation():
    mp = (9.81, 0.7, 1.3, 0.2)
    Qp, Rp = np.diag([1e-4, 4e-3]), np.array([[0.01]])
    x, P = np.array([0.8, -0.4]), np.array([[0.3, 0.05], [0.05, 0.5]])
    ukf = UnscentedKalmanFilter("pendulum", Qp, Rp, x0=x, P0=P, dt=0.05, model_params=mp,
                                alpha=0.8, beta=2.0, kappa=0.5)
    xf, Pf = ukf.output(0.0, ukf.x0, [0.4, 0.95])
    nxt = ukf.update(0.0, ukf.x0, [0.4, 0.95])
    ref = _pendulum_step_by_hand(x, P, 0.4, np.array([0.95]), Qp, Rp, mp, 0.05, 0.8, 2.0, 0.5)
    for got, want in zip((xf, Pf, nxt[:2], nxt[2:].reshape(2, 2)), ref):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def test_it_tracks_a_noisy_pendulum_and_estimates_its_rate():
    rng = np.random.default_rng(7)
    dt, mp = 0.02, model_params("pendulum", [9.81, 1.0, 1.0, 0.1])
    sq, sr = np.array([1e-4, 1e-3]), 0.05
    ukf = UnscentedKalmanFilter("pendulum", sq**2, sr**2, x0=[0.0, 0.0], P0=[1.0, 1.0],
                                dt=dt, model_params=[9.81, 1.0, 1.0, 0.1])
    truth, s, err = np.array([1.2, 0.0]), ukf.x0, []
    for _ in range(400):
        z = truth[0] + sr * rng.standard_normal()
        xf, _P = ukf.output(0.0, s, [0.0, z])
        err.append(xf - truth)
        s = ukf.update(0.0, s, [0.0, z])
        truth = model_f(PENDULUM, truth, np.zeros(1), mp, dt) + sq * rng.standard_normal(2)
    rms = np.sqrt(np.mean(np.array(err[100:]) ** 2, axis=0))
    assert rms[0] < 0.5 * sr and rms[1] < 0.2


def test_both_backends_agree():
    d = Diagram("ukf")
    d.add(Sine(amplitude=0.3, frequency=0.5), name="s")
    d.add(ZOH(clock=0.05), name="z")
    d.connect("s", "z")
    d.add(Constant(0.1), name="tau")
    d.add(Constant(np.array([1.0, 0.2])), name="vw")
    d.add(Constant(np.array([0.5, 0.4])), name="pos")
    pend = d.add(UnscentedKalmanFilter("pendulum", [1e-4, 1e-3], 0.01, dt=0.05), name="pend")
    d.connect("tau", pend["u"])
    d.connect("z", pend["z"])
    uni = d.add(UnscentedKalmanFilter("unicycle", [1e-3, 1e-3, 1e-4], [0.01, 0.01],
                                      x0=[0.0, 0.0, 0.1], dt=0.05), name="uni")
    d.connect("vw", uni["u"])
    d.connect("pos", uni["z"])
    # (one kernel serves every model: these two cover scalar and vector ports; a model
    # without input is the KalmanFilter's case, compared on both back-ends there)
    assert_backends_agree(d, T=1.0, dt=0.05)


def test_bad_parameters_are_refused():
    with pytest.raises(BlockParameterError, match=r"'model'.*'pendulum'"):
        UnscentedKalmanFilter("pendulm", [1.0, 1.0], 1.0, dt=0.1)
    with pytest.raises(BlockParameterError, match="needs the matrices"):
        UnscentedKalmanFilter("linear", [1.0, 1.0], 1.0, dt=0.1)
    with pytest.raises(BlockParameterError, match="'A' is for model 'linear' only"):
        UnscentedKalmanFilter("pendulum", [1.0, 1.0], 1.0, dt=0.1, A=np.eye(2))
    with pytest.raises(BlockParameterError, match=r"'model_params'.*takes 4"):
        UnscentedKalmanFilter("pendulum", [1.0, 1.0], 1.0, dt=0.1, model_params=[1.0] * 5)
    with pytest.raises(BlockParameterError, match=r"'model_params'.*l and m must be > 0"):
        UnscentedKalmanFilter("pendulum", [1.0, 1.0], 1.0, dt=0.1, model_params=[9.81, 0.0])
    with pytest.raises(BlockParameterError, match="'R' must be positive definite"):
        UnscentedKalmanFilter("pendulum", [1.0, 1.0], 0.0, dt=0.1)
    with pytest.raises(BlockParameterError, match="alpha, beta, kappa"):
        UnscentedKalmanFilter("pendulum", [1.0, 1.0], 1.0, dt=0.1, kappa=-2.0)


def _py_pendulum(x, u, mp, dt):
    """The library pendulum without damping, in Python (g, l; m = 1)."""
    g, ell = mp

    def rate(s):
        return np.array([s[1], -g / ell * math.sin(s[0]) + u[0] / ell**2])

    h = dt / 10
    for _ in range(10):
        k1 = rate(x)
        k2 = rate(x + 0.5 * h * k1)
        k3 = rate(x + 0.5 * h * k2)
        k4 = rate(x + h * k3)
        x = x + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return x


def test_a_registered_python_model_runs_interpreted_and_is_refused_compiled():
    from blocksim import simulate
    from blocksim.engine.compiled.failures import CompileError
    from blocksim.io import dumps, loads
    from blocksim.robotics.control import register_model

    register_model("test_py_pendulum", _py_pendulum, lambda x, u, mp: x[:1], 2, 1, 1,
                   params={"g": 9.81, "l": 1.0})
    kw = dict(Q=[1e-4, 1e-3], R=0.01, dt=0.05, x0=[0.3, 0.1])
    mine = UnscentedKalmanFilter("test_py_pendulum", model_params=[9.81, 0.7], **kw)
    lib = UnscentedKalmanFilter("pendulum", model_params=[9.81, 0.7, 1.0, 0.0], **kw)
    ins = (lambda k: 0.1), (lambda k: 0.2 + 0.01 * k)
    for (xa, Pa), (xb, Pb) in zip(_run(mine, 20, *ins), _run(lib, 20, *ins)):
        np.testing.assert_allclose(xa, xb, rtol=0, atol=1e-13)
        np.testing.assert_allclose(Pa, Pb, rtol=0, atol=1e-13)
    d = Diagram("registered")
    d.add(mine, name="ukf")
    d.add(Constant(0.1), name="tau")
    d.add(Constant(0.2), name="z")
    d.connect("tau", "ukf.u")
    d.connect("z", "ukf.z")
    back = loads(dumps(d)).diagram  # a file names the registered model
    np.testing.assert_array_equal(simulate(back, 0.2)["ukf.xhat"], simulate(d, 0.2)["ukf.xhat"])
    with pytest.raises(CompileError, match=r"ukf \(UnscentedKalmanFilter\): has no compiled"):
        simulate(d, 0.2, backend="compiled")
    with pytest.raises(ValueError, match="library model"):
        register_model("pendulum", _py_pendulum, lambda x, u, mp: x[:1], 2, 1, 1)
