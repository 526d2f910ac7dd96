"""A :class:`~blocksim.robotics.arm.SerialLink` as a Pinocchio model (optional ``pin`` package).

For cross-checks and speed comparisons against Pinocchio (``pip install pin``): the same
kinematic chain, link inertias, gravity and rotor inertias, so that Pinocchio's ``rnea``,
``crba``, ``aba`` and frame Jacobian compute what :meth:`SerialLink.rne`, ``inertia``,
``accel`` and ``jacob0`` compute for a robot without joint friction (Pinocchio's algorithms
have none).

Mapping: the arm's ``T_i = T_{i-1} A_i J(q_i + offset_i) B_i`` form
(:mod:`blocksim.robotics.arm.layout`) becomes one Pinocchio joint per link with placement
``B_{i-1} A_i`` relative to its parent (``base A_1`` for the first), axis z (revolute: ``RZ``,
prismatic: ``PZ``); link ``i``'s inertia, given in link frame ``i``, is placed by ``B_i``; the
rotor inertia ``G^2 Jm`` is the joint's ``armature``; the tool is a frame ``"tool"`` on the last
joint at ``B_n tool``. Joint offsets are not representable in Pinocchio's model: they are
refused (``q + offset`` can be passed instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .layout import GR, IXX, IXY, IXZ, IYY, IYZ, IZZ, JM, RX, RY, RZ
from .layout import M as MASS

__all__ = ["to_pinocchio"]


def _se3(pin: Any, T: np.ndarray) -> Any:
    return pin.SE3(np.ascontiguousarray(T[:3, :3]), np.ascontiguousarray(T[:3, 3]))


def to_pinocchio(robot: Any) -> tuple[Any, Any, int]:
    """Pinocchio ``(model, data, tool_frame_id)`` of ``robot`` (a SerialLink).

    Raises
    ------
    ImportError
        When Pinocchio (PyPI ``pin``) is not installed.
    ValueError
        When a joint has a non-zero offset.
    """
    import pinocchio as pin

    a = robot.arrays
    if np.any(np.asarray(robot.offset) != 0.0):
        raise ValueError(
            f"to_pinocchio: {robot.name!r} has joint offsets, which a Pinocchio "
            f"model cannot hold; zero them and pass q + offset"
        )
    model = pin.Model()
    model.name = str(robot.name)
    model.gravity = pin.Motion(np.concatenate((-np.asarray(robot.gravity, float), np.zeros(3))))
    parent = 0
    place = np.asarray(robot.base, float) @ a.A[0]
    armature = np.zeros(robot.n)
    for i in range(robot.n):
        joint = pin.JointModelPZ() if a.sigma[i] else pin.JointModelRZ()
        jid = model.addJoint(parent, joint, _se3(pin, place), f"joint{i + 1}")
        d = a.dyn[i]
        inertia = np.array(
            [[d[IXX], d[IXY], d[IXZ]], [d[IXY], d[IYY], d[IYZ]], [d[IXZ], d[IYZ], d[IZZ]]]
        )
        body = pin.Inertia(float(d[MASS]), np.array([d[RX], d[RY], d[RZ]]), inertia)
        model.appendBodyToJoint(jid, _se3(pin, a.B[i]).act(body), pin.SE3.Identity())
        armature[i] = d[GR] ** 2 * d[JM]
        parent = jid
        if i + 1 < robot.n:
            place = a.B[i] @ a.A[i + 1]
    model.armature = armature
    tool = model.addFrame(
        pin.Frame(
            "tool",
            parent,
            0,
            _se3(pin, a.B[-1] @ np.asarray(robot.tool, float)),
            pin.FrameType.OP_FRAME,
        )
    )
    return model, model.createData(), tool
