"""Compiled kernels of the arm dynamics blocks (:mod:`blocksim.blocks.arm.dynamics`).

Every kernel follows the contract of :mod:`blocksim.engine.compiled.kernels`: a module-level
``numba.njit(cache=True, error_model="numpy")`` function of ``(t, x, u0, ..., params)``. The
numerics are the robotics core's kernels (:mod:`blocksim.robotics.arm.dynamics`: ``rne_nb``,
``inertia_nb``, ``coriolis_nb``, ``accel_nb``, ``friction_nb``) called for one configuration
with the argument shapes the ``SerialLink`` methods use ((n,) joint vectors, (1, n) rows for
``inertia_nb`` and ``coriolis_nb``), so one compiled specialisation of each serves both
back-ends and they compute the same numbers (to rounding: LLVM may fuse multiply-adds
differently once a kernel is inlined into a caller).

Parameters: ``kin`` the packed kinematics (``robot.kin``), ``dyn`` (n, 15) the dynamics rows
(``robot.arrays.dyn``), ``gravity`` (3,) the upward-equivalent gravity [m/s^2] and ``fext0``
a (6,) zero wrench. Signals: joint vectors (n,) [rad, rad/s, rad/s^2 or m, m/s, m/s^2],
torques (n,) [N m or N], wrenches (6,) ``[f; m]`` [N, N m] in the tool frame.
"""

from __future__ import annotations

import numba
import numpy as np

from blocksim.robotics.arm.dynamics import (
    accel_nb,
    coriolis_nb,
    friction_nb,
    inertia_nb,
    rne_nb,
)
from blocksim.robotics.arm.kinematics import jacobian
from blocksim.robotics.linalg import INV, inverse_from_svd, svd_jacobi

_njit = numba.njit(cache=True, error_model="numpy")


@_njit
def _row(v):
    """A signal (k,) as a fresh C-contiguous (1, k) row (``inertia_nb`` and ``coriolis_nb`` take
    rows, as the SerialLink methods pass them)."""
    k = v.shape[0]
    out = np.empty((1, k))
    for i in range(k):
        out[0, i] = v[i]
    return out


# ---------------------------------------------------------------------------- inverse dynamics
# Each block kernel calls the core kernel directly: a compiled layer in between would
# re-optimise the core's code once more (numba links callees into every caller).
@_njit
def rne_kernel(t, x, q, qd, qdd, p):
    """Joint torques (n,); params ``(kin, dyn, gravity (3,), fext0 (6,))``."""
    return rne_nb(p[0], p[1], q, qd, qdd, p[2], p[3])


@_njit
def rne_gravity_kernel(t, x, q, qd, qdd, g, p):
    """Joint torques (n,) with the gravity vector as an input (3,)."""
    return rne_nb(p[0], p[1], q, qd, qdd, g, p[3])


@_njit
def rne_fext_kernel(t, x, q, qd, qdd, f, p):
    """Joint torques (n,) with the end wrench as an input (6,)."""
    return rne_nb(p[0], p[1], q, qd, qdd, p[2], f)


@_njit
def rne_gravity_fext_kernel(t, x, q, qd, qdd, g, f, p):
    """Joint torques (n,) with gravity (3,) and the end wrench (6,) as inputs."""
    return rne_nb(p[0], p[1], q, qd, qdd, g, f)


@_njit
def gravload_kernel(t, x, q, p):
    """Gravity torques ``rne(q, 0, 0)`` (n,); params as :func:`rne_kernel`."""
    z = np.zeros(q.shape[0])
    return rne_nb(p[0], p[1], q, z, z, p[2], p[3])


# ---------------------------------------------------------------------------- forward dynamics
@_njit
def fdyn_output_kernel(t, x, tau, p):
    """``(q, qd, qdd)`` from the state ``x = [q; qd]`` (2n,) and the input torque; params as
    :func:`rne_kernel`."""
    n = x.shape[0] // 2
    q = x[:n].copy()
    qd = x[n:].copy()
    return q, qd, accel_nb(p[0], p[1], q, qd, tau, p[2], p[3])


@_njit
def fdyn_output_state_kernel(t, x, tau, p):
    """``(q, qd)`` only (the block without a ``qdd`` output): never reads ``tau``."""
    n = x.shape[0] // 2
    return x[:n].copy(), x[n:].copy()


@_njit
def fdyn_deriv_kernel(t, x, tau, p):
    """``[qd; accel(q, qd, tau)]`` (2n,)."""
    n = x.shape[0] // 2
    dx = np.empty(2 * n)
    qdd = accel_nb(p[0], p[1], x[:n].copy(), x[n:].copy(), tau, p[2], p[3])
    for i in range(n):
        dx[i] = x[n + i]
        dx[n + i] = qdd[i]
    return dx


# ---------------------------------------------------------------------------- dynamic terms
@_njit
def inertia_kernel(t, x, q, p):
    """Joint-space inertia M(q) (n, n); params ``(kin, dyn)``."""
    return inertia_nb(p[0], p[1], _row(q))[0]


@_njit
def coriolis_kernel(t, x, q, qd, p):
    """Coriolis matrix C(q, qd) (n, n); params ``(kin, dyn)``."""
    return coriolis_nb(p[0], p[1], _row(q), _row(qd))[0]


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
    MJ = np.zeros((n, n))                   # M @ Ji
    for i in range(n):
        for k in range(n):
            m = M[i, k]
            for j in range(n):
                MJ[i, j] += m * Ji[k, j]
    out = np.zeros((n, n))                  # Ji^T @ MJ, symmetrised
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
