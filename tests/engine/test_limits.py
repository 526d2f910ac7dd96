"""Run limits (blocksim.engine.limits): a run's steps, clock hits, breakpoints, recorded points
and memory are estimated before it starts and refused above max_steps / max_memory with the
estimate and how to raise the limit; an interpreted run that outgrows its estimate stops with
its partial result; a constant signal is recorded once."""

import numpy as np
import pytest

from blocksim import Diagram, RunConfig, compile_diagram, simulate
from blocksim.blocks import Constant, Gain, Integrator, Product, UnitDelay, Waveform
from blocksim.engine.limits import RunLimitError, check_limits, estimate
from blocksim.engine.record import SimResult


def decay():
    d = Diagram("decay")
    x = d.add(Integrator(x0=1.0), name="x")
    g = d.add(Gain(-1.0), name="g")
    d.connect(x, g)
    d.connect(g, x)
    return d


def sampled(period):
    d = Diagram("sampled")
    c = d.add(Constant(1.0), name="c")
    d.connect(c, d.add(UnitDelay(clock=period), name="z"))
    return d


@pytest.mark.parametrize("backend", ["interpreted", "compiled"])
@pytest.mark.parametrize(
    "diagram, kwargs, words",
    [
        (decay, dict(T=10.0, record_dt=1e-9), "1e+10 recorded points (record_dt = 1e-09 s)"),
        (decay, dict(T=1.0, solver="rk4", dt=1e-12), "1e+12 solver steps (dt = 1e-12 s)"),
        (decay, dict(T=1e9, solver="rk4", dt=0.01), "1e+11 solver steps (dt = 0.01 s)"),
        (lambda: sampled(1e-9), dict(T=10.0), "1e+10 clock hits (fastest clock: every 1e-09 s)"),
    ],
)
def test_runaway_settings_are_refused_before_anything_runs(backend, diagram, kwargs, words):
    with pytest.raises(RunLimitError) as info:
        simulate(diagram(), backend=backend, **kwargs)
    msg = str(info.value)
    assert words in msg and "the limit is max_steps = 10000000" in msg
    assert "max_steps= (simulate, simulate_batch) or --max-steps (blocksim run)" in msg
    assert info.value.result is None and info.value.limit == "max_steps"


def test_breakpoints_are_counted_and_extrapolated():
    d = Diagram("pulse")
    d.connect(d.add(Waveform("square", frequency=1e6), name="w"), d.add(Gain(2.0), name="g"))
    plan = compile_diagram(d)
    est = estimate(plan, RunConfig(T=1.0))
    assert est.breakpoints == pytest.approx(2e6, rel=1e-3)
    with pytest.raises(RunLimitError, match=r"about 2e\+06 source breakpoints"):
        check_limits(plan, RunConfig(T=1.0, max_steps=1_000_000))
    check_limits(plan, RunConfig(T=1.0, max_steps=3_000_000))


def test_raising_max_steps_lets_the_run_go():
    with pytest.raises(RunLimitError):
        simulate(decay(), 1.0, "rk4", dt=1e-3, max_steps=500)
    r = simulate(decay(), 1.0, "rk4", dt=1e-3, max_steps=2000)
    assert r.t[-1] == 1.0 and abs(r["x.y"][-1] - np.exp(-1.0)) < 1e-9


def test_an_adaptive_run_that_outgrows_max_steps_stops_with_its_partial_result():
    """x' = x^2 from 1 blows up at t = 1: RK45 takes ever smaller steps towards it."""
    d = Diagram("blowup")
    x = d.add(Integrator(x0=1.0), name="x")
    sq = d.add(Product("**"), name="sq")
    d.connect(x, sq[0], sq[1])
    d.connect(sq, x)
    with pytest.raises(RunLimitError) as info:
        simulate(d, 0.99999, rtol=1e-12, atol=1e-12, max_steps=300)
    err = info.value
    assert "the solver took more than max_steps = 300 steps" in str(err)
    assert err.result is not None and 200 < len(err.result.t) <= 302
    assert err.result.status == "failed" and 0.5 < err.time < 1.0


def test_recording_memory_is_bounded_during_an_interpreted_run():
    plan = compile_diagram(decay())
    est = estimate(plan, RunConfig(T=1.0, solver="rk4", dt=1e-3))
    limit = est.point_bytes * 500  # room for ~500 points of the 1002 the run records
    with pytest.raises(RunLimitError, match="would take about"):
        simulate(plan, 1.0, "rk4", dt=1e-3, max_memory=limit)
    # the estimate for an adaptive run is a lower bound: the run itself stops at the limit
    osc = Diagram("oscillator")
    v = osc.add(Integrator(x0=1.0), name="v")
    x = osc.add(Integrator(x0=0.0), name="x")
    k = osc.add(Gain(-1.0), name="k")
    osc.connect(v, x)
    osc.connect(x, k)
    osc.connect(k, v)
    limit = estimate(compile_diagram(osc), RunConfig(T=1.0)).point_bytes * 500
    with pytest.raises(RunLimitError, match=r"the recording reached \d+ points") as info:
        simulate(osc, 100.0, rtol=1e-10, atol=1e-12, max_memory=limit)
    assert 400 < len(info.value.result.t) <= 500 and info.value.result.t[-1] < 100


def big_constant():
    d = Diagram("big")
    d.connect(d.add(Constant(np.ones((1000, 1000))), name="c"), d.add(Gain(2.0), name="g"))
    x = d.add(Integrator(x0=0.0), name="x")
    d.connect(d.add(Constant(1.0), name="one"), x)
    return d


def test_a_constant_signal_is_recorded_once(tmp_path):
    d = big_constant()
    plan = compile_diagram(d)
    interp = estimate(plan, RunConfig(T=10.0, solver="rk4", dt=0.01))
    compiled = estimate(plan, RunConfig(T=10.0, solver="rk4", dt=0.01, backend="compiled"))
    assert interp.point_bytes < 8e6 and interp.memory < 2 * 8e6 + 1002 * 8e6 * 2
    assert compiled.memory > 1000 * 8e6  # the compiled loop records every signal at every step
    with pytest.raises(RunLimitError, match=r"would take about 1.63 GB \(102 points of 16 MB\)"):
        simulate(d, 1.0, "rk4", dt=0.01, backend="compiled", max_memory=1e9)
    r = simulate(d, 1.0, "rk4", dt=0.01, max_memory=1e9)
    c = r["c.y"]
    assert c.shape == (101, 1000, 1000) and c.strides[0] == 0  # one stored copy
    assert r["x.y"][-1] == pytest.approx(1.0)
    r.save(tmp_path / "r.npz")
    assert (tmp_path / "r.npz").stat().st_size < 2e6
    back = SimResult.load(tmp_path / "r.npz")
    assert back["c.y"].shape == (101, 1000, 1000) and back["c.y"].strides[0] == 0
    np.testing.assert_array_equal(back["c.y"][50], np.ones((1000, 1000)))
    np.testing.assert_array_equal(back["g.y"][-1], 2 * np.ones((1000, 1000)))


def test_limits_are_options_of_the_run_config():
    with pytest.raises(ValueError, match=r"`max_steps` must be a number >= 1, got 0"):
        RunConfig(T=1.0, max_steps=0)
    with pytest.raises(ValueError, match=r"`max_memory` must be a number >= 1"):
        RunConfig(T=1.0, max_memory=float("inf"))
    from blocksim.engine.config import file_config

    with pytest.raises(ValueError, match="`max_steps` is a limit the user sets"):
        file_config({"T": 1.0, "max_steps": 10**12})
    assert file_config({"T": 1.0}, {"max_steps": 5, "dt": None}).max_steps == 5
