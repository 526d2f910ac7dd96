"""Numba kernels of Jacobians: a point's Jacobian (base and manipulator parts), the Natural
Orthogonal Complement N (all bodies' twists from the generalized velocity), its derivative,
and the convective inertia matrix ``C = N^T (M Ndot + Mdot N)`` (conventions of
:mod:`.kernels`: twists ``[omega; rdot_com]``, inertial; generalized velocity
``[t0; qd]``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import P_PARENT, P_QIDX, P_TYPE, _cross, _inertia_world, _off

__all__ = ["center_of_mass", "convective_matrix", "momentum", "noc", "noc_dot", "point_jacobian"]


@njit(cache=True)
def point_jacobian(mdl, rC, rJ, e, link, rp):
    """Jacobian (6, 6+nq) of a point ``rp`` (inertial, m) fixed on body index ``link``
    (0 = base, k + 1 = body k): ``[omega; rdot_p] = J @ [t0; qd]``. Columns 0..5 are SPART's
    J0 (with P0 = I), the rest Jm."""
    nq = int(mdl[1])
    J = np.zeros((6, 6 + nq))
    for a in range(6):
        J[a, a] = 1.0
    d = rC[0] - rp  # rdot_p = rdot_0 + omega x (rp - r0) = rdot_0 + [r0 - rp]x omega
    J[3, 1], J[3, 2] = -d[2], d[1]
    J[4, 0], J[4, 2] = d[2], -d[0]
    J[5, 0], J[5, 1] = -d[1], d[0]
    i = link
    while i > 0:
        k = i - 1
        o = _off(k)
        qi = int(mdl[o + P_QIDX])
        jt = int(mdl[o + P_TYPE])
        if qi >= 0:
            if jt == 1:
                J[:3, 6 + qi] = e[k]
                J[3:, 6 + qi] = _cross(e[k], rp - rJ[k])
            else:
                J[3:, 6 + qi] = e[k]
        i = int(mdl[o + P_PARENT]) + 1
    return J


@njit(cache=True)
def noc(mdl, rC, rJ, e):
    """Natural Orthogonal Complement N (6(n+1), 6+nq): ``t = N @ [t0; qd]`` stacks the twists
    of the base and of every body."""
    n = int(mdl[0])
    nq = int(mdl[1])
    N = np.zeros((6 * (n + 1), 6 + nq))
    for i in range(n + 1):
        N[6 * i : 6 * i + 6] = point_jacobian(mdl, rC, rJ, e, i, rC[i])
    return N


@njit(cache=True)
def noc_dot(mdl, rC, rJ, e, t):
    """Time derivative of :func:`noc` for the twists ``t`` (n+1, 6): ``tdot = N udot + Ndot u``."""
    n = int(mdl[0])
    nq = int(mdl[1])
    Nd = np.zeros((6 * (n + 1), 6 + nq))
    # velocity of each joint point (fixed on the parent) and the rate of each axis
    vJ = np.empty((n, 3))
    ed = np.empty((n, 3))
    for k in range(n):
        p = int(mdl[_off(k) + P_PARENT]) + 1
        vJ[k] = t[p, 3:] + _cross(t[p, :3], rJ[k] - rC[p])
        ed[k] = _cross(t[p, :3], e[k])
    for i in range(n + 1):
        r = 6 * i
        dv = t[0, 3:] - t[i, 3:]  # d/dt (r0 - ri)
        Nd[r + 3, 1], Nd[r + 3, 2] = -dv[2], dv[1]
        Nd[r + 4, 0], Nd[r + 4, 2] = dv[2], -dv[0]
        Nd[r + 5, 0], Nd[r + 5, 1] = -dv[1], dv[0]
        j = i
        while j > 0:
            k = j - 1
            o = _off(k)
            qi = int(mdl[o + P_QIDX])
            jt = int(mdl[o + P_TYPE])
            if qi >= 0:
                if jt == 1:
                    Nd[r : r + 3, 6 + qi] = ed[k]
                    Nd[r + 3 : r + 6, 6 + qi] = _cross(ed[k], rC[i] - rJ[k]) + _cross(
                        e[k], t[i, 3:] - vJ[k]
                    )
                else:
                    Nd[r + 3 : r + 6, 6 + qi] = ed[k]
            j = int(mdl[o + P_PARENT]) + 1
    return Nd


@njit(cache=True)
def convective_matrix(mdl, RL, rC, rJ, e, t):
    """Convective inertia matrix C (6+nq, 6+nq): ``C @ u`` is the velocity-product force and
    ``Hdot = C + C^T`` (SPART's CIM, with ``Mdot_i = [[omega_i]x I_i, 0], [0, 0]]``)."""
    n = int(mdl[0])
    N = noc(mdl, rC, rJ, e)
    Nd = noc_dot(mdl, rC, rJ, e, t)
    m6 = N.shape[1]
    C = np.zeros((m6, m6))
    for i in range(n + 1):
        Iw, m = _inertia_world(mdl, RL, i)
        w = t[i, :3]
        Wx = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
        r = 6 * i
        Ni = N[r : r + 6]
        Ndi = Nd[r : r + 6]
        X = np.zeros((6, m6))
        X[:3] = Iw @ Ndi[:3] + (Wx @ Iw) @ Ni[:3]
        X[3:] = m * Ndi[3:]
        C += Ni.T @ X
    return C


@njit(cache=True)
def center_of_mass(mdl, rC):
    """Centre of mass of the whole system (3,), inertial (SPART ``Center_of_Mass``; pass
    velocities or accelerations of the coms for the com's)."""
    n = int(mdl[0])
    total = mdl[2]
    out = mdl[2] * rC[0]
    for k in range(n):
        m = mdl[_off(k) + 18]
        total += m
        out = out + m * rC[k + 1]
    return out / total


@njit(cache=True)
def momentum(mdl, RL, rC, t):
    """Linear momentum (3,) and angular momentum about the inertial origin (3,)."""
    n = int(mdl[0])
    P = np.zeros(3)
    L = np.zeros(3)
    for i in range(n + 1):
        Iw, m = _inertia_world(mdl, RL, i)
        p = m * t[i, 3:]
        P += p
        L += Iw @ t[i, :3] + _cross(rC[i], p)
    return P, L
