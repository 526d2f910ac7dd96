"""Compiled kernels of :class:`~blocksim.blocks.control.UnscentedKalmanFilter` (its
interpreted methods call them too, so both back-ends agree bitwise).

Params ``(kind, mp, Q (n, n), R (p, p), Wm (2n+1,), Wc (2n+1,), gamma, dt, nu)``: the model
id and parameter vector of :mod:`blocksim.robotics.control.ukf_models`, the noise
covariances, the sigma-point weights and scale, the period [s] and the number of inputs.

State: the prediction ``x[k|k-1]`` (n) and ``P[k|k-1]`` (n*n, row-major). Output at a hit:
the corrected ``(x[k|k], P[k|k])``; update: the prediction of the next hit (the correction
is computed by both, so they never disagree).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.blocks.control.feedback_kernels import split_inputs
from blocksim.robotics.control.ukf import ukf_correct, ukf_predict


@njit(cache=True, error_model="numpy")
def ukf_step(x, u, z, p):
    """``(x[k|k], P[k|k], next state)`` with the inputs ``u`` (nu,) and ``z`` (p,)."""
    kind, mp, Q, R, Wm, Wc, gamma, dt, _nu = p
    n = Q.shape[0]
    xp = x[:n].copy()
    Pp = x[n:].copy().reshape((n, n))
    xf, Pf, _ok = ukf_correct(xp, Pp, u, z, R, kind, mp, Wm, Wc, gamma)
    xn, Pn, _ok = ukf_predict(xf, Pf, u, Q, kind, mp, dt, Wm, Wc, gamma)
    out = np.empty(n + n * n)
    out[:n] = xn
    out[n:] = Pn.reshape(-1)
    return xf, Pf, out


@njit(cache=True, error_model="numpy")
def ukf_output(t, x, *args):
    """``(xhat (n,), P (n, n))``, the corrected estimate and covariance; ``args`` =
    ``(u, z, params)`` or ``(z, params)``."""
    p = args[-1]
    u, z = split_inputs(args, p[8], p[3].shape[0])
    xf, Pf, _xn = ukf_step(x, u, z, p)
    return xf, Pf


@njit(cache=True, error_model="numpy")
def ukf_update(t, x, *args):
    """The next state: the prediction; ``args`` as :func:`ukf_output`."""
    p = args[-1]
    u, z = split_inputs(args, p[8], p[3].shape[0])
    return ukf_step(x, u, z, p)[2]
