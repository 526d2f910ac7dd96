"""Pose integrator: a spatial velocity (6,) integrated into a pose (4, 4), continuous or discrete.

The block of roblocks' *pose integral* (Robotics Toolbox 9.10) and bdsim's
*POSEINTEGRATOR* / *POSEINTEGRATOR_S*. The state is the position p (3,) [m] and the attitude
as a unit quaternion q (4,) ``[s, vx, vy, vz]``; the output pose is ``[[R(q), p], [0, 1]]``
with R(q) the rotation of ``q / |q|`` (orthonormal to rounding whatever ``|q|``).

The three meanings of the input ``u = (v, w)`` (``frame``):

``"body"``
    the twist in the moving frame (RTB ``jacobe`` velocities): ``dT/dt = T [u]``, i.e.
    ``dp/dt = R v``, ``dR/dt = R skew(w)``;
``"world"``
    the velocity of the frame's origin and the angular velocity, both in world coordinates
    (RTB ``jacob0`` velocities and ``tr2delta``): ``dp/dt = v``, ``dR/dt = skew(w) R``;
``"spatial"``
    the spatial twist (screw convention, Modern Robotics ``V_s``; roblocks' pose integral
    ``delta2tr(u dt) T``): ``dT/dt = [u] T``, i.e. ``dp/dt = v + w x p``, ``dR/dt = skew(w) R``.

Continuous (no ``clock``): the quaternion obeys ``dq/dt = q * [0, w] / 2`` (body) or
``[0, w] * q / 2`` (world, spatial), plus ``NORM_GAIN (1 - |q|^2) q``, which vanishes on the
exact solution and pulls the norm back to 1 against integration error.

Discrete (``clock`` of period dt): the exact update for a velocity held over the period,
``T[k+1] = T[k] @ trexp(u dt)`` (body), ``exp(u dt) @ T[k]`` (spatial), and ``p + v dt``,
``exp(skew(w) dt) R`` (world); the quaternion is renormalised at each update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from blocksim.blocks.arm.transforms import check_choice, check_pose
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.spatial import q2r, q_mul, r2q, rt2tr, trexp
from blocksim.robotics.spatial.kernels import q2r_nb, q_mul_nb, r2q_nb, se3_exp_nb

__all__ = ["PoseIntegrator"]

FRAMES = ("body", "world", "spatial")
#: gain [1/s] of the term that keeps the continuous quaternion at unit norm
NORM_GAIN = 1.0
_STATE_NAMES = ("x", "y", "z", "qs", "qx", "qy", "qz")


class PoseIntegrator(Block):
    """Integrate a spatial velocity into a pose (roblocks *pose integral*, bdsim
    *POSEINTEGRATOR* and, with a clock, *POSEINTEGRATOR_S*).

    Equations (see the module docstring for the frames): continuous,
    ``dT/dt = T [u]`` (body), ``dp/dt = v, dR/dt = skew(w) R`` (world), ``dT/dt = [u] T``
    (spatial); discrete, their exact solutions over one period for a held ``u``.
    ``y = T``.

    Parameters
    ----------
    x0 : array_like (4, 4) or None
        Initial pose (a rigid transform); None (default) is the identity.
    frame : {"body", "world", "spatial"}
        Meaning of the input velocity. Default ``"body"``.
    clock : Clock, float, (float, float) or None
        Sample clock of the discrete integrator (a period dt [s] or (period, offset));
        None (default) for the continuous one.

    Inputs
    ------
    u : ndarray (6,)
        Velocity ``(v, w)``: linear [m/s] then angular [rad/s].

    Outputs
    -------
    y : ndarray (4, 4)
        The pose. No feedthrough: it depends on the state only.

    States
    ------
    x : shape (7,)
        ``x, y, z`` [m] (position) and ``qs, qx, qy, qz`` (attitude quaternion); continuous,
        or discrete with a clock.
    """

    inputs = (Port("u", shape=(6,), doc="velocity (v [m/s], w [rad/s])"),)
    outputs = (Port("y", shape=(4, 4), doc="pose"),)

    def __init__(self, x0: Any = None, frame: str = "body",
                 clock: Clock | float | tuple[float, float] | None = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self._mode = FRAMES.index(check_choice(owner, "frame", frame, FRAMES))
        T0 = np.eye(4) if x0 is None else check_pose(owner, "x0", x0)
        self.set_state(np.concatenate((T0[:3, 3], r2q(T0))), _STATE_NAMES)
        self.clock = as_clock(clock, owner)
        self._dt = 0.0 if self.clock is None else float(self.clock.period)

    # ------------------------------------------------------------------ interpreted
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        """``y = [[R(q), p], [0, 1]]``; never reads ``u``."""
        return (rt2tr(q2r(x[3:]), x[:3]),)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """``(dp/dt, dq/dt)`` (7,) of the continuous integrator."""
        p, q = x[:3], x[3:]
        v, w = u[0][:3], u[0][3:]
        wq = np.concatenate(([0.0], w))
        if self._mode == 0:
            pd = q2r(q) @ v
            qd = 0.5 * q_mul(q, wq)
        else:
            pd = v + np.cross(w, p) if self._mode == 2 else np.array(v, dtype=float)
            qd = 0.5 * q_mul(wq, q)
        qd = qd + NORM_GAIN * (1.0 - float(q @ q)) * q
        return np.concatenate((pd, qd))

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """The state after one period dt with ``u`` held (exact), quaternion renormalised."""
        p, q = x[:3], x[3:]
        E = trexp(np.asarray(u[0], dtype=float) * self._dt)
        qe = r2q(E)
        if self._mode == 0:
            pn = p + q2r(q) @ E[:3, 3]
            qn = q_mul(q, qe)
        else:
            pn = p + np.asarray(u[0][:3]) * self._dt if self._mode == 1 else \
                E[:3, :3] @ p + E[:3, 3]
            qn = q_mul(qe, q)
        return np.concatenate((pn, qn / np.linalg.norm(qn)))

    # ------------------------------------------------------------------ compiled
    def kernels(self) -> Kernels:
        """Params ``(mode, gain, dt)``: mode 0 body, 1 world, 2 spatial (an int), the norm
        gain [1/s] and the period [s] (0 when continuous). Output ``pose_output_kernel``;
        ``pose_deriv_kernel`` (continuous) or ``pose_update_kernel`` (discrete)."""
        params = (self._mode, NORM_GAIN, self._dt)
        if self.clock is None:
            return Kernels(params, output=pose_output_kernel, deriv=pose_deriv_kernel)
        return Kernels(params, output=pose_output_kernel, update=pose_update_kernel)


# ---------------------------------------------------------------------------- kernels
_njit = numba.njit(cache=True, error_model="numpy")


@_njit
def _quat(x):
    q = np.empty(4)
    for i in range(4):
        q[i] = x[3 + i]
    return q


@_njit
def pose_output_kernel(t, x, u, p):
    R = q2r_nb(_quat(x))
    T = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            T[i, j] = R[i, j]
        T[i, 3] = x[i]
    T[3, 3] = 1.0
    return T


@_njit
def pose_deriv_kernel(t, x, u, p):
    mode, gain = p[0], p[1]
    q = _quat(x)
    wq = np.zeros(4)
    for i in range(3):
        wq[1 + i] = u[3 + i]
    dx = np.empty(7)
    if mode == 0:
        R = q2r_nb(q)
        for i in range(3):
            dx[i] = R[i, 0] * u[0] + R[i, 1] * u[1] + R[i, 2] * u[2]
        qd = q_mul_nb(q, wq)
    else:
        for i in range(3):
            dx[i] = u[i]
        if mode == 2:
            dx[0] += u[4] * x[2] - u[5] * x[1]
            dx[1] += u[5] * x[0] - u[3] * x[2]
            dx[2] += u[3] * x[1] - u[4] * x[0]
        qd = q_mul_nb(wq, q)
    k = gain * (1.0 - (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]))
    for i in range(4):
        dx[3 + i] = 0.5 * qd[i] + k * q[i]
    return dx


@_njit
def pose_update_kernel(t, x, u, p):
    mode, dt = p[0], p[2]
    xi = np.empty(6)
    for i in range(6):
        xi[i] = u[i] * dt
    E = se3_exp_nb(xi)
    qe = r2q_nb(E[:3, :3].copy())
    q = _quat(x)
    xn = np.empty(7)
    if mode == 0:
        R = q2r_nb(q)
        for i in range(3):
            xn[i] = x[i] + (R[i, 0] * E[0, 3] + R[i, 1] * E[1, 3] + R[i, 2] * E[2, 3])
        qn = q_mul_nb(q, qe)
    else:
        for i in range(3):
            if mode == 1:
                xn[i] = x[i] + xi[i]
            else:
                xn[i] = E[i, 0] * x[0] + E[i, 1] * x[1] + E[i, 2] * x[2] + E[i, 3]
        qn = q_mul_nb(qe, q)
    n = np.sqrt(qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3])
    for i in range(4):
        xn[3 + i] = qn[i] / n
    return xn
