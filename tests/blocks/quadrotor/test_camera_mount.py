"""CameraMount: the pose of a camera carried by the vehicle."""

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.quadrotor import CameraMount
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.aerial import pose_nb
from blocksim.robotics.spatial import transl, trotx

X = np.array([1.0, -2.0, -3.0, 0.2, -0.1, 0.7, 0.5, 0.1, 0.0, 0.3, 0.2, 0.1])


def pose_of(block):
    d = Diagram("mount")
    src = d.add(Constant(list(X)), name="x")
    m = d.add(block, name="mount")
    d.connect(src, m)
    return simulate(d, 0.01)["mount.pose"][0]


def test_fixed_camera_is_body_pose_times_mount():
    mount = transl(0.1, 0.0, 0.05) @ trotx(0.3)
    np.testing.assert_allclose(
        pose_of(CameraMount(mount, gimbal=False)), pose_nb(X) @ mount, atol=1e-15
    )


def test_gimballed_camera_keeps_only_position_and_yaw():
    T = pose_of(CameraMount())
    c, s = np.cos(0.7), np.sin(0.7)
    np.testing.assert_allclose(
        T, [[c, -s, 0, 1.0], [s, c, 0, -2.0], [0, 0, 1, -3.0], [0, 0, 0, 1]], atol=1e-15
    )


@pytest.mark.parametrize("bad", [np.eye(3), 2 * np.eye(4), [[1, 2], [3, 4]], "x"])
def test_mount_must_be_a_rigid_transform(bad):
    with pytest.raises(BlockParameterError, match="CameraMount: parameter 'mount'"):
        CameraMount(bad)
