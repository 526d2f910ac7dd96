"""PhantomX Pincher: lengths in metres, the offset on joint 2 and the tool frame."""

import math

import numpy as np

from blocksim.robotics.models import phantomx

pi = math.pi


def test_zero_pose_points_straight_up_in_metres():
    px = phantomx()
    assert px.n == 4 and px.manufacturer == "Trossen Robotics"
    np.testing.assert_allclose([L.a for L in px.links], [0, -0.105, -0.105, -0.105])
    np.testing.assert_allclose(px.links[1].offset, pi / 2)
    T = px.fkine(px.qz)
    # base height 40 mm plus three 105 mm links, all vertical at zero angles
    np.testing.assert_allclose(T[:3, 3], [0, 0, 0.040 + 3 * 0.105], atol=1e-12)
    np.testing.assert_allclose(T[:3, 2], [0, 0, 1], atol=1e-12)   # approach vector up


def test_arm_bends_in_a_vertical_plane_turned_by_joint_1():
    px = phantomx()
    q = np.array([0.7, 0.3, -0.4, 0.2])
    p = px.fkine(q)[:3, 3]
    # alpha2 = pi: joints 3 and 4 turn in the opposite sense to joint 2, so the links' tilts
    # from the vertical are q2, q2 - q3, q2 - q3 - q4; joint 1 turns that plane about z
    tilt = np.array([q[1], q[1] - q[2], q[1] - q[2] - q[3]])
    reach = 0.105 * np.sin(tilt).sum()
    height = 0.040 + 0.105 * np.cos(tilt).sum()
    np.testing.assert_allclose(p, [reach * math.cos(q[0]), reach * math.sin(q[0]), height],
                               atol=1e-12)
