"""Conversions between robot-model formats and :class:`~.serial_link.SerialLink`.

* Legacy matrices of the Scilab Robotics Toolbox and RTB (the Scilab toolbox's ``DH`` and
  ``DYN`` formats): the DH matrix, one row ``[alpha, A, theta, D(, sigma)]`` per link, and
  the DYN matrix, one row
  ``[alpha, A, theta, D, sigma, m, rx, ry, rz, Ixx, Iyy, Izz, Ixy, Iyz, Ixz, Jm(, G(, B(, Tc+(,
  Tc-))))]`` (16..20 columns; defaults G = 1, B = 0, Tc = [0, 0]). Note the column order
  (alpha, A, theta, D), unlike RTB's ``Link([theta, d, a, alpha])``. Both mean standard DH
  unless ``convention="modified"`` is given; sigma non-zero means prismatic.
* Modern Robotics (Lynch & Park): :func:`from_poe` (``M``, screw axes ``Slist`` 6 x n as columns
  ``(omega, v)``, angular first) and :func:`from_mr_dynamics` (``Mlist``, ``Glist``, ``Slist``);
  :func:`to_poe` and :func:`to_mr_dynamics` go back (§5.4). MR's gravity ``g`` is the
  gravitational acceleration, ``g = -robot.gravity``. MR models have no motor inertia or
  friction.

PoE models become fixed-transform links (:meth:`~.links.Link.from_transforms`): link ``i`` has
``pre`` = the frame, relative to the previous link frame at home, whose z axis is screw axis
``i`` (origin: the point of the axis closest to the world origin for a revolute joint, the
previous frame origin for a prismatic joint), ``post = I``, and ``tool`` carries the rest of
``M``.
"""

from __future__ import annotations

import numpy as np

from .layout import rotz, trans
from .links import Link
from .serial_link import SerialLink

__all__ = ["from_dh_matrix", "from_dyn_matrix", "from_mr_dynamics", "from_poe",
           "to_mr_dynamics", "to_poe"]


def _annotations(name, manufacturer, comment) -> dict:
    return dict(name=name, manufacturer=manufacturer, comment=comment)


def _matrix(x, name: str, widths: tuple[int, ...]) -> np.ndarray:
    m = np.asarray(x, dtype=float)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    if m.ndim != 2 or m.shape[1] not in widths or not np.all(np.isfinite(m)):
        raise ValueError(f"{name}: expected a finite matrix with {widths[0]}..{widths[-1]} "
                         f"columns, one row per link; got shape {np.shape(x)}")
    return m


def _legacy_link(row: np.ndarray, convention: str) -> Link:
    alpha, a, theta, d = row[:4]
    prismatic = row.shape[0] > 4 and row[4] != 0.0
    if prismatic:
        return Link(theta=theta, a=a, alpha=alpha, convention=convention)
    return Link(d=d, a=a, alpha=alpha, convention=convention)


def from_dh_matrix(dh, name: str = "noname", manufacturer: str = "", comment: str = "", *,
                   convention: str = "standard") -> SerialLink:
    """A kinematic robot from a legacy DH matrix (Scilab ``rt_robot(DH, ...)``).

    Parameters
    ----------
    dh : array (n, 4) or (n, 5)
        One row ``[alpha, A, theta, D(, sigma)]`` per link (rad, m, rad, m); sigma 0 revolute
        (default), non-zero prismatic.
    convention : {"standard", "modified"}
    """
    m = _matrix(dh, "from_dh_matrix", (4, 5))
    links = [_legacy_link(row, convention) for row in m]
    return SerialLink(links, **_annotations(name, manufacturer, comment))


def from_dyn_matrix(dyn, name: str = "noname", manufacturer: str = "", comment: str = "", *,
                    convention: str = "standard") -> SerialLink:
    """A robot with dynamics from a legacy DYN matrix (Scilab ``rt_robot(DYN, ...)``).

    Parameters
    ----------
    dyn : array (n, 16..20)
        Columns ``alpha, A, theta, D, sigma, m, rx, ry, rz, Ixx, Iyy, Izz, Ixy, Iyz, Ixz, Jm``
        and optionally ``G`` (default 1), ``B`` (default 0), ``Tc+`` and ``Tc-`` (default 0;
        with 19 columns ``Tc = [Tc+, -Tc+]``). Inertia entries are the tensor entries about the
        centre of mass in link-frame axes (``I[0, 1] = Ixy``).
    """
    m = _matrix(dyn, "from_dyn_matrix", tuple(range(16, 21)))
    links = []
    for row in m:
        link = _legacy_link(row, convention)
        link.m = row[5]
        link.r = row[6:9]
        link.I = row[9:15]
        link.Jm = row[15]
        if row.shape[0] > 16:
            link.G = row[16]
        if row.shape[0] > 17:
            link.B = row[17]
        if row.shape[0] > 18:
            link.Tc = row[18:20]
        links.append(link)
    return SerialLink(links, **_annotations(name, manufacturer, comment))


def _skew(w: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _inv(T: np.ndarray) -> np.ndarray:
    R, p = T[:3, :3], T[:3, 3]
    out = np.eye(4)
    out[:3, :3] = R.T
    out[:3, 3] = -R.T @ p
    return out


def _frame(z: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """A frame with the given z axis and origin; x is world x (or y) made orthogonal to z."""
    ref = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = ref - (ref @ z) * z
    x /= np.linalg.norm(x)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, np.cross(z, x), z, origin
    return T


def _transform(T, name: str) -> np.ndarray:
    M = np.array(T, dtype=float)
    if M.shape != (4, 4) or not np.all(np.isfinite(M)):
        raise ValueError(f"{name} must be a finite 4x4 homogeneous transform, got shape "
                         f"{np.shape(T)}")
    R = M[:3, :3]
    if not (np.allclose(R @ R.T, np.eye(3), atol=1e-6) and np.allclose(M[3], [0, 0, 0, 1])):
        raise ValueError(f"{name} is not a rigid-body transform")
    return M


def _screws(S, name: str) -> np.ndarray:
    s = np.asarray(S, dtype=float)
    if s.ndim == 1 and s.shape[0] == 6:
        s = s.reshape(6, 1)
    if s.ndim != 2 or s.shape[0] != 6 or not np.all(np.isfinite(s)):
        raise ValueError(f"{name} must be 6 x n, one screw axis (omega, v) per column; got "
                         f"shape {np.shape(S)}")
    return s


def _adjoint(T: np.ndarray) -> np.ndarray:
    """Adjoint of T acting on (omega, v) twists, (6, 6)."""
    R, p = T[:3, :3], T[:3, 3]
    Ad = np.zeros((6, 6))
    Ad[:3, :3] = R
    Ad[3:, :3] = _skew(p) @ R
    Ad[3:, 3:] = R
    return Ad


def from_poe(M, Slist=None, *, Blist=None, name: str = "noname", manufacturer: str = "",
             comment: str = "", gravity=None) -> SerialLink:
    """A kinematic robot from the product of exponentials ``T(q) = e^[S1 q1] ... e^[Sn qn] M``.

    Parameters
    ----------
    M : array (4, 4)
        End-effector pose at the home configuration (q = 0), world frame.
    Slist : array (6, n)
        Screw axes in the space frame at home, one column ``(omega, v)`` each: a revolute
        joint has ``|omega| = 1`` and pitch ``omega . v = 0``; a prismatic joint has
        ``omega = 0``, ``|v| = 1``.
    Blist : array (6, n), optional
        Body-frame screw axes instead of ``Slist`` (``S_i = Ad_M B_i``).
    gravity : array (3,), optional
        RTB-style gravity of the new robot (default ``[0, 0, 9.81]``).

    Returns
    -------
    SerialLink
        With fixed-transform links (no DH parameters), base = I.
    """
    Mh = _transform(M, "from_poe: M")
    if (Slist is None) == (Blist is None):
        raise ValueError("from_poe: give exactly one of Slist (space frame) or Blist (body frame)")
    S = (_screws(Slist, "from_poe: Slist") if Blist is None
         else _adjoint(Mh) @ _screws(Blist, "from_poe: Blist"))
    links = []
    prev = np.eye(4)
    for i in range(S.shape[1]):
        w, v = S[:3, i], S[3:, i]
        nw = np.linalg.norm(w)
        if abs(nw - 1.0) < 1e-6:
            w = w / nw
            if abs(w @ v) > 1e-9:
                raise ValueError(f"from_poe: screw axis {i} has pitch {w @ v:.3g} (a helical "
                                 f"joint); only revolute (pitch 0) and prismatic joints are "
                                 f"supported")
            F, sigma = _frame(w, np.cross(w, v)), 0
        elif nw < 1e-9 and abs(np.linalg.norm(v) - 1.0) < 1e-6:
            F, sigma = _frame(v / np.linalg.norm(v), prev[:3, 3]), 1
        else:
            raise ValueError(f"from_poe: screw axis {i} = {S[:, i].tolist()} is not normalised "
                             f"(|omega| = 1, or omega = 0 and |v| = 1)")
        links.append(Link.from_transforms(_inv(prev) @ F, sigma=sigma))
        prev = F
    return SerialLink(links, tool=_inv(prev) @ Mh, gravity=gravity,
                      **_annotations(name, manufacturer, comment))


def _home_frames(robot: SerialLink) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At q = 0 (offsets applied): joint-axis frames (n, 4, 4), link frames (n, 4, 4), EE pose."""
    arr = robot.arrays
    n = arr.n
    axes = np.empty((n, 4, 4))
    frames = np.empty((n, 4, 4))
    T = arr.base.copy()
    for i in range(n):
        axes[i] = T @ arr.A[i]
        v = arr.offset[i]
        J = rotz(v) if arr.sigma[i] == 0 else trans(0.0, 0.0, v)
        T = frames[i] = axes[i] @ J @ arr.B[i]
    return axes, frames, T @ arr.tool


def to_poe(robot: SerialLink) -> tuple[np.ndarray, np.ndarray]:
    """``(M, Slist)`` of ``robot`` (any convention) for ``FKinSpace(M, Slist, q)``.

    The home configuration is q = 0 in the robot's joint coordinates (offsets applied), base
    and tool included. ``Slist`` is 6 x n, columns ``(omega, v)``: revolute ``(z, -z x o)``,
    prismatic ``(0, z)`` with z the joint axis and o a point on it, world frame.
    """
    axes, _, M = _home_frames(robot)
    S = np.zeros((6, robot.n))
    for i, F in enumerate(axes):
        z, o = F[:3, 2], F[:3, 3]
        if robot.arrays.sigma[i] == 0:
            S[:3, i], S[3:, i] = z, -np.cross(z, o)
        else:
            S[3:, i] = z
    return M, S


def to_mr_dynamics(robot: SerialLink) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Mlist, Glist, Slist)`` for Modern Robotics' dynamics functions (seeds §5.4).

    ``Mlist`` (n + 1, 4, 4): centre-of-mass frames ``C_i = T_i(0) @ trans(r_i)`` (link
    orientation) relative to each other, the last one to the end effector; ``Glist``
    (n, 6, 6): ``blkdiag(I_i, m_i I3)``; ``Slist`` as :func:`to_poe`. Use ``g = -robot.gravity``.
    Motor inertia and friction have no MR counterpart and are left out.
    """
    _, frames, tip = _home_frames(robot)
    n = robot.n
    C = np.empty((n, 4, 4))
    Glist = np.zeros((n, 6, 6))
    dyn = robot.arrays.dyn
    links = robot.links
    for i in range(n):
        C[i] = frames[i] @ trans(*dyn[i, 1:4])
        L = links[i]
        Glist[i, :3, :3] = L.I
        Glist[i, 3:, 3:] = L.m * np.eye(3)
    Mlist = np.empty((n + 1, 4, 4))
    prev = np.eye(4)
    for i in range(n):
        Mlist[i] = _inv(prev) @ C[i]
        prev = C[i]
    Mlist[n] = _inv(prev) @ tip
    return Mlist, Glist, to_poe(robot)[1]


def from_mr_dynamics(Mlist, Glist, Slist, *, g=None, name: str = "noname",
                     manufacturer: str = "", comment: str = "") -> SerialLink:
    """A robot with dynamics from Modern Robotics' ``Mlist``, ``Glist``, ``Slist``.

    Parameters
    ----------
    Mlist : array (n + 1, 4, 4)
        ``M_{i-1,i}``: the centre-of-mass frame of link i relative to that of link i - 1 at
        home (link 0 = world), the last one the end-effector frame relative to link n.
    Glist : array (n, 6, 6)
        Spatial inertia of each link in its centre-of-mass frame, ``blkdiag(I_b, m I3)``
        ((omega, v) order).
    Slist : array (6, n)
        Space-frame screw axes (columns).
    g : array (3,), optional
        MR gravitational acceleration (e.g. ``[0, 0, -9.8]``); the robot's RTB-style gravity is
        ``-g``. Default: gravity ``[0, 0, 9.81]``.

    Returns
    -------
    SerialLink
        Fixed-transform links with m, r (centre of mass in the link frame) and I (link-frame
        axes) converted from the centre-of-mass frames; Jm = B = Tc = 0, G = 1.
    """
    Ms = np.asarray(Mlist, dtype=float)
    Gs = np.asarray(Glist, dtype=float)
    S = _screws(Slist, "from_mr_dynamics: Slist")
    n = S.shape[1]
    if Ms.shape != (n + 1, 4, 4):
        raise ValueError(f"from_mr_dynamics: Mlist must hold n + 1 = {n + 1} 4x4 transforms "
                         f"(the last one to the end effector), got shape {Ms.shape}")
    if Gs.shape != (n, 6, 6):
        raise ValueError(f"from_mr_dynamics: Glist must hold n = {n} 6x6 spatial inertias, "
                         f"got shape {Gs.shape}")
    C = np.empty((n, 4, 4))
    T = np.eye(4)
    for i in range(n):
        T = T @ _transform(Ms[i], f"from_mr_dynamics: Mlist[{i}]")
        C[i] = T
    M = T @ _transform(Ms[n], f"from_mr_dynamics: Mlist[{n}]") if n else Ms[0]
    robot = from_poe(M, S, name=name, manufacturer=manufacturer, comment=comment,
                     gravity=None if g is None else -np.asarray(g, dtype=float))
    _, frames, _ = _home_frames(robot)
    links = robot.links
    for i in range(n):
        G = Gs[i]
        m = G[3, 3]
        if not (np.allclose(G[3:, 3:], m * np.eye(3), atol=1e-9 * max(1.0, abs(m)))
                and np.allclose(G[:3, 3:], 0.0, atol=1e-12) and np.allclose(G[3:, :3], 0.0,
                                                                          atol=1e-12)):
            raise ValueError(f"from_mr_dynamics: Glist[{i}] must be blkdiag(I_b, m I3) in the "
                             f"centre-of-mass frame")
        X = _inv(frames[i]) @ C[i]
        R = X[:3, :3]
        link = links[i]
        link.m = m
        link.r = X[:3, 3]
        link.I = R @ G[:3, :3] @ R.T
        robot.set_link(i, link)
    return robot
