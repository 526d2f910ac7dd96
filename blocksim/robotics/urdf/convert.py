"""Conversions between the tree model and blocksim's serial-link arms.

* :func:`tree_to_arrays` / :func:`tree_to_serial`: the chain from the base link to a tip link
  of a :class:`~.model.TreeModel` as :class:`~blocksim.robotics.arm.ArmArrays` /
  :class:`~blocksim.robotics.arm.SerialLink` (fkine, jacob0, rne, the arm blocks).
* :func:`serial_to_tree`: a SerialLink (standard DH, modified DH or fixed transforms) as a
  TreeModel (SPART's ``DH_Serial2robot``), for the floating-base numerics.

Serial form of a tree chain
---------------------------
A movable joint with joint frame ``F`` (the parent frame times the joint ``origin``) and unit
axis ``a`` moves its body by ``F @ J(a, q)``. With ``Ra`` a rotation taking z to ``a``,
``J(a, q) = Ra Jz(q) Ra^T`` (rotation about or translation along z), so the arm layout's
``A @ Jz(q) @ B`` takes ``A = (fixed transforms since the previous movable body) @ origin @ Ra``
and ``B = Ra^T``: link frame ``i`` of the arm **is** the URDF frame of the ``i``-th movable body.
Bodies fixed to a chain link (fixed joints, any depth) are lumped into it (mass, centre of
mass, inertia by the parallel-axis theorem); fixed bodies after the last movable joint up to the
tip become the tool; branches that hang from the chain by a movable joint are left out.
"""

from __future__ import annotations

import numpy as np

from .model import FIXED, PRISMATIC, REVOLUTE, Body, TreeModel

__all__ = ["lumped_inertia", "serial_to_tree", "tree_to_arrays", "tree_to_serial"]


def _z_to(axis: np.ndarray) -> np.ndarray:
    """A homogeneous rotation (4, 4) whose z axis is ``axis`` (unit)."""
    z = np.asarray(axis, dtype=float)
    helper = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    T = np.eye(4)
    T[:3, :3] = np.column_stack((x, np.cross(z, x), z))
    return T


def lumped_inertia(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia about it of rigidly joined bodies in one frame.

    Parameters
    ----------
    parts : iterable of (mass, com (3,), inertia (3, 3), T (4, 4))
        Each body's inertia in its own frame, ``T`` its frame in the common frame.

    Returns
    -------
    mass (kg), com (3,) m, inertia (3, 3) kg m^2 about the common centre of mass.
    """
    items = [(m, T[:3, :3] @ c + T[:3, 3], T[:3, :3] @ I @ T[:3, :3].T) for m, c, I, T in parts]  # noqa: E741
    mass = sum(m for m, _, _ in items)
    if mass <= 0:
        return 0.0, np.zeros(3), sum((J for _, _, J in items), np.zeros((3, 3)))
    com = sum(m * c for m, c, _ in items) / mass
    inertia = np.zeros((3, 3))
    for m, c, I in items:  # noqa: E741
        d = c - com
        inertia += I + m * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, com, inertia


def _fixed_descendants(tree: TreeModel, k: int) -> list[tuple[int, np.ndarray]]:
    """Bodies fixed (any depth) to body ``k``, with their frames in body ``k``'s frame."""
    out = []
    stack = [(c, tree.bodies[c].origin) for c in tree.children(k)]
    while stack:
        c, T = stack.pop()
        if tree.bodies[c].jtype != FIXED:
            continue
        out.append((c, T))
        stack.extend((g, T @ tree.bodies[g].origin) for g in tree.children(c))
    return out


def tree_to_arrays(tree: TreeModel, tip: str | int | None = None, *, gravity=None):
    """The chain base -> ``tip`` of ``tree`` as :class:`~blocksim.robotics.arm.ArmArrays`.

    Parameters
    ----------
    tree : TreeModel
    tip : str or int, optional
        Last link of the chain (default: the last body in the tree's order).
    gravity : array (3,), optional
        RTB convention (upward acceleration equivalent to gravity), default [0, 0, 9.81].

    Returns
    -------
    ArmArrays
        One link per movable joint on the chain; dyn rows with the lumped inertia of each
        link, ``G = 1``, the joints' ``armature`` as ``Jm``, no friction; ``tool`` the fixed
        transform from the last movable body to ``tip``.
    """
    from blocksim.robotics.arm.layout import DYN_COLUMNS, ArmArrays

    path = tree.path(tree.n - 1 if tip is None else tip)
    movable = [k for k in path if tree.bodies[k].jtype != FIXED]
    if not movable:
        raise ValueError(
            f"tree_to_arrays: the chain from {tree.base.name!r} to {tip!r} of "
            f"{tree.name!r} has no movable joint"
        )
    n = len(movable)
    A = np.empty((n, 4, 4))
    B = np.empty((n, 4, 4))
    sigma = np.zeros(n, dtype=np.int64)
    dyn = np.zeros((n, len(DYN_COLUMNS)))
    pending = np.eye(4)  # fixed transforms since the last movable link frame
    i = -1
    for k in path:
        b = tree.bodies[k]
        if b.jtype == FIXED:
            pending = pending @ b.origin
            continue
        i += 1
        Ra = _z_to(b.axis)
        A[i] = pending @ b.origin @ Ra
        B[i] = Ra.T
        sigma[i] = 1 if b.jtype == PRISMATIC else 0
        parts = [(b.mass, b.com, b.inertia, np.eye(4))]
        parts += [
            (tree.bodies[c].mass, tree.bodies[c].com, tree.bodies[c].inertia, T)
            for c, T in _fixed_descendants(tree, k)
        ]
        m, c, I = lumped_inertia(parts)  # noqa: E741
        dyn[i, :10] = (m, *c, I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[1, 2], I[0, 2])
        dyn[i, 10] = b.armature
        dyn[i, 11] = 1.0
        pending = np.eye(4)
    return ArmArrays(
        sigma=sigma,
        offset=np.zeros(n),
        A=A,
        B=B,
        base=np.eye(4),
        tool=pending,
        dyn=np.ascontiguousarray(dyn),
        gravity=(
            np.array([0.0, 0.0, 9.81])
            if gravity is None
            else np.asarray(gravity, dtype=float).reshape(3).copy()
        ),
        qlim=np.array([tree.bodies[k].qlim for k in movable]).reshape(n, 2),
    )


def tree_to_serial(
    tree: TreeModel, tip: str | int | None = None, *, gravity=None, name: str | None = None
):
    """The chain base -> ``tip`` as a :class:`~blocksim.robotics.arm.SerialLink` (fixed-
    transform links); see :func:`tree_to_arrays`. Named pose ``qz`` (zeros)."""
    from blocksim.robotics.arm import SerialLink

    arrays = tree_to_arrays(tree, tip, gravity=gravity)
    return SerialLink(
        arrays,
        name=tree.name if name is None else name,
        comment=f"from URDF tree {tree.name!r}",
        poses={"qz": np.zeros(arrays.n)},
    )


def serial_to_tree(
    robot, *, base_mass: float = 0.0, base_inertia=None, name: str | None = None
) -> TreeModel:
    """A SerialLink (or ArmArrays) as a :class:`~.model.TreeModel` (SPART ``DH_Serial2robot``).

    The arm's layout ``T_i = T_{i-1} A_i J(q_i + offset_i) B_i`` becomes bodies whose frames
    are ``T_{i-1} A_i J(q_i + offset_i)``: body ``i`` has the origin
    ``B_{i-1} A_i J(offset_i)`` (``base @ A_1 J(offset_1)`` for the first; rotations about, or
    translations along, one axis commute, so the offset moves into the origin and the tree's
    q equals the arm's q), axis z, and the link's centre of mass and inertia moved through
    ``B_i``. A massless fixed body ``"tool"`` carries ``B_n @ tool``, so the tree's last body
    is the arm's tool frame. Motor inertia becomes the joint armature ``G^2 Jm``; friction is
    not represented.

    Parameters
    ----------
    robot : SerialLink or ArmArrays
    base_mass : float
        Mass of the base link (kg), default 0 (a fixed base does not need one).
    base_inertia : array (3, 3), optional
        Base inertia about its centre of mass (kg m^2), default zero.
    """
    arrays = getattr(robot, "arrays", robot)
    from blocksim.robotics.arm.layout import GR, IXX, IXY, IXZ, IYY, IYZ, IZZ, JM, RX, RZ, M

    bodies = []
    prev_B = arrays.base
    for i in range(arrays.n):
        row = arrays.dyn[i]
        sigma = int(arrays.sigma[i])
        Joff = np.eye(4)
        if sigma == 0:
            c, s = np.cos(arrays.offset[i]), np.sin(arrays.offset[i])
            Joff[:2, :2] = [[c, -s], [s, c]]
        else:
            Joff[2, 3] = arrays.offset[i]
        Bi = arrays.B[i]
        I_link = np.array(
            [
                [row[IXX], row[IXY], row[IXZ]],
                [row[IXY], row[IYY], row[IYZ]],
                [row[IXZ], row[IYZ], row[IZZ]],
            ]
        )
        R = Bi[:3, :3]
        bodies.append(
            Body(
                name=f"link{i + 1}",
                parent=i - 1,
                joint=f"joint{i + 1}",
                jtype=PRISMATIC if sigma else REVOLUTE,
                axis=(0.0, 0.0, 1.0),
                origin=prev_B @ arrays.A[i] @ Joff,
                mass=row[M],
                com=R @ row[RX : RZ + 1] + Bi[:3, 3],
                inertia=R @ I_link @ R.T,
                qlim=arrays.qlim[i],
                armature=row[GR] ** 2 * row[JM],
            )
        )
        prev_B = Bi
    bodies.append(
        Body("tool", arrays.n - 1, "tool_joint", FIXED, (0, 0, 1.0), prev_B @ arrays.tool)
    )
    base = Body(
        "base",
        -1,
        "",
        FIXED,
        (0, 0, 1.0),
        np.eye(4),
        base_mass,
        np.zeros(3),
        np.zeros((3, 3)) if base_inertia is None else base_inertia,
    )
    return TreeModel(
        name if name is not None else getattr(robot, "name", "arm"), base, tuple(bodies)
    )
