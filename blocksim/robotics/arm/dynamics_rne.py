"""Recursive Newton–Euler inverse dynamics of a serial-link arm (numba kernels).

The arm is the ``A·J(q)·B`` form of :mod:`blocksim.robotics.arm.layout`, so one recursion
serves standard DH, modified DH and product-of-exponentials models. Everything is computed
in the link frames: link ``i`` moves relative to link ``i-1`` by

    X_i = A[i] @ J(sigma[i], q[i] + offset[i]) @ B[i]      (rotation R_i, origin p_i in frame i-1)

and, in link-frame-``i`` coordinates, joint ``i`` has the constant unit axis ``a_i = R_B^T e_z``
(the third row of ``B[i]``'s rotation) through the point ``-r_i`` with ``r_i = R_B^T p_B``.

The core, :func:`rne_core`, evaluates the torques as a *symmetric bilinear* form in two joint
velocity vectors ``u`` and ``w`` plus terms linear in ``qdd``, the base acceleration and the end
wrench. With ``u = w = qd`` it is the ordinary RNE (Luh, Walker and Paul; RTB's ``rne_dh``);
with ``u = qd, w = e_k`` it gives column ``k`` of the Christoffel-symbol Coriolis matrix, which
is how :func:`blocksim.robotics.arm.dynamics.coriolis_nb` gets ``C(q, qd)`` in ``n`` passes.

Conventions (Robotics Toolbox, seed 000 §2.2 and Appendix B.4):

* ``gravity`` is the *upward* acceleration equivalent to gravity in the world frame
  (``[0, 0, 9.81]`` for gravity along -z); it is rotated into frame 0 by the base rotation
  (the base translation has no effect on a fixed-base arm).
* ``fext = [fx, fy, fz, mx, my, mz]`` (N, N m) is the wrench the end effector exerts *on the
  environment*, expressed in the tool frame about the tool origin (RTB starts its backward
  recursion with ``[f; n] = fext``; with ``tool = I`` this is RTB's link-n frame). It adds
  ``J_e^T fext`` to the torques, as MR's ``Ftip``.
* Motor and friction: joint ``i`` adds ``G^2 Jm qdd`` (rotor inertia) and the torque that
  overcomes friction, ``-friction(qd) = G^2 B qd + |G| Tc±`` with ``Tc+`` for ``qd > 0``,
  ``Tc-`` (<= 0) for ``qd < 0`` and nothing at ``qd = 0`` (RTB ``Link.friction``, seed 002).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.robotics.arm.layout import (
    BV,
    GR,
    IXX,
    IXY,
    IXZ,
    IYY,
    IYZ,
    IZZ,
    JM,
    RX,
    RY,
    RZ,
    TCN,
    TCP,
)
from blocksim.robotics.arm.layout import M as MASS

# ---------------------------------------------------------------------------------------------
# 3-vectors as tuples (no allocation inside the kernels)


@njit(cache=True)
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True)
def _axpy(s, a, b):
    """``s * a + b``."""
    return (s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2])


@njit(cache=True)
def _rot(R, i, v):
    """``R[i] @ v`` for a stack of 3x3 rotations."""
    return (R[i, 0, 0] * v[0] + R[i, 0, 1] * v[1] + R[i, 0, 2] * v[2],
            R[i, 1, 0] * v[0] + R[i, 1, 1] * v[1] + R[i, 1, 2] * v[2],
            R[i, 2, 0] * v[0] + R[i, 2, 1] * v[1] + R[i, 2, 2] * v[2])


@njit(cache=True)
def _rot_t(R, i, v):
    """``R[i].T @ v`` for a stack of 3x3 rotations."""
    return (R[i, 0, 0] * v[0] + R[i, 1, 0] * v[1] + R[i, 2, 0] * v[2],
            R[i, 0, 1] * v[0] + R[i, 1, 1] * v[1] + R[i, 2, 1] * v[2],
            R[i, 0, 2] * v[0] + R[i, 1, 2] * v[1] + R[i, 2, 2] * v[2])


@njit(cache=True)
def _sym2(a, b, x):
    """``(a x (b x x) + b x (a x x)) / 2``: the polarised centripetal term."""
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
def joint_axis(B, i):
    """Unit axis of joint ``i`` in link frame ``i`` (constant): ``R_B^T e_z``."""
    return (B[i, 2, 0], B[i, 2, 1], B[i, 2, 2])


@njit(cache=True)
def joint_lever(B, i):
    """``r_i = R_B^T p_B``: from a point of joint axis ``i`` to origin ``i``, frame ``i`` (m)."""
    return (B[i, 0, 0] * B[i, 0, 3] + B[i, 1, 0] * B[i, 1, 3] + B[i, 2, 0] * B[i, 2, 3],
            B[i, 0, 1] * B[i, 0, 3] + B[i, 1, 1] * B[i, 1, 3] + B[i, 2, 1] * B[i, 2, 3],
            B[i, 0, 2] * B[i, 0, 3] + B[i, 1, 2] * B[i, 1, 3] + B[i, 2, 2] * B[i, 2, 3])


@njit(cache=True)
def joint_torque(sigma, B, i, nm, f):
    """Generalised force of joint ``i`` from the wrench ``(f, nm)`` acting across it.

    ``f`` (N) and ``nm`` (N m, about origin ``i``) are in frame ``i``; a revolute joint takes
    the moment about its own axis, a prismatic joint the force along it.
    """
    ax = joint_axis(B, i)
    if sigma[i] == 0:
        return _dot(ax, _add(nm, _cross(joint_lever(B, i), f)))
    return _dot(ax, f)


# ---------------------------------------------------------------------------------------------
# kinematics in the link frames


@njit(cache=True)
def link_transforms(sigma, offset, A, B, q, R, p):
    """Fill ``R[i]`` (3, 3) and ``p[i]`` (3,) with the pose of link frame ``i`` in frame ``i-1``.

    ``X_i = A[i] @ J(q[i] + offset[i]) @ B[i]``; ``J`` is ``rotz`` (revolute) or ``transz``
    (prismatic). Shapes: q (n,), R (n, 3, 3), p (n, 3); metres and radians.
    """
    n = q.shape[0]
    for i in range(n):
        v = q[i] + offset[i]
        if sigma[i] == 0:
            c = np.cos(v)
            s = np.sin(v)
        for r in range(3):
            if sigma[i] == 0:
                c0 = c * A[i, r, 0] + s * A[i, r, 1]
                c1 = c * A[i, r, 1] - s * A[i, r, 0]
                dz = 0.0
            else:
                c0 = A[i, r, 0]
                c1 = A[i, r, 1]
                dz = v
            c2 = A[i, r, 2]
            for k in range(3):
                R[i, r, k] = c0 * B[i, 0, k] + c1 * B[i, 1, k] + c2 * B[i, 2, k]
            p[i, r] = c0 * B[i, 0, 3] + c1 * B[i, 1, 3] + c2 * (B[i, 2, 3] + dz) + A[i, r, 3]


@njit(cache=True)
def base_acceleration(base, gravity):
    """The gravity-equivalent acceleration of frame 0 in frame-0 axes: ``R_base^T gravity``."""
    return (base[0, 0] * gravity[0] + base[1, 0] * gravity[1] + base[2, 0] * gravity[2],
            base[0, 1] * gravity[0] + base[1, 1] * gravity[1] + base[2, 1] * gravity[2],
            base[0, 2] * gravity[0] + base[1, 2] * gravity[1] + base[2, 2] * gravity[2])


# ---------------------------------------------------------------------------------------------
# the recursion


@njit(cache=True)
def rne_core(sigma, A, B, tool, dyn, R, p, u, w, qdd, g0, fext, tau, F, N):
    """Newton–Euler torques, bilinear in the joint velocities ``u``, ``w``; writes ``tau`` (n,).

    ``tau = b(u, w) + M_links(q) qdd + g(q; g0) + J_e^T fext`` where ``b(qd, qd)`` is the
    Coriolis/centripetal torque and ``b`` is symmetric. No motor inertia and no friction (see
    :func:`add_motor_friction`). ``R``, ``p`` come from :func:`link_transforms`; ``g0`` is the
    base acceleration tuple (:func:`base_acceleration`); ``fext`` (6,) is in the tool frame;
    ``F``, ``N`` are (n, 3) scratch arrays (link inertial force and moment).
    """
    n = u.shape[0]
    wu = (0.0, 0.0, 0.0)
    ww = (0.0, 0.0, 0.0)
    wd = (0.0, 0.0, 0.0)
    vd = g0
    for i in range(n):
        ax = joint_axis(B, i)
        if sigma[i] == 0:
            pa = (A[i, 0, 3], A[i, 1, 3], A[i, 2, 3])
            # the joint-axis point moves with link i-1
            ap = _add(_add(vd, _cross(wd, pa)), _sym2(wu, ww, pa))
            wu_prev = _rot_t(R, i, wu)
            ww_prev = _rot_t(R, i, ww)
            wu = _axpy(u[i], ax, wu_prev)
            ww = _axpy(w[i], ax, ww_prev)
            dw = _cross(wu_prev, ax)
            dw2 = _cross(ww_prev, ax)
            wd = _rot_t(R, i, wd)
            wd = _axpy(qdd[i], ax, wd)
            wd = _axpy(0.5 * w[i], dw, wd)
            wd = _axpy(0.5 * u[i], dw2, wd)
            lever = joint_lever(B, i)
            vd = _add(_add(_rot_t(R, i, ap), _cross(wd, lever)), _sym2(wu, ww, lever))
        else:
            po = (p[i, 0], p[i, 1], p[i, 2])
            ao = _add(_add(vd, _cross(wd, po)), _sym2(wu, ww, po))
            wu = _rot_t(R, i, wu)
            ww = _rot_t(R, i, ww)
            wd = _rot_t(R, i, wd)
            vd = _axpy(qdd[i], ax, _rot_t(R, i, ao))
            vd = _add(vd, _add(_cross(wu, (w[i] * ax[0], w[i] * ax[1], w[i] * ax[2])),
                               _cross(ww, (u[i] * ax[0], u[i] * ax[1], u[i] * ax[2]))))
        rc = (dyn[i, RX], dyn[i, RY], dyn[i, RZ])
        m = dyn[i, MASS]
        vc = _add(_add(vd, _cross(wd, rc)), _sym2(wu, ww, rc))
        iw = _inertia_mul(dyn, i, wd)
        gyro = _add(_cross(wu, _inertia_mul(dyn, i, ww)), _cross(ww, _inertia_mul(dyn, i, wu)))
        for k in range(3):
            F[i, k] = m * vc[k]
            N[i, k] = iw[k] + 0.5 * gyro[k]
    # backward: (f, nm) = wrench link i exerts on link i+1 (or the environment), frame i
    fe = (fext[0], fext[1], fext[2])
    ne = (fext[3], fext[4], fext[5])
    f = (tool[0, 0] * fe[0] + tool[0, 1] * fe[1] + tool[0, 2] * fe[2],
         tool[1, 0] * fe[0] + tool[1, 1] * fe[1] + tool[1, 2] * fe[2],
         tool[2, 0] * fe[0] + tool[2, 1] * fe[1] + tool[2, 2] * fe[2])
    nm = (tool[0, 0] * ne[0] + tool[0, 1] * ne[1] + tool[0, 2] * ne[2],
          tool[1, 0] * ne[0] + tool[1, 1] * ne[1] + tool[1, 2] * ne[2],
          tool[2, 0] * ne[0] + tool[2, 1] * ne[1] + tool[2, 2] * ne[2])
    nm = _add(nm, _cross((tool[0, 3], tool[1, 3], tool[2, 3]), f))
    for i in range(n - 1, -1, -1):
        fi = (F[i, 0], F[i, 1], F[i, 2])
        rc = (dyn[i, RX], dyn[i, RY], dyn[i, RZ])
        f = _add(f, fi)
        nm = _add(_add(nm, (N[i, 0], N[i, 1], N[i, 2])), _cross(rc, fi))
        tau[i] = joint_torque(sigma, B, i, nm, f)
        f = _rot(R, i, f)
        nm = _add(_rot(R, i, nm), _cross((p[i, 0], p[i, 1], p[i, 2]), f))


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
def add_motor_friction(dyn, qd, qdd, tau):
    """Add rotor inertia ``G^2 Jm qdd`` and the torque overcoming friction to ``tau`` (n,)."""
    for i in range(tau.shape[0]):
        g = dyn[i, GR]
        tau[i] += g * g * dyn[i, JM] * qdd[i] - joint_friction(dyn, i, qd[i])


# ---------------------------------------------------------------------------------------------
# entry kernels


@njit(cache=True)
def rne_nb(sigma, offset, A, B, base, tool, dyn, q, qd, qdd, gravity, fext):
    """Inverse dynamics for one configuration: joint torques/forces tau (n,).

    Parameters are the :class:`~blocksim.robotics.arm.layout.ArmArrays` fields followed by
    q, qd, qdd (n,) (rad or m, and their rates), gravity (3,) (m/s^2, upward-equivalent, world
    frame) and fext (6,) (end-effector wrench on the environment, tool frame). Includes rotor
    inertia and friction (module docstring).
    """
    n = q.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    F = np.empty((n, 3))
    N = np.empty((n, 3))
    tau = np.empty(n)
    link_transforms(sigma, offset, A, B, q, R, p)
    rne_core(sigma, A, B, tool, dyn, R, p, qd, qd, qdd, base_acceleration(base, gravity),
             fext, tau, F, N)
    add_motor_friction(dyn, qd, qdd, tau)
    return tau


@njit(cache=True)
def rne_traj_nb(sigma, offset, A, B, base, tool, dyn, Q, QD, QDD, gravity, fext):
    """:func:`rne_nb` row by row: Q, QD, QDD (m, n) -> tau (m, n).

    ``fext`` is (1, 6) (the same wrench at every row) or (m, 6).
    """
    m, n = Q.shape
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    F = np.empty((n, 3))
    N = np.empty((n, 3))
    out = np.empty((m, n))
    g0 = base_acceleration(base, gravity)
    for k in range(m):
        link_transforms(sigma, offset, A, B, Q[k], R, p)
        row = out[k]
        rne_core(sigma, A, B, tool, dyn, R, p, QD[k], QD[k], QDD[k], g0,
                 fext[k if fext.shape[0] > 1 else 0], row, F, N)
        add_motor_friction(dyn, QD[k], QDD[k], row)
    return out


@njit(cache=True)
def friction_nb(dyn, QD):
    """Joint friction (m, n) for joint rates QD (m, n): :func:`joint_friction` elementwise."""
    m, n = QD.shape
    out = np.empty((m, n))
    for k in range(m):
        for i in range(n):
            out[k, i] = joint_friction(dyn, i, QD[k, i])
    return out
