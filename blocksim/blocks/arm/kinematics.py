"""Arm kinematics blocks: forward kinematics, Jacobians and inverse kinematics.

The *Kinematics* group of the Robotics Toolbox ``roblocks`` library (Robotics Toolbox
9.10) and bdsim's FKINE, JACOBIAN and IKINE blocks, over a
:class:`~blocksim.robotics.arm.SerialLink`. Each block keeps its own copy of the robot given
(``robot.copy()``), so a plant and a controller can use different models and editing the
robot afterwards changes no block.

Signals: joint coordinates ``q`` (n,) [rad for revolute, m for prismatic joints], rates
``qd`` (n,) [rad/s, m/s]; poses (4, 4) homogeneous transforms in the world frame [m];
Jacobians (6, n) with rows ``[v; omega]`` [m/s, rad/s per joint rate].

The interpreted ``output`` of :class:`FKine`, :class:`JacobDot` and :class:`IKine` calls the
robotics core (``robot.fkine``, ``robot.jacob_dot``,
:func:`~blocksim.robotics.arm.ikine.ikine_lm`); :class:`Jacobian` and :class:`IKine6s` call
their compiled kernel, which the tests hold equal to the core and to numpy. Kernels are in
:mod:`blocksim.blocks.arm.arm_kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.arm import arm_kernels as ak
from blocksim.blocks.arm.arm_params import (
    EMPTY,
    check_bool,
    check_choice,
    check_real,
    check_vector,
    joint_port,
    param_array,
    robot_copy,
    signal,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.robotics.arm import SerialLink
from blocksim.robotics.arm.ikine import ikine_lm
from blocksim.robotics.arm.ikine6s import config_code, pack_ikine6s
from blocksim.robotics.linalg import DLS, INV, PINV

__all__ = ["FKine", "IKine", "IKine6s", "JacobDot", "Jacobian"]

_Q_DOC = "joint coordinates q (rad for revolute, m for prismatic joints)"
_QD_DOC = "joint rates qd (rad/s, m/s)"

# ---------------------------------------------------------------------------- blocks
class FKine(Block):
    """Forward kinematics (RTB ``SerialLink.fkine``; roblocks *fkine*, bdsim *FKINE*).

    Equation: ``pose = base @ A_1(q_1) ... A_n(q_n) @ tool`` (joint offsets added to q).

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).
    all : bool
        False (default): the end-effector pose. True: the poses of frames 0..n (frame 0 is
        the base, frame i link frame i, without the tool), RTB's ``fkine(q, 'all')``.

    Inputs
    ------
    q : ndarray (n,)
        Joint coordinates [rad or m].

    Outputs
    -------
    pose : ndarray (4, 4)
        End-effector (tool) pose in the world frame [m] (``all=False``).
    poses : ndarray (n + 1, 4, 4)
        Frames 0..n in the world frame [m] (``all=True``).
    """

    def __init__(self, robot: SerialLink, all: bool = False) -> None:
        super().__init__()
        owner = type(self).__name__
        self.robot = robot_copy(owner, robot)
        self._all = check_bool(owner, "all", all)
        n = self.robot.n
        out = (Port("poses", shape=(n + 1, 4, 4), doc="poses of frames 0..n (world)")
               if self._all else Port("pose", shape=(4, 4), doc="end-effector pose (world)"))
        self.set_ports(inputs=(joint_port("q", n, _Q_DOC),), outputs=(out,))
        self._kp = (param_array(self.robot.kin),)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.robot.fkine(signal(u[0]), all=self._all),)

    def kernels(self) -> Kernels:
        """``fkine_kernel`` (or ``fkine_all_kernel``), params ``(kin,)``."""
        return Kernels(params=self._kp,
                       output=ak.fkine_all_kernel if self._all else ak.fkine_kernel)


_INVERSES = {None: 0, "inv": INV, "pinv": PINV, "dls": DLS}


class Jacobian(Block):
    """Manipulator Jacobian, optionally inverted (RTB ``jacob0``/``jacobe``; roblocks *jacob0*,
    *jacobn*, *ijacob*; bdsim *JACOBIAN*).

    Equation: ``[v; omega] = J(q) @ qd`` with ``v`` the velocity of the tool origin and
    ``omega`` the angular velocity, in world-frame (``frame="world"``, RTB ``jacob0``) or
    end-effector-frame (``frame="ee"``, RTB ``jacobe``) components. With ``inverse`` the block
    outputs, from the singular value decomposition ``J = U S V^T``:

    * ``"inv"``: ``J^-1`` (6-joint arms only); NaN when J is singular to working precision
      (``s_min <= 6 eps s_max``), so the run stops with ``NonFiniteError`` naming this block
      (use ``"dls"`` near singularities);
    * ``"pinv"``: the Moore–Penrose pseudo-inverse (MATLAB's tolerance ``max(6, n) eps s_max``);
    * ``"dls"``: the damped least-squares inverse ``J^T (J J^T + damping^2 I)^-1``, finite
      everywhere.

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).
    frame : {"world", "ee"}
        Frame of the velocity components.
    inverse : {None, "inv", "pinv", "dls"}
        Output J (None, default) or an inverse of it.
    damping : float
        Damping factor ``lambda`` of ``"dls"`` [mixed units of J], > 0; default 0.01.

    Inputs
    ------
    q : ndarray (n,)
        Joint coordinates [rad or m].

    Outputs
    -------
    jac : ndarray (6, n)
        The Jacobian (``inverse=None``) [m/s and rad/s per unit joint rate].
    jinv : ndarray (n, 6)
        Its inverse (``inverse`` given).
    cond : float
        2-norm condition number ``s_max / s_min`` of J (1 at best; large near a singularity;
        capped at 1/eps = 4.5e15 so that it stays finite at an exact singularity).
    """

    def __init__(self, robot: SerialLink, frame: str = "world", inverse: str | None = None,
                 damping: float = 0.01) -> None:
        super().__init__()
        owner = type(self).__name__
        self.robot = robot_copy(owner, robot)
        check_choice(owner, "frame", frame, ("world", "ee"))
        check_choice(owner, "inverse", inverse, tuple(_INVERSES))
        lam = check_real(owner, "damping", damping, nonnegative=True)
        n = self.robot.n
        if inverse == "dls" and lam == 0.0:
            raise BlockParameterError(f"{owner}: 'dls' needs damping > 0 (damping = 0 is the "
                                      f"pseudo-inverse: use inverse='pinv')")
        if inverse == "inv" and n != 6:
            raise BlockParameterError(
                f"{owner}: inverse='inv' needs a square Jacobian (a 6-joint arm); the robot "
                f"{plain(self.robot.name)} has {n} joints: use 'pinv' or 'dls'")
        out = (Port("jac", shape=(6, n), doc=f"Jacobian ({frame} frame)") if inverse is None
               else Port("jinv", shape=(n, 6), doc=f"{inverse} of the Jacobian ({frame})"))
        self.set_ports(inputs=(joint_port("q", n, _Q_DOC),),
                       outputs=(out, Port("cond", shape=(), doc="condition number of J")))
        self._kp = (param_array(self.robot.kin), frame == "ee", _INVERSES[inverse], lam)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, float]:
        return ak.jacobian_kernel(t, EMPTY, signal(u[0]), self._kp)

    def kernels(self) -> Kernels:
        """``jacobian_kernel``, params ``(kin, ee, mode, damping)`` (mode 0 J, 1 inv, 2 pinv,
        3 dls); the interpreted block calls the same kernel."""
        return Kernels(params=self._kp, output=ak.jacobian_kernel)


class JacobDot(Block):
    """Jacobian derivative times joint rates (RTB ``SerialLink.jacob_dot``).

    Equation: ``y = Jdot(q, qd) @ qd``, so that the end-effector acceleration is
    ``[a; alpha] = jacob0(q) @ qdd + y`` (world frame).

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
    jdot_qd : ndarray (6,)
        ``Jdot @ qd`` [m/s^2, rad/s^2], world frame.
    """

    def __init__(self, robot: SerialLink) -> None:
        super().__init__()
        self.robot = robot_copy(type(self).__name__, robot)
        n = self.robot.n
        self.set_ports(inputs=(joint_port("q", n, _Q_DOC), joint_port("qd", n, _QD_DOC)),
                       outputs=(Port("jdot_qd", shape=(6,), doc="Jdot @ qd (world)"),))
        self._kp = (param_array(self.robot.kin),)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (self.robot.jacob_dot(signal(u[0]), signal(u[1])),)

    def kernels(self) -> Kernels:
        """``jacob_dot_kernel``, params ``(kin,)``."""
        return Kernels(params=self._kp, output=ak.jacob_dot_kernel)


class IKine(Block):
    """Numerical inverse kinematics, warm-started (RTB ``SerialLink.ikine``; roblocks *ikine*,
    bdsim *IKINE*).

    Equation: ``q = argmin |W e(q)|`` with ``e = [p* - p(q); log(R* R(q)^T)]`` (world frame)
    and ``W = diag(mask)``, by Levenberg–Marquardt (:func:`blocksim.robotics.arm.ikine.ikine`
    explains the steps and stopping rules) from a starting point ``q_s``:

    * with a ``clock``: ``q_s`` is the discrete state, the previous solution. At a hit t_k the
      outputs are the solve from ``x[k]`` for the pose ``u[k]``, held until the next hit;
      ``x[k+1]`` is that solution if it succeeded, else ``x[k]`` (a failed solve never
      becomes the next starting point); ``x[0] = q0``. The update solves again from ``x[k]``
      (deterministic: the same result), one more warm-started solve per hit.
    * without a clock: the block is stateless and every evaluation starts from ``q0`` (its rate
      is inherited: a constant pose is solved once). Use a clock to track a moving pose.

    A pose that cannot be reached never stops the run: ``success`` is 0.0 and ``q`` the
    solver's best point (smallest residual).

    Parameters
    ----------
    robot : SerialLink
        The arm (the block keeps a copy).
    q0 : array_like (n,), optional
        Initial state / starting point [rad or m]; default zeros moved inside the joint limits.
    mask : array_like (6,), optional
        Weights of the ``[x, y, z, rx, ry, rz]`` errors, >= 0 (e.g. ``[1, 1, 0, 0, 0, 0]`` for a
        planar 2-link arm); default ones. An arm with fewer than 6 joints needs a mask.
    clock : Clock, float or (float, float), optional
        Sample clock (period [s] or (period, offset)); see above.
    ilimit : int
        Iteration limit per solve (accepted and rejected steps), >= 1; default 500.
    tol : float
        Convergence threshold on ``|W e|`` [m and rad], > 0; default 1e-10.
    joint_limits : bool
        Keep the solution inside ``robot.qlim`` (default True).
    lam : float
        Initial damping, > 0; default 0.1.

    Inputs
    ------
    pose : ndarray (4, 4)
        Goal pose of the end effector (tool) in the world frame [m].

    Outputs
    -------
    q : ndarray (n,)
        Joint coordinates [rad or m] (feedthrough from ``pose``).
    success : float
        1.0 when the residual reached ``tol``, else 0.0 (feedthrough from ``pose``).

    States
    ------
    q0, q1, ... : (n,), discrete, only with a clock
        The warm start: the last successful solution [rad or m].
    """

    feedthrough = {"q": ("pose",), "success": ("pose",)}

    def __init__(self, robot: SerialLink, q0: Any = None, mask: Any = None,
                 clock: Clock | float | tuple[float, float] | None = None, ilimit: int = 500,
                 tol: float = 1e-10, joint_limits: bool = True, lam: float = 0.1) -> None:
        super().__init__()
        owner = type(self).__name__
        self.robot = robot_copy(owner, robot)
        n = self.robot.n
        qlim = self.robot.qlim
        start = check_vector(owner, "q0", q0, n, np.clip(np.zeros(n), qlim[:, 0], qlim[:, 1]))
        w = check_vector(owner, "mask", mask, 6, np.ones(6))
        if np.any(w < 0):
            raise BlockParameterError(f"{owner}: parameter 'mask' must be 6 weights >= 0 "
                                      f"[x, y, z, rx, ry, rz], got {plain(mask)}")
        if isinstance(ilimit, (bool, np.bool_)) or not isinstance(ilimit, (int, np.integer)) \
                or ilimit < 1:
            raise BlockParameterError(f"{owner}: parameter 'ilimit' must be an integer >= 1, "
                                      f"got {plain(ilimit)}")
        tol_v = check_real(owner, "tol", tol, positive=True)
        lam_v = check_real(owner, "lam", lam, positive=True)
        limits = qlim if check_bool(owner, "joint_limits", joint_limits) else \
            np.tile([-np.inf, np.inf], (n, 1))
        self.clock = as_clock(clock, owner)
        if self.clock is not None:
            self.set_state(start, names=[f"q{i}" for i in range(n)])
        self._q0 = start
        self._revolute = self.robot.arrays.sigma == 0
        self._core_args = (w, param_array(limits), self._revolute, int(ilimit), tol_v, lam_v)
        self._kp = (param_array(self.robot.kin), param_array(w), param_array(limits),
                        param_array(self._revolute), param_array(start), int(ilimit), tol_v,
                        lam_v)
        self.set_ports(inputs=(Port("pose", shape=(4, 4), doc="goal pose (world)"),),
                       outputs=(joint_port("q", n, _Q_DOC),
                                Port("success", shape=(), doc="1.0 if converged, else 0.0")))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, float]:
        start = x if x.size else self._q0
        q, _, _, status = ikine_lm(self.robot.kin, signal(u[0]), start, *self._core_args)
        return q, 1.0 if status == 0 else 0.0

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        q, ok = self.output(t, x, u)
        return q if ok == 1.0 else np.array(x)

    def kernels(self) -> Kernels:
        """``ikine_output_kernel`` and ``ikine_update_kernel``, params ``(kin, mask, qlim
        (n, 2), revolute (n,) as 0/1, q0, ilimit, tol, lam)``: a numba port of the robotics
        core's solver, tested equal to it."""
        return Kernels(params=self._kp, output=ak.ikine_output_kernel,
                       update=ak.ikine_update_kernel if self.clock is not None else None)


class IKine6s(Block):
    """Analytic inverse kinematics of a 6-axis arm with a spherical wrist (RTB
    ``SerialLink.ikine6s``; roblocks *ikine6s*).

    Equation: the closed-form solution of :func:`blocksim.robotics.arm.ikine6s.ikine6s` for the
    configuration ``config``, so that ``fkine(q) = pose``. A pose out of reach gives NaN: the
    run stops with ``NonFiniteError`` naming this block and its input.

    Parameters
    ----------
    robot : SerialLink
        A standard-DH 6-joint arm with a spherical wrist (Puma 560, Stanford, KR5, IRB 140...).
    config : str
        Letters from ``"lrudnf"``: shoulder left/right, elbow up/down, wrist not flipped /
        flipped; default ``"lun"``.

    Inputs
    ------
    pose : ndarray (4, 4)
        Goal pose of the tool in the world frame [m].

    Outputs
    -------
    q : ndarray (6,)
        Joint coordinates [rad or m], revolute angles in (-pi, pi] (or shifted into the
        limits).
    """

    def __init__(self, robot: SerialLink, config: str = "lun") -> None:
        super().__init__()
        owner = type(self).__name__
        self.robot = robot_copy(owner, robot)
        try:
            g = pack_ikine6s(self.robot)
            code = config_code(config)
        except (TypeError, ValueError) as exc:
            raise BlockParameterError(f"{owner}: {exc}") from None
        self._kp = (param_array(g), int(code))
        self.set_ports(inputs=(Port("pose", shape=(4, 4), doc="goal pose (world)"),),
                       outputs=(joint_port("q", 6, _Q_DOC),))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (ak.ikine6s_block_kernel(t, EMPTY, signal(u[0]), self._kp),)

    def kernels(self) -> Kernels:
        """``ikine6s_block_kernel``, params ``(g (81,), code)``; the interpreted block calls the
        same kernel."""
        return Kernels(params=self._kp, output=ak.ikine6s_block_kernel)
