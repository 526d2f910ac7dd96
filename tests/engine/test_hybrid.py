"""Hybrid time: clocks on an integer time base, held discrete outputs, inherited rates, events,
Stop, Zeno guard, real-time pacing."""

import math
import time

import numpy as np
import pytest
from scipy import signal

from blocksim import Clock, Diagram, compile_diagram, simulate
from blocksim.blocks import (
    ZOH,
    Constant,
    DiscreteTransferFunction,
    Function,
    Gain,
    HitCrossing,
    Integrator,
    Sine,
    Step,
    Stop,
    Sum,
    UnitDelay,
)
from blocksim.engine.errors import ZenoError
from blocksim.engine.solvers import RK_PRIVATE_ATTRIBUTES, RK_RESTARTABLE, ScipyStepper

from ..examples_loader import load_example
from .helpers import Counter


def test_clocks_of_0p1_and_0p3_s_coincide_exactly_over_1000_s():
    d = Diagram("two_clocks")
    d.add(Counter(period=0.1), name="fast")
    d.add(Counter(period=0.3), name="slow")
    res = simulate(d, 1000.0)
    # every 0.3 s hit is also a 0.1 s hit: no near-duplicate instants anywhere
    assert len(res.t) == 10001
    assert np.all(np.diff(res.t) > 0.09)
    assert res["fast.y"][-1] == 10000 and res["slow.y"][-1] == 3333
    np.testing.assert_allclose(res.t, np.arange(10001) / 10, rtol=0, atol=1e-12)
    slow_hits = np.flatnonzero(np.diff(res["slow.y"])) + 1
    np.testing.assert_allclose(res.t[slow_hits], 0.3 * np.arange(1, 3334), atol=1e-9)


def test_a_pure_discrete_diagram_matches_dlsim():
    num, den, T = [0.5, 0.1], [1.0, -1.2, 0.5], 0.05
    d = Diagram("pure_discrete")
    step = d.add(Step(time=0.0), name="step")
    hold = d.add(ZOH(T), name="hold")
    dtf = d.add(DiscreteTransferFunction(num, den, T), name="dtf")
    d.connect(step, hold)
    d.connect(hold, dtf)
    res = simulate(d, 2.0)
    assert res.x.shape[1] == 0
    _, y = signal.dlsim((num, den, T), np.ones(41))
    np.testing.assert_allclose(res.t, np.arange(41) * T, atol=1e-12)
    np.testing.assert_allclose(res["dtf.y"], y[:, 0], atol=1e-12)


def test_discrete_outputs_are_held_between_hits():
    d = Diagram("held")
    s = d.add(Sine(frequency=1.0), name="s")
    z = d.add(ZOH(0.25), name="z")
    i = d.add(Integrator(), name="i")
    d.connect(s, z)
    d.connect(z, i)
    res = simulate(d, 1.0, max_step=0.01, rtol=1e-10, atol=1e-12)
    k = np.floor(res.t / 0.25 + 1e-9)
    np.testing.assert_allclose(res["z.y"], np.sin(2 * np.pi * 0.25 * k), atol=1e-12)
    # the integral of the staircase, exactly
    held = np.sin(2 * np.pi * 0.25 * np.arange(4))
    assert res["i.y"][-1] == pytest.approx(0.25 * held.sum(), abs=1e-9)


def test_inherited_rates_are_propagated():
    d = Diagram("rates")
    c = d.add(Constant(2.0), name="c")
    g_const = d.add(Gain(3.0), name="g_const")
    delay = d.add(UnitDelay(0.1), name="delay")
    g_disc = d.add(Gain(2.0), name="g_disc")
    s = d.add(Sine(), name="s")
    g_cont = d.add(Gain(1.0), name="g_cont")
    fast = d.add(UnitDelay(0.05), name="fast")
    mix = d.add(Sum("++"), name="mix")
    d.connect(c, g_const, delay, fast)
    d.connect(delay, g_disc, mix[0])
    d.connect(s, g_cont)
    d.connect(fast, mix[1])
    plan = compile_diagram(d)
    rate = {e.name: e.rate for e in plan.entries}
    assert rate["c"] == "constant" and rate["g_const"] == "constant"
    assert rate["g_disc"] == Clock(0.1)
    assert rate["g_cont"] == "continuous"
    assert rate["mix"] == "continuous"   # two different clocks: evaluated every time
    assert "[every 0.1 s]" in plan.describe()
    res = simulate(d, 0.3)
    np.testing.assert_array_equal(res["g_disc.y"], 2 * res["delay.y"])
    assert res["delay.y"][0] == 0.0 and res["delay.y"][-1] == 2.0


def test_stop_ends_the_run_at_the_located_instant():
    d = Diagram("stopper")
    one = d.add(Constant(1.0), name="one")
    clock = d.add(Integrator(), name="clock")
    flag = d.add(Function(lambda v: 1.0 if v >= 2.0 else 0.0), name="flag")
    stop = d.add(Stop(), name="stop")
    d.connect(one, clock)
    d.connect(clock, flag)
    d.connect(flag, stop)
    res = simulate(d, 10.0)
    assert res.status == "stopped"
    assert "stopped by block 'stop'" in res.message
    assert res.t[-1] == pytest.approx(2.0, abs=1e-8)


def test_bouncing_ball_impacts_follow_the_analytic_sequence():
    bb = load_example("bouncing_ball")
    res = bb.main(T=10.0, rtol=1e-10, atol=1e-12)
    impacts = res.t[(res["ball.h"] == 0.0) & (res["ball.v"] > 0)]  # on_event sets h = 0
    expected = bb.impact_times(7)
    assert res.stats["nevents"] == 7
    np.testing.assert_allclose(impacts, expected, atol=1e-7)


def test_zeno_guard_names_the_chattering_block_and_keeps_the_partial_result():
    bb = load_example("bouncing_ball")
    with pytest.raises(ZenoError, match=r"block 'ball' \(Ball\) is chattering") as info:
        bb.main(T=20.0)
    accumulation = bb.impact_times(1)[0] + 2 * math.sqrt(2 * bb.G * bb.H0) / bb.G * \
        bb.RESTITUTION / (1 - bb.RESTITUTION)
    assert info.value.time == pytest.approx(accumulation, abs=1e-3)
    assert info.value.result.t[-1] < accumulation + 1e-3


def test_hit_crossing_marks_each_located_crossing():
    d = Diagram("hits")
    s = d.add(Sine(frequency=1.0), name="s")
    h = d.add(HitCrossing(offset=0.5, direction="rising"), name="h")
    d.connect(s, h)
    res = simulate(d, 2.5)
    marked = res.t[res["h.y"] == 1.0]
    expected = math.asin(0.5) / (2 * math.pi) + np.arange(3)
    np.testing.assert_allclose(marked, expected, atol=1e-9)


def test_discrete_pid_at_1khz_matches_the_closed_form_recursion():
    """ZOH-discretised plant in feedback with the DiscretePID difference equations."""
    ex = load_example("discrete_pid_mass_spring_damper")
    T = ex.PERIOD
    res = ex.main(T=2.0, rtol=1e-10, atol=1e-12)
    A, B, C, D = signal.tf2ss([1.0], [ex.MASS, ex.DAMPING, ex.STIFFNESS])
    Ad, Bd, Cd, _, _ = signal.cont2discrete((A, B, C, D), T, method="zoh")
    x = np.zeros((2, 1))
    xi = z = 0.0
    ys = []
    for _ in range(2001):
        y = float((Cd @ x)[0, 0])
        ys.append(y)
        e = 1.0 - y
        d = (e - z) / (T + 1.0 / ex.N)
        u = ex.KP * e + ex.KI * xi + ex.KD * d
        xi += T * e
        z += T * d
        x = Ad @ x + Bd * u
    hits = np.isclose(res.t / T, np.round(res.t / T), atol=1e-6)
    k = np.round(res.t[hits] / T).astype(int)
    np.testing.assert_allclose(res["plant.y"][hits], np.array(ys)[k], atol=1e-9)
    assert hits.sum() == 2001


def test_realtime_paces_major_steps_and_reports_lateness():
    d = Diagram("paced")
    d.add(Counter(period=0.05), name="n")
    t0 = time.perf_counter()
    res = simulate(d, 0.3, realtime=1.0)
    wall = time.perf_counter() - t0
    assert wall >= 0.29
    rt = res.stats["realtime"]
    clock = rt["clocks"]["clock 0.05 s"]
    assert clock["hits"] == 7 and clock["overruns"] == 0
    assert 0.0 <= clock["max_lateness"] < 0.05


# --- the scipy internals the interpreted stepping relies on (scipy pinned in pyproject) -------


def _oscillator(t, y):
    return np.array([y[1], -y[0] + math.sin(3.0 * t)])


@pytest.mark.parametrize("method", RK_RESTARTABLE)
def test_scipy_runge_kutta_solvers_have_the_private_attributes_restart_writes(method):
    import scipy
    from scipy import integrate

    solver = getattr(integrate, method)(_oscillator, 0.0, np.array([1.0, 0.0]), 1.0)
    for name in RK_PRIVATE_ATTRIBUTES:
        assert hasattr(solver, name), (
            f"scipy {scipy.__version__}: {method} has no attribute {name!r}, which "
            f"blocksim.engine.solvers.ScipyStepper.restart writes to restart the solver in "
            f"place (it now rebuilds the solver, correct but ~35x slower per segment); adapt "
            f"RK_PRIVATE_ATTRIBUTES / restart to this scipy and the pin in pyproject.toml")


@pytest.mark.parametrize("method", RK_RESTARTABLE)
def test_a_solver_restarted_in_place_steps_exactly_like_a_fresh_one(method):
    """ScipyStepper.restart writes t, y, t_bound, f, status, t_old of a running solver; the
    steps that follow must be those of a new solver started there with the step size it had."""
    import scipy
    from scipy import integrate

    rtol, atol = 1e-8, 1e-10
    stepper = ScipyStepper(method, _oscillator, 0.0, np.array([1.0, 0.0]), 1.0, rtol, atol,
                           math.inf, None)
    for _ in range(4):
        stepper.step()
    h = stepper.solver.h_abs
    y1 = np.array([0.3, -0.2])
    stepper.restart(0.7, y1, 3.0)
    fresh = getattr(integrate, method)(_oscillator, 0.7, y1, 3.0, rtol=rtol, atol=atol,
                                       first_step=h)
    where = (f"scipy {scipy.__version__}: {method} restarted in place by "
             f"blocksim.engine.solvers.ScipyStepper.restart (writing t, y, t_bound, "
             f"{', '.join(RK_PRIVATE_ATTRIBUTES)}, status, t_old) no longer steps like a fresh "
             f"solver; this scipy changed its Runge-Kutta internals: rebuild the solver in "
             f"restart or adapt it, and the pin in pyproject.toml")
    while fresh.status == "running":
        fresh.step()
        stepper.step()
        assert stepper.t == fresh.t and np.array_equal(stepper.y, fresh.y), where
        mid = 0.5 * (fresh.t_old + fresh.t)
        assert np.array_equal(stepper.interpolate(mid), fresh.dense_output()(mid)), where
    assert stepper.solver.status == "finished", where


@pytest.mark.parametrize("method", RK_RESTARTABLE)
def test_scipy_runge_kutta_steps_end_with_f_of_the_accepted_state(method):
    """Segments reuse the signal store of the last right-hand-side call when it was made at
    the accepted (t, y) itself, recognised by identity (FSAL: the last stage of an explicit
    Runge-Kutta step). If scipy stops doing so the run stays correct (it re-evaluates), but
    every recorded step costs one more diagram evaluation."""
    import scipy

    calls = []

    def rhs(t, y):
        calls.append((t, y))
        return _oscillator(t, y)

    stepper = ScipyStepper(method, rhs, 0.0, np.array([1.0, 0.0]), 2.0, 1e-6, 1e-9,
                           math.inf, None)
    while stepper.t < 2.0:
        stepper.step()
        t_last, y_last = calls[-1]
        assert t_last == stepper.t and y_last is stepper.y, (
            f"scipy {scipy.__version__}: {method}.step() no longer ends with fun(t_new, y_new) "
            f"on the array it keeps as .y, which blocksim.engine.segments relies on to record "
            f"without re-evaluating the diagram (FSAL)")


def test_recording_rk45_steps_costs_no_extra_diagram_evaluation():
    d = Diagram("lag")
    d.connect(d.add(Sine(frequency=1.0), name="s"), d.add(Integrator(), name="i"))
    res = simulate(d, 5.0)
    assert res.stats["nsteps"] == len(res.t) - 1  # every step recorded, and t = 0
    # every output evaluation is a right-hand-side call, but the two at the major times 0 and
    # T (a method without FSAL, e.g. Radau, evaluates once more per recorded step)
    assert res.stats["noutput_evals"] == res.stats["nfev"] + 2
