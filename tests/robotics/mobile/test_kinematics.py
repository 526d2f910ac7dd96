"""Vehicle kinematics: exact arcs against the analytic circle and the ODE."""

import math

import numpy as np
from scipy.integrate import solve_ivp

from blocksim.robotics.mobile import (
    bicycle_deriv,
    bicycle_radius,
    bicycle_step,
    diffsteer_speeds,
    pioneer_deriv,
    unicycle_step,
    wrap_angle,
)


def test_bicycle_constant_steer_is_a_circle():
    L, v, gamma = 2.0, 1.5, 0.3
    R = L / math.tan(gamma)
    x0 = np.array([1.0, -2.0, 0.4])
    centre = x0[:2] + R * np.array([-math.sin(x0[2]), math.cos(x0[2])])
    x = x0.copy()
    for _ in range(200):
        x = bicycle_step(x, v, gamma, L, 0.05)
        assert abs(np.hypot(*(x[:2] - centre)) - R) < 1e-12
    # heading advanced by v t / R after t = 10 s
    assert abs(x[2] - (x0[2] + v * 10.0 / R)) < 1e-12
    assert abs(bicycle_radius(gamma, L) - R) < 1e-15
    assert bicycle_radius(0.0, L) == math.inf


def test_bicycle_step_solves_the_ode():
    L, v, gamma, T = 1.0, 2.0, -0.4, 3.0
    x0 = np.array([0.5, 0.2, -1.0])
    sol = solve_ivp(lambda t, x: bicycle_deriv(x, v, gamma, L), (0, T), x0, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(bicycle_step(x0, v, gamma, L, T), sol.y[:, -1], atol=1e-8)


def test_straight_line_and_reverse():
    x = bicycle_step(np.array([0.0, 0.0, math.pi / 2]), -1.0, 0.0, 1.0, 2.0)
    np.testing.assert_allclose(x, [0.0, -2.0, math.pi / 2], atol=1e-15)
    # a tiny turn goes through the series branch and stays continuous with the arc branch
    a = unicycle_step(np.zeros(3), 1.0, 1e-10, 1.0)
    b = unicycle_step(np.zeros(3), 1.0, 1e-8, 1.0)
    np.testing.assert_allclose(a, b, atol=1e-8)


def test_diffsteer_and_pioneer_steady_state():
    v, w = diffsteer_speeds(0.9, 1.1, 0.2)
    assert abs(v - 1.0) < 1e-15 and abs(w - 0.5) < 1e-15
    p = (0.2604, 0.2509, -0.000499, 0.9965, 0.00263, 1.0768)
    u, om = 0.4, 0.2
    du, dw = pioneer_deriv(u, om, p[3] * u - p[2] * om**2, (p[5] + p[4] * u) * om, *p)
    assert abs(du) < 1e-15 and abs(dw) < 1e-15


def test_wrap_angle():
    for a in (-7.0, -math.pi, 0.0, 3.5, 100.0):
        w = wrap_angle(a)
        assert -math.pi <= w < math.pi
        assert abs(math.sin(w) - math.sin(a)) < 1e-12 and abs(math.cos(w) - math.cos(a)) < 1e-12
