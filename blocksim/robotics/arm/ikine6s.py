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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SphericalWristArm", "arm_config", "ikine6s", "wrist_arm"]

_TOL = 1e-9          # tolerance on DH angles (rad) and lengths (m) when classifying the arm
_REACH_TOL = 1e-12   # relative slack on the reach conditions before declaring "out of reach"


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
    links = list(robot.links)
    conventions = {link.convention for link in links}
    if conventions != {"standard"}:
        raise ValueError(f"ikine6s: robot {getattr(robot, 'name', '')!r} has links in the "
                         f"{sorted(conventions)} convention(s); the analytic solution needs "
                         "standard DH parameters (use ikine)")
    get = lambda name: np.array([float(getattr(link, name)) for link in links])  # noqa: E731
    n = len(links)
    qlim = getattr(robot, "qlim", None)
    return SphericalWristArm(
        theta=get("theta"), d=get("d"), a=get("a"), alpha=get("alpha"),
        sigma=np.array([1 if link.isprismatic() else 0 for link in links], dtype=np.int64),
        offset=get("offset"),
        base=np.asarray(robot.base, dtype=float).reshape(4, 4),
        tool=np.asarray(robot.tool, dtype=float).reshape(4, 4),
        qlim=(np.tile([-np.inf, np.inf], (n, 1)) if qlim is None
              else np.asarray(qlim, dtype=float).reshape(n, 2)),
    )


# ---------------------------------------------------------------------------- classification

def _is(angle: float, value: float) -> bool:
    """True if ``angle`` equals ``value`` modulo 2 pi (within :data:`_TOL`)."""
    return abs(math.remainder(angle - value, 2 * math.pi)) < _TOL


def _classify(arm: SphericalWristArm) -> str:
    name = "ikine6s: kinematic structure not supported"
    if arm.sigma.shape[0] != 6:
        raise ValueError(f"{name}: the robot has {arm.sigma.shape[0]} joints, ikine6s needs 6")
    a, d, al, s = arm.a, arm.d, arm.alpha, arm.sigma
    if s[3] or s[4] or s[5] or abs(a[3]) > _TOL or abs(a[4]) > _TOL or abs(d[4]) > _TOL \
            or not (_is(abs(al[3]), math.pi / 2) and _is(abs(al[4]), math.pi / 2)):
        raise ValueError(f"{name}: the wrist is not spherical (needs revolute joints 4-6 with "
                         "a4 = a5 = d5 = 0 and |alpha4| = |alpha5| = pi/2)")
    if s[0] or not _is(abs(al[0]), math.pi / 2):
        raise ValueError(f"{name}: needs a revolute joint 1 with |alpha1| = pi/2, "
                         f"got alpha1 = {al[0]:.6g} rad")
    if not s[1] and not s[2] and (_is(al[1], 0.0) or _is(al[1], math.pi)):
        if abs(a[1]) < _TOL or math.hypot(a[2], math.sin(al[2]) * d[3]) < _TOL:
            raise ValueError(f"{name}: a planar elbow needs a2 != 0 and a forearm of non-zero "
                             "length in the plane of joints 2 and 3")
        return "RRR"
    if not s[1] and s[2] and _is(abs(al[1]), math.pi / 2):
        return "RRP"
    raise ValueError(f"{name}: joints 2-3 must be RR with parallel axes (alpha2 = 0 or pi) or "
                     "RP with |alpha2| = pi/2")


# ---------------------------------------------------------------------------- small transforms

def _dh(theta: float, d: float, a: float, alpha: float) -> np.ndarray:
    """Standard DH link transform Rz(theta) Tz(d) Tx(a) Rx(alpha), (4, 4)."""
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def _joint_dh(arm: SphericalWristArm, j: int, value: float) -> np.ndarray:
    """Transform of link ``j`` for kinematic joint value ``value`` (q + offset)."""
    if arm.sigma[j]:
        return _dh(arm.theta[j], value, arm.a[j], arm.alpha[j])
    return _dh(value, arm.d[j], arm.a[j], arm.alpha[j])


def _rotx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _roty(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rotz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _sign(x: float) -> float:
    return 1.0 if x >= 0.0 else -1.0


# ---------------------------------------------------------------------------- the solution

def _parse_config(config: str) -> tuple[float, float, bool]:
    """(shoulder, elbow, flip): shoulder +1 'l' / -1 'r', elbow +1 'u' / -1 'd'."""
    if not isinstance(config, str):
        raise TypeError(f"ikine6s: config must be a string of letters from 'lrudnf', "
                        f"got {config!r}")
    shoulder, elbow, flip = 1.0, 1.0, False
    for c in config.lower():
        if c == "l":
            shoulder = 1.0
        elif c == "r":
            shoulder = -1.0
        elif c == "u":
            elbow = 1.0
        elif c == "d":
            elbow = -1.0
        elif c == "n":
            flip = False
        elif c == "f":
            flip = True
        else:
            raise ValueError(f"ikine6s: unknown configuration letter {c!r} in {config!r}; "
                             "valid letters are l/r (arm left/right), u/d (elbow up/down), "
                             "n/f (wrist not flipped/flipped)")
    return shoulder, elbow, flip


def _wrist_centre(arm: SphericalWristArm, T: np.ndarray) -> np.ndarray:
    """Wrist centre (3,) in frame 0 of the pose T (base and tool already removed)."""
    a6, d6, al6 = arm.a[5], arm.d[5], arm.alpha[5]
    return T[:3, 3] + T[:3, :3] @ np.array([-a6, -d6 * math.sin(al6), -d6 * math.cos(al6)])


def _offset_along_z1(arm: SphericalWristArm, kind: str) -> float:
    """The constant coordinate D of the wrist centre along the joint-2 axis z1 (m)."""
    d, a, al = arm.d, arm.a, arm.alpha
    if kind == "RRR":
        return d[1] + math.cos(al[1]) * (d[2] + math.cos(al[2]) * d[3])
    th3 = arm.theta[2]
    uy = a[2] * math.sin(th3) - math.sin(al[2]) * d[3] * math.cos(th3)
    return d[1] + _sign(math.sin(al[1])) * uy


def _in_frame1(arm: SphericalWristArm, theta1: float, W: np.ndarray) -> tuple[float, float]:
    """In-plane coordinates (along x1, along y1) of W in frame 1 (|alpha1| = pi/2)."""
    s1a = _sign(math.sin(arm.alpha[0]))
    c1, s1 = math.cos(theta1), math.sin(theta1)
    return c1 * W[0] + s1 * W[1] - arm.a[0], s1a * (W[2] - arm.d[0])


def _out_of_reach(config: str, W: np.ndarray, why: str) -> ValueError:
    return ValueError(f"ikine6s: point out of reach for configuration {config!r}: {why} "
                      f"(wrist centre at [{W[0]:.6g}, {W[1]:.6g}, {W[2]:.6g}] m in the base "
                      "frame)")


def _arm_joints(arm: SphericalWristArm, kind: str, W: np.ndarray, shoulder: float,
                elbow: float, config: str) -> tuple[float, float, float]:
    """Kinematic values of joints 1-3 placing the wrist centre at W."""
    s1a = _sign(math.sin(arm.alpha[0]))
    D = _offset_along_z1(arm, kind) * s1a
    r = math.hypot(W[0], W[1])
    if r < abs(D):
        if abs(D) - r > _REACH_TOL * max(1.0, abs(D)):
            raise _out_of_reach(config, W, f"the wrist centre is {r:.6g} m from the waist axis, "
                                f"closer than the shoulder offset {abs(D):.6g} m")
        ratio = math.copysign(1.0, D)
    else:
        ratio = D / r if r > 0.0 else 0.0
    phi = math.atan2(W[1], W[0])
    theta1 = phi + math.asin(ratio) if shoulder > 0 else phi + math.pi - math.asin(ratio)
    X, Y = _in_frame1(arm, theta1, W)
    a2 = arm.a[1]
    if kind == "RRR":
        eps2 = _sign(math.cos(arm.alpha[1]))
        s3d4 = math.sin(arm.alpha[2]) * arm.d[3]
        rho = math.hypot(arm.a[2], s3d4)
        beta = math.atan2(s3d4, arm.a[2])
        K = (X * X + Y * Y - a2 * a2 - rho * rho) / (2.0 * a2 * rho)
        if abs(K) > 1.0:
            if abs(K) - 1.0 > _REACH_TOL * 1e3:
                reach = (abs(a2) - rho, abs(a2) + rho)
                raise _out_of_reach(config, W, f"the wrist centre is {math.hypot(X, Y):.6g} m "
                                    f"from the shoulder, outside [{abs(reach[0]):.6g}, "
                                    f"{reach[1]:.6g}] m")
            K = math.copysign(1.0, K)
        sigma = -shoulder * s1a * eps2 * _sign(a2) * elbow
        theta3 = beta + sigma * math.acos(K)
        vx = rho * math.cos(theta3 - beta)
        vy = rho * math.sin(theta3 - beta)
        theta2 = math.atan2(Y, X) - math.atan2(eps2 * vy, a2 + vx)
        return theta1, theta2, theta3
    # RRP: W1 = Rz(theta2) (a2 + ux, -s2 uz) with uz = L3 + cos(alpha3) d4
    th3 = arm.theta[2]
    ux = arm.a[2] * math.cos(th3) + math.sin(arm.alpha[2]) * arm.d[3] * math.sin(th3)
    s2 = _sign(math.sin(arm.alpha[1]))
    h2 = X * X + Y * Y - (a2 + ux) ** 2
    if h2 < 0.0:
        if -h2 > _REACH_TOL * max(1.0, (a2 + ux) ** 2):
            raise _out_of_reach(config, W, f"the wrist centre is closer to the shoulder than "
                                f"the fixed offset {abs(a2 + ux):.6g} m")
        h2 = 0.0
    uz = elbow * math.sqrt(h2)
    theta2 = math.atan2(Y, X) - math.atan2(-s2 * uz, a2 + ux)
    return theta1, theta2, uz - math.cos(arm.alpha[2]) * arm.d[3]


def _zyz(M: np.ndarray) -> tuple[float, float, float]:
    """ZYZ Euler angles (phi, theta, psi) of M with theta in [0, pi]; phi = 0 if singular."""
    st = math.hypot(M[0, 2], M[1, 2])
    theta = math.atan2(st, M[2, 2])
    if st > 1e-12:
        return math.atan2(M[1, 2], M[0, 2]), theta, math.atan2(M[2, 1], -M[2, 0])
    rest = _roty(theta).T @ M       # = Rz(psi) when phi = 0
    return 0.0, theta, math.atan2(rest[1, 0], rest[0, 0])


def _wrist_joints(arm: SphericalWristArm, th123: tuple[float, float, float], R: np.ndarray,
                  flip: bool) -> tuple[float, float, float]:
    """Kinematic angles of joints 4-6 giving the end rotation R (frame 0)."""
    T03 = np.eye(4)
    for j in range(3):
        T03 = T03 @ _joint_dh(arm, j, th123[j])
    al4, al5, al6 = arm.alpha[3], arm.alpha[4], arm.alpha[5]
    M = T03[:3, :3].T @ R @ _rotx(al4 + al5 + al6).T
    phi, theta, psi = _zyz(M)
    s4 = _sign(math.sin(al4))
    s6 = 1.0 if _is(al4 + al5, 0.0) else -1.0
    cand = ((phi, -s4 * theta, s6 * psi),
            (phi + math.pi, s4 * theta, s6 * (psi + math.pi)))
    # 'n' is the solution with sin(theta5) >= 0
    first_is_n = -s4 * theta >= 0.0
    return cand[0] if first_is_n != flip else cand[1]


def _wrap(q: float, lo: float, hi: float) -> float:
    """q wrapped to (-pi, pi], or shifted by 2 pi into [lo, hi] when that helps."""
    q = -math.remainder(-q, 2 * math.pi)        # (-pi, pi]
    if not lo <= q <= hi:
        for alt in (q + 2 * math.pi, q - 2 * math.pi):
            if lo <= alt <= hi:
                return alt
    return q


def _check_pose(T: np.ndarray) -> None:
    if not np.all(np.isfinite(T)):
        raise ValueError("ikine6s: T contains non-finite values")
    R = T[:3, :3]
    if np.max(np.abs(R.T @ R - np.eye(3))) > 1e-6 or abs(np.linalg.det(R) - 1.0) > 1e-6 \
            or np.max(np.abs(T[3] - [0.0, 0.0, 0.0, 1.0])) > 1e-12:
        raise ValueError("ikine6s: T is not a homogeneous transform (rotation part not "
                         "orthonormal with determinant +1, or last row not [0, 0, 0, 1])")


def _solve_one(arm: SphericalWristArm, kind: str, T: np.ndarray, config: str,
               parsed: tuple[float, float, bool]) -> np.ndarray:
    _check_pose(T)
    Tp = np.linalg.solve(arm.base, T) @ np.linalg.inv(arm.tool)
    W = _wrist_centre(arm, Tp)
    shoulder, elbow, flip = parsed
    th123 = _arm_joints(arm, kind, W, shoulder, elbow, config)
    th456 = _wrist_joints(arm, th123, Tp[:3, :3], flip)
    q = np.array(th123 + th456) - arm.offset
    for j in range(6):
        if not arm.sigma[j]:
            q[j] = _wrap(q[j], arm.qlim[j, 0], arm.qlim[j, 1])
    return q


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
    arm = wrist_arm(robot)
    kind = _classify(arm)
    parsed = _parse_config(config)
    T = np.asarray(T, dtype=float)
    if T.shape == (4, 4):
        return _solve_one(arm, kind, T, config, parsed)
    if T.ndim == 3 and T.shape[1:] == (4, 4):
        return np.array([_solve_one(arm, kind, Tk, config, parsed) for Tk in T]).reshape(-1, 6)
    raise ValueError(f"ikine6s: T must have shape (4, 4) or (M, 4, 4), got {T.shape}")


def arm_config(robot, q: np.ndarray) -> str:
    """The configuration string (e.g. ``"lun"``) of joint vector ``q`` (shape (6,)).

    Uses the definitions of the module docstring, so that
    ``ikine6s(robot, fkine(q), arm_config(robot, q))`` returns ``q`` (mod 2 pi) away from
    singularities.
    """
    arm = wrist_arm(robot)
    kind = _classify(arm)
    th = np.asarray(q, dtype=float).reshape(6) + arm.offset
    T = np.eye(4)
    frames = []
    for j in range(6):
        T = T @ _joint_dh(arm, j, th[j])
        frames.append(T)
    W = _wrist_centre(arm, T)
    c1, s1 = math.cos(th[0]), math.sin(th[0])
    fwd = _sign(c1 * W[0] + s1 * W[1])
    if kind == "RRR":
        X, Y = _in_frame1(arm, th[0], W)
        E = frames[1][:3, 3]
        EX, EY = _in_frame1(arm, th[0], E)
        cross = X * EY - Y * EX
        up = _sign(fwd * _sign(math.sin(arm.alpha[0])) * cross)
    else:
        up = _sign(th[2] + math.cos(arm.alpha[2]) * arm.d[3])
    return ("l" if fwd > 0 else "r") + ("u" if up > 0 else "d") + \
        ("n" if math.sin(th[4]) >= 0.0 else "f")
