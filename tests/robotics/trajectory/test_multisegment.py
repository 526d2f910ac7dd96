"""RTB mstraj: timing, via points, speed limits, end conditions."""

import numpy as np
import pytest

from blocksim.robotics.trajectory.multisegment import mstraj

VIA = np.array([[10.0, 40.0], [10.0, 10.0], [40.0, 10.0]])
Q0 = np.array([40.0, 40.0])


def test_rtb_step_count_with_speed_limits():
    # dt = 1, tacc = 5 -> tacc2 = 3; segment times 3 + 15, 5 + 30, 5 + 15 (slowest axis)
    # rows: (18 - 3) + (35 - 1) + (20 - 1) + 3 final blend rows = 71
    q, t = mstraj(VIA, [2.0, 1.0], None, Q0, 1.0, 5.0, return_time=True)
    assert q.shape == (71, 2)
    np.testing.assert_array_equal(t, np.arange(1, 72, dtype=float))
    np.testing.assert_array_equal(q[-1], VIA[-1])


def test_speed_limits_hold_on_the_segments_and_interior_blends():
    qdmax = np.array([2.0, 1.0])
    dt = 0.05
    q = mstraj(VIA, qdmax, None, Q0, dt, 2.0)
    speed = np.abs(np.diff(np.vstack([Q0, q]), axis=0)) / dt
    n2 = 20  # tacc2 = 1 s: first and final blend rows
    assert np.all(speed[n2:-n2] <= qdmax * (1 + 1e-9))
    # RTB segment time = blend time + |dq|/qdmax of the slowest axis: 1 + 15, 2 + 30, 2 + 15 s
    assert speed[n2:-n2, 0].max() == pytest.approx(30.0 / 16.0, rel=1e-9)
    assert speed[n2:-n2, 1].max() == pytest.approx(30.0 / 32.0, rel=1e-9)
    # RTB's first and last blends overshoot the segment speed by at most ~1.512x
    assert np.all(speed <= 1.52 * qdmax)


def test_via_points_are_passed_at_the_planned_times_within_the_blend_offset():
    # tsegment mode, tacc an even number of steps: blends are centred on the arrival times
    dt, tacc = 0.1, 0.4
    tseg = np.array([2.0, 3.0, 4.0])
    q, t = mstraj(VIA, None, tseg, Q0, dt, tacc, return_time=True)
    assert len(t) == 90 and t[-1] == pytest.approx(tseg.sum())  # K dt = sum(tseg)
    points = np.vstack([Q0, VIA])
    vel = np.diff(points, axis=0) / tseg[:, None]
    arrival = np.cumsum(tseg)
    for k in range(len(VIA) - 1):
        row = round(arrival[k] / dt) - 1
        # quintic blend midpoint: via + 3/32 tacc (v_next - v_prev), exactly
        expected = VIA[k] + 3.0 / 32.0 * tacc * (vel[k + 1] - vel[k])
        np.testing.assert_allclose(q[row], expected, atol=1e-12)
        assert np.min(np.linalg.norm(q - VIA[k], axis=1)) <= np.linalg.norm(expected - VIA[k])
    np.testing.assert_allclose(q[-1], VIA[-1], atol=1e-12)


def test_without_blends_the_path_is_piecewise_linear_through_the_via_points():
    dt = 0.5
    q, t = mstraj(VIA, None, [2.0, 3.0, 4.0], Q0, dt, 0.0, return_time=True)
    points = np.vstack([Q0, VIA])
    arrival = np.concatenate([[0.0], np.cumsum([2.0, 3.0, 4.0])])
    expected = np.column_stack([np.interp(t, arrival, points[:, j]) for j in range(2)])
    np.testing.assert_allclose(q, expected, atol=1e-12)


def test_initial_and_final_velocities():
    dt = 1e-3
    qd0 = np.array([-3.0, 1.0])
    q = mstraj(VIA[:1], [5.0, 5.0], None, Q0, dt, 0.5, qd0=qd0, qdf=[0.0, 0.0])
    np.testing.assert_allclose((q[0] - Q0) / dt, qd0, atol=0.05)
    np.testing.assert_allclose((q[-1] - q[-2]) / dt, 0.0, atol=0.05)
    np.testing.assert_allclose(q[-1], VIA[0], atol=1e-12)


def test_argument_errors():
    with pytest.raises(ValueError, match="exactly one"):
        mstraj(VIA, [1.0, 1.0], [1.0, 1.0, 1.0], Q0, 0.1, 0.2)
    with pytest.raises(ValueError, match="exactly one"):
        mstraj(VIA, None, None, Q0, 0.1, 0.2)
    with pytest.raises(ValueError, match="qdmax"):
        mstraj(VIA, [1.0, 0.0], None, Q0, 0.1, 0.2)
    with pytest.raises(ValueError, match="tsegment"):
        mstraj(VIA, None, [1.0, 1.0], Q0, 0.1, 0.2)
    with pytest.raises(ValueError, match="q0"):
        mstraj(VIA, [1.0, 1.0], None, [0.0, 0.0, 0.0], 0.1, 0.2)
