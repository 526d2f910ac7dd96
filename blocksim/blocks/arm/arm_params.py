"""Parameter checks and signal conversions shared by the arm blocks.

Every block over a :class:`~blocksim.robotics.arm.SerialLink` keeps its own copy of the robot
(:func:`robot_copy`), validates its constructor arguments with the ``check_*`` functions (a
:class:`~blocksim.engine.errors.BlockParameterError` naming the block class and the parameter),
packs its kernel parameters as fresh C-contiguous float64 arrays (:func:`param_array`) and
converts its inputs with :func:`signal`, so that the numba kernels always see the one array
type they were compiled for.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError, plain, suggest
from blocksim.robotics.arm import SerialLink

__all__ = ["EMPTY", "as_float", "check_bool", "check_choice", "check_real", "check_vector",
           "joint_port", "param_array", "robot_copy", "signal"]

#: the empty state of a stateless block, read-only like the compiled back-end's (one numba
#: signature for both back-ends): :data:`blocksim.blocks._shared.NO_STATE`
EMPTY = NO_STATE


def robot_copy(owner: str, robot: Any) -> SerialLink:
    """The block's own copy of ``robot``; :class:`BlockParameterError` unless it is a
    SerialLink with at least one joint."""
    if not isinstance(robot, SerialLink):
        raise BlockParameterError(
            f"{owner}: parameter 'robot' must be a SerialLink (e.g. "
            f"blocksim.robotics.models.puma560()), got {type(robot).__name__}")
    if robot.n == 0:
        raise BlockParameterError(f"{owner}: the robot {plain(robot.name)} has no joints")
    return robot.copy()


def param_array(a: Any) -> np.ndarray:
    """A fresh writable C-contiguous float64 copy (a kernel parameter)."""
    return np.array(a, dtype=np.float64, order="C", copy=True)


def signal(v: Any) -> np.ndarray:
    """An input signal as a fresh writable C-contiguous float64 array (inputs may be read-only
    views; the numba kernels then see the one array type they were compiled for)."""
    return np.array(v, dtype=np.float64, order="C", copy=True)


def check_bool(owner: str, name: str, value: Any) -> bool:
    """``value`` if it is a bool, else :class:`BlockParameterError`."""
    if not isinstance(value, (bool, np.bool_)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be True or False, got {plain(value)}")
    return bool(value)


def check_choice(owner: str, name: str, value: Any, choices: tuple[Any, ...]) -> Any:
    """``value`` if it is one of ``choices``, else :class:`BlockParameterError`."""
    if not any(value is c or (isinstance(value, str) and value == c) for c in choices):
        names = [c for c in choices if isinstance(c, str)]
        hint = suggest(value, names) if isinstance(value, str) else ""
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be one of {', '.join(map(repr, choices))}, "
            f"got {plain(value)}{hint}")
    return value


def as_float(owner: str, name: str, value: Any, what: str = "a real number") -> float:
    """``value`` as a float (not a bool), else :class:`BlockParameterError` saying it must be
    ``what``."""
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be {what}, got {plain(value)}") from None


def check_real(owner: str, name: str, value: Any, *, positive: bool = False,
               nonnegative: bool = False) -> float:
    """A finite real number (optionally > 0 or >= 0), else :class:`BlockParameterError`."""
    v = as_float(owner, name, value)
    if not math.isfinite(v) or (positive and v <= 0.0) or (nonnegative and v < 0.0):
        need = "> 0" if positive else (">= 0" if nonnegative else "finite")
        raise BlockParameterError(f"{owner}: parameter '{name}' must be {need}, got {v}")
    return v


def check_vector(owner: str, name: str, value: Any, size: int, default: Any) -> np.ndarray:
    """``value`` (or ``default`` when None) as a finite float64 (size,) array."""
    try:
        v = np.array(default if value is None else value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be {size} real numbers, got "
            f"{plain(value)}") from None
    if v.shape != (size,) or not np.all(np.isfinite(v)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be {size} finite real numbers, got shape "
            f"{np.shape(value)}: {plain(value)}")
    return v


def joint_port(name: str, n: int, doc: str) -> Port:
    """An (n,) joint-space port."""
    return Port(name, shape=(n,), doc=doc)
