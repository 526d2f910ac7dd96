"""Blocks for robots on a floating base (a manipulator on a spacecraft): dynamics, kinematics and
the base-inclusive end-effector Jacobian (after SPART, Virgili-Llop et al.).

Conventions at the ports (blocksim's, RTB order): the base pose is the (4, 4) pose of the base
link frame in the world; the base twist is ``[v0; omega0]`` (6,): the velocity of the base
**centre of mass** and the angular velocity, world frame; the base wrench is ``[f; n]`` (6,):
force and torque about the base centre of mass, world frame (thrusters, reaction wheels).
Joint coordinates in the tree model's order (its movable joints). Inside, the numerics use
SPART's ``[omega; v]`` (:mod:`blocksim.robotics.floating`).

The robot parameter is a :class:`~blocksim.robotics.floating.FloatingBase`, a
:class:`~blocksim.robotics.urdf.TreeModel` (e.g. ``read_urdf(...)``, or ``{"urdf": path}`` in a
diagram file) or a :class:`~blocksim.robotics.arm.SerialLink` (converted with
``serial_to_tree``; give ``base_mass`` and ``base_inertia`` for a free base).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.arm.arm_params import (
    EMPTY,
    check_bool,
    check_choice,
    check_real,
    check_vector,
    joint_port,
    param_array,
    signal,
)
from blocksim.blocks.floating import kernels as fk
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.floating.state import rot_to_quat

__all__ = ["EndEffectorJacobian", "FloatingBaseDynamics", "FloatingBaseKinematics"]


def _robot(owner: str, robot: Any, base_mass: Any, base_inertia: Any) -> FloatingBase:
    from blocksim.robotics.arm import SerialLink
    from blocksim.robotics.urdf import TreeModel, serial_to_tree

    if isinstance(robot, FloatingBase):
        tree = robot.tree
    elif isinstance(robot, TreeModel):
        tree = robot
    elif isinstance(robot, SerialLink):
        m = check_real(owner, "base_mass", 0.0 if base_mass is None else base_mass,
                       nonnegative=True)  # fmt: skip
        inertia = np.zeros(9) if base_inertia is None else base_inertia
        I3 = np.array(inertia, dtype=float)
        if I3.shape == (3,):
            I3 = np.diag(I3)
        tree = serial_to_tree(robot, base_mass=m, base_inertia=I3.reshape(3, 3))
    else:
        raise BlockParameterError(
            f"{owner}: parameter 'robot' must be a FloatingBase, a TreeModel (read_urdf) or a "
            f"SerialLink, got {type(robot).__name__}")  # fmt: skip
    if tree.nq == 0:
        raise BlockParameterError(f"{owner}: the robot {tree.name!r} has no movable joint")
    return FloatingBase(tree)


def _tool(owner: str, tool: Any) -> np.ndarray:
    T = np.eye(4) if tool is None else np.array(tool, dtype=float)
    if T.shape != (4, 4) or not np.all(np.isfinite(T)):
        raise BlockParameterError(f"{owner}: parameter 'tool' must be a 4x4 transform, got "
                                  f"shape {T.shape}")  # fmt: skip
    return T


def _link(owner: str, robot: FloatingBase, ee: Any) -> int:
    if ee is None:
        return robot.n
    try:
        return robot.link(ee)
    except ValueError as exc:
        raise BlockParameterError(f"{owner}: parameter 'ee': {exc}") from None

#: the inputs the output kernel does not read (it depends on the state only), typed as the
#: generated code passes inputs (writable arrays): numba then compiles the kernel once
_UNREAD = np.zeros(0)


class FloatingBaseDynamics(Block):
    """A robot on a free-floating base as a continuous plant (SPART ``FD``).

    Equations: ``H(x) [t0dot; qdd] = [w0; tau] - C(x) u + weights``, with ``H`` the generalized
    inertia (base and joints), ``C u`` the velocity-product forces, ``u = [t0; qd]``; the base
    pose integrates its twist (``r0' = v0``, ``quat' = 1/2 [0, omega0] quat``). With
    ``fixed_base=True`` the base is held (its twist stays zero) and only the joints move: the
    fixed-base dynamics of the arm.

    Parameters
    ----------
    robot : FloatingBase, TreeModel or SerialLink
        The robot; the base link's mass and inertia are the spacecraft's.
    q0, qd0 : array_like (nq,), optional
        Initial joint coordinates and rates (default zeros).
    base0 : array_like (4, 4), optional
        Initial pose of the base link frame in the world (default identity).
    twist0 : array_like (6,), optional
        Initial base twist ``[v0; omega0]`` (m/s, rad/s; world frame, v0 of the base centre of
        mass); default zero.
    fixed_base : bool
        Hold the base (default False: free floating).
    gravity : array_like (3,), optional
        Upward-equivalent gravity (RTB), default ``[0, 0, 0]`` (orbit).
    base_mass, base_inertia : optional
        Only for a SerialLink robot: base mass (kg) and inertia (3,) or (3, 3) (kg m^2).

    Inputs
    ------
    tau : ndarray (nq,)
        Joint torques/forces (N m or N).
    wrench : ndarray (6,)
        Base wrench ``[f; n]`` (N, N m), world frame, about the base centre of mass.

    Outputs
    -------
    q, qd : ndarray (nq,)
        Joint coordinates and rates.
    base : ndarray (4, 4)
        Pose of the base link frame in the world.
    twist : ndarray (6,)
        Base twist ``[v0; omega0]`` (world frame).

    States
    ------
    r0 (3), quat (4), q (nq), v0 (3), omega0 (3), qd (nq) : continuous
        Base centre of mass, base orientation quaternion ``[s, vx, vy, vz]``, joint
        coordinates, base twist, joint rates.
    """

    feedthrough = {"q": (), "qd": (), "base": (), "twist": ()}

    def __init__(self, robot: Any, q0: Any = None, qd0: Any = None, base0: Any = None,
                 twist0: Any = None, fixed_base: bool = False, gravity: Any = None,
                 base_mass: Any = None, base_inertia: Any = None) -> None:  # fmt: skip
        super().__init__()
        owner = type(self).__name__
        self.robot = _robot(owner, robot, base_mass, base_inertia)
        nq = self.robot.nq
        self._fixed = check_bool(owner, "fixed_base", fixed_base)
        g = check_vector(owner, "gravity", gravity, 3, np.zeros(3))
        T0 = _tool(owner, base0).copy()
        R0 = T0[:3, :3]
        if not np.allclose(R0 @ R0.T, np.eye(3), atol=1e-9):
            raise BlockParameterError(f"{owner}: parameter 'base0' is not a rigid transform")
        tw = check_vector(owner, "twist0", twist0, 6, np.zeros(6))
        if self._fixed and np.any(tw):
            raise BlockParameterError(f"{owner}: a fixed base (fixed_base=True) needs twist0 = 0")
        r0 = T0[:3, 3] + R0 @ self.robot.tree.base.com
        q_init = check_vector(owner, "q0", q0, nq, np.zeros(nq))
        H = self.robot.inertia_matrix(self.robot.kinematics(R0, r0, q_init))
        if self._fixed:
            H = H[6:, 6:]
        if np.linalg.eigvalsh(H)[0] <= 1e-12 * max(1.0, np.abs(H).max()):
            raise BlockParameterError(
                f"{owner}: the robot {self.robot.tree.name!r} has a singular inertia matrix "
                f"(bodies without mass or inertia); give the links masses and inertias, and "
                f"for a free base base_mass and base_inertia (a SerialLink) or fixed_base=True"
            )
        x0 = np.concatenate([r0, rot_to_quat(R0), q_init,
                             tw, check_vector(owner, "qd0", qd0, nq, np.zeros(nq))])  # fmt: skip
        names = (
            ["r0x", "r0y", "r0z", "qs", "qx", "qy", "qz"]
            + [f"q{i}" for i in range(nq)]
            + ["v0x", "v0y", "v0z", "w0x", "w0y", "w0z"]
            + [f"qd{i}" for i in range(nq)]
        )
        self.set_state(x0, names=names)
        self.set_ports(
            inputs=(joint_port("tau", nq, "joint torques/forces (N m or N)"),
                    Port("wrench", shape=(6,), doc="base wrench [f; n] (N, N m), world")),
            outputs=(joint_port("q", nq, "joint coordinates"), joint_port("qd", nq, "joint rates"),
                     Port("base", shape=(4, 4), doc="base link pose (world)"),
                     Port("twist", shape=(6,), doc="base twist [v0; omega0] (world)")))  # fmt: skip
        self._kp = (param_array(self.robot.mdl), param_array(g), self._fixed, 0,
                    param_array(np.eye(4).ravel()))  # fmt: skip

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, ...]:
        return fk.fb_output_kernel(t, signal(x), _UNREAD, _UNREAD, self._kp)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return fk.fb_deriv_kernel(t, signal(x), signal(u[0]), signal(u[1]), self._kp)

    def kernels(self) -> Kernels:
        """``fb_output_kernel`` and ``fb_deriv_kernel``, params ``(mdl, gravity, fixed, 0,
        eye16)``; the interpreted block calls the same kernels."""
        return Kernels(params=self._kp, output=fk.fb_output_kernel, deriv=fk.fb_deriv_kernel)


class _EEBlock(Block):
    def _setup(self, robot: Any, ee: Any, tool: Any, base_mass: Any, base_inertia: Any) -> int:
        owner = type(self).__name__
        self.robot = _robot(owner, robot, base_mass, base_inertia)
        self._link = _link(owner, self.robot, ee)
        self._tool = _tool(owner, tool)
        return self.robot.nq


class FloatingBaseKinematics(_EEBlock):
    """End-effector pose and system centre of mass of a floating-base robot (SPART
    ``Kinematics``, ``Center_of_Mass``).

    Equation: ``T = T_link(base, q) @ tool``; ``com = sum(m_i r_i) / sum(m_i)``.

    Parameters
    ----------
    robot : FloatingBase, TreeModel or SerialLink
    ee : str, optional
        The end-effector link (name); default the tree's last body.
    tool : array_like (4, 4), optional
        Tool transform in the ee link frame (default identity).
    base_mass, base_inertia : optional
        Only for a SerialLink robot.

    Inputs
    ------
    base : ndarray (4, 4)
        Base link pose (world).
    q : ndarray (nq,)
        Joint coordinates.

    Outputs
    -------
    T : ndarray (4, 4)
        Tool pose (world).
    com : ndarray (3,)
        System centre of mass (m, world).
    """

    def __init__(self, robot: Any, ee: str | None = None, tool: Any = None,
                 base_mass: Any = None, base_inertia: Any = None) -> None:  # fmt: skip
        super().__init__()
        nq = self._setup(robot, ee, tool, base_mass, base_inertia)
        self.set_ports(inputs=(Port("base", shape=(4, 4), doc="base link pose (world)"),
                               joint_port("q", nq, "joint coordinates")),
                       outputs=(Port("T", shape=(4, 4), doc="tool pose (world)"),
                                Port("com", shape=(3,), unit="m", doc="system com")))  # fmt: skip
        self._kp = (param_array(self.robot.mdl), np.zeros(3), False, self._link,
                    param_array(self._tool.ravel()))  # fmt: skip

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, ...]:
        return fk.fb_kinematics_kernel(t, EMPTY, signal(u[0]), signal(u[1]), self._kp)

    def kernels(self) -> Kernels:
        """``fb_kinematics_kernel``; the interpreted block calls it too."""
        return Kernels(params=self._kp, output=fk.fb_kinematics_kernel)


class EndEffectorJacobian(_EEBlock):
    """Base-inclusive Jacobian of the tool point (SPART ``Jacob``, RTB row order).

    Equation: ``[v; omega] = J @ [v0; omega0; qd]``: rows the velocity of the tool origin and
    the angular velocity (world frame); columns the base twist ``[v0; omega0]`` (base centre of
    mass, world) then the joint rates. ``part="base"`` gives the first six columns (SPART's
    J0 in these coordinates), ``part="joints"`` the last nq (Jm).

    Parameters
    ----------
    robot : FloatingBase, TreeModel or SerialLink
    ee : str, optional
        End-effector link (default the last body).
    tool : array_like (4, 4), optional
        Tool transform in the ee link frame.
    part : {"all", "base", "joints"}
        Which columns (default all).
    base_mass, base_inertia : optional
        Only for a SerialLink robot.

    Inputs
    ------
    base : ndarray (4, 4)
        Base link pose (world).
    q : ndarray (nq,)
        Joint coordinates.

    Outputs
    -------
    J : ndarray (6, 6 + nq), (6, 6) or (6, nq)
    """

    def __init__(self, robot: Any, ee: str | None = None, tool: Any = None, part: str = "all",
                 base_mass: Any = None, base_inertia: Any = None) -> None:  # fmt: skip
        super().__init__()
        nq = self._setup(robot, ee, tool, base_mass, base_inertia)
        part = check_choice(type(self).__name__, "part", part, ("all", "base", "joints"))
        cols = {"all": 6 + nq, "base": 6, "joints": nq}[part]
        self.set_ports(inputs=(Port("base", shape=(4, 4), doc="base link pose (world)"),
                               joint_port("q", nq, "joint coordinates")),
                       outputs=(Port("J", shape=(6, cols), doc="tool Jacobian"),))  # fmt: skip
        self._kp = (param_array(self.robot.mdl), np.zeros(3),
                    {"all": 0, "base": 1, "joints": 2}[part], self._link,
                    param_array(self._tool.ravel()))  # fmt: skip

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (fk.fb_jacobian_kernel(t, EMPTY, signal(u[0]), signal(u[1]), self._kp),)

    def kernels(self) -> Kernels:
        """``fb_jacobian_kernel``; the interpreted block calls it too."""
        return Kernels(params=self._kp, output=fk.fb_jacobian_kernel)
