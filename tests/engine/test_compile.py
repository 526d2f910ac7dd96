"""Compilation: every problem at once, port-level loops, order, state layout, shapes."""

import dataclasses

import numpy as np
import pytest

from blocksim import Block, Diagram, DiagramError, compile_diagram, simulate
from blocksim.blocks import PID, Constant, Gain, Integrator, Sum

from .helpers import Lag, SplitFeed, Vector3


def test_all_wiring_problems_are_reported_together():
    d = Diagram_with_problems()
    with pytest.raises(DiagramError) as info:
        compile_diagram(d)
    err = info.value
    text = str(err)
    assert len(err.problems) == 5, text
    assert "diagram 'broken' has 5 problems" in text
    assert "no block named 'gian' (did you mean 'gain'?)" in text
    assert "block 'gain' (Gain) has no input port 'x'; inputs: u" in text
    assert "input 'sum.u1' is driven twice: by 'c.y'" in text
    assert "input 'lag.u' (Lag) is not connected" in text
    assert "'sum.u0' is an input, but the wire needs an output here" in text


def Diagram_with_problems():
    d = Diagram("broken")
    c = d.add(Constant(1.0), name="c")
    d.add(Gain(2.0), name="gain")
    s = d.add(Sum("++"), name="sum")
    d.add(Lag(), name="lag")
    d.connect("gian.y", s[0])          # unknown block
    d.connect(c, "gain.x")             # unknown port
    d.connect(c, s[1])
    d.connect("gain", s[1])            # driven twice
    d.connect("sum.u0", "gain.u")      # input used as a source
    return d


def test_unconnected_input_message_says_how_to_fix():
    d = Diagram("d")
    d.add(Gain(2.0), name="g")
    with pytest.raises(DiagramError, match=r"input 'g.u' \(Gain\) is not connected; connect an "
                                           r"output to it with d.connect\(<source>, 'g.u'\)"):
        compile_diagram(d)


def test_multi_port_block_as_an_end_is_ambiguous():
    d = Diagram("d")
    c = d.add(Constant(1.0), name="c")
    s = d.add(Sum("++"), name="s")
    d.connect(c, s)
    with pytest.raises(DiagramError, match=r"block 's' \(Sum\) has 2 inputs \(u0, u1\); name "
                                           r"one, e.g. 's.u0'"):
        compile_diagram(d)


def test_algebraic_loop_prints_the_whole_cycle_port_by_port():
    d = Diagram("loop")
    c = d.add(Constant(1.0), name="ref")
    gain = d.add(Gain(0.5), name="gain")
    s = d.add(Sum("++"), name="sum")
    d.connect(c, s["u0"])
    d.connect(gain, s["u1"])
    d.connect(s, gain)
    with pytest.raises(DiagramError, match=r"algebraic loop: gain\.y -> sum\.u1 \(feedthrough\) "
                                           r"-> sum\.y -> gain\.u \(feedthrough\); .*Break it "
                                           r"with a block that has state"):
        compile_diagram(d)


def test_integrator_in_the_loop_is_not_an_algebraic_loop():
    d = Diagram("ok")
    s = d.add(Sum("+-"), name="sum")
    i = d.add(Integrator(), name="int")
    c = d.add(Constant(1.0), name="c")
    d.connect(c, s[0])
    d.connect(i, s[1])
    d.connect(s, i)
    plan = compile_diagram(d)
    names = [plan.entries[step.entry].name for step in plan.order]
    assert names.index("int") < names.index("sum")


def test_partial_feedthrough_is_not_a_false_loop_and_evaluates_correctly():
    """SplitFeed.state -> gain -> SplitFeed.u, and SplitFeed.echo out: a block-level cycle
    that is not a port-level one; the block is called once per output port group."""
    d = Diagram("split")
    sf = d.add(SplitFeed(x0=1.0), name="sf")
    g = d.add(Gain(3.0), name="g")
    d.connect(sf["state"], g)
    d.connect(g, sf["u"])
    plan = compile_diagram(d)
    assert [(plan.entries[s.entry].name, s.ports) for s in plan.order] == [
        ("sf", (0,)), ("g", (0,)), ("sf", (1,))]
    res = simulate(d, 1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["sf.state"], np.exp(-res.t), rtol=1e-8)
    np.testing.assert_allclose(res["sf.echo"], 3 * np.exp(-res.t), rtol=1e-8)


def test_a_real_loop_through_the_feedthrough_port_is_reported():
    d = Diagram("split_loop")
    sf = d.add(SplitFeed(), name="sf")
    g = d.add(Gain(3.0), name="g")
    d.connect(sf["echo"], g)
    d.connect(g, sf["u"])
    with pytest.raises(DiagramError, match=r"algebraic loop: sf\.echo -> g\.u \(feedthrough\) -> "
                                           r"g\.y -> sf\.u \(feedthrough\)"):
        compile_diagram(d)


def test_shape_mismatch_found_by_the_dry_run():
    d = Diagram("shapes")
    v = d.add(Vector3(), name="v")
    two = d.add(Constant([1.0, 2.0]), name="two")
    s = d.add(Sum("++"), name="sum")
    pid = d.add(PID(), name="pid")
    d.connect(v, s[0], pid)
    d.connect(two, s[1])
    with pytest.raises(DiagramError) as info:
        compile_diagram(d)
    text = str(info.value)
    assert "block 'sum' (Sum) failed in the dry run at t=0" in text
    assert "input shapes u0: (3,), u1: (2,)" in text
    assert "shape mismatch at input 'pid.e' (PID): expected shape (), got (3,) from 'v.y'" in text


def test_output_count_and_derivative_size_are_checked():
    class TwoForOne(Block):
        outputs = ("y",)

        def output(self, t, x, u):
            return (1.0, 2.0)

    class BadDeriv(Block):
        outputs = ("y",)

        def __init__(self):
            self.set_state([0.0, 0.0])

        def output(self, t, x, u):
            return (0.0,)

        def deriv(self, t, x, u):
            return [1.0]

    d = Diagram("counts")
    d.add(TwoForOne(), name="a")
    d.add(BadDeriv(), name="b")
    with pytest.raises(DiagramError) as info:
        compile_diagram(d)
    text = str(info.value)
    assert "block 'a' (TwoForOne): output() must return a tuple with one value per output port " \
           "(y), got tuple of length 2" in text
    assert "block 'b' (BadDeriv): deriv() returned 1 values for 2 states" in text


def test_empty_diagram_is_an_error():
    with pytest.raises(DiagramError, match="the diagram has no blocks"):
        compile_diagram(Diagram("empty"))


def test_plan_is_immutable_with_state_layout_and_names():
    d = Diagram("layout")
    c = d.add(Constant(1.0), name="c")
    a = d.add(Lag(x0=0.5), name="a")
    pid = d.add(PID(), name="pid")
    d.connect(c, a, pid)
    plan = compile_diagram(d)
    assert plan.state_names == ("a.y", "pid.integral", "pid.filter")
    np.testing.assert_array_equal(plan.x0, [0.5, 0.0, 0.0])
    assert plan.entry("pid").states == slice(1, 3)
    assert plan.signal_names == ("c.y", "a.y", "pid.y")
    assert plan.aliases["pid.e"] == "c.y"
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.name = "other"
    text = plan.describe()
    assert "evaluation order:" in text and "continuous states: a.y, pid.integral" in text


def _one_problem(build):
    d = Diagram("one")
    build(d)
    return d


@pytest.mark.parametrize("build, match", [
    (lambda d: (d.add(Constant(1.0), name="c"), d.add(Sum("++"), name="s"),
                d.connect("c", "s.u0"), d.connect("c", "s.u0")),
     r"input 's\.u0' is driven twice: by 'c\.y' \(at .*\) and by 'c\.y' \(at .*\); an input "
     r"takes exactly one wire"),
    (lambda d: (d.add(Constant(1.0), name="c"), d.add(Gain(1.0), name="g"),
                d.connect("cc", "g")),
     r"wire 'cc' -> 'g' \(at .*test_compile\.py:\d+\): no block named 'cc' \(did you mean "
     r"'c'\?\)"),
    (lambda d: (d.add(Constant(1.0), name="c"), d.add(Gain(1.0), name="g"),
                d.connect("c.out", "g")),
     r"block 'c' \(Constant\) has no output port 'out'; outputs: y"),
    (lambda d: (d.add(Constant([1.0, 2.0]), name="c"), d.add(PID(), name="p"),
                d.connect("c", "p")),
     r"shape mismatch at input 'p\.e' \(PID\): expected shape \(\), got \(2,\) from 'c\.y'"),
])
def test_each_compile_error_message(build, match):
    with pytest.raises(DiagramError, match=match):
        compile_diagram(_one_problem(build))


def test_array_feedback_through_a_stateful_block_gets_its_shapes():
    # the integrator's output does not read its input, which is fed back from later blocks:
    # the dry run evaluates it with a placeholder input instead of skipping the whole loop
    d = Diagram("vector loop")
    x = d.add(Integrator(x0=np.ones(2)), name="x")
    g = d.add(Gain(-1.0), name="g")
    d.connect(x, g)
    d.connect(g, x)
    plan = compile_diagram(d)
    assert dict(zip(plan.signal_names, plan.signal_shapes)) == {"x.y": (2,), "g.y": (2,)}
    res = simulate(plan, 1.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["x.y"][-1], np.exp(-1.0) * np.ones(2), rtol=1e-7)
