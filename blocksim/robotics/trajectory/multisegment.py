"""RTB ``mstraj``: multi-segment, multi-axis trajectory through via points with blends."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from blocksim._messages import plain

from .profiles import quintic_sampled
from .timebase import as_axes

#: slack when rounding times to whole steps (so 0.3/0.1 is 3 steps, not 4)
_STEP_TOL = 1e-9


def _steps_up(x: float, dt: float) -> int:
    """``ceil(x/dt)`` as an int, ignoring round-off just above a whole number."""
    return max(0, math.ceil(x / dt - _STEP_TOL))


def _per_segment(x: ArrayLike, ns: int, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        a = np.full(ns, float(a))
    if a.shape != (ns,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be a finite scalar or have shape ({ns},), got {a.shape}")
    return a


def _blend(q_from, q_to, qd_from, qd_to, steps: int, dt: float) -> np.ndarray:
    """Quintic blend rows at times dt, 2dt, ..., steps·dt (the start row is not repeated)."""
    if steps == 0:
        return np.empty((0, q_from.shape[0]))
    times = np.arange(1, steps + 1, dtype=np.float64) * dt
    q, _, _ = quintic_sampled(
        np.ascontiguousarray(q_from), np.ascontiguousarray(q_to),
        np.ascontiguousarray(qd_from), np.ascontiguousarray(qd_to), steps * dt, times,
    )  # fmt: skip
    return q


def mstraj(
    segments: ArrayLike,
    qdmax: ArrayLike | None,
    tsegment: ArrayLike | None,
    q0: ArrayLike,
    dt: float,
    tacc: float | ArrayLike,
    qd0: ArrayLike | None = None,
    qdf: ArrayLike | None = None,
    *,
    return_time: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Multi-segment multi-axis trajectory (RTB ``mstraj``).

    The ``n`` axes move together from ``q0`` through the via points ``segments[0], ...,
    segments[-2]`` to ``segments[-1]``. Each segment is straight-line motion at constant
    velocity; consecutive segments are joined by quintic blends (RTB ``jtraj``) of duration
    ``tacc`` centred on the via point, which is therefore passed near, not through: the
    closest distance is ``3/32·tacc·|qd_next − qd_prev|`` per axis. All axes reach their via
    points at the same time.

    The algorithm is RTB 9.10's, step for step: ``tacc`` is rounded up to a whole number of
    steps and ``tacc2 = ceil(tacc/2/dt)·dt``; with ``qdmax`` a segment lasts
    ``tb + max_j ceil(|dq_j|/qdmax_j/dt)·dt`` (``tb = tacc2`` for the first segment,
    ``tacc`` after), at least ``2·tacc``; the first blend lasts ``tacc2`` and the final
    blend (to ``qdf``) ``tacc2``.

    Parameters
    ----------
    segments : array_like, shape (M, n)
        Via points, one row each; the last row is the destination.
    qdmax : array_like, shape (n,) or scalar, or None
        Axis speed limits [per s], > 0. Give exactly one of ``qdmax`` and ``tsegment``.
    tsegment : array_like, shape (M,), or None
        Segment durations [s], > 0.
    q0 : array_like, shape (n,)
        Start coordinates.
    dt : float
        Time step [s], > 0.
    tacc : float or array_like, shape (M,)
        Acceleration (blend) time [s], >= 0; ``tacc[i]`` is used for the transition into
        segment ``i`` (``tacc[0]`` also at the start).
    qd0, qdf : array_like, shape (n,), optional
        Initial and final axis velocities [per s]; default zero.
    return_time : bool, optional
        Also return the time of each row.

    Returns
    -------
    q : ndarray, shape (K, n)
        One row per time step, one column per axis. As in RTB the start point itself is not a
        row: row ``k`` is the position at time ``(k + 1)·dt``.
    t : ndarray, shape (K,)
        Only with ``return_time``: ``(k + 1)·dt`` [s].

    Notes
    -----
    With ``qdmax`` the linear parts and the blends between segments stay within the limits,
    but RTB's first and final blends cover the same distance as a full-speed segment of the
    same duration while starting (ending) at rest, so inside them the speed reaches up to about
    1.51 times the speed of the adjacent segment and may exceed ``qdmax``.
    """
    p = np.atleast_2d(np.asarray(segments, dtype=np.float64))
    if p.ndim != 2 or not np.all(np.isfinite(p)):
        raise ValueError(f"segments must be a finite (M, n) array, got shape {p.shape}")
    ns, nj = p.shape
    q = as_axes(q0, nj, "q0")
    if (qdmax is None) == (tsegment is None):
        raise ValueError("mstraj: give exactly one of qdmax and tsegment (the other None)")
    if not (np.isfinite(dt) and dt > 0.0):
        raise ValueError(f"mstraj: dt must be > 0, got {plain(dt)}")
    dt = float(dt)
    if qdmax is not None:
        qdmax_a = as_axes(qdmax, nj, "qdmax")
        if not np.all(qdmax_a > 0.0):
            raise ValueError(f"mstraj: qdmax must be > 0 on every axis, got {qdmax_a}")
    else:
        tseg_a = _per_segment(tsegment, ns, "tsegment")
        if not np.all(tseg_a > 0.0):
            raise ValueError(f"mstraj: tsegment must be > 0, got {tseg_a}")
    tacc_a = _per_segment(tacc, ns, "tacc")
    if not np.all(tacc_a >= 0.0):
        raise ValueError(f"mstraj: tacc must be >= 0, got {tacc_a}")
    qd_prev = np.zeros(nj) if qd0 is None else as_axes(qd0, nj, "qd0")
    qd_final = np.zeros(nj) if qdf is None else as_axes(qdf, nj, "qdf")

    q_prev = q
    rows: list[np.ndarray] = []
    n_acc2 = 0
    for seg in range(ns):
        n_acc = _steps_up(tacc_a[seg], dt)
        n_acc2 = math.ceil(n_acc / 2)
        n_x = n_acc2 if seg == 0 else n_acc
        q_next = p[seg]
        dq = q_next - q_prev
        if qdmax is not None:
            n_lin = [_steps_up(d, dt) for d in np.abs(dq) / qdmax_a]
            tseg = max(n_x + max(n_lin), 2 * n_acc) * dt
            if tseg == 0.0:
                raise ValueError(
                    f"mstraj: segment {seg} has zero duration (via point repeated with tacc = 0)"
                )
        else:
            tseg = float(tseg_a[seg])
        qd = dq / tseg
        tacc2 = n_acc2 * dt
        rows.append(_blend(q, q_prev + tacc2 * qd, qd_prev, qd, n_x, dt))
        # linear part at segment times tacc2 + dt, tacc2 + 2dt, ... <= tseg - tacc2
        n_line = math.floor((tseg - tacc2) / dt - n_acc2 + _STEP_TOL)
        if n_line > 0:
            s = (n_acc2 + np.arange(1, n_line + 1)) * dt / tseg
            line = (1.0 - s)[:, None] * q_prev + s[:, None] * q_next
            rows.append(line)
            q = line[-1]
        q_prev = q_next
        qd_prev = qd
    rows.append(_blend(q, q_prev, qd_prev, qd_final, n_acc2, dt))
    traj = np.concatenate(rows, axis=0)
    if return_time:
        return traj, np.arange(1, traj.shape[0] + 1) * dt
    return traj
