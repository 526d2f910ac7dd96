"""A ready flight stack: plant, position and attitude loops and mixer, wired in a diagram."""

from __future__ import annotations

from typing import Any, NamedTuple

from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram

from .control import AttitudeController, PositionController
from .dynamics import MultiRotor
from .mixer import ControlMixer

__all__ = ["FlightStack", "add_flight_stack"]


class FlightStack(NamedTuple):
    """The blocks :func:`add_flight_stack` added."""

    plant: Block
    pos: Block
    att: Block
    mixer: Block


def add_flight_stack(
    d: Diagram,
    model: Any = "quadrotor",
    x0: Any = None,
    *,
    velocity: bool = False,
    wind: Any = None,
    flapping: bool = True,
    ground: bool = True,
    wmin: float = 100.0,
    wmax: float = 1000.0,
    controller_model: Any = None,
    yaw: float = 0.0,
    max_tilt: float = 0.5,
    names: tuple[str, str, str, str] = ("quad", "pos", "att", "mixer"),
    position_gains: dict[str, Any] | None = None,
    mass: float | None = None,
) -> FlightStack:
    """Add a multirotor under position control to ``d`` and wire it::

        pos.att -> att.att;  pos.T -> mixer.T;  att.tau_* -> mixer.tau_*;
        mixer.omega -> quad.omega;  quad.x -> pos.x, att.x

    The caller wires the desired position to ``pos.p`` (and velocity to ``pos.v`` with
    ``velocity=True``).

    Parameters
    ----------
    d : Diagram
        Where the blocks are added.
    model : str, dict or MultirotorModel
        The vehicle (:class:`MultiRotor`); default ``"quadrotor"``.
    x0, wind, flapping, ground :
        As :class:`MultiRotor`.
    velocity, yaw, max_tilt :
        As :class:`PositionController`.
    wmin, wmax : float
        Rotor speed limits [rad/s] of the :class:`ControlMixer`.
    controller_model : optional
        The model the controllers and the mixer assume (default ``model``): a different one
        makes a model mismatch (e.g. another mass).
    names : 4 str
        Block names of the plant, position loop, attitude loop and mixer.
    position_gains : dict, optional
        Keywords ``Kp``, ``Kd``, ``Ki``, ``weight``, ``xi0``, ``p0`` for the
        :class:`PositionController`; ``p0`` defaults to the initial position of ``x0``, so that
        a vehicle at rest at its setpoint stays there wherever it is.
    mass : float, optional
        The vehicle's mass [kg] (:class:`MultiRotor`'s ``M``); the controllers and the mixer
        keep assuming the model's.

    Returns
    -------
    FlightStack
        The four blocks.
    """
    cm = model if controller_model is None else controller_model
    plant = d.add(
        MultiRotor(model, x0=x0, wind=wind, flapping=flapping, ground=ground, M=mass),
        name=names[0],
    )
    gains = dict(position_gains or {})
    gains.setdefault("p0", plant.x0[:3].tolist())  # the setpoint weight acts about the start
    pos = d.add(
        PositionController(cm, yaw=yaw, max_tilt=max_tilt, velocity=velocity, **gains),
        name=names[1],
    )
    att = d.add(AttitudeController(cm), name=names[2])
    mixer = d.add(ControlMixer(cm, wmin=wmin, wmax=wmax), name=names[3])
    d.connect(plant["x"], pos["x"], att["x"])
    d.connect(pos["att"], att["att"])
    d.connect(pos["T"], mixer["T"])
    for axis in ("tau_roll", "tau_pitch", "tau_yaw"):
        d.connect(att[axis], mixer[axis])
    d.connect(mixer["omega"], plant["omega"])
    return FlightStack(plant, pos, att, mixer)
