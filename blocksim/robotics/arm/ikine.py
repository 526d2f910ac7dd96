"""Numerical inverse kinematics of a serial-link arm (Levenberg–Marquardt).

The error of a configuration ``q`` against the goal pose ``T*`` is the world-frame 6-vector

    e(q) = [p* - p(q);  log(R* R(q)^T)]      (metres; radians, rotation vector)

and the solver minimises ``|W e|^2`` with ``W = diag(mask)`` by damped Gauss–Newton steps
(Levenberg, as RTB 10's ``ikine``): ``dq = (J^T W^2 J + lambda I)^-1 J^T W^2 e`` with ``J`` the
world-frame Jacobian ``jacob0``; a step that lowers the error is taken and halves ``lambda``,
otherwise ``lambda`` doubles. Revolute joints without limits are wrapped to (-pi, pi]; with
``joint_limits`` each step is projected onto the joint limits (angles first shifted by 2 pi when
that brings them inside). The solver stops when ``|W e| <= tol`` (success), after ``ilimit``
iterations, or when ``lambda`` exceeds 1e10 (no step lowers the error: a local minimum, a joint
limit or an unreachable pose). It never raises for an unreachable pose: the result says so.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..spatial.kernels import so3_log_nb
from .kinematics import fkine, jacobian

__all__ = ["IKResult", "ikine", "ikine_lm"]

_STATUS = {0: "converged", 1: "iteration limit reached", 2: "no step lowers the error "
           "(local minimum, joint limit or unreachable pose)"}


class IKResult(NamedTuple):
    """Result of :func:`ikine` (unpacks as ``q, success, iterations, residual, reason``).

    For a trajectory of m goal poses every field has a leading dimension m.
    """

    q: np.ndarray          #: joint coordinates (rad or m), (n,) or (m, n)
    success: bool | np.ndarray  #: True if the residual reached ``tol``
    iterations: int | np.ndarray  #: iterations used (accepted and rejected steps)
    residual: float | np.ndarray  #: final ``|W e|`` (mixed m and rad)
    reason: str | list    #: why the solver stopped


def _error(kin, q, Td, w) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted error ``W e`` (6,), weighted Jacobian ``W J`` (6, n) and ``|W e|`` at ``q``."""
    T = fkine(kin, q)
    e = np.empty(6)
    e[:3] = Td[:3, 3] - T[:3, 3]
    e[3:] = so3_log_nb(np.ascontiguousarray(Td[:3, :3] @ T[:3, :3].T))
    e *= w
    return e, w[:, None] * jacobian(kin, q, False), float(np.sqrt(e @ e))


def _limit(q: np.ndarray, revolute: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Wrap unlimited revolute joints to (-pi, pi]; shift by 2 pi into, then clip to, limits."""
    for i in range(q.shape[0]):
        bounded = np.isfinite(lo[i]) or np.isfinite(hi[i])
        if revolute[i]:
            if not bounded:
                q[i] = np.pi - np.mod(np.pi - q[i], 2.0 * np.pi)
                continue
            while q[i] > hi[i] and q[i] - 2.0 * np.pi >= lo[i]:
                q[i] -= 2.0 * np.pi
            while q[i] < lo[i] and q[i] + 2.0 * np.pi <= hi[i]:
                q[i] += 2.0 * np.pi
        if bounded:
            q[i] = min(hi[i], max(lo[i], q[i]))


def ikine_lm(kin: np.ndarray, Td: np.ndarray, q0: np.ndarray, w: np.ndarray,
             qlim: np.ndarray, revolute: np.ndarray, ilimit: int, tol: float,
             lam: float) -> tuple[np.ndarray, int, float, int]:
    """One Levenberg–Marquardt solve (see the module docstring).

    Parameters
    ----------
    kin : packed kinematics (``robot.kin``); Td : goal pose (4, 4); q0 : initial guess (n,);
    w : weights (6,) of [x, y, z, rx, ry, rz]; qlim : limits (n, 2) applied to each step
    (``-inf, inf`` to ignore); revolute : bool (n,); ilimit, tol, lam : see :func:`ikine`.

    Returns
    -------
    q : (n,), iterations : int, residual : float, status : int
        status 0 converged, 1 iteration limit, 2 stalled (damping above 1e10).
    """
    n = q0.shape[0]
    lo, hi = qlim[:, 0], qlim[:, 1]
    q = q0.astype(float).copy()
    _limit(q, revolute, lo, hi)
    e, J, err = _error(kin, q, Td, w)
    eye = np.eye(n)
    it = 0
    while it < ilimit:
        if err <= tol:
            return q, it, err, 0
        if lam > 1e10:
            return q, it, err, 2
        it += 1
        try:
            dq = np.linalg.solve(J.T @ J + lam * eye, J.T @ e)
        except np.linalg.LinAlgError:
            lam *= 2.0
            continue
        qn = q + dq
        _limit(qn, revolute, lo, hi)
        en, Jn, errn = _error(kin, qn, Td, w)
        if errn < err:
            q, e, J, err = qn, en, Jn, errn
            lam *= 0.5
        else:
            lam *= 2.0
    return q, it, err, 0 if err <= tol else 1


def _pose(T) -> np.ndarray:
    v = np.ascontiguousarray(T, dtype=float)
    if v.shape[-2:] != (4, 4) or v.ndim not in (2, 3):
        raise ValueError(f"ikine: T must be a 4x4 pose or a (m, 4, 4) trajectory, got {v.shape}")
    return v


def ikine(robot, T, q0=None, mask=None, ilimit: int = 500, tol: float = 1e-10,
          joint_limits: bool = True, lam: float = 0.1, restarts: int = 0,
          seed: int = 0) -> IKResult:
    """Joint coordinates that put the end effector of ``robot`` at pose ``T``.

    Parameters
    ----------
    robot : SerialLink
    T : array (4, 4) or (m, 4, 4)
        Goal pose(s) in the world frame; for a trajectory each solve starts from the previous
        solution.
    q0 : array (n,), optional
        Initial guess (default zeros, moved inside the joint limits).
    mask : array (6,), optional
        Weights of the [x, y, z, rx, ry, rz] error components (world frame); 0 ignores a
        component, e.g. ``[1, 1, 0, 0, 0, 0]`` for a planar 2-link arm. Default all ones.
    ilimit : int
        Iteration limit per solve (accepted and rejected steps).
    tol : float
        Convergence threshold on ``|W e|`` (metres and radians).
    joint_limits : bool
        Keep the solution inside ``robot.qlim``.
    lam : float
        Initial damping.
    restarts : int
        On failure, retry this many times from random configurations (within the limits,
        revolute joints in [-pi, pi] where unlimited, prismatic in [-1, 1] m), drawn from a
        generator seeded with ``seed``; the best result is returned.

    Returns
    -------
    IKResult
        ``q`` (user joint coordinates: the offsets are already removed), ``success``,
        ``iterations``, ``residual`` and a ``reason`` text.
    """
    Tg = _pose(T)
    n = robot.n
    w = np.ones(6) if mask is None else np.ascontiguousarray(mask, dtype=float).ravel()
    if w.shape != (6,) or np.any(w < 0):
        raise ValueError(f"ikine: mask must be 6 non-negative weights [x, y, z, rx, ry, rz], "
                         f"got {mask!r}")
    if ilimit < 1 or tol <= 0 or lam <= 0:
        raise ValueError("ikine: need ilimit >= 1, tol > 0 and lam > 0")
    qlim = np.ascontiguousarray(robot.qlim)
    start = np.zeros(n) if q0 is None else np.array(q0, dtype=float).ravel()
    if start.shape != (n,):
        raise ValueError(f"ikine: q0 must have shape ({n},), got {start.shape}")
    if q0 is None:
        start = np.clip(start, qlim[:, 0], qlim[:, 1])
    rng = np.random.default_rng(seed)
    kin = robot.kin
    revolute = robot.arrays.sigma == 0
    limits = qlim if joint_limits else np.tile([-np.inf, np.inf], (n, 1))
    lo = np.where(np.isfinite(qlim[:, 0]), qlim[:, 0], np.where(robot.arrays.sigma, -1, -np.pi))
    hi = np.where(np.isfinite(qlim[:, 1]), qlim[:, 1], np.where(robot.arrays.sigma, 1, np.pi))
    goals = Tg.reshape(-1, 4, 4)
    results = []
    for Td in goals:
        best = None
        total = 0
        for attempt in range(restarts + 1):
            guess = start if attempt == 0 else rng.uniform(lo, hi)
            q, it, res, status = ikine_lm(kin, Td, guess, w, limits, revolute, int(ilimit),
                                          float(tol), float(lam))
            total += it
            if best is None or res < best[2]:
                best = (q, it, res, status)
            if status == 0:
                break
        q, _, res, status = best
        results.append((q, status == 0, total, float(res), _STATUS[status]))
        start = q
    if Tg.ndim == 2:
        q, ok, it, res, why = results[0]
        return IKResult(q, bool(ok), int(it), res, why)
    return IKResult(np.array([r[0] for r in results]).reshape(len(results), n),
                    np.array([r[1] for r in results]), np.array([r[2] for r in results]),
                    np.array([r[3] for r in results]), [r[4] for r in results])
