"""Plan, then drive: the set-up and the map figure shared by the planning examples.

A planner block (``plan``: a :class:`NavigationField` or a :class:`PathCarrot`) gives a
look-ahead point, a :class:`~blocksim.blocks.vehicle.PurePursuit` driver (``driver``) steers a
vehicle to it, and the vehicle's pose is fed back to both (:func:`add_plan_and_drive`). After
the run the examples draw the map with the planner's field or path and the vehicle's path, and
:func:`run_with_map` runs a diagram, makes that figure and keeps it in ``result.figures["map"]``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram
from blocksim.engine.record import SimResult

__all__ = ["add_plan_and_drive", "run_with_map"]


def add_plan_and_drive(
    d: Diagram,
    planner: Block,
    vehicle: Block,
    vehicle_name: str = "robot",
    Kv: float = 2.0,
    Kh: float = 4.0,
    turn: str = "w",
) -> None:
    """Add ``planner`` as ``plan``, a pure-pursuit ``driver`` (gains ``Kv``, ``Kh``; no integral
    action, no standoff) and ``vehicle`` as ``vehicle_name`` to ``d``, in that order, and wire::

        vehicle.pose -> plan.pose, driver.pose;   plan.target -> driver.target
        driver.v -> vehicle.v;   driver.gamma -> vehicle.<turn>

    ``turn`` is the vehicle's steering input: ``"w"`` for a unicycle (then ``Kh`` times the
    bearing is the turn rate), ``"gamma"`` for a bicycle.
    """
    from blocksim.blocks.vehicle.drivers import PurePursuit

    d.add(planner, name="plan")
    d.add(PurePursuit(dstar=0.0, Kv=Kv, Ki=0.0, Kh=Kh), name="driver")
    d.add(vehicle, name=vehicle_name)
    d.connect(f"{vehicle_name}.pose", "plan.pose")
    d.connect(f"{vehicle_name}.pose", "driver.pose")
    d.connect("plan.target", "driver.target")
    d.connect("driver.v", f"{vehicle_name}.v")
    d.connect("driver.gamma", f"{vehicle_name}.{turn}")


def run_with_map(
    diagram: Diagram,
    plot: Callable[..., Any],
    T: float,
    file: str | Path | None = None,
    show: bool = False,
    **options: Any,
) -> SimResult:
    """Simulate ``diagram`` for ``T`` seconds (``max_step`` 0.05 s unless given), then make the
    map figure ``plot(result, diagram, show)``, keep it in ``result.figures["map"]`` and save it
    to ``file`` when given.

    Parameters
    ----------
    diagram : Diagram
        The plan-and-drive diagram.
    plot : callable
        ``plot(result, diagram, show) -> Figure``: the example's map figure.
    T : float
        Simulated time [s].
    file : str or Path, optional
        Where the figure is saved (PNG, 100 dpi).
    show : bool
        Show the figure.
    **options
        Passed on to :func:`~blocksim.simulate`.
    """
    from blocksim.engine.simulate import simulate

    options.setdefault("max_step", 0.05)
    result = simulate(diagram, T, **options)
    fig = plot(result, diagram, show)
    result.figures["map"] = fig
    if file is not None:
        fig.savefig(file, dpi=100)
    return result
