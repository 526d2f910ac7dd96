"""Serial-link arm dynamics: inertia, Coriolis, gravity, friction, forward dynamics.

numba kernels over the fields of :class:`~blocksim.robotics.arm.layout.ArmArrays` (``*_nb``)
and thin functions taking an ``ArmArrays`` (same names without the suffix). The recursion and
its conventions live in :mod:`blocksim.robotics.arm.dynamics_rne`: RTB's ``gravity`` (upward
equivalent, world frame, m/s^2), end wrench ``fext = [f; m]`` exerted by the tool on the
environment in the tool frame, rotor inertia ``G^2 Jm`` and friction on the load side.

Model::

    tau = M(q) qdd + C(q, qd) qd + g(q) - friction(qd) + J_e(q)^T fext

* ``M`` includes the rotor inertias ``G^2 Jm`` on its diagonal (composite-rigid-body method);
* ``C`` is the Christoffel-symbol Coriolis matrix, so ``dM/dt - 2 C`` is skew-symmetric (RTB
  splits the quadratic form differently; ``C @ qd`` is the same);
* ``friction(qd) = -(G^2 B qd + |G| Tc±)`` opposes the motion (RTB ``Link.friction``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from blocksim.robotics.arm.dynamics_rne import (
    _add,
    _cross,
    _inertia_mul,
    _rot,
    add_motor_friction,
    base_acceleration,
    friction_nb,
    joint_axis,
    joint_lever,
    joint_torque,
    link_transforms,
    rne_core,
    rne_nb,
    rne_traj_nb,
)
from blocksim.robotics.arm.layout import BV, GR, JM, RX, RY, RZ, TCN, TCP, ArmArrays
from blocksim.robotics.arm.layout import M as MASS

__all__ = [
    "accel",
    "accel_nb",
    "cinertia",
    "coriolis",
    "coriolis_nb",
    "fdyn",
    "friction",
    "friction_nb",
    "gravload",
    "inertia",
    "inertia_nb",
    "itorque",
    "nofriction",
    "rne",
    "rne_nb",
    "rne_traj_nb",
]

_ZERO3 = np.zeros(3)
_ZERO6 = np.zeros(6)


# ---------------------------------------------------------------------------------------------
# kernels


@njit(cache=True)
def crba(sigma, B, dyn, R, p, M):
    """Joint-space inertia by the composite-rigid-body method; writes ``M`` (n, n).

    Works in the link frames from :func:`link_transforms`; adds ``G^2 Jm`` on the diagonal.
    """
    n = R.shape[0]
    mc = np.empty(n)
    hc = np.empty((n, 3))        # first moment m c about origin i, frame i
    ic = np.empty((n, 3, 3))     # rotational inertia about origin i, frame i
    for i in range(n):
        m = dyn[i, MASS]
        rc = (dyn[i, RX], dyn[i, RY], dyn[i, RZ])
        rr = rc[0] * rc[0] + rc[1] * rc[1] + rc[2] * rc[2]
        mc[i] = m
        for r in range(3):
            hc[i, r] = m * rc[r]
            col = _inertia_mul(dyn, i, (1.0 * (r == 0), 1.0 * (r == 1), 1.0 * (r == 2)))
            for k in range(3):
                ic[i, k, r] = col[k] + m * ((rr if k == r else 0.0) - rc[k] * rc[r])
    for i in range(n - 1, 0, -1):
        # add the composite body of link i to its parent, in frame i-1 about origin i-1
        pp = (p[i, 0], p[i, 1], p[i, 2])
        h = _rot(R, i, (hc[i, 0], hc[i, 1], hc[i, 2]))
        ph = pp[0] * h[0] + pp[1] * h[1] + pp[2] * h[2]
        pp2 = pp[0] * pp[0] + pp[1] * pp[1] + pp[2] * pp[2]
        for r in range(3):
            for k in range(3):
                s = 0.0
                for a in range(3):
                    for b in range(3):
                        s += R[i, r, a] * ic[i, a, b] * R[i, k, b]
                diag = 2.0 * ph + mc[i] * pp2 if r == k else 0.0
                ic[i - 1, r, k] += (s + diag - pp[r] * h[k] - h[r] * pp[k]
                                    - mc[i] * pp[r] * pp[k])
            hc[i - 1, r] += h[r] + mc[i] * pp[r]
        mc[i - 1] += mc[i]
    for i in range(n):
        ax = joint_axis(B, i)
        h = (hc[i, 0], hc[i, 1], hc[i, 2])
        if sigma[i] == 0:
            v = _cross(ax, joint_lever(B, i))
            iw = (ic[i, 0, 0] * ax[0] + ic[i, 0, 1] * ax[1] + ic[i, 0, 2] * ax[2],
                  ic[i, 1, 0] * ax[0] + ic[i, 1, 1] * ax[1] + ic[i, 1, 2] * ax[2],
                  ic[i, 2, 0] * ax[0] + ic[i, 2, 1] * ax[1] + ic[i, 2, 2] * ax[2])
            nm = _add(iw, _cross(h, v))
            f = _add((mc[i] * v[0], mc[i] * v[1], mc[i] * v[2]), _cross(ax, h))
        else:
            nm = _cross(h, ax)
            f = (mc[i] * ax[0], mc[i] * ax[1], mc[i] * ax[2])
        g = dyn[i, GR]
        M[i, i] = joint_torque(sigma, B, i, nm, f) + g * g * dyn[i, JM]
        for j in range(i - 1, -1, -1):
            f = _rot(R, j + 1, f)
            nm = _add(_rot(R, j + 1, nm), _cross((p[j + 1, 0], p[j + 1, 1], p[j + 1, 2]), f))
            M[j, i] = M[i, j] = joint_torque(sigma, B, j, nm, f)


@njit(cache=True)
def inertia_nb(sigma, offset, A, B, dyn, q):
    """Joint-space inertia matrix M(q) (n, n) (kg m^2, kg), rotor inertias included."""
    n = q.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    M = np.empty((n, n))
    link_transforms(sigma, offset, A, B, q, R, p)
    crba(sigma, B, dyn, R, p, M)
    return M


@njit(cache=True)
def coriolis_nb(sigma, offset, A, B, tool, dyn, q, qd):
    """Coriolis/centripetal matrix C(q, qd) (n, n): column k is ``b(qd, e_k)`` (Christoffel).

    ``C @ qd`` is the velocity-product torque (no friction, no gravity).
    """
    n = q.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    F = np.empty((n, 3))
    N = np.empty((n, 3))
    C = np.empty((n, n))
    col = np.empty(n)
    e = np.zeros(n)
    zq = np.zeros(n)
    zf = np.zeros(6)
    link_transforms(sigma, offset, A, B, q, R, p)
    for k in range(n):
        e[k] = 1.0
        rne_core(sigma, A, B, tool, dyn, R, p, qd, e, zq, (0.0, 0.0, 0.0), zf, col, F, N)
        e[k] = 0.0
        for i in range(n):
            C[i, k] = col[i]
    return C


@njit(cache=True)
def chol_solve(M, b):
    """Solve ``M x = b`` in place for a symmetric positive-definite M (Cholesky); returns b."""
    n = b.shape[0]
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= M[j, k] * M[j, k]
        if not s > 0.0:
            raise ValueError("the inertia matrix is not positive definite")
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
def accel_nb(sigma, offset, A, B, base, tool, dyn, q, qd, tau, gravity, fext):
    """Forward dynamics: qdd (n,) = M(q)^-1 (tau - rne(q, qd, 0)) by Cholesky, no inverse.

    Friction, rotor inertia, gravity (3,) and the end wrench fext (6,) as :func:`rne_nb`.
    """
    n = q.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    F = np.empty((n, 3))
    N = np.empty((n, 3))
    M = np.empty((n, n))
    h = np.empty(n)
    zero = np.zeros(n)
    link_transforms(sigma, offset, A, B, q, R, p)
    crba(sigma, B, dyn, R, p, M)
    rne_core(sigma, A, B, tool, dyn, R, p, qd, qd, zero, base_acceleration(base, gravity),
             fext, h, F, N)
    add_motor_friction(dyn, qd, zero, h)
    for i in range(n):
        h[i] = tau[i] - h[i]
    return chol_solve(M, h)


# ---------------------------------------------------------------------------------------------
# functions over ArmArrays


def _f64(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _rows(x, n: int, name: str) -> np.ndarray:
    """``x`` as float64 C-contiguous of shape (n,) or (m, n)."""
    x = _f64(x)
    if x.ndim not in (1, 2) or x.shape[-1] != n:
        raise ValueError(f"{name}: expected shape ({n},) or (m, {n}), got {x.shape}")
    return x


def _same(*xs: np.ndarray) -> np.ndarray:
    """Broadcast a mix of (n,) and (m, n) arrays to a common (m, n)."""
    m = max(x.shape[0] if x.ndim == 2 else 1 for x in xs)
    out = []
    for x in xs:
        if x.ndim == 1 or x.shape[0] != m:
            if x.ndim == 2 and x.shape[0] != 1:
                raise ValueError(f"trajectory rows differ: {[y.shape for y in xs]}")
            x = np.ascontiguousarray(np.broadcast_to(x.reshape(1, -1), (m, x.shape[-1])))
        out.append(x)
    return out


def _gravity(arm: ArmArrays, gravity) -> np.ndarray:
    if gravity is None:
        return arm.gravity
    g = _f64(gravity).reshape(-1)
    if g.shape != (3,):
        raise ValueError(f"gravity: expected 3 elements, got {g.shape}")
    return g


def _fext(fext, m: int | None = None) -> np.ndarray:
    """fext as (6,) (single configuration) or (1 | m, 6) (trajectory)."""
    if fext is None:
        f = _ZERO6
    else:
        f = _f64(fext)
        if f.shape[-1] != 6 or f.ndim > 2:
            raise ValueError(f"fext: expected shape (6,) or (m, 6), got {f.shape}")
    if m is None:
        if f.ndim != 1:
            raise ValueError(f"fext: one configuration takes shape (6,), got {f.shape}")
        return f
    f = f.reshape(-1, 6)
    if f.shape[0] not in (1, m):
        raise ValueError(f"fext: expected (6,), (1, 6) or ({m}, 6), got {f.shape}")
    return f


def rne(arm: ArmArrays, q, qd, qdd, gravity=None, fext=None) -> np.ndarray:
    """Inverse dynamics (recursive Newton–Euler), RTB ``SerialLink.rne``.

    Parameters
    ----------
    arm : ArmArrays
    q, qd, qdd : array, shape (n,) or (m, n)
        Joint coordinates (rad, m), rates and accelerations; rows are trajectory points.
    gravity : array (3,), optional
        Upward-equivalent gravity in the world frame (m/s^2); default ``arm.gravity``.
    fext : array (6,) or (m, 6), optional
        Wrench ``[fx fy fz mx my mz]`` (N, N m) the end effector exerts on the environment,
        tool frame; default zero.

    Returns
    -------
    tau : array, shape (n,) or (m, n)
        Joint torques (N m) / forces (N), including rotor inertia and friction.
    """
    n = arm.n
    q, qd, qdd = _rows(q, n, "q"), _rows(qd, n, "qd"), _rows(qdd, n, "qdd")
    g = _gravity(arm, gravity)
    if q.ndim == qd.ndim == qdd.ndim == 1:
        return rne_nb(arm.sigma, arm.offset, arm.A, arm.B, arm.base, arm.tool, arm.dyn,
                      q, qd, qdd, g, _fext(fext))
    q, qd, qdd = _same(q, qd, qdd)
    return rne_traj_nb(arm.sigma, arm.offset, arm.A, arm.B, arm.base, arm.tool, arm.dyn,
                       q, qd, qdd, g, _fext(fext, q.shape[0]))


def gravload(arm: ArmArrays, q, gravity=None) -> np.ndarray:
    """Gravity joint torques ``rne(q, 0, 0)``, shape (n,) or (m, n) like ``q`` (N m, N)."""
    q = _rows(q, arm.n, "q")
    z = np.zeros_like(q)
    return rne(arm, q, z, z, gravity)


def itorque(arm: ArmArrays, q, qdd) -> np.ndarray:
    """Inertia torque ``M(q) qdd`` (rotor inertia included), (n,) or (m, n)."""
    q = _rows(q, arm.n, "q")
    return rne(arm, q, np.zeros_like(q), qdd, _ZERO3)


def friction(arm: ArmArrays, qd) -> np.ndarray:
    """Joint friction torques ``-(G^2 B qd + |G| Tc±)`` (N m, N): negative for ``qd > 0``.

    ``qd`` (n,) or (m, n) joint rates; the result has the same shape.
    """
    qd = _rows(qd, arm.n, "qd")
    out = friction_nb(arm.dyn, qd.reshape(-1, arm.n))
    return out.reshape(qd.shape)


def inertia(arm: ArmArrays, q) -> np.ndarray:
    """Joint-space inertia matrix (n, n), or (m, n, n) for q (m, n) (RTB's N x N x K)."""
    q = _rows(q, arm.n, "q")
    if q.ndim == 1:
        return inertia_nb(arm.sigma, arm.offset, arm.A, arm.B, arm.dyn, q)
    return np.stack([inertia_nb(arm.sigma, arm.offset, arm.A, arm.B, arm.dyn, row)
                     for row in q]) if len(q) else np.empty((0, arm.n, arm.n))


def coriolis(arm: ArmArrays, q, qd) -> np.ndarray:
    """Coriolis matrix C(q, qd) (n, n), or (m, n, n) for trajectories; ``C @ qd`` is the
    velocity-product torque (N m). Friction is not included (RTB)."""
    n = arm.n
    q, qd = _rows(q, n, "q"), _rows(qd, n, "qd")
    if q.ndim == qd.ndim == 1:
        return coriolis_nb(arm.sigma, arm.offset, arm.A, arm.B, arm.tool, arm.dyn, q, qd)
    q, qd = _same(q, qd)
    return np.stack([coriolis_nb(arm.sigma, arm.offset, arm.A, arm.B, arm.tool, arm.dyn, a, b)
                     for a, b in zip(q, qd)]) if len(q) else np.empty((0, n, n))


def accel(arm: ArmArrays, q, qd, tau, gravity=None, fext=None) -> np.ndarray:
    """Joint accelerations ``M^-1 (tau - rne(q, qd, 0))``, (n,) or (m, n) (rad/s^2, m/s^2).

    Friction, rotor inertia, gravity and the end wrench ``fext`` as :func:`rne`.
    """
    n = arm.n
    q, qd, tau = _rows(q, n, "q"), _rows(qd, n, "qd"), _rows(tau, n, "tau")
    g = _gravity(arm, gravity)
    args = (arm.sigma, arm.offset, arm.A, arm.B, arm.base, arm.tool, arm.dyn)
    if q.ndim == qd.ndim == tau.ndim == 1:
        return accel_nb(*args, q, qd, tau, g, _fext(fext))
    q, qd, tau = _same(q, qd, tau)
    f = _fext(fext, q.shape[0])
    out = np.empty_like(q)
    for k in range(q.shape[0]):
        out[k] = accel_nb(*args, q[k], qd[k], tau[k], g, f[k if f.shape[0] > 1 else 0])
    return out


def cinertia(M: np.ndarray, J: np.ndarray) -> np.ndarray:
    """Cartesian (operational-space) inertia ``J^-T M J^-1`` (6, 6) from M (6, 6), J (6, 6).

    Solved with two linear solves, no explicit inverse; ``J`` is RTB's ``jacob0`` (rows
    ``[v; w]``), so the result maps ``[a; alpha]`` to ``[f; m]`` in the world frame.
    """
    J = np.asarray(J, dtype=float)
    if J.shape[0] != J.shape[1]:
        raise ValueError(f"cinertia needs a square Jacobian (a 6-joint arm), got {J.shape}")
    Y = np.linalg.solve(J.T, np.asarray(M, dtype=float))     # J^-T M
    out = np.linalg.solve(J.T, Y.T).T                          # (J^-T (J^-T M)^T)^T
    return 0.5 * (out + out.T)


def fdyn(arm: ArmArrays, T: float, q0=None, qd0=None,
         torque: Callable[[float, np.ndarray, np.ndarray], np.ndarray] | np.ndarray | None = None,
         *, method: str = "RK45", rtol: float = 1e-6, atol: float = 1e-9,
         t_eval=None, max_step: float = np.inf, gravity=None, fext=None):
    """Integrate the forward dynamics from t = 0 to T (s) with :func:`scipy.integrate.solve_ivp`.

    Parameters
    ----------
    T : float
        Final time (s).
    q0, qd0 : array (n,), optional
        Initial joint coordinates and rates; default zero.
    torque : callable ``torque(t, q, qd) -> (n,)``, array (n,), or None
        Applied joint torques/forces (N m, N): a function of time and state (RTB's torqfun
        without the robot argument), a constant, or zero.
    method, rtol, atol, t_eval, max_step
        Passed to ``solve_ivp``.
    gravity, fext
        As :func:`rne`.

    Returns
    -------
    t : (N,) ; q : (N, n) ; qd : (N, n)
    """
    from scipy.integrate import solve_ivp

    n = arm.n
    q0 = np.zeros(n) if q0 is None else _rows(q0, n, "q0").reshape(n)
    qd0 = np.zeros(n) if qd0 is None else _rows(qd0, n, "qd0").reshape(n)
    g, f = _gravity(arm, gravity), _fext(fext)
    args = (arm.sigma, arm.offset, arm.A, arm.B, arm.base, arm.tool, arm.dyn)
    if torque is None or not callable(torque):
        tau_const = np.zeros(n) if torque is None else _rows(torque, n, "torque").reshape(n)

        def tau_of(t, q, qd):
            return tau_const
    else:
        def tau_of(t, q, qd):
            return _f64(torque(t, q, qd)).reshape(n)

    def rhs(t, x):
        q = np.ascontiguousarray(x[:n])
        qd = np.ascontiguousarray(x[n:])
        return np.concatenate((qd, accel_nb(*args, q, qd, tau_of(t, q, qd), g, f)))

    sol = solve_ivp(rhs, (0.0, float(T)), np.concatenate((q0, qd0)), method=method,
                    rtol=rtol, atol=atol, t_eval=t_eval, max_step=max_step)
    if not sol.success:
        raise RuntimeError(f"fdyn: integration failed at t = {sol.t[-1]:.6g} s: {sol.message}")
    return sol.t, sol.y[:n].T.copy(), sol.y[n:].T.copy()


def nofriction(arm: ArmArrays, which: str = "coulomb") -> ArmArrays:
    """A copy of ``arm`` without friction.

    ``which``: ``"coulomb"`` (default, as RTB) zeroes Tc+ and Tc-, ``"viscous"`` zeroes B,
    ``"all"`` both.
    """
    cols = {"coulomb": (TCP, TCN), "viscous": (BV,), "all": (BV, TCP, TCN)}
    if which not in cols:
        raise ValueError(f"nofriction: which must be one of {sorted(cols)}, got {which!r}")
    out = arm.copy()
    out.dyn[:, list(cols[which])] = 0.0
    return out
