"""Compiled kernels of :class:`~blocksim.blocks.control.StateFeedback` (the interpreted
method calls them too, so both back-ends agree bitwise).

Params ``(K (m, n), N (m, q), x_ref (n,))``; the inputs ``x`` and ``r`` are floats (one
element) or arrays; the output is a float when ``m == 1`` (the ``*_scalar`` kernels), else an
array (m,). ``q = 0`` (``N`` with no column) when the block has no reference input.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import register_jitable

from blocksim.blocks._shared import _element
from blocksim.robotics.control.lqr import state_feedback


@register_jitable
def as_vector(v, n):
    """A float or a flat array as a new (n,) array."""
    out = np.empty(n)
    for i in range(n):
        out[i] = _element(v, i)
    return out


@njit(cache=True, error_model="numpy")
def sf_vector(t, x, xin, p):
    """``-K (x - x_ref)``, (m,)."""
    K = p[0]
    return state_feedback(K, as_vector(xin, K.shape[1]), p[2], p[1], np.zeros(0))


@njit(cache=True, error_model="numpy")
def sf_scalar(t, x, xin, p):
    """``-K (x - x_ref)`` for one input (m = 1)."""
    return sf_vector(t, x, xin, p)[0]


@njit(cache=True, error_model="numpy")
def sf_ref_vector(t, x, xin, r, p):
    """``-K (x - x_ref) + N r``, (m,)."""
    K = p[0]
    N = p[1]
    return state_feedback(K, as_vector(xin, K.shape[1]), p[2], N, as_vector(r, N.shape[1]))


@njit(cache=True, error_model="numpy")
def sf_ref_scalar(t, x, xin, r, p):
    """``-K (x - x_ref) + N r`` for one input (m = 1)."""
    return sf_ref_vector(t, x, xin, r, p)[0]
