"""RobotArm (jmove, cmove, getq, gripper) driving the emulated Arbotix of a PhantomX."""

import numpy as np
import pytest

from blocksim.hardware import Arbotix
from blocksim.hardware import dynamixel as dx
from blocksim.hardware.robot_arm import RobotArm
from blocksim.robotics.models.phantomx import phantomx
from blocksim.robotics.trajectory import jtraj


@pytest.fixture
def arm(arb):
    return RobotArm(phantomx(), arb, npoints=10)


def _settle(arb, n=150):
    for _ in range(n):  # 5 packets per getpos, 2 ms each
        arb.getpos()


def test_getq_excludes_the_gripper(arm, arb, emulator):
    arb.setpos([0.1, 0.2, 0.3, 0.4, 0.5])
    _settle(arb, 20)
    np.testing.assert_allclose(arm.getq(), [0.1, 0.2, 0.3, 0.4], atol=1 / 195)
    assert arm.getq().shape == (4,)


def test_jmove_sends_the_jtraj_path_and_the_arm_arrives(arm, arb, emulator):
    qf = np.array([0.3, -0.2, 0.4, 0.1])
    qt = arm.jmove(qf, T=0.5)
    expected = np.hstack([jtraj(np.zeros(4), qf, 10)[0], np.zeros((10, 1))])
    np.testing.assert_array_equal(qt, expected)
    assert emulator.sequence == [(k, 50) for k in range(10)]
    assert emulator.poses[9] == [round(arb.a2e(a)) for a in expected[-1]]
    _settle(arb)
    np.testing.assert_allclose(arm.getq(), qf, atol=0.5 / arb.counts_per_rad)


def test_cmove_reaches_the_pose_with_the_position_only_ik(arm, arb):
    robot = phantomx()
    q_goal = np.array([0.2, 0.3, 0.2, 0.1])
    T = robot.fkine(q_goal)
    qf = arm.cmove(T, T=0.3)
    np.testing.assert_allclose(robot.fkine(qf)[:3, 3], T[:3, 3], atol=1e-9)
    _settle(arb)
    reached = robot.fkine(arm.getq())[:3, 3]
    np.testing.assert_allclose(reached, T[:3, 3], atol=2e-3)  # within encoder resolution


def test_gripper_opening_maps_to_rtbs_angles(arm, arb, emulator):
    arm.gripper(1.0)
    assert emulator.servos[5].goal == 512  # open: 0 rad
    arm.gripper(0.0)
    assert emulator.servos[5].goal == round(arb.a2e(2.6))
    arm.gripper(0.5)
    assert emulator.received[-1] == dx.instruction_packet(
        5, dx.INS_WRITE_DATA, [30, *round(arb.a2e(1.3)).to_bytes(2, "little")]
    )
    with pytest.raises(ValueError, match=r"opening must be in \[0, 1\]"):
        arm.gripper(1.5)


def test_a_machine_with_the_wrong_number_of_servos_is_refused(emulator):
    a = Arbotix(emulator.path, nservos=3, timeout=0.05)
    with pytest.raises(ValueError, match="3 servos for a 4-joint robot"):
        RobotArm(phantomx(), a)
    a.disconnect()


def test_mirror_relaxes_the_arm_and_a_vrep_arm_follows_it_moved_by_hand(arm, arb, emulator):
    from blocksim.hardware.coppeliasim import CoppeliaSim
    from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator

    arb.setpos([0.0, 0.0, 0.0, 0.0, 0.0])
    poses = [[0.1, 0.2, 0.3, 0.4], [-0.3, 0.5, 0.0, 0.2], [0.6, -0.1, -0.4, 0.0]]
    moved = []

    def hand():  # between two readings a hand puts the relaxed arm in the next pose
        if len(moved) == len(poses):
            return True
        with emulator.lock:
            for j, a in enumerate(poses[len(moved)]):
                emulator.servos[j + 1].p = arb.a2e(a)
        moved.append(True)
        return False

    with CoppeliaSimEmulator() as vemu, CoppeliaSim(port=vemu.port, timeout=0.5) as vrep:
        varm = vrep.arm("IRB140", n=4)
        t, q = arm.mirror(varm.setq, T=10.0, period=0.01, until=hand)
        assert not any(s.torque for s in emulator.servos.values())  # relaxed
        assert q.shape == (4, 4) and t.shape == (4,) and np.all(np.diff(t) > 0)
        res = 0.5 / arb.counts_per_rad
        np.testing.assert_allclose(q[0], [0.0] * 4, atol=res)
        np.testing.assert_allclose(q[1:], poses, atol=res)
        np.testing.assert_allclose(varm.getq(), q[-1], atol=1e-15)  # the model followed
    # without `until`, T bounds it: readings at 0, period, 2 period, ... <= T
    t, q = arm.mirror(T=0.05, period=0.02)
    assert len(t) == 3 and q.shape == (3, 4) and t[-1] >= 0.04
    with pytest.raises(ValueError, match="period > 0"):
        arm.mirror(period=0.0)
