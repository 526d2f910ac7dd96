"""Compiled kernels of the arm kinematics blocks (:mod:`blocksim.blocks.arm.kinematics`).

Every block kernel follows the contract of :mod:`blocksim.engine.compiled.kernels`: a
module-level ``numba.njit(cache=True, error_model="numpy")`` function of ``(t, x, u0, ...,
params)``. The numerics are the robotics core's kernels over the packed kinematics vector
``kin`` (:mod:`blocksim.robotics.arm.kinematics`: ``fkine``, ``fkine_all``, ``jacobian``,
``jacob_dot``; :mod:`blocksim.robotics.arm.ikine6s`: ``ikine6s_kernel``), the loop-only linear
algebra of :mod:`blocksim.robotics.linalg`, and :func:`ikine_lm_nb`, the Levenberg–Marquardt
solver of :func:`blocksim.robotics.arm.ikine.ikine_lm` step for step (the tests hold the two
equal).

Signals: joint vectors (n,) [rad or m], poses (4, 4) world frame [m], Jacobians (6, n) with
rows ``[v; omega]``. Kernels never raise during a run: an impossible result is NaN (the
engine then stops with ``NonFiniteError`` naming the block) or a ``success`` flag of 0.0.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from blocksim.robotics.arm.ikine6s import ikine6s_kernel
from blocksim.robotics.arm.kinematics import fkine, fkine_all, jacob_dot, jacobian
from blocksim.robotics.linalg import (
    cholesky_solve,
    condition_from_svd,
    inverse_from_svd,
    svd_jacobi,
)
from blocksim.robotics.spatial.kernels import so3_log_nb

_njit = numba.njit(cache=True, error_model="numpy")

#: Levenberg–Marquardt stops when the damping exceeds this (as the robotics core)
LAMBDA_MAX = 1e10
#: status codes of :func:`ikine_lm_nb` (as :func:`blocksim.robotics.arm.ikine.ikine_lm`)
CONVERGED, ITERATION_LIMIT, STALLED = 0, 1, 2


@_njit
def _pose(T):
    """A fresh C-contiguous (4, 4) copy of a pose input."""
    out = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            out[i, j] = T[i, j]
    return out


# ---------------------------------------------------------------------------- kinematics
@_njit
def fkine_kernel(t, x, q, p):
    """End-effector pose (4, 4); params ``(kin,)``."""
    return fkine(p[0], np.ascontiguousarray(q))


@_njit
def fkine_all_kernel(t, x, q, p):
    """Poses of frames 0..n (n + 1, 4, 4), without the tool; params ``(kin,)``."""
    return fkine_all(p[0], np.ascontiguousarray(q))


@_njit
def jacobian_kernel(t, x, q, p):
    """``(J or its inverse, cond)``; params ``(kin, ee, mode, damping)``.

    ``J = jacobian(kin, q, ee)`` (6, n); ``mode`` 0 returns J, ``INV``, ``PINV`` or ``DLS``
    (:mod:`blocksim.robotics.linalg`) its inverse (n, 6) by ``inverse_from_svd``; ``cond`` is
    the 2-norm condition number of J (capped at 1/eps).
    """
    kin, ee, mode, damping = p
    J = jacobian(kin, np.ascontiguousarray(q), ee)
    U, s, V = svd_jacobi(J)
    c = condition_from_svd(s)
    if mode == 0:
        return J, c
    return inverse_from_svd(U, s, V, mode, damping), c


@_njit
def jacob_dot_kernel(t, x, q, qd, p):
    """``Jdot(q, qd) @ qd`` (6,) in the world frame; params ``(kin,)``."""
    return jacob_dot(p[0], np.ascontiguousarray(q), np.ascontiguousarray(qd))


@_njit
def ikine6s_block_kernel(t, x, pose, p):
    """Analytic inverse kinematics (6,); params ``(g, code)`` from
    :func:`~blocksim.robotics.arm.ikine6s.pack_ikine6s` and
    :func:`~blocksim.robotics.arm.ikine6s.config_code`. NaN when the pose is out of reach."""
    return ikine6s_kernel(p[0], _pose(pose), p[1])[0]


# ---------------------------------------------------------------------------- numerical IK
@_njit
def _ik_error(kin, q, Td, w, e, J):
    """Weighted error ``W e`` into ``e`` (6,), weighted Jacobian ``W J`` into ``J`` (6, n);
    returns ``|W e|`` (as ``_error`` of the robotics core)."""
    T = fkine(kin, q)
    R = np.empty((3, 3))
    for i in range(3):
        e[i] = Td[i, 3] - T[i, 3]
        for j in range(3):
            R[i, j] = Td[i, 0] * T[j, 0] + Td[i, 1] * T[j, 1] + Td[i, 2] * T[j, 2]
    r = so3_log_nb(R)
    e[3], e[4], e[5] = r[0], r[1], r[2]
    # ee = False as a run-time bool (kin[0] = n > 0): the Python methods call the core kernel
    # with a bool, a literal False would compile a second specialisation of it
    Jq = jacobian(kin, q, kin[0] < 0.0)
    ss = 0.0
    for i in range(6):
        e[i] *= w[i]
        ss += e[i] * e[i]
        for j in range(q.shape[0]):
            J[i, j] = w[i] * Jq[i, j]
    return math.sqrt(ss)


@_njit
def _ik_limit(q, revolute, qlim):
    """Wrap unlimited revolute joints to (-pi, pi]; shift by 2 pi into, then clip to, limits."""
    two_pi = 2.0 * math.pi
    for i in range(q.shape[0]):
        lo = qlim[i, 0]
        hi = qlim[i, 1]
        bounded = math.isfinite(lo) or math.isfinite(hi)
        if revolute[i] != 0.0:
            if not bounded:
                q[i] = math.pi - np.mod(math.pi - q[i], two_pi)
                continue
            while q[i] > hi and q[i] - two_pi >= lo:
                q[i] -= two_pi
            while q[i] < lo and q[i] + two_pi <= hi:
                q[i] += two_pi
        if bounded:
            q[i] = min(hi, max(lo, q[i]))


@_njit
def ikine_lm_nb(kin, Td, q0, w, qlim, revolute, ilimit, tol, lam):
    """One Levenberg–Marquardt solve: ``(q (n,), iterations, residual, status)``.

    The algorithm of :func:`blocksim.robotics.arm.ikine.ikine_lm` (its docstring gives the
    error, the step and the stopping rules) with the damped normal equations solved by
    Cholesky. ``revolute`` is a float64 (n,) array (non-zero for a revolute joint), ``qlim``
    (n, 2) the limits each step is projected onto (``-inf, inf`` to ignore). Status
    :data:`CONVERGED`, :data:`ITERATION_LIMIT` or :data:`STALLED`. Never raises: a NaN goal
    stalls the solver.
    """
    n = q0.shape[0]
    q = q0.copy()
    _ik_limit(q, revolute, qlim)
    e = np.empty(6)
    J = np.empty((6, n))
    err = _ik_error(kin, q, Td, w, e, J)
    en = np.empty(6)
    Jn = np.empty((6, n))
    A = np.empty((n, n))
    dq = np.empty(n)
    it = 0
    while it < ilimit:
        if err <= tol:
            return q, it, err, CONVERGED
        if lam > LAMBDA_MAX:
            return q, it, err, STALLED
        it += 1
        for i in range(n):
            s = 0.0
            for k in range(6):
                s += J[k, i] * e[k]
            dq[i] = s
            for j in range(n):
                s = 0.0
                for k in range(6):
                    s += J[k, i] * J[k, j]
                A[i, j] = s
            A[i, i] += lam
        if not cholesky_solve(A, dq):
            lam *= 2.0
            continue
        qn = np.empty(n)
        for i in range(n):
            qn[i] = q[i] + dq[i]
        _ik_limit(qn, revolute, qlim)
        errn = _ik_error(kin, qn, Td, w, en, Jn)
        if errn < err:
            q = qn
            err = errn
            e, en = en, e
            J, Jn = Jn, J
            lam *= 0.5
        else:
            lam *= 2.0
    return q, it, err, CONVERGED if err <= tol else ITERATION_LIMIT


@_njit
def ikine_output_kernel(t, x, pose, p):
    """``(q (n,), success)``; params ``(kin, mask (6,), qlim (n, 2), revolute (n,), q0 (n,),
    ilimit, tol, lam)``.

    Starts from the state ``x`` (the previous solution) when the block has one, else from
    ``q0``; ``success`` is 1.0 when the residual reached ``tol``, 0.0 otherwise (``q`` is then
    the solver's best point).
    """
    kin, w, qlim, revolute, q0, ilimit, tol, lam = p
    start = x.copy() if x.shape[0] > 0 else q0.copy()
    q, _, _, status = ikine_lm_nb(kin, _pose(pose), start, w, qlim, revolute, ilimit, tol, lam)
    return q, 1.0 if status == CONVERGED else 0.0


@_njit
def ikine_update_kernel(t, x, pose, p):
    """Next warm start: the new solution on success, the previous one otherwise (the solve of
    :func:`ikine_output_kernel`, called directly: one compiled layer less)."""
    kin, w, qlim, revolute, q0, ilimit, tol, lam = p
    start = x.copy() if x.shape[0] > 0 else q0.copy()
    q, _, _, status = ikine_lm_nb(kin, _pose(pose), start, w, qlim, revolute, ilimit, tol, lam)
    if status == CONVERGED:
        return q
    return x.copy()
