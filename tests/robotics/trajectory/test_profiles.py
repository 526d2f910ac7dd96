"""The single-time profile kernels: boundary conditions, hold, derivatives, speed checks."""

import numpy as np
import pytest

from blocksim.robotics.trajectory.profiles import (
    quintic_at,
    quintic_axes_at,
    quintic_sampled,
    trapezoidal_at,
    trapezoidal_axes_at,
    trapezoidal_sampled,
)
from blocksim.robotics.trajectory.time_scaling import quintic_time_scaling


def _fd(f, t, h=1e-5):
    """Central differences of q and qd of a profile f(t) -> (q, qd, qdd)."""
    qp, qdp, _ = f(t + h)
    qm, qdm, _ = f(t - h)
    return (qp - qm) / (2 * h), (qdp - qdm) / (2 * h)


def test_quintic_boundary_conditions_with_end_velocities():
    q0, qf, qd0, qdf, T = 0.3, -1.2, 0.5, -0.25, 2.5
    assert quintic_at(q0, qf, qd0, qdf, T, 0.0) == pytest.approx((q0, qd0, 0.0), abs=1e-14)
    assert quintic_at(q0, qf, qd0, qdf, T, T) == pytest.approx((qf, qdf, 0.0), abs=1e-13)


def test_quintic_holds_outside_the_interval():
    assert quintic_at(0.3, -1.2, 0.5, -0.25, 2.5, -0.1) == (0.3, 0.0, 0.0)
    assert quintic_at(0.3, -1.2, 0.5, -0.25, 2.5, 2.6) == (-1.2, 0.0, 0.0)


def test_quintic_derivatives_match_finite_differences():
    def f(t):
        return quintic_at(0.3, -1.2, 0.5, -0.25, 2.5, t)

    for t in (0.2, 0.9, 1.25, 2.1):
        dq, dqd = _fd(f, t)
        _, qd, qdd = f(t)
        assert dq == pytest.approx(qd, rel=1e-7, abs=1e-9)
        assert dqd == pytest.approx(qdd, rel=1e-7, abs=1e-8)


def test_quintic_rest_to_rest_is_the_mr_quintic_time_scaling():
    Tf = 3.0
    for t in np.linspace(0.0, Tf, 13):
        q, _, _ = quintic_at(0.0, 1.0, 0.0, 0.0, Tf, t)
        assert q == pytest.approx(quintic_time_scaling(Tf, t), abs=1e-15)


def test_quintic_axes_and_sampled_equal_the_scalar_kernel():
    q0 = np.array([0.0, 1.0, -2.0])
    qf = np.array([1.0, 1.0, 3.0])
    qd0 = np.array([0.1, 0.0, -0.3])
    qdf = np.array([0.0, 0.2, 0.4])
    times = np.array([-0.5, 0.0, 0.4, 1.1, 2.0, 2.5])
    q, qd, qdd = quintic_sampled(q0, qf, qd0, qdf, 2.0, times)
    for i, t in enumerate(times):
        row = quintic_axes_at(q0, qf, qd0, qdf, 2.0, t)
        for j in range(3):
            ref = quintic_at(q0[j], qf[j], qd0[j], qdf[j], 2.0, t)
            assert (q[i, j], qd[i, j], qdd[i, j]) == ref
            assert (row[0][j], row[1][j], row[2][j]) == ref


def test_trapezoidal_pieces_and_cruise_velocity():
    q0, qf, T, V = 1.0, 4.0, 2.0, 2.0  # tb = T - dq/V = 0.5, a = 4
    assert trapezoidal_at(q0, qf, T, V, 0.25) == pytest.approx((1.0 + 2.0 * 0.25**2, 1.0, 4.0))
    for t in (0.6, 1.0, 1.4):
        q, qd, qdd = trapezoidal_at(q0, qf, T, V, t)
        assert (qd, qdd) == (V, 0.0)
        assert q == pytest.approx(0.5 * (q0 + qf - V * T) + V * t)
    assert trapezoidal_at(q0, qf, T, V, 1.75) == pytest.approx((4.0 - 2.0 * 0.25**2, 1.0, -4.0))
    assert trapezoidal_at(q0, qf, T, V, 0.0) == (q0, 0.0, 4.0)
    assert trapezoidal_at(q0, qf, T, V, T) == (qf, 0.0, -4.0)
    assert trapezoidal_at(q0, qf, T, V, -1.0) == (q0, 0.0, 0.0)
    assert trapezoidal_at(q0, qf, T, V, 3.0) == (qf, 0.0, 0.0)


def test_trapezoidal_is_continuous_at_the_blend_points():
    q0, qf, T, V = 2.0, -1.0, 3.0, 1.4  # downwards; V is a magnitude
    tb = T - abs(qf - q0) / V
    for tk in (tb, T - tb):
        before = trapezoidal_at(q0, qf, T, V, tk - 1e-9)
        after = trapezoidal_at(q0, qf, T, V, tk + 1e-9)
        assert after[0] == pytest.approx(before[0], abs=1e-8)
        assert after[1] == pytest.approx(before[1], abs=1e-8)
    assert trapezoidal_at(q0, qf, T, V, 1.5)[1] == -V


def test_trapezoidal_derivatives_match_finite_differences():
    def f(t):
        return trapezoidal_at(-0.5, 0.7, 1.5, 1.0, t)

    for t in (0.1, 0.5, 0.75, 1.0, 1.4):
        dq, dqd = _fd(f, t, h=1e-6)
        _, qd, qdd = f(t)
        assert dq == pytest.approx(qd, abs=1e-7)
        assert dqd == pytest.approx(qdd, abs=1e-5)


def test_trapezoidal_limits_linear_and_triangular():
    # |V| = |dq|/T: no blends, straight line
    assert trapezoidal_at(0.0, 2.0, 4.0, 0.5, 1.0) == (0.5, 0.5, 0.0)
    assert trapezoidal_at(0.0, 2.0, 4.0, 0.5, 0.0) == (0.0, 0.5, 0.0)
    # |V| = 2|dq|/T: triangle, peak speed V at T/2
    q, qd, _ = trapezoidal_at(0.0, 2.0, 4.0, 1.0, 2.0)
    assert (q, qd) == pytest.approx((1.0, 1.0))


def test_trapezoidal_rejects_inadmissible_speeds():
    with pytest.raises(ValueError):
        trapezoidal_at(0.0, 2.0, 4.0, 0.49, 1.0)
    with pytest.raises(ValueError):
        trapezoidal_at(0.0, 2.0, 4.0, 1.01, 1.0)
    with pytest.raises(ValueError):
        trapezoidal_at(0.0, 2.0, 4.0, np.nan, 1.0)
    # no motion: any speed, constant output
    assert trapezoidal_at(1.0, 1.0, 4.0, 0.0, 2.0) == (1.0, 0.0, 0.0)


def test_trapezoidal_axes_and_sampled_equal_the_scalar_kernel():
    q0 = np.array([0.0, 1.0, 3.0])
    qf = np.array([1.0, 1.0, -2.0])
    V = np.array([0.75, 0.0, 3.0])
    times = np.array([-0.1, 0.0, 0.3, 1.0, 1.9, 2.0, 2.2])
    q, qd, qdd = trapezoidal_sampled(q0, qf, 2.0, V, times)
    for i, t in enumerate(times):
        row = trapezoidal_axes_at(q0, qf, 2.0, V, t)
        for j in range(3):
            ref = trapezoidal_at(q0[j], qf[j], 2.0, V[j], t)
            assert (q[i, j], qd[i, j], qdd[i, j]) == ref
            assert (row[0][j], row[1][j], row[2][j]) == ref
