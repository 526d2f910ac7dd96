"""Compiled kernels of the arm dynamics blocks (:mod:`blocksim.blocks.arm.dynamics`).

Every kernel follows the contract of :mod:`blocksim.engine.compiled.kernels`: a module-level
``numba.njit(cache=True, error_model="numpy")`` function of ``(t, x, u0, ..., params)``. The
numerics are the allocation-free single-configuration functions of the robotics core
(:mod:`blocksim.robotics.arm.dynamics_into`: ``rne_into``, ``accel_into``, ``inertia_into``,
``coriolis_into``), the arithmetic of the ``SerialLink`` methods and of the general kernels
(``rne_nb``, ``accel_nb``, ``inertia_nb``, ``coriolis_nb``) in the same order, so both
back-ends compute the same numbers (to rounding: LLVM may fuse multiply-adds differently once
a kernel is inlined into a caller). A kernel allocates its result and one block of work
arrays, nothing else.

Parameters: ``P`` the packed dynamics (:func:`~blocksim.robotics.arm.fast_calls.pack_dynamics`
of the block's robot and gravity: kinematics, dynamics rows, the upward-equivalent gravity (3,)
[m/s^2], zeros, the DH flag); :func:`friction_kernel` takes ``(dyn,)`` and
:func:`cinertia_kernel` ``(kin, dyn)``. Signals: joint vectors (n,) [rad, rad/s, rad/s^2 or m,
m/s, m/s^2], torques (n,) [N m or N], wrenches (6,) ``[f; m]`` [N, N m] in the tool frame.
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.arm.dynamics import friction_nb, inertia_nb
from blocksim.robotics.arm.dynamics_into import (
    WORK,
    accel_into,
    coriolis_into,
    gravity_zeros,
    inertia_into,
    rne_into,
    unpack,
    work,
)
from blocksim.robotics.arm.kinematics import jacobian
from blocksim.robotics.linalg import INV, inverse_from_svd, svd_jacobi

_njit = numba.njit(cache=True, error_model="numpy")


@_njit
def _row(v):
    """A signal (k,) as a fresh C-contiguous (1, k) row (``inertia_nb`` takes rows, as the
    SerialLink methods pass them)."""
    k = v.shape[0]
    out = np.empty((1, k))
    for i in range(k):
        out[0, i] = v[i]
    return out


# ---------------------------------------------------------------------------- inverse dynamics
@_njit
def _rne(P, q, qd, qdd, g, f):
    """Joint torques (n,) into a fresh array; ValueError unless q, qd, qdd are (n,)."""
    n = int(P[0])
    if q.shape[0] != n or qd.shape[0] != n or qdd.shape[0] != n:
        raise ValueError("InverseDynamics: q, qd and qdd must have one element per joint")
    out = np.empty(n)
    rne_into(P, q, qd, qdd, g, f, np.empty((n, WORK)), out)
    return out


@_njit
def rne_kernel(t, x, q, qd, qdd, p):
    """Joint torques (n,); params ``(P,)`` (gravity from P, no end wrench)."""
    g, zeros = gravity_zeros(p[0])
    return _rne(p[0], q, qd, qdd, g, zeros)


@_njit
def rne_gravity_kernel(t, x, q, qd, qdd, g, p):
    """Joint torques (n,) with the gravity vector as an input (3,)."""
    _, zeros = gravity_zeros(p[0])
    return _rne(p[0], q, qd, qdd, g, zeros)


@_njit
def rne_fext_kernel(t, x, q, qd, qdd, f, p):
    """Joint torques (n,) with the end wrench as an input (6,)."""
    g, _ = gravity_zeros(p[0])
    return _rne(p[0], q, qd, qdd, g, f)


@_njit
def rne_gravity_fext_kernel(t, x, q, qd, qdd, g, f, p):
    """Joint torques (n,) with gravity (3,) and the end wrench (6,) as inputs."""
    return _rne(p[0], q, qd, qdd, g, f)


@_njit
def gravload_kernel(t, x, q, p):
    """Gravity torques ``rne(q, 0, 0)`` (n,); params ``(P,)``."""
    g, zeros = gravity_zeros(p[0])
    z = zeros[: q.shape[0]]
    return _rne(p[0], q, z, z, g, zeros)


# ---------------------------------------------------------------------------- forward dynamics
@_njit
def _accel(P, x, tau, dx):
    """``dx[n:] = accel(q, qd, tau)`` for the state ``x = [q; qd]`` (2n,); ValueError unless
    tau is (n,)."""
    n = x.shape[0] // 2
    if tau.shape[0] != n or 2 * n != x.shape[0]:
        raise ValueError("ForwardDynamics: tau must have one element per joint")
    W, M, S = work(n)
    accel_into(P, x[:n], x[n:], tau, W, M, S, dx[n:])


@_njit
def fdyn_output_kernel(t, x, tau, p):
    """``(q, qd, qdd)`` from the state ``x = [q; qd]`` (2n,) and the input torque; params
    ``(P,)``."""
    n = x.shape[0] // 2
    out = np.empty(2 * n)
    _accel(p[0], x, tau, out)
    return x[:n].copy(), x[n:].copy(), out[n:]


@_njit
def fdyn_output_state_kernel(t, x, tau, p):
    """``(q, qd)`` only (the block without a ``qdd`` output): never reads ``tau``. Both are
    views of one copy of the state (one allocation)."""
    n = x.shape[0] // 2
    c = x.copy()
    return c[:n], c[n:]


@_njit
def fdyn_deriv_kernel(t, x, tau, p):
    """``[qd; accel(q, qd, tau)]`` (2n,)."""
    n = x.shape[0] // 2
    dx = np.empty(2 * n)
    _accel(p[0], x, tau, dx)
    for i in range(n):
        dx[i] = x[n + i]
    return dx


# ---------------------------------------------------------------------------- dynamic terms
@_njit
def inertia_kernel(t, x, q, p):
    """Joint-space inertia M(q) (n, n); params ``(P,)``."""
    P = p[0]
    n, _, _, _, _, _ = unpack(P, q.shape[0])
    _, M, S = work(n)
    inertia_into(P, q, M, S)
    return M


@_njit
def coriolis_kernel(t, x, q, qd, p):
    """Coriolis matrix C(q, qd) (n, n); params ``(P,)``."""
    P = p[0]
    n, _, _, _, _, _ = unpack(P, q.shape[0])
    if qd.shape[0] != n:
        raise ValueError("Coriolis: q and qd must have one element per joint")
    W, C, _ = work(n)
    e = np.empty(2 * n)
    coriolis_into(P, q, qd, W, e[:n], e[n:], C)
    return C


@_njit
def friction_kernel(t, x, qd, p):
    """Joint friction (n,); params ``(dyn,)``."""
    return friction_nb(p[0], qd)


@_njit
def cinertia_kernel(t, x, q, p):
    """Cartesian inertia ``J^-T M J^-1`` (6, 6) with ``J = jacob0(q)`` (6, 6); params
    ``(kin, dyn)``. NaN when J is singular to working precision."""
    kin, dyn = p
    M = inertia_nb(kin, dyn, _row(q))[0]
    # run-time False and INV (kin[0] = n > 0): literals would compile other specialisations
    U, sv, V = svd_jacobi(jacobian(kin, q, kin[0] < 0.0))
    Ji = inverse_from_svd(U, sv, V, INV * int(kin[0] > 0.0), 0.0)
    n = M.shape[0]
    MJ = np.zeros((n, n))  # M @ Ji
    for i in range(n):
        for k in range(n):
            m = M[i, k]
            for j in range(n):
                MJ[i, j] += m * Ji[k, j]
    out = np.zeros((n, n))  # Ji^T @ MJ, symmetrised
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for k in range(n):
                acc += Ji[k, i] * MJ[k, j]
            out[i, j] = acc
    for i in range(n):
        for j in range(i + 1, n):
            v = 0.5 * (out[i, j] + out[j, i])
            out[i, j] = v
            out[j, i] = v
    return out
