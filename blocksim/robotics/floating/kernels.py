"""Numba kernels of floating-base multibody kinematics and dynamics (SPART's algorithms, seed 003).

One convention inside (SPART's, all inertial): the twist of body ``i`` is ``t_i = [omega_i;
rdot_i]`` (angular velocity; velocity of its **centre of mass**), twist rates are the time
derivatives of these, wrenches are ``[n; f]`` (torque about the centre of mass; force) and the
base's generalized velocity is its twist ``t_0`` (P0 = I; SPART's mixed-frame ``u0`` is
converted at the API). Index 0 is the base link, body ``k`` of the tree is index ``k + 1``.

The model is one packed float64 vector (:func:`pack_tree`), so blocks pass it as a kernel
parameter. Layout: ``[n, nq]``, the base (mass, com (3), inertia (9)), then per body ``k``
``_S`` numbers: parent (-1 = base), joint type (0 fixed, 1 revolute, 2 prismatic), coordinate
index (-1 fixed), axis (3, joint frame), origin rotation (9, row-major) and translation (3),
mass, com (3, body frame), inertia (9, body axes, about the com), armature.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "accelerations",
    "bias_forces",
    "composite_inertia_matrix",
    "forward_dynamics",
    "inverse_dynamics",
    "kinematics",
    "pack_tree",
    "velocities",
]

_HEAD = 2
_BASE = 13
_S = 32
P_PARENT, P_TYPE, P_QIDX, P_AXIS, P_ROT, P_POS, P_MASS, P_COM, P_INER, P_ARM = (
    0, 1, 2, 3, 6, 15, 18, 19, 22, 31)  # fmt: skip


def pack_tree(tree) -> np.ndarray:
    """The packed model vector of a :class:`~blocksim.robotics.urdf.TreeModel` (see module)."""
    n = tree.n
    out = np.zeros(_HEAD + _BASE + _S * n)
    out[0], out[1] = n, tree.nq
    b = tree.base
    out[2] = b.mass
    out[3:6] = b.com
    out[6:15] = b.inertia.ravel()
    qi = tree.qindex
    for k, body in enumerate(tree.bodies):
        o = _HEAD + _BASE + _S * k
        out[o + P_PARENT] = body.parent
        out[o + P_TYPE] = body.jtype
        out[o + P_QIDX] = qi[k]
        out[o + P_AXIS : o + P_AXIS + 3] = body.axis
        out[o + P_ROT : o + P_ROT + 9] = body.origin[:3, :3].ravel()
        out[o + P_POS : o + P_POS + 3] = body.origin[:3, 3]
        out[o + P_MASS] = body.mass
        out[o + P_COM : o + P_COM + 3] = body.com
        out[o + P_INER : o + P_INER + 9] = body.inertia.ravel()
        out[o + P_ARM] = body.armature
    return out


@njit(cache=True, inline="always")
def _off(k):
    return _HEAD + _BASE + _S * k


@njit(cache=True)
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])  # fmt: skip


@njit(cache=True)
def kinematics(mdl, R0, r0, q):
    """Poses of every link for the base pose (R0, r0) and joint coordinates q.

    Parameters
    ----------
    mdl : packed model; R0 : (3, 3) base orientation (base frame to inertial);
    r0 : (3,) base centre of mass, inertial (m); q : (nq,) joint coordinates.

    Returns
    -------
    RL : (n+1, 3, 3) link orientations; pL : (n+1, 3) link frame origins; rC : (n+1, 3)
    centres of mass; rJ : (n, 3) joint positions; e : (n, 3) joint axes (all inertial).
    """
    n = int(mdl[0])
    RL = np.empty((n + 1, 3, 3))
    pL = np.empty((n + 1, 3))
    rC = np.empty((n + 1, 3))
    rJ = np.empty((n, 3))
    e = np.empty((n, 3))
    RL[0] = R0
    c0 = mdl[3:6]
    for a in range(3):
        rC[0, a] = r0[a]
        pL[0, a] = r0[a] - (R0[a, 0] * c0[0] + R0[a, 1] * c0[1] + R0[a, 2] * c0[2])
    Rj = np.empty((3, 3))
    for k in range(n):
        o = _off(k)
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        qk = q[qi] if qi >= 0 else 0.0
        Rp = RL[p]
        for a in range(3):
            s = pL[p, a]
            for b in range(3):
                s += Rp[a, b] * mdl[o + P_POS + b]
                acc = 0.0
                for c in range(3):
                    acc += Rp[a, c] * mdl[o + P_ROT + 3 * c + b]
                Rj[a, b] = acc
            rJ[k, a] = s
        ax = mdl[o + P_AXIS : o + P_AXIS + 3]
        for a in range(3):
            e[k, a] = Rj[a, 0] * ax[0] + Rj[a, 1] * ax[1] + Rj[a, 2] * ax[2]
        i = k + 1
        if jt == 1:  # Rodrigues about the inertial axis: R = Rot(e, q) @ Rj
            x, y, z = e[k, 0], e[k, 1], e[k, 2]
            cq, sq = np.cos(qk), np.sin(qk)
            C = 1.0 - cq
            Rq = np.array([[cq + x * x * C, x * y * C - z * sq, x * z * C + y * sq],
                           [y * x * C + z * sq, cq + y * y * C, y * z * C - x * sq],
                           [z * x * C - y * sq, z * y * C + x * sq, cq + z * z * C]])  # fmt: skip
            for a in range(3):
                for b in range(3):
                    RL[i, a, b] = Rq[a, 0] * Rj[0, b] + Rq[a, 1] * Rj[1, b] + Rq[a, 2] * Rj[2, b]
                pL[i, a] = rJ[k, a]
        else:
            RL[i] = Rj
            for a in range(3):
                pL[i, a] = rJ[k, a] + (e[k, a] * qk if jt == 2 else 0.0)
        for a in range(3):
            rC[i, a] = pL[i, a] + (RL[i, a, 0] * mdl[o + P_COM] + RL[i, a, 1] * mdl[o + P_COM + 1]
                                   + RL[i, a, 2] * mdl[o + P_COM + 2])  # fmt: skip
    return RL, pL, rC, rJ, e


@njit(cache=True)
def velocities(mdl, rC, rJ, e, t0, qd):
    """Twists ``[omega; rdot_com]`` of the base and every body, inertial, (n+1, 6)."""
    n = int(mdl[0])
    t = np.empty((n + 1, 6))
    t[0] = t0
    for k in range(n):
        o = _off(k)
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        v = qd[qi] if qi >= 0 else 0.0
        i = k + 1
        w = t[p, :3].copy()
        if jt == 1:
            w += e[k] * v
        a = rJ[k] - rC[p]
        g = rC[i] - rJ[k]
        lin = t[p, 3:] + _cross(t[p, :3], a) + _cross(w, g)
        if jt == 2:
            lin += e[k] * v
        t[i, :3] = w
        t[i, 3:] = lin
    return t


@njit(cache=True)
def accelerations(mdl, rC, rJ, e, t, t0dot, qd, qdd):
    """Twist rates ``d/dt [omega; rdot_com]`` of the base and every body, inertial, (n+1, 6)."""
    n = int(mdl[0])
    td = np.empty((n + 1, 6))
    td[0] = t0dot
    for k in range(n):
        o = _off(k)
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        v = qd[qi] if qi >= 0 else 0.0
        acc = qdd[qi] if qi >= 0 else 0.0
        i = k + 1
        wp = t[p, :3]
        wi = t[i, :3]
        a = rJ[k] - rC[p]
        g = rC[i] - rJ[k]
        wd = td[p, :3].copy()
        if jt == 1:
            wd += e[k] * acc + _cross(wp, e[k]) * v
        lin = (td[p, 3:] + _cross(td[p, :3], a) + _cross(wp, _cross(wp, a)) + _cross(wd, g)
               + _cross(wi, _cross(wi, g)))  # fmt: skip
        if jt == 2:
            lin += 2.0 * _cross(wp, e[k]) * v + e[k] * acc
        td[i, :3] = wd
        td[i, 3:] = lin
    return td


@njit(cache=True)
def _inertia_world(mdl, RL, i):
    """Body i's inertia about its com in inertial axes, and its mass."""
    if i == 0:
        m = mdl[2]
        Ib = mdl[6:15].reshape(3, 3)
    else:
        o = _off(i - 1)
        m = mdl[o + P_MASS]
        Ib = mdl[o + P_INER : o + P_INER + 9].reshape(3, 3)
    R = RL[i]
    return R @ Ib @ R.T, m


@njit(cache=True)
def inverse_dynamics(mdl, RL, rC, rJ, e, t, td, wF):
    """Newton-Euler: generalized forces for given motion and external wrenches.

    Parameters
    ----------
    t, td : (n+1, 6) twists and twist rates; wF : (n+1, 6) external wrenches ``[n; f]`` at the
    centres of mass, inertial.

    Returns
    -------
    tau0 : (6,) wrench ``[n; f]`` on the base at its com (inertial) that the motion needs;
    taum : (nq,) joint forces/torques (armature included).
    """
    n = int(mdl[0])
    nq = int(mdl[1])
    W = np.empty((n + 1, 6))
    for i in range(n + 1):
        Iw, m = _inertia_world(mdl, RL, i)
        w = t[i, :3]
        Iwv = Iw @ w
        W[i, :3] = Iw @ td[i, :3] + _cross(w, Iwv) - wF[i, :3]
        W[i, 3:] = m * td[i, 3:] - wF[i, 3:]
    taum = np.zeros(nq)
    for k in range(n - 1, -1, -1):
        o = _off(k)
        i = k + 1
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        if qi >= 0:
            if jt == 1:
                g = rC[i] - rJ[k]
                taum[qi] = e[k] @ W[i, :3] + _cross(e[k], g) @ W[i, 3:]
            else:
                taum[qi] = e[k] @ W[i, 3:]
        # transfer the accumulated wrench to the parent's com
        W[p, :3] += W[i, :3] + _cross(rC[i] - rC[p], W[i, 3:])
        W[p, 3:] += W[i, 3:]
    return W[0].copy(), taum


@njit(cache=True)
def _add_armature(mdl, qdd, taum):
    n = int(mdl[0])
    for k in range(n):
        o = _off(k)
        qi = int(mdl[o + P_QIDX])
        if qi >= 0:
            taum[qi] += mdl[o + P_ARM] * qdd[qi]


@njit(cache=True)
def composite_inertia_matrix(mdl, RL, rC, rJ, e):
    """The generalized inertia matrix H (6+nq, 6+nq) by composite rigid bodies: rows/columns
    are the base twist ``[omega0; rdot0]`` (inertial, com) then the joint coordinates."""
    n = int(mdl[0])
    nq = int(mdl[1])
    Mc = np.zeros((n + 1, 6, 6))  # composite inertia of each subtree about its body's com
    for i in range(n + 1):
        Iw, m = _inertia_world(mdl, RL, i)
        Mc[i, :3, :3] = Iw
        for a in range(3):
            Mc[i, 3 + a, 3 + a] = m
    S = np.zeros((n, 6))  # joint motion vectors [e; e x g] at each body's com
    for k in range(n):
        o = _off(k)
        jt = int(mdl[o + P_TYPE])
        if jt == 1:
            S[k, :3] = e[k]
            S[k, 3:] = _cross(e[k], rC[k + 1] - rJ[k])
        elif jt == 2:
            S[k, 3:] = e[k]
    for k in range(n - 1, -1, -1):
        i = k + 1
        p = int(mdl[_off(k) + P_PARENT]) + 1
        _transfer_add(Mc[i], rC[p] - rC[i], Mc[p])
    H = np.zeros((6 + nq, 6 + nq))
    H[:6, :6] = Mc[0]
    F = np.empty(6)
    for k in range(n):
        o = _off(k)
        qi = int(mdl[o + P_QIDX])
        if qi < 0:
            continue
        i = k + 1
        F[:] = Mc[i] @ S[k]  # the subtree's wrench for a unit rate of joint k, at rC[i]
        H[6 + qi, 6 + qi] = S[k] @ F + mdl[o + P_ARM]
        j = i
        while True:
            pj = int(mdl[_off(j - 1) + P_PARENT]) + 1
            d = rC[j] - rC[pj]  # move F from rC[j] to rC[pj]
            F[:3] += _cross(d, F[3:])
            j = pj
            if j == 0:
                break
            qj = int(mdl[_off(j - 1) + P_QIDX])
            if qj >= 0:
                h = S[j - 1] @ F
                H[6 + qi, 6 + qj] = h
                H[6 + qj, 6 + qi] = h
        H[:6, 6 + qi] = F
        H[6 + qi, :6] = F
    return H


@njit(cache=True)
def _transfer_add(M, d, out):
    """out += B^T M B with B = [[I, 0], [[d]x, I]] (a subtree's inertia moved by d = r_p - r_i,
    i.e. rdot_i = rdot_p + omega x (r_i - r_p))."""
    Dx = np.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]])
    B = np.eye(6)
    B[3:, :3] = Dx
    out += B.T @ M @ B


@njit(cache=True)
def bias_forces(mdl, RL, rC, rJ, e, t, qd, wF):
    """Generalized forces at zero accelerations: ``C(q, u) u - J^T wF``, (6 + nq,)."""
    n = int(mdl[0])
    nq = int(mdl[1])
    td = accelerations(mdl, rC, rJ, e, t, np.zeros(6), qd, np.zeros(nq))
    tau0, taum = inverse_dynamics(mdl, RL, rC, rJ, e, t, td, wF)
    out = np.empty(6 + nq)
    out[:6] = tau0
    out[6:] = taum
    _ = n
    return out


@njit(cache=True)
def _chol_solve(A, b):
    m = A.shape[0]
    L = np.zeros((m, m))
    for j in range(m):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if s <= 0.0:
            return np.full(m, np.nan)
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, m):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    y = np.empty(m)
    for i in range(m):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * y[k]
        y[i] = s / L[i, i]
    x = np.empty(m)
    for i in range(m - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, m):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return x


@njit(cache=True)
def gravity_wrenches(mdl, gravity, wF):
    """``wF`` (n+1, 6) plus the weight of every body: ``f = -m * gravity`` (RTB's gravity
    vector, the upward acceleration equivalent to gravity)."""
    n = int(mdl[0])
    out = wF.copy()
    for i in range(n + 1):
        m = mdl[2] if i == 0 else mdl[_off(i - 1) + P_MASS]
        for a in range(3):
            out[i, 3 + a] -= m * gravity[a]
    return out


@njit(cache=True)
def forward_dynamics(mdl, R0, r0, t0, q, qd, tau0, taum, wF, gravity, fixed):
    """Accelerations from forces: ``H [t0dot; qdd] = [tau0; taum] - bias``.

    Parameters
    ----------
    R0, r0, t0 : base orientation, com position, twist ``[omega; rdot]`` (inertial).
    q, qd : (nq,) joint coordinates and rates; tau0 : (6,) base wrench ``[n; f]`` at its com
    (inertial; thrusters); taum : (nq,) joint torques/forces; wF : (n+1, 6) external wrenches
    at the coms (inertial); gravity : (3,) RTB convention; fixed : bool, the base is held
    (t0 must then be zero): only the joints move.

    Returns
    -------
    t0dot : (6,) base twist rate (zero when fixed); qdd : (nq,).
    """
    nq = int(mdl[1])
    RL, _pL, rC, rJ, e = kinematics(mdl, R0, r0, q)
    t = velocities(mdl, rC, rJ, e, t0, qd)
    W = gravity_wrenches(mdl, gravity, wF)
    c = bias_forces(mdl, RL, rC, rJ, e, t, qd, W)
    H = composite_inertia_matrix(mdl, RL, rC, rJ, e)
    t0dot = np.zeros(6)
    if fixed:
        rhs = taum - c[6:]
        qdd = _chol_solve(np.ascontiguousarray(H[6:, 6:]), rhs)
        return t0dot, qdd
    rhs = np.empty(6 + nq)
    rhs[:6] = tau0 - c[:6]
    rhs[6:] = taum - c[6:]
    x = _chol_solve(H, rhs)
    t0dot[:] = x[:6]
    return t0dot, x[6:].copy()


@njit(cache=True)
def full_inverse_dynamics(mdl, R0, r0, t0, q, qd, t0dot, qdd, wF, gravity):
    """Base wrench (6,) and joint forces (nq,) for the given accelerations (armature
    included, gravity as body weights)."""
    RL, _pL, rC, rJ, e = kinematics(mdl, R0, r0, q)
    t = velocities(mdl, rC, rJ, e, t0, qd)
    td = accelerations(mdl, rC, rJ, e, t, t0dot, qd, qdd)
    tau0, taum = inverse_dynamics(mdl, RL, rC, rJ, e, t, td, gravity_wrenches(mdl, gravity, wF))
    _add_armature(mdl, qdd, taum)
    return tau0, taum
