r"""Linear MPC: the condensed quadratic program of a horizon, and its solution per step.

Model ``x[k+1] = A x[k] + B u[k]`` (x (n,), u (m,)); over a horizon of ``N`` steps from the
measured ``x_0`` the decision is ``U = (u_0, ..., u_{N-1})`` (N m,) and the cost

.. math::

    J = \sum_{k=0}^{N-1} \left[(x_k - x_r)^T Q (x_k - x_r) + u_k^T R u_k\right]
        + (x_N - x_r)^T Q_f (x_N - x_r)

subject to ``u_min <= u_k <= u_max`` (k = 0..N-1) and ``x_min <= x_k <= x_max``
(k = 1..N; ``x_0`` is measured). The predictions are ``X = (x_1..x_N) = S_x x_0 + S_u U``
(``S_x`` stacks ``A^k``, ``S_u`` the blocks ``A^{i-j} B``), so, dropping constants and a
factor 2, ``J = 1/2 U^T H U + (F x_0 - f_r)^T U`` with ``H = S_u^T Qbar S_u + Rbar``,
``F = S_u^T Qbar S_x``, ``f_r = S_u^T Qbar X_r``; the constraints are ``G U <= h_0 + E x_0``,
one row per finite bound (:func:`condense`). :func:`mpc_solve` solves it each step with
:func:`~blocksim.robotics.control.qp.qp_solve`; the receding-horizon control is ``u_0``.

Without constraints the solution is linear, ``u_0 = -K_0 (x_0 - x_r)`` (for an equilibrium
``x_r``) with ``K_0`` the first gain of the finite-horizon LQR
(:func:`~blocksim.robotics.control.lqr.finite_horizon_lqr`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from blocksim.robotics.control.dense import mv
from blocksim.robotics.control.qp import qp_solve

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["CondensedMPC", "condense", "mpc_solve"]


@dataclass(frozen=True)
class CondensedMPC:
    """The condensed QP of a linear MPC (see the module docstring).

    Attributes
    ----------
    H : ndarray (N m, N m)
        Hessian.
    F : ndarray (N m, n)
        Linear term per measured state: ``f = F x_0 - f_r``.
    f_r : ndarray (N m,)
        Linear term of the reference.
    G : ndarray (nc, N m)
        Constraint rows (finite bounds only).
    h0 : ndarray (nc,)
        Constraint bounds at ``x_0 = 0``.
    E : ndarray (nc, n)
        Their dependence on ``x_0``: ``G U <= h0 + E x_0``.
    """

    H: np.ndarray
    F: np.ndarray
    f_r: np.ndarray
    G: np.ndarray
    h0: np.ndarray
    E: np.ndarray


def condense(A: np.ndarray, B: np.ndarray, Q: np.ndarray, R: np.ndarray, N: int,
             Qf: np.ndarray, x_ref: np.ndarray, u_min: np.ndarray, u_max: np.ndarray,
             x_min: np.ndarray, x_max: np.ndarray) -> CondensedMPC:
    """The condensed QP of the MPC problem.

    Parameters
    ----------
    A, B : ndarray (n, n), (n, m)
        Discrete model.
    Q, R, Qf : ndarray (n, n), (m, m), (n, n)
        Stage state, stage input and terminal weights.
    N : int
        Horizon [steps].
    x_ref : ndarray (n,)
        State reference.
    u_min, u_max : ndarray (m,)
        Input bounds (+-inf: none).
    x_min, x_max : ndarray (n,)
        State bounds on x_1..x_N (+-inf: none).

    Returns
    -------
    CondensedMPC
    """
    n, m = B.shape
    Sx = np.zeros((N * n, n))
    Su = np.zeros((N * n, N * m))
    Ak = np.eye(n)
    powers = []  # A^0 .. A^(N-1)
    for k in range(N):
        powers.append(Ak)
        Ak = A @ Ak
        Sx[k * n:(k + 1) * n] = Ak
    for i in range(N):
        for j in range(i + 1):
            Su[i * n:(i + 1) * n, j * m:(j + 1) * m] = powers[i - j] @ B
    Qbar = np.kron(np.eye(N), Q)
    Qbar[(N - 1) * n:, (N - 1) * n:] = Qf
    Rbar = np.kron(np.eye(N), R)
    H = Su.T @ Qbar @ Su + Rbar
    H = 0.5 * (H + H.T)
    F = Su.T @ Qbar @ Sx
    f_r = Su.T @ Qbar @ np.tile(x_ref, N)
    rows, h0, E = [], [], []
    eye = np.eye(N * m)
    for k in range(N):
        for i in range(m):
            r = k * m + i
            if np.isfinite(u_max[i]):
                rows.append(eye[r]), h0.append(u_max[i]), E.append(np.zeros(n))
            if np.isfinite(u_min[i]):
                rows.append(-eye[r]), h0.append(-u_min[i]), E.append(np.zeros(n))
    for k in range(N):
        for i in range(n):
            r = k * n + i
            if np.isfinite(x_max[i]):
                rows.append(Su[r]), h0.append(x_max[i]), E.append(-Sx[r])
            if np.isfinite(x_min[i]):
                rows.append(-Su[r]), h0.append(-x_min[i]), E.append(Sx[r])
    G = np.array(rows).reshape(-1, N * m)
    c = np.ascontiguousarray
    return CondensedMPC(c(H), c(F), c(f_r), c(G), c(np.array(h0, dtype=float)),
                        c(np.array(E).reshape(-1, n)))


@_njit
def mpc_solve(x0, H, F, f_r, G, h0, E, tol, max_iter):
    """The optimal input sequence from the measured state ``x0`` (n,).

    Returns ``(U (N m,), status, iterations)`` of
    :func:`~blocksim.robotics.control.qp.qp_solve` on the condensed QP (the arrays of
    :class:`CondensedMPC`)."""
    return qp_solve(H, mv(F, x0) - f_r, G, h0 + mv(E, x0), tol, max_iter)
