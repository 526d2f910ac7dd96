"""Constructor-argument checks shared by the vision blocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from blocksim.blocks._shared import as_input  # noqa: F401 (the family's modules import it from here)
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.camera import CentralCamera


def intrinsics(owner: str, f: Any, rho: Any, pp: Any, resolution: Any) -> CentralCamera:
    """A :class:`CentralCamera` at the origin from the block's keywords, or a
    ``BlockParameterError`` naming the block."""
    try:
        return CentralCamera(f=f, rho=rho, pp=pp, resolution=resolution)
    except (TypeError, ValueError) as exc:
        raise BlockParameterError(f"{owner}: {str(exc).removeprefix('CentralCamera: ')}") \
            from None


def packed(cam: CentralCamera) -> tuple[float, float, float, float]:
    """Kernel parameters ``(fu, fv, u0, v0)`` of a camera."""
    return (cam.fu, cam.fv, cam.u0, cam.v0)


def checked(owner: str, name: str, value: Any, convert: Callable[..., np.ndarray],
            *args: Any) -> np.ndarray:
    """``convert(value, *args, label)`` as a writeable C-contiguous float64 array of finite
    values (``label`` names the block and parameter in ``convert``'s ValueError); a
    ``BlockParameterError`` naming the block and the parameter otherwise."""
    try:
        arr = convert(value, *args, f"{owner}: parameter '{name}'")
    except (TypeError, ValueError) as exc:
        raise BlockParameterError(str(exc)) from None
    arr = np.array(arr, dtype=np.float64, order="C")
    if not np.all(np.isfinite(arr)):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be finite")
    return arr
