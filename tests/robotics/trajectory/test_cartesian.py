"""ctraj, MR ScrewTrajectory and CartesianTrajectory."""

from itertools import pairwise

import numpy as np
import pytest

from blocksim.robotics.spatial import transl, trotx, trotz
from blocksim.robotics.trajectory.cartesian import cartesian_trajectory, ctraj, screw_trajectory
from blocksim.robotics.trajectory.scalar import lspb, tpoly

XSTART = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 1]], dtype=float)
XEND = np.array([[0, 0, 1, 0.1], [1, 0, 0, 0], [0, 1, 0, 4.1], [0, 0, 0, 1]], dtype=float)


def _angle(R):
    """Rotation angle of R [rad], accurate near 0 and pi."""
    w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    return np.arctan2(np.linalg.norm(w) / 2.0, (np.trace(R) - 1.0) / 2.0)


def test_mr_screw_trajectory_example():
    traj = screw_trajectory(XSTART, XEND, 5, 4, 3)
    expected = [
        XSTART,
        [[0.904, -0.25, 0.346, 0.441], [0.346, 0.904, -0.25, 0.529],
         [-0.25, 0.346, 0.904, 1.601], [0, 0, 0, 1]],
        [[0.346, -0.25, 0.904, -0.117], [0.904, 0.346, -0.25, 0.473],
         [-0.25, 0.904, 0.346, 3.274], [0, 0, 0, 1]],
        XEND,
    ]  # fmt: skip
    assert traj.shape == (4, 4, 4)
    np.testing.assert_allclose(traj, expected, atol=1.5e-3)
    np.testing.assert_allclose(traj[[0, -1]], [XSTART, XEND], atol=1e-12)


def test_mr_cartesian_trajectory_example():
    traj = cartesian_trajectory(XSTART, XEND, 5, 4, 5)
    expected = [
        XSTART,
        [[0.937, -0.214, 0.277, 0.811], [0.277, 0.937, -0.214, 0],
         [-0.214, 0.277, 0.937, 1.651], [0, 0, 0, 1]],
        [[0.277, -0.214, 0.937, 0.289], [0.937, 0.277, -0.214, 0],
         [-0.214, 0.937, 0.277, 3.449], [0, 0, 0, 1]],
        XEND,
    ]  # fmt: skip
    assert traj.shape == (4, 4, 4)
    np.testing.assert_allclose(traj, expected, atol=1.5e-3)
    np.testing.assert_allclose(traj[[0, -1]], [XSTART, XEND], atol=1e-12)


def test_cartesian_trajectory_origin_moves_on_the_line_screw_does_not():
    cart = cartesian_trajectory(XSTART, XEND, 2, 9, 3)
    screw = screw_trajectory(XSTART, XEND, 2, 9, 3)
    d = XEND[:3, 3] - XSTART[:3, 3]

    def off_line(traj):
        rel = traj[:, :3, 3] - XSTART[:3, 3]
        return np.linalg.norm(rel - np.outer(rel @ d / (d @ d), d), axis=1)

    assert off_line(cart).max() < 1e-12
    assert off_line(screw).max() > 0.1
    # both share the same rotation path (the rotation part of a screw motion is exp(w s))
    np.testing.assert_allclose(cart[:, :3, :3], screw[:, :3, :3], atol=1e-12)


def test_ctraj_endpoints_and_lspb_spacing():
    T0 = transl(0.5, -0.2, 0.3) @ trotz(0.3)
    T1 = transl(-0.1, 0.4, 0.9) @ trotz(-1.1) @ trotx(0.7)
    tc = ctraj(T0, T1, 11)
    assert tc.shape == (11, 4, 4)
    np.testing.assert_allclose(tc[[0, -1]], [T0, T1], atol=1e-12)
    s = lspb(0.0, 1.0, 11)[0]
    np.testing.assert_allclose(tc[:, :3, 3], T0[:3, 3] + np.outer(s, T1[:3, 3] - T0[:3, 3]),
                               atol=1e-14)
    for T in tc:  # every pose is a rigid transform
        np.testing.assert_allclose(T[:3, :3].T @ T[:3, :3], np.eye(3), atol=1e-12)
        np.testing.assert_array_equal(T[3], [0, 0, 0, 1])


def test_ctraj_pure_rotation_at_constant_angular_rate():
    T1 = trotz(1.2)
    s = np.linspace(0.0, 1.0, 13)
    tc = ctraj(None, T1, s)
    angles = np.array([_angle(T[:3, :3]) for T in tc])
    np.testing.assert_allclose(angles, 1.2 * s, atol=1e-12)
    steps = [_angle(a[:3, :3].T @ b[:3, :3]) for a, b in pairwise(tc)]
    np.testing.assert_allclose(steps, 0.1, atol=1e-12)
    np.testing.assert_allclose(tc[:, :3, 3], 0.0, atol=1e-15)
    # the rotation stays about the z axis
    np.testing.assert_allclose(tc[:, 2, 2], 1.0, atol=1e-12)


def test_ctraj_with_a_tpoly_path_parameter_and_identity_end():
    s = tpoly(0.0, 1.0, np.linspace(0.0, 1.0, 7))[0]
    T0 = transl(1.0, 2.0, 3.0) @ trotz(0.5)
    tc = ctraj(T0, None, s)
    np.testing.assert_allclose(tc[-1], np.eye(4), atol=1e-12)
    angles = [_angle(T[:3, :3]) for T in tc]
    np.testing.assert_allclose(angles, 0.5 * (1 - s), atol=1e-12)


def test_pose_shape_errors():
    with pytest.raises(ValueError, match="T0"):
        ctraj(np.eye(3), np.eye(4), 5)
    with pytest.raises(ValueError, match="Xend"):
        screw_trajectory(np.eye(4), np.eye(3), 1.0, 5, 3)
