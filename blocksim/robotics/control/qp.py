r"""A small dense convex QP solver for the MPC kernel: a primal-dual interior-point method.

Problem::

    minimise   1/2 v^T H v + f^T v      (H (nv, nv) symmetric positive definite)
    subject to G v <= h                  (G (nc, nv), h (nc,))

Mehrotra's predictor-corrector on the slack form ``G v + s = h``, ``s >= 0`` with multipliers
``z >= 0``: each iteration solves the reduced Newton system
``(H + G^T diag(z/s) G) dv = -r_d - G^T (diag(z/s) r_p - r_c / s)`` by Cholesky twice (the
affine predictor, then the centring corrector with ``sigma = (mu_aff / mu)^3``), then steps
99 % of the way to the boundary (Nocedal & Wright, *Numerical Optimization*, 2nd ed., 16.6).
It stops when the dual residual ``H v + f + G^T z``, the primal residual ``G v + s - h`` (both
relative to the data) and the duality measure ``s^T z / nc`` are all below ``tol``. For the
well-scaled problems of a condensed MPC this takes 10-30 iterations and gives the solution
to about ``sqrt(tol)`` relative or better; the KKT conditions hold to ``tol``.

No constraint (nc = 0): one Cholesky solve. Everything compiles with numba and never raises:
the result carries a status.
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.control.dense import chol_solve, cholesky, mtv, mv

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["QP_FAILED", "QP_MAX_ITER", "QP_SOLVED", "qp_solve"]

#: statuses of :func:`qp_solve`: converged to the tolerance; the iteration limit reached
#: (the last iterate is returned: not optimal, maybe infeasible); a numerical failure
#: (a Newton matrix not positive definite, NaN data: the unconstrained solution or zeros)
QP_SOLVED, QP_MAX_ITER, QP_FAILED = 0, 1, 2


@_njit
def _max_step(v, dv, cap):
    """The largest a in (0, cap] with v + a dv >= 0 (v > 0)."""
    a = cap
    for i in range(v.shape[0]):
        if dv[i] < 0.0:
            r = -v[i] / dv[i]
            if r < a:
                a = r
    return a


@_njit
def _newton(H, G, d, rhs):
    """Solve ``(H + G^T diag(d) G) x = rhs``; ``(x, ok)``."""
    nv = H.shape[0]
    M = H.copy()
    nc = G.shape[0]
    for k in range(nc):
        w = d[k]
        for i in range(nv):
            gi = w * G[k, i]
            if gi != 0.0:
                for j in range(nv):
                    M[i, j] += gi * G[k, j]
    L, ok = cholesky(M)
    if not ok:
        return np.zeros(nv), False
    return chol_solve(L, rhs), True


@_njit
def _dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@_njit
def _norm_inf(v):
    m = 0.0
    for i in range(v.shape[0]):
        a = abs(v[i])
        if a > m:
            m = a
    return m


@_njit
def qp_solve(H, f, G, h, tol, max_iter):
    """Solve the QP above.

    Parameters
    ----------
    H : ndarray (nv, nv)
        Hessian, symmetric positive definite.
    f : ndarray (nv,)
        Linear term.
    G : ndarray (nc, nv)
        Constraint matrix (nc may be 0).
    h : ndarray (nc,)
        Constraint bounds (finite).
    tol : float
        Tolerance of the residuals and the duality measure, > 0.
    max_iter : int
        Iteration limit.

    Returns
    -------
    v : ndarray (nv,)
        The solution (the last iterate unless the status is :data:`QP_SOLVED`).
    status : int
        :data:`QP_SOLVED`, :data:`QP_MAX_ITER` or :data:`QP_FAILED`.
    iterations : int
        Interior-point iterations done.
    """
    nv = H.shape[0]
    nc = G.shape[0]
    L, ok = cholesky(H)
    if not ok:
        return np.zeros(nv), QP_FAILED, 0
    v = chol_solve(L, -f)
    if nc == 0:
        return v, QP_SOLVED, 0
    s = h - mv(G, v)
    for i in range(nc):
        s[i] = max(abs(s[i]), 1.0)
    z = np.ones(nc)
    scale_d = 1.0 + _norm_inf(f)
    scale_p = 1.0 + _norm_inf(h)
    for it in range(max_iter + 1):
        rd = mv(H, v) + f + mtv(G, z)
        rp = mv(G, v) + s - h
        mu = _dot(s, z) / nc
        if (_norm_inf(rd) <= tol * scale_d and _norm_inf(rp) <= tol * scale_p
                and mu <= tol):
            return v, QP_SOLVED, it
        if not np.isfinite(mu):
            return v, QP_FAILED, it
        if it == max_iter:
            break
        d = z / s
        # predictor (affine scaling): r_c = s z, so r_c / s = z
        dv, ok = _newton(H, G, d, -rd - mtv(G, d * rp - z))
        if not ok:
            return v, QP_FAILED, it
        dz = d * (mv(G, dv) + rp) - z
        ds = -(s * z + s * dz) / z
        a = min(_max_step(s, ds, 1.0), _max_step(z, dz, 1.0))
        mu_aff = _dot(s + a * ds, z + a * dz) / nc
        sigma = (mu_aff / mu) ** 3
        # corrector: r_c = s z + ds_aff dz_aff - sigma mu
        rc = s * z + ds * dz - sigma * mu
        dv, ok = _newton(H, G, d, -rd - mtv(G, d * rp - rc / s))
        if not ok:
            return v, QP_FAILED, it
        dz = d * (mv(G, dv) + rp) - rc / s
        ds = -(rc + s * dz) / z
        a = min(1.0, 0.99 * min(_max_step(s, ds, np.inf), _max_step(z, dz, np.inf)))
        v = v + a * dv
        s = s + a * ds
        z = z + a * dz
    return v, QP_MAX_ITER, max_iter
