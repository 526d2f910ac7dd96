"""Compiled kernels of :class:`~blocksim.blocks.control.StateFeedback` (the interpreted
method calls them too, so both back-ends agree bitwise).

Params ``(K (m, n), N (m, q), x_ref (n,))``; the inputs ``x`` and the optional ``r`` are
floats (one element) or arrays; the output is a float when ``m == 1`` (:func:`sf_scalar`),
else an array (m,) (:func:`sf_vector`). ``q = 0`` (``N`` with no column) when the block has
no reference input. The kernels take their inputs variadically, ``(t, x, *args)``; so do
those of the filters (:func:`split_inputs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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


def input_vectors(u: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The interpreted methods' :func:`split_inputs`: the inputs ``(a, b)`` or ``(b,)`` of a
    block as new writable float64 arrays ``(a, b)``, ``a`` empty when absent. The methods then
    call the non-variadic step the kernels call: a variadic kernel called from Python is
    compiled again for its argument tuple (numba types it as a ``Tuple`` there and as a
    ``StarArgTuple`` in compiled code), which for the filters costs seconds."""
    vecs = [np.array(v, dtype=np.float64, ndmin=1) for v in u]
    return (np.zeros(0), vecs[0]) if len(vecs) == 1 else (vecs[0], vecs[1])


@register_jitable
def split_inputs(args, first, second):
    """The inputs of a kernel called ``(t, x, *args)`` whose last argument is ``params`` and
    whose first input is optional: ``(a (first,), b (second,))`` as arrays from
    ``args = (a, b, params)``, or ``(empty, b)`` from ``(b, params)`` (numba prunes the other
    branch: ``len(args)`` is a compile-time constant)."""
    if len(args) == 3:
        return as_vector(args[0], first), as_vector(args[1], second)
    return np.zeros(0), as_vector(args[0], second)


@njit(cache=True, error_model="numpy")
def sf_vector(t, x, *args):
    """``-K (x - x_ref) + N r`` (m,); ``args`` = ``(x, params)`` or ``(x, r, params)``."""
    K, N, x_ref = args[-1]
    if len(args) == 3:
        r = as_vector(args[1], N.shape[1])
    else:
        r = np.zeros(0)
    return state_feedback(K, as_vector(args[0], K.shape[1]), x_ref, N, r)


@njit(cache=True, error_model="numpy")
def sf_scalar(t, x, *args):
    """:func:`sf_vector` for one output (m = 1): a float."""
    return sf_vector(t, x, *args)[0]
