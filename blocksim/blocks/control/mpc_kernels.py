"""Compiled kernels of :class:`~blocksim.blocks.control.MPC` (its interpreted method calls
them too, so both back-ends agree bitwise).

Params ``(H, F, f_r, G, h0, E, m, tol, max_iter, u_min (m,), u_max (m,))``: the condensed
QP of :func:`blocksim.robotics.control.mpc.condense`, the number of inputs, the solver's
tolerance and iteration limit, the input bounds. Output ``(u, status)``: the first move of
the solution clipped to the input bounds (an interior-point solution meets them to the
tolerance, a last iterate of a failed solve maybe not at all: the output never leaves them),
and the solver's status (0 solved, 1 iteration limit, 2 numerical failure) as a float; a
non-finite move (a diverged solve) is replaced by 0 before the clipping.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.blocks._shared import _clip
from blocksim.blocks.control.feedback_kernels import as_vector
from blocksim.robotics.control.mpc import mpc_solve


@njit(cache=True, error_model="numpy")
def mpc_vector(t, x, xin, p):
    """``(u (m,), status)``."""
    H, F, f_r, G, h0, E, m, tol, max_iter, lo, hi = p
    U, status, _it = mpc_solve(as_vector(xin, F.shape[1]), H, F, f_r, G, h0, E, tol, max_iter)
    u = np.empty(m)
    for i in range(m):
        v = U[i] if math.isfinite(U[i]) else 0.0  # a diverged solve: no NaN out
        u[i] = _clip(v, lo[i], hi[i])
    return u, float(status)


@njit(cache=True, error_model="numpy")
def mpc_scalar(t, x, xin, p):
    """``(u, status)`` for one input (m = 1)."""
    u, status = mpc_vector(t, x, xin, p)
    return u[0], status
