"""The multirotor plant: N-rotor rigid-body dynamics with blade flapping and ground contact."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.aerial.params import dynamics_params

from . import kernels as qk
from ._params import ModelArg, as_input, flag, model_of, number, shown, vector

__all__ = ["MultiRotor"]

STATE_NAMES = ("x", "y", "z", "roll", "pitch", "yaw", "vx", "vy", "vz", "wx", "wy", "wz")


def initial_state(owner: str, x0: Any) -> np.ndarray:
    """The 12-state initial condition from ``x0`` of length 3 (position), 4 (position, yaw),
    6 (position, roll, pitch, yaw) or 12 (the whole state), the rest zero (RTB's rule)."""
    if x0 is None:
        return np.zeros(12)
    try:
        a = np.array(x0, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        a = np.zeros(0)
    if a.size not in (3, 4, 6, 12) or not np.all(np.isfinite(a)):
        raise BlockParameterError(
            f"{owner}: parameter 'x0' must be 3 (x, y, z), 4 (x, y, z, "
            f"yaw), 6 (x, y, z, roll, pitch, yaw) or 12 finite numbers, "
            f"got {shown(x0)}"
        )
    x = np.zeros(12)
    if a.size == 4:
        x[:3], x[5] = a[:3], a[3]
    else:
        x[: a.size] = a
    return x


class MultiRotor(Block):
    """N-rotor flying robot (RTB roblocks *N-rotor* / *Quadrotor*, bdsim *MULTIROTOR*).

    The rigid body of :mod:`blocksim.robotics.aerial.dynamics`: rotor thrust ``b omega^2``,
    drag torque ``k omega^2``, blade flapping, gravity, optional constant wind; world frame z
    down (altitude ``-z``), attitude ``R = Rz(yaw) Ry(pitch) Rx(roll)``.

    Ground contact (``ground=True``): the ground is the plane ``z = 0``. Reaching it is a
    located zero crossing (``-z`` falling through 0) whose event is a plastic impact (velocities
    zeroed, attitude kept); the vehicle then rests, derivatives zero, while its net force
    presses it onto the ground, and takes off when the thrust exceeds the weight.

    Parameters
    ----------
    model : str, dict or MultirotorModel
        ``"quadrotor"`` (default, the Toolbox's ``mdl_quadrotor``), ``"hexarotor"``,
        ``"octorotor"``, a dict of model parameters (e.g. ``{"nrotors": 6, "M": 4.5}``, with
        an optional ``"base"`` name) or a :class:`~blocksim.robotics.aerial.MultirotorModel`;
        diagram files take the names only (see ``M``).
    x0 : array_like, optional
        Initial state: 3 (position [m]), 4 (position, yaw [rad]), 6 (position, roll, pitch,
        yaw) or 12 values (the state below); the rest zero. Default: all zero (on the ground).
    wind : array_like (3,), optional
        Constant wind velocity in {W} [m/s]; it acts through the blade flapping. Default zero.
    flapping : bool
        Model blade flapping (default True); False: thrust along ``-z_B`` only.
    ground : bool
        Ground contact at ``z = 0`` by an event (default True).
    M : float, optional
        Mass [kg] instead of the model's (for mass sweeps and Monte Carlo runs: a diagram
        file can name a model but not hold a dict of model parameters).

    Inputs
    ------
    omega : ndarray (N,)
        Rotor speeds [rad/s], signed (positive: clockwise seen from above); rotor i at
        azimuth ``2 pi i / N`` from the body x axis, clockwise from above.

    Outputs
    -------
    x : ndarray (12,)
        The state (below); no feedthrough.
    T : ndarray (4, 4)
        Pose of the body frame in {W} (SE(3)); no feedthrough.
    R : ndarray (3, 3)
        Rotation matrix from {B} to {W}, ``Rz(yaw) Ry(pitch) Rx(roll)``; no feedthrough.
    vb : ndarray (3,)
        Velocity in the body frame [m/s]; no feedthrough.
    p : ndarray (3,)
        Position ``(x, y, z)`` in {W} [m] (the first 3 states); no feedthrough.
    rpy : ndarray (3,)
        Attitude ``(roll, pitch, yaw)`` [rad] (states 3 to 5); no feedthrough.

    States
    ------
    x, y, z [m]; roll, pitch, yaw [rad]; vx, vy, vz [m/s] in {W}; wx, wy, wz [rad/s] in {B}.
    """

    feedthrough = False

    def __init__(
        self,
        model: ModelArg = "quadrotor",
        x0: Any = None,
        wind: Any = None,
        flapping: bool = True,
        ground: bool = True,
        M: float | None = None,
    ) -> None:
        super().__init__()
        owner = "MultiRotor"
        self.model = model_of(owner, model)
        if M is not None:
            self.model = self.model.with_(M=number(owner, "M", M, positive=True))
        n = self.model.nrotors
        self._ground = flag(owner, "ground", ground)
        self._flapping = flag(owner, "flapping", flapping)
        x = initial_state(owner, x0)
        if self._ground and x[2] > 0:
            raise BlockParameterError(
                f"{owner}: x0 puts the vehicle below the ground (z = "
                f"{x[2]:g} m > 0, z is down); give z <= 0 or "
                f"ground=False"
            )
        self._wind = vector(owner, "wind", wind, 3, np.zeros(3))
        self.set_state(x, names=STATE_NAMES)
        self.set_ports(
            inputs=(Port("omega", shape=(n,), unit="rad/s", doc="signed rotor speeds"),),
            outputs=(
                Port("x", shape=(12,), doc="state (p [m], rpy [rad], v [m/s], w [rad/s])"),
                Port("T", shape=(4, 4), doc="body pose in the world (z down)"),
                Port("R", shape=(3, 3), doc="rotation body -> world"),
                Port("vb", shape=(3,), unit="m/s", doc="velocity in the body frame"),
                Port("p", shape=(3,), unit="m", doc="position (x, y, z) in the world, z down"),
                Port("rpy", shape=(3,), unit="rad", doc="attitude (roll, pitch, yaw)"),
            ),
        )
        if self._ground:
            self.crossing_directions = (-1,)
        self._w0 = np.zeros(n)  # the omega argument of kernels that do not read it
        self._kp = dynamics_params(self.model, self._wind, self._flapping, self._ground)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, ...]:
        return qk.multirotor_output(t, as_input(x), self._w0, self._kp)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return qk.multirotor_deriv(t, as_input(x), as_input(u[0]), self._kp)

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (-float(x[2]),)

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> np.ndarray:
        return qk.multirotor_on_event(t, as_input(x), self._w0, self._kp, which)

    def kernels(self) -> Kernels:
        """``multirotor_output``/``multirotor_deriv`` (and ``multirotor_crossings``/
        ``multirotor_on_event`` with ground contact), params ``(M, g, J, Jinv, D, b, k, r,
        gamma, theta0, theta1, wind, flapping, ground)``."""
        if self._ground:
            return Kernels(
                self._kp,
                output=qk.multirotor_output,
                deriv=qk.multirotor_deriv,
                crossings=qk.multirotor_crossings,
                on_event=qk.multirotor_on_event,
            )
        return Kernels(self._kp, output=qk.multirotor_output, deriv=qk.multirotor_deriv)
