"""Simulation against closed forms, over every solver; errors keep the partial result."""

import math

import numpy as np
import pytest
from scipy import signal

from blocksim import (
    Diagram,
    NonFiniteError,
    SimResult,
    SimulationError,
    compile_diagram,
    simulate,
)
from blocksim.blocks import (
    Constant,
    Gain,
    Integrator,
    Ramp,
    Sine,
    Step,
    Sum,
    TransferFunction,
)
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import BlockRuntimeError

from .helpers import Counter, Explode, Lag, Lifecycle, NanDeriv, NumpySqrt

ADAPTIVE = ["RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA"]
TIGHT = dict(rtol=1e-9, atol=1e-12)


def first_order_lag(tau=0.5):
    d = Diagram("lag")
    step = d.add(Step(time=0.0), name="step")
    lag = d.add(TransferFunction([1.0], [tau, 1.0]), name="lag")
    d.connect(step, lag)
    return d


def oscillator(omega=2.0):
    d = Diagram("oscillator")
    v = d.add(Integrator(x0=0.0), name="v")
    x = d.add(Integrator(x0=1.0), name="x")
    k = d.add(Gain(-omega**2), name="k")
    d.connect(v, x)
    d.connect(x, k)
    d.connect(k, v)
    return d


@pytest.mark.parametrize("solver", ADAPTIVE)
def test_first_order_lag_step_response(solver):
    res = simulate(first_order_lag(0.5), 3.0, solver, **TIGHT)
    np.testing.assert_allclose(res["lag.y"], 1 - np.exp(-res.t / 0.5), atol=2e-6)


@pytest.mark.parametrize("solver", ADAPTIVE)
def test_harmonic_oscillator(solver):
    res = simulate(oscillator(2.0), 2 * math.pi, solver, **TIGHT)
    np.testing.assert_allclose(res["x.y"], np.cos(2 * res.t), atol=2e-6)
    np.testing.assert_allclose(res["v.y"], -2 * np.sin(2 * res.t), atol=4e-6)
    # the state is recorded too, named block.state
    np.testing.assert_array_equal(res["x.x"], res["x.y"])


@pytest.mark.parametrize("solver", [*ADAPTIVE, "euler", "rk4"])
def test_double_integrator_under_constant_acceleration(solver):
    d = Diagram("projectile")
    g = d.add(Constant(-9.81), name="g")
    v = d.add(Integrator(x0=5.0), name="v")
    y = d.add(Integrator(x0=1.0), name="y")
    d.connect(g, v)
    d.connect(v, y)
    opts = dict(dt=0.01) if solver in ("euler", "rk4") else TIGHT
    res = simulate(d, 1.0, solver, **opts)
    exact_v = 5.0 - 9.81 * res.t
    np.testing.assert_allclose(res["v.y"], exact_v, atol=1e-9)
    tol = 0.06 if solver == "euler" else 1e-7  # euler is first order in position
    np.testing.assert_allclose(res["y.y"], 1.0 + 5.0 * res.t - 9.81 / 2 * res.t**2, atol=tol)


@pytest.mark.parametrize("solver", ADAPTIVE)
def test_transfer_function_matches_scipy_lsim(solver):
    num, den = [2.0, 1.0], [1.0, 0.6, 4.0]
    d = Diagram("tf")
    u = d.add(Sine(amplitude=1.0, frequency=0.3), name="u")
    tf = d.add(TransferFunction(num, den), name="tf")
    d.connect(u, tf)
    res = simulate(d, 10.0, solver, record_dt=0.01, **TIGHT)
    _, y, _ = signal.lsim((num, den), np.sin(2 * np.pi * 0.3 * res.t), res.t)
    np.testing.assert_allclose(res["tf.y"], y, atol=1e-4)  # lsim holds u linearly per sample


def test_rk4_converges_at_fourth_order():
    errors = []
    for dt in (0.1, 0.05):
        res = simulate(oscillator(2.0), 2.0, "rk4", dt=dt)
        errors.append(abs(res["x.y"][-1] - math.cos(4.0)))
    assert 12 < errors[0] / errors[1] < 20


def test_fixed_step_grid_is_global_multiples_of_dt():
    res = simulate(first_order_lag(), 1.0, "rk4", dt=0.1)
    np.testing.assert_allclose(res.t, np.arange(11) * 0.1, atol=1e-12)


def test_record_dt_records_exactly_on_the_grid():
    res = simulate(first_order_lag(0.5), 2.0, record_dt=0.25, **TIGHT)
    np.testing.assert_allclose(res.t, np.arange(9) * 0.25, atol=1e-12)
    np.testing.assert_allclose(res["lag.y"], 1 - np.exp(-res.t / 0.5), atol=1e-7)


def test_pid_example_uses_no_more_rhs_evaluations_than_plain_scipy():
    """Recording at accepted steps reuses the solver's last evaluation (FSAL)."""
    from scipy.integrate import solve_ivp

    res = simulate(first_order_lag(0.5), 3.0)
    ref = solve_ivp(lambda t, y: [(1.0 - y[0]) / 0.5], (0, 3.0), [0.0], rtol=1e-6, atol=1e-9)
    assert res.stats["nfev"] == ref.nfev
    assert res.stats["nsteps"] == len(ref.t) - 1


def test_stats_are_reported():
    res = simulate(first_order_lag(), 2.0)
    s = res.stats
    for key in ("nfev", "nsteps", "nsegments", "wall_time", "realtime_factor", "solver"):
        assert key in s
    assert s["nfev"] > s["nsteps"] > 0 and s["realtime_factor"] > 0
    assert res.status == "success"


def test_result_shapes_and_input_aliases():
    d = Diagram("shapes")
    c = d.add(Constant([1.0, 2.0, 3.0]), name="c")
    i = d.add(Integrator(x0=[0.0, 0.0, 0.0]), name="i")
    g = d.add(Gain(2.0), name="g")
    d.connect(c, i)
    d.connect(i, g)
    res = simulate(d, 1.0)
    n = len(res.t)
    assert res.x.shape == (n, 3) and res["i.y"].shape == (n, 3)
    np.testing.assert_array_equal(res["g.u"], res["i.y"])   # input port -> its driver
    assert set(res.signals) == {"c.y", "i.y", "g.y"}
    with pytest.raises(KeyError, match=r"did you mean 'g\.y'"):
        res["g.yy"]


def test_save_and_load_round_trip(tmp_path):
    res = simulate(oscillator(), 1.0)
    res.save(tmp_path / "run.npz")
    back = SimResult.load(tmp_path / "run.npz")
    np.testing.assert_array_equal(back.t, res.t)
    np.testing.assert_array_equal(back.x, res.x)
    for name in res.signals:
        np.testing.assert_array_equal(back[name], res[name])
    np.testing.assert_array_equal(back["k.u"], res["x.y"])
    assert back.state_names == res.state_names
    assert back.stats["nfev"] == res.stats["nfev"]


def test_nan_signal_stops_the_run_naming_block_port_and_time():
    d = Diagram("nan")
    r = d.add(Ramp(start=0.0, slope=-1.0, initial=1.0), name="ramp")  # 1 - t
    sq = d.add(NumpySqrt(), name="root")
    lag = d.add(Lag(), name="lag")
    d.connect(r, sq)
    d.connect(sq, lag)
    with np.errstate(invalid="ignore"), pytest.raises(NonFiniteError) as info:
        simulate(d, 3.0)
    err = info.value
    assert err.block == "root" and err.port == "y"
    assert 1.0 < err.time < 1.5
    assert "signal 'root.y' (NumpySqrt) is nan" in str(err)
    partial = err.result
    assert isinstance(partial, SimResult) and partial.status == "failed"
    assert partial.t[-1] <= err.time and partial.t[-2] < 1.0
    assert np.all(np.isfinite(partial["lag.y"][:-1]))


def test_nan_derivative_names_the_block():
    d = Diagram("nan_deriv")
    d.add(NanDeriv(), name="bad")
    with pytest.raises(NonFiniteError, match=r"block 'bad' \(NanDeriv\): deriv\(\) returned "
                                             r"\[nan\] at t=1\.") as info:
        simulate(d, 2.0)
    assert info.value.result.t[-1] <= 1.0 + 1e-9


def test_block_exception_names_block_and_time_and_keeps_partial_result():
    d = Diagram("boom")
    e = d.add(Explode(at=0.5), name="bomb")
    lag = d.add(Lag(), name="lag")
    d.connect(e, lag)
    with pytest.raises(BlockRuntimeError, match=r"block 'bomb' \(Explode\): output\(\) raised "
                                                r"ZeroDivisionError: boom at t=0\.5") as info:
        simulate(d, 1.0)
    assert info.value.block == "bomb"
    partial = info.value.result  # up to the left limit of t = 0.5, before the failure
    assert partial.t[-1] <= 0.5 and len(partial.t) > 3 and np.all(np.isfinite(partial.x))


def test_stop_runs_on_success_and_on_failure_and_after_a_failed_start():
    log = []
    d = Diagram("life")
    c = d.add(Constant(1.0), name="c")
    a = d.add(Lifecycle(log), name="a")
    d.connect(c, a)
    simulate(d, 0.1)
    assert log == [("start", "a"), ("stop", "a", "success")]

    log.clear()
    d = Diagram("life2")
    e = d.add(Explode(at=0.05), name="e")
    a = d.add(Lifecycle(log), name="a")
    d.connect(e, a)
    with pytest.raises(SimulationError):
        simulate(d, 0.1)
    assert log == [("start", "a"), ("stop", "a", "failed")]

    log.clear()
    d = Diagram("life3")
    c = d.add(Constant(1.0), name="c")
    a = d.add(Lifecycle(log), name="a")
    b = d.add(Lifecycle(log, fail_start=True), name="b")
    d.connect(c, a, b)
    with pytest.raises(SimulationError, match="device busy"):
        simulate(d, 0.1)
    assert log == [("start", "a"), ("start", "b"), ("stop", "b", "failed"),
                   ("stop", "a", "failed")]


def test_discrete_clock_hits_include_t0_and_T_and_outputs_precede_updates():
    """Simulink semantics: at hit k the output is computed from x[k], then x[k+1] = x[k] + 1."""
    d = Diagram("count")
    d.add(Counter(period=0.1), name="n")
    res = simulate(d, 1.0)
    np.testing.assert_allclose(res.t, np.arange(11) * 0.1, atol=1e-12)
    np.testing.assert_array_equal(res["n.y"], np.arange(11))


def test_stateless_diagram_records_a_fine_time_grid():
    d = Diagram("algebraic")
    s = d.add(Sine(frequency=1.0), name="s")
    g = d.add(Gain(2.0), name="g")
    d.connect(s, g)
    res = simulate(d, 2.0)
    assert len(res.t) == 1001
    np.testing.assert_allclose(res["g.y"], 2 * np.sin(2 * np.pi * res.t), atol=1e-12)


def test_zero_final_time_records_the_initial_point():
    res = simulate(first_order_lag(), 0.0)
    np.testing.assert_array_equal(res.t, [0.0])


def test_a_plan_can_be_run_twice_with_the_same_result():
    plan = compile_diagram(oscillator())
    a, b = simulate(plan, 1.0), simulate(plan, 1.0)
    np.testing.assert_array_equal(a["x.y"], b["x.y"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(T=-1.0), r"`T` \(final time, s\) must be a finite number >= 0"),
    (dict(T=1.0, solver="RK54"), r"unknown solver 'RK54' \(did you mean 'RK45'\?\)"),
    (dict(T=1.0, solver="rk4"), r"solver 'rk4' is fixed-step and needs `dt`"),
    (dict(T=1.0, dt=0.1), r"`dt` is the step of the fixed-step solvers"),
    (dict(T=1.0, rtol=0.0), r"`rtol` must be a positive number"),
    (dict(T=1.0, record_dt=-0.1), r"`record_dt` must be a positive number"),
])
def test_bad_options_are_rejected_with_clear_messages(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate(first_order_lag(), **kwargs)


def test_sum_of_step_and_feedback_block_order_does_not_matter():
    """Blocks added in reverse order still evaluate correctly (topological order)."""
    d = Diagram("reverse")
    i = d.add(Integrator(), name="i")
    s = d.add(Sum("+-"), name="s")
    step = d.add(Step(time=0.0), name="r")
    d.connect(s, i)
    d.connect(i, s[1])
    d.connect(step, s[0])
    res = simulate(d, 2.0, **TIGHT)
    np.testing.assert_allclose(res["i.y"], 1 - np.exp(-res.t), atol=1e-8)


def test_a_run_config_replaces_the_keywords_and_is_kept_on_the_run():
    seen = []

    class Spy(Lag):
        def start(self, run):
            seen.append(run.config)

    d = Diagram("spy")
    d.add(Spy(), name="s")
    d.connect(d.add(Constant(1.0), name="c"), "s.u")
    config = RunConfig(T=1.0, solver="rk4", dt=0.1)
    a = simulate(d, config=config)
    b = simulate(compile_diagram(d), config)
    c = simulate(d, 1.0, "rk4", dt=0.1)
    np.testing.assert_array_equal(a["s.y"], c["s.y"])
    np.testing.assert_array_equal(b.t, c.t)
    assert seen == [config, config, config]
    with pytest.raises(ValueError, match=r"not both; got `config` and `solver`"):
        simulate(d, config=config, solver="euler")


def test_specialize_is_a_deprecated_no_op():
    plain = simulate(first_order_lag(), 1.0, "rk4", dt=0.01)
    with pytest.warns(DeprecationWarning, match="the compiled back-end always specialises"):
        res = simulate(first_order_lag(), 1.0, "rk4", dt=0.01, specialize=True)
    np.testing.assert_array_equal(res["lag.y"], plain["lag.y"])


def test_bad_options_raise_before_any_block_starts():
    log: list = []
    d = Diagram("lifecycle")
    life = d.add(Lifecycle(log), name="life")
    d.connect(d.add(Constant(1.0), name="c"), life)
    with pytest.raises(ValueError, match=r"unknown solver 'RK54'"):
        simulate(d, 1.0, "RK54")
    assert log == []
    simulate(d, 1.0)
    assert log == [("start", "life"), ("stop", "life", "success")]
