"""The multirotor blocks: free fall and ground contact, take-off, both back-ends, JSON round
trip, Monte Carlo batches and parameter errors."""

import math

import numpy as np
import pytest

from blocksim import Diagram, compile_diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.lookup import Piecewise
from blocksim.blocks.quadrotor import (
    AttitudeController,
    ControlMixer,
    MultiRotor,
    PositionController,
    add_flight_stack,
)
from blocksim.engine.batch import simulate_batch
from blocksim.engine.errors import BlockParameterError
from blocksim.io import dumps, loads
from blocksim.robotics.aerial import mdl_hexarotor, mdl_quadrotor, rpy_to_rotation_nb

from ...examples_loader import load_example

G = 9.81


def falling(h=5.0, ground=True, v0=(0.0, 0.0, 0.0)):
    d = Diagram("fall")
    x0 = np.zeros(12)
    x0[2] = -h
    x0[6:9] = v0
    quad = d.add(MultiRotor(x0=x0, ground=ground), name="quad")
    off = d.add(Constant([0.0, 0.0, 0.0, 0.0]), name="off")
    d.connect(off, quad)
    return d


def test_free_fall_with_rotors_off_is_a_projectile():
    v0 = np.array([1.0, -0.5, -2.0])
    res = simulate(falling(50.0, ground=False, v0=v0), 2.0, rtol=1e-10, atol=1e-12)
    t = res.t
    p = res["quad.x"][:, :3]
    expected = np.array([0, 0, -50.0]) + np.outer(t, v0) + 0.5 * np.outer(t**2, [0, 0, G])
    np.testing.assert_allclose(p, expected, atol=1e-9)
    np.testing.assert_allclose(res["quad.x"][:, 6:9], v0 + np.outer(t, [0, 0, G]), atol=1e-9)


@pytest.fixture(scope="module")
def landing():
    return simulate(falling(5.0), 2.0, rtol=1e-9, atol=1e-12)


def test_touchdown_is_a_located_event_and_the_vehicle_rests(landing):
    res = landing
    t_hit = math.sqrt(2 * 5.0 / G)
    assert res.stats["nevents"] == 1
    z = res["quad.x"][:, 2]
    assert np.all(z <= 1e-12)  # never below the ground
    i = np.searchsorted(res.t, t_hit + 1e-6)
    assert abs(res.t[i - 1] - t_hit) < 1e-6 or abs(res.t[i] - t_hit) < 1e-6
    after = res.t > t_hit + 1e-6
    np.testing.assert_array_equal(res["quad.x"][after][:, 2], 0.0)
    np.testing.assert_array_equal(res["quad.x"][after][:, 6:], 0.0)


def test_take_off_from_the_ground_only_when_thrust_exceeds_weight():
    q = mdl_quadrotor()
    wh = q.hover_speed()
    d = Diagram("takeoff")
    quad = d.add(MultiRotor(), name="quad")  # at rest on the ground
    speeds = d.add(
        Piecewise([0.0, 1.0], [list(0.9 * wh * q.spin), list(1.1 * wh * q.spin)]), name="speeds"
    )
    d.connect(speeds, quad)
    res = simulate(d, 1.5, rtol=1e-10, atol=1e-12)
    z = res["quad.x"][:, 2]
    np.testing.assert_array_equal(z[res.t <= 1.0], 0.0)
    a = 4 * q.b * (1.1 * wh) ** 2 / q.M - G  # upward acceleration after t = 1
    late = res.t > 1.0
    np.testing.assert_allclose(-z[late], 0.5 * a * (res.t[late] - 1.0) ** 2, atol=1e-9)
    assert res.stats["nevents"] == 0


def test_outputs_pose_and_body_velocity():
    x0 = [0.5, -1.0, -2.0, 0.1, -0.2, 0.7, 1.0, 2.0, -0.5, 0.0, 0.0, 0.0]
    q = mdl_quadrotor()
    d = Diagram("out")
    quad = d.add(MultiRotor(x0=x0), name="quad")
    w = d.add(Constant(list(q.spin * q.hover_speed())), name="w")
    d.connect(w, quad)
    res = simulate(d, 0.01)
    T, vb, x = res["quad.T"][0], res["quad.vb"][0], res["quad.x"][0]
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_allclose(T[:3, 3], x0[:3])
    np.testing.assert_array_equal(res["quad.R"][0], T[:3, :3])
    np.testing.assert_allclose(T[:3, :3], rpy_to_rotation_nb(0.1, -0.2, 0.7), atol=1e-15)
    np.testing.assert_allclose(T[:3, :3] @ vb, x0[6:9], atol=1e-15)


@pytest.fixture(scope="module")
def flight():
    """The waypoint flight without sinks: the structure benchmarks/multirotor.py compiles
    too (the compiled module is cached by structure, so the tests compile it once)."""
    return compile_diagram(load_example("quadrotor_waypoints").build(with_scope=False))


def test_flight_runs_the_same_on_both_backends(flight):
    opts = dict(rtol=1e-9, atol=1e-12, record_dt=0.05)
    a = simulate(flight, 6.0, **opts)
    b = simulate(flight, 6.0, backend="compiled", **opts)
    assert b.stats["backend"] == "compiled" and b.stats["nevents"] == 0
    np.testing.assert_allclose(b.t, a.t, atol=1e-9)
    assert sorted(a.signals) == sorted(b.signals)
    for name in a.signals:
        span = max(1.0, float(np.ptp(a[name])))
        np.testing.assert_allclose(b[name], a[name], atol=1e-6 * span, rtol=0, err_msg=name)


def test_flight_round_trips_through_json(flight):
    d = load_example("quadrotor_waypoints").build(with_scope=False)
    again = loads(dumps(d)).diagram
    a = simulate(d, 1.0, solver="rk4", dt=0.01)
    b = simulate(again, 1.0, solver="rk4", dt=0.01)
    assert a.signals == b.signals
    for s in a.signals:
        np.testing.assert_array_equal(a[s], b[s], err_msg=s)


def test_mass_and_wind_monte_carlo_in_a_compiled_batch(flight):
    masses = [3.6, 4.0, 4.4]
    winds = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, -2.0, 0.0]]
    members = [{"quad.M": m, "quad.wind": w} for m, w in zip(masses, winds)]
    batch = simulate_batch(flight, members, 10.0, backend="compiled", record_dt=0.5)
    assert batch.failures() == "no member failed"
    goal = load_example("quadrotor_waypoints").WAYPOINTS[1]
    for m in range(len(members)):
        # the integral action reaches the waypoint despite the mass error and the wind drag
        np.testing.assert_allclose(batch["quad.x"][m, -1, :3], goal, atol=0.03)
    # without wind the 3.6 kg vehicle hovers at sqrt(M g / (4 b)), below the nominal 861 rad/s
    b = mdl_quadrotor().b
    w = np.abs(batch["mixer.omega"][0, -2])  # t = 9.5 s, before the step to the next corner
    np.testing.assert_allclose(w.mean(), math.sqrt(3.6 * G / (4 * b)), rtol=2e-3)
    # the flapping drag pushes the vehicle downwind; it holds its position by tilting its
    # thrust upwind: a wind along +x needs thrust along -x (nose up, pitch > 0), a wind
    # along -y thrust along +y (roll > 0)
    assert batch["quad.x"][1, -1, 4] > 0.001
    assert batch["quad.x"][2, -1, 3] > 0.001


def yaw_loop(yaw_rate, command):
    q = mdl_quadrotor()
    d = Diagram("yaw")
    quad = d.add(MultiRotor(x0=[0.0, 0.0, -1.0], flapping=False), name="quad")
    att = d.add(AttitudeController(yaw_rate=yaw_rate), name="att")
    mixer = d.add(ControlMixer(), name="mixer")
    cmd = d.add(Constant([0.0, 0.0, command]), name="cmd")  # yaw [rad] or yaw rate [rad/s]
    thrust = d.add(Constant(q.M * q.g), name="thrust")
    d.connect(cmd, att["att"])
    d.connect(quad["x"], att["x"])
    for axis in ("tau_roll", "tau_pitch", "tau_yaw"):
        d.connect(att[axis], mixer[axis])
    d.connect(thrust, mixer["T"])
    d.connect(mixer["omega"], quad)
    return simulate(d, 6.0, rtol=1e-8, atol=1e-10)


def test_attitude_loop_turns_to_a_yaw_angle():
    res = yaw_loop(False, 0.05)  # small enough for the weak yaw authority: no saturation
    assert res["mixer.saturated"].max() == 0.0
    x = res["quad.x"][-1]
    assert abs(x[5] - 0.05) < 1e-3 and abs(x[11]) < 1e-3
    np.testing.assert_allclose(x[[3, 4, 9, 10]], 0.0, atol=1e-9)  # roll, pitch untouched
    np.testing.assert_allclose(x[:3], [0.0, 0.0, -1.0], atol=1e-9)  # hover thrust exact


def test_attitude_loop_holds_a_yaw_rate():
    res = yaw_loop(True, 0.2)
    late = res.t > 3.0
    np.testing.assert_allclose(res["quad.x"][late][:, 11], 0.2, atol=1e-3)
    np.testing.assert_allclose(np.gradient(res["quad.x"][late][:, 5], res.t[late]), 0.2, atol=2e-3)


def test_hexarotor_mixer_and_plant_have_six_rotors():
    d = Diagram("hexa")
    stack = add_flight_stack(d, "hexarotor", x0=[0.0, 0.0, -1.0])
    ref = d.add(Constant([0.5, 0.0, -1.0]), name="ref")
    d.connect(ref, stack.pos["p"])
    res = simulate(d, 8.0)
    w = res["mixer.omega"]
    assert w.shape[1] == 6
    np.testing.assert_array_equal(np.sign(w[-1]), mdl_hexarotor().spin)
    np.testing.assert_allclose(res["quad.x"][-1][:3], [0.5, 0.0, -1.0], atol=0.01)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: MultiRotor(model="tricopter"), "MultiRotor: parameter 'model' must be one of"),
        (lambda: MultiRotor(model={"nrotors": 5}), "nrotors must be an even integer >= 4"),
        (lambda: MultiRotor(x0=[1, 2]), "MultiRotor: parameter 'x0' must be 3"),
        (lambda: MultiRotor(x0=[0, 0, 1.0]), "below the ground"),
        (lambda: MultiRotor(wind=[1, 2]), "MultiRotor: parameter 'wind' must be"),
        (lambda: MultiRotor(ground=1), "MultiRotor: parameter 'ground' must be True or False"),
        (lambda: MultiRotor(M=0.0), "MultiRotor: parameter 'M' must be a positive number"),
        (lambda: ControlMixer(wmin=500, wmax=100), "ControlMixer: need wmin < wmax"),
        (lambda: ControlMixer(wmin=-1), "ControlMixer: parameter 'wmin' must be a non-negative"),
        (lambda: PositionController(max_tilt=2.0), "PositionController: parameter 'max_tilt'"),
        (lambda: PositionController(Kp=[1, 2]), "PositionController: parameter 'Kp' must be"),
        (lambda: AttitudeController(Kd="x"), "AttitudeController: parameter 'Kd' must be"),
    ],
)
def test_bad_parameters_name_the_block_and_parameter(make, message):
    with pytest.raises(BlockParameterError, match=message):
        make()


def test_wrong_number_of_rotor_speeds_is_reported():
    d = Diagram("bad")
    quad = d.add(MultiRotor("hexarotor", x0=[0, 0, -1]), name="quad")
    w = d.add(Constant([1.0, 2.0, 3.0, 4.0]), name="w")
    d.connect(w, quad)
    with pytest.raises(Exception, match="quad"):
        simulate(d, 0.1)
