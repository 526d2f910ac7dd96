"""RTB multi-axis point-to-point trajectories: ``jtraj`` (quintic) and ``mtraj``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .profiles import quintic_sampled
from .timebase import as_axes, steps_or_times

Profile = tuple[np.ndarray, np.ndarray, np.ndarray]


def jtraj(
    q0: ArrayLike,
    qf: ArrayLike,
    m_or_t: int | ArrayLike,
    qd0: ArrayLike | None = None,
    qdf: ArrayLike | None = None,
) -> Profile:
    """Joint-space quintic trajectory (RTB ``jtraj``).

    Each joint follows the quintic of
    :func:`~blocksim.robotics.trajectory.profiles.quintic_at` (zero end accelerations).

    Parameters
    ----------
    q0, qf : array_like, shape (n,)
        Initial and final joint coordinates [rad or m].
    m_or_t : int or array_like, shape (M,)
        Number of steps ``M``: time runs from 0 to 1 in ``M`` steps (velocities per unit of
        normalized time, as in RTB); or a time vector [s] (duration ``max(t)``, velocities
        per second).
    qd0, qdf : array_like, shape (n,), optional
        Initial and final joint velocities, in the same time unit; default zero.

    Returns
    -------
    q, qd, qdd : ndarray, shape (M, n)
        One row per time step, one column per joint.
    """
    a0 = as_axes(q0, None, "q0")
    n = a0.shape[0]
    af = as_axes(qf, n, "qf")
    v0 = np.zeros(n) if qd0 is None else as_axes(qd0, n, "qd0")
    vf = np.zeros(n) if qdf is None else as_axes(qdf, n, "qdf")
    times, T = steps_or_times(m_or_t, normalized=True)
    return quintic_sampled(a0, af, v0, vf, T, times)


def mtraj(
    tfunc: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]],
    q0: ArrayLike,
    qf: ArrayLike,
    m_or_t: int | ArrayLike,
) -> Profile:
    """Multi-axis trajectory built from a scalar trajectory function (RTB ``mtraj``).

    Parameters
    ----------
    tfunc : callable
        ``(s, sd, sdd) = tfunc(s0, sf, m_or_t)``, e.g.
        :func:`~blocksim.robotics.trajectory.scalar.tpoly` or
        :func:`~blocksim.robotics.trajectory.scalar.lspb`.
    q0, qf : array_like, shape (n,)
        Initial and final coordinates.
    m_or_t : int or array_like, shape (M,)
        Number of steps or time vector, passed to ``tfunc`` unchanged.

    Returns
    -------
    q, qd, qdd : ndarray, shape (M, n)
        One row per time step, one column per axis. With ``tpoly`` and a time vector this
        equals :func:`jtraj` with zero end velocities (with a step count the time bases
        differ: ``tpoly`` counts steps, ``jtraj`` normalizes to [0, 1]).
    """
    a0 = as_axes(q0, None, "q0")
    af = as_axes(qf, a0.shape[0], "qf")
    columns = [tfunc(float(s0), float(sf), m_or_t) for s0, sf in zip(a0, af)]
    q, qd, qdd = (
        np.column_stack([np.asarray(c[k], dtype=np.float64) for c in columns]) for k in range(3)
    )
    return q, qd, qdd
