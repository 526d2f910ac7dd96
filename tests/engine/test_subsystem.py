"""Subsystems: diagrams as blocks, nested, flattened with paths, loops found per port."""

import numpy as np
import pytest

from blocksim import Diagram, DiagramError, compile_diagram, simulate
from blocksim.blocks import Constant, Gain, Inport, Integrator, Outport, Step, Subsystem, Sum


def lag_with_bypass(name="plant"):
    """Inner diagram: ``direct`` = 2 u (feedthrough), ``state`` = integral of u (no
    feedthrough)."""
    d = Diagram(name)
    u = d.add(Inport(), name="u")
    g = d.add(Gain(2.0), name="gain")
    i = d.add(Integrator(), name="int")
    direct = d.add(Outport(), name="direct")
    state = d.add(Outport(), name="state")
    d.connect(u, g, i)
    d.connect(g, direct)
    d.connect(i, state)
    return d


def test_subsystem_ports_are_its_inports_and_outports_in_order():
    sub = Subsystem(lag_with_bypass())
    assert [p.name for p in sub.inputs] == ["u"]
    assert [p.name for p in sub.outputs] == ["direct", "state"]


def test_feedback_from_the_integrated_output_is_not_a_loop():
    d = Diagram("outer")
    r = d.add(Step(time=0.0), name="r")
    e = d.add(Sum("+-"), name="e")
    p = d.add(lag_with_bypass(), name="plant")
    d.connect(r, e[0])
    d.connect(e, p["u"])
    d.connect(p["state"], e[1])
    res = simulate(d, 2.0, rtol=1e-10, atol=1e-12)
    # x' = r - x: x = 1 - exp(-t); the bypass output is 2 (r - x) = 2 exp(-t)
    np.testing.assert_allclose(res["plant/int.y"], 1 - np.exp(-res.t), atol=1e-8)
    np.testing.assert_allclose(res["plant/direct.y"], 2 * np.exp(-res.t), atol=1e-8)
    assert "plant/gain.y" in res.signals


def test_feedback_from_the_feedthrough_output_is_a_loop_named_by_paths():
    d = Diagram("outer")
    r = d.add(Constant(1.0), name="r")
    e = d.add(Sum("+-"), name="e")
    p = d.add(lag_with_bypass(), name="plant")
    d.connect(r, e[0])
    d.connect(e, p["u"])
    d.connect(p["direct"], e[1])
    with pytest.raises(DiagramError, match=r"algebraic loop: e\.y -> plant/u\.u \(feedthrough\) "
                                           r"-> plant/u\.y -> plant/gain\.u \(feedthrough\) -> "
                                           r"plant/gain\.y -> plant/direct\.u \(feedthrough\) -> "
                                           r"plant/direct\.y -> e\.u1 \(feedthrough\)"):
        compile_diagram(d)


def test_nesting_to_any_depth_gives_slash_paths():
    inner = lag_with_bypass("inner")
    middle = Diagram("middle")
    u = middle.add(Inport(), name="u")
    m = middle.add(inner)                       # added by its own name
    y = middle.add(Outport(), name="y")
    middle.connect(u, m["u"])
    middle.connect(m["state"], y)
    outer = Diagram("outer")
    c = outer.add(Constant(3.0), name="c")
    s = outer.add(middle, name="mid")
    outer.connect(c, s)
    res = simulate(outer, 1.0)
    assert m.name == "inner"
    np.testing.assert_allclose(res["mid/inner/int.y"], 3.0 * res.t, atol=1e-9)
    np.testing.assert_allclose(res["mid/y.y"], 3.0 * res.t, atol=1e-9)
    assert "mid/inner/int.x" in res.state_names


def test_errors_inside_subsystems_name_the_path_and_bad_subsystem_ports():
    inner = Diagram("inner")
    inner.add(Inport(), name="u")
    inner.add(Gain(2.0), name="g")            # input never connected
    outer = Diagram("outer")
    c = outer.add(Constant(1.0), name="c")
    s = outer.add(inner, name="sub")
    outer.connect(c, s["v"])
    with pytest.raises(DiagramError) as info:
        compile_diagram(outer)
    text = str(info.value)
    assert "input 'sub/g.u' (Gain) is not connected" in text
    assert "subsystem 'sub' has no input 'v'; inputs (its Inport blocks): u" in text


def test_a_diagram_that_contains_itself_is_an_error():
    d = Diagram("recursive")
    d.add(Constant(1.0), name="c")
    d.add(Subsystem(d), name="me")
    with pytest.raises(DiagramError, match="subsystem 'me' contains itself"):
        compile_diagram(d)
