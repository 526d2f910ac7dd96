"""A robot as a kinematic tree: a base link and bodies joined by fixed, revolute or prismatic
joints (the URDF model, and SPART's robot model (Virgili-Llop et al.)).

Frames and conventions
----------------------
Every body (link) has a frame. Body ``k`` hangs from its ``parent`` (``-1`` = the base link)
by a joint: the **joint frame** is ``T_parent @ origin`` and the body's frame is

    T_k = T_parent @ origin_k @ J(axis_k, q)

with ``J`` a rotation by ``q`` about ``axis_k`` (revolute, rad) or a translation ``axis_k * q``
(prismatic, m); a fixed joint has ``J = I`` and no coordinate. ``axis_k`` is a unit vector in
the joint frame. This is URDF's convention (``<origin xyz rpy>``, ``<axis xyz>``), and SPART's
``joints(i).T`` / ``axis``.

Joint type codes are SPART's: ``0`` fixed, ``1`` revolute (URDF ``revolute`` and
``continuous``), ``2`` prismatic. The joint coordinates ``q`` are the movable joints in body
order (``qindex[k]`` is body ``k``'s coordinate, ``-1`` for a fixed joint).

Inertia: ``mass`` (kg), ``com`` the centre of mass in the body frame (m), ``inertia`` the 3x3
inertia tensor about the centre of mass **in body-frame axes** (kg m^2; a URDF ``<inertial>``
with an ``rpy`` is rotated into the body axes when read). ``armature`` (kg m^2 or kg) is a
rotor inertia added to the joint's own diagonal entry of the inertia matrix (RTB's
``G^2 Jm``); URDF has none (0).

Bodies are stored in topological order: a parent always comes before its children.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["FIXED", "PRISMATIC", "REVOLUTE", "Body", "TreeModel", "rpy_to_matrix", "transform"]

FIXED, REVOLUTE, PRISMATIC = 0, 1, 2
_TYPE_NAMES = {FIXED: "fixed", REVOLUTE: "revolute", PRISMATIC: "prismatic"}
_EYE3 = np.eye(3)
_ROW3 = np.array([0.0, 0.0, 0.0, 1.0])


def rpy_to_matrix(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw (rad) to a rotation matrix ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``, (3, 3).

    This is SPART's ``Angles321_DCM(rpy)'`` (seed notes §5.2).
    """
    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def transform(xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Homogeneous transform (4, 4) of a URDF ``<origin xyz rpy>`` (m, rad)."""
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(rpy)
    T[:3, 3] = np.asarray(xyz, dtype=float)
    return T


def joint_motion(jtype: int, axis: np.ndarray, q: float) -> np.ndarray:
    """The joint's motion ``J(axis, q)`` (4, 4): rotation about / translation along ``axis``."""
    T = np.eye(4)
    if jtype == REVOLUTE:
        x, y, z = axis
        c, s = np.cos(q), np.sin(q)
        C = 1.0 - c
        T[:3, :3] = [
            [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
        ]
    elif jtype == PRISMATIC:
        T[:3, 3] = np.asarray(axis) * q
    return T


def _plain(value) -> str:
    """A number as the user wrote it (``5``, not ``np.int64(5)``), anything else by repr."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return f"{value:g}" if isinstance(value, (float, np.floating)) else str(int(value))
    return repr(value)


def _inertia(I, who: str) -> np.ndarray:  # noqa: E741
    M = np.array(I, dtype=float).reshape(3, 3)
    # np.allclose(M, M.T, atol=1e-12) written out (a tenth of its cost, once per body)
    if not np.isfinite(M).all() or not (np.abs(M - M.T) <= 1e-12 + 1e-5 * np.abs(M.T)).all():
        raise ValueError(f"{who}: inertia must be a finite symmetric 3x3 matrix, got {M.tolist()}")
    if np.linalg.eigvalsh(M)[0] < -1e-9 * max(1.0, np.abs(M).max()):
        raise ValueError(f"{who}: inertia must be positive semi-definite, got {M.tolist()}")
    return M


@dataclass(frozen=True, eq=False)
class Body:
    """One link of a :class:`TreeModel` with the joint that carries it.

    Attributes
    ----------
    name : str
        Link name.
    parent : int
        Index of the parent body, ``-1`` for the base link.
    joint : str
        Name of the joint from the parent.
    jtype : int
        0 fixed, 1 revolute, 2 prismatic.
    axis : float64 (3,)
        Unit joint axis in the joint frame.
    origin : float64 (4, 4)
        Parent frame to joint frame (the pose of the body frame at q = 0).
    mass : float
        kg.
    com : float64 (3,)
        Centre of mass in the body frame (m).
    inertia : float64 (3, 3)
        About the centre of mass, body-frame axes (kg m^2).
    qlim : float64 (2,)
        Joint limits [lower, upper] (rad or m); ``-inf, inf`` if none.
    armature : float
        Rotor inertia on the joint coordinate (kg m^2 or kg), default 0.
    """

    name: str
    parent: int
    joint: str
    jtype: int
    axis: np.ndarray
    origin: np.ndarray
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    qlim: np.ndarray = field(default_factory=lambda: np.array([-np.inf, np.inf]))
    armature: float = 0.0

    def __post_init__(self) -> None:
        who = f"body {self.name!r}"
        if self.jtype not in _TYPE_NAMES:
            raise ValueError(
                f"{who}: joint type must be 0 (fixed), 1 (revolute) or 2 "
                f"(prismatic), got {_plain(self.jtype)}"
            )
        axis = np.array(self.axis, dtype=float).reshape(3)
        norm = np.linalg.norm(axis)
        if self.jtype != FIXED and not norm > 0:
            raise ValueError(f"{who}: joint {self.joint!r} has a zero axis")
        origin = np.array(self.origin, dtype=float).reshape(4, 4)
        R = origin[:3, :3]
        # np.allclose(R @ R.T, I, atol=1e-9) and the last row exactly (0, 0, 0, 1), written out
        if not (
            (np.abs(R @ R.T - _EYE3) <= 1e-9 + 1e-5 * _EYE3).all()
            and (np.abs(origin[3] - _ROW3) <= 1e-8 + 1e-5 * _ROW3).all()
        ):
            raise ValueError(f"{who}: origin is not a rigid-body transform")
        if not (np.isfinite(self.mass) and self.mass >= 0):
            raise ValueError(f"{who}: mass must be finite and >= 0 kg, got {float(self.mass):g}")
        object.__setattr__(self, "axis", axis / norm if norm > 0 else axis)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "mass", float(self.mass))
        object.__setattr__(self, "com", np.array(self.com, dtype=float).reshape(3))
        object.__setattr__(self, "inertia", _inertia(self.inertia, who))
        object.__setattr__(self, "qlim", np.array(self.qlim, dtype=float).reshape(2))
        object.__setattr__(self, "armature", float(self.armature))

    @property
    def type_name(self) -> str:
        """``"fixed"``, ``"revolute"`` or ``"prismatic"``."""
        return _TYPE_NAMES[self.jtype]


@dataclass(frozen=True, eq=False)
class TreeModel:
    """A kinematic tree: a base link and :class:`Body` objects in topological order.

    Attributes
    ----------
    name : str
    base : Body
        The base (root) link: only ``name``, ``mass``, ``com`` and ``inertia`` are used
        (``parent = -1``, fixed, identity origin).
    bodies : tuple of Body
        Bodies 0..n-1; ``bodies[k].parent < k``.
    """

    name: str
    base: Body
    bodies: tuple[Body, ...]

    def __post_init__(self) -> None:
        bodies = tuple(self.bodies)
        object.__setattr__(self, "bodies", bodies)
        names = [self.base.name] + [b.name for b in bodies]
        if len(set(names)) != len(names):
            raise ValueError(f"TreeModel {self.name!r}: link names must be unique, got {names}")
        kids: list[list[int]] = [[] for _ in range(len(bodies) + 1)]  # [parent + 1]
        for k, b in enumerate(bodies):
            if not -1 <= b.parent < k:
                raise ValueError(
                    f"TreeModel {self.name!r}: body {k} ({b.name!r}) has parent "
                    f"{b.parent}; bodies must be in topological order"
                )
            kids[b.parent + 1].append(k)
        # the children of every body, built once: children() is called per body by the
        # conversions (a scan per call made tree_to_serial quadratic in the number of links)
        object.__setattr__(self, "_children", tuple(tuple(c) for c in kids))

    # ---------------------------------------------------------------------------- structure
    @property
    def n(self) -> int:
        """Number of bodies (links other than the base, fixed joints included)."""
        return len(self.bodies)

    @property
    def nq(self) -> int:
        """Number of joint coordinates (movable joints)."""
        return sum(1 for b in self.bodies if b.jtype != FIXED)

    @property
    def qindex(self) -> np.ndarray:
        """int64 (n,): the coordinate index of each body's joint, -1 for a fixed joint."""
        out = np.full(self.n, -1, dtype=np.int64)
        k = 0
        for i, b in enumerate(self.bodies):
            if b.jtype != FIXED:
                out[i] = k
                k += 1
        return out

    @property
    def joint_names(self) -> list[str]:
        """Names of the movable joints, in coordinate order."""
        return [b.joint for b in self.bodies if b.jtype != FIXED]

    @property
    def link_names(self) -> list[str]:
        """The base link's name, then the bodies' names."""
        return [self.base.name] + [b.name for b in self.bodies]

    @property
    def qlim(self) -> np.ndarray:
        """Joint limits of the movable joints, (nq, 2)."""
        return np.array([b.qlim for b in self.bodies if b.jtype != FIXED]).reshape(self.nq, 2)

    @property
    def mass(self) -> float:
        """Total mass (kg), base included."""
        return self.base.mass + sum(b.mass for b in self.bodies)

    def index(self, link: str | int) -> int:
        """Body index of a link name (``-1`` for the base link), or an index checked."""
        if isinstance(link, (int, np.integer)):
            if not -1 <= int(link) < self.n:
                raise ValueError(
                    f"TreeModel {self.name!r}: body index {link} out of range -1..{self.n - 1}"
                )
            return int(link)
        if link == self.base.name:
            return -1
        for k, b in enumerate(self.bodies):
            if b.name == link:
                return k
        raise ValueError(
            f"TreeModel {self.name!r}: no link {link!r}; links: {', '.join(self.link_names)}"
        )

    def path(self, link: str | int) -> list[int]:
        """Body indices from the base to ``link`` (excluding the base), in order."""
        k = self.index(link)
        out = []
        while k >= 0:
            out.append(k)
            k = self.bodies[k].parent
        return out[::-1]

    def children(self, k: int) -> list[int]:
        """Indices of the bodies whose parent is ``k`` (``-1``: the base link)."""
        if not -1 <= k < self.n:
            return []
        return list(self._children[k + 1])

    def chain(self, tip: str | int, *, keep_fixed: bool = True) -> TreeModel:
        """The sub-tree of the path base -> ``tip`` (a serial chain; same frames).

        Bodies fixed (any depth) to a body of the path are kept when ``keep_fixed`` (their mass
        still counts, e.g. a gripper hanging from the flange); branches that hang by a movable
        joint (e.g. gripper fingers) are dropped.
        """
        path = self.path(tip)
        keep = set(path)
        if keep_fixed:
            changed = True
            while changed:
                changed = False
                for k, b in enumerate(self.bodies):
                    if k not in keep and b.jtype == FIXED and (b.parent in keep or b.parent < 0):
                        keep.add(k)
                        changed = True
        order = sorted(keep)
        new_index = {old: i for i, old in enumerate(order)}
        new_index[-1] = -1
        bodies = tuple(
            replace(self.bodies[k], parent=new_index[self.bodies[k].parent]) for k in order
        )
        return TreeModel(self.name, self.base, bodies)

    def _q(self, q) -> np.ndarray:
        v = np.asarray(q, dtype=float).ravel()
        if v.shape != (self.nq,):
            raise ValueError(
                f"TreeModel {self.name!r}: q must have {self.nq} elements (one per "
                f"movable joint: {self.joint_names}), got shape {np.shape(q)}"
            )
        return v

    # ---------------------------------------------------------------------------- kinematics
    def fkine_all(self, q, base=None) -> np.ndarray:
        """Poses of every link frame in the world frame, (n + 1, 4, 4): base first.

        Parameters
        ----------
        q : array (nq,)
            Joint coordinates (rad or m).
        base : array (4, 4), optional
            Pose of the base link frame in the world (default identity).
        """
        v = self._q(q)
        out = np.empty((self.n + 1, 4, 4))
        out[0] = np.eye(4) if base is None else np.asarray(base, dtype=float)
        qi = self.qindex
        for k, b in enumerate(self.bodies):
            qk = v[qi[k]] if qi[k] >= 0 else 0.0
            out[k + 1] = out[b.parent + 1] @ b.origin @ joint_motion(b.jtype, b.axis, qk)
        return out

    def fkine(self, q, link: str | int | None = None, base=None) -> np.ndarray:
        """Pose (4, 4) of one link frame (default: the last body) in the world frame."""
        k = self.n - 1 if link is None else self.index(link)
        return self.fkine_all(q, base)[k + 1]

    def describe(self) -> str:
        """One line per link: name, parent, joint name and type, mass."""
        rows = [
            f"TreeModel {self.name!r}: {self.n} bodies, {self.nq} joint coordinates, "
            f"{self.mass:.6g} kg",
            f"  base {self.base.name!r} {self.base.mass:.6g} kg",
        ]
        names = self.link_names
        for b in self.bodies:
            rows.append(
                f"  {b.name!r} <- {names[b.parent + 1]!r} by {b.joint!r} "
                f"({b.type_name}) {b.mass:.6g} kg"
            )
        return "\n".join(rows)

    def __repr__(self) -> str:
        return (
            f"TreeModel({self.name!r}, base={self.base.name!r}, {self.n} bodies, "
            f"{self.nq} coordinates)"
        )
