"""RTB jtraj and mtraj."""

import numpy as np
import pytest

from blocksim.robotics.trajectory.joint import jtraj, mtraj
from blocksim.robotics.trajectory.profiles import quintic_axes_at
from blocksim.robotics.trajectory.scalar import lspb, tpoly

Q0 = np.array([0.0, np.pi / 4, -0.5])
QF = np.array([np.pi / 2, -np.pi / 4, 0.25])


def test_jtraj_step_count_runs_normalized_time_from_0_to_1():
    q, qd, qdd = jtraj(Q0, QF, 21)
    assert q.shape == qd.shape == qdd.shape == (21, 3)
    q2, qd2, qdd2 = jtraj(Q0, QF, np.linspace(0.0, 1.0, 21))
    np.testing.assert_allclose(q, q2, atol=1e-15)
    np.testing.assert_allclose(qd, qd2, atol=1e-14)
    np.testing.assert_allclose(qdd, qdd2, atol=1e-13)
    # quintic rest-to-rest: velocity peaks at the middle at 15/8 of the mean
    np.testing.assert_allclose(qd[10], 15 / 8 * (QF - Q0), rtol=1e-13)


def test_jtraj_boundary_conditions_with_end_velocities():
    t = np.linspace(0.0, 2.0, 1001)
    qd0 = np.array([0.1, -0.2, 0.0])
    qdf = np.array([0.0, 0.3, -0.4])
    q, qd, qdd = jtraj(Q0, QF, t, qd0, qdf)
    np.testing.assert_allclose(q[[0, -1]], [Q0, QF], atol=1e-13)
    np.testing.assert_allclose(qd[[0, -1]], [qd0, qdf], atol=1e-13)
    np.testing.assert_allclose(qdd[[0, -1]], 0.0, atol=1e-13)
    np.testing.assert_allclose(np.gradient(q, t, axis=0)[1:-1], qd[1:-1], atol=1e-5)
    np.testing.assert_allclose(np.gradient(qd, t, axis=0)[1:-1], qdd[1:-1], atol=1e-4)
    row = quintic_axes_at(Q0, QF, qd0, qdf, 2.0, t[33])
    for k in range(3):
        np.testing.assert_array_equal((q, qd, qdd)[k][33], row[k])


def test_jtraj_time_scaling_of_velocity_and_acceleration():
    _, qd1, qdd1 = jtraj(Q0, QF, np.linspace(0, 1, 11))
    q3, qd3, qdd3 = jtraj(Q0, QF, np.linspace(0, 3, 11))
    np.testing.assert_allclose(qd3, qd1 / 3, atol=1e-14)
    np.testing.assert_allclose(qdd3, qdd1 / 9, atol=1e-14)
    assert np.all(np.diff(q3[:, 0]) > 0) and np.all(np.diff(q3[:, 1]) < 0)


def test_jtraj_shape_errors():
    with pytest.raises(ValueError, match="qf"):
        jtraj([0, 0], [1, 1, 1], 5)
    with pytest.raises(ValueError, match="qd0"):
        jtraj([0, 0], [1, 1], 5, qd0=[0, 0, 0])


def test_mtraj_with_tpoly_equals_jtraj_on_a_time_vector():
    t = np.linspace(0.0, 1.5, 31)
    for a, b in zip(mtraj(tpoly, Q0, QF, t), jtraj(Q0, QF, t)):
        np.testing.assert_allclose(a, b, atol=1e-14)


def test_mtraj_with_lspb_is_lspb_per_axis():
    q, qd, qdd = mtraj(lspb, Q0, QF, 25)
    assert q.shape == (25, 3)
    for j in range(3):
        s, sd, sdd = lspb(Q0[j], QF[j], 25)
        np.testing.assert_array_equal(q[:, j], s)
        np.testing.assert_array_equal(qd[:, j], sd)
        np.testing.assert_array_equal(qdd[:, j], sdd)
