"""linearize against analytic models (python-control as the oracle)."""

from __future__ import annotations

import control
import numpy as np
import pytest

from blocksim import Diagram
from blocksim.analysis import AnalysisError, OperatingPoint, linearize, margins
from blocksim.blocks import Constant, DiscreteTransferFunction, Gain, Sum, TransferFunction
from tests.analysis import models
from tests.analysis.models import same_tf


def test_mass_spring_damper_equals_the_analytic_transfer_function():
    m, c, k = 2.0, 0.5, 3.0
    sys = linearize(models.mass_spring_damper(m, c, k), ["F.y"], ["x.y"])
    assert same_tf(sys, control.tf([1.0], [m, c, k]))
    assert sys.dt == 0
    assert sys.state_labels == ["v.x", "x.x"]
    assert sys.input_labels == ["F:y"] and sys.output_labels == ["x:y"]
    # linear blocks are read exactly: the coefficients themselves, not approximations
    np.testing.assert_array_equal(sys.A, [[-c / m, -k / m], [1.0, 0.0]])
    np.testing.assert_array_equal(sys.B, [[1.0 / m], [0.0]])


def test_several_outputs_and_an_input_port_point():
    m, c, k = 1.0, 0.4, 2.0
    sys = linearize(models.mass_spring_damper(m, c, k), ["a.u"], ["x.y", "v.y"])
    # a perturbation of what 'a' reads is a force: x/F and v/F
    assert same_tf(sys[0, 0], control.tf([1.0], [m, c, k]))
    assert same_tf(sys[1, 0], control.tf([1.0, 0.0], [m, c, k]))


@pytest.mark.parametrize("theta", [0.0, np.pi, 0.7])
def test_pendulum_equals_the_analytic_jacobian(theta):
    d = models.pendulum(theta0=theta)
    sys = linearize(d, ["tau.y"], ["theta.y"])
    A, B = models.pendulum_jacobian(theta)
    assert sys.state_labels == ["w.x", "theta.x"]
    np.testing.assert_allclose(sys.A, A, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sys.B, B, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sys.C, [[0.0, 1.0]], atol=0)
    poles = np.sort_complex(sys.poles())
    np.testing.assert_allclose(poles, np.sort_complex(np.linalg.eigvals(A)), atol=1e-8)
    if theta == np.pi:  # upright: one unstable pole
        assert np.max(poles.real) > 1.0


def test_pendulum_at_an_operating_point_with_its_input():
    op = OperatingPoint(states={"theta.x": 0.3, "w.x": 0.0}, inputs={"tau.y": 1.0})
    sys = linearize(models.pendulum(), ["tau.y"], ["theta.y", "sin.y"], op=op)
    A, _ = models.pendulum_jacobian(0.3)
    np.testing.assert_allclose(sys.A, A, atol=1e-8)
    np.testing.assert_allclose(sys.C[1], [0.0, np.cos(0.3)], atol=1e-9)
    # states alone, by name (a block's name for its only state)
    same = linearize(models.pendulum(), "tau.y", "theta.y", op={"theta": 0.3})
    np.testing.assert_allclose(same.A, A, atol=1e-8)


def test_closed_pi_loop_equals_feedback_of_the_analytic_parts():
    C = control.tf([models.KP, models.KI], [1.0, 0.0])
    P = control.tf(*models.PLANT)
    sys = linearize(models.pi_loop(), ["r.y"], ["plant.y"])
    assert same_tf(sys, control.feedback(C * P, 1))
    # error signal: the sensitivity r -> e
    e = linearize(models.pi_loop(), ["r.y"], ["e.y"])
    assert same_tf(e, control.feedback(1, C * P))


def test_loop_opened_at_a_port_gives_the_loop_transfer_and_its_margins():
    C = control.tf([models.KP, models.KI], [1.0, 0.0])
    P = control.tf(*models.PLANT)
    L = C * P
    d = models.pi_loop()
    # perturb after the cut, measure before it: -L (negative feedback)
    sys = linearize(d, ["ctrl.y"], ["ctrl.y"], open=["ctrl.y"])
    assert same_tf(-sys, L)
    # the same opening at the plant's input port
    port = linearize(d, ["plant.u"], ["plant.u"], open=["plant.u"])
    assert same_tf(-port, L)
    # without the opening, an input and output point at one place is the sensitivity
    closed = linearize(d, ["ctrl.y"], ["ctrl.y"])
    assert same_tf(closed, control.feedback(1, L))
    got = margins(-sys)
    gm, pm, sm, _, wgc, _ = control.stability_margins(L)
    assert got.pm == pytest.approx(pm, rel=1e-6)
    assert got.wgc == pytest.approx(wgc, rel=1e-6)
    assert got.sm == pytest.approx(sm, rel=1e-6)
    assert (np.isinf(got.gm) and np.isinf(gm)) or got.gm == pytest.approx(gm, rel=1e-6)


def test_margins_of_a_loop_with_a_finite_gain_margin():
    d = Diagram("three")
    r = d.add(Constant(0.0), name="r")
    e = d.add(Sum("+-"), name="e")
    k = d.add(Gain(2.0), name="k")
    p = d.add(TransferFunction([1.0], [1.0, 3.0, 3.0, 1.0]), name="p")
    d.connect(r, e["u0"])
    d.connect(e, k)
    d.connect(k, p)
    d.connect(p, e["u1"])
    sys = linearize(d, ["k.y"], ["k.y"], open=["k.y"])
    L = 2.0 * control.tf([1.0], [1.0, 3.0, 3.0, 1.0])
    got = margins(-sys)
    gm, pm, _, wpc, _, _ = control.stability_margins(L)
    assert got.gm == pytest.approx(gm, rel=1e-7) and got.gm == pytest.approx(4.0, rel=1e-6)
    assert got.wpc == pytest.approx(wpc, rel=1e-7) and got.wpc == pytest.approx(np.sqrt(3))
    assert got.pm == pytest.approx(pm, rel=1e-7)
    assert got.gm_db == pytest.approx(20 * np.log10(4.0), rel=1e-6)


def test_discrete_diagram_gives_a_discrete_state_space_with_its_dt():
    k = 0.3
    sys = linearize(models.discrete_loop(k), ["r.y"], ["plant.y"])
    assert sys.dt == models.TS
    plant = control.ss(models.AD, models.BD, models.CD, 0, models.TS)
    assert same_tf(sys, control.feedback(plant, k))
    np.testing.assert_allclose(sys.A, models.AD - k * models.BD @ models.CD, atol=1e-15)


def test_discrete_transfer_function_with_feedthrough_in_the_loop():
    d = Diagram("dtf")
    r = d.add(Constant(0.0), name="r")
    e = d.add(Sum("+-"), name="e")
    c = d.add(DiscreteTransferFunction([2.0, -1.0], [1.0, -0.5], clock=0.1), name="c")
    p = d.add(DiscreteTransferFunction([0.1], [1.0, -0.9], clock=0.1), name="p")
    d.connect(r, e["u0"])
    d.connect(e, c)
    d.connect(c, p)
    d.connect(p, e["u1"])
    sys = linearize(d, ["r.y"], ["p.y"])
    Cz = control.tf([2.0, -1.0], [1.0, -0.5], 0.1)
    Pz = control.tf([0.1], [1.0, -0.9], 0.1)
    assert sys.dt == 0.1
    assert same_tf(sys, control.feedback(Cz * Pz, 1))


def sampled_loop() -> Diagram:
    """A continuous plant under a discrete controller (outputs held, measurement sampled)."""
    d = Diagram("sampled")
    r = d.add(Constant(0.0), name="r")
    e = d.add(Sum("+-"), name="e")
    c = d.add(DiscreteTransferFunction([1.5, -1.2], [1.0, -0.6], clock=0.1), name="c")
    p = d.add(TransferFunction([2.0], [1.0, 1.0, 0.5]), name="p")
    d.connect(r, e["u0"])
    d.connect(e, c)
    d.connect(c, p)
    d.connect(p, e["u1"])
    return d


def test_mixed_rates_are_refused_unless_zoh_which_equals_the_sampled_data_model():
    with pytest.raises(AnalysisError, match=r"mixes continuous states \(p\).*0\.1 s.*"
                                             r"method='zoh'"):
        linearize(sampled_loop(), ["r.y"], ["p.y"])
    sys = linearize(sampled_loop(), ["r.y"], ["p.y"], method="zoh")
    Pd = control.sample_system(control.tf([2.0], [1.0, 1.0, 0.5]), 0.1, method="zoh")
    Cz = control.tf([1.5, -1.2], [1.0, -0.6], 0.1)
    assert sys.dt == 0.1
    assert same_tf(sys, control.feedback(Cz * Pd, 1))
    with pytest.raises(AnalysisError, match="unknown method 'tustin'"):
        linearize(sampled_loop(), ["r.y"], ["p.y"], method="tustin")


def test_several_rates_are_refused():
    d = Diagram("two")
    r = d.add(Constant(0.0), name="r")
    a = d.add(DiscreteTransferFunction([1.0], [1.0, -0.5], clock=0.1), name="a")
    b = d.add(DiscreteTransferFunction([1.0], [1.0, -0.5], clock=0.2), name="b")
    d.connect(r, a)
    d.connect(a, b)
    with pytest.raises(AnalysisError, match=r"several sample rates \(0\.1 s, 0\.2 s\)"):
        linearize(d, ["r.y"], ["b.y"])


def test_bad_points_are_named_with_suggestions_all_at_once():
    d = models.mass_spring_damper()
    with pytest.raises(AnalysisError) as info:
        linearize(d, ["F.yy", "nope.y"], ["x.y", "x.y", "kk"])
    text = str(info.value)
    assert "input point 'F.yy': block 'F' (Constant) has no port 'yy' (did you mean 'y'?)" \
        in text
    assert "input point 'nope.y': no block named 'nope'" in text
    assert "output point 'x.y' is given twice" in text
    assert "output point 'kk': expected 'block.port'" in text
    one = linearize(d, "F.y", "x.y")  # one name alone is one point
    assert one.input_labels == ["F:y"] and one.output_labels == ["x:y"]
    with pytest.raises(AnalysisError, match="at least one input point"):
        linearize(d, [], ["x.y"])


def test_unrelated_blocks_are_left_out_and_a_failing_block_is_named():
    from blocksim.blocks import Function

    d = models.mass_spring_damper()
    f = d.add(Function(lambda u: 1.0 / (u - 1.0), nin=1), name="side")
    d.connect("x.y", f)
    sys = linearize(d, ["F.y"], ["x.y"])  # 'side' reaches no state and no output point
    assert sys.nstates == 2
    part = linearize(d, ["F.y"], ["side.y"])  # d(1/(x-1))/dx = -1 at x = 0
    assert same_tf(part, -control.tf([1.0], [2.0, 0.5, 3.0]))
    at_one = OperatingPoint(states={"x.x": 1.0})
    with pytest.raises(AnalysisError, match=r"block 'side' \(Function\): output\(\) raised "
                                            r"ZeroDivisionError"):
        linearize(d, ["F.y"], ["side.y"], op=at_one)
