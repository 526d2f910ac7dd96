"""Constructor-argument checks shared by the multirotor blocks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.blocks._shared import as_input  # noqa: F401 (the family's modules import it from here)
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.aerial.model import MultirotorModel, model_by_name, shown

ModelArg = str | dict[str, Any] | MultirotorModel


def model_of(owner: str, model: Any) -> MultirotorModel:
    """The :class:`MultirotorModel` of a block's ``model`` parameter, or a
    ``BlockParameterError`` naming the block."""
    try:
        return model_by_name(model, f"{owner}: parameter 'model'")
    except (TypeError, ValueError) as exc:
        msg = str(exc)
        if not msg.startswith(owner):
            msg = f"{owner}: parameter 'model': {msg}"
        raise BlockParameterError(msg) from None


def vector(owner: str, name: str, value: Any, n: int, default: Any = None) -> np.ndarray:
    """``value`` as a finite C-contiguous float64 (n,) array (a scalar is repeated)."""
    if value is None:
        value = default
    try:
        arr = np.array(value, dtype=np.float64)
        if arr.ndim == 0:
            arr = np.full(n, float(arr))
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a number or {n} finite numbers, "
            f"got {shown(value)}"
        )
    return np.ascontiguousarray(arr)


def number(
    owner: str, name: str, value: Any, positive: bool = False, nonnegative: bool = False
) -> float:
    """``value`` as a finite float (positive / non-negative when asked)."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if ok:
        value = float(value)
        ok = (
            math.isfinite(value) and (not positive or value > 0) and (not nonnegative or value >= 0)
        )
    if not ok:
        kind = "a positive" if positive else "a non-negative" if nonnegative else "a finite"
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be {kind} number, got {shown(value)}"
        )
    return float(value)


def flag(owner: str, name: str, value: Any) -> bool:
    """``value`` as a bool, or an error."""
    if not isinstance(value, (bool, np.bool_)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be True or False, got {shown(value)}"
        )
    return bool(value)
