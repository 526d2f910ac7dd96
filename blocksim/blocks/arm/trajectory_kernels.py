"""Numerics of the trajectory source blocks (:mod:`blocksim.blocks.arm.trajectories`).

The kernels follow :mod:`blocksim.engine.compiled.kernels` (module-level
``numba.njit(cache=True, error_model="numpy")`` functions of ``(t, x, params)``) and the
interpreted blocks call the same compiled functions, so both back-ends compute identical values.
The profiles come from :mod:`blocksim.robotics.trajectory.profiles` (``quintic_at``,
``quintic_axes_at``, ``trapezoidal_at``, ``trapezoidal_axes_at``) and the rotations from
:mod:`blocksim.robotics.spatial.kernels`.

Time convention of every kernel: before ``start`` the initial value is held with zero
velocity and acceleration, after ``end`` the final value; on ``[start, end]`` the profile is
evaluated, so at the end of the motion (and at blend points) the value is the profile's own,
the limit from the left, as in the sampled RTB trajectories.

:func:`mstraj_pieces` (Python) turns RTB ``mstraj``'s schedule into analytic pieces.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from blocksim.robotics.spatial.kernels import so3_exp_nb
from blocksim.robotics.trajectory.multisegment import _STEP_TOL, _steps_up
from blocksim.robotics.trajectory.profiles import (
    quintic_at,
    quintic_axes_at,
    trapezoidal_at,
    trapezoidal_axes_at,
)

_njit = numba.njit(cache=True, error_model="numpy")

#: piece kinds of the MSTraj table
BLEND, LINE = 0.0, 1.0


# ---------------------------------------------------------------------------- point to point
@_njit
def jtraj_scalar_kernel(t, x, p):
    """Params ``(q0, qf, qd0, qdf, T, start, end)``, floats; returns ``(q, qd, qdd)``."""
    q0, qf, qd0, qdf, T, start, end = p
    if t < start:
        return q0, 0.0, 0.0
    if t > end:
        return qf, 0.0, 0.0
    return quintic_at(q0, qf, qd0, qdf, T, min(t - start, T))


@_njit
def jtraj_kernel(t, x, p):
    """Params ``(q0, qf, qd0, qdf, T, start, end)``, the first four (n,) arrays."""
    q0, qf, qd0, qdf, T, start, end = p
    if t < start:
        return q0.copy(), np.zeros(q0.size), np.zeros(q0.size)
    if t > end:
        return qf.copy(), np.zeros(q0.size), np.zeros(q0.size)
    return quintic_axes_at(q0, qf, qd0, qdf, T, min(t - start, T))


@_njit
def lspb_scalar_kernel(t, x, p):
    """Params ``(q0, qf, V, T, start, end)``, floats; returns ``(q, qd, qdd)``."""
    q0, qf, V, T, start, end = p
    if t < start:
        return q0, 0.0, 0.0
    if t > end:
        return qf, 0.0, 0.0
    return trapezoidal_at(q0, qf, T, V, min(t - start, T))


@_njit
def lspb_kernel(t, x, p):
    """Params ``(q0, qf, V, T, start, end)``, the first three (n,) arrays."""
    q0, qf, V, T, start, end = p
    if t < start:
        return q0.copy(), np.zeros(q0.size), np.zeros(q0.size)
    if t > end:
        return qf.copy(), np.zeros(q0.size), np.zeros(q0.size)
    return trapezoidal_axes_at(q0, qf, T, V, min(t - start, T))


# ---------------------------------------------------------------------------- multi-segment
@_njit
def mstraj_kernel(t, x, p):
    """Params ``(starts (P+1,), info (P, 3), vals (P, 4, n), q_first (n,), q_last (n,))``.

    Piece i covers ``(starts[i], starts[i+1]]`` (the first also its start). ``info[i]`` is
    ``(BLEND, duration, 0)``: the quintic from ``vals[i, 0]`` (velocity ``vals[i, 2]``) to
    ``vals[i, 1]`` (velocity ``vals[i, 3]``); or ``(LINE, offset, tseg)``: the straight line
    ``(1 - s) vals[i, 0] + s vals[i, 1]``, ``s = (offset + tau) / tseg`` at local time tau.
    """
    starts, info, vals, q_first, q_last = p
    n = q_first.size
    npieces = info.shape[0]
    if t < starts[0]:
        return q_first.copy(), np.zeros(n), np.zeros(n)
    if t > starts[npieces]:
        return q_last.copy(), np.zeros(n), np.zeros(n)
    i = max(np.searchsorted(starts, t) - 1, 0)  # side="left": t == starts[i+1] stays in i
    tau = t - starts[i]
    if info[i, 0] == BLEND:
        return quintic_axes_at(vals[i, 0], vals[i, 1], vals[i, 2], vals[i, 3], info[i, 1],
                               min(tau, info[i, 1]))
    tseg = info[i, 2]
    s = (info[i, 1] + tau) / tseg
    q = np.empty(n)
    qd = np.empty(n)
    for j in range(n):
        a, b = vals[i, 0, j], vals[i, 1, j]
        q[j] = (1.0 - s) * a + s * b
        qd[j] = (b - a) / tseg
    return q, qd, np.zeros(n)


def mstraj_pieces(via: np.ndarray, qdmax: np.ndarray | None, tseg: np.ndarray | None,
                  q0: np.ndarray, dt: float, tacc: np.ndarray, qd0: np.ndarray,
                  qdf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pieces of RTB ``mstraj``'s path as a continuous function of time from 0.

    Follows :func:`blocksim.robotics.trajectory.mstraj` step for step (arguments already
    validated by it: ``via`` (M, n), ``tacc`` (M,), ``tseg`` (M,) or ``qdmax`` (n,)), keeping
    each blend and straight line as a piece instead of sampling it: row k of ``mstraj`` is this
    function at time ``(k + 1) dt``.

    Returns
    -------
    starts : ndarray (P + 1,)
        Piece boundaries [s] (multiples of dt).
    info : ndarray (P, 3)
        Kind and timing of each piece (see :func:`mstraj_kernel`).
    vals : ndarray (P, 4, n)
        End points and end velocities of each piece.
    """
    n = via.shape[1]
    q = q_prev = q0
    qd_prev = qd0
    rows = 0
    starts, info, vals = [0.0], [], []

    def add(kind: float, steps: int, a: float, b: float, *vectors: np.ndarray) -> None:
        nonlocal rows
        rows += steps
        starts.append(rows * dt)
        info.append((kind, a, b))
        block = np.zeros((4, n))
        block[:len(vectors)] = vectors
        vals.append(block)

    n_acc2 = 0
    for seg in range(via.shape[0]):
        n_acc = _steps_up(tacc[seg], dt)
        n_acc2 = math.ceil(n_acc / 2)
        n_x = n_acc2 if seg == 0 else n_acc
        q_next = via[seg]
        dq = q_next - q_prev
        if qdmax is not None:
            n_lin = max(_steps_up(d, dt) for d in np.abs(dq) / qdmax)
            duration = max(n_x + n_lin, 2 * n_acc) * dt
        else:
            duration = float(tseg[seg])  # type: ignore[index]
        qd = dq / duration
        if n_x > 0:
            add(BLEND, n_x, n_x * dt, 0.0, q, q_prev + n_acc2 * dt * qd, qd_prev, qd)
        n_line = math.floor((duration - n_acc2 * dt) / dt - n_acc2 + _STEP_TOL)
        if n_line > 0:
            add(LINE, n_line, n_acc2 * dt, duration, q_prev, q_next)
            s = (n_acc2 + n_line) * dt / duration
            q = (1.0 - s) * q_prev + s * q_next
        q_prev = q_next
        qd_prev = qd
    if n_acc2 > 0:
        add(BLEND, n_acc2, n_acc2 * dt, 0.0, q, q_prev, qd_prev, qdf)
    return (np.array(starts), np.array(info, dtype=np.float64).reshape(-1, 3),
            np.array(vals, dtype=np.float64).reshape(-1, 4, n))


# ---------------------------------------------------------------------------- Cartesian
@_njit
def ctraj_kernel(t, x, p):
    """Params ``(R0 (3, 3), w (3,), p0 (3,), p1 (3,), T, start, end, V, quintic)``.

    Path parameter ``s`` from the quintic (``quintic`` True) or trapezoidal (speed V) profile
    from 0 to 1 over T; pose ``[[R0 exp(s skew(w)), (1 - s) p0 + s p1], [0, 1]]``.
    """
    R0, w, p0, p1, T, start, end, V, quintic = p
    if t < start:
        s = 0.0
    elif t > end:
        s = 1.0
    elif quintic:
        s = quintic_at(0.0, 1.0, 0.0, 0.0, T, min(t - start, T))[0]
    else:
        s = trapezoidal_at(0.0, 1.0, T, V, min(t - start, T))[0]
    E = so3_exp_nb(w * s)
    out = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            out[i, j] = R0[i, 0] * E[0, j] + R0[i, 1] * E[1, j] + R0[i, 2] * E[2, j]
        out[i, 3] = (1.0 - s) * p0[i] + s * p1[i]
    out[3, 3] = 1.0
    return out


# ---------------------------------------------------------------------------- circle
@_njit
def _circle(t, p):
    c, e1, e2, _normal, radius, omega, phase = p
    th = omega * t + phase
    ct, st = math.cos(th), math.sin(th)
    pos = np.empty(3)
    vel = np.empty(3)
    tangent = np.empty(3)
    for i in range(3):
        tangent[i] = -st * e1[i] + ct * e2[i]
        pos[i] = c[i] + radius * (ct * e1[i] + st * e2[i])
        vel[i] = radius * omega * tangent[i]
    return pos, vel, tangent


@_njit
def circle_kernel(t, x, p):
    """Params ``(centre, e1, e2, normal, radius, omega, phase)`` (three (3,) arrays, a unit
    normal (3,), floats); returns ``(position, velocity)``."""
    pos, vel, _ = _circle(t, p)
    return pos, vel


@_njit
def circle_pose_kernel(t, x, p):
    """As :func:`circle_kernel`, plus the pose (4, 4): origin on the circle, x along the
    direction of motion (the counter-clockwise tangent when omega = 0), z along the normal."""
    pos, vel, tangent = _circle(t, p)
    n = p[3]
    sign = -1.0 if p[5] < 0.0 else 1.0
    T = np.zeros((4, 4))
    for i in range(3):
        T[i, 0] = sign * tangent[i]
        T[i, 2] = n[i]
        T[i, 3] = pos[i]
    T[0, 1] = T[1, 2] * T[2, 0] - T[2, 2] * T[1, 0]
    T[1, 1] = T[2, 2] * T[0, 0] - T[0, 2] * T[2, 0]
    T[2, 1] = T[0, 2] * T[1, 0] - T[1, 2] * T[0, 0]
    T[3, 3] = 1.0
    return pos, vel, T
