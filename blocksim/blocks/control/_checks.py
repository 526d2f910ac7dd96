"""Parameter checks shared by the control-design blocks: matrices of given shapes, covariances,
bounds. Every error is a :class:`~blocksim.engine.errors.BlockParameterError` naming the block
and the parameter, what was expected and what was found."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.blocks.continuous.params import _real_array
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.errors import BlockParameterError, plain


def matrix(owner: str, name: str, value: Any, rows: int | None = None,
           cols: int | None = None) -> np.ndarray:
    """``value`` as a finite C-contiguous float64 matrix (2-D); a scalar is 1 x 1, a 1-D array
    a row when ``rows == 1`` and a column when ``cols == 1`` (else a row). ``rows``/``cols``
    None accept any size >= 1."""
    a = _real_array(owner, name, value)
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(-1, 1) if cols == 1 and rows != 1 else a.reshape(1, -1)
    want = f"({'r' if rows is None else rows}, {'c' if cols is None else cols})"
    if (a.ndim != 2 or a.size == 0 or (rows is not None and a.shape[0] != rows)
            or (cols is not None and a.shape[1] != cols)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a matrix of shape {want}, got shape "
            f"{np.shape(value)}")
    return np.ascontiguousarray(a)


def square(owner: str, name: str, value: Any, n: int | None = None) -> np.ndarray:
    """A finite (n, n) matrix (any n >= 1 when ``n`` is None)."""
    a = matrix(owner, name, value, n, n)
    if a.shape[0] != a.shape[1]:
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a square matrix, got shape {a.shape}")
    return a


def covariance(owner: str, name: str, value: Any, n: int, definite: bool = False) -> np.ndarray:
    """``value`` (an (n, n) matrix, its (n,) diagonal, or a scalar for n = 1) as a symmetric
    positive semi-definite (``definite``: positive definite) float64 matrix."""
    a = _real_array(owner, name, value)
    if a.ndim == 1 and a.shape == (n,):
        a = np.diag(a)
    elif a.ndim == 0 and n == 1:
        a = a.reshape(1, 1)
    if a.shape != (n, n):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a {n}x{n} covariance matrix (or its "
            f"diagonal of {n} numbers), got shape {a.shape}")
    if not np.all(np.abs(a - a.T) <= 1e-10 * (1.0 + np.abs(a))):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be symmetric, got "
                                  f"{plain(a.tolist())}")
    low = float(np.min(np.linalg.eigvalsh(a)))
    if (definite and not low > 0.0) or low < -1e-12 * max(1.0, float(np.max(np.abs(a)))):
        kind = "positive definite" if definite else "positive semi-definite"
        raise BlockParameterError(f"{owner}: parameter '{name}' must be {kind} (smallest "
                                  f"eigenvalue {low:g})")
    return np.ascontiguousarray(0.5 * (a + a.T))


def vector(owner: str, name: str, value: Any, n: int) -> np.ndarray:
    """``value`` as a finite (n,) float64 array (a scalar is broadcast)."""
    a = _real_array(owner, name, value)
    if a.ndim == 0:
        a = np.full(n, float(a))
    a = a.reshape(-1) if a.size == n else a
    if a.shape != (n,):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must have {n} element(s), got shape {np.shape(value)}")
    return np.ascontiguousarray(a)


def bounds(owner: str, name: str, value: Any, n: int, default: float) -> np.ndarray:
    """A bound vector (n,): None is ``default`` (+-inf) everywhere; a scalar is broadcast;
    +-inf allowed, NaN not."""
    if value is None:
        return np.full(n, default)
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be numbers or +-inf, got "
                                  f"{plain(value)}") from None
    if a.ndim == 0:
        a = np.full(n, float(a))
    a = a.reshape(-1)
    if a.shape != (n,) or np.any(np.isnan(a)):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be {n} numbers (or one), "
                                  f"+-inf for no bound, never NaN; got {plain(value)}")
    return np.ascontiguousarray(a)


def ordered(owner: str, lo_name: str, lo: np.ndarray, hi_name: str, hi: np.ndarray) -> None:
    """Refuse ``lo[i] > hi[i]``."""
    bad = np.flatnonzero(lo > hi)
    if bad.size:
        i = int(bad[0])
        raise BlockParameterError(
            f"{owner}: parameter '{lo_name}' must be <= '{hi_name}' element by element, got "
            f"{lo_name}[{i}] = {lo[i]:g} > {hi_name}[{i}] = {hi[i]:g}")


def horizon(owner: str, name: str, value: Any) -> int:
    """A positive integer."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise BlockParameterError(f"{owner}: parameter '{name}' must be an integer >= 1, got "
                                  f"{plain(value)}")
    return int(value)


def positive(owner: str, name: str, value: Any) -> float:
    """A finite float > 0."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (math.isfinite(v) and v > 0.0):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be a number > 0, got "
                                  f"{plain(value)}")
    return v


def sample_clock(owner: str, dt: Any) -> Clock:
    """The clock of a discrete block from its parameter ``dt``: a period [s], a (period,
    offset) pair or a :class:`~blocksim.engine.clock.Clock`; required."""
    if dt is None:
        raise BlockParameterError(
            f"{owner}: parameter 'dt' is required: the sample period in seconds, a (period, "
            f"offset) pair or a Clock, e.g. dt=0.01")
    clock = as_clock(dt, owner)
    assert clock is not None
    if not (clock.period > 0.0 and math.isfinite(clock.period)):
        raise BlockParameterError(f"{owner}: parameter 'dt' must be a period > 0, got "
                                  f"{plain(dt)}")
    return clock


def port_shape(k: int) -> tuple[int, ...]:
    """A signal of ``k`` elements: a scalar port for one, a vector port otherwise."""
    return () if k == 1 else (k,)
