"""Franka Emika Panda (modified DH, published Franka table)."""

import math

import numpy as np

from blocksim.robotics.models import panda

pi = math.pi


def test_panda_is_a_seven_axis_modified_dh_arm_with_franka_limits():
    robot = panda()
    assert robot.n == 7 and robot.mdh and robot.manufacturer == "Franka Emika"
    np.testing.assert_allclose(robot.qlim[3], [-3.0718, -0.0698])
    np.testing.assert_allclose(robot.qlim[5], [-0.0175, 3.7525])
    assert np.all(robot.qlim[:, 0] < robot.qlim[:, 1])
    np.testing.assert_allclose(robot.qr, [0, -0.3, 0, -2.2, 0, 2.0, pi / 4])
    assert np.all(robot.islimit(robot.qr) == 0)


def test_zero_pose():
    robot = panda()
    # x = a4 + a5 + a7, z = d1 + d3 + d5 - flange (the flange points down at zero angles)
    np.testing.assert_allclose(robot.fkine(robot.qz),
                               [[1, 0, 0, 0.088], [0, -1, 0, 0], [0, 0, -1, 0.926],
                                [0, 0, 0, 1]], atol=1e-12)


def test_joint_7_spins_the_flange_about_its_own_axis():
    robot = panda()
    q = robot.qr
    T0 = robot.fkine(q)
    q[6] += 0.8
    T1 = robot.fkine(q)
    np.testing.assert_allclose(T1[:3, 3], T0[:3, 3], atol=1e-12)
    np.testing.assert_allclose(T1[:3, 2], T0[:3, 2], atol=1e-12)
    c = T0[:3, 0] @ T1[:3, 0]
    assert abs(c - math.cos(0.8)) < 1e-12
