"""The control-design examples: the cart-pole's gain is python-control's LQR of its
linearisation, the nonlinear loop from a small tilt follows the linear closed loop and from
0.2 rad comes back upright; (the Kalman filter and MPC examples are tested with their blocks,
tests/blocks/control)."""

from __future__ import annotations

import control
import numpy as np
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
