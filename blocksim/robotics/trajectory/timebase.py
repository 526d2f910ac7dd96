"""The RTB "number of steps or time vector" argument of the trajectory generators."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from blocksim._messages import plain


def steps_or_times(m_or_t: int | ArrayLike, *, normalized: bool) -> tuple[np.ndarray, float]:
    """Sample times and duration from RTB's ``M`` (number of steps) or ``t`` (time vector).

    Parameters
    ----------
    m_or_t : int or array_like, shape (M,)
        A number of steps ``M >= 2`` or a time vector [s] (any length ``>= 1``, largest value
        ``> 0``; the profile always starts at t = 0 and lasts ``max(t)``).
    normalized : bool
        What a step count means. ``True`` (``jtraj``): time runs from 0 to 1 in ``M`` steps,
        ``t = (0, 1, ..., M-1)/(M-1)``, duration 1. ``False`` (``tpoly``, ``lspb``): time is
        the step index, ``t = 0, 1, ..., M-1``, duration ``M - 1`` (velocities per step).

    Returns
    -------
    times : ndarray, shape (M,)
        C-contiguous float64 sample times.
    T : float
        Duration of the profile, ``max(times)``.
    """
    if np.ndim(m_or_t) == 0:
        m = m_or_t.item() if isinstance(m_or_t, np.ndarray) else m_or_t
        if isinstance(m, bool) or not isinstance(m, numbers.Real) or m != int(m) or m < 2:
            raise ValueError(
                f"number of steps must be an integer >= 2 (or pass a time vector), got {plain(m)}"
            )
        m = int(m)
        steps = np.arange(m, dtype=np.float64)
        if normalized:
            return steps / (m - 1), 1.0
        return steps, float(m - 1)
    times = np.ascontiguousarray(m_or_t, dtype=np.float64)
    if times.ndim != 1 or times.size == 0:
        raise ValueError(f"time vector must be 1-D and non-empty, got shape {times.shape}")
    if not np.all(np.isfinite(times)):
        raise ValueError("time vector must be finite")
    T = float(times.max())
    if T <= 0.0:
        raise ValueError(f"time vector must reach a positive time, max(t) = {T}")
    return times, T


def as_axes(x: ArrayLike, n: int | None, name: str) -> np.ndarray:
    """``x`` as a C-contiguous float64 vector of shape ``(n,)`` (a scalar is broadcast).

    ``n=None`` takes the length from ``x`` (a scalar becomes shape ``(1,)``).
    """
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        a = np.full(1 if n is None else n, float(a))
    elif a.ndim != 1 or (n is not None and a.shape[0] != n):
        expected = "(n,)" if n is None else f"({n},)"
        raise ValueError(f"{name} must have shape {expected}, got {a.shape}")
    return np.ascontiguousarray(a)
