"""Modern Robotics chapter 9: time scalings and JointTrajectory (upstream reference values)."""

import numpy as np
import pytest

from blocksim.robotics.trajectory.time_scaling import (
    cubic_time_scaling,
    joint_trajectory,
    path_parameters,
    quintic_time_scaling,
)


def test_mr_time_scaling_values():
    assert cubic_time_scaling(2, 0.6) == pytest.approx(0.216, abs=1e-12)
    assert quintic_time_scaling(2, 0.6) == pytest.approx(0.16308, abs=1e-12)


def test_time_scalings_are_rest_to_rest():
    t = np.linspace(0.0, 3.0, 3001)
    for f in (cubic_time_scaling, quintic_time_scaling):
        s = f(3.0, t)
        assert (s[0], s[-1]) == pytest.approx((0.0, 1.0), abs=1e-15)
        sd = np.gradient(s, t)
        assert abs(sd[0]) < 1e-3 and abs(sd[-1]) < 1e-3
        assert np.all(np.diff(s) > 0)
        np.testing.assert_allclose(s + s[::-1], 1.0, atol=1e-14)
    sdd = np.gradient(np.gradient(quintic_time_scaling(3.0, t), t), t)
    assert abs(sdd[2]) < 1e-2 and abs(sdd[-3]) < 1e-2  # quintic: zero end acceleration


def test_mr_joint_trajectory_example():
    traj = joint_trajectory([1, 0, 0, 1, 1, 0.2, 0, 1], [1.2, 0.5, 0.6, 1.1, 2, 2, 0.9, 1], 4, 6, 3)
    expected = [
        [1, 0, 0, 1, 1, 0.2, 0, 1],
        [1.0208, 0.052, 0.0624, 1.0104, 1.104, 0.3872, 0.0936, 1],
        [1.0704, 0.176, 0.2112, 1.0352, 1.352, 0.8336, 0.3168, 1],
        [1.1296, 0.324, 0.3888, 1.0648, 1.648, 1.3664, 0.5832, 1],
        [1.1792, 0.448, 0.5376, 1.0896, 1.896, 1.8128, 0.8064, 1],
        [1.2, 0.5, 0.6, 1.1, 2, 2, 0.9, 1],
    ]
    assert traj.shape == (6, 8)
    np.testing.assert_allclose(traj, expected, atol=1e-12)


def test_method_other_than_3_is_quintic():
    s5 = path_parameters(2.0, 5, 5)
    np.testing.assert_allclose(s5, quintic_time_scaling(2.0, np.linspace(0, 2, 5)), atol=1e-15)
    np.testing.assert_array_equal(path_parameters(2.0, 5, 7), s5)
    with pytest.raises(ValueError):
        path_parameters(2.0, 1, 3)
