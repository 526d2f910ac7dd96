"""The Toolbox's take-off-and-circle demo (RTB ``sl_quadrotor``, ``sl_hexarotor``) for any
number of rotors: one builder, parametrised by the vehicle model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.diagram import Diagram

from .flight import add_flight_stack

__all__ = ["circle_flight", "circle_summary", "circle_tracking_error"]


def circle_flight(
    model: Any = "quadrotor",
    *,
    name: str = "sl_quadrotor",
    radius: float = 1.0,
    altitude: float = 2.0,
    frequency: float = 0.1,
    weight: Sequence[float] = (1.0, 1.0, 0.5),
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
) -> Diagram:
    """A multirotor takes off from the ground at ``(radius, 0, 0)`` and follows a point moving
    on a circle (blocks ``circle`` (:class:`~blocksim.blocks.arm.CirclePath`), ``quad``,
    ``pos``, ``att``, ``mixer`` and ``scope``).

    Parameters
    ----------
    model : str, dict or MultirotorModel
        The vehicle (:class:`MultiRotor`): ``"quadrotor"``, ``"hexarotor"``, ``"octorotor"``...
    name : str
        The diagram's name.
    radius : float
        Radius of the circle [m], centred above the origin.
    altitude : float
        Height of the circle above the ground [m].
    frequency : float
        Revolutions per second of the reference point [1/s].
    weight : 3 floats
        Setpoint weights of the position loop (x, y, altitude); it has velocity feedforward
        from the circle and acts about the start on the ground.
    scope_file : str or Path, optional
        Where the scope (position, reference, rotor speeds) saves its figure.
    show : bool
        Show the scope's figure after the run.
    with_scope : bool
        Add the scope.

    Returns
    -------
    Diagram
        The wired diagram.
    """
    from blocksim.blocks.arm import CirclePath
    from blocksim.blocks.sinks import Scope

    d = Diagram(name)
    circle = d.add(
        CirclePath(radius=radius, centre=[0.0, 0.0, -altitude], frequency=frequency),
        name="circle",
    )
    stack = add_flight_stack(
        d,
        model,
        x0=[radius, 0.0, 0.0],
        velocity=True,
        position_gains={"weight": list(weight)},
    )
    d.connect(circle["p"], stack.pos["p"])
    d.connect(circle["pd"], stack.pos["v"])
    if with_scope:
        scope = d.add(
            Scope(
                3,
                labels=["position", "reference", "rotor speeds"],
                units=["m", "m", "rad/s"],
                title=f"{name}: take-off and circle",
                file=scope_file,
                show=show,
            ),
            name="scope",
        )
        d.connect(stack.plant["p"], scope["u0"])
        d.connect(circle["p"], scope["u1"])
        d.connect(stack.mixer["omega"], scope["u2"])
    return d


def circle_tracking_error(result: Any) -> np.ndarray:
    """Distance [m] between the vehicle (``quad``) and the reference point (``circle``) at
    each recorded time of a run of :func:`circle_flight`."""
    return np.linalg.norm(result["quad.x"][:, :3] - result["circle.p"], axis=1)


def circle_summary(result: Any, settled: float = 8.0) -> str:
    """The largest tracking error after ``settled`` seconds of a run of :func:`circle_flight`,
    and the run's cost (right-hand-side evaluations, wall time)."""
    err = circle_tracking_error(result)
    return (
        f"tracking error after {settled:g} s: max {err[result.t >= settled].max() * 100:.2f} cm; "
        f"{result.stats['nfev']} RHS evaluations, wall {result.stats['wall_time'] * 1e3:.0f} ms"
    )
