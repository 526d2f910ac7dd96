"""The Modern Robotics code library (Lynch & Park, the 2016 release) by its own names.

Thin functions over :mod:`blocksim.robotics.spatial` where one exists (chapters 3-6), the
chapter 8 dynamics and chapter 11 control written directly as Modern Robotics (MR) defines them
(numpy, independent of :mod:`blocksim.robotics.arm`), and the chapter 9 names as aliases of
:mod:`blocksim.robotics.trajectory` (``CubicTimeScaling``, ``QuinticTimeScaling``,
``JointTrajectory``, ``ScrewTrajectory``, ``CartesianTrajectory``; trajectories are returned as
(N, n) arrays and (N, 4, 4) stacks instead of MR's lists).

Conventions (MR's, which differ from RTB's):

* Twists, screw axes and exponential coordinates are ``(w, v)``, **angular part first**
  (RTB and :mod:`~blocksim.robotics.spatial` use ``(v, w)``). Wrenches are ``(m, f)``,
  moment first, so that power is ``F . V``.
* ``Slist`` / ``Blist``: (6, n) arrays, one screw axis per **column** (MR Python).
* ``Mlist``: (n+1, 4, 4), ``M_{i-1,i}`` for i = 1..n+1 between link centre-of-mass frames;
  frame {n+1} is the end-effector. ``Glist``: (n, 6, 6) spatial inertias
  ``[[I_b, 0], [0, m I3]]`` in the centre-of-mass frames.
* ``g`` is the gravitational acceleration (3,), pointing down, e.g. ``[0, 0, -9.8]`` m/s^2
  (RTB's ``gravity`` is the opposite, upward, vector).
* Time histories (``thetamat``, ``taumat``, ``Ftipmat``...) are (N, n) / (N, 6): one row per
  time step.

Defects of the 2016 release handled here: the missing signature lines of
InverseDynamics, ForwardDynamics, the two trajectory functions and ComputedTorque are taken
from the input lists (in that order, confirmed by upstream MR); ``theta0``/``dtheta0`` in
ComputedTorque/SimulateControl are the *current* state and are named ``thetalist``,
``dthetalist``; "the tamatd" is ``thetamatd``; "Kp" (printed in Cyrillic) is ``Kp``;
ForwardDynamicsTrajectory returns N rows (the initial state and N-1 steps; the 2016
text's "k in {0, ..., N}" is off by one). The 2016 vector API ``MatrixExp3(expc3)``,
``MatrixExp6(expc6)`` and today's matrix API are both accepted (dispatch on shape); the logs
return MR's current matrix form, or the 2016 vector with ``vector=True``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .spatial import skew, trexp, trlog, vex
from .spatial.kernels import se3_exp_nb, se3_log_nb
from .trajectory import cartesian_trajectory as CartesianTrajectory  # noqa: F401
from .trajectory import cubic_time_scaling as CubicTimeScaling  # noqa: F401
from .trajectory import joint_trajectory as JointTrajectory  # noqa: F401
from .trajectory import quintic_time_scaling as QuinticTimeScaling  # noqa: F401
from .trajectory import screw_trajectory as ScrewTrajectory  # noqa: F401

#: MR's NearZero threshold
NEAR_ZERO = 1e-6
#: IKinBody / IKinSpace iteration cap (MR's hard-coded ``maxiterations``)
IK_MAX_ITERATIONS = 20


def _vec(a: Any, n: int, name: str) -> np.ndarray:
    v = np.asarray(a, dtype=float).reshape(-1)
    if v.size != n:
        raise ValueError(f"{name}: expected {n} elements, got {v.size}")
    return v


def _axes(S: Any, name: str) -> np.ndarray:
    """Screw-axis list as a (6, n) float array (axes as columns)."""
    A = np.asarray(S, dtype=float)
    if A.ndim == 1:
        A = A.reshape(6, 1) if A.size == 6 else A
    if A.ndim != 2 or A.shape[0] != 6:
        raise ValueError(f"{name}: expected a (6, n) array with one screw axis per column, "
                         f"got shape {A.shape}")
    return A


def _sk(w: np.ndarray) -> np.ndarray:
    """skew(w) (3, 3) without argument checks (hot loops)."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _adj(T: np.ndarray) -> np.ndarray:
    """Adjoint (6, 6) of a (4, 4) float array without argument checks."""
    R = T[:3, :3]
    Ad = np.zeros((6, 6))
    Ad[:3, :3] = R
    Ad[3:, 3:] = R
    Ad[3:, :3] = _sk(T[:3, 3]) @ R
    return Ad


def _inv(T: np.ndarray) -> np.ndarray:
    """Inverse of a (4, 4) transform without argument checks."""
    Ti = np.eye(4)
    Ti[:3, :3] = T[:3, :3].T
    Ti[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return Ti


def _ad(V: np.ndarray) -> np.ndarray:
    """ad(V) (6, 6) without argument checks."""
    A = np.zeros((6, 6))
    A[:3, :3] = A[3:, 3:] = _sk(V[:3])
    A[3:, :3] = _sk(V[3:])
    return A


def _exp6(V: np.ndarray) -> np.ndarray:
    """exp of the MR twist ``(w, v)`` (6,) -> (4, 4)."""
    return se3_exp_nb(np.ascontiguousarray(np.concatenate((V[3:], V[:3]))))


# -- Chapter 3: rigid-body motions ------------------------------------------------------------
def NearZero(z: float) -> bool:
    """True if ``|z| < 1e-6``."""
    return bool(abs(z) < NEAR_ZERO)


def Normalize(V: Any) -> np.ndarray:
    """``V / |V|``."""
    V = np.asarray(V, dtype=float)
    return V / np.linalg.norm(V)


def RotInv(R: Any) -> np.ndarray:
    """Inverse of a rotation (3, 3), computed as the transpose."""
    return np.asarray(R, dtype=float).T.copy()


def VecToso3(omg: Any) -> np.ndarray:
    """so(3) matrix (3, 3) of a 3-vector."""
    return skew(_vec(omg, 3, "VecToso3"))


def so3ToVec(so3mat: Any) -> np.ndarray:
    """3-vector of an so(3) matrix."""
    return vex(so3mat)


def AxisAng3(expc3: Any) -> tuple[np.ndarray, float]:
    """Unit axis (3,) and angle [rad] of exponential coordinates ``expc3 = w theta``."""
    v = _vec(expc3, 3, "AxisAng3")
    return Normalize(v), float(np.linalg.norm(v))


def MatrixExp3(so3mat: Any) -> np.ndarray:
    """Rotation (3, 3) from an so(3) matrix (3, 3) or from exponential coordinates (3,).

    Exact Rodrigues formula for every angle (MR returns I below its NearZero threshold).
    """
    return trexp(so3mat)


def MatrixLog3(R: Any, vector: bool = False) -> np.ndarray:
    """so(3) matrix (3, 3) of the principal log of R (angle in [0, pi]).

    ``vector=True`` returns the exponential coordinates (3,) (the 2016 release's API). Like MR
    the input is not checked to be a rotation.
    """
    return trlog(R, twist=vector, check=False)


def RpToTrans(R: Any, p: Any) -> np.ndarray:
    """Transform (4, 4) from a rotation (3, 3) and a position (3,)."""
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = _vec(p, 3, "RpToTrans: p")
    return T


def TransToRp(T: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (3, 3) and position (3,) of a transform (4, 4)."""
    T = np.asarray(T, dtype=float)
    return T[:3, :3].copy(), T[:3, 3].copy()


def TransInv(T: Any) -> np.ndarray:
    """Inverse of a transform, ``[[R^T, -R^T p], [0, 1]]`` (no matrix inversion)."""
    return _inv(np.asarray(T, dtype=float))


def VecTose3(V: Any) -> np.ndarray:
    """se(3) matrix (4, 4) ``[[skew(w), v], [0, 0]]`` of a twist ``V = (w, v)`` (6,)."""
    V = _vec(V, 6, "VecTose3")
    S = np.zeros((4, 4))
    S[:3, :3] = skew(V[:3])
    S[:3, 3] = V[3:]
    return S


def se3ToVec(se3mat: Any) -> np.ndarray:
    """Twist ``(w, v)`` (6,) of an se(3) matrix (4, 4)."""
    m = np.asarray(se3mat, dtype=float)
    return np.concatenate((vex(m[:3, :3]), m[:3, 3]))


def Adjoint(T: Any) -> np.ndarray:
    """Adjoint representation (6, 6) ``[[R, 0], [skew(p) R, R]]`` acting on ``(w, v)`` twists."""
    m = np.asarray(T, dtype=float)
    if m.shape != (4, 4):
        raise ValueError(f"Adjoint: expected a (4, 4) transform, got shape {m.shape}")
    return _adj(m)


def ScrewToAxis(q: Any, s: Any, h: float) -> np.ndarray:
    """Normalised screw axis ``(s, q x s + h s)`` (6,) through point q [m] along unit s, pitch h.

    ``h`` is the pitch [m/rad] (linear over angular velocity).
    """
    sv = _vec(s, 3, "ScrewToAxis: s")
    return np.concatenate((sv, np.cross(_vec(q, 3, "ScrewToAxis: q"), sv) + h * sv))


def AxisAng6(expc6: Any) -> tuple[np.ndarray, float]:
    """Normalised screw axis (6,) and distance theta of exponential coordinates ``S theta``.

    ``theta = |w|``, or ``|v|`` when ``w`` is NearZero (pure translation).
    """
    v = _vec(expc6, 6, "AxisAng6")
    theta = np.linalg.norm(v[:3])
    if NearZero(theta):
        theta = np.linalg.norm(v[3:])
    return v / theta, float(theta)


def MatrixExp6(se3mat: Any) -> np.ndarray:
    """Transform (4, 4) from an se(3) matrix (4, 4) or exponential coordinates ``(w, v)`` (6,)."""
    m = np.asarray(se3mat, dtype=float)
    if m.shape == (4, 4):
        return trexp(m)
    return _exp6(_vec(m, 6, "MatrixExp6"))


def MatrixLog6(T: Any, vector: bool = False) -> np.ndarray:
    """se(3) matrix (4, 4) of the principal log of T; ``vector=True`` gives ``(w, v)`` (6,)."""
    xi = se3_log_nb(np.array(T, dtype=float))  # a writeable C copy: one compiled signature
    V = np.concatenate((xi[3:], xi[:3]))
    return V if vector else VecTose3(V)


def ProjectToSO3(mat: Any) -> np.ndarray:
    """Nearest rotation (Frobenius norm) to a (3, 3) matrix: ``U diag(1, 1, det(U V^T)) V^T``.

    MR flips a column of ``U V^T`` when its determinant is negative, which is not the nearest
    rotation in that case; this function returns the true nearest one (same result otherwise).
    """
    U, _, Vh = np.linalg.svd(np.asarray(mat, dtype=float))
    D = np.diag([1.0, 1.0, np.sign(np.linalg.det(U @ Vh))])
    return U @ D @ Vh


def ProjectToSE3(mat: Any) -> np.ndarray:
    """Nearest transform to a (4, 4) matrix: rotation projected, position kept, last row fixed."""
    m = np.asarray(mat, dtype=float)
    return RpToTrans(ProjectToSO3(m[:3, :3]), m[:3, 3])


def DistanceToSO3(mat: Any) -> float:
    """``|mat^T mat - I|_F`` if ``det(mat) > 0``, else a large number (1e9)."""
    m = np.asarray(mat, dtype=float)
    if np.linalg.det(m) <= 0:
        return 1e9
    return float(np.linalg.norm(m.T @ m - np.eye(3)))


def DistanceToSE3(mat: Any) -> float:
    """Frobenius distance of ``[[R^T R, 0], [last row of mat]]`` from I (1e9 if det R <= 0)."""
    m = np.asarray(mat, dtype=float)
    R = m[:3, :3]
    if np.linalg.det(R) <= 0:
        return 1e9
    X = np.zeros((4, 4))
    X[:3, :3] = R.T @ R
    X[3] = m[3]
    return float(np.linalg.norm(X - np.eye(4)))


def TestIfSO3(mat: Any) -> bool:
    """True if :func:`DistanceToSO3` is below 1e-3."""
    return abs(DistanceToSO3(mat)) < 1e-3


def TestIfSE3(mat: Any) -> bool:
    """True if :func:`DistanceToSE3` is below 1e-3."""
    return abs(DistanceToSE3(mat)) < 1e-3


# -- Chapter 4: forward kinematics ------------------------------------------------------------
def FKinBody(M: Any, Blist: Any, thetalist: Any) -> np.ndarray:
    """End-effector pose ``M exp([B1] th1) ... exp([Bn] thn)`` (4, 4); Blist (6, n) body axes."""
    B = _axes(Blist, "FKinBody: Blist")
    th = _vec(thetalist, B.shape[1], "FKinBody: thetalist")
    T = np.array(M, dtype=float)
    for i in range(B.shape[1]):
        T = T @ _exp6(B[:, i] * th[i])
    return T


def FKinSpace(M: Any, Slist: Any, thetalist: Any) -> np.ndarray:
    """End-effector pose ``exp([S1] th1) ... exp([Sn] thn) M`` (4, 4); Slist (6, n) space axes."""
    S = _axes(Slist, "FKinSpace: Slist")
    th = _vec(thetalist, S.shape[1], "FKinSpace: thetalist")
    T = np.array(M, dtype=float)
    for i in range(S.shape[1] - 1, -1, -1):
        T = _exp6(S[:, i] * th[i]) @ T
    return T


# -- Chapter 5: velocity kinematics -----------------------------------------------------------
def JacobianBody(Blist: Any, thetalist: Any) -> np.ndarray:
    """Body Jacobian (6, n): ``J_i = Ad(exp(-[B_n] th_n) ... exp(-[B_{i+1}] th_{i+1})) B_i``."""
    B = _axes(Blist, "JacobianBody: Blist")
    th = _vec(thetalist, B.shape[1], "JacobianBody: thetalist")
    J = B.copy()
    T = np.eye(4)
    for i in range(B.shape[1] - 2, -1, -1):
        T = T @ _exp6(-B[:, i + 1] * th[i + 1])
        J[:, i] = _adj(T) @ B[:, i]
    return J


def JacobianSpace(Slist: Any, thetalist: Any) -> np.ndarray:
    """Space Jacobian (6, n): ``J_i = Ad(exp([S_1] th_1) ... exp([S_{i-1}] th_{i-1})) S_i``."""
    S = _axes(Slist, "JacobianSpace: Slist")
    th = _vec(thetalist, S.shape[1], "JacobianSpace: thetalist")
    J = S.copy()
    T = np.eye(4)
    for i in range(1, S.shape[1]):
        T = T @ _exp6(S[:, i - 1] * th[i - 1])
        J[:, i] = _adj(T) @ S[:, i]
    return J


# -- Chapter 6: inverse kinematics ------------------------------------------------------------
def _newton_ik(error: Any, jacobian: Any, th: np.ndarray, eomg: float,
               ev: float) -> tuple[np.ndarray, bool]:
    """MR's Newton-Raphson loop: ``th += pinv(J(th)) V(th)`` until both error norms are small."""
    V = error(th)
    k = 0
    while (np.linalg.norm(V[:3]) > eomg or np.linalg.norm(V[3:]) > ev) \
            and k < IK_MAX_ITERATIONS:
        th = th + np.linalg.pinv(jacobian(th)) @ V
        k += 1
        V = error(th)
    return th, bool(np.linalg.norm(V[:3]) <= eomg and np.linalg.norm(V[3:]) <= ev)


def IKinBody(Blist: Any, M: Any, T: Any, thetalist0: Any, eomg: float,
             ev: float) -> tuple[np.ndarray, bool]:
    """Newton-Raphson inverse kinematics with body axes (note: Blist before M).

    Iterates ``theta += pinv(J_b) V_b`` with ``V_b = log(T_sb(theta)^-1 T)`` until
    ``|w_b| <= eomg`` and ``|v_b| <= ev`` or :data:`IK_MAX_ITERATIONS` (20) updates.

    Returns
    -------
    thetalist : ndarray (n,); success : bool
        The last iterate and whether the tolerances were met.
    """
    B = _axes(Blist, "IKinBody: Blist")
    th = _vec(thetalist0, B.shape[1], "IKinBody: thetalist0")
    Td = np.asarray(T, dtype=float)
    return _newton_ik(lambda q: MatrixLog6(TransInv(FKinBody(M, B, q)) @ Td, vector=True),
                      lambda q: JacobianBody(B, q), th, eomg, ev)


def IKinSpace(Slist: Any, M: Any, T: Any, thetalist0: Any, eomg: float,
              ev: float) -> tuple[np.ndarray, bool]:
    """As :func:`IKinBody` with space axes: ``V_s = Ad(T_sb) V_b``, ``theta += pinv(J_s) V_s``."""
    S = _axes(Slist, "IKinSpace: Slist")
    th = _vec(thetalist0, S.shape[1], "IKinSpace: thetalist0")
    Td = np.asarray(T, dtype=float)

    def error(q: np.ndarray) -> np.ndarray:
        Tsb = FKinSpace(M, S, q)
        return _adj(Tsb) @ MatrixLog6(TransInv(Tsb) @ Td, vector=True)

    return _newton_ik(error, lambda q: JacobianSpace(S, q), th, eomg, ev)


# -- Chapter 8: dynamics of open chains -------------------------------------------------------
def ad(V: Any) -> np.ndarray:
    """Lie bracket matrix (6, 6) ``[[skew(w), 0], [skew(v), skew(w)]]`` of ``V = (w, v)``."""
    return _ad(_vec(V, 6, "ad"))


def _model(Mlist: Any, Glist: Any, Slist: Any, n: int) -> tuple[np.ndarray, ...]:
    Ml = np.asarray(Mlist, dtype=float)
    Gl = np.asarray(Glist, dtype=float)
    S = _axes(Slist, "Slist")
    if Ml.shape != (n + 1, 4, 4):
        raise ValueError(f"Mlist: expected {n + 1} transforms (n+1, 4, 4) including the "
                         f"end-effector frame, got shape {Ml.shape}")
    if Gl.shape != (n, 6, 6):
        raise ValueError(f"Glist: expected shape ({n}, 6, 6), got {Gl.shape}")
    if S.shape[1] != n:
        raise ValueError(f"Slist: expected {n} axes (columns), got {S.shape[1]}")
    return Ml, Gl, S


def InverseDynamics(thetalist: Any, dthetalist: Any, ddthetalist: Any, g: Any, Ftip: Any,
                    Mlist: Any, Glist: Any, Slist: Any) -> np.ndarray:
    """Joint forces/torques (n,) by forward-backward Newton-Euler recursion (MR 8.3).

    Forward: ``A_i = Ad(M_i^-1) S_i``, ``T_{i,i-1} = exp(-[A_i] th_i) M_{i-1,i}^-1``,
    ``V_i = Ad(T_{i,i-1}) V_{i-1} + A_i dth_i``,
    ``dV_i = Ad(T_{i,i-1}) dV_{i-1} + A_i ddth_i + ad(V_i) A_i dth_i`` with ``V_0 = 0`` and
    ``dV_0 = (0, -g)`` (gravity as a base acceleration). Backward from ``F_{n+1} = Ftip``:
    ``F_i = Ad(T_{i+1,i})^T F_{i+1} + G_i dV_i - ad(V_i)^T G_i V_i``, ``tau_i = F_i . A_i``.
    """
    th = np.asarray(thetalist, dtype=float).reshape(-1)
    n = th.size
    dth = _vec(dthetalist, n, "dthetalist")
    ddth = _vec(ddthetalist, n, "ddthetalist")
    Ml, Gl, S = _model(Mlist, Glist, Slist, n)
    A = np.zeros((6, n))
    AdT = np.zeros((n + 1, 6, 6))
    V = np.zeros((6, n + 1))
    dV = np.zeros((6, n + 1))
    dV[3:, 0] = -_vec(g, 3, "g")
    AdT[n] = _adj(_inv(Ml[n]))
    Mi = np.eye(4)
    for i in range(n):
        Mi = Mi @ Ml[i]
        A[:, i] = _adj(_inv(Mi)) @ S[:, i]
        AdT[i] = _adj(_exp6(-A[:, i] * th[i]) @ _inv(Ml[i]))
        V[:, i + 1] = AdT[i] @ V[:, i] + A[:, i] * dth[i]
        dV[:, i + 1] = (AdT[i] @ dV[:, i] + A[:, i] * ddth[i]
                        + _ad(V[:, i + 1]) @ A[:, i] * dth[i])
    F = _vec(Ftip, 6, "Ftip").copy()
    tau = np.zeros(n)
    for i in range(n - 1, -1, -1):
        F = AdT[i + 1].T @ F + Gl[i] @ dV[:, i + 1] - _ad(V[:, i + 1]).T @ (Gl[i] @ V[:, i + 1])
        tau[i] = F @ A[:, i]
    return tau


def MassMatrix(thetalist: Any, Mlist: Any, Glist: Any, Slist: Any) -> np.ndarray:
    """Joint-space mass matrix M(theta) (n, n): column i is InverseDynamics with ddth = e_i."""
    th = np.asarray(thetalist, dtype=float).reshape(-1)
    n = th.size
    zeros = np.zeros(n)
    return np.column_stack([InverseDynamics(th, zeros, np.eye(n)[i], np.zeros(3), np.zeros(6),
                                            Mlist, Glist, Slist) for i in range(n)])


def VelQuadraticForces(thetalist: Any, dthetalist: Any, Mlist: Any, Glist: Any,
                       Slist: Any) -> np.ndarray:
    """Coriolis and centripetal terms c(theta, dtheta) (n,)."""
    n = np.size(thetalist)
    return InverseDynamics(thetalist, dthetalist, np.zeros(n), np.zeros(3), np.zeros(6),
                           Mlist, Glist, Slist)


def GravityForces(thetalist: Any, g: Any, Mlist: Any, Glist: Any, Slist: Any) -> np.ndarray:
    """Joint forces/torques g(theta) (n,) needed to hold the arm against gravity ``g``."""
    n = np.size(thetalist)
    return InverseDynamics(thetalist, np.zeros(n), np.zeros(n), g, np.zeros(6),
                           Mlist, Glist, Slist)


def EndEffectorForces(thetalist: Any, Ftip: Any, Mlist: Any, Glist: Any,
                      Slist: Any) -> np.ndarray:
    """Joint forces/torques ``J^T(theta) Ftip`` (n,) for a tip wrench ``(m, f)`` in frame {n+1}."""
    n = np.size(thetalist)
    return InverseDynamics(thetalist, np.zeros(n), np.zeros(n), np.zeros(3), Ftip,
                           Mlist, Glist, Slist)


def ForwardDynamics(thetalist: Any, dthetalist: Any, taulist: Any, g: Any, Ftip: Any,
                    Mlist: Any, Glist: Any, Slist: Any) -> np.ndarray:
    """Joint accelerations (n,) ``M^-1 (tau - c - g(theta) - J^T Ftip)``."""
    n = np.size(thetalist)
    rhs = _vec(taulist, n, "taulist") - InverseDynamics(thetalist, dthetalist, np.zeros(n), g,
                                                         Ftip, Mlist, Glist, Slist)
    return np.linalg.solve(MassMatrix(thetalist, Mlist, Glist, Slist), rhs)


def EulerStep(thetalist: Any, dthetalist: Any, ddthetalist: Any,
              dt: float) -> tuple[np.ndarray, np.ndarray]:
    """One first-order Euler step: ``(theta + dt dtheta, dtheta + dt ddtheta)``."""
    th, dth = np.asarray(thetalist, dtype=float), np.asarray(dthetalist, dtype=float)
    return th + dt * dth, dth + dt * np.asarray(ddthetalist, dtype=float)


def InverseDynamicsTrajectory(thetamat: Any, dthetamat: Any, ddthetamat: Any, g: Any,
                              Ftipmat: Any, Mlist: Any, Glist: Any, Slist: Any) -> np.ndarray:
    """Joint forces/torques (N, n) along a trajectory given as (N, n) rows; Ftipmat (N, 6)."""
    th = np.atleast_2d(np.asarray(thetamat, dtype=float))
    dth, ddth = np.asarray(dthetamat, dtype=float), np.asarray(ddthetamat, dtype=float)
    F = np.asarray(Ftipmat, dtype=float)
    if dth.shape != th.shape or ddth.shape != th.shape or F.shape != (th.shape[0], 6):
        raise ValueError("InverseDynamicsTrajectory: thetamat, dthetamat, ddthetamat must be "
                         "(N, n) and Ftipmat (N, 6)")
    return np.array([InverseDynamics(th[k], dth[k], ddth[k], g, F[k], Mlist, Glist, Slist)
                     for k in range(th.shape[0])])


def ForwardDynamicsTrajectory(thetalist: Any, dthetalist: Any, taumat: Any, g: Any,
                              Ftipmat: Any, Mlist: Any, Glist: Any, Slist: Any, dt: float,
                              intRes: int) -> tuple[np.ndarray, np.ndarray]:
    """Simulate the arm under torques ``taumat`` (N, n) with Euler steps.

    Row k of the results is the state at time ``k dt`` (k = 0..N-1): row 0 is the initial
    state; between rows, ``tau`` and ``Ftip`` are held at row k and ``intRes`` Euler steps of
    ``dt / intRes`` are taken (the last rows of ``taumat``/``Ftipmat`` are not used).

    Returns
    -------
    thetamat, dthetamat : ndarray (N, n)
    """
    tau = np.atleast_2d(np.asarray(taumat, dtype=float))
    F = np.asarray(Ftipmat, dtype=float)
    if F.shape != (tau.shape[0], 6):
        raise ValueError(f"Ftipmat: expected shape ({tau.shape[0]}, 6), got {F.shape}")
    if int(intRes) < 1:
        raise ValueError(f"intRes must be a positive integer, got {intRes}")
    th = _vec(thetalist, tau.shape[1], "thetalist")
    dth = _vec(dthetalist, tau.shape[1], "dthetalist")
    thetamat, dthetamat = np.empty_like(tau), np.empty_like(tau)
    thetamat[0], dthetamat[0] = th, dth
    h = dt / int(intRes)
    for k in range(tau.shape[0] - 1):
        for _ in range(int(intRes)):
            dd = ForwardDynamics(th, dth, tau[k], g, F[k], Mlist, Glist, Slist)
            th, dth = EulerStep(th, dth, dd, h)
        thetamat[k + 1], dthetamat[k + 1] = th, dth
    return thetamat, dthetamat


# -- Chapter 11: robot control ----------------------------------------------------------------
def ComputedTorque(thetalist: Any, dthetalist: Any, eint: Any, g: Any, Mlist: Any, Glist: Any,
                   Slist: Any, thetalistd: Any, dthetalistd: Any, ddthetalistd: Any, Kp: float,
                   Ki: float, Kd: float) -> np.ndarray:
    """Computed-torque (PID + feed-forward) joint torques (n,) at the current instant.

    ``tau = M(th) (Kp e + Ki (eint + e) + Kd de) + InverseDynamics(th, dth, ddth_d, g, 0)``,
    ``e = th_d - th``, ``de = dth_d - dth`` (the integral uses ``eint + e`` as MR). The model
    (``g``, ``Mlist``, ``Glist``) is the controller's, possibly wrong.
    """
    th = np.asarray(thetalist, dtype=float)
    e = np.asarray(thetalistd, dtype=float) - th
    de = np.asarray(dthetalistd, dtype=float) - np.asarray(dthetalist, dtype=float)
    u = Kp * e + Ki * (np.asarray(eint, dtype=float) + e) + Kd * de
    return MassMatrix(th, Mlist, Glist, Slist) @ u + InverseDynamics(
        th, dthetalist, ddthetalistd, g, np.zeros(6), Mlist, Glist, Slist)


def SimulateControl(thetalist: Any, dthetalist: Any, g: Any, Ftipmat: Any, Mlist: Any,
                    Glist: Any, Slist: Any, thetamatd: Any, dthetamatd: Any, ddthetamatd: Any,
                    gtilde: Any, Mtildelist: Any, Gtildelist: Any, Kp: float, Ki: float,
                    Kd: float, dt: float, intRes: int) -> tuple[np.ndarray, np.ndarray]:
    """Computed-torque control of the arm along a reference, with a possibly wrong model.

    The plant uses ``g, Mlist, Glist``; the controller ``gtilde, Mtildelist, Gtildelist``;
    both share ``Slist``. For each reference row k: ``tau_k = ComputedTorque(...)`` held for
    ``intRes`` Euler steps of ``dt / intRes`` of the plant with ``Ftipmat[k]``; then
    ``eint += dt (th_d[k] - th)``. (MR also plots; plotting lives elsewhere in blocksim.)

    Returns
    -------
    taumat : ndarray (N, n)
        Commanded torques.
    thetamat : ndarray (N, n)
        Actual joint angles after each step (row k at time ``(k + 1) dt``).
    """
    thd = np.atleast_2d(np.asarray(thetamatd, dtype=float))
    dthd = np.asarray(dthetamatd, dtype=float)
    ddthd = np.asarray(ddthetamatd, dtype=float)
    F = np.asarray(Ftipmat, dtype=float)
    N, n = thd.shape
    if dthd.shape != thd.shape or ddthd.shape != thd.shape or F.shape != (N, 6):
        raise ValueError("SimulateControl: references must be (N, n) and Ftipmat (N, 6)")
    th = _vec(thetalist, n, "thetalist")
    dth = _vec(dthetalist, n, "dthetalist")
    eint = np.zeros(n)
    taumat, thetamat = np.zeros((N, n)), np.zeros((N, n))
    h = dt / int(intRes)
    for k in range(N):
        tau = ComputedTorque(th, dth, eint, gtilde, Mtildelist, Gtildelist, Slist, thd[k],
                             dthd[k], ddthd[k], Kp, Ki, Kd)
        for _ in range(int(intRes)):
            dd = ForwardDynamics(th, dth, tau, g, F[k], Mlist, Glist, Slist)
            th, dth = EulerStep(th, dth, dd, h)
        taumat[k], thetamat[k] = tau, th
        eint = eint + dt * (thd[k] - th)
    return taumat, thetamat
