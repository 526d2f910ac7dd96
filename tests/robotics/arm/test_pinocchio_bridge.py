"""The arm dynamics and Jacobian against Pinocchio (PyPI ``pin``, in the test extra) on the same
models: rne = rnea, inertia = crba, accel = aba, jacob0 = the tool frame's Jacobian
(LOCAL_WORLD_ALIGNED), to 1e-12, for the Puma 560 (standard DH), its modified-DH twin and the
Stanford arm (a prismatic joint), with joint friction removed (Pinocchio's algorithms have
none) and rotor inertia as Pinocchio's armature."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from blocksim.robotics.arm.pinocchio_bridge import to_pinocchio
from blocksim.robotics.models import puma560, puma560akb, stanford

RNG = np.random.default_rng(560)
ROBOTS = {"puma560": puma560, "puma560akb": puma560akb, "stanford": stanford}


def full(M: np.ndarray) -> np.ndarray:
    """Pinocchio's crba fills the upper triangle: the symmetric matrix."""
    return np.triu(M) + np.triu(M, 1).T


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_dynamics_and_jacobian_match_pinocchio(name):
    robot = ROBOTS[name]().nofriction("all")
    model, data, tool = to_pinocchio(robot)
    assert model.nq == robot.n
    for _ in range(10):
        q, qd, x = (RNG.uniform(-2.0, 2.0, robot.n) for _ in range(3))
        q[np.asarray(robot.arrays.sigma, bool)] = RNG.uniform(0.3, 0.6)
        np.testing.assert_allclose(
            robot.rne(q, qd, x), pin.rnea(model, data, q, qd, x), rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(
            robot.inertia(q), full(pin.crba(model, data, q)), rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(
            robot.accel(q, qd, x), pin.aba(model, data, q, qd, x), rtol=1e-12, atol=1e-12
        )
        J = pin.computeFrameJacobian(model, data, q, tool, pin.LOCAL_WORLD_ALIGNED)
        np.testing.assert_allclose(robot.jacob0(q), J, rtol=0, atol=1e-12)
        pin.framesForwardKinematics(model, data, q)
        np.testing.assert_allclose(robot.fkine(q), data.oMf[tool].homogeneous, atol=1e-12)


def test_base_tool_and_gravity_carry_over():
    robot = puma560().nofriction("all")
    base = np.eye(4)
    base[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    base[:3, 3] = [0.1, -0.2, 0.5]
    tool = np.eye(4)
    tool[:3, 3] = [0.0, 0.02, 0.15]
    robot.base, robot.tool, robot.gravity = base, tool, [0.5, -0.3, 9.7]
    model, data, frame = to_pinocchio(robot)
    q, qd, x = RNG.uniform(-1.0, 1.0, (3, 6))
    np.testing.assert_allclose(robot.rne(q, qd, x), pin.rnea(model, data, q, qd, x), atol=1e-12)
    J = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL_WORLD_ALIGNED)
    np.testing.assert_allclose(robot.jacob0(q), J, atol=1e-12)


def test_joint_offsets_are_refused():
    robot = puma560()
    robot.offset = [0.0, 0.1, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="offsets"):
        to_pinocchio(robot)
