r"""The discrete linear Kalman filter: correction, prediction, steady-state gains.

Model (time step k, sample period fixed)::

    x[k+1] = A x[k] + B u[k] + G w[k],    w ~ N(0, Q)    process noise
    z[k]   = C x[k] + D u[k] + v[k],      v ~ N(0, R)    measurement noise

with ``x`` (n,), ``u`` (m,), ``w`` (g,), ``z`` (p,). The filter keeps the *predicted* estimate
``x[k|k-1]`` and its covariance ``P[k|k-1]``; at step k

* :func:`kf_correct`: ``S = C P C^T + R``, ``M = P C^T S^-1`` (the innovation gain),
  ``x[k|k] = x[k|k-1] + M (z - C x[k|k-1] - D u)`` and the Joseph form
  ``P[k|k] = (I - M C) P (I - M C)^T + M R M^T`` (positive semi-definite for any gain);
* :func:`kf_predict`: ``x[k+1|k] = A x[k|k] + B u``, ``P[k+1|k] = A P[k|k] A^T + G Q G^T``.

The steady-state filter (:func:`steady_state_kalman`) uses the constant gain of the
discrete algebraic Riccati equation (DARE) ``P = A P A^T - A P C^T (C P C^T + R)^-1 C P A^T
+ G Q G^T``: ``M = P C^T (C P C^T + R)^-1`` and the predictor gain ``L = A M``, which is the
``L`` of python-control's ``dlqe(A, G, C, Q, R)`` (its estimator
``xe[k+1] = A xe[k] + B u[k] + L (z[k] - C xe[k] - D u[k])``).

The step functions compile with numba (loops only, :mod:`blocksim.robotics.control.dense`);
the same code runs in the blocks' interpreted methods and kernels.
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.control.dense import chol_solve_mat, cholesky, mm, mmt, mv, symmetrize

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["kf_correct", "kf_correct_steady", "kf_predict", "steady_state_kalman"]


@_njit
def kf_correct(xp, Pp, z, Du, C, R):
    """The measurement update of a Kalman filter.

    Parameters
    ----------
    xp : ndarray (n,)
        Predicted estimate ``x[k|k-1]``.
    Pp : ndarray (n, n)
        Its covariance ``P[k|k-1]``.
    z : ndarray (p,)
        Measurement ``z[k]``.
    Du : ndarray (p,)
        The input's direct contribution ``D u[k]`` (zeros without one).
    C, R : ndarray (p, n), (p, p)
        Measurement matrix and measurement noise covariance (positive definite).

    Returns
    -------
    xf : ndarray (n,)
        Corrected estimate ``x[k|k]``.
    Pf : ndarray (n, n)
        Its covariance ``P[k|k]`` (Joseph form, symmetrised).
    ok : bool
        False when ``C P C^T + R`` is not positive definite (then ``xf``, ``Pf`` are NaN).
    """
    n = xp.shape[0]
    p = z.shape[0]
    CP = mm(C, Pp)                       # (p, n)
    S = mmt(CP, C) + R                   # (p, p)
    L, ok = cholesky(S)
    if not ok:
        return np.full(n, np.nan), np.full((n, n), np.nan), False
    Mt = chol_solve_mat(L, CP)           # (p, n): M^T = S^-1 C P
    nu = z - mv(C, xp) - Du
    xf = xp.copy()
    for i in range(n):
        s = 0.0
        for j in range(p):
            s += Mt[j, i] * nu[j]
        xf[i] += s
    IMC = -mm(Mt.T.copy(), C)            # I - M C
    for i in range(n):
        IMC[i, i] += 1.0
    Pf = mmt(mm(IMC, Pp), IMC) + mm(Mt.T.copy(), mm(R, Mt))
    return xf, symmetrize(Pf), True


@_njit
def kf_correct_steady(xp, z, Du, C, M):
    """The measurement update with a constant gain: ``x[k|k] = xp + M (z - C xp - Du)``.

    ``xp`` (n,), ``z`` (p,), ``Du`` (p,), ``C`` (p, n), ``M`` (n, p); returns (n,)."""
    return xp + mv(M, z - mv(C, xp) - Du)


@_njit
def kf_predict(xf, Pf, Bu, A, GQG):
    """The time update: ``x[k+1|k] = A xf + Bu`` (n,) and ``P[k+1|k] = A Pf A^T + G Q G^T``
    (n, n), symmetrised; ``Bu`` (n,) is ``B u[k]`` (zeros without an input)."""
    xp = mv(A, xf) + Bu
    Pp = mmt(mm(A, Pf), A) + GQG
    return xp, symmetrize(Pp)


def steady_state_kalman(A: np.ndarray, G: np.ndarray, C: np.ndarray, Q: np.ndarray,
                        R: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The steady-state gains of the discrete Kalman filter, from the DARE.

    Parameters
    ----------
    A : ndarray (n, n)
        State matrix.
    G : ndarray (n, g)
        Process noise input matrix.
    C : ndarray (p, n)
        Measurement matrix.
    Q : ndarray (g, g)
        Process noise covariance (positive semi-definite).
    R : ndarray (p, p)
        Measurement noise covariance (positive definite).

    Returns
    -------
    L : ndarray (n, p)
        Predictor gain ``A P C^T (C P C^T + R)^-1``: python-control's ``dlqe`` ``L``.
    P : ndarray (n, n)
        The DARE solution: the steady-state *predicted* covariance ``P[k|k-1]``.
    M : ndarray (n, p)
        Innovation gain ``P C^T (C P C^T + R)^-1`` of the corrected estimate ``x[k|k]``.

    Raises
    ------
    ValueError
        When the DARE has no stabilising solution (``(A, C)`` not detectable or
        ``(A, G Q^1/2)`` with uncontrollable modes on the unit circle).
    """
    from scipy.linalg import solve_discrete_are

    try:
        P = solve_discrete_are(A.T, C.T, G @ Q @ G.T, R)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise ValueError(f"the Kalman filter's Riccati equation (DARE) has no stabilising "
                         f"solution: {exc}; check that (A, C) is detectable") from None
    S = C @ P @ C.T + R
    M = np.linalg.solve(S, C @ P).T
    return A @ M, P, M
