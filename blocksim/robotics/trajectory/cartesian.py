"""Pose trajectories: RTB ``ctraj`` and Modern Robotics ``ScrewTrajectory`` /
``CartesianTrajectory``. The spatial maths (trinterp, trexp, trlog) comes from
:mod:`blocksim.robotics.spatial`."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..spatial import trexp, trinterp, trlog
from .scalar import lspb
from .time_scaling import path_parameters


def _pose(T: ArrayLike | None, name: str) -> np.ndarray:
    if T is None:
        return np.eye(4)
    a = np.asarray(T, dtype=np.float64)
    if a.shape != (4, 4) or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be a finite (4, 4) homogeneous transform, got {a.shape}")
    return a


def ctraj(T0: ArrayLike | None, T1: ArrayLike | None, n_or_s: int | ArrayLike) -> np.ndarray:
    """Cartesian trajectory between two poses (RTB ``ctraj``).

    Each pose is ``trinterp(T0, T1, s_k)``: translation ``(1 − s) p0 + s p1`` along the straight
    line, rotation by quaternion slerp (the shorter arc, at a constant rate in ``s``).

    Parameters
    ----------
    T0, T1 : array_like, shape (4, 4), or None
        Start and end poses (SE(3)); ``None`` is the identity (RTB's ``[]``).
    n_or_s : int or array_like, shape (N,)
        Number of points ``N >= 2``: ``s = lspb(0, 1, N)``, a trapezoidal velocity profile
        along the path (RTB; use ``np.linspace(0, 1, N)`` for even spacing). Or the path
        parameters ``s`` themselves (fractions of the way, in [0, 1]; e.g. from ``tpoly``).

    Returns
    -------
    ndarray, shape (N, 4, 4)
        ``out[k]`` is the k-th pose (RTB's ``T(:, :, k)``).
    """
    A, B = _pose(T0, "T0"), _pose(T1, "T1")
    if np.ndim(n_or_s) == 0:
        s = lspb(0.0, 1.0, n_or_s)[0]
    else:
        s = np.asarray(n_or_s, dtype=np.float64)
        if s.ndim != 1 or s.size == 0:
            raise ValueError(f"ctraj: s must be 1-D and non-empty, got shape {s.shape}")
    return trinterp(A, B, s)


def screw_trajectory(
    Xstart: ArrayLike, Xend: ArrayLike, Tf: float, N: int, method: int
) -> np.ndarray:
    """Trajectory along a constant screw axis (MR ``ScrewTrajectory``).

    X(s) = Xstart · exp(log(Xstart⁻¹ Xend) · s), with s the cubic (``method=3``) or quintic
    (otherwise) time scaling sampled at ``k·Tf/(N − 1)``.

    Parameters
    ----------
    Xstart, Xend : array_like, shape (4, 4)
        Initial and final end-effector configurations (SE(3)).
    Tf : float
        Total time [s].
    N : int
        Number of points, >= 2.
    method : int
        3 cubic, 5 quintic time scaling.

    Returns
    -------
    ndarray, shape (N, 4, 4)
        ``traj[0] = Xstart``, ``traj[-1] = Xend`` (MR returns a list of the same matrices).
    """
    A, B = _pose(Xstart, "Xstart"), _pose(Xend, "Xend")
    R, p = A[:3, :3], A[:3, 3]
    inv = np.eye(4)
    inv[:3, :3] = R.T
    inv[:3, 3] = -R.T @ p
    xi = trlog(inv @ B, twist=True)
    return np.stack([A @ trexp(xi * s) for s in path_parameters(Tf, N, method)])


def cartesian_trajectory(
    Xstart: ArrayLike, Xend: ArrayLike, Tf: float, N: int, method: int
) -> np.ndarray:
    """Straight-line origin motion, decoupled rotation (MR ``CartesianTrajectory``).

    p(s) = p_start + s(p_end − p_start) and R(s) = R_start · exp(log(R_startᵀ R_end) · s), with s
    the cubic (``method=3``) or quintic (otherwise) time scaling sampled at ``k·Tf/(N − 1)``.

    Parameters
    ----------
    Xstart, Xend : array_like, shape (4, 4)
        Initial and final end-effector configurations (SE(3)).
    Tf : float
        Total time [s].
    N : int
        Number of points, >= 2.
    method : int
        3 cubic, 5 quintic time scaling.

    Returns
    -------
    ndarray, shape (N, 4, 4)
        ``traj[0] = Xstart``, ``traj[-1] = Xend``.
    """
    A, B = _pose(Xstart, "Xstart"), _pose(Xend, "Xend")
    R0, R1 = A[:3, :3], B[:3, :3]
    w = trlog(R0.T @ R1, twist=True)
    s = path_parameters(Tf, N, method)
    out = np.zeros((len(s), 4, 4))
    for k, sk in enumerate(s):
        out[k, :3, :3] = R0 @ trexp(w * sk)
    out[:, :3, 3] = A[:3, 3] + s[:, None] * (B[:3, 3] - A[:3, 3])
    out[:, 3, 3] = 1.0
    return out
