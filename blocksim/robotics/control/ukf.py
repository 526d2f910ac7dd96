r"""The unscented Kalman filter (additive noise), for the models of
:mod:`blocksim.robotics.control.ukf_models`.

Model::

    x[k+1] = f(x[k], u[k]) + w[k],   w ~ N(0, Q)
    z[k]   = h(x[k], u[k]) + v[k],   v ~ N(0, R)

Sigma points (van der Merwe's scaled set): with ``lambda = alpha^2 (n + kappa) - n`` and
``gamma = sqrt(n + lambda)``, ``X_0 = x``, ``X_i = x + gamma S_i``, ``X_{n+i} = x - gamma S_i``
(``S_i`` the columns of the lower Cholesky factor of ``P``); weights
``Wm_0 = lambda / (n + lambda)``, ``Wc_0 = Wm_0 + 1 - alpha^2 + beta``,
``Wm_i = Wc_i = 1 / (2 (n + lambda))`` (:func:`sigma_weights`).

* :func:`ukf_predict`: the points of ``(x[k|k], P[k|k])`` through ``f``;
  ``x[k+1|k] = sum Wm_i f(X_i)``, ``P[k+1|k] = sum Wc_i (f(X_i) - x)(f(X_i) - x)^T + Q``;
* :func:`ukf_correct`: the points of ``(x[k|k-1], P[k|k-1])`` through ``h``; ``zhat``,
  ``S = sum Wc (Z - zhat)(Z - zhat)^T + R``, ``Pxz = sum Wc (X - x)(Z - zhat)^T``,
  ``K = Pxz S^-1``, ``x[k|k] = x + K (z - zhat)``, ``P[k|k] = P - K S K^T``.

Both are split into the sigma points (:func:`sigma_points`), the model, and the combination
(:func:`ukf_predict_from`, :func:`ukf_correct_from`), so that a model of Python functions
(:func:`ukf_step_python`) shares everything but its own calls with the library models.

For a linear model the unscented transform is exact, and the filter is the Kalman filter.
Everything but :func:`ukf_step_python` compiles with numba (loops,
:mod:`blocksim.robotics.control.dense`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from blocksim.robotics.control.dense import chol_solve_mat, cholesky, mm, symmetrize
from blocksim.robotics.control.ukf_models import model_f, model_h

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["sigma_points", "sigma_weights", "ukf_correct", "ukf_correct_from", "ukf_predict",
           "ukf_predict_from", "ukf_step_python"]


def sigma_weights(n: int, alpha: float, beta: float, kappa: float
                  ) -> tuple[np.ndarray, np.ndarray, float]:
    """``(Wm (2n+1,), Wc (2n+1,), gamma)`` of the scaled sigma points of an n-state filter.

    ``alpha`` (> 0) spreads the points, ``beta`` (2 is optimal for Gaussians) weights the
    centre's covariance, ``kappa`` is the secondary scaling (``n + kappa > 0``)."""
    lam = alpha * alpha * (n + kappa) - n
    c = n + lam
    if not c > 0.0:
        raise ValueError(f"alpha^2 (n + kappa) must be > 0, got {c + n:g} (n = {n})")
    Wm = np.full(2 * n + 1, 0.5 / c)
    Wc = Wm.copy()
    Wm[0] = lam / c
    Wc[0] = lam / c + 1.0 - alpha * alpha + beta
    return Wm, Wc, math.sqrt(c)


@_njit
def sigma_points(x, P, gamma):
    """``(X (2n+1, n), ok)``: the sigma points of ``(x (n,), P (n, n))``; ``ok`` False when
    ``P`` is not positive definite."""
    n = x.shape[0]
    S, ok = cholesky(P)
    X = np.empty((2 * n + 1, n))
    for j in range(n):
        X[0, j] = x[j]
    for i in range(n):
        for j in range(n):
            d = gamma * S[j, i]
            X[1 + i, j] = x[j] + d
            X[1 + n + i, j] = x[j] - d
    return X, ok


@_njit
def _mean(Y, Wm):
    k, d = Y.shape
    y = np.zeros(d)
    for i in range(k):
        for j in range(d):
            y[j] += Wm[i] * Y[i, j]
    return y


@_njit
def _cross(X, x, Y, y, Wc):
    """``sum Wc_i (X_i - x)(Y_i - y)^T``."""
    k, a = X.shape
    b = Y.shape[1]
    C = np.zeros((a, b))
    for i in range(k):
        for r in range(a):
            dr = Wc[i] * (X[i, r] - x[r])
            for c in range(b):
                C[r, c] += dr * (Y[i, c] - y[c])
    return C


@_njit
def ukf_predict_from(F, Wm, Wc, Q):
    """``(x[k+1|k], P[k+1|k])`` from the sigma points propagated by the model, ``F``
    (2n+1, n), and the process noise covariance ``Q`` (n, n)."""
    xp = _mean(F, Wm)
    return xp, symmetrize(_cross(F, xp, F, xp, Wc) + Q)


@_njit
def ukf_correct_from(X, xp, Pp, Z, z, R, Wm, Wc):
    """``(x[k|k], P[k|k], ok)`` from the sigma points ``X`` (2n+1, n) of the prediction
    ``(xp, Pp)``, their measurements ``Z`` (2n+1, p), the measurement ``z`` (p,) and its noise
    covariance ``R`` (p, p); ``ok`` False when the innovation covariance is not positive
    definite (the estimate is then NaN)."""
    n = xp.shape[0]
    p = z.shape[0]
    zhat = _mean(Z, Wm)
    S = _cross(Z, zhat, Z, zhat, Wc) + R
    Pxz = _cross(X, xp, Z, zhat, Wc)
    L, ok = cholesky(S)
    if not ok:
        return np.full(n, np.nan), np.full((n, n), np.nan), False
    Kt = chol_solve_mat(L, Pxz.T.copy())   # (p, n) = S^-1 Pxz^T
    K = Kt.T.copy()
    nu = z - zhat
    xf = xp.copy()
    for i in range(n):
        for j in range(p):
            xf[i] += K[i, j] * nu[j]
    Pf = Pp - mm(K, mm(S, Kt))
    return xf, symmetrize(Pf), True


@_njit
def ukf_predict(xf, Pf, u, Q, kind, mp, dt, Wm, Wc, gamma):
    """``(x[k+1|k] (n,), P[k+1|k] (n, n), ok)`` from the corrected ``(xf, Pf)`` and the
    input ``u`` (nu,); ``Q`` (n, n) the process noise covariance; the library model ``kind``
    with parameters ``mp`` over the period ``dt`` [s]."""
    n = xf.shape[0]
    X, ok = sigma_points(xf, Pf, gamma)
    if not ok:
        return np.full(n, np.nan), np.full((n, n), np.nan), False
    F = np.empty_like(X)
    for i in range(X.shape[0]):
        F[i] = model_f(kind, X[i].copy(), u, mp, dt)
    xp, Pp = ukf_predict_from(F, Wm, Wc, Q)
    return xp, Pp, True


@_njit
def ukf_correct(xp, Pp, u, z, R, kind, mp, Wm, Wc, gamma):
    """``(x[k|k] (n,), P[k|k] (n, n), ok)`` from the prediction ``(xp, Pp)``, the input
    ``u`` (nu,) and the measurement ``z`` (nz,), ``R`` (nz, nz) its noise covariance."""
    n = xp.shape[0]
    X, ok = sigma_points(xp, Pp, gamma)
    if not ok:
        return np.full(n, np.nan), np.full((n, n), np.nan), False
    Z = np.empty((X.shape[0], z.shape[0]))
    for i in range(X.shape[0]):
        Z[i] = model_h(kind, X[i].copy(), u, mp)
    return ukf_correct_from(X, xp, Pp, Z, z, R, Wm, Wc)


def ukf_step_python(f: Callable[..., Any], h: Callable[..., Any], xp: np.ndarray,
                    Pp: np.ndarray, u: np.ndarray, z: np.ndarray, mp: np.ndarray,
                    Q: np.ndarray, R: np.ndarray, Wm: np.ndarray, Wc: np.ndarray,
                    gamma: float, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One correction and prediction with a model of Python functions (a registered model,
    :func:`~blocksim.robotics.control.ukf_models.register_model`): the sigma points and the
    combinations are the compiled functions above, ``f(x, u, mp, dt)`` and ``h(x, u, mp)``
    are called from Python.

    Returns ``(x[k|k] (n,), P[k|k] (n, n), next state (n + n*n,))``, the next state being the
    prediction ``x[k+1|k]`` and ``P[k+1|k]`` (row-major), NaN where a covariance was not
    positive definite."""
    n = xp.shape[0]
    nan = np.full(n + n * n, np.nan)
    X, ok = sigma_points(xp, Pp, gamma)
    if not ok:
        return nan[:n], nan[n:].reshape(n, n), nan
    Z = np.array([np.asarray(h(X[i].copy(), u, mp), dtype=np.float64).reshape(-1)
                  for i in range(X.shape[0])])
    xf, Pf, ok = ukf_correct_from(X, xp, Pp, Z, z, R, Wm, Wc)
    Y, ok2 = sigma_points(xf, Pf, gamma)
    if not (ok and ok2):
        return xf, Pf, nan
    F = np.array([np.asarray(f(Y[i].copy(), u, mp, dt), dtype=np.float64).reshape(-1)
                  for i in range(Y.shape[0])])
    xn, Pn = ukf_predict_from(F, Wm, Wc, Q)
    return xf, Pf, np.concatenate((xn, Pn.reshape(-1)))
