"""Deliberately wrong models of an arm, for robustness studies (e.g. computed torque with a
controller model that is not the plant).

* :func:`scale_inertial` multiplies every link's mass and inertia by one factor (the centre of
  mass stays): a controller model whose payload or link masses are off by a known fraction.
* :func:`perturb` is RTB's ``SerialLink.perturb(p)``: each link's mass and inertia scaled by an
  independent random factor in ``[1 - p, 1 + p]`` (seeded, so a study can be repeated).
"""

from __future__ import annotations

import numpy as np

from .serial_link import SerialLink

__all__ = ["perturb", "scale_inertial"]


def _scaled(robot: SerialLink, factors: np.ndarray) -> SerialLink:
    model = robot.copy()
    for j, link in enumerate(model.links):  # links are copies: edit, then set back
        link.m = link.m * float(factors[j])
        link.I = link.I * float(factors[j])
        model.set_link(j, link)
    return model


def scale_inertial(robot: SerialLink, factor: float) -> SerialLink:
    """A copy of ``robot`` with every link's mass [kg] and inertia [kg m^2] times ``factor``
    (> 0); kinematics, centres of mass, motor and friction parameters unchanged."""
    factor = float(factor)
    if not factor > 0.0:
        raise ValueError(f"scale_inertial: factor must be > 0, got {factor}")
    return _scaled(robot, np.full(robot.n, factor))


def perturb(robot: SerialLink, p: float = 0.1, seed: int | None = 0) -> SerialLink:
    """A copy of ``robot`` with each link's mass and inertia scaled by a random factor drawn
    uniformly from ``[1 - p, 1 + p]`` (0 <= p < 1), as RTB's ``SerialLink.perturb``."""
    p = float(p)
    if not 0.0 <= p < 1.0:
        raise ValueError(f"perturb: p must be in [0, 1), got {p}")
    rng = np.random.default_rng(seed)
    return _scaled(robot, 1.0 + p * rng.uniform(-1.0, 1.0, robot.n))
