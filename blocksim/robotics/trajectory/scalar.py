"""RTB scalar trajectories: ``tpoly`` (quintic) and ``lspb`` (trapezoidal), sampled."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from blocksim._messages import plain

from .profiles import SPEED_RTOL, quintic_sampled, trapezoidal_sampled
from .timebase import steps_or_times

Profile = tuple[np.ndarray, np.ndarray, np.ndarray]


def _scalar(x: float, name: str) -> np.ndarray:
    value = np.asarray(x, dtype=np.float64)
    if value.ndim != 0 or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite scalar, got {plain(x)}")
    return np.full(1, float(value))


def tpoly(
    q0: float, qf: float, m_or_t: int | ArrayLike, qd0: float = 0.0, qdf: float = 0.0
) -> Profile:
    """Scalar quintic trajectory (RTB ``tpoly``).

    Quintic polynomial from ``q0`` to ``qf`` with end velocities ``qd0``, ``qdf`` and zero end
    accelerations (:func:`~blocksim.robotics.trajectory.profiles.quintic_at`).

    Parameters
    ----------
    q0, qf : float
        Initial and final value.
    m_or_t : int or array_like, shape (M,)
        Number of steps ``M`` (time is the step index 0..M-1, so velocities are per step, as
        in RTB) or a time vector [s] (duration ``max(t)``).
    qd0, qdf : float, optional
        Initial and final velocity, per step or per second to match ``m_or_t``.

    Returns
    -------
    s, sd, sdd : ndarray, shape (M,)
        Value, velocity and acceleration at each sample.
    """
    times, T = steps_or_times(m_or_t, normalized=False)
    q, qd, qdd = quintic_sampled(
        _scalar(q0, "q0"), _scalar(qf, "qf"), _scalar(qd0, "qd0"), _scalar(qdf, "qdf"), T, times
    )
    return q[:, 0], qd[:, 0], qdd[:, 0]


def lspb_speed(q0: float, qf: float, T: float, V: float | None = None) -> float:
    """Signed cruise velocity of an RTB ``lspb`` profile, with RTB's default and checks.

    Parameters
    ----------
    q0, qf : float
        Initial and final value.
    T : float
        Duration [s] (or number of steps − 1), > 0.
    V : float, optional
        Requested speed of the linear segment; only its magnitude is used. Default
        ``1.5·(qf − q0)/T``.

    Returns
    -------
    float
        ``|V|·sign(qf − q0)`` (0 when ``qf == q0``).

    Raises
    ------
    ValueError
        ``"V too small"`` if ``|V| < |qf − q0|/T`` (the move cannot finish in ``T``) and
        ``"V too big"`` if ``|V| > 2|qf − q0|/T`` (the blends would overlap), as RTB.
    """
    if not T > 0.0:
        raise ValueError(f"lspb: duration T must be > 0, got {plain(T)}")
    dq = float(qf) - float(q0)
    if V is None:
        return 1.5 * dq / T
    v = abs(float(V)) * float(np.sign(dq))
    lo, hi = abs(dq) / T, 2.0 * abs(dq) / T
    if abs(v) < lo * (1.0 - SPEED_RTOL):
        raise ValueError(
            f"lspb: V too small: |V| = {abs(float(V))} < |qf - q0|/T = {lo}; "
            f"choose |V| in [{lo}, {hi}] or a longer duration"
        )
    if abs(v) > hi * (1.0 + SPEED_RTOL):
        raise ValueError(
            f"lspb: V too big: |V| = {abs(float(V))} > 2|qf - q0|/T = {hi}; "
            f"choose |V| in [{lo}, {hi}] or a shorter duration"
        )
    return v


def lspb(q0: float, qf: float, m_or_t: int | ArrayLike, V: float | None = None) -> Profile:
    """Scalar trapezoidal trajectory: linear segment with parabolic blends (RTB ``lspb``).

    Constant acceleration to the cruise velocity, constant velocity, constant deceleration
    (:func:`~blocksim.robotics.trajectory.profiles.trapezoidal_at`).

    Parameters
    ----------
    q0, qf : float
        Initial and final value.
    m_or_t : int or array_like, shape (M,)
        Number of steps ``M`` (time is the step index 0..M-1, velocities per step, as in RTB)
        or a time vector [s] (duration ``T = max(t)``).
    V : float, optional
        Speed of the linear segment, in ``[|qf − q0|/T, 2|qf − q0|/T]``; default
        ``1.5·|qf − q0|/T`` (see :func:`lspb_speed`, which raises the RTB errors).

    Returns
    -------
    s, sd, sdd : ndarray, shape (M,)
        Value, velocity and acceleration at each sample.
    """
    times, T = steps_or_times(m_or_t, normalized=False)
    a0, af = _scalar(q0, "q0"), _scalar(qf, "qf")
    v = np.full(1, lspb_speed(a0[0], af[0], T, V))
    q, qd, qdd = trapezoidal_sampled(a0, af, T, v, times)
    return q[:, 0], qd[:, 0], qdd[:, 0]
