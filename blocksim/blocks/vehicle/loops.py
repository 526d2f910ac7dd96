"""The wiring the mobile-robot examples share: a driver closing the loop around a vehicle, and an
XY graph of the path it drives.

Every driver block (:class:`DriveToPoint`, :class:`DriveToPose`, :class:`FollowLine`,
:class:`PurePursuit`, :class:`Braitenberg`) reads the vehicle's ``pose`` and gives a speed ``v``
and a steer ``gamma``: :func:`connect_driver` makes those three connections, and
:func:`add_path_graph` adds the XY graph (equal axes, in metres) of the vehicle's ``x`` and ``y``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim.blocks.sinks.recorders import XYGraph
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram

__all__ = ["add_path_graph", "connect_driver"]


def connect_driver(d: Diagram, vehicle: str = "car", driver: str = "driver") -> None:
    """Wire ``vehicle.pose -> driver.pose``, ``driver.v -> vehicle.v`` and
    ``driver.gamma -> vehicle.gamma`` (blocks named ``vehicle`` and ``driver`` in ``d``)."""
    d.connect(f"{vehicle}.pose", f"{driver}.pose")
    d.connect(f"{driver}.v", f"{vehicle}.v")
    d.connect(f"{driver}.gamma", f"{vehicle}.gamma")


def add_path_graph(
    d: Diagram,
    title: str,
    file: str | Path | None = None,
    show: bool = False,
    vehicle: str = "car",
) -> Block:
    """Add the XY graph ``path`` of ``vehicle.x`` against ``vehicle.y`` [m], equal axes, titled
    ``title``; saved to ``file`` after the run when given."""
    path = d.add(XYGraph(labels=["x [m]", "y [m]"], title=title, file=file, show=show,
                         equal=True), name="path")  # fmt: skip
    d.connect(f"{vehicle}.x", "path.x")
    d.connect(f"{vehicle}.y", "path.y")
    return path
