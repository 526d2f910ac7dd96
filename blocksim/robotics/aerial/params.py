"""Packing a :class:`MultirotorModel` into the arguments of the dynamics kernel."""

from __future__ import annotations

from typing import Any

import numpy as np

from blocksim.robotics.aerial.dynamics import nrotor_deriv_nb
from blocksim.robotics.aerial.model import MultirotorModel

__all__ = ["dynamics_params", "nrotor_deriv"]


def dynamics_params(
    model: MultirotorModel, wind: Any = None, flapping: bool = True, ground: bool = True
) -> tuple[Any, ...]:
    """The arguments of :func:`~blocksim.robotics.aerial.dynamics.nrotor_deriv_nb` after
    ``(x, omega)``: ``(M, g, J, Jinv, D, b, k, r, gamma, theta0, theta1, wind, flapping,
    ground)`` (floats, C-contiguous float64 arrays and bools)."""
    J = np.ascontiguousarray(model.J, dtype=np.float64).copy()
    w = np.zeros(3) if wind is None else np.array(wind, dtype=np.float64).reshape(3)
    return (
        model.M,
        model.g,
        J,
        np.ascontiguousarray(np.linalg.inv(J)),
        model.D,
        model.b,
        model.k,
        model.r,
        model.gamma,
        model.theta0,
        model.theta1,
        np.ascontiguousarray(w),
        bool(flapping),
        bool(ground),
    )


def nrotor_deriv(
    model: MultirotorModel,
    x: Any,
    omega: Any,
    wind: Any = None,
    flapping: bool = True,
    ground: bool = True,
) -> np.ndarray:
    """State derivative (12,) of ``model`` at state ``x`` (12,) with rotor speeds ``omega``
    (N,) [rad/s] (:mod:`blocksim.robotics.aerial.dynamics`)."""
    x = np.array(x, dtype=np.float64).reshape(12)
    omega = np.array(omega, dtype=np.float64).reshape(-1)
    if omega.size != model.nrotors:
        raise ValueError(
            f"nrotor_deriv: omega must have {model.nrotors} rotor speeds, got {omega.size}"
        )
    return nrotor_deriv_nb(x, omega, *dynamics_params(model, wind, flapping, ground))
