"""linearize on diagrams of other shapes: vector signals, subsystems, clocked sources that do
not matter, names of operating points."""

from __future__ import annotations

import control
import numpy as np
import pytest

from blocksim import Block, Diagram
from blocksim.analysis import AnalysisError, linearize, operating_point, trim
from blocksim.blocks import (
    ZOH,
    Constant,
    Gain,
    Inport,
    Integrator,
    Outport,
    RandomNumber,
    Sum,
    TransferFunction,
)
from tests.analysis import models
from tests.analysis.models import A2, B2, K2, mimo_loop, same_tf


def test_vector_signals_give_one_input_and_output_per_element():
    sys = linearize(mimo_loop(), ["r.y"], ["p.y"])
    assert sys.input_labels == ["r:y[0]", "r:y[1]"]
    assert sys.output_labels == ["p:y[0]", "p:y[1]"]
    ref = control.ss(A2 - B2 @ K2, B2 @ K2, np.eye(2), 0)
    np.testing.assert_allclose(sys.A, ref.A, atol=1e-15)
    np.testing.assert_allclose(sys.B, ref.B, atol=1e-15)
    np.testing.assert_allclose(sys.C, ref.C, atol=0)
    # one element of a vector point is the model's column, as python-control selects it
    assert same_tf(sys[1, 0], ref[1, 0])


def test_a_subsystem_port_is_a_point():
    inner = Diagram("plant")
    F = inner.add(Inport(), name="F")
    plant = inner.add(TransferFunction([1.0], [2.0, 0.5, 3.0]), name="tf")
    x = inner.add(Outport(), name="x")
    inner.connect(F, plant)
    inner.connect(plant, x)
    d = Diagram("outer")
    c = d.add(Constant(0.0), name="c")
    d.add(inner, name="plant")
    g = d.add(Gain(2.0), name="g")
    d.connect(c, "plant.F")
    d.connect("plant.x", g)
    sys = linearize(d, ["plant.F"], ["plant.x", "g.y"])
    assert sys.input_labels == ["plant:F"]
    assert sys.output_labels == ["plant:x", "g:y"]
    assert same_tf(sys[0, 0], control.tf([1.0], [2.0, 0.5, 3.0]))
    assert same_tf(sys[1, 0], control.tf([2.0], [2.0, 0.5, 3.0]))
    assert sys.state_labels == ["plant/tf.x0", "plant/tf.x1"]
    with pytest.raises(AnalysisError, match="given twice"):
        linearize(d, ["plant.F", "plant/F.y"], ["g.y"])


def test_block_reduction_leaves_out_blocks_off_the_path_as_simulink_does():
    d = models.mass_spring_damper(2.0, 0.5, 3.0)
    # a clocked noise source (a discrete counter state) and a filter off the path
    noise = d.add(RandomNumber(variance=0.01, clock=0.1, seed=1), name="noise")
    lag = d.add(TransferFunction([1.0], [0.1, 1.0]), name="lag")
    d.connect(noise, lag)
    sys = linearize(d, ["F.y"], ["x.y"])
    assert sys.dt == 0 and sys.state_labels == ["v.x", "x.x"]
    assert same_tf(sys, control.tf([1.0], [2.0, 0.5, 3.0]))
    # without reduction every state is there, the transfer function unchanged; the noise's
    # clock then makes the model sampled-data
    with pytest.raises(AnalysisError, match="mixes continuous states"):
        linearize(d, ["F.y"], ["x.y"], reduce=False)
    lag_only = linearize(models.mass_spring_damper(), ["F.y"], ["x.y"], reduce=False)
    assert lag_only.nstates == 2
    d2 = models.mass_spring_damper(2.0, 0.5, 3.0)
    d2.connect(d2.add(Constant(0.0), name="c2"), d2.add(TransferFunction([1.0], [0.1, 1.0]),
                                                       name="lag"))
    full = linearize(d2, ["F.y"], ["x.y"], reduce=False)
    assert full.state_labels == ["v.x", "x.x", "lag.x0"]
    assert same_tf(full, control.tf([1.0], [2.0, 0.5, 3.0]))
    # a perturbation added to the noise's signal is continuous: the hold is the source's
    s = d.add(Sum("++"), name="s2")
    i = d.add(Integrator(), name="i")
    d.connect(noise, s["u0"])
    d.connect(s, i)
    d.connect(i, s["u1"])
    cont = linearize(d, ["noise.y"], ["i.y"])
    assert cont.dt == 0 and cont.state_labels == ["i.x"]
    np.testing.assert_array_equal(cont.A, [[1.0]])


def test_a_sampler_on_the_path_makes_the_model_sampled_data():
    d = Diagram("sampler")
    c = d.add(Constant(0.0), name="c")
    h = d.add(ZOH(clock=0.1), name="hold")
    s = d.add(Sum("++"), name="s")
    i = d.add(Integrator(), name="i")
    d.connect(c, h)
    d.connect(h, s["u0"])
    d.connect(s, i)
    d.connect(i, s["u1"])
    with pytest.raises(AnalysisError, match=r"mixes continuous states \(i\) with a discrete "
                                            r"rate \(a clock of 0\.1 s\)"):
        linearize(d, ["c.y"], ["i.y"])
    sys = linearize(d, ["c.y"], ["i.y"], method="zoh")
    # x' = x + w, w held over T = 0.1 s: x[k+1] = e^T x + (e^T - 1) w
    T = 0.1
    assert sys.dt == T
    np.testing.assert_allclose(sys.A, [[np.exp(T)]], rtol=1e-13)
    np.testing.assert_allclose(sys.B, [[np.exp(T) - 1.0]], rtol=1e-12)
    ref = control.sample_system(control.tf([1.0], [1.0, -1.0]), T, method="zoh")
    assert same_tf(sys, ref)


def test_operating_point_dicts_answer_to_block_names():
    op = trim(models.pendulum(), targets={"theta.y": 0.4})
    assert op.inputs["tau"] == op.inputs["tau.y"]
    assert op.states["theta"] == op.states["theta.x"]
    assert op.outputs["sin"] == pytest.approx(np.sin(0.4))
    assert op.inputs.get("nope") is None
    with pytest.raises(KeyError):
        op.states["nope"]
    op0 = operating_point(mimo_loop())
    with pytest.raises(KeyError):  # 'p' has two states: no single answer
        op0.states["p"]
    assert op0.states["p.x1"] == 0.0


class Cube(Block):
    """y = u + u**3 (not linear): differentiated numerically unless it claims ``linear``."""

    inputs = ("u",)
    outputs = ("y",)

    def output(self, t, x, u):
        return (u[0] + u[0] ** 3,)


class ClaimsLinear(Cube):
    linear = True


@pytest.mark.parametrize("cls, slope", [(Cube, 1.0 + 3 * 0.5**2), (ClaimsLinear, 2.0)])
def test_a_block_that_declares_itself_linear_is_probed_about_zero(cls, slope):
    d = Diagram("cube")
    c = d.add(Constant(0.5), name="c")
    b = d.add(cls(), name="b")
    d.connect(c, b)
    sys = linearize(d, ["c.y"], ["b.y"])
    # central differences at u = 0.5 give 1 + 3 u^2; a block claiming to be linear is read
    # by a unit probe about zero, f(1) - f(0) (its matrix, were it linear): 2 here
    assert sys.D[0, 0] == pytest.approx(slope, abs=1e-10)
