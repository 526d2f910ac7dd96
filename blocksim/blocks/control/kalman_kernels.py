"""Compiled kernels of :class:`~blocksim.blocks.control.KalmanFilter` (its interpreted methods
call them too, so both back-ends agree bitwise).

Params ``(A (n, n), B (n, m), C (p, n), D (p, m), GQG (n, n), R (p, p), M (n, p),
Pf (n, n), steady)``: ``m = 0`` columns without an input ``u``; ``M`` and ``Pf`` are the
steady-state innovation gain and corrected covariance (used when ``steady``).

State: the predicted estimate ``x[k|k-1]`` (n), then, for the time-varying filter, its
covariance ``P[k|k-1]`` (n*n, row-major). Output at a hit: the corrected ``(x[k|k],
P[k|k])`` (it reads ``z[k]``); update: the prediction ``x[k+1|k]`` (and ``P[k+1|k]``). Both
compute the correction (a few hundred flops for the small filters this is for), so the output
and the update never disagree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.blocks.control.feedback_kernels import split_inputs
from blocksim.robotics.control.dense import mv
from blocksim.robotics.control.kalman import kf_correct, kf_correct_steady, kf_predict


@njit(cache=True, error_model="numpy")
def kf_step(x, u, z, p):
    """``(x[k|k], P[k|k], next state)`` of the state ``x`` with the inputs ``u`` (m,) and
    ``z`` (p,) as arrays."""
    A, B, C, D, GQG, R, M, Pfs, steady = p
    n = A.shape[0]
    xp = x[:n].copy()
    Du = mv(D, u)
    Bu = mv(B, u)
    if steady:
        xf = kf_correct_steady(xp, z, Du, C, M)
        return xf, Pfs.copy(), mv(A, xf) + Bu
    Pp = x[n:].copy().reshape((n, n))
    xf, Pf, _ok = kf_correct(xp, Pp, z, Du, C, R)
    xn, Pn = kf_predict(xf, Pf, Bu, A, GQG)
    out = np.empty(n + n * n)
    out[:n] = xn
    out[n:] = Pn.reshape(-1)
    return xf, Pf, out


@njit(cache=True, error_model="numpy")
def kf_output(t, x, *args):
    """``(xhat (n,), P (n, n))``, the corrected estimate and covariance; ``args`` =
    ``(u, z, params)`` or ``(z, params)``."""
    p = args[-1]
    u, z = split_inputs(args, p[1].shape[1], p[2].shape[0])
    xf, Pf, _xn = kf_step(x, u, z, p)
    return xf, Pf


@njit(cache=True, error_model="numpy")
def kf_update(t, x, *args):
    """The next state: the prediction; ``args`` as :func:`kf_output`."""
    p = args[-1]
    u, z = split_inputs(args, p[1].shape[1], p[2].shape[0])
    return kf_step(x, u, z, p)[2]
