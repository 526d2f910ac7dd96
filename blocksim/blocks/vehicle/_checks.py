"""Parameter checks shared by the vehicle blocks: every error names the block and parameter."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.mobile._messages import plain


def positive(owner: str, name: str, value: Any, allow_inf: bool = False) -> float:
    """``value`` as a float > 0 (finite unless ``allow_inf``)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a number > 0, got {plain(value)}"
        ) from None
    if not v > 0 or (math.isinf(v) and not allow_inf) or math.isnan(v):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be > 0, got {plain(value)}")
    return v


def finite(owner: str, name: str, value: Any) -> float:
    """``value`` as a finite float."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a finite number, got {plain(value)}"
        )
    return v


def finites(owner: str, **values: Any) -> tuple[float, ...]:
    """The keyword ``values`` as finite floats, in order (:func:`finite` on each)."""
    return tuple(finite(owner, name, v) for name, v in values.items())


def vector(owner: str, name: str, value: Any, n: int, what: str) -> np.ndarray:
    """``value`` as a finite float64 array of shape (n,)."""
    try:
        a = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        a = np.zeros(0)
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be {what} ({n} finite numbers), got {plain(value)}"
        )
    return np.ascontiguousarray(a)


def covariance(owner: str, name: str, value: Any, n: int) -> np.ndarray:
    """``value`` (an (n, n) matrix or the (n,) diagonal) as a symmetric PSD covariance."""
    try:
        M = np.array(value, dtype=float)
    except (TypeError, ValueError):
        M = np.zeros(0)
    if M.shape == (n,):
        M = np.diag(M)
    if M.shape != (n, n) or not np.all(np.isfinite(M)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a {n}x{n} covariance matrix (or its diagonal), "
            f"got {plain(value)}"
        )
    # np.allclose(M, M.T) written out (the same test; allclose's overhead was a quarter of
    # rebuilding a filter block for each member of a batch)
    symmetric = bool(np.all(np.abs(M - M.T) <= 1e-8 + 1e-5 * np.abs(M.T)))
    if not symmetric or np.min(np.linalg.eigvalsh(M)) < -1e-12:
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be symmetric positive semi-definite"
        )
    return np.ascontiguousarray(M)


def landmarks(owner: str, value: Any, dim: float, seed: int) -> np.ndarray:
    """Landmark positions (N, 2): a count drawn like :class:`LandmarkMap`, or given."""
    from blocksim.robotics.mobile import LandmarkMap

    try:
        return LandmarkMap(value, dim, seed).landmarks
    except (ValueError, TypeError) as exc:
        raise BlockParameterError(f"{owner}: parameter 'landmarks': {exc}") from None


def as_key(seed: Any, owner: str, name: str | None) -> int:
    """The signed 64-bit stream key of ``seed`` (None: derived from the block name)."""
    from blocksim.blocks.sources.random_streams import name_seed, signed_key, stream_key

    if seed is None:
        seed = name_seed(name or owner)
    try:
        s = int(seed)
    except (TypeError, ValueError):
        raise BlockParameterError(f"{owner}: parameter 'seed' must be an integer or None") from None
    if s < 0:
        raise BlockParameterError(f"{owner}: parameter 'seed' must be >= 0, got {plain(seed)}")
    return signed_key(stream_key(s & 0xFFFF_FFFF_FFFF_FFFF))
