"""Modern Robotics chapter 9: polynomial time scalings and straight-line joint trajectories.

Names are the snake_case forms of MR's ``CubicTimeScaling``, ``QuinticTimeScaling`` and
``JointTrajectory``; the screw and Cartesian trajectories are in
:mod:`blocksim.robotics.trajectory.cartesian`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from blocksim._messages import plain

from .timebase import as_axes


def cubic_time_scaling(Tf: float, t: float | ArrayLike) -> float | np.ndarray:
    """Cubic time scaling s(t) = 3(t/Tf)² − 2(t/Tf)³ (MR ``CubicTimeScaling``).

    Rest-to-rest: s(0) = 0, s(Tf) = 1, ṡ(0) = ṡ(Tf) = 0.

    Parameters
    ----------
    Tf : float
        Total time of the motion [s], > 0.
    t : float or array_like
        Current time(s) [s]; as in MR the polynomial is not clamped outside [0, Tf].

    Returns
    -------
    float or ndarray
        Path parameter s, same shape as ``t``.
    """
    tau = np.asarray(t, dtype=np.float64) / float(Tf)
    s = tau * tau * (3.0 - 2.0 * tau)
    return float(s) if s.ndim == 0 else s


def quintic_time_scaling(Tf: float, t: float | ArrayLike) -> float | np.ndarray:
    """Quintic time scaling s(t) = 10τ³ − 15τ⁴ + 6τ⁵, τ = t/Tf (MR ``QuinticTimeScaling``).

    Rest-to-rest with zero end accelerations. It equals
    :func:`~blocksim.robotics.trajectory.profiles.quintic_at` ``(0, 1, 0, 0, Tf, t)`` on
    [0, Tf].

    Parameters
    ----------
    Tf : float
        Total time of the motion [s], > 0.
    t : float or array_like
        Current time(s) [s]; not clamped outside [0, Tf] (as MR).

    Returns
    -------
    float or ndarray
        Path parameter s, same shape as ``t``.
    """
    tau = np.asarray(t, dtype=np.float64) / float(Tf)
    s = tau**3 * (10.0 + tau * (-15.0 + 6.0 * tau))
    return float(s) if s.ndim == 0 else s


def path_parameters(Tf: float, N: int, method: int) -> np.ndarray:
    """The MR time scaling sampled at ``N`` evenly spaced times ``k·Tf/(N − 1)``.

    Parameters
    ----------
    Tf : float
        Total time [s], > 0.
    N : int
        Number of points, >= 2.
    method : int
        3 cubic, 5 quintic (as MR, any other value is treated as quintic).

    Returns
    -------
    ndarray, shape (N,)
        Path parameter s from 0 to 1.
    """
    if int(N) != N or N < 2:
        raise ValueError(f"N must be an integer >= 2, got {plain(N)}")
    if not Tf > 0.0:
        raise ValueError(f"Tf must be > 0, got {plain(Tf)}")
    t = np.arange(int(N)) * (float(Tf) / (int(N) - 1.0))
    scaling = cubic_time_scaling if method == 3 else quintic_time_scaling
    return np.asarray(scaling(Tf, t))


def joint_trajectory(
    thetastart: ArrayLike, thetaend: ArrayLike, Tf: float, N: int, method: int
) -> np.ndarray:
    """Straight-line joint-space trajectory (MR ``JointTrajectory``).

    θ(s) = θstart + s(θend − θstart) with s from :func:`path_parameters`.

    Parameters
    ----------
    thetastart, thetaend : array_like, shape (n,)
        Initial and final joint variables [rad or m].
    Tf : float
        Total time [s].
    N : int
        Number of points, >= 2; row k is at time k·Tf/(N − 1).
    method : int
        3 cubic, 5 quintic time scaling.

    Returns
    -------
    ndarray, shape (N, n)
        First row ``thetastart``, last row ``thetaend``.
    """
    a = as_axes(thetastart, None, "thetastart")
    b = as_axes(thetaend, a.shape[0], "thetaend")
    s = path_parameters(Tf, N, method)[:, None]
    return s * b + (1.0 - s) * a
