"""The reaching set-up of the floating-arm examples: Jacobian-transpose control of the hand's
position with joint damping, wired around a :class:`FloatingBaseDynamics` plant.

:func:`add_reaching_loop` adds, after the plant, the blocks of

    tau = Jm(base, q)^T [Kp (p_target - p_hand); 0] - Kd qd,

with ``Jm`` the joint columns of the base-inclusive Jacobian of the hand (world frame), and no
external wrench on the base. Both ``floating_arm_reach`` (free base) and
``floating_arm_fixed_base`` (held base, beside the serial arm's dynamics) use it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from blocksim.blocks.arm.transforms import TrToXYZ
from blocksim.blocks.floating.blocks import EndEffectorJacobian, FloatingBaseKinematics
from blocksim.blocks.math.arithmetic import Gain, Product, Sum
from blocksim.blocks.routing import Concatenate
from blocksim.blocks.sources import Constant
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram

__all__ = ["ReachingLoop", "add_reaching_loop"]


class ReachingLoop(NamedTuple):
    """The blocks :func:`add_reaching_loop` added that a caller wires further."""

    #: the hand position error ``p_target - p_hand`` [m] (block ``e``)
    error: Block
    #: the joint torques (block ``tau``), connected to the plant's ``tau``
    tau: Block


def add_reaching_loop(
    d: Diagram, robot: Any, plant: Block, ee: str, target: Any, kp: float, kd: float
) -> ReachingLoop:
    """Add the blocks ``wrench``, ``kin``, ``jac``, ``hand``, ``target``, ``e``, ``kp``,
    ``zero3``, ``force``, ``jt``, ``kd`` and ``tau`` to ``d``, in that order, and close the loop
    around ``plant``.

    Parameters
    ----------
    d : Diagram
        Where the blocks are added.
    robot : RobotTree
        The robot of ``plant`` (:func:`~blocksim.robotics.urdf.read_urdf`).
    plant : Block
        The :class:`FloatingBaseDynamics` block already in ``d``.
    ee : str
        The link whose origin is the hand.
    target : array_like, shape (3,)
        The hand's target in the world frame [m].
    kp : float
        Position gain [N/m].
    kd : float
        Joint damping [N m s/rad].

    Returns
    -------
    ReachingLoop
        The error and torque blocks.
    """
    wrench = d.add(Constant(np.zeros(6)), name="wrench")
    kin = d.add(FloatingBaseKinematics(robot, ee=ee), name="kin")
    jac = d.add(EndEffectorJacobian(robot, ee=ee, part="joints"), name="jac")
    hand = d.add(TrToXYZ(), name="hand")
    goal = d.add(Constant(np.asarray(target)), name="target")
    e = d.add(Sum("+-"), name="e")
    gain = d.add(Gain(kp), name="kp")
    zero3 = d.add(Constant(np.zeros(3)), name="zero3")
    force = d.add(Concatenate(2), name="force")
    jt = d.add(Product("**", matrix=True), name="jt")
    damping = d.add(Gain(-kd), name="kd")
    tau = d.add(Sum("++"), name="tau")
    d.connect(wrench, plant["wrench"])
    d.connect(plant["base"], kin["base"], jac["base"])
    d.connect(plant["q"], kin["q"], jac["q"])
    d.connect(kin["T"], hand)
    d.connect(goal, e["u0"])
    d.connect(hand, e["u1"])
    d.connect(e, gain)
    d.connect(gain, force["u0"])
    d.connect(zero3, force["u1"])
    d.connect(force, jt["u0"])
    d.connect(jac, jt["u1"])
    d.connect(plant["qd"], damping)
    d.connect(jt, tau["u0"])
    d.connect(damping, tau["u1"])
    d.connect(tau, plant["tau"])
    return ReachingLoop(e, tau)
