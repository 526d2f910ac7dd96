"""Arm dynamics blocks: inverse and forward dynamics and the terms of the equation of motion.

The *Dynamics* group of the Robotics Toolbox ``roblocks`` library (RNE, Robot; RTB 9.10, seed
000 §3.2 and Appendix B.9) and bdsim's IDYN, FDYN, INERTIA, GRAVLOAD blocks, over a
:class:`~blocksim.robotics.arm.SerialLink`. Each block keeps its own copy of the robot given
(``robot.copy()``), so a plant and a controller can use different models.

The model (robotics core, :mod:`blocksim.robotics.arm.dynamics`)::

    tau = M(q) qdd + C(q, qd) qd + g(q) - friction(qd) + J_e(q)^T fext

with the rotor inertias ``G^2 Jm`` on the diagonal of M, ``friction(qd) = -(G^2 B qd +
|G| Tc±)`` (load side, opposing the motion) and ``fext`` the wrench ``[f; m]`` [N, N m] the end
effector exerts on the environment, in the tool frame. Gravity is RTB's upward-equivalent
acceleration [m/s^2] (``[0, 0, 9.81]``: gravity acts along -z).

Units: q [rad or m], qd [rad/s or m/s], qdd [rad/s^2 or m/s^2], tau [N m or N].

The interpreted blocks call the ``SerialLink`` methods (``rne``, ``accel``, ``inertia``, ...);
the compiled kernels (:mod:`blocksim.blocks.arm.arm_dynamics_kernels`) do the same arithmetic
without allocating (:mod:`blocksim.robotics.arm.dynamics_into`), so both back-ends agree to
rounding. :class:`CartesianInertia`
calls its kernel in both back-ends (tested equal to ``robot.cinertia``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.arm import arm_dynamics_kernels as dk
from blocksim.blocks.arm.arm_params import (
    EMPTY,
    check_bool,
    check_vector,
    joint_port,
    param_array,
    robot_copy,
    signal,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.robotics.arm import SerialLink
from blocksim.robotics.arm.fast_calls import pack_dynamics

__all__ = ["CartesianInertia", "Coriolis", "ForwardDynamics", "Friction", "Gravload",
           "Inertia", "InverseDynamics"]

_Q = "joint coordinates q (rad or m)"
_QD = "joint rates qd (rad/s or m/s)"
_QDD = "joint accelerations qdd (rad/s^2 or m/s^2)"
_TAU = "joint torques/forces (N m or N)"


def _gravity(owner: str, robot: SerialLink, gravity: Any) -> np.ndarray | None:
    """The gravity vector of a ``gravity`` parameter: True the robot's, False zero, a (3,)
    array itself, "input" None (a port)."""
    if isinstance(gravity, str):
        if gravity != "input":
            raise BlockParameterError(
                f"{owner}: parameter 'gravity' must be True (the robot's), False (none), a "
                f"3-vector [m/s^2] or 'input', got {plain(gravity)}")
        return None
    if isinstance(gravity, (bool, np.bool_)):
        return robot.gravity if gravity else np.zeros(3)
    return check_vector(owner, "gravity", gravity, 3, None)


class _ArmBlock(Block):
    """A block over its own copy of a robot, with the kernel parameters of the core."""

    def _setup(self, robot: Any) -> int:
        self.robot = robot_copy(type(self).__name__, robot)
        return self.robot.n

    def _kin_dyn(self) -> tuple[np.ndarray, np.ndarray]:
        return param_array(self.robot.kin), param_array(self.robot.arrays.dyn)

    def _packed(self, gravity: np.ndarray | None = None) -> tuple[np.ndarray]:
        """``(P,)``: the packed dynamics of the robot with ``gravity`` (default the robot's;
        :func:`~blocksim.robotics.arm.fast_calls.pack_dynamics`)."""
        g = self.robot.gravity if gravity is None else gravity
        return (param_array(pack_dynamics(self.robot.kin, self.robot.arrays.dyn, g)),)


class InverseDynamics(_ArmBlock):
    """Inverse dynamics by recursive Newton–Euler (RTB ``SerialLink.rne``; roblocks *RNE*,
    bdsim *IDYN*).

    Equation: ``tau = M(q) qdd + C(q, qd) qd + g(q) - friction(qd) + J_e^T fext`` (module
    docstring), rotor inertia and friction included.

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).
    gravity : bool, array_like (3,) or "input"
        True (default): the robot's gravity; False: none; a 3-vector: that upward-equivalent
        gravity [m/s^2] (world frame); ``"input"``: an input port ``gravity``.
    fext : bool
        True adds an input port ``fext`` for the end wrench; default False (no wrench).

    Inputs
    ------
    q, qd, qdd : ndarray (n,)
        Joint coordinates, rates and accelerations [rad, rad/s, rad/s^2 or m, m/s, m/s^2].
    gravity : ndarray (3,)
        Upward-equivalent gravity in the world frame [m/s^2] (``gravity="input"`` only).
    fext : ndarray (6,)
        Wrench ``[fx, fy, fz, mx, my, mz]`` [N, N m] the end effector exerts on the
        environment, tool frame (``fext=True`` only).

    Outputs
    -------
    tau : ndarray (n,)
        Joint torques/forces [N m or N].
    """

    def __init__(self, robot: SerialLink, gravity: bool | str | Any = True,
                 fext: bool = False) -> None:
        super().__init__()
        owner = type(self).__name__
        n = self._setup(robot)
        g = _gravity(owner, self.robot, gravity)
        self._grav_in = g is None
        self._fext_in = check_bool(owner, "fext", fext)
        self._g = g
        ins = [joint_port("q", n, _Q), joint_port("qd", n, _QD), joint_port("qdd", n, _QDD)]
        if self._grav_in:
            ins.append(Port("gravity", shape=(3,), unit="m/s^2", doc="upward gravity (world)"))
        if self._fext_in:
            ins.append(Port("fext", shape=(6,), doc="end wrench [f; m] (N, N m), tool frame"))
        self.set_ports(inputs=ins, outputs=(joint_port("tau", n, _TAU),))
        self._kp = self._packed(np.zeros(3) if g is None else g)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        k = 3
        g = self._g
        if self._grav_in:
            g = signal(u[k])
            k += 1
        f = signal(u[k]) if self._fext_in else None
        return (self.robot.rne(signal(u[0]), signal(u[1]), signal(u[2]), gravity=g, fext=f),)

    def kernels(self) -> Kernels:
        """``rne_kernel`` (``rne_gravity_kernel``, ``rne_fext_kernel``,
        ``rne_gravity_fext_kernel`` with the optional inputs), params ``(P,)`` (the packed
        dynamics with the block's gravity)."""
        kernel = {(False, False): dk.rne_kernel, (True, False): dk.rne_gravity_kernel,
                  (False, True): dk.rne_fext_kernel,
                  (True, True): dk.rne_gravity_fext_kernel}[(self._grav_in, self._fext_in)]
        return Kernels(params=self._kp, output=kernel)


class ForwardDynamics(_ArmBlock):
    """The arm as a continuous plant: forward dynamics (RTB ``SerialLink.accel``/``fdyn``;
    roblocks *Robot*, bdsim *FDYN*).

    Equations: ``d/dt [q; qd] = [qd; qdd]``, ``qdd = accel(q, qd, tau) = M(q)^-1 (tau -
    C(q, qd) qd - g(q) + friction(qd))`` (Cholesky, no inverse formed).

    The ``qdd`` output is computed at the same instant from the current state and input (unlike
    bdsim's FDYN, whose ``qdd`` is left over from the previous derivative evaluation): it reads
    ``tau`` (feedthrough), while ``q`` and ``qd`` depend on the state only, so the block closes
    a feedback loop without an algebraic loop. ``qdd=False`` drops that output: in a loop that
    feeds ``q``/``qd`` back to ``tau`` the engine evaluates a block with partial feedthrough once
    per output port, and each evaluation of ``qdd`` solves the dynamics again.

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy). Coulomb friction makes the dynamics discontinuous at
        ``qd = 0``; ``robot.nofriction()`` removes it for fast integration.
    q0, qd0 : array_like (n,), optional
        Initial joint coordinates [rad or m] and rates [rad/s or m/s]; default zeros (RTB).
    qdd : bool
        Provide the ``qdd`` output (default True).

    Inputs
    ------
    tau : ndarray (n,)
        Applied joint torques/forces [N m or N].

    Outputs
    -------
    q : ndarray (n,)
        Joint coordinates [rad or m] (no feedthrough).
    qd : ndarray (n,)
        Joint rates [rad/s or m/s] (no feedthrough).
    qdd : ndarray (n,)
        Joint accelerations ``accel(q, qd, tau)`` [rad/s^2 or m/s^2] (feedthrough from
        ``tau``; ``qdd=True`` only).

    States
    ------
    q0, ..., q{n-1}, qd0, ..., qd{n-1} : (2n,), continuous
        Joint coordinates then joint rates.
    """

    feedthrough = {"q": (), "qd": (), "qdd": ("tau",)}

    def __init__(self, robot: SerialLink, q0: Any = None, qd0: Any = None,
                 qdd: bool = True) -> None:
        super().__init__()
        owner = type(self).__name__
        n = self._setup(robot)
        self._n = n
        self._qdd = check_bool(owner, "qdd", qdd)
        x0 = np.concatenate((check_vector(owner, "q0", q0, n, np.zeros(n)),
                             check_vector(owner, "qd0", qd0, n, np.zeros(n))))
        self.set_state(x0, names=[f"q{i}" for i in range(n)] + [f"qd{i}" for i in range(n)])
        outs = [joint_port("q", n, _Q), joint_port("qd", n, _QD)]
        if self._qdd:
            outs.append(joint_port("qdd", n, _QDD))
        self.set_ports(inputs=(joint_port("tau", n, _TAU),), outputs=outs)
        self._kp = self._packed()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, ...]:
        n = self._n
        q, qd = x[:n].copy(), x[n:].copy()
        if not self._qdd:
            return q, qd
        return q, qd, self.robot.accel(q, qd, signal(u[0]))

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        n = self._n
        qd = x[n:].copy()
        return np.concatenate((qd, self.robot.accel(x[:n].copy(), qd, signal(u[0]))))

    def kernels(self) -> Kernels:
        """``fdyn_output_kernel`` (``fdyn_output_state_kernel`` without ``qdd``) and
        ``fdyn_deriv_kernel``, params ``(P,)`` (the packed dynamics)."""
        out = dk.fdyn_output_kernel if self._qdd else dk.fdyn_output_state_kernel
        return Kernels(params=self._kp, output=out, deriv=dk.fdyn_deriv_kernel)


class Inertia(_ArmBlock):
    """Joint-space inertia matrix (RTB ``SerialLink.inertia``; bdsim *INERTIA*).

    Equation: ``M(q)``, symmetric positive definite, rotor inertias ``G^2 Jm`` on the diagonal
    (composite-rigid-body method).

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).

    Inputs
    ------
    q : ndarray (n,)
        Joint coordinates [rad or m].

    Outputs
    -------
    inertia : ndarray (n, n)
        M(q) [kg m^2, kg m, kg].
    """

    def __init__(self, robot: SerialLink) -> None:
        super().__init__()
        n = self._setup(robot)
        self.set_ports(inputs=(joint_port("q", n, _Q),),
                       outputs=(Port("inertia", shape=(n, n), doc="joint-space inertia"),))
        self._kp = self._packed()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.robot.inertia(signal(u[0])),)

    def kernels(self) -> Kernels:
        """``inertia_kernel``, params ``(P,)`` (the packed dynamics)."""
        return Kernels(params=self._kp, output=dk.inertia_kernel)


class Coriolis(_ArmBlock):
    """Coriolis and centripetal matrix (RTB ``SerialLink.coriolis``).

    Equation: ``C(q, qd)`` from the Christoffel symbols of M, so ``C @ qd`` is the
    velocity-product torque and ``dM/dt - 2 C`` is skew-symmetric; no friction.

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).

    Inputs
    ------
    q : ndarray (n,)
        Joint coordinates [rad or m].
    qd : ndarray (n,)
        Joint rates [rad/s or m/s].

    Outputs
    -------
    coriolis : ndarray (n, n)
        C(q, qd) [N m s/rad or the matching units].
    """

    def __init__(self, robot: SerialLink) -> None:
        super().__init__()
        n = self._setup(robot)
        self.set_ports(inputs=(joint_port("q", n, _Q), joint_port("qd", n, _QD)),
                       outputs=(Port("coriolis", shape=(n, n), doc="Coriolis matrix"),))
        self._kp = self._packed()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.robot.coriolis(signal(u[0]), signal(u[1])),)

    def kernels(self) -> Kernels:
        """``coriolis_kernel``, params ``(P,)`` (the packed dynamics)."""
        return Kernels(params=self._kp, output=dk.coriolis_kernel)


class Gravload(_ArmBlock):
    """Gravity load (RTB ``SerialLink.gravload``; bdsim *GRAVLOAD*).

    Equation: ``tau_g = g(q) = rne(q, 0, 0)``: the joint torques that hold the arm still.

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).
    gravity : array_like (3,), optional
        Upward-equivalent gravity in the world frame [m/s^2]; default the robot's.

    Inputs
    ------
    q : ndarray (n,)
        Joint coordinates [rad or m].

    Outputs
    -------
    tau : ndarray (n,)
        Gravity torques/forces [N m or N].
    """

    def __init__(self, robot: SerialLink, gravity: Any = None) -> None:
        super().__init__()
        n = self._setup(robot)
        self._g = check_vector(type(self).__name__, "gravity", gravity, 3,
                               self.robot.gravity)
        self.set_ports(inputs=(joint_port("q", n, _Q),), outputs=(joint_port("tau", n, _TAU),))
        self._kp = self._packed(self._g)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.robot.gravload(signal(u[0]), gravity=self._g),)

    def kernels(self) -> Kernels:
        """``gravload_kernel``, params ``(P,)`` (the packed dynamics with the block's
        gravity)."""
        return Kernels(params=self._kp, output=dk.gravload_kernel)


class Friction(_ArmBlock):
    """Joint friction (RTB ``SerialLink.friction``).

    Equation: ``tau_f = -(G^2 B qd + |G| Tc±)`` per joint (load side): viscous plus Coulomb
    friction opposing the motion (``Tc+`` for qd > 0, ``Tc-`` for qd < 0, none at qd = 0).

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).

    Inputs
    ------
    qd : ndarray (n,)
        Joint rates [rad/s or m/s].

    Outputs
    -------
    tau : ndarray (n,)
        Friction torques/forces [N m or N] (negative for positive rates).
    """

    def __init__(self, robot: SerialLink) -> None:
        super().__init__()
        n = self._setup(robot)
        self.set_ports(inputs=(joint_port("qd", n, _QD),),
                       outputs=(joint_port("tau", n, _TAU),))
        self._kp = (param_array(self.robot.arrays.dyn),)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.robot.friction(signal(u[0])),)

    def kernels(self) -> Kernels:
        """``friction_kernel``, params ``(dyn,)``."""
        return Kernels(params=self._kp, output=dk.friction_kernel)


class CartesianInertia(_ArmBlock):
    """Cartesian (operational-space) inertia of a 6-joint arm (RTB ``SerialLink.cinertia``;
    bdsim *INERTIA_X*).

    Equation: ``Mx = J^-T M(q) J^-1`` with ``J = jacob0(q)``: maps the end-effector
    acceleration ``[a; alpha]`` (world frame) to the wrench ``[f; m]``. J is inverted through
    its SVD; at a singular J (to working precision) the output is NaN and the run stops with
    ``NonFiniteError`` naming this block.

    Parameters
    ----------
    robot : SerialLink
        A 6-joint arm (the block keeps a copy).

    Inputs
    ------
    q : ndarray (6,)
        Joint coordinates [rad or m].

    Outputs
    -------
    inertia : ndarray (6, 6)
        Mx(q) [kg, kg m, kg m^2 blocks].
    """

    def __init__(self, robot: SerialLink) -> None:
        super().__init__()
        n = self._setup(robot)
        if n != 6:
            raise BlockParameterError(
                f"{type(self).__name__}: the Cartesian inertia needs a square Jacobian (a "
                f"6-joint arm); the robot {plain(self.robot.name)} has {n} joints")
        self.set_ports(inputs=(joint_port("q", n, _Q),),
                       outputs=(Port("inertia", shape=(6, 6), doc="Cartesian inertia"),))
        self._kp = self._kin_dyn()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (dk.cinertia_kernel(t, EMPTY, signal(u[0]), self._kp),)

    def kernels(self) -> Kernels:
        """``cinertia_kernel``, params ``(kin, dyn)``; the interpreted block calls the same
        kernel."""
        return Kernels(params=self._kp, output=dk.cinertia_kernel)
