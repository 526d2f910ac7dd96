"""MPC: unconstrained, its move is the finite-horizon LQR's first gain; constrained, its QP
solution equals scipy's SLSQP on the same problem built independently (a rollout of the model,
1e-6); the double-integrator example respects its input and velocity bounds, settles at the
target, solves every QP, and runs the same on both back-ends; non-convergence and
infeasibility are reported in the status output; bad parameters are refused."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from blocksim.blocks.control import MPC
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.control.lqr import finite_horizon_lqr
from blocksim.robotics.control.mpc import mpc_solve

from ...examples_loader import load_example
from ..backends import assert_backends_agree

DT = 0.1
A = np.array([[1.0, DT, 0.0], [0.0, 1.0, DT], [0.0, 0.0, 0.9]])
B = np.array([[0.0, 0.0], [DT, 0.0], [0.05, DT]])
Q = np.diag([4.0, 1.0, 0.5])
R = np.diag([0.1, 0.2])
QF = np.diag([10.0, 2.0, 1.0])
X0 = np.array([2.0, -0.5, 1.0])


def test_unconstrained_it_is_the_finite_horizon_lqr():
    K, _P = finite_horizon_lqr(A, B, Q, R, 8, QF)
    mpc = MPC(A, B, Q, R, N=8, dt=DT, Qf=QF)
    for x in (X0, np.array([-1.0, 0.3, 0.0]), np.array([0.1, 0.2, -3.0])):
        u, status = mpc.output(0.0, mpc.x0, [x])
        assert status == 0.0
        np.testing.assert_allclose(u, -K[0] @ x, rtol=1e-10, atol=1e-10)
    # with a state reference that is an equilibrium (position only: A x_r = x_r)
    ref = MPC(A, B, Q, R, N=8, dt=DT, Qf=QF, x_ref=[1.5, 0.0, 0.0])
    u, _s = ref.output(0.0, ref.x0, [X0])
    np.testing.assert_allclose(u, -K[0] @ (X0 - [1.5, 0.0, 0.0]), rtol=1e-10, atol=1e-10)


def _scipy_reference(x0, N, umin, umax, xmin, xmax, x_ref):
    """The same MPC problem from a rollout of the model, solved by SLSQP."""
    m = B.shape[1]

    def rollout(U):
        xs, x = [], x0
        for k in range(N):
            x = A @ x + B @ U[k * m:(k + 1) * m]
            xs.append(x)
        return np.array(xs)

    def cost(U):
        X = rollout(U) - x_ref
        J = (x0 - x_ref) @ Q @ (x0 - x_ref)
        J += sum(X[k] @ Q @ X[k] for k in range(N - 1)) + X[-1] @ QF @ X[-1]
        return J + sum(U[k * m:(k + 1) * m] @ R @ U[k * m:(k + 1) * m] for k in range(N))

    # the predictions are affine in U: their Jacobian, column by column, from rollouts
    X0 = rollout(np.zeros(N * m)).ravel()
    J = np.array([rollout(e).ravel() - X0 for e in np.eye(N * m)]).T
    cons = [{"type": "ineq", "fun": lambda U: (xmax - rollout(U)).ravel(), "jac": lambda U: -J},
            {"type": "ineq", "fun": lambda U: (rollout(U) - xmin).ravel(), "jac": lambda U: J}]
    W = np.kron(np.eye(N), Q)  # the weights of x_1..x_N, and of the inputs
    W[-3:, -3:] = QF
    Rb = np.kron(np.eye(N), R)

    def grad(U):
        return 2.0 * J.T @ W @ (rollout(U).ravel() - np.tile(x_ref, N)) + 2.0 * Rb @ U

    box = [(umin[i % m], umax[i % m]) for i in range(N * m)]
    res = minimize(cost, np.zeros(N * m), jac=grad, method="SLSQP", bounds=box,
                   constraints=cons, options={"ftol": 1e-15, "maxiter": 1000})
    assert res.success, res.message
    return res.x


def test_constrained_it_matches_scipy_on_the_same_qp():
    N = 10
    umin, umax = np.array([-1.0, -0.5]), np.array([1.0, 0.3])
    xmin, xmax = np.array([-10.0, -0.8, -10.0]), np.array([10.0, 0.4, 0.9])
    x_ref = np.array([1.0, 0.0, 0.0])
    mpc = MPC(A, B, Q, R, N=N, dt=DT, Qf=QF, u_min=umin, u_max=umax, x_min=xmin, x_max=xmax,
              x_ref=x_ref, tol=1e-10)
    qp = mpc.qp
    U, status, iters = mpc_solve(X0, qp.H, qp.F, qp.f_r, qp.G, qp.h0, qp.E, 1e-10, 100)
    assert status == 0 and 0 < iters < 40
    ref = _scipy_reference(X0, N, umin, umax, xmin, xmax, x_ref)
    np.testing.assert_allclose(U, ref, rtol=0, atol=1e-6)
    active = np.isclose(U, np.tile(umax, N)) | np.isclose(U, np.tile(umin, N))
    assert active.any()  # the bounds matter here
    u, s = mpc.output(0.0, mpc.x0, [X0])
    np.testing.assert_allclose(u, U[:2], rtol=0, atol=1e-9)
    assert s == 0.0


def test_double_integrator_example_respects_bounds_on_both_backends():
    ex = load_example("mpc_double_integrator")
    res = ex.main(T=6.0, rtol=1e-9, atol=1e-12)
    assert np.all(res["mpc.status"] == 0.0)
    assert np.max(np.abs(res["mpc.u"])) <= ex.U_MAX  # clipped: exactly within
    assert np.max(np.abs(res["mpc.u"])) == pytest.approx(ex.U_MAX)  # saturated at first
    assert np.max(res["plant.y"][:, 1]) <= ex.V_MAX + 1e-6  # an exact model: within tol
    assert res["plant.y"][-1, 0] == pytest.approx(ex.TARGET, abs=1e-4)
    assert np.max(res["plant.y"][:, 0]) < ex.TARGET + 1e-2
    assert_backends_agree(ex.build(), T=1.0, dt=0.01)


def test_non_convergence_and_infeasibility_are_reported():
    x = np.array([0.0, 1.0, 0.0])
    short = MPC(A, B, Q, R, N=5, dt=DT, u_min=-0.1, u_max=0.1, max_iter=1)
    u, status = short.output(0.0, short.x0, [x])
    assert status == 1.0 and np.all(np.abs(u) <= 0.1)
    # velocity 1 m/s cannot be brought under 0.2 m/s in one step with |u| <= 0.1
    infeasible = MPC(A, B, Q, R, N=5, dt=DT, u_min=-0.1, u_max=0.1, x_max=[9.0, 0.2, 9.0])
    u, status = infeasible.output(0.0, infeasible.x0, [x])
    assert status != 0.0 and np.all(np.abs(u) <= 0.1)


def test_bad_parameters_are_refused():
    with pytest.raises(BlockParameterError, match="'N' must be an integer >= 1"):
        MPC(A, B, Q, R, N=0, dt=DT)
    with pytest.raises(BlockParameterError, match="'R' must be positive definite"):
        MPC(A, B, Q, np.zeros((2, 2)), N=5, dt=DT)
    with pytest.raises(BlockParameterError, match="'u_min' must be <= 'u_max'"):
        MPC(A, B, Q, R, N=5, dt=DT, u_min=1.0, u_max=[2.0, 0.5])
    with pytest.raises(BlockParameterError, match="'x_max' must be 3 numbers"):
        MPC(A, B, Q, R, N=5, dt=DT, x_max=[1.0, 2.0])
    with pytest.raises(BlockParameterError, match="'dt' is required"):
        MPC(A, B, Q, R, N=5)
    with pytest.raises(BlockParameterError, match="more than this dense solver"):
        MPC(A, B, Q, R, N=500, dt=DT)
