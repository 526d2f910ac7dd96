"""RTB's ``RobotArm``: a serial-link model that drives a physical arm through a Machine.

The machine's first ``robot.n`` servos are the arm's joints (servo ``j + 1`` is joint ``j``);
a further servo, when the machine has one, is the gripper.

RTB's ``teach`` (a GUI of sliders driving the arm) is not provided: it is interactive by
nature. ``mirror`` is, without its plot window: the model follows the relaxed arm moved by
hand, through any ``follow(q)`` (a plot update, a CoppeliaSim arm's ``setq``, ...).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from blocksim._messages import plain
from blocksim.hardware.machine import Machine
from blocksim.robotics.trajectory import jtraj

__all__ = ["RobotArm"]


class RobotArm:
    """A serial-link model and the machine that moves the real arm.

    Parameters
    ----------
    robot : SerialLink
        Kinematic model (joint angles in rad, lengths in m).
    machine : Machine
        The controller (an :class:`~blocksim.hardware.arbotix.Arbotix`), with ``robot.n`` or
        ``robot.n + 1`` servos.
    npoints : int
        Points of the joint trajectory a move is sent as (RTB: 20; 30 at most for an Arbotix).
    gripper : (float, float)
        Gripper servo angle [rad] fully open and fully closed (RTB's ``[0 2.6]``).
    """

    def __init__(
        self,
        robot: Any,
        machine: Machine,
        npoints: int = 20,
        gripper: tuple[float, float] = (0.0, 2.6),
    ):
        self.robot = robot
        self.machine = machine
        self.n = int(robot.n)
        self.ngripper = int(machine.nservos) - self.n
        if self.ngripper not in (0, 1):
            raise ValueError(
                f"RobotArm: the machine has {machine.nservos} servos for a "
                f"{self.n}-joint robot; expected {self.n} or {self.n + 1} (with "
                f"a gripper)"
            )
        if not 2 <= int(npoints) <= 30:
            raise ValueError(f"RobotArm: npoints must be 2..30, got {plain(npoints)}")
        self.npoints = int(npoints)
        self.gripper_angles = (float(gripper[0]), float(gripper[1]))

    def getq(self) -> np.ndarray:
        """Joint angles [rad], shape (n,) (the gripper excluded)."""
        return np.asarray(self.machine.getpos(), dtype=float)[: self.n]

    def path(self, qf: Any, T: float = 3.0) -> tuple[np.ndarray, float]:
        """The servo path of :meth:`jmove`: (npoints, nservos) angles and seconds per point."""
        if not T > 0:
            raise ValueError(f"RobotArm.jmove: the duration T must be > 0 s, got {plain(T)}")
        q = np.asarray(self.machine.getpos(), dtype=float)
        qf = np.asarray(qf, dtype=float).reshape(-1)
        if qf.shape != (self.n,):
            raise ValueError(f"RobotArm.jmove: qf must have {self.n} joint angles, got {qf.size}")
        qt = jtraj(q[: self.n], qf, self.npoints)[0]
        if self.ngripper:
            qt = np.hstack([qt, np.full((self.npoints, 1), q[self.n])])
        return qt, T / self.npoints

    def jmove(self, qf: Any, T: float = 3.0) -> np.ndarray:
        """Move to joint angles ``qf`` [rad] along a quintic (jtraj) in ``T`` seconds, sent as
        one path to the controller; returns the path (npoints, nservos)."""
        qt, dt = self.path(qf, T)
        self.machine.setpath(qt, dt)
        return qt

    def cmove(self, pose: Any, T: float = 3.0) -> np.ndarray:
        """Move the end effector to ``pose`` (4x4, world frame, m): inverse kinematics
        (closed form for a 6-axis arm with a spherical wrist, else numerical from the present
        angles; an arm with fewer than 6 joints matches the position only -- RTB's mask
        ``[1 1 1 1 0 0]`` asks a 4-joint PhantomX for an orientation it often cannot reach),
        then :meth:`jmove`. Returns the joint goal."""
        pose = np.asarray(pose, dtype=float)
        if self.n == 6 and getattr(self.robot, "isspherical", lambda: False)():
            qf = np.asarray(self.robot.ikine6s(pose), dtype=float)
        else:
            mask = None if self.n >= 6 else [1, 1, 1, 0, 0, 0]
            sol = self.robot.ikine(pose, q0=self.getq(), mask=mask)
            if not sol.success:
                raise ValueError(f"RobotArm.cmove: no joint angles reach the pose ({sol.reason})")
            qf = np.asarray(sol.q, dtype=float)
        self.jmove(qf, T)
        return qf

    def gripper(self, opening: float) -> None:
        """Set the gripper: 0 closed, 1 open (RTB: ``a = C g(1) + (1 - C) g(2)``)."""
        if not self.ngripper:
            raise ValueError("RobotArm.gripper: this machine has no gripper servo")
        if not 0.0 <= float(opening) <= 1.0:
            raise ValueError(f"RobotArm.gripper: opening must be in [0, 1], got {plain(opening)}")
        g_open, g_closed = self.gripper_angles
        self.machine.setpos(opening * g_open + (1.0 - opening) * g_closed, id=self.n + 1)

    def mirror(
        self,
        follow: Callable[[np.ndarray], Any] | None = None,
        T: float = 10.0,
        period: float = 0.05,
        relax: bool = True,
        until: Callable[[], bool] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Relax the arm and follow it as it is moved by hand (RTB ``mirror``, which plots the
        model until a key is pressed).

        Every ``period`` seconds for ``T`` seconds (or until ``until()`` is true) the joint
        angles are read and passed to ``follow(q)``, e.g. :meth:`VrepArm.setq
        <blocksim.hardware.coppeliasim_mirrors.VrepArm.setq>` so that a simulated arm mirrors
        the real one.

        Returns
        -------
        t : ndarray, shape (m,)
            Wall time of each reading since the start [s].
        q : ndarray, shape (m, n)
            The joint angles read [rad].
        """
        if not (T >= 0 and period > 0):
            raise ValueError(
                f"RobotArm.mirror: need T >= 0 and period > 0 s, got {plain(T)}, {plain(period)}"
            )
        if relax:
            off = getattr(self.machine, "relax", None)
            if off is None:
                raise ValueError("RobotArm.mirror: this machine cannot relax its servos")
            off()  # every servo, the gripper's too
        ts, qs = [], []
        t0 = time.perf_counter()
        k = 0
        while True:
            q = self.getq()
            ts.append(time.perf_counter() - t0)
            qs.append(q)
            if follow is not None:
                follow(q)
            k += 1
            if k * period > T or (until is not None and until()):
                break
            wait = t0 + k * period - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        return np.array(ts), np.array(qs).reshape(-1, self.n)
