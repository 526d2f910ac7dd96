"""The control mixer: total thrust and body torques to rotor speeds, for any even N.

The rotor model (:meth:`~blocksim.robotics.aerial.model.MultirotorModel.thrust_torque_matrix`)
is linear in the squared speeds: ``[T; tau_roll; tau_pitch; tau_yaw] = A @ omega**2`` with
``A`` (4, N). The mixer is its exact inverse: ``omega**2 = pinv(A) @ [T; tau]`` (for N = 4
``pinv(A) = inv(A)``; for N > 4 the least-squares minimum-norm solution, still with
``A @ pinv(A) = I``), then ``omega_i = spin_i sqrt(omega_i**2)`` so that each rotor turns in
its own direction. Speeds outside ``[wmin, wmax]`` are clipped (a negative square too) and the
saturation flag is set; without saturation, model ∘ mixer is the identity.

Upstream's roblocks "Control Mixer 4/N" are linear *speed* mixers (``T`` a base speed, gains
``+-1``) and "Control Mixer N" evaluates ``cos(2 pi (i-1))`` (a missing ``/N``, so every
rotor gets the same roll/pitch gains); this mixer takes the thrust in newtons and torques in
newton metres instead.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from blocksim.robotics.aerial.model import MultirotorModel

__all__ = ["mix_nb", "mixer", "mixer_matrix"]

_njit = numba.njit(cache=True, error_model="numpy")


def mixer_matrix(model: MultirotorModel) -> np.ndarray:
    """``pinv(A)`` (N, 4): squared rotor speeds [rad^2/s^2] from ``[T, tau_roll, tau_pitch,
    tau_yaw]`` [N, N m, N m, N m]."""
    return np.ascontiguousarray(np.linalg.pinv(model.thrust_torque_matrix()))


@_njit
def mix_nb(T, tau_roll, tau_pitch, tau_yaw, Ainv, spin, wmin, wmax):
    """Rotor speeds (N,) [rad/s], signed by ``spin``, and the saturation flag (1.0 when a
    speed was clipped to ``[wmin, wmax]``, else 0.0)."""
    n = Ainv.shape[0]
    omega = np.empty(n)
    sat = 0.0
    lo2 = wmin * wmin
    hi2 = wmax * wmax
    for i in range(n):
        w2 = Ainv[i, 0] * T + Ainv[i, 1] * tau_roll + Ainv[i, 2] * tau_pitch + Ainv[i, 3] * tau_yaw
        if w2 < lo2:
            w2 = lo2
            sat = 1.0
        elif w2 > hi2:
            w2 = hi2
            sat = 1.0
        omega[i] = spin[i] * math.sqrt(w2)
    return omega, sat


def mixer(
    model: MultirotorModel, T: float, tau: np.ndarray, wmin: float = 0.0, wmax: float = math.inf
) -> tuple[np.ndarray, bool]:
    """Rotor speeds (N,) [rad/s] for thrust ``T`` [N] and body torques ``tau`` (3,) [N m],
    and whether any was clipped to ``[wmin, wmax]`` [rad/s]."""
    tau = np.asarray(tau, dtype=np.float64).reshape(3)
    omega, sat = mix_nb(
        float(T), tau[0], tau[1], tau[2], mixer_matrix(model), model.spin, float(wmin), float(wmax)
    )
    return omega, bool(sat)
