"""StateFeedback: an LQR-stabilised double integrator decays as expm((A - B K) t) x0 (so its
closed-loop poles are eig(A - B K), python-control's), a reference with the feedforward N
settles at r; both back-ends agree; bad gains are refused naming the parameter."""

from __future__ import annotations

import control
import numpy as np
import pytest
from scipy.linalg import expm

from blocksim import Diagram, simulate
from blocksim.blocks import Constant, StateSpace
from blocksim.blocks.control import StateFeedback
from blocksim.engine.errors import BlockParameterError

from ..backends import assert_backends_agree

A = np.array([[0.0, 1.0], [0.0, 0.0]])
B = np.array([[0.0], [1.0]])
X0 = np.array([1.0, -0.5])


def _loop(K, N=None, r=None, x_ref=None):
    d = Diagram("lqr")
    plant = d.add(StateSpace(A, B, np.eye(2), np.zeros((2, 1)), x0=X0), name="plant")
    sf = d.add(StateFeedback(K, N=N, x_ref=x_ref), name="sf")
    d.connect(plant, sf["x"])
    d.connect(sf, plant)
    if N is not None:
        d.connect(d.add(Constant(r), name="r"), sf["r"])
    return d


def test_lqr_double_integrator_decays_with_the_closed_loop_poles_on_both_backends():
    K, _S, E = control.lqr(A, B, np.diag([1.0, 0.1]), [[0.01]])
    np.testing.assert_allclose(np.sort_complex(np.linalg.eigvals(A - B @ K)), np.sort_complex(E),
                               atol=1e-10)
    assert np.all(E.real < 0)
    res = simulate(_loop(K), 3.0, rtol=1e-10, atol=1e-12)
    exact = np.array([expm((A - B @ K) * t) @ X0 for t in res.t])
    np.testing.assert_allclose(res["plant.y"], exact, atol=1e-7)
    np.testing.assert_allclose(res["sf.u"], -(exact @ K.T)[:, 0], atol=1e-6)
    assert_backends_agree(_loop(K), T=1.0, dt=0.01)


def test_reference_feedforward_and_state_reference():
    K, _S, _E = control.lqr(A, B, np.eye(2), [[1.0]])
    Acl = A - B @ K
    C = np.array([[1.0, 0.0]])
    N = -1.0 / (C @ np.linalg.solve(Acl, B))  # unit DC gain from r to position
    res = simulate(_loop(K, N=N, r=2.0), 20.0, rtol=1e-9, atol=1e-12)
    assert res["plant.y"][-1, 0] == pytest.approx(2.0, abs=1e-4)
    res = simulate(_loop(K, x_ref=[-1.0, 0.0]), 20.0, rtol=1e-9, atol=1e-12)
    assert res["plant.y"][-1, 0] == pytest.approx(-1.0, abs=1e-4)
    sf = StateFeedback([[1.0, 2.0], [0.0, 1.0]], N=[1.0, 0.5], x_ref=[1.0, 0.0])
    u = sf.output(0.0, sf.x0, [np.array([2.0, 1.0]), 4.0])[0]
    np.testing.assert_array_equal(u, [-3.0 + 4.0, -1.0 + 2.0])


def test_bad_gains_are_refused():
    with pytest.raises(BlockParameterError, match="'N'"):
        StateFeedback([[1.0, 2.0]], N=[[1.0], [2.0]])
    with pytest.raises(BlockParameterError, match="'x_ref'"):
        StateFeedback([[1.0, 2.0]], x_ref=[1.0, 2.0, 3.0])
    with pytest.raises(BlockParameterError, match="'K'"):
        StateFeedback([[1.0, np.nan]])
