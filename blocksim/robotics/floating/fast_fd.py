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

Rounding: inertias about a point far from a small body lose a few digits (``I_P`` holds
``m |c|^2`` beside the body's own small inertia), so the results differ from the general
kernel's by up to ~2e-13 of the largest acceleration on the tested models (the Panda's wrist:
4e-14; the general kernel and Pinocchio's ``aba`` agree to 2e-15 there).

The entry point has an explicit signature (float64 C-contiguous writable arrays, a bool), so
numba compiles nothing else for it. Any other argument would raise ``TypeError`` only after
numba's failed dispatch (0.3-1 ms), so the caller converts first (a list, another dtype, a
view or a read-only array is copied once, :meth:`~.model.FloatingBase.forward_dynamics`). It
is compiled (or loaded from numba's cache) on first use (:func:`fd_kernel`).
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
# f (6), composite inertia (10: m, h (3), I_P (xx, xy, xz, yy, yz, zz)), scratch (12, 6)
_WR, _WP, _WS, _WV, _WA, _WF, _WI, _WX, _WY = 0, 9, 12, 18, 24, 30, 36, 46, 58
_WCOLS = 64


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


def _cross(x, xo, y, yo, a):
    """Component ``a`` of ``x[xo : xo+3] x y[yo : yo+3]``."""
    b = (a + 1) % 3
    c = (a + 2) % 3
    return x[xo + b] * y[yo + c] - x[xo + c] * y[yo + b]


def _sym(a, b):
    """Column of ``I_P[a, b]`` (upper triangle stored) in a workspace row."""
    if a > b:
        a, b = b, a
    return _WI + 4 + 3 * a - (a * (a - 1)) // 2 + b - a


def _inertia_times(w, x, xo, y, yo):
    """``y[yo : yo+6]`` = the spatial inertia of row ``w`` times the motion ``x[xo : xo+6]``:
    ``[I_P a + h x b; m b - h x a]`` for ``x = [a; b]``."""
    for a in range(3):
        s = 0.0
        for b in range(3):
            s += w[_sym(a, b)] * x[xo + b]
        y[yo + a] = s + _cross(w, _WI + 1, x, xo + 3, a)
        y[yo + 3 + a] = w[_WI] * x[xo + 3 + a] - _cross(w, _WI + 1, x, xo, a)


def _body_inertia(P, o, w):
    """The workspace row ``w`` gets the body's inertia about P, world axes (columns _WI..),
    from its mass ``P[o]``, com ``P[o+1 : o+4]`` and inertia ``P[o+4 : o+13]`` (body frame)
    and its rotation and link origin (columns _WR.., _WP..)."""
    m = P[o]
    cc = 0.0
    for a in range(3):  # the com, relative to P
        x = w[_WP + a]
        for b in range(3):
            x += w[_WR + 3 * a + b] * P[o + 1 + b]
        w[_WX + a] = x
        w[_WI + 1 + a] = m * x
        cc += x * x
    for c in range(3):  # T = I R^T
        for b in range(3):
            t = 0.0
            for d in range(3):
                t += P[o + 4 + 3 * c + d] * w[_WR + 3 * b + d]
            w[_WX + 3 + 3 * c + b] = t
    w[_WI] = m
    for a in range(3):  # R T + m (|c|^2 1 - c c^T), upper triangle
        for b in range(a, 3):
            s = 0.0
            for c in range(3):
                s += w[_WR + 3 * a + c] * w[_WX + 3 + 3 * c + b]
            w[_sym(a, b)] = s + m * ((cc if a == b else 0.0) - w[_WX + a] * w[_WX + b])


def _newton_euler(w):
    """Row ``w``'s force ``f = I a + v x* (I v)`` from its ``v`` and ``a`` (columns _WV, _WA);
    uses the scratch columns _WY."""
    _inertia_times(w, w, _WV, w, _WY)
    _inertia_times(w, w, _WA, w, _WF)
    for a in range(3):  # [w; u] x* [n; f] = [w x n + u x f; w x f]
        w[_WF + a] += _cross(w, _WV, w, _WY, a) + _cross(w, _WV + 3, w, _WY + 3, a)
        w[_WF + 3 + a] += _cross(w, _WV, w, _WY + 3, a)


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
            for a in range(3):
                x = 0.0
                for b in range(3):
                    w[_WR + 3 * a + b] = R0[a, b]
                    x -= R0[a, b] * P[6 + b]
                w[_WP + a] = x
            for a in range(6):
                w[_WV + a] = t0[a]
            for a in range(3):
                w[_WA + a] = 0.0
                w[_WA + 3 + a] = P[3 + a] - _cross(t0, 0, t0, 3, a)
            oi = 9
        else:
            j = i - 1
            o = _H + _T * j
            wp = B[int(P[o + _PAR])]
            for a in range(3):  # joint frame Rj = Rp Q and position rJ = p_p + Rp x
                x = wp[_WP + a]
                for b in range(3):
                    x += wp[_WR + 3 * a + b] * P[o + _POS + b]
                    t = 0.0
                    for c in range(3):
                        t += wp[_WR + 3 * a + c] * P[o + _ROT + 3 * c + b]
                    w[_WR + 3 * a + b] = t
                w[_WP + a] = x
            for a in range(3):  # world axis e = Rj u, into S[:3]
                x = 0.0
                for b in range(3):
                    x += w[_WR + 3 * a + b] * P[o + _AX + b]
                w[_WS + a] = x
            qk = q[j]
            if int(P[o + _TYP]) == 1:  # R = Rot(e, q) Rj, by Rodrigues on each column
                cq, sq = np.cos(qk), np.sin(qk)
                for b in range(3):
                    ed = 0.0
                    for a in range(3):
                        ed += w[_WS + a] * w[_WR + 3 * a + b]
                    for a in range(3):
                        w[_WX + a] = w[_WR + 3 * a + b]
                    for a in range(3):
                        w[_WR + 3 * a + b] = (cq * w[_WX + a] + sq * _cross(w, _WS, w, _WX, a)
                                              + (1.0 - cq) * ed * w[_WS + a])  # fmt: skip
                for a in range(3):  # S = [e; rJ x e]
                    w[_WS + 3 + a] = _cross(w, _WP, w, _WS, a)
            else:  # prismatic: p = rJ + e q, S = [0; e]
                for a in range(3):
                    w[_WP + a] += w[_WS + a] * qk
                    w[_WS + 3 + a] = w[_WS + a]
                    w[_WS + a] = 0.0
            v = qd[j]
            for a in range(6):  # v = v_p + S qd (S qd in _WY)
                w[_WY + a] = w[_WS + a] * v
                w[_WV + a] = wp[_WV + a] + w[_WY + a]
            for a in range(3):  # a = a_p + v x (S qd)
                w[_WA + a] = wp[_WA + a] + _cross(w, _WV, w, _WY, a)
                w[_WA + 3 + a] = (wp[_WA + 3 + a] + _cross(w, _WV, w, _WY + 3, a)
                                  + _cross(w, _WV + 3, w, _WY, a))  # fmt: skip
            oi = o + _M
        _body_inertia(P, oi, w)
        _newton_euler(w)
    # ------------------------------------------- external wrenches [n; f] at the bodies' coms
    o = _H + _T * nb
    for i in range(n + 1):
        nonzero = False
        for a in range(6):
            nonzero = nonzero or wF[i, a] != 0.0
        if not nonzero:
            continue
        w = B[int(P[o + 4 * i])]
        for a in range(3):  # the com, relative to P, into the scratch columns
            x = w[_WP + a]
            for b in range(3):
                x += w[_WR + 3 * a + b] * P[o + 4 * i + 1 + b]
            w[_WX + a] = x
        wi = wF[i]
        for a in range(3):
            w[_WF + a] -= wi[a] + _cross(w, _WX, wi, 3, a)
            w[_WF + 3 + a] -= wi[3 + a]
    # ------------------------------------ inward: bias forces, composite inertias, H (CRBA)
    for j in range(nb - 1, -1, -1):
        o = _H + _T * j
        p = int(P[o + _PAR])
        w = B[j + 1]
        wp = B[p]
        _inertia_times(w, w, _WS, w, _WY)  # F = Ic S
        r = 6 + j
        x = P[o + _ARM]
        for a in range(6):
            x += w[_WS + a] * w[_WY + a]
        H[r, r] = x
        for c in range(6, r):
            H[r, c] = 0.0
        k = p
        while k > 0:
            wk = B[k]
            x = 0.0
            for a in range(6):
                x += wk[_WS + a] * w[_WY + a]
            H[r, 5 + k] = x
            k = int(P[_H + _T * (k - 1) + _PAR])
        x = taum[j]
        for a in range(6):
            H[r, a] = w[_WY + a]
            x -= w[_WS + a] * w[_WF + a]
        H[r, nu] = x
        for a in range(10):
            wp[_WI + a] += w[_WI + a]
        for a in range(6):
            wp[_WF + a] += w[_WF + a]
    w = B[0]
    for a in range(3):
        for b in range(a + 1):
            H[a, b] = w[_sym(a, b)]
            H[3 + a, 3 + b] = w[_WI] if a == b else 0.0
    h0, h1, h2 = w[_WI + 1], w[_WI + 2], w[_WI + 3]
    H[3, 0], H[3, 1], H[3, 2] = 0.0, h2, -h1  # -[h]x
    H[4, 0], H[4, 1], H[4, 2] = -h2, 0.0, h0
    H[5, 0], H[5, 1], H[5, 2] = h1, -h0, 0.0
    for a in range(6):
        H[a, nu] = tau0[a] - w[_WF + a]
    # -------------------------------------------- solve by Cholesky (in place, lower part)
    _solve(H, 6 if fixed else 0, out)


def _solve(H, s, out):
    """``out[s:]`` = the solution of ``H[s:, s:] x = H[s:, nu]`` (H's lower triangle, factored
    in place), ``out[:s] = 0``; NaN in ``out[s:]`` if H is not positive definite."""
    nu = H.shape[0]
    for a in range(s):
        out[a] = 0.0
    for c in range(s, nu):
        d = H[c, c]
        for k in range(s, c):
            d -= H[c, k] * H[c, k]
        if not d > 0.0:
            for a in range(s, nu):
                out[a] = np.nan
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


_V = "float64[::1]"
_SIG = f"void({_V}, float64[:, ::1], {', '.join([_V] * 6)}, float64[:, ::1], boolean, {_V})"
# the helpers get explicit signatures too: called with constant offsets, numba would compile
# one specialisation per constant (Literal[int]) otherwise
_HELPERS = {
    "_cross": f"float64({_V}, int64, {_V}, int64, int64)",
    "_sym": "int64(int64, int64)",
    "_inertia_times": f"void({_V}, {_V}, int64, {_V}, int64)",
    "_body_inertia": f"void({_V}, int64, {_V})",
    "_newton_euler": f"void({_V})",
    "_solve": f"void(float64[:, ::1], int64, {_V})",
}
_COMPILED: list = []


def fd_kernel():
    """The compiled entry point ``fd(P, R0, r0, t0, q, qd, tau0, taum, wF, fixed, out)``:
    writes ``[t0dot; qdd]`` (6 + nq,) into ``out`` (``t0dot = 0`` when ``fixed``; NaN where H
    is not positive definite) for ``P`` from :func:`pack_fd`, ``R0`` (3, 3), ``r0`` (3,; only
    checked), ``t0`` and ``tau0`` (6,), ``q``, ``qd`` and ``taum`` (nq,), ``wF`` (n+1, 6);
    compiled (or loaded from numba's cache) on the first call, with its helpers (plain Python
    functions until then, so importing this module compiles nothing)."""
    if not _COMPILED:
        g = globals()
        for name, sig in _HELPERS.items():
            g[name] = njit(sig, cache=True, error_model="numpy")(g[name])
        _COMPILED.append(njit(_SIG, cache=True, error_model="numpy")(_fd))
    return _COMPILED[0]
