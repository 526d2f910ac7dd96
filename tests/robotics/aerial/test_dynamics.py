"""Physics of the N-rotor model: hover, free fall, torques, flapping, angular momentum."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from blocksim.robotics.aerial import (
    dynamics_params,
    euler_rates_nb,
    mdl_hexarotor,
    mdl_octorotor,
    mdl_quadrotor,
    mixer,
    multirotor,
    nrotor_deriv,
    pose_nb,
    rotor_forces_nb,
    rpy_to_rotation_nb,
)
from blocksim.robotics.spatial import rpy2r

MODELS = [mdl_quadrotor(), mdl_hexarotor(), mdl_octorotor()]


def forces(model, x, omega, wind=None, flapping=True):
    p = dynamics_params(model, wind, flapping)
    D, b, k, r, gamma, th0, th1, w, flap = p[4:13]
    return rotor_forces_nb(
        np.asarray(x, float), np.asarray(omega, float), D, b, k, r, gamma, th0, th1, w, flap
    )


def hover_state(z=-2.0):
    x = np.zeros(12)
    x[2] = z
    return x


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_hover_thrust_equals_weight_at_the_hover_speed(model):
    omega = model.spin * model.hover_speed()
    dx = nrotor_deriv(model, hover_state(), omega)
    # every rotor's thrust b w^2 sums to M g exactly: no acceleration (to rounding of M g)
    assert abs(dx[8]) < 1e-14 * model.g
    np.testing.assert_array_equal(dx[:8], 0.0)
    np.testing.assert_allclose(dx[9:], 0.0, atol=1e-13)
    F, _, a1s, _ = forces(model, hover_state(), omega)
    assert -F[2] == pytest.approx(model.M * model.g, rel=1e-15)
    np.testing.assert_array_equal(a1s, 0.0)  # no flapping in hover
    # a bit more speed climbs (z down: negative acceleration), a bit less sinks
    assert nrotor_deriv(model, hover_state(), 1.01 * omega)[8] < 0
    assert nrotor_deriv(model, hover_state(), 0.99 * omega)[8] > 0


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_free_fall_with_rotors_off_is_a_projectile(model):
    x0 = np.array([1.0, 2.0, -50.0, 0.3, -0.2, 1.0, 2.0, -1.0, -3.0, 0.0, 0.0, 0.0])
    omega = np.zeros(model.nrotors)
    dx = nrotor_deriv(model, x0, omega, ground=False)
    np.testing.assert_array_equal(dx[6:9], [0.0, 0.0, model.g])
    sol = solve_ivp(
        lambda t, x: nrotor_deriv(model, x, omega, ground=False),
        (0, 2.0),
        x0,
        rtol=1e-11,
        atol=1e-12,
        dense_output=True,
    )
    t = np.linspace(0, 2.0, 9)
    X = sol.sol(t)
    g = np.array([0.0, 0.0, model.g])
    expected = x0[:3, None] + x0[6:9, None] * t + 0.5 * g[:, None] * t**2
    np.testing.assert_allclose(X[:3], expected, atol=1e-9)
    np.testing.assert_allclose(X[3:6], x0[3:6, None] + 0 * t, atol=1e-12)


def test_yaw_torque_sign_matches_spin_direction():
    q = mdl_quadrotor()
    wh = q.hover_speed()
    # speed up the clockwise rotors (spin +1, about +z_B which points down): their drag
    # reaction turns the body anticlockwise seen from above, i.e. about -z_B (yaw decreases)
    omega = q.spin * wh
    omega[q.spin > 0] *= 1.05
    dx = nrotor_deriv(q, hover_state(), omega)
    assert dx[11] < 0 and abs(dx[9]) < 1e-12 and abs(dx[10]) < 1e-12
    _, tau, _, _ = forces(q, hover_state(), omega)
    k = q.k
    assert tau[2] == pytest.approx(-k * ((1.05 * wh) ** 2 * 2 - wh**2 * 2), rel=1e-12)
    # the opposite rotors turn the other way
    omega = q.spin * wh
    omega[q.spin < 0] *= 1.05
    assert nrotor_deriv(q, hover_state(), omega)[11] > 0


def test_thrust_moments_are_D_cross_F():
    q = mdl_quadrotor()
    wh = q.hover_speed()
    omega = q.spin * wh
    omega[0] *= 1.1  # front rotor (on +x_B) faster: nose up, positive pitch
    _, tau, _, _ = forces(q, hover_state(), omega, flapping=False)
    dT = q.b * wh**2 * (1.1**2 - 1)
    assert tau[1] == pytest.approx(q.d * dT, rel=1e-12) and abs(tau[0]) < 1e-15
    omega = q.spin * wh
    omega[1] *= 1.1  # right rotor (+y_B) faster: right side up, negative roll
    _, tau, _, _ = forces(q, hover_state(), omega, flapping=False)
    assert tau[0] == pytest.approx(-q.d * dT, rel=1e-12)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_model_after_mixer_is_the_identity(model):
    rng = np.random.default_rng(1)
    for _ in range(20):
        T = model.M * model.g * rng.uniform(0.7, 1.3)
        tau = rng.uniform(-0.5, 0.5, 3) * [1, 1, 0.02]
        omega, sat = mixer(model, T, tau)
        assert not sat
        np.testing.assert_array_equal(np.sign(omega), model.spin)
        F, tq, _, _ = forces(model, hover_state(), omega)  # hover: flapping gives nothing
        np.testing.assert_allclose(F, [0.0, 0.0, -T], atol=1e-12 * T)
        np.testing.assert_allclose(tq, tau, atol=1e-12)


def test_mixer_saturation_flag_and_limits():
    q = mdl_quadrotor()
    omega, sat = mixer(q, q.M * q.g, [0, 0, 0], wmin=100, wmax=1000)
    assert not sat
    omega, sat = mixer(q, 3 * q.M * q.g, [0, 0, 0], wmin=100, wmax=1000)
    assert sat and np.all(np.abs(omega) == 1000)
    omega, sat = mixer(q, q.M * q.g, [12.0, 0, 0], wmin=100, wmax=1000)
    assert sat and np.abs(omega).min() == 100 and np.abs(omega).max() == 1000


def test_rotation_convention_matches_rpy2r_zyx():
    roll, pitch, yaw = 0.3, -0.4, 2.0
    R = rpy_to_rotation_nb(roll, pitch, yaw)
    np.testing.assert_allclose(R, rpy2r([yaw, pitch, roll], order="zyx"), atol=1e-15)
    x = np.zeros(12)
    x[:6] = [1, 2, 3, roll, pitch, yaw]
    T = pose_nb(x)
    np.testing.assert_array_equal(T[:3, :3], R)
    np.testing.assert_array_equal(T[:3, 3], [1, 2, 3])


def test_euler_rates_integrate_the_body_angular_velocity():
    # dR/dt = R [w]x: a step along the Euler rates reproduces R expm([w]x dt)
    ang = np.array([0.3, -0.4, 2.0])
    w = np.array([0.5, -0.7, 0.9])
    h = 1e-6
    rates = euler_rates_nb(ang[0], ang[1], *w)
    R0 = rpy_to_rotation_nb(*ang)
    R1 = rpy_to_rotation_nb(*(ang + h * rates))
    S = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    np.testing.assert_allclose((R1 - R0) / h, R0 @ S, atol=1e-5)


def test_torque_free_rotation_conserves_angular_momentum_and_energy():
    J = np.array([[0.08, 0.01, -0.005], [0.01, 0.09, 0.002], [-0.005, 0.002, 0.15]])
    model = multirotor(4, J=J)
    x0 = np.zeros(12)
    x0[2] = -100.0
    x0[3:6] = [0.1, 0.2, 0.3]
    x0[9:] = [1.0, -2.0, 3.0]  # not about a principal axis: the body tumbles
    omega = np.zeros(4)
    sol = solve_ivp(
        lambda t, x: nrotor_deriv(model, x, omega, ground=False),
        (0, 1.0),
        x0,
        rtol=1e-11,
        atol=1e-12,
        dense_output=True,
    )
    L0 = rpy_to_rotation_nb(*x0[3:6]) @ J @ x0[9:]
    E0 = 0.5 * x0[9:] @ J @ x0[9:]
    for t in np.linspace(0.1, 1.0, 10):
        x = sol.sol(t)
        w = x[9:]
        np.testing.assert_allclose(rpy_to_rotation_nb(*x[3:6]) @ J @ w, L0, atol=1e-8)
        assert 0.5 * w @ J @ w == pytest.approx(E0, rel=1e-9)
    assert np.abs(sol.sol(1.0)[9:] - x0[9:]).max() > 0.1  # it did tumble


def test_rotor_torques_change_angular_momentum_at_the_applied_rate():
    # dL/dt (world) = R tau for the rotor torque tau (thrust moments and drag reaction)
    q = mdl_quadrotor()
    x = hover_state()
    x[3:6] = [0.1, -0.05, 0.4]
    x[9:] = [0.3, -0.2, 0.1]
    omega = q.spin * q.hover_speed() * np.array([1.02, 0.97, 1.01, 0.99])
    dx = nrotor_deriv(q, x, omega)
    _, tau, _, _ = forces(q, x, omega)
    R = rpy_to_rotation_nb(*x[3:6])
    h = 1e-7
    R1 = rpy_to_rotation_nb(*(x[3:6] + h * dx[3:6]))
    L0 = R @ q.J @ x[9:]
    L1 = R1 @ q.J @ (x[9:] + h * dx[9:])
    np.testing.assert_allclose((L1 - L0) / h, R @ tau, rtol=1e-5, atol=1e-7)


def test_blade_flapping_drags_and_damps():
    q = mdl_quadrotor()
    omega = q.spin * q.hover_speed()
    x = hover_state()
    x[6] = 2.0  # flying forward: the discs tilt back, the thrust gets a backward component
    F, tau, a1s, b1s = forces(q, x, omega)
    assert F[0] < 0 and np.all(a1s > 0)
    assert abs(F[1]) < 1e-12 * abs(F[2])
    # the same relative wind from a wind blowing backwards over a vehicle at rest
    F2, _, _, _ = forces(q, hover_state(), omega, wind=[-2.0, 0.0, 0.0])
    np.testing.assert_allclose(F2, F, rtol=1e-12)
    # flying right: thrust tilts left
    x = hover_state()
    x[7] = 2.0
    F, _, _, b1s = forces(q, x, omega)
    assert F[1] < 0 and np.all(b1s < 0)
    # pitching and rolling: the rotor lag gives a moment that opposes the rotation (damping)
    for i in (0, 1):
        x = hover_state()
        x[9 + i] = 1.0
        _, tau, _, _ = forces(q, x, omega)
        assert tau[i] < 0
        _, tau0, _, _ = forces(q, x, omega, flapping=False)
        assert abs(tau0[i]) < 1e-12


def test_ground_rest_and_take_off():
    q = mdl_quadrotor()
    x = np.zeros(12)
    low = q.spin * 0.9 * q.hover_speed()
    np.testing.assert_array_equal(nrotor_deriv(q, x, low), 0.0)  # rests on the ground
    assert nrotor_deriv(q, x, low, ground=False)[8] > 0  # without ground it would sink
    high = q.spin * 1.1 * q.hover_speed()
    assert nrotor_deriv(q, x, high)[8] < 0  # takes off


def test_nrotor_deriv_checks_the_number_of_rotors():
    with pytest.raises(ValueError, match="omega must have 6 rotor speeds, got 4"):
        nrotor_deriv(mdl_hexarotor(), np.zeros(12), np.zeros(4))
