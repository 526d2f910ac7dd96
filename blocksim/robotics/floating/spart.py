"""SPART's functions under SPART's names and arguments (SPART: Virgili-Llop et al.), so its
calls can be followed.

``robot`` is a :class:`~.model.FloatingBase`. Shapes follow SPART (quantities of link ``i`` in the
last axis: ``rL`` (3, n), ``RL`` (3, 3, n), ``Bij`` (6, 6, n, n) -- the documentation's "[6x6xn]" is
an erratum, SPART's code indexes (i, j)); links are SPART's 1..n, i.e. body ``i - 1`` of the tree.
All outputs are inertial except the mixed-frame base quantities SPART defines: ``u0 = [omega0 (base
frame); rdot0 (inertial)]``, ``u0dot`` likewise, ``tau0 = [n (base frame); f (inertial)]``; ``t0 =
P0 @ u0`` with ``P0 = blkdiag(R0, I3)``.

These functions follow SPART's matrix formulation literally in numpy (twist-propagation
matrices, mass composite bodies, NOC), which makes them an independent check of the O(n)
kernels of :mod:`.kernels` that :class:`~.model.FloatingBase` and the blocks use.
"""

from __future__ import annotations

import numpy as np

from .model import FloatingBase

__all__ = [
    "CIM",
    "FD",
    "GIM",
    "ID",
    "I_I",
    "MCB",
    "NOC",
    "Accelerations",
    "Angles123_DCM",
    "Angles321_DCM",
    "Center_of_Mass",
    "ConnectivityMap",
    "DH_Serial2robot",
    "DiffKinematics",
    "Floating_ID",
    "Jacob",
    "Jacobdot",
    "Kinematics",
    "NOCdot",
    "SkewSym",
    "Velocities",
    "urdf2robot",
]  # fmt: skip


def SkewSym(x) -> np.ndarray:
    """[x]x (3, 3): ``SkewSym(a) @ b == cross(a, b)``."""
    a, b, c = np.asarray(x, dtype=float).ravel()
    return np.array([[0.0, -c, b], [c, 0.0, -a], [-b, a, 0.0]])


def _rx(a):
    return np.array([[1, 0, 0], [0, np.cos(a), np.sin(a)], [0, -np.sin(a), np.cos(a)]])


def _ry(a):
    return np.array([[np.cos(a), 0, -np.sin(a)], [0, 1, 0], [np.sin(a), 0, np.cos(a)]])


def _rz(a):
    return np.array([[np.cos(a), np.sin(a), 0], [-np.sin(a), np.cos(a), 0], [0, 0, 1]])


def Angles321_DCM(Angles) -> np.ndarray:
    """DCM (inertial to body, passive) of the 3-2-1 Euler angles [phi (x), theta (y), psi (z)]:
    ``(Rz(psi) Ry(theta) Rx(phi))^T`` (with SPART's 2018 fix of element (3, 2))."""
    phi, theta, psi = np.asarray(Angles, dtype=float).ravel()
    return _rx(phi) @ _ry(theta) @ _rz(psi)


def Angles123_DCM(Angles) -> np.ndarray:
    """DCM (passive) of the 1-2-3 sequence: ``(Rx(phi) Ry(theta) Rz(psi))^T``."""
    phi, theta, psi = np.asarray(Angles, dtype=float).ravel()
    return _rz(psi) @ _ry(theta) @ _rx(phi)


def _parents(robot: FloatingBase) -> list[int]:
    """SPART parent link of each link 1..n (0 = base), as a list indexed 0..n-1."""
    return [b.parent + 1 for b in robot.tree.bodies]


def ConnectivityMap(robot: FloatingBase):
    """``branch`` (n, n) lower triangular (1 where links i and j share a branch, i.e. j is i
    or an ancestor of i), ``child`` (n, n) (i is a child of j), ``child_base`` (n,)."""
    n = robot.n
    par = _parents(robot)
    branch = np.zeros((n, n), dtype=int)
    child = np.zeros((n, n), dtype=int)
    child_base = np.zeros(n, dtype=int)
    for i in range(n):
        j = i + 1
        while j > 0:
            branch[i, j - 1] = 1
            j = par[j - 1]
        if par[i] == 0:
            child_base[i] = 1
        else:
            child[i, par[i] - 1] = 1
    return branch, child, child_base


def Kinematics(R0, r0, qm, robot: FloatingBase):
    """``RJ, RL`` (3, 3, n), ``rJ, rL, e, g`` (3, n) of links 1..n (inertial)."""
    kin = robot.kinematics(R0, r0, qm)
    RJ = np.empty((3, 3, robot.n))
    for k, b in enumerate(robot.tree.bodies):
        RJ[:, :, k] = kin.RL[b.parent + 1] @ b.origin[:3, :3]
    rL = kin.rC[1:].T.copy()
    rJ = kin.rJ.T.copy()
    return RJ, np.moveaxis(kin.RL[1:], 0, -1).copy(), rJ, rL, kin.e.T.copy(), rL - rJ


def DiffKinematics(R0, r0, rL, e, g, robot: FloatingBase):
    """``Bij`` (6, 6, n, n), ``Bi0`` (6, 6, n), ``P0`` (6, 6), ``pm`` (6, n)."""
    n = robot.n
    branch, _, _ = ConnectivityMap(robot)
    Bij = np.zeros((6, 6, n, n))
    Bi0 = np.zeros((6, 6, n))
    for i in range(n):
        for j in range(n):
            if branch[i, j]:
                Bij[:, :, i, j] = np.block(
                    [[np.eye(3), np.zeros((3, 3))], [SkewSym(rL[:, j] - rL[:, i]), np.eye(3)]]
                )
        Bi0[:, :, i] = np.block(
            [[np.eye(3), np.zeros((3, 3))], [SkewSym(np.ravel(r0) - rL[:, i]), np.eye(3)]]
        )
    P0 = np.block([[np.asarray(R0), np.zeros((3, 3))], [np.zeros((3, 3)), np.eye(3)]])
    pm = np.zeros((6, n))
    for i, b in enumerate(robot.tree.bodies):
        if b.jtype == 1:
            pm[:, i] = np.concatenate([e[:, i], np.cross(e[:, i], g[:, i])])
        elif b.jtype == 2:
            pm[3:, i] = e[:, i]
    return Bij, Bi0, P0, pm


def _um(robot: FloatingBase, um) -> np.ndarray:
    """Joint rates per link (n,), 0 for fixed joints."""
    out = np.zeros(robot.n)
    qi = robot.tree.qindex
    v = np.asarray(um, dtype=float).ravel()
    out[qi >= 0] = v[qi[qi >= 0]]
    return out


def Velocities(Bij, Bi0, P0, pm, u0, um, robot: FloatingBase):
    """``t0`` (6,) and ``tL`` (6, n), inertial ``[omega; rdot]``."""
    t0 = P0 @ np.asarray(u0, dtype=float).ravel()
    par = _parents(robot)
    v = _um(robot, um)
    tL = np.zeros((6, robot.n))
    for i in range(robot.n):
        tp = t0 if par[i] == 0 else tL[:, par[i] - 1]
        B = Bi0[:, :, i] if par[i] == 0 else Bij[:, :, i, par[i] - 1]
        tL[:, i] = B @ tp + pm[:, i] * v[i]
    return t0, tL


def Jacob(rp, r0, rL, P0, pm, i, robot: FloatingBase):
    """``J0`` (6, 6) and ``Jm`` (6, n_q) of a point ``rp`` on link ``i`` (0..n):
    ``tp = J0 @ u0 + Jm @ um``."""
    rp = np.asarray(rp, dtype=float).ravel()
    J0 = np.block([[np.eye(3), np.zeros((3, 3))],
                   [SkewSym(np.ravel(r0) - rp), np.eye(3)]]) @ P0  # fmt: skip
    Jm = np.zeros((6, robot.nq))
    qi = robot.tree.qindex
    if i > 0:
        branch, _, _ = ConnectivityMap(robot)
        for j in range(robot.n):
            if branch[i - 1, j] and qi[j] >= 0:
                B = np.block([[np.eye(3), np.zeros((3, 3))], [SkewSym(rL[:, j] - rp), np.eye(3)]])
                Jm[:, qi[j]] = B @ pm[:, j]
    return J0, Jm


def Jacobdot(rp, tp, r0, t0, rL, tL, P0, pm, i, robot: FloatingBase):
    """``J0dot`` (6, 6) and ``Jmdot`` (6, n_q), time derivatives of :func:`Jacob` for a point
    ``rp`` with twist ``tp`` on link ``i``:
    ``tpdot = J0 u0dot + J0dot u0 + Jm umdot + Jmdot um``."""
    rp, tp, t0 = (np.asarray(x, dtype=float).ravel() for x in (rp, tp, t0))
    P0dot = np.zeros((6, 6))
    P0dot[:3, :3] = SkewSym(t0[:3]) @ P0[:3, :3]
    B = np.block([[np.eye(3), np.zeros((3, 3))], [SkewSym(np.ravel(r0) - rp), np.eye(3)]])
    Bd = np.zeros((6, 6))
    Bd[3:, :3] = SkewSym(t0[3:] - tp[3:])
    J0dot = Bd @ P0 + B @ P0dot
    Jmdot = np.zeros((6, robot.nq))
    qi = robot.tree.qindex
    if i > 0:
        branch, _, _ = ConnectivityMap(robot)
        for j in range(robot.n):
            if branch[i - 1, j] and qi[j] >= 0:
                B = np.block([[np.eye(3), np.zeros((3, 3))], [SkewSym(rL[:, j] - rp), np.eye(3)]])
                Bd = np.zeros((6, 6))
                Bd[3:, :3] = SkewSym(tL[3:, j] - tp[3:])
                Jmdot[:, qi[j]] = Bd @ pm[:, j] + B @ _omega(tL[:3, j]) @ pm[:, j]
    return J0dot, Jmdot


def _omega(w) -> np.ndarray:
    W = SkewSym(w)
    return np.block([[W, np.zeros((3, 3))], [np.zeros((3, 3)), W]])


def Accelerations(t0, tL, P0, pm, Bi0, Bij, u0, um, u0dot, umdot, robot: FloatingBase):
    """``t0dot`` (6,) and ``tLdot`` (6, n): twist rates, inertial."""
    u0, u0dot = np.ravel(u0), np.ravel(u0dot)
    P0dot = np.zeros((6, 6))
    P0dot[:3, :3] = SkewSym(t0[:3]) @ P0[:3, :3]
    t0dot = P0dot @ u0 + P0 @ u0dot
    par = _parents(robot)
    v, a = _um(robot, um), _um(robot, umdot)
    tLdot = np.zeros((6, robot.n))
    for i in range(robot.n):
        p = par[i]
        tp, tpd = (t0, t0dot) if p == 0 else (tL[:, p - 1], tLdot[:, p - 1])
        B = Bi0[:, :, i] if p == 0 else Bij[:, :, i, p - 1]
        Bdot = np.zeros((6, 6))
        Bdot[3:, :3] = SkewSym(tp[3:] - tL[3:, i])
        tLdot[:, i] = B @ tpd + Bdot @ tp + _omega(tL[:3, i]) @ pm[:, i] * v[i] + pm[:, i] * a[i]
    return t0dot, tLdot


def Center_of_Mass(r0, rL, robot: FloatingBase) -> np.ndarray:
    """System centre of mass (3,) (or its velocity/acceleration from those of the links)."""
    m = np.array([b.mass for b in robot.tree.bodies])
    m0 = robot.tree.base.mass
    return (m0 * np.ravel(r0) + rL @ m) / (m0 + m.sum())


def I_I(R0, RL, robot: FloatingBase):
    """Inertias in the inertial frame: ``I0`` (3, 3), ``Im`` (3, 3, n)."""
    R0 = np.asarray(R0)
    I0 = R0 @ robot.tree.base.inertia @ R0.T
    Im = np.empty((3, 3, robot.n))
    for k, b in enumerate(robot.tree.bodies):
        Im[:, :, k] = RL[:, :, k] @ b.inertia @ RL[:, :, k].T
    return I0, Im


def _Mi(Ii, m) -> np.ndarray:
    return np.block([[Ii, np.zeros((3, 3))], [np.zeros((3, 3)), m * np.eye(3)]])


def MCB(I0, Im, Bij, Bi0, robot: FloatingBase):
    """Mass composite bodies: ``M0_tilde`` (6, 6), ``Mm_tilde`` (6, 6, n)."""
    n = robot.n
    par = _parents(robot)
    Mm = np.empty((6, 6, n))
    for i in range(n):
        Mm[:, :, i] = _Mi(Im[:, :, i], robot.tree.bodies[i].mass)
    for i in range(n - 1, -1, -1):
        p = par[i]
        if p > 0:
            B = Bij[:, :, i, p - 1]
            Mm[:, :, p - 1] += B.T @ Mm[:, :, i] @ B
    M0 = _Mi(I0, robot.tree.base.mass)
    for i in range(n):
        if par[i] == 0:
            M0 += Bi0[:, :, i].T @ Mm[:, :, i] @ Bi0[:, :, i]
    return M0, Mm


def GIM(M0_tilde, Mm_tilde, Bij, Bi0, P0, pm, robot: FloatingBase):
    """``H0`` (6, 6), ``H0m`` (6, n_q), ``Hm`` (n_q, n_q); ``H = [[H0, H0m], [H0m.T, Hm]]``."""
    qi = robot.tree.qindex
    branch, _, _ = ConnectivityMap(robot)
    H0 = P0.T @ M0_tilde @ P0
    H0m = np.zeros((6, robot.nq))
    Hm = np.zeros((robot.nq, robot.nq))
    for i in range(robot.n):
        if qi[i] < 0:
            continue
        F = Mm_tilde[:, :, i] @ pm[:, i]
        H0m[:, qi[i]] = (F @ Bi0[:, :, i] @ P0).T
        Hm[qi[i], qi[i]] = pm[:, i] @ F + robot.tree.bodies[i].armature
        for j in range(i):
            if branch[i, j] and qi[j] >= 0:
                Hm[qi[i], qi[j]] = Hm[qi[j], qi[i]] = F @ Bij[:, :, i, j] @ pm[:, j]
    return H0, H0m, Hm


def NOC(r0, rL, P0, pm, robot: FloatingBase) -> np.ndarray:
    """Natural Orthogonal Complement (6 + 6n, 6 + n_q): ``t = N @ [u0; um]``."""
    n, qi = robot.n, robot.tree.qindex
    N = np.zeros((6 + 6 * n, 6 + robot.nq))
    N[:6, :6] = P0
    for i in range(n):
        J0, Jm = Jacob(rL[:, i], r0, rL, P0, pm, i + 1, robot)
        N[6 + 6 * i : 12 + 6 * i, :6] = J0
        N[6 + 6 * i : 12 + 6 * i, 6:] = Jm
    _ = qi
    return N


def NOCdot(r0, t0, rL, tL, P0, pm, robot: FloatingBase) -> np.ndarray:
    """Time derivative of :func:`NOC` (same shape): ``tdot = N udot + Ndot u``."""
    n, qi = robot.n, robot.tree.qindex
    branch, _, _ = ConnectivityMap(robot)
    Nd = np.zeros((6 + 6 * n, 6 + robot.nq))
    P0dot = np.zeros((6, 6))
    P0dot[:3, :3] = SkewSym(t0[:3]) @ P0[:3, :3]
    Nd[:6, :6] = P0dot
    for i in range(n):
        rows = slice(6 + 6 * i, 12 + 6 * i)
        B = np.block([[np.eye(3), np.zeros((3, 3))], [SkewSym(np.ravel(r0) - rL[:, i]), np.eye(3)]])
        Bd = np.zeros((6, 6))
        Bd[3:, :3] = SkewSym(t0[3:] - tL[3:, i])
        Nd[rows, :6] = Bd @ P0 + B @ P0dot
        for j in range(n):
            if branch[i, j] and qi[j] >= 0:
                B = np.block([[np.eye(3), np.zeros((3, 3))],
                              [SkewSym(rL[:, j] - rL[:, i]), np.eye(3)]])  # fmt: skip
                Bd = np.zeros((6, 6))
                Bd[3:, :3] = SkewSym(tL[3:, j] - tL[3:, i])
                Nd[rows, 6 + qi[j]] = Bd @ pm[:, j] + B @ _omega(tL[:3, j]) @ pm[:, j]
    return Nd


def _big_M(I0, Im, t0, tL, robot: FloatingBase):
    n = robot.n
    M = np.zeros((6 + 6 * n, 6 + 6 * n))
    Md = np.zeros_like(M)
    M[:6, :6] = _Mi(I0, robot.tree.base.mass)
    Md[:3, :3] = SkewSym(t0[:3]) @ I0
    for i in range(n):
        s = slice(6 + 6 * i, 12 + 6 * i)
        M[s, s] = _Mi(Im[:, :, i], robot.tree.bodies[i].mass)
        Md[6 + 6 * i : 9 + 6 * i, 6 + 6 * i : 9 + 6 * i] = SkewSym(tL[:3, i]) @ Im[:, :, i]
    return M, Md


def CIM(t0, tL, I0, Im, M0_tilde, Mm_tilde, Bij, Bi0, P0, pm, robot: FloatingBase, r0=None,
        rL=None):  # fmt: skip
    """``C0`` (6, 6), ``C0m`` (6, n_q), ``Cm0`` (n_q, 6), ``Cm`` (n_q, n_q):
    ``C = N^T (M Ndot + Mdot N)``. SPART's argument list has no positions; they are recovered
    from ``Bi0`` (``r0 - rL_i``) up to a common translation, which C does not depend on."""
    n = robot.n
    if rL is None:
        rL = np.zeros((3, n))
        for i in range(n):
            S = Bi0[3:, :3, i]
            rL[:, i] = -np.array([S[2, 1], S[0, 2], S[1, 0]])
        r0 = np.zeros(3)
    N = NOC(r0, rL, P0, pm, robot)
    Nd = NOCdot(r0, t0, rL, tL, P0, pm, robot)
    M, Md = _big_M(I0, Im, t0, tL, robot)
    C = N.T @ (M @ Nd + Md @ N)
    # armature has no velocity terms
    return C[:6, :6], C[:6, 6:], C[6:, :6], C[6:, 6:]


def ID(wF0, wFm, t0, tL, t0dot, tLdot, P0, pm, I0, Im, Bij, Bi0, robot: FloatingBase):
    """``tau0`` (6,) (SPART's mixed frame) and ``taum`` (n_q,) for the motion."""
    n = robot.n
    par = _parents(robot)
    wq = np.zeros((6, n))
    for i in range(n):
        Mi = _Mi(Im[:, :, i], robot.tree.bodies[i].mass)
        Mdi = np.zeros((6, 6))
        Mdi[:3, :3] = SkewSym(tL[:3, i]) @ Im[:, :, i]
        wq[:, i] = Mi @ tLdot[:, i] + Mdi @ tL[:, i] - wFm[:, i]
    M0 = _Mi(I0, robot.tree.base.mass)
    M0d = np.zeros((6, 6))
    M0d[:3, :3] = SkewSym(t0[:3]) @ I0
    wq0 = M0 @ t0dot + M0d @ t0 - np.ravel(wF0)
    for i in range(n - 1, -1, -1):
        p = par[i]
        if p > 0:
            wq[:, p - 1] += Bij[:, :, i, p - 1].T @ wq[:, i]
        else:
            wq0 = wq0 + Bi0[:, :, i].T @ wq[:, i]
    qi = robot.tree.qindex
    taum = np.zeros(robot.nq)
    for i in range(n):
        if qi[i] >= 0:
            taum[qi[i]] = pm[:, i] @ wq[:, i]
    return P0.T @ wq0, taum


def FD(tau0, taum, wF0, wFm, t0, tm, P0, pm, I0, Im, Bij, Bi0, u0, um, robot: FloatingBase):
    """``u0dot`` (6,) and ``umdot`` (n_q,) from the forces (SPART's mixed frame for the base):
    ``H [u0dot; umdot] = [tau0; taum] - C [u0; um] + N^T wF``."""
    M0, Mm = MCB(I0, Im, Bij, Bi0, robot)
    H0, H0m, Hm = GIM(M0, Mm, Bij, Bi0, P0, pm, robot)
    H = np.block([[H0, H0m], [H0m.T, Hm]])
    rL = np.zeros((3, robot.n))
    for i in range(robot.n):
        S = Bi0[3:, :3, i]
        rL[:, i] = -np.array([S[2, 1], S[0, 2], S[1, 0]])
    C0, C0m, Cm0, Cm = CIM(t0, tm, I0, Im, M0, Mm, Bij, Bi0, P0, pm, robot, np.zeros(3), rL)
    C = np.block([[C0, C0m], [Cm0, Cm]])
    N = NOC(np.zeros(3), rL, P0, pm, robot)
    w = np.concatenate([np.ravel(wF0), np.asarray(wFm, dtype=float).T.ravel()])
    u = np.concatenate([np.ravel(u0), np.ravel(um)])
    rhs = np.concatenate([np.ravel(tau0), np.ravel(taum)]) - C @ u + N.T @ w
    x = np.linalg.solve(H, rhs)
    return x[:6], x[6:]


def Floating_ID(wF0, wFm, Mm_tilde, H0, t0, tm, P0, pm, I0, Im, Bij, Bi0, u0, um, umdot,
                robot: FloatingBase):  # fmt: skip
    """Joint forces ``taum`` (n_q,) for ``umdot`` with the base unactuated, and the base
    acceleration ``u0dot`` (6,) that results (SPART's corrected signature)."""
    z = np.zeros(6)
    _, tLd = Accelerations(t0, tm, P0, pm, Bi0, Bij, u0, um, z, umdot, robot)
    t0d, _ = Accelerations(t0, tm, P0, pm, Bi0, Bij, u0, um, z, umdot, robot)
    tau0, _ = ID(wF0, wFm, t0, tm, t0d, tLd, P0, pm, I0, Im, Bij, Bi0, robot)
    u0dot = -np.linalg.solve(H0, tau0)
    t0d, tLd = Accelerations(t0, tm, P0, pm, Bi0, Bij, u0, um, u0dot, umdot, robot)
    _, taum = ID(wF0, wFm, t0, tm, t0d, tLd, P0, pm, I0, Im, Bij, Bi0, robot)
    qi = robot.tree.qindex
    for i, b in enumerate(robot.tree.bodies):
        if qi[i] >= 0:
            taum[qi[i]] += b.armature * np.ravel(umdot)[qi[i]]
    _ = Mm_tilde
    return taum, u0dot


def urdf2robot(filename, verbose_flag: bool = False):
    """A robot model from a URDF file: ``(robot, robot_keys)`` with ``robot_keys`` the link and
    joint ids by name (``{"link_id": {...}, "joint_id": {...}, "q_id": {...}}``, SPART's ids:
    base link 0, links 1..n)."""
    from blocksim.robotics.urdf import read_urdf

    tree = read_urdf(filename)
    robot = FloatingBase(tree)
    keys = {"link_id": {name: i for i, name in enumerate(tree.link_names)},
            "joint_id": {b.joint: k + 1 for k, b in enumerate(tree.bodies)},
            "q_id": {name: k + 1 for k, name in enumerate(tree.joint_names)}}  # fmt: skip
    if verbose_flag:
        print(tree.describe())
    return robot, keys


def DH_Serial2robot(DH_data, base_mass: float = 0.0, base_inertia=None):
    """A robot model from a serial DH arm: ``(robot, T_Ln_EE)``. ``DH_data`` is a
    :class:`~blocksim.robotics.arm.SerialLink` (blocksim's DH form, instead of SPART's struct);
    the base link gets ``base_mass`` and ``base_inertia``; ``T_Ln_EE`` is the tool transform
    from the last link's frame (the tree's last body is the end effector)."""
    from blocksim.robotics.urdf import serial_to_tree

    tree = serial_to_tree(DH_data, base_mass=base_mass, base_inertia=base_inertia)
    return FloatingBase(tree), tree.bodies[-1].origin.copy()
