"""A zero crossing that a solver step ends exactly on (g = 0 at the step's end) is located
there: a ramp reaching a Quantizer's jump or a Saturation's limit at a step boundary. The
interpreted back-end took that zero for the old side's sign, moved the bracket to the step's
start and crawled forward 1e-10 s per restart (a run of seconds never ended)."""

from __future__ import annotations

import numpy as np
import pytest

import blocksim.blocks as B
from blocksim import Diagram, simulate


def _run(source, sink):
    d = Diagram("step_end")
    d.add(source, name="u")
    d.add(sink, name="y")
    d.connect("u.y", "y.u")
    # a crawl takes millions of steps: the step limit turns a regression into a failure
    return simulate(d, T=4.0, solver="RK45", max_steps=20_000)


def test_a_ramp_onto_each_quantizer_jump_at_a_step_boundary():
    res = _run(B.Ramp(start=-2.0, slope=1.0), B.Quantizer())
    u, y = res["u.y"], res["y.y"]
    # halves rounded away from zero, as MATLAB's round
    expected = np.sign(u) * np.floor(np.abs(u) + 0.5)
    assert np.array_equal(y, expected)
    assert res.stats["nevents"] == 4  # u = 2.5, 3.5, 4.5, 5.5 at t = 0.5, 1.5, 2.5, 3.5
    assert res.stats["nsteps"] < 2000


@pytest.mark.parametrize("source", [
    B.Waveform(kind="triangle", amplitude=2.0, frequency=1.0),
    B.Interpolate([0.0, 1.0, 2.0, 3.0, 4.0], [-2.0, 2.0, -2.0, 2.0, -2.0], time=True),
], ids=["triangle", "table"])
def test_a_piecewise_linear_source_onto_saturation_limits(source):
    res = _run(source, B.Saturation(-1.0, 1.0))
    u, y = res["u.y"], res["y.y"]
    assert np.array_equal(y, np.clip(u, -1.0, 1.0))
    assert res.stats["nevents"] >= 8 and res.stats["nsteps"] < 2000
