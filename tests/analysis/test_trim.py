"""trim, operating points, simulate from an operating point, and the design helpers."""

from __future__ import annotations

import json

import control
import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.analysis import (
    AnalysisError,
    OperatingPoint,
    dlqr,
    linearize,
    lqr,
    margins,
    operating_point,
    trim,
)
from blocksim.blocks import Constant, DiscreteStateSpace, Gain, Sum
from tests.analysis import models


def test_trim_pendulum_to_a_target_angle_gives_the_analytic_torque():
    m, L = 0.5, 0.8
    target = 0.6
    op = trim(models.pendulum(m=m, L=L), targets={"theta.y": target})
    assert op.success, op.message
    assert op.inputs["tau.y"] == pytest.approx(m * models.G * L * np.sin(target), abs=1e-9)
    assert op.states["theta.x"] == pytest.approx(target, abs=1e-10)
    assert op.states["w.x"] == pytest.approx(0.0, abs=1e-10)
    assert op.residual < 1e-8
    assert op.outputs["sin.y"] == pytest.approx(np.sin(target), abs=1e-9)


def test_trim_with_a_fixed_input_finds_the_state_and_reports_failure_when_unreachable():
    m, L = 0.5, 0.8
    tau = 0.9
    op = trim(models.pendulum(m=m, L=L), x0={"theta": 0.2}, u0={"tau": tau},
              fix_inputs=["tau"])
    assert op.success
    assert op.states["theta.x"] == pytest.approx(np.arcsin(tau / (m * models.G * L)),
                                                 abs=1e-9)
    # more torque than gravity can hold: no equilibrium
    bad = trim(models.pendulum(m=m, L=L), u0={"tau": 10.0}, fix_inputs=["tau"])
    assert not bad.success and bad.residual > 1e-3
    assert "no steady point" in bad.message


def test_trim_with_a_fixed_state():
    op = trim(models.pendulum(), x0={"theta.x": 1.0}, fix_states=["theta.x"])
    assert op.success
    assert op.states["theta.x"] == 1.0
    assert op.inputs["tau.y"] == pytest.approx(0.5 * models.G * 0.8 * np.sin(1.0), abs=1e-9)
    # x0 as a vector of every state, in the plan's order (w, theta)
    vec = trim(models.pendulum(), x0=[0.0, 1.0], fix_states=["theta"])
    assert vec.inputs["tau"] == pytest.approx(op.inputs["tau"], abs=1e-12)
    with pytest.raises(AnalysisError, match=r"a vector of the 2 states \(continuous, then "
                                            r"discrete: w\.x, theta\.x\), got \[1\.0\]"):
        trim(models.pendulum(), x0=[1.0])


def test_trim_of_a_discrete_system_is_its_fixed_point():
    d = Diagram("dfix")
    u = d.add(Constant(0.0), name="u")
    p = d.add(DiscreteStateSpace(models.AD, models.BD, models.CD, clock=0.1), name="p")
    d.connect(u, p)
    op = trim(d, targets={"p.y": 2.0})
    assert op.success
    x = np.array([op.states["p.x0"], op.states["p.x1"]])
    uu = op.inputs["u.y"]
    np.testing.assert_allclose(models.AD @ x + models.BD[:, 0] * uu, x, atol=1e-10)
    assert x[0] == pytest.approx(2.0, abs=1e-10)


def test_bad_names_in_trim_are_named():
    d = models.pendulum()
    with pytest.raises(AnalysisError, match=r"target 'thet.y': no block named 'thet' "
                                            r"\(did you mean 'theta'\?\)"):
        trim(d, targets={"thet.y": 1.0})
    with pytest.raises(AnalysisError, match=r"fix_inputs 'torque': not a root input"):
        trim(d, fix_inputs=["torque"])
    with pytest.raises(AnalysisError, match=r"fix_states 'theta.y': no state of that name"):
        trim(d, fix_states=["theta.y"])
    with pytest.raises(AnalysisError, match=r"target 'theta.y': 2 values for a signal of "
                                            r"shape \(\)"):
        trim(d, targets={"theta.y": [1.0, 2.0]})


def test_simulate_from_the_trimmed_point_stays_at_equilibrium():
    d = models.pendulum()
    op = trim(d, targets={"theta.y": 0.6})
    res = simulate(d, 3.0, x0=op, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["theta.y"], 0.6, atol=1e-8)
    np.testing.assert_allclose(res["tau.y"], op.inputs["tau.y"])
    # the diagram itself is unchanged: from its own initial state it falls from 0 at rest
    plain = simulate(d, 0.1)
    assert plain["tau.y"][0] == 0.0
    with pytest.raises(TypeError, match="as_initial_state"):
        simulate(d, 0.1, x0={"theta.x": 1.0})


def test_operating_point_round_trip_and_strict_json(tmp_path):
    d = models.pendulum()
    op = trim(d, targets={"theta.y": 0.6})
    path = op.save(tmp_path / "op.json")
    back = OperatingPoint.load(path)
    assert back == op
    data = json.loads(path.read_text())
    assert data["format"] == "blocksim-operating-point" and data["version"] == 1
    sys = linearize(d, ["tau.y"], ["theta.y"], op=back)
    A, _ = models.pendulum_jacobian(0.6)
    np.testing.assert_allclose(sys.A, A, atol=1e-8)
    bad = OperatingPoint(states={"theta.x": float("nan")})
    with pytest.raises(ValueError, match=r"theta\.x is NaN or infinite"):
        bad.save(tmp_path / "bad.json")
    (tmp_path / "nan.json").write_text(path.read_text().replace('"residual": ',
                                                                 '"residual": NaN, "x": '))
    with pytest.raises(AnalysisError, match="NaN is not a number of strict JSON"):
        OperatingPoint.load(tmp_path / "nan.json")
    (tmp_path / "other.json").write_text('{"blocksim": 1}')
    with pytest.raises(AnalysisError, match="not an operating point"):
        OperatingPoint.load(tmp_path / "other.json")
    data["states"]["theta.x"] = "one"
    (tmp_path / "str.json").write_text(json.dumps(data))
    with pytest.raises(AnalysisError, match=r'states\["theta.x"\] must be a number'):
        OperatingPoint.load(tmp_path / "str.json")
    other = OperatingPoint(states={"nope.x": 1.0})
    with pytest.raises(AnalysisError, match=r"operating point state 'nope\.x': no state"):
        linearize(d, ["tau.y"], ["theta.y"], op=other)


def test_operating_point_of_the_initial_state():
    op = operating_point(models.pendulum(theta0=0.5))
    assert op.states == {"w.x": 0.0, "theta.x": 0.5}
    assert op.inputs == {"tau.y": 0.0}
    assert op.residual == pytest.approx(models.G / 0.8 * np.sin(0.5))


def test_lqr_and_dlqr_equal_python_control():
    A, B = models.pendulum_jacobian(np.pi)
    Q, R = np.diag([1.0, 10.0]), np.array([[0.1]])
    sys = control.ss(A, B, np.eye(2), 0)
    for got in (lqr(sys, Q, R), lqr(A, B, Q, R)):
        K, S, E = control.lqr(A, B, Q, R)
        np.testing.assert_allclose(got[0], K, rtol=1e-12)
        np.testing.assert_allclose(got[1], S, rtol=1e-12)
        np.testing.assert_allclose(np.sort_complex(got[2]), np.sort_complex(E), rtol=1e-12)
    assert np.all(np.linalg.eigvals(A - B @ lqr(sys, Q, R)[0]).real < 0)
    dsys = control.ss(models.AD, models.BD, models.CD, 0, models.TS)
    K, S, E = dlqr(dsys, np.eye(2), [[1.0]])
    Kc, Sc, _ = control.dlqr(models.AD, models.BD, np.eye(2), [[1.0]])
    np.testing.assert_allclose(K, Kc, rtol=1e-12)
    np.testing.assert_allclose(S, Sc, rtol=1e-12)
    assert np.all(np.abs(E) < 1)
    with pytest.raises(AnalysisError, match=r"discrete.*use dlqr"):
        lqr(dsys, np.eye(2), [[1.0]])
    with pytest.raises(AnalysisError, match=r"continuous.*use lqr"):
        dlqr(sys, Q, R)
    with pytest.raises(AnalysisError, match=r"Q has shape \(3, 3\), expected \(2, 2\)"):
        lqr(sys, np.eye(3), R)


def test_lqr_on_a_linearized_diagram_stabilises_the_upright_pendulum():
    d = models.pendulum(theta0=np.pi)
    sys = linearize(d, ["tau.y"], ["theta.y"], op=trim(d, x0={"theta": np.pi},
                                                       targets={"theta.y": np.pi}))
    K, _, E = lqr(sys, np.diag([1.0, 10.0]), [[0.1]])
    closed = np.linalg.eigvals(sys.A - sys.B @ K)
    np.testing.assert_allclose(np.sort_complex(closed), np.sort_complex(E), atol=1e-9)
    assert np.all(closed.real < 0)


def test_an_lqr_gain_in_a_state_feedback_block_balances_the_pendulum():
    from blocksim.blocks import Mux
    from blocksim.blocks.control import StateFeedback

    up = models.pendulum(theta0=np.pi)
    plant = linearize(up, ["tau.y"], ["theta.y"],
                      op=trim(up, x0={"theta": np.pi}, targets={"theta.y": np.pi}))
    K, _, E = lqr(plant, np.diag([0.1, 10.0]), [[0.5]])
    d = models.pendulum(theta0=np.pi - 0.2, torque=False)
    x = d.add(Mux(2), name="x")
    sf = d.add(StateFeedback(K, x_ref=[0.0, np.pi]), name="sf")
    d.connect("w.y", x["u0"])
    d.connect("theta.y", x["u1"])
    d.connect(x, sf)
    d.connect(sf, "s.u0")
    # the closed loop's linearization at the upright point: the poles LQR designed
    closed = linearize(d, ["sf.u"], ["theta.y"], op=OperatingPoint(
        states={"w.x": 0.0, "theta.x": np.pi}))
    np.testing.assert_allclose(np.sort_complex(closed.poles()), np.sort_complex(E),
                               atol=1e-7)
    res = simulate(d, 6.0)
    assert abs(res["theta.y"][-1] - np.pi) < 1e-3


def test_margins_refuse_mimo():
    with pytest.raises(AnalysisError, match="2 inputs and 1 outputs"):
        margins(control.ss(-np.eye(2), np.eye(2), np.ones((1, 2)), 0))


def test_a_static_gain_diagram():
    d = Diagram("static")
    c = d.add(Constant(1.0), name="c")
    g = d.add(Gain(3.0), name="g")
    s = d.add(Sum("++"), name="s")
    d.connect(c, g, s["u1"])
    d.connect(g, s["u0"])
    sys = linearize(d, ["c.y"], ["s.y"])
    assert sys.nstates == 0 and sys.dt == 0
    assert sys.D[0, 0] == 4.0
