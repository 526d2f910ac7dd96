"""Serial-link arm dynamics: inertia, Coriolis, gravity, friction, forward dynamics.

numba kernels (``*_nb``) over the packed kinematics ``kin``
(:func:`~blocksim.robotics.arm.kinematics.pack_kinematics`) and the dynamics rows ``dyn`` of an
:class:`~blocksim.robotics.arm.layout.ArmArrays`, the forward-dynamics integrator :func:`fdyn`
and :func:`nofriction`. The user-facing methods (input shapes, trajectories, defaults) are
:class:`~blocksim.robotics.arm.dynamics_methods.DynamicsMethods`, inherited by ``SerialLink``.
The recursion and its conventions live in :mod:`blocksim.robotics.arm.dynamics_rne`: RTB's
``gravity`` (upward equivalent, world frame, m/s^2), end wrench ``fext = [f; m]`` exerted by
the tool on the environment in the tool frame, rotor inertia ``G^2 Jm`` and friction on the
load side.

Model::

    tau = M(q) qdd + C(q, qd) qd + g(q) - friction(qd) + J_e(q)^T fext

* ``M`` includes the rotor inertias ``G^2 Jm`` on its diagonal (composite-rigid-body method,
  :func:`~blocksim.robotics.arm.world_frame.crba_into`);
* ``C`` is the Christoffel-symbol Coriolis matrix, so ``dM/dt - 2 C`` is skew-symmetric (RTB
  splits the quadratic form differently; ``C @ qd`` is the same);
* ``friction(qd) = -(G^2 B qd + |G| Tc±)`` opposes the motion (RTB ``Link.friction``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from .dynamics_rne import (
    add_motor_friction,
    as_rows,
    base_acceleration,
    friction_nb,
    rne_nb,
    rne_rows,
)
from .layout import BV, TCN, TCP, ArmArrays
from .world_frame import SCRATCH, crba_into, is_dh_chain

__all__ = ["accel_nb", "chol_solve", "cinertia_from", "coriolis_nb", "crba_into", "fdyn",
           "friction_nb", "inertia_nb", "nofriction", "rne_nb", "rne_rows"]

_ZERO6 = np.zeros(6)


# ---------------------------------------------------------------------------------------------
# kernels


@njit(cache=True)
def inertia_nb(kin, dyn, q):
    """Joint-space inertia matrix (n, n), or (m, n, n) for q (m, n) (kg m^2, kg m, kg).

    Rotor inertias ``G^2 Jm`` are on the diagonal.
    """
    n = int(kin[0])
    Q = as_rows(q, n)
    if dyn.shape[0] != n:
        raise ValueError("inertia: dyn must have one row per joint (robot.n)")
    S = np.empty((n, SCRATCH))
    out = np.empty((Q.shape[0], n, n))
    dh = is_dh_chain(kin)
    rows = dyn.reshape(dyn.size)
    for k in range(Q.shape[0]):
        crba_into(kin, rows, 0, Q[k], out[k], S, dh)
    return out.reshape(q.shape[:-1] + (n, n))  # noqa: RUF005 (numba: no tuple unpacking)


@njit(cache=True)
def coriolis_nb(kin, dyn, q, qd):
    """Coriolis matrix C(q, qd) (n, n), or (m, n, n) for q, qd (m, n).

    Column j of C is the bilinear RNE term ``b(qd, e_j)`` (Christoffel symbols of M), so
    ``C @ qd`` is the velocity-product torque; no gravity, friction or rotor terms.
    """
    n = int(kin[0])
    Q, QD = as_rows(q, n), as_rows(qd, n)
    m = Q.shape[0]
    if QD.shape[0] != m:
        raise ValueError("coriolis: q and qd must have the same number of rows")
    rows = np.empty((m * n, n))
    rates = np.empty((m * n, n))
    units = np.zeros((m * n, n))
    for k in range(m):
        for j in range(n):
            for i in range(n):                  # element-wise: no shape-checking slices
                rows[k * n + j, i] = Q[k, i]
                rates[k * n + j, i] = QD[k, i]
            units[k * n + j, j] = 1.0
    cols = np.empty((m * n, n))
    rne_rows(kin, dyn, rows, rates, units, np.zeros((m * n, n)), (0.0, 0.0, 0.0),
             np.zeros((1, 6)), cols)
    out = np.empty((m, n, n))
    for k in range(m):
        for j in range(n):
            for i in range(n):
                out[k, i, j] = cols[k * n + j, i]
    return out.reshape(q.shape[:-1] + (n, n))  # noqa: RUF005 (numba: no tuple unpacking)


@njit(cache=True)
def chol_solve(M, b):
    """Solve ``M x = b`` in place for a symmetric positive-definite M (Cholesky); returns b."""
    n = b.shape[0]
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= M[j, k] * M[j, k]
        if not s > 0.0:
            raise ValueError("accel: the inertia matrix is not positive definite (a link or "
                             "joint without inertia, or non-finite q)")
        d = np.sqrt(s)
        M[j, j] = d
        for i in range(j + 1, n):
            s = M[i, j]
            for k in range(j):
                s -= M[i, k] * M[j, k]
            M[i, j] = s / d
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= M[i, k] * b[k]
        b[i] = s / M[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= M[k, i] * b[k]
        b[i] = s / M[i, i]
    return b


@njit(cache=True)
def accel_nb(kin, dyn, q, qd, tau, gravity, fext):
    """Forward dynamics: qdd = M(q)^-1 (tau - rne(q, qd, 0)), shape of ``q`` (rad/s^2, m/s^2).

    q, qd, tau (n,) or (m, n); friction, rotor inertia, gravity (3,) and the end wrench fext
    (6,), (1, 6) or (m, 6) as :func:`rne_nb`. Walker and Orin's method 1, with the inertia
    matrix from the composite-rigid-body method and a Cholesky solve (no inverse formed).
    """
    n = int(kin[0])
    Q, QD, TAU = as_rows(q, n), as_rows(qd, n), as_rows(tau, n)
    if TAU.shape[0] != Q.shape[0]:
        raise ValueError("accel: q, qd and tau must have the same number of rows")
    M = inertia_nb(kin, dyn, Q)
    h = np.empty(Q.shape)
    zero = np.zeros(Q.shape)
    rne_rows(kin, dyn, Q, QD, QD, zero, base_acceleration(kin, gravity),
             as_rows(fext, np.int64(6)), h)  # int64, as every other as_rows call
    add_motor_friction(dyn, QD, zero, h)
    for k in range(Q.shape[0]):
        for i in range(n):
            h[k, i] = TAU[k, i] - h[k, i]
        chol_solve(M[k], h[k])
    return h.reshape(q.shape)


# ---------------------------------------------------------------------------------------------
# Python-level helpers (the SerialLink methods are in dynamics_methods.DynamicsMethods)


def cinertia_from(M: np.ndarray, J: np.ndarray) -> np.ndarray:
    """Cartesian (operational-space) inertia ``J^-T M J^-1`` (6, 6) from M and J (6, 6).

    Two linear solves, no explicit inverse. With RTB's ``jacob0`` (rows ``[v; omega]``, world
    frame) the result maps the end-effector acceleration ``[a; alpha]`` to the wrench
    ``[f; m]`` (kg, kg m, kg m^2 blocks). Raises ``LinAlgError`` at a singular J.
    """
    J = np.asarray(J, dtype=float)
    M = np.asarray(M, dtype=float)
    if J.ndim != 2 or J.shape[0] != J.shape[1] or M.shape != J.shape:
        raise ValueError(f"cinertia needs a square Jacobian and inertia (a 6-joint arm), got "
                         f"J {J.shape} and M {M.shape}")
    Y = np.linalg.solve(J.T, M)                 # J^-T M
    out = np.linalg.solve(J.T, Y.T).T           # (J^-T (J^-T M)^T)^T = J^-T M J^-1
    return 0.5 * (out + out.T)


def fdyn(kin: np.ndarray, dyn: np.ndarray, gravity: np.ndarray, T: float, q0: np.ndarray,
         qd0: np.ndarray, torque: Callable | np.ndarray | None = None, *,
         fext: np.ndarray | None = None, method: str = "RK45", rtol: float = 1e-6,
         atol: float = 1e-9, t_eval=None, max_step: float = np.inf):
    """Integrate the forward dynamics from t = 0 to T with :func:`scipy.integrate.solve_ivp`.

    The state is ``[q; qd]`` and its derivative ``[qd; accel_nb(q, qd, tau)]``.

    Parameters
    ----------
    kin, dyn : packed kinematics and dynamics rows (see :func:`rne_nb`)
    gravity : (3,), upward-equivalent gravity (m/s^2)
    T : float, final time (s)
    q0, qd0 : (n,), initial joint coordinates and rates
    torque : callable ``torque(t, q, qd) -> (n,)``, array (n,) or None
        Applied joint torques/forces (N m, N): a function of time and state (RTB's
        ``torqfun`` without the robot argument), a constant, or zero.
    fext : (6,), optional; constant end wrench in the tool frame (as :func:`rne_nb`)
    method, rtol, atol, t_eval, max_step : passed to ``solve_ivp``

    Returns
    -------
    t : (N,) s; q : (N, n); qd : (N, n)
    """
    from scipy.integrate import solve_ivp

    n = int(kin[0])
    f = _ZERO6 if fext is None else np.ascontiguousarray(fext, dtype=np.float64).reshape(6)
    if torque is None or not callable(torque):
        tau_const = (np.zeros(n) if torque is None
                     else np.ascontiguousarray(torque, dtype=np.float64).reshape(n))

        def tau_of(t, q, qd):
            return tau_const
    else:
        def tau_of(t, q, qd):
            return np.ascontiguousarray(torque(t, q, qd), dtype=np.float64).reshape(n)

    def rhs(t, x):
        q = x[:n]
        qd = x[n:]
        tau = tau_of(t, q, qd)
        qdd = accel_nb(kin, dyn, q, qd, tau, gravity, f)
        if not np.isfinite(qdd).all():          # scipy's step control would loop on NaN
            raise RuntimeError(f"fdyn: non-finite acceleration {qdd} at t = {t:.6g} s "
                               f"(q = {q}, qd = {qd}, torque = {tau})")
        return np.concatenate((qd, qdd))

    x0 = np.concatenate((np.asarray(q0, dtype=float).reshape(n),
                         np.asarray(qd0, dtype=float).reshape(n)))
    sol = solve_ivp(rhs, (0.0, float(T)), x0, method=method, rtol=rtol, atol=atol,
                    t_eval=t_eval, max_step=max_step)
    if sol.status != 0:
        raise RuntimeError(f"fdyn: integration failed at t = {sol.t[-1]:.6g} s: {sol.message}")
    return sol.t, sol.y[:n].T.copy(), sol.y[n:].T.copy()


def nofriction(arrays: ArmArrays, which: str = "coulomb") -> ArmArrays:
    """A copy of ``arrays`` without friction.

    ``which``: ``"coulomb"`` (default, as RTB) zeroes Tc+ and Tc-, ``"viscous"`` zeroes B,
    ``"all"`` both.
    """
    cols = {"coulomb": (TCP, TCN), "viscous": (BV,), "all": (BV, TCP, TCN)}
    if which not in cols:
        raise ValueError(f"nofriction: which must be one of {sorted(cols)}, got {which!r}")
    out = arrays.copy()
    out.dyn[:, list(cols[which])] = 0.0
    return out
