"""The control mixer: thrust and body torques to the speeds of N rotors."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.aerial.mixer import mixer_matrix

from . import kernels as qk
from ._params import ModelArg, model_of, number, shown

__all__ = ["ControlMixer"]

_X = NO_STATE  # read-only, as the generated code passes it


class ControlMixer(Block):
    """Control mixer for N rotors (RTB roblocks *Control Mixer 4 / N*, bdsim
    *MULTIROTORMIXER*), the exact inverse of the rotor thrust/torque map.

    Equation: ``omega_i = spin_i sqrt(clip((pinv(A) @ [T, tau_roll, tau_pitch, tau_yaw])_i,
    wmin^2, wmax^2))`` with ``A`` the (4, N) map from squared rotor speeds to thrust and
    torques (:mod:`blocksim.robotics.aerial.mixer`), so that without saturation the
    :class:`MultiRotor` of the same model produces exactly ``T`` and ``tau`` (hover, no
    flapping). Unlike upstream's linear speed mixers the inputs are a thrust in newtons and
    torques in newton metres, and the N-rotor geometry is the model's.

    Parameters
    ----------
    model : str, dict or MultirotorModel
        As :class:`MultiRotor` (default ``"quadrotor"``).
    wmin, wmax : float
        Rotor speed limits [rad/s], ``0 <= wmin < wmax``. Defaults 100 and 1000 (roblocks
        *Control Mixer N*).

    Inputs
    ------
    tau_roll, tau_pitch, tau_yaw : float
        Body torques about x_B, y_B, z_B [N m] (z_B down: positive yaw turns the nose right).
    T : float
        Total thrust [N], upward (along ``-z_B``).

    Outputs
    -------
    omega : ndarray (N,)
        Rotor speeds [rad/s], signed by each rotor's spin direction.
    saturated : float
        1.0 when a rotor speed was clipped to ``[wmin, wmax]`` at this instant, else 0.0.
    """

    def __init__(
        self, model: ModelArg = "quadrotor", wmin: float = 100.0, wmax: float = 1000.0
    ) -> None:
        super().__init__()
        owner = "ControlMixer"
        self.model = model_of(owner, model)
        lo = number(owner, "wmin", wmin, nonnegative=True)
        hi = wmax if wmax == math.inf else number(owner, "wmax", wmax, positive=True)
        if not lo < hi:
            raise BlockParameterError(
                f"{owner}: need wmin < wmax [rad/s], got wmin={shown(wmin)}, wmax={shown(wmax)}"
            )
        n = self.model.nrotors
        scalar = {"shape": (), "unit": "N m"}
        self.set_ports(
            inputs=(
                Port("tau_roll", doc="torque about x_B", **scalar),
                Port("tau_pitch", doc="torque about y_B", **scalar),
                Port("tau_yaw", doc="torque about z_B (down)", **scalar),
                Port("T", shape=(), unit="N", doc="total thrust, upward"),
            ),
            outputs=(
                Port("omega", shape=(n,), unit="rad/s", doc="rotor speeds"),
                Port("saturated", shape=(), doc="1.0 if clipped"),
            ),
        )
        self._kp = (mixer_matrix(self.model), np.ascontiguousarray(self.model.spin), lo, float(hi))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, float]:
        return qk.mixer_output(t, _X, float(u[0]), float(u[1]), float(u[2]), float(u[3]), self._kp)

    def kernels(self) -> Kernels:
        """``mixer_output``, params ``(pinv(A) (N, 4), spin (N,), wmin, wmax)``."""
        return Kernels(self._kp, output=qk.mixer_output)
