"""Multirotor (N-rotor) flying-robot blocks: plant, control mixer, flight controllers.

Wiring of a position-controlled flight (shapes for N rotors)::

    p* (3,) --> PositionController --att (3,)--> AttitudeController --tau_roll/pitch/yaw-->
                      ^      --T------------------------------------------------------+
                      |                                                                v
                      +----------- x (12,) --- MultiRotor <--omega (N,)-- ControlMixer

* :class:`MultiRotor`: the 12-state plant (:mod:`blocksim.robotics.aerial.dynamics`), z down,
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``, ground contact by an event.
* :class:`ControlMixer`: the exact inverse of the thrust/torque map, with speed limits.
* :class:`PositionController`, :class:`AttitudeController`: the cascade of
  :mod:`blocksim.robotics.aerial.control`, tuned for the Toolbox quadrotor.
* :func:`add_flight_stack`: the four blocks above added to a diagram and wired; the
  position loop's setpoint weight acts about the start, so a vehicle at rest at its setpoint
  stays there wherever it is.
* :func:`circle_flight`: the Toolbox's take-off-and-circle demo for any number of rotors.
* :class:`CameraMount`: the pose of a (stabilised) camera carried by the vehicle.
* :class:`MultiRotorPlot`: the 3-D animation sink (:mod:`blocksim.viz.multirotor_plot`).

Every block except the post-run animation sink has compiled kernels (:mod:`.kernels`).
"""

from .camera_mount import CameraMount
from .circle import circle_flight, circle_tracking_error
from .control import AttitudeController, PositionController
from .dynamics import MultiRotor
from .flight import FlightStack, add_flight_stack
from .mixer import ControlMixer
from .plot import MultiRotorPlot

__all__ = [
    "AttitudeController",
    "CameraMount",
    "ControlMixer",
    "FlightStack",
    "MultiRotor",
    "MultiRotorPlot",
    "PositionController",
    "add_flight_stack",
    "circle_flight",
    "circle_tracking_error",
]
