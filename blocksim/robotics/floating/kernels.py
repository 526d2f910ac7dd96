"""Numba kernels of floating-base multibody kinematics and dynamics (SPART's
algorithms, Virgili-Llop et al.).

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


@njit(cache=True)
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
            r00, r01, r02 = cq + x * x * C, x * y * C - z * sq, x * z * C + y * sq
            r10, r11, r12 = y * x * C + z * sq, cq + y * y * C, y * z * C - x * sq
            r20, r21, r22 = z * x * C - y * sq, z * y * C + x * sq, cq + z * z * C
            for b in range(3):
                RL[i, 0, b] = r00 * Rj[0, b] + r01 * Rj[1, b] + r02 * Rj[2, b]
                RL[i, 1, b] = r10 * Rj[0, b] + r11 * Rj[1, b] + r12 * Rj[2, b]
                RL[i, 2, b] = r20 * Rj[0, b] + r21 * Rj[1, b] + r22 * Rj[2, b]
            for a in range(3):
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
def _cr(ax, ay, az, bx, by, bz):
    """Cross product of two 3-vectors given by components (a tuple: no allocation)."""
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


@njit(cache=True)
def velocities(mdl, rC, rJ, e, t0, qd):
    """Twists ``[omega; rdot_com]`` of the base and every body, inertial, (n+1, 6)."""
    n = int(mdl[0])
    t = np.empty((n + 1, 6))
    for a in range(6):
        t[0, a] = t0[a]
    for k in range(n):
        o = _off(k)
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        v = qd[qi] if qi >= 0 else 0.0
        i = k + 1
        wx, wy, wz = t[p, 0], t[p, 1], t[p, 2]
        if jt == 1:
            wx += e[k, 0] * v
            wy += e[k, 1] * v
            wz += e[k, 2] * v
        c1 = _cr(t[p, 0], t[p, 1], t[p, 2], rJ[k, 0] - rC[p, 0], rJ[k, 1] - rC[p, 1],
                 rJ[k, 2] - rC[p, 2])  # fmt: skip
        c2 = _cr(wx, wy, wz, rC[i, 0] - rJ[k, 0], rC[i, 1] - rJ[k, 1], rC[i, 2] - rJ[k, 2])
        t[i, 0], t[i, 1], t[i, 2] = wx, wy, wz
        for a in range(3):
            t[i, 3 + a] = t[p, 3 + a] + c1[a] + c2[a] + (e[k, a] * v if jt == 2 else 0.0)
    return t


@njit(cache=True)
def accelerations(mdl, rC, rJ, e, t, t0dot, qd, qdd):
    """Twist rates ``d/dt [omega; rdot_com]`` of the base and every body, inertial, (n+1, 6)."""
    n = int(mdl[0])
    td = np.empty((n + 1, 6))
    for a in range(6):
        td[0, a] = t0dot[a]
    for k in range(n):
        o = _off(k)
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        v = qd[qi] if qi >= 0 else 0.0
        acc = qdd[qi] if qi >= 0 else 0.0
        i = k + 1
        wpx, wpy, wpz = t[p, 0], t[p, 1], t[p, 2]
        wix, wiy, wiz = t[i, 0], t[i, 1], t[i, 2]
        ax, ay, az = rJ[k, 0] - rC[p, 0], rJ[k, 1] - rC[p, 1], rJ[k, 2] - rC[p, 2]
        gx, gy, gz = rC[i, 0] - rJ[k, 0], rC[i, 1] - rJ[k, 1], rC[i, 2] - rJ[k, 2]
        we = _cr(wpx, wpy, wpz, e[k, 0], e[k, 1], e[k, 2])
        wdx, wdy, wdz = td[p, 0], td[p, 1], td[p, 2]
        if jt == 1:
            wdx += e[k, 0] * acc + we[0] * v
            wdy += e[k, 1] * acc + we[1] * v
            wdz += e[k, 2] * acc + we[2] * v
        c1 = _cr(td[p, 0], td[p, 1], td[p, 2], ax, ay, az)
        wa = _cr(wpx, wpy, wpz, ax, ay, az)
        c2 = _cr(wpx, wpy, wpz, wa[0], wa[1], wa[2])
        c3 = _cr(wdx, wdy, wdz, gx, gy, gz)
        wg = _cr(wix, wiy, wiz, gx, gy, gz)
        c4 = _cr(wix, wiy, wiz, wg[0], wg[1], wg[2])
        td[i, 0], td[i, 1], td[i, 2] = wdx, wdy, wdz
        for a in range(3):
            lin = td[p, 3 + a] + c1[a] + c2[a] + c3[a] + c4[a]
            if jt == 2:
                lin += 2.0 * we[a] * v + e[k, a] * acc
            td[i, 3 + a] = lin
    return td


@njit(cache=True)
def world_inertias(mdl, RL):
    """Masses (n+1,) and inertias about the coms in inertial axes (n+1, 3, 3)."""
    n = int(mdl[0])
    m = np.empty(n + 1)
    Iw = np.empty((n + 1, 3, 3))
    for i in range(n + 1):
        if i == 0:
            m[0] = mdl[2]
            o = 6
        else:
            o = _off(i - 1)
            m[i] = mdl[o + P_MASS]
            o += P_INER
        R = RL[i]
        for a in range(3):
            for b in range(3):
                s = 0.0
                for c in range(3):
                    rc = 0.0
                    for d in range(3):
                        rc += mdl[o + 3 * c + d] * R[b, d]
                    s += R[a, c] * rc
                Iw[i, a, b] = s
    return m, Iw


@njit(cache=True)
def _inertia_world(mdl, RL, i):
    """Body i's inertia about its com in inertial axes, and its mass (one body)."""
    if i == 0:
        m = mdl[2]
        o = 6
    else:
        o = _off(i - 1)
        m = mdl[o + P_MASS]
        o += P_INER
    R = RL[i]
    Iw = np.empty((3, 3))
    for a in range(3):
        for b in range(3):
            s = 0.0
            for c in range(3):
                rc = 0.0
                for d in range(3):
                    rc += mdl[o + 3 * c + d] * R[b, d]
                s += R[a, c] * rc
            Iw[a, b] = s
    return Iw, m


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
    taum : (nq,) joint forces/torques (without armature).
    """
    m, Iw = world_inertias(mdl, RL)
    return _inverse_dynamics(mdl, m, Iw, rC, rJ, e, t, td, wF)


@njit(cache=True)
def _inverse_dynamics(mdl, m, Iw, rC, rJ, e, t, td, wF):
    n = int(mdl[0])
    nq = int(mdl[1])
    W = np.empty((n + 1, 6))
    for i in range(n + 1):
        I = Iw[i]  # noqa: E741
        wx, wy, wz = t[i, 0], t[i, 1], t[i, 2]
        hx = I[0, 0] * wx + I[0, 1] * wy + I[0, 2] * wz
        hy = I[1, 0] * wx + I[1, 1] * wy + I[1, 2] * wz
        hz = I[2, 0] * wx + I[2, 1] * wy + I[2, 2] * wz
        c = _cr(wx, wy, wz, hx, hy, hz)
        for a in range(3):
            W[i, a] = (I[a, 0] * td[i, 0] + I[a, 1] * td[i, 1] + I[a, 2] * td[i, 2] + c[a]
                       - wF[i, a])  # fmt: skip
            W[i, 3 + a] = m[i] * td[i, 3 + a] - wF[i, 3 + a]
    taum = np.zeros(nq)
    for k in range(n - 1, -1, -1):
        o = _off(k)
        i = k + 1
        p = int(mdl[o + P_PARENT]) + 1
        jt = int(mdl[o + P_TYPE])
        qi = int(mdl[o + P_QIDX])
        if qi >= 0:
            if jt == 1:
                eg = _cr(e[k, 0], e[k, 1], e[k, 2], rC[i, 0] - rJ[k, 0], rC[i, 1] - rJ[k, 1],
                         rC[i, 2] - rJ[k, 2])  # fmt: skip
                taum[qi] = (e[k, 0] * W[i, 0] + e[k, 1] * W[i, 1] + e[k, 2] * W[i, 2]
                            + eg[0] * W[i, 3] + eg[1] * W[i, 4] + eg[2] * W[i, 5])  # fmt: skip
            else:
                taum[qi] = e[k, 0] * W[i, 3] + e[k, 1] * W[i, 4] + e[k, 2] * W[i, 5]
        # transfer the accumulated wrench to the parent's com
        c = _cr(rC[i, 0] - rC[p, 0], rC[i, 1] - rC[p, 1], rC[i, 2] - rC[p, 2], W[i, 3], W[i, 4],
                W[i, 5])  # fmt: skip
        for a in range(3):
            W[p, a] += W[i, a] + c[a]
            W[p, 3 + a] += W[i, 3 + a]
    tau0 = np.empty(6)
    for a in range(6):
        tau0[a] = W[0, a]
    return tau0, taum


@njit(cache=True)
def _add_armature(mdl, qdd, taum):
    n = int(mdl[0])
    for k in range(n):
        o = _off(k)
        qi = int(mdl[o + P_QIDX])
        if qi >= 0:
            taum[qi] += mdl[o + P_ARM] * qdd[qi]


@njit(cache=True)
def _transfer_add(M, d, out, S, X):
    """out += B^T M B with B = [[I, 0], [[d]x, I]] (a subtree's inertia moved by d = r_p - r_i,
    i.e. rdot_i = rdot_p + omega x (r_i - r_p)). With M = [[A, Bm], [Bm^T, D]], S = [d]x and
    X = Bm + S^T D: B^T M B = [[A + X S + S^T Bm^T, X], [X^T, D]]. ``S`` and ``X`` are (3, 3)
    work arrays."""
    S[0, 0], S[0, 1], S[0, 2] = 0.0, -d[2], d[1]
    S[1, 0], S[1, 1], S[1, 2] = d[2], 0.0, -d[0]
    S[2, 0], S[2, 1], S[2, 2] = -d[1], d[0], 0.0
    for a in range(3):
        for b in range(3):
            X[a, b] = (M[a, 3 + b] + S[0, a] * M[3, 3 + b] + S[1, a] * M[4, 3 + b]
                       + S[2, a] * M[5, 3 + b])  # fmt: skip
    for a in range(3):
        for b in range(3):
            s = M[a, b]
            for c in range(3):
                s += X[a, c] * S[c, b] + S[c, a] * M[3 + c, b]
            out[a, b] += s
            out[a, 3 + b] += X[a, b]
            out[3 + b, a] += X[a, b]
            out[3 + a, 3 + b] += M[3 + a, 3 + b]


@njit(cache=True)
def composite_inertia_matrix(mdl, RL, rC, rJ, e):
    """The generalized inertia matrix H (6+nq, 6+nq) by composite rigid bodies: rows/columns
    are the base twist ``[omega0; rdot0]`` (inertial, com) then the joint coordinates."""
    m, Iw = world_inertias(mdl, RL)
    return _crba(mdl, m, Iw, rC, rJ, e)


@njit(cache=True)
def _crba(mdl, m, Iw, rC, rJ, e):
    n = int(mdl[0])
    nq = int(mdl[1])
    Mc = np.zeros((n + 1, 6, 6))  # composite inertia of each subtree about its body's com
    for i in range(n + 1):
        for a in range(3):
            for b in range(3):
                Mc[i, a, b] = Iw[i, a, b]
            Mc[i, 3 + a, 3 + a] = m[i]
    S = np.zeros((n, 6))  # joint motion vectors [e; e x g] at each body's com
    for k in range(n):
        o = _off(k)
        jt = int(mdl[o + P_TYPE])
        if jt == 1:
            eg = _cr(e[k, 0], e[k, 1], e[k, 2], rC[k + 1, 0] - rJ[k, 0], rC[k + 1, 1] - rJ[k, 1],
                     rC[k + 1, 2] - rJ[k, 2])  # fmt: skip
            for a in range(3):
                S[k, a] = e[k, a]
                S[k, 3 + a] = eg[a]
        elif jt == 2:
            for a in range(3):
                S[k, 3 + a] = e[k, a]
    d = np.empty(3)
    Sw = np.empty((3, 3))
    Xw = np.empty((3, 3))
    for k in range(n - 1, -1, -1):
        i = k + 1
        p = int(mdl[_off(k) + P_PARENT]) + 1
        for a in range(3):
            d[a] = rC[p, a] - rC[i, a]
        _transfer_add(Mc[i], d, Mc[p], Sw, Xw)
    H = np.zeros((6 + nq, 6 + nq))
    for a in range(6):
        for b in range(6):
            H[a, b] = Mc[0, a, b]
    F = np.empty(6)
    for k in range(n):
        o = _off(k)
        qi = int(mdl[o + P_QIDX])
        if qi < 0:
            continue
        i = k + 1
        for a in range(6):  # the subtree's wrench for a unit rate of joint k, at rC[i]
            s = 0.0
            for b in range(6):
                s += Mc[i, a, b] * S[k, b]
            F[a] = s
        h = mdl[o + P_ARM]
        for a in range(6):
            h += S[k, a] * F[a]
        H[6 + qi, 6 + qi] = h
        j = i
        while True:
            pj = int(mdl[_off(j - 1) + P_PARENT]) + 1
            c = _cr(rC[j, 0] - rC[pj, 0], rC[j, 1] - rC[pj, 1], rC[j, 2] - rC[pj, 2], F[3], F[4],
                    F[5])  # fmt: skip
            F[0] += c[0]
            F[1] += c[1]
            F[2] += c[2]
            j = pj
            if j == 0:
                break
            qj = int(mdl[_off(j - 1) + P_QIDX])
            if qj >= 0:
                h = 0.0
                for a in range(6):
                    h += S[j - 1, a] * F[a]
                H[6 + qi, 6 + qj] = h
                H[6 + qj, 6 + qi] = h
        for a in range(6):
            H[a, 6 + qi] = F[a]
            H[6 + qi, a] = F[a]
    return H


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
    m, Iw = world_inertias(mdl, RL)
    td = accelerations(mdl, rC, rJ, e, t, np.zeros(6), qd, np.zeros(nq))
    c0, cm = _inverse_dynamics(mdl, m, Iw, rC, rJ, e, t, td, W)
    H = _crba(mdl, m, Iw, rC, rJ, e)
    t0dot = np.zeros(6)
    if fixed:
        rhs = taum - cm
        qdd = _chol_solve(np.ascontiguousarray(H[6:, 6:]), rhs)
        return t0dot, qdd
    rhs = np.empty(6 + nq)
    rhs[:6] = tau0 - c0
    rhs[6:] = taum - cm
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
