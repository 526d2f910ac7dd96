"""RTB tpoly and lspb: time bases, boundary conditions, shape of the profiles, RTB errors."""

import numpy as np
import pytest

from blocksim.robotics.trajectory.profiles import quintic_at, trapezoidal_at
from blocksim.robotics.trajectory.scalar import lspb, lspb_speed, tpoly


def test_tpoly_steps_are_the_time_base():
    m = 11
    s, sd, sdd = tpoly(0.0, 1.0, m)
    tau = np.arange(m) / (m - 1)
    T = m - 1  # RTB: t = 0..m-1, velocities per step
    np.testing.assert_allclose(s, 10 * tau**3 - 15 * tau**4 + 6 * tau**5, atol=1e-15)
    np.testing.assert_allclose(sd, (30 * tau**2 - 60 * tau**3 + 30 * tau**4) / T, atol=1e-15)
    np.testing.assert_allclose(sdd, (60 * tau - 180 * tau**2 + 120 * tau**3) / T**2, atol=1e-15)


def test_tpoly_rest_to_rest_is_symmetric_and_monotonic():
    s, sd, sdd = tpoly(-1.0, 2.0, 41)
    np.testing.assert_allclose(s + s[::-1], 1.0, atol=1e-14)  # s(t) + s(T - t) = q0 + qf
    np.testing.assert_allclose(sd, sd[::-1], atol=1e-15)
    np.testing.assert_allclose(sdd, -sdd[::-1], atol=1e-15)
    assert np.all(np.diff(s) > 0.0)
    assert (s[0], s[-1]) == pytest.approx((-1.0, 2.0), abs=1e-14)
    assert (sd[0], sd[-1], sdd[0], sdd[-1]) == pytest.approx((0, 0, 0, 0), abs=1e-14)


def test_tpoly_with_time_vector_and_end_velocities():
    t = np.linspace(0.0, 2.0, 201)
    s, sd, sdd = tpoly(1.0, 3.0, t, 0.5, -1.0)
    assert (s[0], sd[0], sdd[0]) == pytest.approx((1.0, 0.5, 0.0), abs=1e-13)
    assert (s[-1], sd[-1], sdd[-1]) == pytest.approx((3.0, -1.0, 0.0), abs=1e-12)
    np.testing.assert_allclose(np.gradient(s, t)[2:-2], sd[2:-2], atol=1e-3)
    np.testing.assert_allclose(np.gradient(sd, t)[2:-2], sdd[2:-2], atol=1e-3)
    for k in (0, 37, 100, 200):
        assert (s[k], sd[k], sdd[k]) == quintic_at(1.0, 3.0, 0.5, -1.0, 2.0, t[k])


def test_lspb_hand_computed_rtb_values():
    # RTB lspb(0, 1, 5): t = 0..4, tf = 4, V = 1.5/4, tb = 4/3, a = V/tb = 0.28125
    s, sd, sdd = lspb(0.0, 1.0, 5)
    np.testing.assert_allclose(s, [0.0, 0.140625, 0.5, 0.859375, 1.0], atol=1e-15)
    np.testing.assert_allclose(sd, [0.0, 0.28125, 0.375, 0.28125, 0.0], atol=1e-15)
    np.testing.assert_allclose(sdd, [0.28125, 0.28125, 0.0, -0.28125, -0.28125], atol=1e-15)


def test_lspb_cruise_velocity_blends_and_total_time():
    t = np.linspace(0.0, 3.0, 3001)
    V = 1.2
    s, sd, sdd = lspb(0.5, 3.0, t, V)
    tb = 3.0 - 2.5 / V
    middle = (t > tb + 1e-9) & (t < 3.0 - tb - 1e-9)
    np.testing.assert_array_equal(sd[middle], V)
    np.testing.assert_array_equal(sdd[middle], 0.0)
    assert (s[0], s[-1], sd[0], sd[-1]) == pytest.approx((0.5, 3.0, 0.0, 0.0), abs=1e-14)
    # continuity of position and velocity everywhere (incl. both blend points)
    assert np.max(np.abs(np.diff(s))) <= V * 1e-3 * (1 + 1e-9)
    assert np.max(np.abs(np.diff(sd))) <= abs(sdd).max() * 1e-3 * (1 + 1e-9)
    np.testing.assert_allclose(np.gradient(s, t)[1:-1], sd[1:-1], atol=1e-3)
    for k in (0, 200, 1500, 2999, 3000):
        assert (s[k], sd[k], sdd[k]) == trapezoidal_at(0.5, 3.0, 3.0, V, t[k])


def test_lspb_default_speed_and_direction():
    assert lspb_speed(0.0, 2.0, 4.0) == 0.75
    assert lspb_speed(2.0, 0.0, 4.0) == -0.75
    assert lspb_speed(2.0, 0.0, 4.0, 0.6) == -0.6  # the sign follows the motion
    s, sd, _ = lspb(2.0, 0.0, np.linspace(0, 4, 9))
    assert np.all(np.diff(s) < 0) and sd[4] == -0.75


def test_lspb_rtb_errors():
    with pytest.raises(ValueError, match="V too small"):
        lspb(0.0, 1.0, 11, 0.09)  # needs |V| >= 1/10
    with pytest.raises(ValueError, match="V too big"):
        lspb(0.0, 1.0, 11, 0.21)  # needs |V| <= 2/10
    s, _, _ = lspb(0.0, 1.0, 11, 0.1)  # the limits themselves are admissible
    np.testing.assert_allclose(s, np.linspace(0.0, 1.0, 11), atol=1e-15)
    s, sd, _ = lspb(0.0, 1.0, 11, 0.2)
    assert sd.max() == pytest.approx(0.2) and s[5] == pytest.approx(0.5)


def test_lspb_no_motion_is_constant():
    s, sd, sdd = lspb(1.5, 1.5, 6)
    np.testing.assert_array_equal(s, 1.5)
    np.testing.assert_array_equal(sd, 0.0)
    np.testing.assert_array_equal(sdd, 0.0)


def test_step_count_must_be_an_integer_of_at_least_two():
    for bad in (1, 2.5, True):
        with pytest.raises(ValueError):
            tpoly(0.0, 1.0, bad)
    with pytest.raises(ValueError):
        lspb(0.0, 1.0, [0.0, -1.0])
