"""The control-design examples: the cart-pole's gain is python-control's LQR of its
linearisation, the nonlinear loop from a small tilt follows the linear closed loop and from
0.2 rad comes back upright; the quadrotor's hover linearisation has the expected structure,
its gain is the LQR of it and the loop settles at the hover without saturating a rotor (the
Kalman filter and MPC examples are tested with their blocks, tests/blocks/control)."""

from __future__ import annotations

import control
import numpy as np
import pytest
from scipy.linalg import expm

from blocksim import simulate

from .examples_loader import load_example


def test_cartpole_gain_is_the_lqr_of_the_linearisation_and_the_loop_balances():
    ex = load_example("cartpole_lqr")
    A, B = ex.linearization()
    K, _S, E = control.lqr(A, B, np.diag(ex.Q_WEIGHTS), [[ex.R_WEIGHT]])
    np.testing.assert_allclose(ex.K, K, rtol=1e-9)
    assert np.all(E.real < 0)
    # a small tilt: the nonlinear plant built from blocks follows the linear closed loop
    d = ex.build()
    x0 = np.array([0.0, 1e-3, 0.0, 0.0])
    d["x"].x0 = x0
    res = simulate(d, 4.0, rtol=1e-10, atol=1e-13)
    lin = np.array([expm((A - B @ np.array(ex.K)) * t) @ x0 for t in res.t])
    np.testing.assert_allclose(res["x.y"], lin, atol=2e-6 * np.max(np.abs(lin)))
    # the example's 0.2 rad: balanced, cart back home
    res = ex.main(T=10.0, rtol=1e-8, atol=1e-10)
    assert np.max(np.abs(res["x.y"][-1])) < 1e-3
    assert np.max(np.abs(res["x.y"][:, 1])) <= 0.2 + 1e-12


def test_quadrotor_hover_lqr_gain_linearisation_and_settling():
    ex = load_example("quadrotor_hover_lqr")
    A, B = ex.hover_linearization()
    # the structure of the hover linearisation: integrators, tilt -> sideways g, 1/M and J^-1
    np.testing.assert_allclose(A[:6, 6:], np.eye(6), atol=1e-8)
    assert A[6, 4] == pytest.approx(-ex.G, rel=1e-6) and A[7, 3] == pytest.approx(ex.G, rel=1e-6)
    assert B[8, 0] == pytest.approx(-1.0 / ex.MASS, rel=1e-6)
    np.testing.assert_allclose(np.diag(B[9:, 1:]), 1.0 / np.array([0.082, 0.082, 0.149]),
                               rtol=1e-6)
    K, _S, E = control.lqr(A, B, np.diag(ex.Q_WEIGHTS), np.diag(ex.R_WEIGHTS))
    np.testing.assert_allclose(ex.K, K, rtol=0, atol=1e-6)
    assert np.all(E.real < 0)
    res = ex.main(T=10.0)
    np.testing.assert_allclose(res["plant.x"][-1], ex.hover_state(), atol=2e-3)
    assert not res["mixer.saturated"].any()
