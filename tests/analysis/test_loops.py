"""Algebraic loops (direct-feedthrough cycles): operating points, linearization and trim
solve them (the diagram compiled with algebraic="solve")."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from blocksim import simulate
from blocksim.analysis import AnalysisError, linearize, operating_point, trim
from blocksim.blocks import Gain, MathFunction
from tests.analysis.models import loop


def test_a_gain_loop_is_solved_and_linearized_in_closed_form():
    g = 0.5
    d = loop(Gain(g))
    op = operating_point(d)
    assert op.outputs["s.y"] == pytest.approx(1.0 / (1.0 + g), rel=1e-12)
    sys = linearize(d, ["c.y"], ["s.y", "i.y"])
    np.testing.assert_allclose(sys.D, [[1.0 / (1.0 + g)], [0.0]], rtol=1e-14)
    np.testing.assert_allclose(sys.B, [[1.0 / (1.0 + g)]], rtol=1e-14)


def test_a_nonlinear_implicit_loop():
    c = 1.0
    d = loop(MathFunction("sin"), c)
    s_star = brentq(lambda s: s + np.sin(s) - c, -2.0, 2.0, xtol=1e-15)
    op = operating_point(d)
    assert op.outputs["s.y"] == pytest.approx(s_star, abs=1e-12)
    sys = linearize(d, "c.y", "s.y")
    assert sys.D[0, 0] == pytest.approx(1.0 / (1.0 + np.cos(s_star)), abs=1e-9)
    # trim for the loop's output: c = s + sin(s); the integrator of s = 0.3 cannot be steady
    tr = trim(d, targets={"s.y": 0.3})
    assert not tr.success
    tr = trim(d, targets={"s.y": 0.3}, unsteady=["i"])
    assert tr.success and tr.inputs["c"] == pytest.approx(0.3 + np.sin(0.3), abs=1e-9)
    ok = trim(d, targets={"s.y": 0.0})
    assert ok.success and ok.inputs["c"] == pytest.approx(0.0, abs=1e-9)


def test_simulate_from_a_point_of_a_loop_diagram():
    d = loop(Gain(1.0))
    op = trim(d, targets={"s.y": 0.0}, x0={"i": 2.0}, fix_states=["i"])
    assert op.success
    res = simulate(d, 1.0, x0=op, algebraic="solve")
    np.testing.assert_allclose(res["i.y"], 2.0, atol=1e-12)


def test_a_loop_without_a_solution_is_named():
    d = loop(Gain(1.0), signs="++")  # s = c + s: no solution for c != 0
    with pytest.raises(AnalysisError, match=r"algebraic loop .*s\.y.* did not converge"):
        operating_point(d)
