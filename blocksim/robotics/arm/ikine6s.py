"""Analytic inverse kinematics of 6-axis arms with a spherical wrist (RTB's ``ikine6s``).

The solution follows the structure of Paul and Zhang's Puma 560 solution (IJRR 5(2), 1986,
pp. 32-44) and of RTB 9.10's ``SerialLink.ikine6s``, written once for a family of standard-DH
arms instead of one generated formula per robot:

1. Remove the base and tool transforms: ``T' = base^-1 T tool^-1``.
2. The wrist centre ``W`` (origin of frames 4 and 5) does not depend on joint 6:
   ``W = p + R (-a6, -d6 sin(alpha6), -d6 cos(alpha6))``.
3. Joint 1 (``|alpha1| = pi/2``): the wrist centre's offset along the joint-2 axis is fixed by
   the arm's constant offsets ``D``, so ``r sin(theta1 - phi) = D sin(alpha1)`` with
   ``(r, phi)`` the polar coordinates of ``(Wx, Wy)``: two solutions ('l' and 'r').
4. Joints 2 and 3 place ``W`` in the plane of frame 1: a planar 2R problem when the joint-2 and
   joint-3 axes are parallel (``alpha2`` = 0 or pi, "RRR" arms: Puma 560, KR5, IRB 140, ...),
   or a polar R-P problem when joint 3 is prismatic (``|alpha2| = pi/2``, "RRP": Stanford
   arm). Two solutions ('u' and 'd').
5. The wrist: ``R36 = R03^T R`` is a ZYZ Euler rotation ``(theta4, -s4 theta5, +-theta6)``
   (``s4 = sign(sin(alpha4))``); two solutions ('n' and 'f').
6. Joint offsets are subtracted (``q = theta - offset``).

Configuration letters (any order; a later letter overrides an earlier one):

``'l'`` / ``'r'``
    Shoulder: 'l' puts the wrist centre on the +x1 side of the waist axis
    (``x1 . W >= 0``; for the Puma 560 this is RTB's 'l', ``theta1 = phi + asin(d3/r)``);
    'r' turns the waist by about pi and reaches back over the shoulder.
``'u'`` / ``'d'``
    Elbow: 'u' puts the elbow (origin of frame 2) on the upper side of the shoulder-to-wrist
    line, "upper" meaning towards +z of the base frame when the arm reaches forward (formally
    ``cross((f, h)(W), (f, h)(E)) >= 0`` in the arm plane with forward axis f = +-x1 and up
    axis h = +z0). For a prismatic third joint 'u' selects positive extension along the slide.
``'n'`` / ``'f'``
    Wrist: 'n' (not flipped) has ``sin(theta5) >= 0`` for the kinematic angle
    ``theta5 = q5 + offset5``; 'f' is the other solution
    ``(theta4 + pi, -theta5, theta6 + pi)``.

:func:`arm_config` returns the configuration string of a given joint vector, so
``ikine6s(robot, fkine(q), arm_config(robot, q))`` returns ``q`` (mod 2 pi).

Joint limits are not used to choose a solution (as in RTB); revolute angles are returned in
``(-pi, pi]``, or shifted by 2 pi when that brings them inside the joint's limits.

Relation to RTB 9.10: for the Puma 560, 'l' and 'n' are RTB's and so are 'u'/'d' with 'l';
with 'r' RTB keeps Paul and Zhang's sign of the elbow term, which puts the elbow physically
below the shoulder-wrist line, so RTB's 'ru' is 'rd' here. For other arms RTB's generated
solutions swap 'l'/'r' with the sign of alpha1 and 'n'/'f' with the sign of alpha4; here the
letters keep the geometric meanings above for every arm.

Numerics: :func:`ikine6s_kernel` (numba) solves one pose from the packed geometry vector of
:func:`pack_ikine6s` and a configuration code (:func:`config_code`); :func:`ikine6s` checks the
arguments, calls it and turns its status into a ValueError. A block packs once and calls the
kernel directly (a few microseconds per pose).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["SphericalWristArm", "arm_config", "config_code", "ikine6s", "ikine6s_kernel",
           "pack_ikine6s", "wrist_arm"]

_TOL = 1e-9          # tolerance on DH angles (rad) and lengths (m) when classifying the arm


@dataclass(frozen=True)
class SphericalWristArm:
    """The standard-DH description ``ikine6s`` works on.

    Attributes
    ----------
    theta, d, a, alpha : float64 arrays, shape (6,)
        Standard DH parameters (rad, m, m, rad). ``theta`` is used only for a prismatic joint
        and ``d`` only for a revolute one.
    sigma : int64 array, shape (6,)
        0 revolute, 1 prismatic.
    offset : float64 array, shape (6,)
        Joint offsets (rad or m): the kinematic variable is ``q + offset``.
    base, tool : float64 arrays, shape (4, 4)
        Base pose in the world frame; tool pose in frame 6.
    qlim : float64 array, shape (6, 2)
        Joint limits, used only to choose the 2 pi representative of revolute angles.
    """

    theta: np.ndarray
    d: np.ndarray
    a: np.ndarray
    alpha: np.ndarray
    sigma: np.ndarray
    offset: np.ndarray
    base: np.ndarray
    tool: np.ndarray
    qlim: np.ndarray

    @classmethod
    def from_dh(cls, dh: np.ndarray, *, sigma: np.ndarray | None = None,
                offset: np.ndarray | None = None, base: np.ndarray | None = None,
                tool: np.ndarray | None = None,
                qlim: np.ndarray | None = None) -> SphericalWristArm:
        """Build from a (6, 4) standard-DH table with rows ``[theta, d, a, alpha]``."""
        dh = np.asarray(dh, dtype=float).reshape(-1, 4)
        n = dh.shape[0]
        return cls(
            theta=dh[:, 0].copy(), d=dh[:, 1].copy(), a=dh[:, 2].copy(), alpha=dh[:, 3].copy(),
            sigma=(np.zeros(n, dtype=np.int64) if sigma is None
                   else np.asarray(sigma, dtype=np.int64).reshape(n)),
            offset=np.zeros(n) if offset is None else np.asarray(offset, float).reshape(n),
            base=np.eye(4) if base is None else np.asarray(base, float).reshape(4, 4),
            tool=np.eye(4) if tool is None else np.asarray(tool, float).reshape(4, 4),
            qlim=(np.tile([-np.inf, np.inf], (n, 1)) if qlim is None
                  else np.asarray(qlim, float).reshape(n, 2)),
        )

    @property
    def kind(self) -> str:
        """``"RRR"`` or ``"RRP"``; raises ValueError naming the reason if unsupported."""
        return _classify(self)


def wrist_arm(robot) -> SphericalWristArm:
    """The :class:`SphericalWristArm` of a SerialLink (or the argument, if it already is one).

    Raises
    ------
    ValueError
        If the robot does not use standard DH parameters.
    """
    if isinstance(robot, SphericalWristArm):
        return robot
    if robot.convention != "standard":
        raise ValueError(f"ikine6s: robot {robot.name!r} uses {robot.convention} link "
                         "parameters; the analytic solution needs standard DH parameters "
                         "(use ikine)")
    return SphericalWristArm(
        theta=robot.theta, d=robot.d, a=robot.a, alpha=robot.alpha,
        sigma=np.array([c == "P" for c in robot.config], dtype=np.int64),
        offset=np.asarray(robot.offset, dtype=float), base=robot.base, tool=robot.tool,
        qlim=np.asarray(robot.qlim, dtype=float))


# ---------------------------------------------------------------------------- classification

def _perpendicular(alpha: float) -> bool:
    """True if the twist ``alpha`` is +-pi/2 (mod 2 pi), within :data:`_TOL`."""
    return abs(math.cos(alpha)) < _TOL


def _parallel(alpha: float) -> bool:
    """True if the twist ``alpha`` is 0 or pi (mod 2 pi), within :data:`_TOL`."""
    return abs(math.sin(alpha)) < _TOL


def _classify(arm: SphericalWristArm) -> str:
    name = "ikine6s: kinematic structure not supported"
    if arm.sigma.shape[0] != 6:
        raise ValueError(f"{name}: the robot has {arm.sigma.shape[0]} joints, ikine6s needs 6")
    a, d, al, s = arm.a, arm.d, arm.alpha, arm.sigma
    if s[3] or s[4] or s[5] or abs(a[3]) > _TOL or abs(a[4]) > _TOL or abs(d[4]) > _TOL \
            or not (_perpendicular(al[3]) and _perpendicular(al[4])):
        raise ValueError(f"{name}: the wrist is not spherical (needs revolute joints 4-6 with "
                         "a4 = a5 = d5 = 0 and |alpha4| = |alpha5| = pi/2)")
    if s[0] or not _perpendicular(al[0]):
        raise ValueError(f"{name}: needs a revolute joint 1 with |alpha1| = pi/2, "
                         f"got alpha1 = {al[0]:.6g} rad")
    if not s[1] and not s[2] and _parallel(al[1]):
        if abs(a[1]) < _TOL or math.hypot(a[2], math.sin(al[2]) * d[3]) < _TOL:
            raise ValueError(f"{name}: a planar elbow needs a2 != 0 and a forearm of non-zero "
                             "length in the plane of joints 2 and 3")
        return "RRR"
    if not s[1] and s[2] and _perpendicular(al[1]):
        return "RRP"
    raise ValueError(f"{name}: joints 2-3 must be RR with parallel axes (alpha2 = 0 or pi) or "
                     "RP with |alpha2| = pi/2")


# ---------------------------------------------------------------------------- packing

# layout of the packed geometry vector (float64): kind, then 6 values per DH field, joint
# types, offsets, limits, and the inverse base and tool transforms (row-major 4x4)
_KIND, _TH, _D, _A, _AL, _SIG, _OFF, _QLO, _QHI, _BINV, _TINV = \
    0, 1, 7, 13, 19, 25, 31, 37, 43, 49, 65
_GSIZE = 81
#: status codes of :func:`ikine6s_kernel`
OK, OUT_SHOULDER, OUT_ELBOW, OUT_SLIDE = 0, 1, 2, 3


def pack_ikine6s(robot) -> np.ndarray:
    """The packed geometry vector :func:`ikine6s_kernel` takes, float64 (81,).

    Raises
    ------
    ValueError
        If the structure is not supported (see :attr:`SphericalWristArm.kind`).
    """
    arm = wrist_arm(robot)
    kind = _classify(arm)
    g = np.empty(_GSIZE)
    g[_KIND] = 0.0 if kind == "RRR" else 1.0
    for start, values in ((_TH, arm.theta), (_D, arm.d), (_A, arm.a), (_AL, arm.alpha),
                          (_SIG, arm.sigma), (_OFF, arm.offset), (_QLO, arm.qlim[:, 0]),
                          (_QHI, arm.qlim[:, 1])):
        g[start:start + 6] = values
    g[_BINV:_BINV + 16] = np.linalg.inv(arm.base).ravel()
    g[_TINV:_TINV + 16] = np.linalg.inv(arm.tool).ravel()
    return g


def config_code(config: str) -> int:
    """The integer code of a configuration string: bit 0 'r', bit 1 'd', bit 2 'f'."""
    if not isinstance(config, str):
        raise TypeError(f"ikine6s: config must be a string of letters from 'lrudnf', "
                        f"got {config!r}")
    code = 0
    for c in config.lower():
        bit = {"l": 1, "r": 1, "u": 2, "d": 2, "n": 4, "f": 4}.get(c)
        if bit is None:
            raise ValueError(f"ikine6s: unknown configuration letter {c!r} in {config!r}; "
                             "valid letters are l/r (arm left/right), u/d (elbow up/down), "
                             "n/f (wrist not flipped/flipped)")
        code = (code | bit) if c in "rdf" else (code & ~bit)
    return code


def _code_string(code: int) -> str:
    return "lr"[code & 1] + "ud"[(code >> 1) & 1] + "nf"[(code >> 2) & 1]


# ---------------------------------------------------------------------------- kernels
# Few, larger numba functions: each compiled function costs first-compile time.

@njit(cache=True)
def _dh_step(R, p, g, j, v):
    """``(R, p) <- (R, p) A_j(v)`` in place: standard DH link j at kinematic value v."""
    if g[_SIG + j] != 0.0:
        th, d = g[_TH + j], v
    else:
        th, d = v, g[_D + j]
    a, al = g[_A + j], g[_AL + j]
    ct, st, ca, sa = math.cos(th), math.sin(th), math.cos(al), math.sin(al)
    for i in range(3):
        r0, r1, r2 = R[i, 0], R[i, 1], R[i, 2]
        p[i] += (r0 * ct + r1 * st) * a + r2 * d
        R[i, 0] = r0 * ct + r1 * st
        R[i, 1] = (r1 * ct - r0 * st) * ca + r2 * sa
        R[i, 2] = (r0 * st - r1 * ct) * sa + r2 * ca


@njit(cache=True)
def _wrist_centre(g, T):
    """``(W, Tp)``: the wrist centre (3,) and ``base^-1 T tool^-1`` (3, 4) of the pose T."""
    BT = np.zeros((3, 4))                   # base^-1 T (top three rows)
    for i in range(3):
        BT[i, 3] = g[_BINV + 4 * i + 3]
        for k in range(3):
            b = g[_BINV + 4 * i + k]
            for j in range(4):
                BT[i, j] += b * T[k, j]
    Tp = np.zeros((3, 4))
    for i in range(3):
        Tp[i, 3] = BT[i, 3]
        for k in range(3):
            b = BT[i, k]
            for j in range(4):
                Tp[i, j] += b * g[_TINV + 4 * k + j]
    v0, v1, v2 = -g[_A + 5], -g[_D + 5] * math.sin(g[_AL + 5]), -g[_D + 5] * math.cos(g[_AL + 5])
    W = np.empty(3)
    for i in range(3):
        W[i] = Tp[i, 3] + Tp[i, 0] * v0 + Tp[i, 1] * v1 + Tp[i, 2] * v2
    return W, Tp


@njit(cache=True)
def _z1_offset(g):
    """The constant coordinate of the wrist centre along the joint-2 axis z1 (m)."""
    if g[_KIND] == 0.0:
        return g[_D + 1] + math.cos(g[_AL + 1]) * (g[_D + 2] + math.cos(g[_AL + 2]) * g[_D + 3])
    th3 = g[_TH + 2]
    uy = g[_A + 2] * math.sin(th3) - math.sin(g[_AL + 2]) * g[_D + 3] * math.cos(th3)
    return g[_D + 1] + (1.0 if math.sin(g[_AL + 1]) >= 0.0 else -1.0) * uy


@njit(cache=True)
def ikine6s_kernel(g, T, code):
    """Solve one pose: ``(q, status)``.

    Parameters
    ----------
    g : float64 array (81,)
        From :func:`pack_ikine6s`.
    T : float64 array (4, 4), C-contiguous
        Tool pose in the world frame.
    code : int64
        From :func:`config_code`.

    Returns
    -------
    q : float64 array (6,)
        Joint coordinates (NaN unless status is 0).
    status : int64
        0 solved; 1 inside the shoulder-offset cylinder; 2 beyond or inside the elbow's
        reach; 3 beyond the slide's reach (RRP).
    """
    q = np.empty(6)
    q[:] = np.nan
    W, Tp = _wrist_centre(g, T)
    shoulder = -1.0 if code & 1 else 1.0
    elbow = -1.0 if code & 2 else 1.0
    # joint 1: r sin(theta1 - phi) = D sin(alpha1)
    s1a = 1.0 if math.sin(g[_AL]) >= 0.0 else -1.0
    D = _z1_offset(g) * s1a
    r = math.hypot(W[0], W[1])
    if r < abs(D):
        if abs(D) - r > 1e-12 * max(1.0, abs(D)):
            return q, OUT_SHOULDER
        ratio = math.copysign(1.0, D)
    else:
        ratio = D / r if r > 0.0 else 0.0
    phi = math.atan2(W[1], W[0])
    t1 = phi + math.asin(ratio) if shoulder > 0 else phi + math.pi - math.asin(ratio)
    X = math.cos(t1) * W[0] + math.sin(t1) * W[1] - g[_A]     # W along x1 and y1
    Y = s1a * (W[2] - g[_D])
    a2 = g[_A + 1]
    if g[_KIND] == 0.0:                     # RRR: planar 2R in the plane of frame 1
        eps2 = 1.0 if math.cos(g[_AL + 1]) >= 0.0 else -1.0
        s3d4 = math.sin(g[_AL + 2]) * g[_D + 3]
        rho = math.hypot(g[_A + 2], s3d4)
        beta = math.atan2(s3d4, g[_A + 2])
        K = (X * X + Y * Y - a2 * a2 - rho * rho) / (2.0 * a2 * rho)
        if abs(K) > 1.0:
            if abs(K) - 1.0 > 1e-9:
                return q, OUT_ELBOW
            K = math.copysign(1.0, K)
        sa2 = 1.0 if a2 >= 0.0 else -1.0
        t3 = beta - shoulder * s1a * eps2 * sa2 * elbow * math.acos(K)
        vx, vy = rho * math.cos(t3 - beta), rho * math.sin(t3 - beta)
        t2 = math.atan2(Y, X) - math.atan2(eps2 * vy, a2 + vx)
    else:                                   # RRP: polar coordinates in the plane of frame 1
        th3 = g[_TH + 2]
        ux = g[_A + 2] * math.cos(th3) + math.sin(g[_AL + 2]) * g[_D + 3] * math.sin(th3)
        h2 = X * X + Y * Y - (a2 + ux) ** 2
        if h2 < 0.0:
            if -h2 > 1e-12 * max(1.0, (a2 + ux) ** 2):
                return q, OUT_SLIDE
            h2 = 0.0
        uz = elbow * math.sqrt(h2)
        s2 = 1.0 if math.sin(g[_AL + 1]) >= 0.0 else -1.0
        t2 = math.atan2(Y, X) - math.atan2(-s2 * uz, a2 + ux)
        t3 = uz - math.cos(g[_AL + 2]) * g[_D + 3]
    # wrist: N = R03^T R, M = N Rx(alpha4 + alpha5 + alpha6)^T = Rz(t4) Ry(-s4 t5) Rz(s6 t6)
    R03, p03 = np.zeros((3, 3)), np.zeros(3)
    R03[0, 0] = R03[1, 1] = R03[2, 2] = 1.0
    t123 = np.empty(3)
    t123[0], t123[1], t123[2] = t1, t2, t3
    for j in range(3):
        _dh_step(R03, p03, g, j, t123[j])
    N = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            for k in range(3):
                N[i, j] += R03[k, i] * Tp[k, j]
    al4, al5 = g[_AL + 3], g[_AL + 4]
    c, s = math.cos(al4 + al5 + g[_AL + 5]), math.sin(al4 + al5 + g[_AL + 5])
    m02, m12, m22 = s * N[0, 1] + c * N[0, 2], s * N[1, 1] + c * N[1, 2], s * N[2, 1] + c * N[2, 2]
    m20, m21 = N[2, 0], c * N[2, 1] - s * N[2, 2]
    st = math.hypot(m02, m12)
    e = math.atan2(st, m22)
    if st > 1e-12:
        t4, psi = math.atan2(m12, m02), math.atan2(m21, -m20)
    else:                                   # wrist singularity: theta4 = 0
        t4 = 0.0
        psi = math.atan2(N[1, 0], math.cos(e) * N[0, 0] - math.sin(e) * m20)
    s4 = 1.0 if math.sin(al4) >= 0.0 else -1.0
    al45 = al4 + al5                        # 0 or +-pi (classified when packing)
    s6 = 1.0 if abs(math.sin(0.5 * al45)) < 1e-6 else -1.0
    t5, t6 = -s4 * e, s6 * psi
    if (t5 >= 0.0) == ((code & 4) != 0):    # 'n' has sin(theta5) >= 0, 'f' the other one
        t4, t5, t6 = t4 + math.pi, -t5, s6 * (psi + math.pi)
    q[0], q[1], q[2], q[3], q[4], q[5] = t1, t2, t3, t4, t5, t6
    for j in range(6):
        q[j] -= g[_OFF + j]
        if g[_SIG + j] == 0.0:              # (-pi, pi], or shifted into the limits
            v = q[j] - 2.0 * math.pi * math.ceil((q[j] - math.pi) / (2.0 * math.pi))
            lo, hi = g[_QLO + j], g[_QHI + j]
            if not lo <= v <= hi:
                if lo <= v + 2.0 * math.pi <= hi:
                    v += 2.0 * math.pi
                elif lo <= v - 2.0 * math.pi <= hi:
                    v -= 2.0 * math.pi
            q[j] = v
    return q, OK


@njit(cache=True)
def _config_kernel(g, q):
    """Configuration code of the joint vector q (see :func:`arm_config`)."""
    th = np.empty(6)
    R, p, E = np.zeros((3, 3)), np.zeros(3), np.zeros(3)
    R[0, 0] = R[1, 1] = R[2, 2] = 1.0
    for j in range(6):
        th[j] = q[j] + g[_OFF + j]
        _dh_step(R, p, g, j, th[j])
        if j == 1:                          # the elbow: origin of frame 2
            E[0], E[1], E[2] = p[0], p[1], p[2]
    W = np.empty(3)                         # wrist centre in frame 0
    v0, v1, v2 = -g[_A + 5], -g[_D + 5] * math.sin(g[_AL + 5]), -g[_D + 5] * math.cos(g[_AL + 5])
    for i in range(3):
        W[i] = p[i] + R[i, 0] * v0 + R[i, 1] * v1 + R[i, 2] * v2
    c1, s1 = math.cos(th[0]), math.sin(th[0])
    fwd = c1 * W[0] + s1 * W[1] >= 0.0
    if g[_KIND] == 0.0:                     # elbow E = origin of frame 2, both in frame 1
        s1a = 1.0 if math.sin(g[_AL]) >= 0.0 else -1.0
        X, Y = c1 * W[0] + s1 * W[1] - g[_A], s1a * (W[2] - g[_D])
        EX, EY = c1 * E[0] + s1 * E[1] - g[_A], s1a * (E[2] - g[_D])
        up = (1.0 if fwd else -1.0) * s1a * (X * EY - Y * EX) >= 0.0
    else:
        up = th[2] + math.cos(g[_AL + 2]) * g[_D + 3] >= 0.0
    return (0 if fwd else 1) + (0 if up else 2) + (0 if math.sin(th[4]) >= 0.0 else 4)


# ---------------------------------------------------------------------------- public API

def _check_pose(T: np.ndarray) -> None:
    R = T[:3, :3]
    if not np.all(np.isfinite(T)) or np.abs(R.T @ R - np.eye(3)).max() > 1e-6 \
            or np.linalg.det(R) < 0 or np.abs(T[3] - (0.0, 0.0, 0.0, 1.0)).max() > 1e-12:
        raise ValueError("ikine6s: T is not a homogeneous transform (rotation part not "
                         "orthonormal with determinant +1, or last row not [0, 0, 0, 1], or "
                         "non-finite values)")


def _unreachable(g: np.ndarray, T: np.ndarray, code: int, status: int) -> ValueError:
    W, _ = _wrist_centre(g, T)
    if status == OUT_SHOULDER:
        why = (f"the wrist centre is {math.hypot(W[0], W[1]):.6g} m from the waist axis, "
               f"closer than the shoulder offset {abs(_z1_offset(g)):.6g} m")
    elif status == OUT_ELBOW:
        upper = abs(g[_A + 1])
        fore = math.hypot(g[_A + 2], math.sin(g[_AL + 2]) * g[_D + 3])
        why = (f"the shoulder-to-wrist distance is outside the elbow's range "
               f"[{abs(upper - fore):.6g}, {upper + fore:.6g}] m")
    else:
        why = "the wrist centre is closer to the shoulder than the slide's fixed offset"
    return ValueError(f"ikine6s: point out of reach for configuration {_code_string(code)!r}: "
                      f"{why} (wrist centre at [{W[0]:.6g}, {W[1]:.6g}, {W[2]:.6g}] m in "
                      "the base frame)")


def ikine6s(robot, T: np.ndarray, config: str = "lun") -> np.ndarray:
    """Analytic inverse kinematics of a 6-axis standard-DH arm with a spherical wrist.

    Parameters
    ----------
    robot : SerialLink or SphericalWristArm
        The arm; its base, tool and joint offsets are taken into account.
    T : array, shape (4, 4) or (M, 4, 4)
        Desired tool pose(s) in the world frame (SE(3), metres).
    config : str
        Letters from ``'lrudnf'`` (see the module docstring); default ``"lun"``.

    Returns
    -------
    q : float64 array, shape (6,) or (M, 6)
        Joint coordinates (rad for revolute, m for prismatic joints) with
        ``fkine(q) == T``.

    Raises
    ------
    ValueError
        If the structure is not supported (not 6 joints, modified DH, wrist not spherical, ...),
        the configuration string is invalid, T is not a pose, or the pose is out of reach for
        the configuration ("point out of reach", naming the wrist centre).
    """
    g = pack_ikine6s(robot)
    code = config_code(config)
    T = np.ascontiguousarray(T, dtype=float)
    if T.shape != (4, 4) and not (T.ndim == 3 and T.shape[1:] == (4, 4)):
        raise ValueError(f"ikine6s: T must have shape (4, 4) or (M, 4, 4), got {T.shape}")
    poses = T.reshape(-1, 4, 4)
    out = np.empty((poses.shape[0], 6))
    for k in range(poses.shape[0]):
        _check_pose(poses[k])
        out[k], status = ikine6s_kernel(g, poses[k], code)
        if status != OK:
            raise _unreachable(g, poses[k], code, status)
    return out[0] if T.ndim == 2 else out


def arm_config(robot, q: np.ndarray) -> str:
    """The configuration string (e.g. ``"lun"``) of joint vector ``q`` (shape (6,)).

    Uses the definitions of the module docstring, so that
    ``ikine6s(robot, fkine(q), arm_config(robot, q))`` returns ``q`` (mod 2 pi) away from
    singularities.
    """
    g = pack_ikine6s(robot)
    q = np.ascontiguousarray(q, dtype=float)
    if q.shape != (6,):
        raise ValueError(f"arm_config: q must have shape (6,), got {q.shape}")
    return _code_string(_config_kernel(g, q))
