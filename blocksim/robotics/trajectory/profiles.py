"""Point-to-point time profiles evaluated at one time: the quintic polynomial and the trapezoidal
(linear segment with parabolic blends) profile.

These numba kernels are the single implementation of both profiles: the sampled generators
(:func:`~blocksim.robotics.trajectory.scalar.tpoly`, :func:`~.scalar.lspb`,
:func:`~.joint.jtraj`, :func:`~.joint.mtraj`, :func:`~.multisegment.mstraj`) call the
``*_sampled`` kernels, which loop over the ``*_at`` ones, and trajectory source blocks can call
the ``*_at`` kernels at the simulation time.

Conventions (all kernels)
-------------------------
* Time ``t`` [s] runs from 0 to the duration ``T`` [s] (``T > 0``).
* Outside ``[0, T]`` the profile holds: for ``t < 0`` it returns ``(q0, 0, 0)`` and for
  ``t > T`` ``(qf, 0, 0)``; at ``t = 0`` and ``t = T`` it returns the polynomial values
  (so a quintic with ``qdf != 0`` gives ``qd = qdf`` at ``t = T`` and 0 just after).
* Call them with float64 scalars and C-contiguous float64 arrays only (one compiled signature
  each).
* Units follow the coordinate: ``q`` [rad or m], ``qd`` per second, ``qdd`` per second².
"""

from __future__ import annotations

import numba
import numpy as np

_njit = numba.njit(cache=True)

#: relative slack on the admissible trapezoidal speed range (round-off in V = 2·Δ/T)
SPEED_RTOL = 1e-9


# -- quintic (RTB jtraj / tpoly; zero accelerations at both ends)
@_njit
def quintic_at(q0, qf, qd0, qdf, T, t):
    """Quintic from ``q0`` (velocity ``qd0``) to ``qf`` (velocity ``qdf``) over ``T``, at ``t``.

    With τ = t/T and Δ = qf − q0 (RTB ``jtraj``):
    q = Aτ⁵ + Bτ⁴ + Cτ³ + Eτ + q0, A = 6Δ − 3(qd0 + qdf)T, B = −15Δ + (8qd0 + 7qdf)T,
    C = 10Δ − (6qd0 + 4qdf)T, E = qd0·T; the accelerations at τ = 0 and τ = 1 are zero.

    Parameters
    ----------
    q0, qf : float
        Initial and final coordinate.
    qd0, qdf : float
        Initial and final velocity [per s].
    T : float
        Duration [s], > 0.
    t : float
        Time [s].

    Returns
    -------
    (q, qd, qdd) : tuple of float
        Coordinate, velocity [per s] and acceleration [per s²] at ``t`` (held outside [0, T]).
    """
    if t < 0.0:
        return q0, 0.0, 0.0
    if t > T or T <= 0.0:
        return qf, 0.0, 0.0
    dq = qf - q0
    a = 6.0 * dq - 3.0 * (qdf + qd0) * T
    b = -15.0 * dq + (8.0 * qd0 + 7.0 * qdf) * T
    c = 10.0 * dq - (6.0 * qd0 + 4.0 * qdf) * T
    e = qd0 * T
    tau = t / T
    q = q0 + tau * (e + tau * tau * (c + tau * (b + tau * a)))
    qd = (e + tau * tau * (3.0 * c + tau * (4.0 * b + tau * 5.0 * a))) / T
    qdd = tau * (6.0 * c + tau * (12.0 * b + tau * 20.0 * a)) / (T * T)
    return q, qd, qdd


@_njit
def quintic_axes_at(q0, qf, qd0, qdf, T, t):
    """:func:`quintic_at` for ``n`` axes sharing the duration ``T`` [s], at time ``t`` [s].

    ``q0, qf, qd0, qdf`` are float64 arrays of shape ``(n,)``; returns three ``(n,)`` arrays
    ``(q, qd, qdd)``.
    """
    n = q0.shape[0]
    q = np.empty(n)
    qd = np.empty(n)
    qdd = np.empty(n)
    for j in range(n):
        q[j], qd[j], qdd[j] = quintic_at(q0[j], qf[j], qd0[j], qdf[j], T, t)
    return q, qd, qdd


@_njit
def quintic_sampled(q0, qf, qd0, qdf, T, times):
    """:func:`quintic_at` for ``n`` axes at ``M`` times.

    ``q0, qf, qd0, qdf`` are ``(n,)`` float64 arrays, ``T`` the duration [s] and ``times`` an
    ``(M,)`` float64 array [s]; returns three ``(M, n)`` arrays ``(q, qd, qdd)``.
    """
    m = times.shape[0]
    n = q0.shape[0]
    q = np.empty((m, n))
    qd = np.empty((m, n))
    qdd = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            q[i, j], qd[i, j], qdd[i, j] = quintic_at(q0[j], qf[j], qd0[j], qdf[j], T, times[i])
    return q, qd, qdd


# -- trapezoidal (RTB lspb)
@_njit
def trapezoidal_at(q0, qf, T, V, t):
    """Trapezoidal velocity profile (RTB ``lspb``) from ``q0`` to ``qf`` over ``T``, at ``t``.

    The cruise velocity is v = |V|·sign(qf − q0); the blend time is tb = T − (qf − q0)/v and
    the acceleration a = v/tb. Three pieces: q0 + a t²/2 (t ≤ tb), (q0 + qf − vT)/2 + v t
    (tb < t ≤ T − tb), qf − a(T − t)²/2 (t > T − tb). ``tb = 0`` (|V| = |Δ|/T) is pure linear
    motion, ``tb = T/2`` (|V| = 2|Δ|/T) the triangular profile.

    Parameters
    ----------
    q0, qf : float
        Initial and final coordinate.
    T : float
        Duration [s], > 0.
    V : float
        Speed of the linear segment [per s]; only its magnitude is used and it must lie in
        ``[|qf − q0|/T, 2|qf − q0|/T]`` (checked, raises ``ValueError``); use
        :func:`~blocksim.robotics.trajectory.scalar.lspb_speed` for RTB's default.
    t : float
        Time [s].

    Returns
    -------
    (q, qd, qdd) : tuple of float
        Coordinate, velocity [per s] and acceleration [per s²] at ``t`` (held outside [0, T]).
    """
    dq = qf - q0
    if t < 0.0 or dq == 0.0:
        return q0, 0.0, 0.0
    if t > T or T <= 0.0:
        return qf, 0.0, 0.0
    v = abs(V) if dq > 0.0 else -abs(V)
    tb = T - dq / v if v != 0.0 else -np.inf
    if not (tb >= -SPEED_RTOL * T and tb <= 0.5 * T * (1.0 + SPEED_RTOL)):
        raise ValueError("trapezoidal_at: speed V outside [|qf-q0|/T, 2|qf-q0|/T]")
    tb = min(max(tb, 0.0), 0.5 * T)
    if tb > 0.0 and t <= tb:
        a = v / tb
        return q0 + 0.5 * a * t * t, a * t, a
    if t <= T - tb:
        return 0.5 * (q0 + qf - v * T) + v * t, v, 0.0
    a = v / tb
    r = T - t
    return qf - 0.5 * a * r * r, a * r, -a


@_njit
def trapezoidal_axes_at(q0, qf, T, V, t):
    """:func:`trapezoidal_at` for ``n`` axes sharing the duration ``T`` [s], at time ``t`` [s].

    ``q0, qf, V`` are float64 arrays of shape ``(n,)``; returns three ``(n,)`` arrays.
    """
    n = q0.shape[0]
    q = np.empty(n)
    qd = np.empty(n)
    qdd = np.empty(n)
    for j in range(n):
        q[j], qd[j], qdd[j] = trapezoidal_at(q0[j], qf[j], T, V[j], t)
    return q, qd, qdd


@_njit
def trapezoidal_sampled(q0, qf, T, V, times):
    """:func:`trapezoidal_at` for ``n`` axes (``(n,)`` arrays) at ``M`` times (``(M,)``).

    Returns three ``(M, n)`` arrays ``(q, qd, qdd)``.
    """
    m = times.shape[0]
    n = q0.shape[0]
    q = np.empty((m, n))
    qd = np.empty((m, n))
    qdd = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            q[i, j], qd[i, j], qdd[i, j] = trapezoidal_at(q0[j], qf[j], T, V[j], times[i])
    return q, qd, qdd
