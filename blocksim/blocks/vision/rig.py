"""The image-based visual servo set-up shared by the IBVS examples (a free-flying camera, a camera
on a Puma 560, a camera under a quadrotor).

:func:`add_ibvs` adds the camera and the IBVS law and wires them to a camera pose;
:func:`add_ibvs_sinks` adds the scope of the image points (and one more signal) and the
image-plane animation; :func:`ibvs_files` names their files and :func:`image_error` is the
measure the examples print and test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from blocksim.blocks.sinks.animations import ImagePlane
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.blocks.vision.camera import Camera
from blocksim.blocks.vision.servo import IBVS
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram
from blocksim.engine.record import SimResult

__all__ = ["IBVSLoop", "add_ibvs", "add_ibvs_sinks", "ibvs_files", "image_error"]


class IBVSLoop(NamedTuple):
    """The blocks :func:`add_ibvs` added."""

    camera: Block
    ibvs: Block


def add_ibvs(d: Diagram, pose: Any, P: Any, uv_star: Any, lam: float) -> IBVSLoop:
    """Add the blocks ``cam`` (:class:`Camera` of the world points ``P``) and ``ibvs``
    (:class:`IBVS` towards ``uv_star`` with gain ``lam`` [1/s]) to ``d``, in that order, and wire
    ``pose -> cam.pose``, ``cam.uv -> ibvs.uv`` and ``cam.depth -> ibvs.depth``. The caller
    connects ``ibvs`` (the camera velocity, camera frame) to what moves the camera."""
    cam = d.add(Camera(P=P), name="cam")
    ibvs = d.add(IBVS(uv_star, lam=lam), name="ibvs")
    d.connect(pose, cam["pose"])
    d.connect(cam["uv"], ibvs["uv"])
    d.connect(cam["depth"], ibvs["depth"])
    return IBVSLoop(cam, ibvs)


def add_ibvs_sinks(
    d: Diagram,
    uv_star: Any,
    signal: Any,
    label: str,
    units: str,
    title: str,
    image_title: str,
    *,
    fps: float = 5.0,
    scope_file: str | Path | None = None,
    gif_file: str | Path | None = None,
    show: bool = False,
) -> tuple[Block, Block]:
    """Add the scope ``scope`` (``cam.uv`` [pixel] and ``signal``, labelled ``label`` in
    ``units``) and the image-plane animation ``image`` (:class:`ImagePlane` with the desired
    points ``uv_star``, ``fps`` frames per second of simulated time, a GIF at ``gif_file``)."""
    scope = add_scope(d, ["cam.uv", signal], labels=["uv", label], units=["pixel", units],
                      title=title, file=scope_file, show=show)  # fmt: skip
    image = d.add(ImagePlane(filename=gif_file, uv_star=uv_star, fps=fps, title=image_title,
                             show=show), name="image")  # fmt: skip
    d.connect("cam.uv", image)
    return scope, image


def ibvs_files(out_dir: str | Path | None, name: str) -> tuple[Path | None, Path | None]:
    """``(<name>.png, <name>.gif)`` in ``out_dir``, or ``(None, None)`` without one."""
    if out_dir is None:
        return None, None
    return Path(out_dir) / f"{name}.png", Path(out_dir) / f"{name}.gif"


def image_error(result: SimResult, uv_star: Any) -> np.ndarray:
    """Image error ``|uv - uv*|`` [pixel] of ``cam.uv`` at each recorded time."""
    return np.linalg.norm(result["cam.uv"] - uv_star, axis=(1, 2))
