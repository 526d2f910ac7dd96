r"""State feedback and the finite-horizon discrete LQR.

* :func:`state_feedback` — ``u = -K (x - x_ref) + N r`` (numba; the
  :class:`~blocksim.blocks.control.StateFeedback` block's numerics);
* :func:`finite_horizon_lqr` — the time-varying gains of the discrete LQR over ``N`` steps
  by the backward Riccati recursion (numpy), the reference of the unconstrained MPC:

  .. math::

      P_N = Q_f,\quad K_k = (R + B^T P_{k+1} B)^{-1} B^T P_{k+1} A,\quad
      P_k = Q + A^T P_{k+1} (A - B K_k)

  which minimises :math:`\sum_{k=0}^{N-1} (x_k^T Q x_k + u_k^T R u_k) + x_N^T Q_f x_N`
  with :math:`u_k = -K_k x_k`.

Infinite-horizon gains are python-control's ``lqr``/``dlqr``.
"""

from __future__ import annotations

import numba
import numpy as np

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["finite_horizon_lqr", "state_feedback"]


@_njit
def state_feedback(K, x, x_ref, N, r):
    """``u = -K (x - x_ref) + N r``.

    Parameters
    ----------
    K : ndarray (m, n)
        Feedback gain.
    x, x_ref : ndarray (n,)
        State and state reference.
    N : ndarray (m, q)
        Reference feedforward gain (``q = 0`` columns: no reference).
    r : ndarray (q,)
        Reference.

    Returns
    -------
    ndarray (m,)
    """
    m, n = K.shape
    q = N.shape[1]
    u = np.zeros(m)
    for i in range(m):
        s = 0.0
        for j in range(n):
            s -= K[i, j] * (x[j] - x_ref[j])
        for j in range(q):
            s += N[i, j] * r[j]
        u[i] = s
    return u


def finite_horizon_lqr(A: np.ndarray, B: np.ndarray, Q: np.ndarray, R: np.ndarray,
                       N: int, Qf: np.ndarray | None = None
                       ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The gains of the discrete LQR over a horizon of ``N`` steps.

    Parameters
    ----------
    A, B : ndarray (n, n), (n, m)
        The discrete model ``x[k+1] = A x[k] + B u[k]``.
    Q, R : ndarray (n, n), (m, m)
        Stage weights (``Q`` positive semi-definite, ``R`` positive definite).
    N : int
        Horizon (steps), >= 1.
    Qf : ndarray (n, n), optional
        Terminal weight (default ``Q``).

    Returns
    -------
    K : list of N ndarrays (m, n)
        ``K[k]``, the gain of step ``k`` (``u_k = -K[k] x_k``); ``K[0]`` is what a receding
        horizon controller applies.
    P : list of N + 1 ndarrays (n, n)
        The cost-to-go matrices ``P[k]`` (``P[N] = Qf``).
    """
    P = [np.zeros_like(A)] * (N + 1)
    K = [np.zeros((B.shape[1], A.shape[0]))] * N
    P[N] = np.array(Q if Qf is None else Qf, dtype=float)
    for k in range(N - 1, -1, -1):
        Pn = P[k + 1]
        K[k] = np.linalg.solve(R + B.T @ Pn @ B, B.T @ Pn @ A)
        Pk = Q + A.T @ Pn @ (A - B @ K[k])
        P[k] = 0.5 * (Pk + Pk.T)
    return K, P
