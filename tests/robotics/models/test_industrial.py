"""Kuka KR5 and ABB IRB 140: zero-pose kinematics worked out by hand, named poses, ikine6s."""

import itertools
import math

import numpy as np
import pytest

from blocksim.robotics.arm.ikine6s import arm_config, ikine6s
from blocksim.robotics.models import irb140, kr5

pi = math.pi
CONFIGS = ["".join(c) for c in itertools.product("lr", "ud", "nf")]


def test_kr5_zero_pose_and_tool():
    robot = kr5()
    assert robot.n == 6 and robot.manufacturer == "KUKA"
    np.testing.assert_allclose(robot.tool[:3, 3], [0, 0, 0.115])
    # x = a1 + a2 + a3; d2 and d3 cancel (alpha2 = pi flips z); the forearm (d4) and the
    # tool point down from the shoulder height d1
    np.testing.assert_allclose(robot.fkine(robot.qz),
                               [[1, 0, 0, 0.9], [0, -1, 0, 0], [0, 0, -1, 0.4 - 0.62 - 0.115],
                                [0, 0, 0, 1]], atol=1e-12)
    np.testing.assert_allclose(robot.qk1, [pi / 4, pi / 3, pi / 4, pi / 6, pi / 4, pi / 6])
    np.testing.assert_allclose(robot.qk2, [pi / 4, pi / 3, pi / 6, pi / 3, pi / 4, pi / 6])
    np.testing.assert_allclose(robot.qk3, [pi / 6, pi / 3, pi / 6, pi / 3, pi / 6, pi / 3])


def test_irb140_zero_pose_and_named_poses():
    robot = irb140()
    assert robot.n == 6 and robot.manufacturer == "ABB"
    # x = a1 + a2; z = d1 + d4 + d6 with the forearm vertical at zero angles
    np.testing.assert_allclose(robot.fkine(robot.qz)[:3, 3], [0.43, 0, 0.797], atol=1e-12)
    np.testing.assert_allclose(np.degrees(robot.qd), [0, -90, 180, 0, 0, -90])
    np.testing.assert_allclose(np.degrees(robot.qr), [0, -90, 90, 0, 90, -90])
    # ready pose: upper arm and forearm vertical (d1 + a2 + d4), the flange offset d6 along +x
    T = robot.fkine(robot.qr)
    np.testing.assert_allclose(T[:3, 3], [0.070 + 0.065, 0, 0.352 + 0.360 + 0.380],
                               atol=1e-12)


@pytest.mark.parametrize("factory", [kr5, irb140])
def test_ikine6s_round_trip(factory):
    robot = factory()
    rng = np.random.default_rng(8)
    solved = 0
    for _ in range(15):
        q = rng.uniform(-pi, pi, 6)
        T = robot.fkine(q)
        own = arm_config(robot, q)
        for config in CONFIGS:
            try:
                qs = ikine6s(robot, T, config)
            except ValueError as e:                 # a1 != 0: the other shoulder may not reach
                assert config[0] != own[0] and "out of reach" in str(e)
                continue
            solved += 1
            np.testing.assert_allclose(robot.fkine(qs), T, atol=1e-9)
            if config == own:
                np.testing.assert_allclose(np.remainder(qs - q + pi, 2 * pi) - pi, 0,
                                           atol=1e-8)
    assert solved >= 60
