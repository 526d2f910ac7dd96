"""Numerical inverse kinematics (Levenberg-Marquardt): round trips, masks, limits, failures."""

import numpy as np
import pytest

from blocksim.robotics.arm import IKResult, Revolute, SerialLink, from_poe, to_poe
from blocksim.robotics.arm.ikine import ikine

from .test_kinematics import dressed, puma, random_q, stanford, trans

pi = np.pi
RNG = np.random.default_rng(5)


def pose_error(robot, q, T):
    E = np.linalg.inv(T) @ robot.fkine(q)
    return np.abs(E - np.eye(4)).max()


@pytest.mark.parametrize("arm", ["puma", "stanford", "dressed_puma", "puma_poe"])
def test_round_trip_from_nearby_guess(arm):
    robot = {"puma": puma, "stanford": stanford, "dressed_puma": lambda: dressed(puma()),
             "puma_poe": lambda: from_poe(*to_poe(puma()))}[arm]()
    for _ in range(4):
        q = random_q(robot)
        T = robot.fkine(q)
        res = robot.ikine(T, q0=q + RNG.uniform(-0.2, 0.2, robot.n))
        assert isinstance(res, IKResult) and res.success and res.reason == "converged"
        assert res.residual <= 1e-10 and 0 < res.iterations < 100
        assert pose_error(robot, res.q, T) < 1e-9


def test_round_trip_from_zero_on_random_puma_poses():
    robot = puma()
    ok = 0
    for _ in range(10):
        T = robot.fkine(RNG.uniform(-pi, pi, 6))
        res = robot.ikine(T)                 # q0 = 0, a singular configuration of the Puma
        ok += res.success
        if res.success:
            assert pose_error(robot, res.q, T) < 1e-9
            assert np.all(np.abs(res.q) <= pi)       # revolute joints wrapped to (-pi, pi]
    assert ok >= 8


def test_mask_for_an_underactuated_planar_arm():
    robot = SerialLink([Revolute(a=1.0), Revolute(a=0.8)])
    goal = trans(0.9, 1.1, 0.0)                        # position only; orientation ignored
    res = robot.ikine(goal, q0=[0.3, 0.5], mask=[1, 1, 0, 0, 0, 0])
    assert res.success
    np.testing.assert_allclose(robot.fkine(res.q)[:3, 3], [0.9, 1.1, 0], atol=1e-10)
    # elbow angle from the law of cosines
    c2 = (0.9 ** 2 + 1.1 ** 2 - 1.0 - 0.64) / (2 * 0.8)
    assert abs(np.cos(res.q[1]) - c2) < 1e-9
    # without the mask the unreachable orientation part makes it fail, clearly
    bad = robot.ikine(trans(0.9, 1.1, 0.0) @ np.diag([1.0, -1.0, -1.0, 1.0]), q0=[0.3, 0.5])
    assert not bad.success and bad.residual > 1


def test_joint_limits_are_respected():
    robot = SerialLink([Revolute(a=1.0, qlim=[-0.5, 0.5]), Revolute(a=1.0, qlim=[0.0, 2.0])])
    inside = robot.fkine([0.3, 1.0])
    res = robot.ikine(inside, q0=[0.0, 0.5], mask=[1, 1, 0, 0, 0, 0])
    assert res.success
    assert np.all(res.q >= robot.qlim[:, 0]) and np.all(res.q <= robot.qlim[:, 1])
    # a pose that needs q1 = 1.2: out of the limits, so no success, but q stays inside
    outside = robot.fkine([1.2, 0.6])
    res = robot.ikine(outside, q0=[0.0, 0.5], mask=[1, 1, 0, 0, 0, 0])
    assert not res.success and res.residual > 1e-3
    assert np.all(res.q >= robot.qlim[:, 0]) and np.all(res.q <= robot.qlim[:, 1])
    free = robot.ikine(outside, q0=[0.0, 0.5], mask=[1, 1, 0, 0, 0, 0], joint_limits=False)
    assert free.success and pose_error(robot, free.q, outside) < 1e-9


def test_unreachable_pose_fails_without_raising():
    robot = SerialLink([Revolute(a=1.0), Revolute(a=1.0)])
    res = robot.ikine(trans(3.0, 0.0, 0.0), q0=[0.4, 0.4], mask=[1, 1, 0, 0, 0, 0], ilimit=2000)
    q, success, iterations, residual, reason = res
    assert success is False and np.all(np.isfinite(q))
    assert residual == pytest.approx(1.0, abs=1e-6)    # closest reach is 2 m: 1 m short
    np.testing.assert_allclose(q, [0, 0], atol=1e-6)   # the arm stretched towards the goal
    assert 0 < iterations < 2000 and reason.startswith("no step lowers the error")
    short = robot.ikine(trans(3.0, 0.0, 0.0), q0=[0.4, 0.4], mask=[1, 1, 0, 0, 0, 0], ilimit=20)
    assert not short.success and short.iterations == 20
    assert short.reason == "iteration limit reached" and 1.0 < short.residual < 1.1
    retry = robot.ikine(trans(3.0, 0.0, 0.0), q0=[0.4, 0.4], mask=[1, 1, 0, 0, 0, 0],
                        ilimit=50, restarts=2)
    assert not retry.success and retry.iterations > 50      # three attempts counted


def test_offsets_are_removed_from_the_solution():
    robot = puma()
    robot.offset = [0.1, -0.2, 0.3, 0.0, 0.5, -0.4]
    q = RNG.uniform(-1, 1, 6)
    res = robot.ikine(robot.fkine(q), q0=q + 0.1)
    assert res.success
    np.testing.assert_allclose(res.q, q, atol=1e-8)


def test_trajectory_of_poses():
    robot = stanford()
    q0 = random_q(robot)
    qs = q0 + np.linspace(0, 0.3, 5)[:, None] * np.array([1, -1, 0.2, 1, 1, -1])
    T = robot.fkine(qs)
    res = ikine(robot, T, q0=q0)
    assert res.q.shape == (5, 6) and res.success.shape == (5,) and res.success.all()
    assert len(res.reason) == 5
    np.testing.assert_allclose(robot.fkine(res.q), T, atol=1e-9)


def test_argument_errors():
    robot = puma()
    with pytest.raises(ValueError, match="mask"):
        robot.ikine(np.eye(4), mask=[1, 1, 1])
    with pytest.raises(ValueError, match="q0"):
        robot.ikine(np.eye(4), q0=[0, 0])
    with pytest.raises(ValueError, match="4x4 pose"):
        robot.ikine(np.eye(3))
    with pytest.raises(ValueError, match="ilimit"):
        robot.ikine(np.eye(4), ilimit=0)
