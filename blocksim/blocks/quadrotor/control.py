"""Flight controllers: the position/velocity/altitude loop and the attitude loop."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.aerial.control import ATTITUDE_GAINS, POSITION_GAINS

from . import kernels as qk
from ._params import ModelArg, as_input, flag, model_of, number, shown, vector

__all__ = ["AttitudeController", "PositionController"]

_X = NO_STATE  # read-only, as the generated code passes it


class AttitudeController(Block):
    """Attitude loop of a multirotor: roll, pitch and yaw (or yaw rate) to body torques.

    Equation (:func:`~blocksim.robotics.aerial.control.attitude_control_nb`):
    ``tau = J (Kp e - Kd w) + w x J w`` with ``e = att - (roll, pitch, yaw)`` (yaw error
    wrapped to (-pi, pi]) and ``w`` the body angular velocity; with ``yaw_rate=True`` the third
    command is a yaw rate ``r*`` [rad/s] and ``tau_z = J_zz Kd_z (r* - w_z)``.

    Parameters
    ----------
    model : str, dict or MultirotorModel
        The vehicle (its inertia ``J``), as :class:`MultiRotor`. Default ``"quadrotor"``.
    Kp : float or array_like (3,)
        Angle gains [1/s^2] for roll, pitch, yaw. Default (64, 64, 4).
    Kd : float or array_like (3,)
        Rate gains [1/s]. Default (12.8, 12.8, 4).
    yaw_rate : bool
        The third command is the yaw rate instead of the yaw angle. Default False.

    Inputs
    ------
    att : ndarray (3,)
        Command ``(roll, pitch, yaw)`` [rad] (``(roll, pitch, yaw rate)`` [rad, rad, rad/s]).
    x : ndarray (12,)
        The vehicle state (:class:`MultiRotor`'s ``x``).

    Outputs
    -------
    tau_roll, tau_pitch, tau_yaw : float
        Body torques [N m] for :class:`ControlMixer`.
    """

    def __init__(
        self,
        model: ModelArg = "quadrotor",
        Kp: Any = ATTITUDE_GAINS["Kp"],
        Kd: Any = ATTITUDE_GAINS["Kd"],
        yaw_rate: bool = False,
    ) -> None:
        super().__init__()
        owner = "AttitudeController"
        m = model_of(owner, model)
        self.set_ports(
            inputs=(
                Port("att", shape=(3,), unit="rad", doc="(roll, pitch, yaw)"),
                Port("x", shape=(12,), doc="vehicle state"),
            ),
            outputs=tuple(
                Port(n, shape=(), unit="N m") for n in ("tau_roll", "tau_pitch", "tau_yaw")
            ),
        )
        self._kp = (
            np.array(m.J),
            vector(owner, "Kp", Kp, 3),
            vector(owner, "Kd", Kd, 3),
            flag(owner, "yaw_rate", yaw_rate),
        )

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float, float]:
        return qk.attitude_output(t, _X, as_input(u[0]), as_input(u[1]), self._kp)

    def kernels(self) -> Kernels:
        """``attitude_output``, params ``(J, Kp, Kd, yaw_rate)``."""
        return Kernels(self._kp, output=qk.attitude_output)


class PositionController(Block):
    """Position, velocity and altitude loop of a multirotor: desired position (and velocity)
    to an attitude command and the total thrust.

    Equation (:func:`~blocksim.robotics.aerial.control.position_control_nb`): desired
    acceleration ``a = Kp (c (p* - p0) - (p - p0)) + Kd (v* - v) + Ki xi`` per world axis
    (z down), realised exactly by the thrust ``T = M |g e3 - a|`` along the body axis
    ``z_B = (g e3 - a) / |g e3 - a|`` (tilt limited to ``max_tilt``), whose roll and pitch at
    the desired yaw are the attitude command.

    At rest at its setpoint (``p = p*``, ``v = v* = 0``, ``xi = xi0 = 0``) the command is level
    with the hover thrust ``M g``, wherever the setpoint is: the setpoint weight ``c`` acts on
    positions relative to ``p0``, the vehicle's initial position, not on world coordinates.
    Give ``p0`` equal to the vehicle's initial position (:func:`add_flight_stack` does): a
    vehicle at rest at its setpoint then stays there; with another ``p0`` the weighted
    proportional term sees a step of ``p* - p0`` at t = 0.

    Parameters
    ----------
    model : str, dict or MultirotorModel
        The vehicle (mass ``M``, gravity ``g``) the controller assumes; default
        ``"quadrotor"``.
    Kp : float or array_like (3,)
        Proportional gains per axis x, y, z [1/s^2]. Default (6.75, 6.75, 12).
    Kd : float or array_like (3,)
        Derivative (velocity) gains per axis [1/s]. Default (4.5, 4.5, 6).
    Ki : float or array_like (3,)
        Integral gains per axis [1/s^3]. Default (3.375, 3.375, 8): with ``Kp`` and ``Kd`` a
        triple closed-loop pole at -1.5 rad/s in x and y, -2 rad/s in z.
    yaw : float
        Desired yaw [rad]. Default 0.
    max_tilt : float
        Largest commanded tilt of the thrust from the vertical [rad], in (0, pi/2). Default 0.5.
    velocity : bool
        Add the input ``v`` (desired velocity, feedforward); default False (``v* = 0``).
    xi0 : array_like (3,), optional
        Initial integral of the position error [m s]; default zero, the hover trim of the
        model's mass (a vehicle of another mass ``M_v`` is trimmed by
        :func:`~blocksim.robotics.aerial.control.hover_integral`).
    weight : float or array_like (3,), optional
        Setpoint weight ``c`` of the proportional term, per axis: 1 is a plain PID (the
        default with ``velocity=True``, to track a trajectory); smaller values soften the
        response to setpoint steps (0 acts through the integral only); the default without a
        velocity input is 0.5 (a 1 m step settles to 1 cm in about 5 s, overshoot < 1 %).
    p0 : array_like (3,), optional
        The position [m] (world, z down) the setpoint weight acts about: the vehicle's
        initial position. Default the origin. No effect on an axis whose weight is 1.

    Inputs
    ------
    x : ndarray (12,)
        The vehicle state.
    p : ndarray (3,)
        Desired position in {W} [m], z down.
    v : ndarray (3,)
        Desired velocity in {W} [m/s] (``velocity=True`` only).

    Outputs
    -------
    att : ndarray (3,)
        Attitude command ``(roll, pitch, yaw)`` [rad] for :class:`AttitudeController`.
    T : float
        Total thrust [N] for :class:`ControlMixer`.

    States
    ------
    xi : (3,)
        Integral of the position error ``p* - p`` [m s].
    """

    def __init__(
        self,
        model: ModelArg = "quadrotor",
        Kp: Any = POSITION_GAINS["Kp"],
        Kd: Any = POSITION_GAINS["Kd"],
        Ki: Any = POSITION_GAINS["Ki"],
        yaw: float = 0.0,
        max_tilt: float = 0.5,
        velocity: bool = False,
        xi0: Any = None,
        weight: Any = None,
        p0: Any = None,
    ) -> None:
        super().__init__()
        owner = "PositionController"
        m = model_of(owner, model)
        tilt = number(owner, "max_tilt", max_tilt, positive=True)
        if tilt >= math.pi / 2:
            raise BlockParameterError(
                f"{owner}: parameter 'max_tilt' must be in (0, pi/2) [rad], got {shown(max_tilt)}"
            )
        self._vref = flag(owner, "velocity", velocity)
        ins = [
            Port("x", shape=(12,), doc="vehicle state"),
            Port("p", shape=(3,), unit="m", doc="desired position (world, z down)"),
        ]
        if self._vref:
            ins.append(Port("v", shape=(3,), unit="m/s", doc="desired velocity (world)"))
        names = tuple(p.name for p in ins)
        self.feedthrough = {"att": names, "T": names}
        self.set_ports(
            inputs=ins,
            outputs=(
                Port("att", shape=(3,), unit="rad", doc="(roll, pitch, yaw)"),
                Port("T", shape=(), unit="N", doc="total thrust"),
            ),
        )
        self.set_state(vector(owner, "xi0", xi0, 3, np.zeros(3)), names=("xi_x", "xi_y", "xi_z"))
        self._kp = (
            m.M,
            m.g,
            vector(owner, "Kp", Kp, 3),
            vector(owner, "Kd", Kd, 3),
            vector(owner, "Ki", Ki, 3),
            number(owner, "yaw", yaw),
            tilt,
            vector(owner, "weight", weight, 3, 1.0 if self._vref else 0.5),
            vector(owner, "p0", p0, 3, np.zeros(3)),
        )

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, float]:
        if self._vref:
            return qk.position_vref_output(
                t, as_input(x), as_input(u[0]), as_input(u[1]), as_input(u[2]), self._kp
            )
        return qk.position_output(t, as_input(x), as_input(u[0]), as_input(u[1]), self._kp)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float, float]:
        s, p = u[0], u[1]
        return (float(p[0] - s[0]), float(p[1] - s[1]), float(p[2] - s[2]))

    def kernels(self) -> Kernels:
        """``position_output``/``position_deriv`` (``position_vref_*`` with the velocity
        input), params ``(M, g, Kp, Kd, Ki, yaw, max_tilt, weight, p0)``."""
        if self._vref:
            return Kernels(self._kp, output=qk.position_vref_output, deriv=qk.position_vref_deriv)
        return Kernels(self._kp, output=qk.position_output, deriv=qk.position_deriv)
