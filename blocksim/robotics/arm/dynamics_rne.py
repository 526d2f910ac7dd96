"""Recursive Newton–Euler inverse dynamics of a serial-link arm (numba kernels).

The arm is the ``A·J(q)·B`` form of :mod:`blocksim.robotics.arm.layout`, so one recursion
serves standard DH, modified DH and product-of-exponentials models. The kernels take the
kinematics packed in one vector ``kin`` (:func:`blocksim.robotics.arm.kinematics.pack_kinematics`,
cached by ``SerialLink`` as ``robot.kin``) and the dynamics table ``dyn`` (n, 15) of
:data:`~blocksim.robotics.arm.layout.DYN_COLUMNS`: two arrays instead of seven keep numba's
per-argument dispatch cost down.

Everything is computed in the link frames. Link ``i`` moves relative to link ``i-1`` by

    X_i = A[i] @ J(sigma[i], q[i] + offset[i]) @ B[i]      (rotation R_i, origin p_i in frame i-1)

and, in link-frame-``i`` coordinates, joint ``i`` has the constant unit axis ``a_i = R_B^T e_z``
(the third row of ``B[i]``'s rotation) through the point ``-r_i``, ``r_i = R_B^T p_B``.

The core, :func:`rne_core`, evaluates the torques as a *symmetric bilinear* form in two joint
velocity vectors ``u`` and ``w`` plus terms linear in ``qdd``, the base acceleration and the end
wrench. With ``u = w = qd`` it is the ordinary RNE (Luh, Walker and Paul; RTB's ``rne_dh``);
with ``u = qd, w = e_k`` it gives column ``k`` of the Christoffel-symbol Coriolis matrix
(:func:`blocksim.robotics.arm.dynamics.coriolis_nb`, ``n`` passes instead of RTB's n(n+1)/2).

Conventions (Robotics Toolbox 9.10 ``SerialLink.rne``):

* ``gravity`` is the *upward* acceleration equivalent to gravity in the world frame
  (``[0, 0, 9.81]`` for gravity along -z); it is rotated into frame 0 by the base rotation
  (the base translation has no effect on a fixed-base arm).
* ``fext = [fx, fy, fz, mx, my, mz]`` (N, N m) is the wrench the end effector exerts *on the
  environment*, expressed in the tool frame about the tool origin. RTB starts its backward
  recursion with ``[f; n] = fext`` in the link-n frame, which is the same when ``tool = I``;
  MR's ``Ftip`` is the same wrench (moment first) in its frame {n+1}. It adds
  ``J_e^T fext`` to the torques.
* Motor and friction: joint ``i`` adds ``G^2 Jm qdd`` (rotor inertia) and the torque that
  overcomes friction, ``-friction(qd) = G^2 B qd + |G| Tc±`` with ``Tc+`` for ``qd > 0``,
  ``Tc-`` (<= 0) for ``qd < 0`` and nothing at ``qd = 0`` (RTB ``Link.friction``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import BV, GR, IXX, IXY, IXZ, IYY, IYZ, IZZ, JM, RX, RY, RZ, TCN, TCP
from .layout import M as MASS

# ---------------------------------------------------------------------------------------------
# 3-vectors as tuples (no allocation inside the kernels)


@njit(cache=True)
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True)
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True)
def _axpy(s, a, b):
    """``s * a + b``."""
    return (s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2])


# The per-link work array W (n, WORK) of the kernels: the rotation R_i of link frame i in frame
# i-1 (row-major), its origin p_i, and the link's inertial force F_i and moment N_i (frame i).
WORK = 18
_P, _F, _N = 9, 12, 15


@njit(cache=True)
def _rot(W, i, v):
    """``R_i @ v`` (frame i -> frame i-1)."""
    return (W[i, 0] * v[0] + W[i, 1] * v[1] + W[i, 2] * v[2],
            W[i, 3] * v[0] + W[i, 4] * v[1] + W[i, 5] * v[2],
            W[i, 6] * v[0] + W[i, 7] * v[1] + W[i, 8] * v[2])


@njit(cache=True)
def _rot_t(W, i, v):
    """``R_i^T @ v`` (frame i-1 -> frame i)."""
    return (W[i, 0] * v[0] + W[i, 3] * v[1] + W[i, 6] * v[2],
            W[i, 1] * v[0] + W[i, 4] * v[1] + W[i, 7] * v[2],
            W[i, 2] * v[0] + W[i, 5] * v[1] + W[i, 8] * v[2])


@njit(cache=True, inline="always")  # called with 3 literal offsets: inlined, never compiled apart
def _vec(W, i, k):
    return (W[i, k], W[i, k + 1], W[i, k + 2])


@njit(cache=True)
def _sym2(a, b, x, same):
    """``(a x (b x x) + b x (a x x)) / 2``, the polarised centripetal term (``a x (a x x)``
    when ``same``)."""
    if same:
        return _cross(a, _cross(a, x))
    s = _add(_cross(a, _cross(b, x)), _cross(b, _cross(a, x)))
    return (0.5 * s[0], 0.5 * s[1], 0.5 * s[2])


@njit(cache=True)
def _inertia_mul(dyn, i, w):
    """``I_i @ w`` with the link inertia (about the centre of mass, link-frame axes)."""
    ixx, iyy, izz = dyn[i, IXX], dyn[i, IYY], dyn[i, IZZ]
    ixy, iyz, ixz = dyn[i, IXY], dyn[i, IYZ], dyn[i, IXZ]
    return (ixx * w[0] + ixy * w[1] + ixz * w[2],
            ixy * w[0] + iyy * w[1] + iyz * w[2],
            ixz * w[0] + iyz * w[1] + izz * w[2])


@njit(cache=True)
def _com(dyn, i):
    """Centre of mass of link ``i`` in its frame (m)."""
    return (dyn[i, RX], dyn[i, RY], dyn[i, RZ])


# ---------------------------------------------------------------------------------------------
# the packed kinematics (layout documented in blocksim.robotics.arm.kinematics): the top 3x4
# block of each transform, row-major, element (r, c) at offset + 4 r + c


@njit(cache=True)
def joint_axis(kin, n, i):
    """Unit axis of joint ``i`` in link frame ``i`` (constant): ``R_B^T e_z``."""
    o = 13 + 2 * n + 24 * i                 # B[i]
    return (kin[o + 8], kin[o + 9], kin[o + 10])


@njit(cache=True)
def joint_lever(kin, n, i):
    """``r_i = R_B^T p_B``: from a point of joint axis ``i`` to origin ``i``, frame ``i`` (m)."""
    o = 13 + 2 * n + 24 * i                 # B[i]
    return (kin[o] * kin[o + 3] + kin[o + 4] * kin[o + 7] + kin[o + 8] * kin[o + 11],
            kin[o + 1] * kin[o + 3] + kin[o + 5] * kin[o + 7] + kin[o + 9] * kin[o + 11],
            kin[o + 2] * kin[o + 3] + kin[o + 6] * kin[o + 7] + kin[o + 10] * kin[o + 11])


@njit(cache=True)
def joint_torque(kin, n, i, nm, f):
    """Generalised force of joint ``i`` from the wrench ``(f, nm)`` acting across it.

    ``f`` (N) and ``nm`` (N m, about origin ``i``) are in frame ``i``; a revolute joint takes
    the moment about its own axis, a prismatic joint the force along it.
    """
    ax = joint_axis(kin, n, i)
    if kin[1 + i] == 0.0:
        t = _add(nm, _cross(joint_lever(kin, n, i), f))
        return ax[0] * t[0] + ax[1] * t[1] + ax[2] * t[2]
    return ax[0] * f[0] + ax[1] * f[1] + ax[2] * f[2]


@njit(cache=True)
def link_transforms(kin, q, W):
    """Fill the rotation and origin of link frame ``i`` in frame ``i-1`` into ``W`` (n, WORK).

    ``X_i = A[i] @ J(q[i] + offset[i]) @ B[i]``; ``J`` is ``rotz`` (revolute) or ``transz``
    (prismatic). q (n,) in rad or m; origins in m.
    """
    n = q.shape[0]
    for i in range(n):
        v = q[i] + kin[1 + n + i]
        revolute = kin[1 + i] == 0.0
        c = np.cos(v) if revolute else 1.0
        s = np.sin(v) if revolute else 0.0
        dz = 0.0 if revolute else v
        oa = 1 + 2 * n + 24 * i
        ob = oa + 12
        for r in range(3):
            a0 = kin[oa + 4 * r]
            a1 = kin[oa + 4 * r + 1]
            c0 = c * a0 + s * a1                    # row r of A[i] @ J, rotation part
            c1 = c * a1 - s * a0
            c2 = kin[oa + 4 * r + 2]
            for k in range(3):
                W[i, 3 * r + k] = (c0 * kin[ob + k] + c1 * kin[ob + 4 + k]
                                   + c2 * kin[ob + 8 + k])
            W[i, _P + r] = (c0 * kin[ob + 3] + c1 * kin[ob + 7] + c2 * (kin[ob + 11] + dz)
                            + kin[oa + 4 * r + 3])


@njit(cache=True)
def base_acceleration(kin, gravity):
    """The gravity-equivalent acceleration of frame 0 in frame-0 axes: ``R_base^T gravity``."""
    o = 1 + 26 * int(kin[0])
    return (kin[o] * gravity[0] + kin[o + 4] * gravity[1] + kin[o + 8] * gravity[2],
            kin[o + 1] * gravity[0] + kin[o + 5] * gravity[1] + kin[o + 9] * gravity[2],
            kin[o + 2] * gravity[0] + kin[o + 6] * gravity[1] + kin[o + 10] * gravity[2])


# ---------------------------------------------------------------------------------------------
# the recursion


@njit(cache=True)
def rne_core(kin, dyn, W, u, w, same, qdd, g0, fext, tau):
    """Newton–Euler torques, bilinear in the joint velocities ``u``, ``w``; writes ``tau`` (n,).

    ``tau = b(u, w) + M_links(q) qdd + g(q; g0) + J_e^T fext`` where ``b(qd, qd)`` is the
    Coriolis/centripetal torque and ``b`` is symmetric. No rotor inertia and no friction (see
    :func:`add_motor_friction`). ``W`` (n, WORK) holds the link transforms from
    :func:`link_transforms` and receives the link forces; ``g0`` is the base acceleration
    tuple (:func:`base_acceleration`); ``fext`` (6,) is in the tool frame. ``same = True``
    declares ``u`` and ``w`` equal (the ordinary RNE: one velocity recursion instead of two).
    """
    n = u.shape[0]
    wu = (0.0, 0.0, 0.0)            # angular velocity of link i for the rates u (frame i)
    ww = (0.0, 0.0, 0.0)            # ... for the rates w
    wd = (0.0, 0.0, 0.0)            # angular acceleration
    vd = g0                         # linear acceleration of origin i (gravity included)
    for i in range(n):
        ax = joint_axis(kin, n, i)
        if kin[1 + i] == 0.0:
            oa = 1 + 2 * n + 24 * i
            pa = (kin[oa + 3], kin[oa + 7], kin[oa + 11])
            ap = _add(_add(vd, _cross(wd, pa)), _sym2(wu, ww, pa, same))   # axis point
            wu_prev = _rot_t(W, i, wu)
            wu = _axpy(u[i], ax, wu_prev)
            wd = _axpy(qdd[i], ax, _rot_t(W, i, wd))
            if same:
                ww = wu
                wd = _axpy(u[i], _cross(wu_prev, ax), wd)
            else:
                ww_prev = _rot_t(W, i, ww)
                ww = _axpy(w[i], ax, ww_prev)
                wd = _axpy(0.5 * w[i], _cross(wu_prev, ax), wd)
                wd = _axpy(0.5 * u[i], _cross(ww_prev, ax), wd)
            lever = joint_lever(kin, n, i)
            vd = _add(_add(_rot_t(W, i, ap), _cross(wd, lever)), _sym2(wu, ww, lever, same))
        else:
            po = _vec(W, i, _P)
            ao = _add(_add(vd, _cross(wd, po)), _sym2(wu, ww, po, same))   # origin i
            wu = _rot_t(W, i, wu)
            ww = wu if same else _rot_t(W, i, ww)
            wd = _rot_t(W, i, wd)
            vd = _axpy(qdd[i], ax, _rot_t(W, i, ao))
            vd = _axpy(w[i], _cross(wu, ax), vd)
            vd = _axpy(u[i], _cross(ww, ax), vd)
        rc = _com(dyn, i)
        m = dyn[i, MASS]
        vc = _add(_add(vd, _cross(wd, rc)), _sym2(wu, ww, rc, same))
        iw = _inertia_mul(dyn, i, wd)
        if same:
            gyro = _cross(wu, _inertia_mul(dyn, i, wu))
        else:
            gyro = _add(_cross(wu, _inertia_mul(dyn, i, ww)),
                        _cross(ww, _inertia_mul(dyn, i, wu)))
            gyro = (0.5 * gyro[0], 0.5 * gyro[1], 0.5 * gyro[2])
        for k in range(3):
            W[i, _F + k] = m * vc[k]
            W[i, _N + k] = iw[k] + gyro[k]
    # backward: (f, nm) = wrench link i exerts on link i+1 (the environment for i = n), frame i
    ot = 13 + 26 * n
    f = (kin[ot] * fext[0] + kin[ot + 1] * fext[1] + kin[ot + 2] * fext[2],
         kin[ot + 4] * fext[0] + kin[ot + 5] * fext[1] + kin[ot + 6] * fext[2],
         kin[ot + 8] * fext[0] + kin[ot + 9] * fext[1] + kin[ot + 10] * fext[2])
    nm = (kin[ot] * fext[3] + kin[ot + 1] * fext[4] + kin[ot + 2] * fext[5],
          kin[ot + 4] * fext[3] + kin[ot + 5] * fext[4] + kin[ot + 6] * fext[5],
          kin[ot + 8] * fext[3] + kin[ot + 9] * fext[4] + kin[ot + 10] * fext[5])
    nm = _add(nm, _cross((kin[ot + 3], kin[ot + 7], kin[ot + 11]), f))
    for i in range(n - 1, -1, -1):
        fi = _vec(W, i, _F)
        f = _add(f, fi)
        nm = _add(_add(nm, _vec(W, i, _N)), _cross(_com(dyn, i), fi))
        tau[i] = joint_torque(kin, n, i, nm, f)
        f = _rot(W, i, f)
        nm = _add(_rot(W, i, nm), _cross(_vec(W, i, _P), f))


@njit(cache=True)
def joint_friction(dyn, i, qd):
    """Friction torque of joint ``i`` at joint rate ``qd``, load side (N m or N).

    ``-(G^2 B qd + |G| Tc±)``: opposes the motion, zero Coulomb part at ``qd = 0``.
    """
    g = dyn[i, GR]
    t = g * g * dyn[i, BV] * qd
    if qd > 0.0:
        t += abs(g) * dyn[i, TCP]
    elif qd < 0.0:
        t += abs(g) * dyn[i, TCN]
    return -t


@njit(cache=True)
def add_motor_friction(dyn, QD, QDD, tau):
    """Add rotor inertia ``G^2 Jm qdd`` and the torque overcoming friction to ``tau`` (m, n)."""
    for k in range(tau.shape[0]):
        for i in range(tau.shape[1]):
            g = dyn[i, GR]
            tau[k, i] += g * g * dyn[i, JM] * QDD[k, i] - joint_friction(dyn, i, QD[k, i])


@njit(cache=True)
def rne_rows(kin, dyn, Q, U, V, QDD, g0, fext, out):
    """:func:`rne_core` for each row k of ``Q`` (m, n): ``out[k] = b(U[k], V[k]) + ...``.

    ``fext`` is (1, 6) (one wrench for every row) or (m, 6). Passing the same array as ``U``
    and ``V`` selects the ordinary RNE. No rotor inertia or friction. This is the one loop
    over rows in the package, so numba compiles the recursion once.
    """
    m, n = Q.shape
    if (int(kin[0]) != n or dyn.shape[0] != n or U.shape != Q.shape or V.shape != Q.shape
            or QDD.shape != Q.shape or out.shape != Q.shape or fext.shape[1] != 6
            or (fext.shape[0] != 1 and fext.shape[0] != m)):
        raise ValueError("dynamics: q, qd, qdd/tau must be (m, n) with n = robot.n, fext "
                         "(1, 6) or (m, 6)")
    same = U.ctypes.data == V.ctypes.data
    W = np.empty((n, WORK))
    for k in range(m):
        link_transforms(kin, Q[k], W)
        rne_core(kin, dyn, W, U[k], V[k], same, QDD[k], g0, fext[min(k, fext.shape[0] - 1)],
                 out[k])


# ---------------------------------------------------------------------------------------------
# entry kernels


@njit(cache=True)
def as_rows(x, n):
    """``x`` (n,) or (m, n), C-contiguous, viewed as rows (1 | m, n); ValueError otherwise."""
    if x.shape[x.ndim - 1] != n:
        raise ValueError("dynamics: the last axis of q, qd, qdd and tau must have one element "
                         "per joint (robot.n), that of fext 6")
    rows = x.size // n if n > 0 else (x.shape[0] if x.ndim == 2 else 1)
    return x.reshape((rows, n))


@njit(cache=True)
def rne_nb(kin, dyn, q, qd, qdd, gravity, fext):
    """Inverse dynamics: joint torques/forces (N m, N), shape of ``q``.

    Parameters
    ----------
    kin : float64 (25 + 26 n,), packed kinematics; dyn : float64 (n, 15), dynamics rows
    q, qd, qdd : float64 (n,) or (m, n), C-contiguous: joint coordinates (rad, m), rates and
        accelerations, one row per trajectory point
    gravity : float64 (3,), upward-equivalent gravity in the world frame (m/s^2)
    fext : float64 (6,), (1, 6) or (m, 6), end-effector wrench on the environment, tool frame
        (N, N m)

    Rotor inertia and friction are included (module docstring). numba compiles one
    specialisation per number of dimensions; the recursion itself (:func:`rne_rows`) once.
    """
    n = int(kin[0])
    Q, QD, QDD = as_rows(q, n), as_rows(qd, n), as_rows(qdd, n)
    out = np.empty(Q.shape)
    rne_rows(kin, dyn, Q, QD, QD, QDD, base_acceleration(kin, gravity),
             as_rows(fext, np.int64(6)), out)  # int64: a literal 6 compiles as_rows again
    add_motor_friction(dyn, QD, QDD, out)
    return out.reshape(q.shape)


@njit(cache=True)
def friction_nb(dyn, qd):
    """Joint friction (N m, N), shape of ``qd`` (n,) or (m, n): :func:`joint_friction`."""
    n = dyn.shape[0]
    QD = as_rows(qd, n)
    out = np.empty(QD.shape)
    for k in range(QD.shape[0]):
        for i in range(n):
            out[k, i] = joint_friction(dyn, i, QD[k, i])
    return out.reshape(qd.shape)
