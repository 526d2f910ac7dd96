"""Parameter checks shared by the continuous and discrete linear blocks: finite reals, limits,
real arrays, positive reals and state-space matrices. Errors are
:class:`~blocksim.engine.errors.BlockParameterError` naming the block and the parameter."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.engine.errors import BlockParameterError, plain


# -- helpers
def _finite_float(owner: str, name: str, value: Any) -> float:
    """``float(value)``, raising :class:`BlockParameterError` unless it is a finite real."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a real number, got {plain(value)}") from None
    if not math.isfinite(v):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be finite, got {v}")
    return v


def _limit(owner: str, name: str, value: Any, default: float) -> float:
    """A scalar limit: a real number or +-inf (not NaN)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a real number or +-inf, got {plain(value)}"
        ) from None
    if math.isnan(v):
        raise BlockParameterError(f"{owner}: parameter '{name}' is NaN; use {default} for no "
                                  f"limit")
    return v


def _real_array(owner: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a finite float64 array, raising :class:`BlockParameterError` otherwise."""
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be an array of real numbers, got {plain(value)}"
        ) from None
    if not np.all(np.isfinite(a)):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be finite, got {plain(value)}")
    return a


def _positive(owner: str, name: str, value: Any) -> float:
    v = _finite_float(owner, name, value)
    if v <= 0.0:
        raise BlockParameterError(f"{owner}: parameter '{name}' must be > 0, got {v}")
    return v


def check_state_space(owner: str, A: Any, B: Any, C: Any, D: Any, x0: Any,
                      static_hint: str) -> tuple[np.ndarray, ...]:
    """Validate and shape state-space matrices: A (n, n), B (n, m), C (p, n), D (p, m) (zeros
    when None) and x0 (n,) (zeros when None); a 1-D B is a column, a 1-D C a row. Errors name
    ``owner``, the matrix, the expected and the found shape; ``static_hint`` is added when A is
    empty."""
    Aa = _real_array(owner, "A", A)
    Ba = _real_array(owner, "B", B)
    Ca = _real_array(owner, "C", C)
    if Aa.ndim == 0:
        Aa = Aa.reshape(1, 1)
    if Aa.ndim != 2 or Aa.shape[0] != Aa.shape[1] or Aa.size == 0:
        raise BlockParameterError(
            f"{owner}: A must be a non-empty square matrix (n, n), got shape {Aa.shape}"
            + (static_hint if Aa.size == 0 else ""))
    n = Aa.shape[0]
    if Ba.ndim == 0:
        Ba = Ba.reshape(1, 1)
    elif Ba.ndim == 1:
        Ba = Ba.reshape(-1, 1)
    if Ba.ndim != 2 or Ba.shape[0] != n or Ba.shape[1] == 0:
        raise BlockParameterError(
            f"{owner}: B must have shape (n, m) = ({n}, m) with m >= 1 to match A "
            f"{Aa.shape}, got shape {Ba.shape}")
    m = Ba.shape[1]
    if Ca.ndim <= 1:
        Ca = Ca.reshape(1, -1)
    if Ca.ndim != 2 or Ca.shape[1] != n or Ca.shape[0] == 0:
        raise BlockParameterError(
            f"{owner}: C must have shape (p, n) = (p, {n}) with p >= 1 to match A "
            f"{Aa.shape}, got shape {Ca.shape}")
    p = Ca.shape[0]
    if D is None:
        Da = np.zeros((p, m))
    else:
        Da = _real_array(owner, "D", D)
        if Da.ndim < 2 and Da.size == p * m and (p == 1 or m == 1):
            Da = Da.reshape(p, m)
        if Da.shape != (p, m):
            raise BlockParameterError(
                f"{owner}: D must have shape (p, m) = ({p}, {m}) to match C {Ca.shape} and "
                f"B {Ba.shape}, got shape {Da.shape}")
    if x0 is None:
        x0a = np.zeros(n)
    else:
        x0a = _real_array(owner, "x0", x0)
        if x0a.size != n:
            raise BlockParameterError(
                f"{owner}: x0 must have shape ({n},) to match A {Aa.shape}, got shape "
                f"{x0a.shape}")
        x0a = x0a.reshape(-1)
    return Aa, Ba, Ca, Da, x0a
