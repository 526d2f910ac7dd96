"""Forward dynamics of a floating-base tree in one numba call, for the lowest per-call cost
from Python (:meth:`~.model.FloatingBase.forward_dynamics` calls it).

Same quantities and conventions as :func:`.kernels.forward_dynamics` (base twist ``t0 =
[omega0; rdot0]`` of the base centre of mass, wrenches ``[n; f]``, world frame, RTB gravity as
body weights; the result ``[t0dot; qdd]`` solves ``H [t0dot; qdd] = [tau0; taum] - bias``)
and the same numbers to rounding, computed with less work:

* **one packed vector per model** (:func:`pack_fd`, built once): the movable bodies only.
  Bodies on fixed joints are merged into their nearest movable ancestor (or the base) when
  packing (mass, centre of mass and inertia combined, joint placements composed), as
  Pinocchio does for URDF models: the Panda on a spacecraft has 7 bodies here instead of 11.
  The gravity vector and, for the external wrenches ``wF`` of the original bodies, each
  body's owner and centre of mass in the owner's frame are packed too;
* **spatial vectors in world axes about one point**, the base centre of mass ``r0`` taken as
  a point fixed in space at this instant (Featherstone's algorithms in world coordinates):
  twists ``[omega; v_P]`` with ``v_P`` the velocity of the body point at ``P = r0``, motion
  subspaces ``S = [e; (rJ - P) x e]`` (revolute) or ``[0; e]`` (prismatic), rigid-body
  inertias ``(m, h = m c, I_P)`` about ``P``. Velocities, accelerations and forces then add
  along the tree without any transfer between points, the composite inertias of CRBA are
  plain sums and the inertia-matrix entries are ``H_kj = S_k . (Ic_j S_j)``. With ``P`` at
  the base com, the base twist ``t0`` is the base's spatial velocity, so ``H`` is the
  reference one; the base acceleration ``t0dot`` differs from the spatial one by
  ``[0; omega0 x rdot0]``, which goes into the bias (the bias pass has ``t0dot = 0``);
* **no allocation besides one workspace and the matrix**: the output is written into the
  caller's ``out`` (6 + nq,) ``[t0dot; qdd]``; the Cholesky factorisation is done in place.

``r0`` does not enter: forward dynamics is invariant under translation of the whole system
(gravity is uniform and the external wrenches act at the bodies' own centres of mass).

The entry point has an explicit signature (float64 C-contiguous arrays, a bool), so numba
compiles nothing else for it: any other argument (a list, another dtype, a non-contiguous
array) raises ``TypeError`` at once and the caller falls back to the general kernel. It is
compiled (or loaded from numba's cache) on first use (:func:`fd_kernel`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["GRAVITY", "fd_kernel", "pack_fd"]

# header: nb, nq, n (original bodies), gravity (3), base com of the base link (3, link frame),
# merged base: mass, com (3, link frame), inertia about that com (9, link axes)
_H = 22
#: where the gravity vector is in the packed vector (a model's gravity changes it there)
GRAVITY = slice(3, 6)
# per movable body: parent (0 = base, else 1 + movable index), type (1 revolute,
# 2 prismatic), joint placement in the parent's frame: rotation (9, row-major), translation
# (3); axis (3, joint frame); merged mass, com (3), inertia (9, about the com, body axes);
# armature
_T = 31
_PAR, _TYP, _ROT, _POS, _AX, _M, _COM, _IN, _ARM = 0, 1, 2, 11, 14, 17, 18, 21, 30
# workspace row per body (base = row 0): R (9), p (3, link origin - P), S (6), v (6), a (6),
# f (6), composite inertia (10: m, h (3), I_P (xx, xy, xz, yy, yz, zz))
_WR, _WP, _WS, _WV, _WA, _WF, _WI = 0, 9, 12, 18, 24, 30, 36
_WCOLS = 46


def _merge(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, com and inertia about the com of rigidly joined parts ``(T, m, com, I)`` (T the
    part's frame in the common frame; com and I in the part's frame)."""
    m = sum(p[1] for p in parts)
    cs = [T[:3, :3] @ c + T[:3, 3] for T, _, c, _ in parts]
    # massless parts (a rotor inertia on a zero-mass link) keep their rotational inertia
    com = sum(p[1] * c for p, c in zip(parts, cs)) / m if m > 0.0 else cs[0]
    inertia = np.zeros((3, 3))
    for (T, mi, _, Ii), c in zip(parts, cs):
        d = c - com
        inertia += T[:3, :3] @ Ii @ T[:3, :3].T + mi * (d @ d * np.eye(3) - np.outer(d, d))
    return m, com, inertia


def pack_fd(tree, gravity) -> np.ndarray:
    """The packed vector of :func:`fd_kernel` for a :class:`~blocksim.robotics.urdf.TreeModel`
    and the RTB gravity vector (3,) (m/s^2); see the module docstring."""
    n = tree.n
    owner = [0] * (n + 1)  # movable body (0 = base) each original body is part of
    local = [np.eye(4)] * (n + 1)  # its frame in the owner's frame
    parts: list[list] = [[(np.eye(4), tree.base.mass, tree.base.com, tree.base.inertia)]]
    joints = []  # (parent, type, placement, axis, armature) per movable body
    for k, body in enumerate(tree.bodies):
        p = body.parent + 1
        T = local[p] @ body.origin
        if body.jtype == 0:
            owner[k + 1], local[k + 1] = owner[p], T
            parts[owner[p]].append((T, body.mass, body.com, body.inertia))
        else:
            owner[k + 1], local[k + 1] = len(parts), np.eye(4)
            joints.append((owner[p], body.jtype, T, body.axis, body.armature))
            parts.append([(np.eye(4), body.mass, body.com, body.inertia)])
    nb = len(joints)
    out = np.zeros(_H + _T * nb + 4 * (n + 1))
    out[0], out[1], out[2] = nb, tree.nq, n
    out[3:6] = np.asarray(gravity, dtype=float).reshape(3)
    out[6:9] = tree.base.com
    m, c, inertia = _merge(parts[0])
    out[9], out[10:13], out[13:22] = m, c, inertia.ravel()
    for j, (parent, jtype, T, axis, armature) in enumerate(joints):
        o = _H + _T * j
        out[o + _PAR], out[o + _TYP] = parent, jtype
        out[o + _ROT : o + _ROT + 9] = T[:3, :3].ravel()
        out[o + _POS : o + _POS + 3] = T[:3, 3]
        out[o + _AX : o + _AX + 3] = axis
        m, c, inertia = _merge(parts[j + 1])
        out[o + _M], out[o + _COM : o + _COM + 3] = m, c
        out[o + _IN : o + _IN + 9] = inertia.ravel()
        out[o + _ARM] = armature
    coms = [tree.base.com] + [b.com for b in tree.bodies]
    o = _H + _T * nb
    for i in range(n + 1):
        out[o + 4 * i] = owner[i]
        out[o + 4 * i + 1 : o + 4 * i + 4] = local[i][:3, :3] @ coms[i] + local[i][:3, 3]
    return out


@njit(cache=True)
def _body_inertia(P, o, w):
    """The workspace row ``w`` gets the body's inertia about P, world axes (columns _WI..),
    from its mass ``P[o]``, com ``P[o+1 : o+4]`` and inertia ``P[o+4 : o+13]`` (body frame)
    and its rotation and link origin (columns _WR.., _WP..)."""
    R = w[_WR : _WR + 9]
    m = P[o]
    cx = w[_WP] + R[0] * P[o + 1] + R[1] * P[o + 2] + R[2] * P[o + 3]
    cy = w[_WP + 1] + R[3] * P[o + 1] + R[4] * P[o + 2] + R[5] * P[o + 3]
    cz = w[_WP + 2] + R[6] * P[o + 1] + R[7] * P[o + 2] + R[8] * P[o + 3]
    # T = I R^T, then R T (the upper triangle)
    t00 = P[o + 4] * R[0] + P[o + 5] * R[1] + P[o + 6] * R[2]
    t01 = P[o + 4] * R[3] + P[o + 5] * R[4] + P[o + 6] * R[5]
    t02 = P[o + 4] * R[6] + P[o + 5] * R[7] + P[o + 6] * R[8]
    t10 = P[o + 7] * R[0] + P[o + 8] * R[1] + P[o + 9] * R[2]
    t11 = P[o + 7] * R[3] + P[o + 8] * R[4] + P[o + 9] * R[5]
    t12 = P[o + 7] * R[6] + P[o + 8] * R[7] + P[o + 9] * R[8]
    t20 = P[o + 10] * R[0] + P[o + 11] * R[1] + P[o + 12] * R[2]
    t21 = P[o + 10] * R[3] + P[o + 11] * R[4] + P[o + 12] * R[5]
    t22 = P[o + 10] * R[6] + P[o + 11] * R[7] + P[o + 12] * R[8]
    cc = cx * cx + cy * cy + cz * cz
    w[_WI] = m
    w[_WI + 1], w[_WI + 2], w[_WI + 3] = m * cx, m * cy, m * cz
    w[_WI + 4] = R[0] * t00 + R[1] * t10 + R[2] * t20 + m * (cc - cx * cx)
    w[_WI + 5] = R[0] * t01 + R[1] * t11 + R[2] * t21 - m * cx * cy
    w[_WI + 6] = R[0] * t02 + R[1] * t12 + R[2] * t22 - m * cx * cz
    w[_WI + 7] = R[3] * t01 + R[4] * t11 + R[5] * t21 + m * (cc - cy * cy)
    w[_WI + 8] = R[3] * t02 + R[4] * t12 + R[5] * t22 - m * cy * cz
    w[_WI + 9] = R[6] * t02 + R[7] * t12 + R[8] * t22 + m * (cc - cz * cz)


@njit(cache=True)
def _inertia_times(w, x0, x1, x2, x3, x4, x5):
    """The spatial inertia of row ``w`` (columns _WI..) times the motion ``x``:
    ``[I_P a + h x b; m b - h x a]`` for ``x = [a; b]``."""
    m, h0, h1, h2 = w[_WI], w[_WI + 1], w[_WI + 2], w[_WI + 3]
    ixx, ixy, ixz, iyy, iyz, izz = w[_WI + 4], w[_WI + 5], w[_WI + 6], w[_WI + 7], w[_WI + 8], w[
        _WI + 9]  # fmt: skip
    return (
        ixx * x0 + ixy * x1 + ixz * x2 + h1 * x5 - h2 * x4,
        ixy * x0 + iyy * x1 + iyz * x2 + h2 * x3 - h0 * x5,
        ixz * x0 + iyz * x1 + izz * x2 + h0 * x4 - h1 * x3,
        m * x3 - (h1 * x2 - h2 * x1),
        m * x4 - (h2 * x0 - h0 * x2),
        m * x5 - (h0 * x1 - h1 * x0),
    )


@njit(cache=True)
def _newton_euler(w):
    """Row ``w``'s force ``f = I a + v x* (I v)`` from its ``v`` and ``a`` (columns _WV, _WA)."""
    v0, v1, v2, v3, v4, v5 = w[_WV], w[_WV + 1], w[_WV + 2], w[_WV + 3], w[_WV + 4], w[_WV + 5]
    n0, n1, n2, f0, f1, f2 = _inertia_times(w, v0, v1, v2, v3, v4, v5)
    b0, b1, b2, b3, b4, b5 = _inertia_times(w, w[_WA], w[_WA + 1], w[_WA + 2], w[_WA + 3],
                                           w[_WA + 4], w[_WA + 5])  # fmt: skip
    # [w; u] x* [n; f] = [w x n + u x f; w x f]
    w[_WF] = b0 + (v1 * n2 - v2 * n1) + (v4 * f2 - v5 * f1)
    w[_WF + 1] = b1 + (v2 * n0 - v0 * n2) + (v5 * f0 - v3 * f2)
    w[_WF + 2] = b2 + (v0 * n1 - v1 * n0) + (v3 * f1 - v4 * f0)
    w[_WF + 3] = b3 + (v1 * f2 - v2 * f1)
    w[_WF + 4] = b4 + (v2 * f0 - v0 * f2)
    w[_WF + 5] = b5 + (v0 * f1 - v1 * f0)


def _fd(P, R0, r0, t0, q, qd, tau0, taum, wF, fixed, out):
    nb = int(P[0])
    nq = int(P[1])
    n = int(P[2])
    nu = 6 + nq
    if (q.shape[0] != nq or qd.shape[0] != nq or taum.shape[0] != nq or out.shape[0] != nu
            or t0.shape[0] != 6 or tau0.shape[0] != 6 or r0.shape[0] != 3 or R0.shape[0] != 3
            or R0.shape[1] != 3 or wF.shape[0] != n + 1 or wF.shape[1] != 6):  # fmt: skip
        raise ValueError("FloatingBase.forward_dynamics: R0 (3, 3), r0 (3,), t0 and tau0 (6,), "
                         "q, qd and taum (nq,), wF (n+1, 6) and out (6+nq,) expected")  # fmt: skip
    B = np.empty((nb + 1, _WCOLS))
    H = np.empty((nu, nu + 1))  # lower triangle of H, then the right-hand side
    # ----------------------- outward, base first: kinematics, inertia, motion, body forces
    for i in range(nb + 1):
        w = B[i]
        if i == 0:  # the base: pose, twist, acceleration at P for t0dot = 0 plus gravity
            c0, c1, c2 = P[6], P[7], P[8]
            for a in range(3):
                for b in range(3):
                    w[_WR + 3 * a + b] = R0[a, b]
                w[_WP + a] = -(R0[a, 0] * c0 + R0[a, 1] * c1 + R0[a, 2] * c2)
            for a in range(6):
                w[_WV + a] = t0[a]
            w[_WA], w[_WA + 1], w[_WA + 2] = 0.0, 0.0, 0.0
            w[_WA + 3] = P[3] - (t0[1] * t0[5] - t0[2] * t0[4])
            w[_WA + 4] = P[4] - (t0[2] * t0[3] - t0[0] * t0[5])
            w[_WA + 5] = P[5] - (t0[0] * t0[4] - t0[1] * t0[3])
            oi = 9
        else:
            j = i - 1
            o = _H + _T * j
            wp = B[int(P[o + _PAR])]
            Rp = wp[_WR : _WR + 9]
            Q = P[o + _ROT : o + _ROT + 9]
            j00 = Rp[0] * Q[0] + Rp[1] * Q[3] + Rp[2] * Q[6]
            j01 = Rp[0] * Q[1] + Rp[1] * Q[4] + Rp[2] * Q[7]
            j02 = Rp[0] * Q[2] + Rp[1] * Q[5] + Rp[2] * Q[8]
            j10 = Rp[3] * Q[0] + Rp[4] * Q[3] + Rp[5] * Q[6]
            j11 = Rp[3] * Q[1] + Rp[4] * Q[4] + Rp[5] * Q[7]
            j12 = Rp[3] * Q[2] + Rp[4] * Q[5] + Rp[5] * Q[8]
            j20 = Rp[6] * Q[0] + Rp[7] * Q[3] + Rp[8] * Q[6]
            j21 = Rp[6] * Q[1] + Rp[7] * Q[4] + Rp[8] * Q[7]
            j22 = Rp[6] * Q[2] + Rp[7] * Q[5] + Rp[8] * Q[8]
            x0, x1, x2 = P[o + _POS], P[o + _POS + 1], P[o + _POS + 2]
            rx = wp[_WP] + Rp[0] * x0 + Rp[1] * x1 + Rp[2] * x2
            ry = wp[_WP + 1] + Rp[3] * x0 + Rp[4] * x1 + Rp[5] * x2
            rz = wp[_WP + 2] + Rp[6] * x0 + Rp[7] * x1 + Rp[8] * x2
            u0, u1, u2 = P[o + _AX], P[o + _AX + 1], P[o + _AX + 2]
            ex = j00 * u0 + j01 * u1 + j02 * u2
            ey = j10 * u0 + j11 * u1 + j12 * u2
            ez = j20 * u0 + j21 * u1 + j22 * u2
            qk = q[j]
            if int(P[o + _TYP]) == 1:  # Rodrigues about the world axis: R = Rot(e, q) Rj
                cq, sq = np.cos(qk), np.sin(qk)
                C = 1.0 - cq
                r00, r01, r02 = cq + ex * ex * C, ex * ey * C - ez * sq, ex * ez * C + ey * sq
                r10, r11, r12 = ey * ex * C + ez * sq, cq + ey * ey * C, ey * ez * C - ex * sq
                r20, r21, r22 = ez * ex * C - ey * sq, ez * ey * C + ex * sq, cq + ez * ez * C
                w[_WR] = r00 * j00 + r01 * j10 + r02 * j20
                w[_WR + 1] = r00 * j01 + r01 * j11 + r02 * j21
                w[_WR + 2] = r00 * j02 + r01 * j12 + r02 * j22
                w[_WR + 3] = r10 * j00 + r11 * j10 + r12 * j20
                w[_WR + 4] = r10 * j01 + r11 * j11 + r12 * j21
                w[_WR + 5] = r10 * j02 + r11 * j12 + r12 * j22
                w[_WR + 6] = r20 * j00 + r21 * j10 + r22 * j20
                w[_WR + 7] = r20 * j01 + r21 * j11 + r22 * j21
                w[_WR + 8] = r20 * j02 + r21 * j12 + r22 * j22
                w[_WP], w[_WP + 1], w[_WP + 2] = rx, ry, rz
                s0, s1, s2 = ex, ey, ez
                s3, s4, s5 = ry * ez - rz * ey, rz * ex - rx * ez, rx * ey - ry * ex
            else:
                w[_WR], w[_WR + 1], w[_WR + 2] = j00, j01, j02
                w[_WR + 3], w[_WR + 4], w[_WR + 5] = j10, j11, j12
                w[_WR + 6], w[_WR + 7], w[_WR + 8] = j20, j21, j22
                w[_WP], w[_WP + 1], w[_WP + 2] = rx + ex * qk, ry + ey * qk, rz + ez * qk
                s0, s1, s2, s3, s4, s5 = 0.0, 0.0, 0.0, ex, ey, ez
            w[_WS], w[_WS + 1], w[_WS + 2] = s0, s1, s2
            w[_WS + 3], w[_WS + 4], w[_WS + 5] = s3, s4, s5
            # v = v_p + S qd; a = a_p + v x (S qd)
            v = qd[j]
            m0, m1, m2, m3, m4, m5 = s0 * v, s1 * v, s2 * v, s3 * v, s4 * v, s5 * v
            v0, v1, v2 = wp[_WV] + m0, wp[_WV + 1] + m1, wp[_WV + 2] + m2
            v3, v4, v5 = wp[_WV + 3] + m3, wp[_WV + 4] + m4, wp[_WV + 5] + m5
            w[_WV], w[_WV + 1], w[_WV + 2] = v0, v1, v2
            w[_WV + 3], w[_WV + 4], w[_WV + 5] = v3, v4, v5
            w[_WA] = wp[_WA] + (v1 * m2 - v2 * m1)
            w[_WA + 1] = wp[_WA + 1] + (v2 * m0 - v0 * m2)
            w[_WA + 2] = wp[_WA + 2] + (v0 * m1 - v1 * m0)
            w[_WA + 3] = wp[_WA + 3] + (v1 * m5 - v2 * m4) + (v4 * m2 - v5 * m1)
            w[_WA + 4] = wp[_WA + 4] + (v2 * m3 - v0 * m5) + (v5 * m0 - v3 * m2)
            w[_WA + 5] = wp[_WA + 5] + (v0 * m4 - v1 * m3) + (v3 * m1 - v4 * m0)
            oi = o + _M
        _body_inertia(P, oi, w)
        _newton_euler(w)
    # ------------------------------------------- external wrenches [n; f] at the bodies' coms
    o = _H + _T * nb
    for i in range(n + 1):
        n0, n1, n2, f0, f1, f2 = wF[i, 0], wF[i, 1], wF[i, 2], wF[i, 3], wF[i, 4], wF[i, 5]
        if n0 == 0.0 and n1 == 0.0 and n2 == 0.0 and f0 == 0.0 and f1 == 0.0 and f2 == 0.0:
            continue
        w = B[int(P[o + 4 * i])]
        x0, x1, x2 = P[o + 4 * i + 1], P[o + 4 * i + 2], P[o + 4 * i + 3]
        cx = w[_WP] + w[_WR] * x0 + w[_WR + 1] * x1 + w[_WR + 2] * x2
        cy = w[_WP + 1] + w[_WR + 3] * x0 + w[_WR + 4] * x1 + w[_WR + 5] * x2
        cz = w[_WP + 2] + w[_WR + 6] * x0 + w[_WR + 7] * x1 + w[_WR + 8] * x2
        w[_WF] -= n0 + (cy * f2 - cz * f1)
        w[_WF + 1] -= n1 + (cz * f0 - cx * f2)
        w[_WF + 2] -= n2 + (cx * f1 - cy * f0)
        w[_WF + 3] -= f0
        w[_WF + 4] -= f1
        w[_WF + 5] -= f2
    # ------------------------------------ inward: bias forces, composite inertias, H (CRBA)
    for j in range(nb - 1, -1, -1):
        o = _H + _T * j
        p = int(P[o + _PAR])
        w = B[j + 1]
        wp = B[p]
        s0, s1, s2, s3, s4, s5 = w[_WS], w[_WS + 1], w[_WS + 2], w[_WS + 3], w[_WS + 4], w[
            _WS + 5]  # fmt: skip
        F0, F1, F2, F3, F4, F5 = _inertia_times(w, s0, s1, s2, s3, s4, s5)
        r = 6 + j
        H[r, r] = s0 * F0 + s1 * F1 + s2 * F2 + s3 * F3 + s4 * F4 + s5 * F5 + P[o + _ARM]
        for c in range(6, r):
            H[r, c] = 0.0
        k = p
        while k > 0:
            wk = B[k]
            H[r, 5 + k] = (wk[_WS] * F0 + wk[_WS + 1] * F1 + wk[_WS + 2] * F2
                           + wk[_WS + 3] * F3 + wk[_WS + 4] * F4 + wk[_WS + 5] * F5)  # fmt: skip
            k = int(P[_H + _T * (k - 1) + _PAR])
        H[r, 0], H[r, 1], H[r, 2], H[r, 3], H[r, 4], H[r, 5] = F0, F1, F2, F3, F4, F5
        H[r, nu] = taum[j] - (s0 * w[_WF] + s1 * w[_WF + 1] + s2 * w[_WF + 2]
                              + s3 * w[_WF + 3] + s4 * w[_WF + 4] + s5 * w[_WF + 5])  # fmt: skip
        for a in range(10):
            wp[_WI + a] += w[_WI + a]
        for a in range(6):
            wp[_WF + a] += w[_WF + a]
    w = B[0]
    m, h0, h1, h2 = w[_WI], w[_WI + 1], w[_WI + 2], w[_WI + 3]
    H[0, 0] = w[_WI + 4]
    H[1, 0], H[1, 1] = w[_WI + 5], w[_WI + 7]
    H[2, 0], H[2, 1], H[2, 2] = w[_WI + 6], w[_WI + 8], w[_WI + 9]
    H[3, 0], H[3, 1], H[3, 2], H[3, 3] = 0.0, h2, -h1, m
    H[4, 0], H[4, 1], H[4, 2], H[4, 3], H[4, 4] = -h2, 0.0, h0, 0.0, m
    H[5, 0], H[5, 1], H[5, 2], H[5, 3], H[5, 4], H[5, 5] = h1, -h0, 0.0, 0.0, 0.0, m
    for a in range(6):
        H[a, nu] = tau0[a] - w[_WF + a]
    # -------------------------------------------- solve by Cholesky (in place, lower part)
    s = 6 if fixed else 0
    for c in range(s, nu):
        d = H[c, c]
        for k in range(s, c):
            d -= H[c, k] * H[c, k]
        if not d > 0.0:
            for a in range(nu):
                out[a] = 0.0 if (fixed and a < 6) else np.nan
            return
        d = np.sqrt(d)
        H[c, c] = d
        for i in range(c + 1, nu):
            x = H[i, c]
            for k in range(s, c):
                x -= H[i, k] * H[c, k]
            H[i, c] = x / d
    for i in range(s, nu):
        x = H[i, nu]
        for k in range(s, i):
            x -= H[i, k] * out[k]
        out[i] = x / H[i, i]
    for i in range(nu - 1, s - 1, -1):
        x = out[i]
        for k in range(i + 1, nu):
            x -= H[k, i] * out[k]
        out[i] = x / H[i, i]
    for a in range(s):
        out[a] = 0.0


_V = "float64[::1]"
_SIG = f"void({_V}, float64[:, ::1], {', '.join([_V] * 6)}, float64[:, ::1], boolean, {_V})"
_COMPILED: list = []


def fd_kernel():
    """The compiled entry point ``fd(P, R0, r0, t0, q, qd, tau0, taum, wF, fixed, out)``: writes
    ``[t0dot; qdd]`` (6 + nq,) into ``out`` (``t0dot = 0`` when ``fixed``; NaN where H is not
    positive definite) for ``P`` from :func:`pack_fd`, ``R0`` (3, 3), ``r0`` (3,; only
    checked), ``t0`` and ``tau0``
    (6,), ``q``, ``qd`` and ``taum`` (nq,), ``wF`` (n+1, 6); compiled or loaded from numba's
    cache on the first call."""
    if not _COMPILED:
        _COMPILED.append(njit(_SIG, cache=True, error_model="numpy")(_fd))
    return _COMPILED[0]
