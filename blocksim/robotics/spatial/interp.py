"""Interpolation of poses (``trinterp``) and differences of angles (``angdiff``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import farray
from .kernels import q2r_nb, r2q_nb
from .quaternion import q_slerp


def trinterp(T0: Any, T1: Any, s: Any = None) -> np.ndarray:
    """Interpolate between two poses: rotation by quaternion slerp, translation linearly.

    ``trinterp(T0, T1, s)``: ``T0`` at ``s = 0``, ``T1`` at ``s = 1``.
    ``trinterp(T1, s)``: from the identity to ``T1``.

    Parameters
    ----------
    T0, T1 : array_like, (4, 4) transforms or (3, 3) rotations (both the same kind)
    s : float or array_like (N,)
        Interpolation parameter, clipped to [0, 1].

    Returns
    -------
    ndarray, (4, 4) or (3, 3) for scalar ``s``; (N, 4, 4) or (N, 3, 3) for an array.

    Notes
    -----
    The rotation follows the shorter of the two great arcs (angle <= pi), at a constant rate in
    ``s``; the translation is ``(1 - s) t0 + s t1`` (RTB; its documentation says only "slerp").
    """
    if s is None:
        T0, T1, s = None, T0, T1
    B = farray(T1)
    A = np.eye(B.shape[0]) if T0 is None else farray(T0)
    if A.shape != B.shape or A.shape not in ((3, 3), (4, 4)):
        raise ValueError(f"trinterp: expected two (4, 4) or two (3, 3) matrices, "
                         f"got {A.shape} and {B.shape}")
    ss = np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
    if ss.ndim > 1:
        raise ValueError(f"trinterp: s must be a scalar or 1-D, got shape {ss.shape}")
    q0 = r2q_nb(np.ascontiguousarray(A[:3, :3]))
    q1 = r2q_nb(np.ascontiguousarray(B[:3, :3]))
    qs = np.atleast_2d(q_slerp(q0, q1, ss, shortest=True))
    n = A.shape[0]
    out = np.zeros((len(qs), n, n))
    for k, q in enumerate(qs):
        out[k, :3, :3] = q2r_nb(np.ascontiguousarray(q))
    if n == 4:
        sv = np.atleast_1d(ss)[:, None]
        out[:, :3, 3] = (1.0 - sv) * A[:3, 3] + sv * B[:3, 3]
        out[:, 3, 3] = 1.0
    return out[0] if ss.ndim == 0 else out


def angdiff(th1: Any, th2: Any = None) -> Any:
    """Difference of angles ``th1 - th2`` wrapped to [-pi, pi) [rad].

    ``angdiff(th)`` wraps ``th``. Arrays broadcast (e.g. a vector ``th1`` and a scalar ``th2``).
    Scalars give a float, arrays an array.
    """
    d = np.asarray(th1, dtype=float)
    if th2 is not None:
        d = d - np.asarray(th2, dtype=float)
    out = np.mod(d + np.pi, 2.0 * np.pi) - np.pi
    out = np.where(out >= np.pi, out - 2.0 * np.pi, out)  # mod(-tiny, 2 pi) rounds to 2 pi
    return float(out) if out.ndim == 0 else out
