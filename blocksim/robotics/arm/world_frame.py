"""Joint-space inertia and geometric Jacobian from one forward pass in frame-0/world axes.

Both kernels walk the chain once, composing ``T_i = T_{i-1} A[i] J(q_i) B[i]``
(:mod:`~.layout`) directly as rotation and origin tuples, and never form a 4x4 product twice:

* the constant factors ``A[i]`` and ``B[i]`` are classified (identity, pure translation,
  rotation about x, general; :func:`transform_kind`): standard DH has ``A = I`` and
  ``B = Tz(d) Tx(a) Rx(alpha)``, modified DH ``A = Rx(alpha) Tx(a)`` and ``B = Tz(d)``, so a
  link costs at most one product that mixes two columns, not two general 3x3 products;
* a chain that is all standard-DH revolute joints (:func:`is_dh_chain`, decided once per
  model: ``SerialLink`` keeps it in its packed parameters) takes a path with no branches;
* the joint motion ``J`` is applied as a column rotation (revolute: the first two columns
  mix by ``cos``/``sin``, all computed ahead of the chain) or a shift along the axis column
  (prismatic).

:func:`jacob0_into` (``jacob0``): the axis of joint ``i`` is the z axis ``z_i`` of
``T_{i-1} A[i]`` through its origin ``o_i``; with the end-effector (tool) origin ``p_e`` the
column is ``[z_i x (p_e - o_i); z_i]`` (revolute) or ``[z_i; 0]`` (prismatic), rows
``[v; omega]`` in the world frame (RTB ``jacob0``).

:func:`crba_into` (``inertia``): the composite-rigid-body algorithm (Featherstone, *Rigid Body
Dynamics Algorithms*, §6.2) in frame-0 coordinates about the frame-0 origin, the form
Pinocchio's ``crba`` uses. Each link's spatial inertia ``(m, h = m c, I_O)`` is expressed once
in frame 0 (mass, first moment, rotational inertia about the frame-0 origin); in one frame the
composite body of links ``i..n`` is a plain sum. The joint motion ``S_i = (omega, v_O)`` is
``(z_i, o_i x z_i)`` (revolute) or ``(0, z_i)`` (prismatic), and

    M[j, i] = S_j . (Y_i^c S_i),      j <= i,

where ``Y^c S = (h x v_O + I_O omega, m v_O + omega x h)`` is the momentum (moment about the
origin, then linear) of the composite body moving with ``S``: a 6-term dot product per entry
instead of a wrench carried down the chain link by link. Rotor inertias ``G^2 Jm`` are added
on the diagonal. The base transform does not change ``M`` and is not applied.

Units: lengths m, angles rad, masses kg, inertias kg m^2; ``M`` entries kg m^2 (revolute
pairs), kg m or kg.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import GR, IXX, IXY, IXZ, IYY, IYZ, IZZ, JM, RX, RY, RZ
from .layout import M as MASS

__all__ = ["crba_into", "is_dh_chain", "jacob0_into", "transform_kind"]

IDENTITY, TRANSLATION, XROT, GENERAL = 0, 1, 2, 3


@njit(cache=True, inline="always")
def transform_kind(kin, o):
    """Kind of the packed 3x4 transform at ``kin[o:o+12]``: 0 identity, 1 rotation-free
    (pure translation), 2 a rotation about x (and any translation: DH's ``Rx(alpha)``),
    3 general."""
    if kin[o] != 1.0 or kin[o + 1] != 0.0 or kin[o + 2] != 0.0 or kin[o + 4] != 0.0:
        return GENERAL
    if kin[o + 8] != 0.0:
        return GENERAL
    if kin[o + 5] != 1.0 or kin[o + 6] != 0.0 or kin[o + 9] != 0.0 or kin[o + 10] != 1.0:
        return XROT
    if kin[o + 3] != 0.0 or kin[o + 7] != 0.0 or kin[o + 11] != 0.0:
        return TRANSLATION
    return IDENTITY


@njit(cache=True, inline="always")
def _compose(R, p, kin, o):
    """``(R, p) @ X`` with ``X`` the packed transform at ``kin[o:o+12]``; R a row-major
    9-tuple, p a 3-tuple."""
    kind = transform_kind(kin, o)
    if kind == IDENTITY:
        return R, p
    tx, ty, tz = kin[o + 3], kin[o + 7], kin[o + 11]
    p = (
        p[0] + R[0] * tx + R[1] * ty + R[2] * tz,
        p[1] + R[3] * tx + R[4] * ty + R[5] * tz,
        p[2] + R[6] * tx + R[7] * ty + R[8] * tz,
    )
    if kind == TRANSLATION:
        return R, p
    m4, m5 = kin[o + 5], kin[o + 6]
    m7, m8 = kin[o + 9], kin[o + 10]
    if kind == XROT:  # the first column stays, the other two mix
        R = (
            R[0],
            R[1] * m4 + R[2] * m7,
            R[1] * m5 + R[2] * m8,
            R[3],
            R[4] * m4 + R[5] * m7,
            R[4] * m5 + R[5] * m8,
            R[6],
            R[7] * m4 + R[8] * m7,
            R[7] * m5 + R[8] * m8,
        )
        return R, p
    m0, m1, m2 = kin[o], kin[o + 1], kin[o + 2]
    m3, m6 = kin[o + 4], kin[o + 8]
    R = (
        R[0] * m0 + R[1] * m3 + R[2] * m6,
        R[0] * m1 + R[1] * m4 + R[2] * m7,
        R[0] * m2 + R[1] * m5 + R[2] * m8,
        R[3] * m0 + R[4] * m3 + R[5] * m6,
        R[3] * m1 + R[4] * m4 + R[5] * m7,
        R[3] * m2 + R[4] * m5 + R[5] * m8,
        R[6] * m0 + R[7] * m3 + R[8] * m6,
        R[6] * m1 + R[7] * m4 + R[8] * m7,
        R[6] * m2 + R[7] * m5 + R[8] * m8,
    )
    return R, p


#: :func:`_compose` as a called function: the general path of :func:`_link` (models other than
#: standard DH) calls it instead of inlining it twice per kernel, which kept numba compiling
#: for seconds longer
_compose_call = njit(cache=True)(_compose.py_func)


@njit(cache=True, inline="always")
def _joint(R, p, revolute, c, s):
    """``(R, p) @ J``: ``rotz`` by the angle with cosine ``c`` and sine ``s`` (revolute) or
    ``transz(c)`` (prismatic: ``c`` is the displacement)."""
    if revolute:
        R = (
            c * R[0] + s * R[1],
            c * R[1] - s * R[0],
            R[2],
            c * R[3] + s * R[4],
            c * R[4] - s * R[3],
            R[5],
            c * R[6] + s * R[7],
            c * R[7] - s * R[6],
            R[8],
        )
        return R, p
    return R, (p[0] + c * R[2], p[1] + c * R[5], p[2] + c * R[8])


@njit(cache=True, inline="always")
def _joint_motion(kin, q, n, out):
    """``out[0, i], out[1, i]`` = cos, sin of joint angle ``i`` (revolute), ``out[0, i]`` its
    displacement (prismatic), offsets applied: the trigonometry done ahead of the chain, so
    the chain's arithmetic runs without function calls."""
    for i in range(n):
        v = q[i] + kin[1 + n + i]
        if kin[1 + i] == 0.0:
            out[0, i] = np.cos(v)
            out[1, i] = np.sin(v)
        else:
            out[0, i] = v


@njit(cache=True)
def is_dh_chain(kin):
    """True when every joint is revolute with ``A = I`` and ``B`` a translation followed by
    a rotation about x (standard DH: ``B = Tz(d) Tx(a) Rx(alpha)``): the kernels then take a
    branch-free path for the chain (``dh`` argument of :func:`jacob0_into`, :func:`crba_into`).
    """
    n = int(kin[0])
    for i in range(n):
        oa = 1 + 2 * n + 24 * i
        if (
            kin[1 + i] != 0.0
            or transform_kind(kin, oa) != IDENTITY
            or transform_kind(kin, oa + 12) == GENERAL
        ):
            return False
    return True


@njit(cache=True, inline="always")
def _link(R, p, kin, n, i, c, s, dh):
    """Walk link ``i``: from frame ``i-1`` ``(R, p)`` to ``(z, o, R_i, p_i)`` with ``z``, ``o``
    the joint axis and a point on it, ``(R_i, p_i)`` frame ``i`` (all in the frame of
    ``R, p``); ``c, s`` from :func:`_joint_motion`; ``dh`` from :func:`is_dh_chain`."""
    oa = 1 + 2 * n + 24 * i
    if dh:  # A = I, rotz(q), B = (t, rotx): straight-line arithmetic
        z = (R[2], R[5], R[8])
        a0, a1 = c * R[0] + s * R[1], c * R[1] - s * R[0]
        a3, a4 = c * R[3] + s * R[4], c * R[4] - s * R[3]
        a6, a7 = c * R[6] + s * R[7], c * R[7] - s * R[6]
        ob = oa + 12
        tx, ty, tz = kin[ob + 3], kin[ob + 7], kin[ob + 11]
        m4, m5, m7, m8 = kin[ob + 5], kin[ob + 6], kin[ob + 9], kin[ob + 10]
        pn = (
            p[0] + a0 * tx + a1 * ty + z[0] * tz,
            p[1] + a3 * tx + a4 * ty + z[1] * tz,
            p[2] + a6 * tx + a7 * ty + z[2] * tz,
        )
        Rn = (
            a0,
            a1 * m4 + z[0] * m7,
            a1 * m5 + z[0] * m8,
            a3,
            a4 * m4 + z[1] * m7,
            a4 * m5 + z[1] * m8,
            a6,
            a7 * m4 + z[2] * m7,
            a7 * m5 + z[2] * m8,
        )
        return z, p, Rn, pn
    R, p = _compose_call(R, p, kin, oa)
    z = (R[2], R[5], R[8])
    o = p
    R, p = _joint(R, p, kin[1 + i] == 0.0, c, s)
    R, p = _compose_call(R, p, kin, oa + 12)
    return z, o, R, p


@njit(cache=True, inline="always")
def jacob0_into(kin, q, J, dh):
    """World-frame geometric Jacobian into ``J`` (6, n), rows ``[v; omega]`` (module
    docstring); ``dh``: :func:`is_dh_chain` of the model. ValueError unless ``q`` (n,) and
    ``J`` (6, n) fit the model."""
    n = int(kin[0])
    if q.shape[0] != n or J.shape[0] != 6 or J.shape[1] != n:
        raise ValueError("jacob0: q must have one element per joint (robot.n)")
    ob = 1 + 26 * n
    R = (
        kin[ob],
        kin[ob + 1],
        kin[ob + 2],
        kin[ob + 4],
        kin[ob + 5],
        kin[ob + 6],
        kin[ob + 8],
        kin[ob + 9],
        kin[ob + 10],
    )
    p = (kin[ob + 3], kin[ob + 7], kin[ob + 11])
    _joint_motion(kin, q, n, J)
    for i in range(n):
        z, o, R, p = _link(R, p, kin, n, i, J[0, i], J[1, i], dh)
        J[0, i] = o[0]  # axis origin o_i, replaced below
        J[1, i] = o[1]
        J[2, i] = o[2]
        J[3, i] = z[0]  # axis z_i
        J[4, i] = z[1]
        J[5, i] = z[2]
    ot = 13 + 26 * n
    tx, ty, tz = kin[ot + 3], kin[ot + 7], kin[ot + 11]
    ex = p[0] + R[0] * tx + R[1] * ty + R[2] * tz
    ey = p[1] + R[3] * tx + R[4] * ty + R[5] * tz
    ez = p[2] + R[6] * tx + R[7] * ty + R[8] * tz
    for i in range(n):
        zx, zy, zz = J[3, i], J[4, i], J[5, i]
        if kin[1 + i] == 0.0:  # revolute: [z x (p_e - o); z]
            dx, dy, dz = ex - J[0, i], ey - J[1, i], ez - J[2, i]
            J[0, i] = zy * dz - zz * dy
            J[1, i] = zz * dx - zx * dz
            J[2, i] = zx * dy - zy * dx
        else:  # prismatic: [z; 0]
            J[0, i] = zx
            J[1, i] = zy
            J[2, i] = zz
            J[3, i] = 0.0
            J[4, i] = 0.0
            J[5, i] = 0.0


# per-link scratch of crba_into: the joint motion S (omega, v_O), then the link's spatial
# inertia in frame 0: mass, first moment h, rotational inertia about the origin (xx yy zz xy
# yz xz)
SCRATCH = 16
_S, _MS, _H, _I = 0, 6, 7, 10


@njit(cache=True, inline="always")
def crba_into(kin, dyn, od, q, M, S, dh):
    """Joint-space inertia ``M`` (n, n) at ``q`` (n,) by the composite-rigid-body algorithm
    in frame-0 coordinates (module docstring).

    ``dyn`` is a flat vector holding the dynamics rows (:data:`~.layout.DYN_COLUMNS`), row
    ``i`` at ``dyn[od + 15 i:]`` (``dyn.ravel()`` with ``od = 0``, or the packed parameters
    of :mod:`~.fast_calls`, which then need no view); ``S`` (n, SCRATCH) is scratch. Rotor
    inertias ``G^2 Jm`` are on the diagonal; ``dh``: :func:`is_dh_chain` of the model.
    ValueError unless the shapes fit the model."""
    n = int(kin[0])
    if q.shape[0] != n or M.shape[0] != n or M.shape[1] != n or dyn.shape[0] < od + 15 * n:
        raise ValueError(
            "inertia: q must have one element per joint (robot.n), the output be (n, n)"
        )
    R = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    p = (0.0, 0.0, 0.0)
    _joint_motion(kin, q, n, S.T)
    for i in range(n):
        z, o, R, p = _link(R, p, kin, n, i, S[i, 0], S[i, 1], dh)
        if kin[1 + i] == 0.0:  # (z, o x z)
            S[i, 0], S[i, 1], S[i, 2] = z[0], z[1], z[2]
            S[i, 3] = o[1] * z[2] - o[2] * z[1]
            S[i, 4] = o[2] * z[0] - o[0] * z[2]
            S[i, 5] = o[0] * z[1] - o[1] * z[0]
        else:  # (0, z)
            S[i, 0], S[i, 1], S[i, 2] = 0.0, 0.0, 0.0
            S[i, 3], S[i, 4], S[i, 5] = z[0], z[1], z[2]
        # the link's inertia in frame 0: centre of mass c, R Ic R^T, parallel axes to origin
        d = od + 15 * i
        m = dyn[d + MASS]
        rx, ry, rz = dyn[d + RX], dyn[d + RY], dyn[d + RZ]
        cx = p[0] + R[0] * rx + R[1] * ry + R[2] * rz
        cy = p[1] + R[3] * rx + R[4] * ry + R[5] * rz
        cz = p[2] + R[6] * rx + R[7] * ry + R[8] * rz
        ixx, iyy, izz = dyn[d + IXX], dyn[d + IYY], dyn[d + IZZ]
        ixy, iyz, ixz = dyn[d + IXY], dyn[d + IYZ], dyn[d + IXZ]
        # T = Ic R^T (column k of T = Ic @ row k of R)
        t00 = ixx * R[0] + ixy * R[1] + ixz * R[2]
        t10 = ixy * R[0] + iyy * R[1] + iyz * R[2]
        t20 = ixz * R[0] + iyz * R[1] + izz * R[2]
        t01 = ixx * R[3] + ixy * R[4] + ixz * R[5]
        t11 = ixy * R[3] + iyy * R[4] + iyz * R[5]
        t21 = ixz * R[3] + iyz * R[4] + izz * R[5]
        t02 = ixx * R[6] + ixy * R[7] + ixz * R[8]
        t12 = ixy * R[6] + iyy * R[7] + iyz * R[8]
        t22 = ixz * R[6] + iyz * R[7] + izz * R[8]
        mx, my, mz = m * cx, m * cy, m * cz
        S[i, _MS] = m
        S[i, _H], S[i, _H + 1], S[i, _H + 2] = mx, my, mz
        S[i, _I] = R[0] * t00 + R[1] * t10 + R[2] * t20 + my * cy + mz * cz
        S[i, _I + 1] = R[3] * t01 + R[4] * t11 + R[5] * t21 + mx * cx + mz * cz
        S[i, _I + 2] = R[6] * t02 + R[7] * t12 + R[8] * t22 + mx * cx + my * cy
        S[i, _I + 3] = R[0] * t01 + R[1] * t11 + R[2] * t21 - mx * cy
        S[i, _I + 4] = R[3] * t02 + R[4] * t12 + R[5] * t22 - my * cz
        S[i, _I + 5] = R[0] * t02 + R[1] * t12 + R[2] * t22 - mx * cz
    # backward: composite body of links i..n (a sum in one frame), its momentum under S_i
    m = 0.0
    hx = hy = hz = 0.0
    ixx = iyy = izz = ixy = iyz = ixz = 0.0
    for i in range(n - 1, -1, -1):
        m += S[i, _MS]
        hx += S[i, _H]
        hy += S[i, _H + 1]
        hz += S[i, _H + 2]
        ixx += S[i, _I]
        iyy += S[i, _I + 1]
        izz += S[i, _I + 2]
        ixy += S[i, _I + 3]
        iyz += S[i, _I + 4]
        ixz += S[i, _I + 5]
        wx, wy, wz = S[i, 0], S[i, 1], S[i, 2]
        vx, vy, vz = S[i, 3], S[i, 4], S[i, 5]
        # moment about the origin h x v + I w, linear momentum m v + w x h
        nx = hy * vz - hz * vy + ixx * wx + ixy * wy + ixz * wz
        ny = hz * vx - hx * vz + ixy * wx + iyy * wy + iyz * wz
        nz = hx * vy - hy * vx + ixz * wx + iyz * wy + izz * wz
        fx = m * vx + wy * hz - wz * hy
        fy = m * vy + wz * hx - wx * hz
        fz = m * vz + wx * hy - wy * hx
        g = dyn[od + 15 * i + GR]
        M[i, i] = (
            S[i, 0] * nx
            + S[i, 1] * ny
            + S[i, 2] * nz
            + S[i, 3] * fx
            + S[i, 4] * fy
            + S[i, 5] * fz
            + g * g * dyn[od + 15 * i + JM]
        )
        for j in range(i):
            v = (
                S[j, 0] * nx
                + S[j, 1] * ny
                + S[j, 2] * nz
                + S[j, 3] * fx
                + S[j, 4] * fy
                + S[j, 5] * fz
            )
            M[j, i] = v
            M[i, j] = v
