"""The joint servo numerics: saturation, motor and flexible-joint equations, closed-form
frequencies."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.robotics.arm.joint_servo import (
    flex_accel,
    flex_free_frequency,
    flex_pd_frequencies,
    motor_accel,
    motor_torque,
    pi_demand,
    saturate,
    voltage_motor_deriv,
)


def test_saturation_and_motor():
    assert saturate(2.0, 1.5) == 1.5 and saturate(-2.0, 1.5) == -1.5 and saturate(0.3, 1.5) == 0.3
    assert saturate(1e300, math.inf) == 1e300
    assert motor_torque(10.0, 0.228, 0.9) == 0.9
    assert motor_torque(1.0, 0.228, 0.9) == 0.228
    assert motor_accel(2.0, 0.5, 0.1, 1e-3, 1e-2) == pytest.approx((0.5 - 0.1 - 0.02) / 1e-3)
    assert pi_demand(0.5, 2.0, 0.3, 1.0, 5.0, 4.0) == pytest.approx(0.5 + 10.0 + 1.2)
    di, dw = voltage_motor_deriv(1.0, 2.0, 3.0, 0.1, 1e-3, 1e-3, 0.2, 0.5, 0.01, 10.0, 20.0)
    assert di == pytest.approx((20.0 - 0.5 - 0.4) / 0.01)  # 30 V clipped to 20
    assert dw == pytest.approx((0.2 - 0.1 - 2e-3) / 1e-3)


def test_flexible_joint_frequencies_are_the_eigenvalues():
    Jm, Jl, k, Kp = 0.3, 1.7, 150.0, 40.0
    # undamped PD loop: M x'' + K x = 0, M = diag(Jm, Jl), K = [[Kp + k, -k], [-k, k]]
    K = np.array([[Kp + k, -k], [-k, k]])
    w2 = np.sort(np.linalg.eigvals(np.diag([1 / Jm, 1 / Jl]) @ K).real)
    np.testing.assert_allclose(flex_pd_frequencies(Jm, Jl, k, Kp), np.sqrt(w2), rtol=1e-12)
    # no control: a rigid-body mode (0) and sqrt(k (Jm + Jl) / (Jm Jl))
    w2 = np.sort(np.linalg.eigvals(np.diag([1 / Jm, 1 / Jl]) @ np.array([[k, -k], [-k, k]])).real)
    assert abs(w2[0]) < 1e-9
    assert flex_free_frequency(Jm, Jl, k) == pytest.approx(math.sqrt(w2[1]), rel=1e-12)
    # a tiny Kp: the low root ~ sqrt(Kp / (Jm + Jl)) without cancellation
    lo, _ = flex_pd_frequencies(Jm, Jl, k, 1e-12)
    assert lo == pytest.approx(math.sqrt(1e-12 / (Jm + Jl)), rel=1e-6)


def test_flex_accel_transmits_the_spring_and_damper_torque():
    am, al = flex_accel(0.2, 0.1, 1.0, 0.5, 3.0, 0.4, 0.5, 2.0, 100.0, 2.0, 0.1, 0.3)
    tw = 100.0 * 0.1 + 2.0 * 0.5
    assert am == pytest.approx((3.0 - tw - 0.1) / 0.5)
    assert al == pytest.approx((tw - 0.15 - 0.4) / 2.0)
