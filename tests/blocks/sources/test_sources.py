"""Tests of the source blocks, calling their methods directly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks.continuous.calculus import Integrator
from blocksim.blocks.lookup.tables import Interpolate, Piecewise
from blocksim.blocks.sources.signals import Constant, Ramp, Sine, Step, Time
from blocksim.blocks.sources.waveform import Waveform
from blocksim.engine.errors import BlockParameterError

X = np.zeros(0)


def out(block, t, *u):
    """The single output of ``block`` at time ``t``."""
    y = block.output(t, X, u)
    assert isinstance(y, tuple) and len(y) == 1
    return y[0]


def before(t: float) -> float:
    return math.nextafter(t, -math.inf)


def breakpoints(block, t0: float, n: int) -> list[float]:
    """The first ``n`` breakpoints after ``t0``, following the block's own chain."""
    result, t = [], t0
    for _ in range(n):
        t = block.next_breakpoint(t)
        result.append(t)
    return result


# ---------------------------------------------------------------------------- Constant, Time
def test_constant_scalar_is_python_float():
    c = Constant(3)
    y = out(c, 0.0)
    assert y == 3.0 and type(y) is float
    assert [p.name for p in c.outputs] == ["y"] and len(c.inputs) == 0
    assert c.params == {"value": 3}
    assert c.next_breakpoint(0.0) == math.inf


def test_constant_array_is_float64_and_read_only():
    y = out(Constant([[1, 2], [3, 4]]), 5.0)
    assert isinstance(y, np.ndarray) and y.dtype == np.float64 and y.shape == (2, 2)
    np.testing.assert_array_equal(y, [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError):
        y[0, 0] = 7.0


@pytest.mark.parametrize("value, match", [
    ("abc", r"Constant: parameter 'value' must be a real number"),
    (1 + 2j, r"Constant: parameter 'value' must be a real number"),
    ([1.0, [2.0, 3.0]], r"Constant: parameter 'value' must be a real number"),
    ([1.0, math.nan], r"Constant: parameter 'value' must be finite"),
])
def test_constant_bad_value(value, match):
    with pytest.raises(BlockParameterError, match=match):
        Constant(value)


def test_unknown_and_missing_keywords():
    with pytest.raises(BlockParameterError, match=r"Constant.*'valeu'.*did you mean 'value'"):
        Constant(valeu=1.0)
    with pytest.raises(BlockParameterError, match=r"Constant"):
        Constant()
    with pytest.raises(BlockParameterError, match=r"Step.*'tim'.*did you mean 'time'"):
        Step(tim=1.0)


def test_time():
    b = Time()
    assert out(b, 2.5) == 2.5 and type(out(b, np.float64(2.5))) is float
    assert b.next_breakpoint(0.0) == math.inf and len(b.inputs) == 0


# ---------------------------------------------------------------------------- Step, Ramp
def test_step_values_and_right_limit():
    s = Step(time=2.0)
    assert out(s, 1.0) == 0.0
    assert out(s, before(2.0)) == 0.0
    assert out(s, 2.0) == 1.0  # right limit at the breakpoint
    assert out(s, 5.0) == 1.0
    s = Step(time=0.5, before=-3.0, after=4.0)
    assert (out(s, 0.0), out(s, 0.5)) == (-3.0, 4.0)


def test_step_breakpoint():
    s = Step(time=2.0)
    assert s.next_breakpoint(0.0) == 2.0
    assert s.next_breakpoint(before(2.0)) == 2.0
    assert s.next_breakpoint(2.0) == math.inf
    assert s.next_breakpoint(3.0) == math.inf


def test_step_vector_broadcasts_scalar_side():
    s = Step(time=1.0, after=[1.0, 2.0, 3.0])
    y0, y1 = out(s, 0.0), out(s, 1.0)
    assert y0.shape == y1.shape == (3,)
    np.testing.assert_array_equal(y0, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(y1, [1.0, 2.0, 3.0])


def test_step_errors():
    with pytest.raises(BlockParameterError, match=r"Step: parameters 'before' \(2,\), "
                                                  r"'after' \(3,\)"):
        Step(before=[0, 0], after=[1, 2, 3])
    with pytest.raises(BlockParameterError, match=r"Step: parameter 'time' must be a scalar"):
        Step(time=[1.0, 2.0])
    with pytest.raises(BlockParameterError, match=r"Step: parameter 'time' must be finite"):
        Step(time=math.inf)


def test_ramp():
    r = Ramp(start=1.0, slope=2.0, initial=0.5)
    assert out(r, 0.0) == 0.5 and out(r, 1.0) == 0.5
    assert out(r, 3.0) == pytest.approx(0.5 + 2.0 * 2.0)
    assert type(out(r, 3.0)) is float
    assert r.next_breakpoint(0.0) == 1.0 and r.next_breakpoint(1.0) == math.inf
    v = Ramp(start=0.0, slope=[1.0, -1.0])
    np.testing.assert_allclose(out(v, 2.0), [2.0, -2.0])
    np.testing.assert_array_equal(out(v, 0.0), [0.0, 0.0])
    with pytest.raises(BlockParameterError, match=r"Ramp: parameter 'slope'"):
        Ramp(slope="fast")


# ---------------------------------------------------------------------------- Sine
def test_sine_matches_formula():
    s = Sine(amplitude=2.0, frequency=0.5, phase=0.3, bias=1.0)
    for t in np.linspace(0.0, 4.0, 17):
        y = out(s, float(t))
        assert type(y) is float
        assert y == pytest.approx(2.0 * math.sin(2 * math.pi * 0.5 * t + 0.3) + 1.0, abs=1e-14)
    assert s.next_breakpoint(0.0) == math.inf


def test_sine_vector_parameters():
    s = Sine(amplitude=[1.0, 2.0], frequency=[1.0, 3.0], phase=0.1)
    t = 0.37
    np.testing.assert_allclose(
        out(s, t), np.array([1.0, 2.0]) * np.sin(2 * np.pi * np.array([1.0, 3.0]) * t + 0.1))


def test_sine_errors():
    with pytest.raises(BlockParameterError, match=r"Sine: parameter 'frequency' must be >= 0"):
        Sine(frequency=-1.0)
    with pytest.raises(BlockParameterError, match=r"Sine.*'freq'.*did you mean 'frequency'"):
        Sine(freq=1.0)


# ---------------------------------------------------------------------------- Waveform
def test_square_values():
    w = Waveform("square", amplitude=2.0, frequency=2.0, bias=0.5, duty=0.25)
    # period 0.5 s, high for the first 0.125 s of each period
    for t, expected in [(0.0, 2.5), (0.1, 2.5), (0.2, -1.5), (0.45, -1.5), (0.55, 2.5)]:
        assert out(w, t) == expected
    assert type(out(w, 0.3)) is float


def test_square_breakpoints_are_edges_with_right_limits():
    w = Waveform("square", frequency=2.0, duty=0.25)
    bps = breakpoints(w, 0.0, 6)
    np.testing.assert_allclose(bps, [0.125, 0.5, 0.625, 1.0, 1.125, 1.5], rtol=0, atol=1e-15)
    for b in bps:
        assert out(w, before(b)) != out(w, b)  # the switch happens exactly at b


@pytest.mark.parametrize("frequency, phase, duty", [
    (1.0, 0.0, 0.5), (3.0, 0.7, 0.3), (0.37, -2.0, 0.9), (50.0, 1.0, 0.5), (1e-3, 0.1, 0.01)])
def test_square_breakpoints_exact_in_floating_point(frequency, phase, duty):
    w = Waveform("square", frequency=frequency, phase=phase, duty=duty)
    period = 1.0 / frequency
    t, bps = 0.0, []
    for _ in range(9):
        b = w.next_breakpoint(t)
        assert t < b <= t + period * max(duty, 1 - duty) * (1 + 1e-9)
        # the output switches exactly between the float just before b and b ...
        assert out(w, before(b)) == -out(w, b)
        # ... and is constant between two breakpoints
        assert out(w, 0.5 * (t + b)) == out(w, before(b))
        if bps:
            assert out(w, t) == out(w, before(b))
        bps.append(b)
        t = b
    # 9 consecutive edges span 4 periods
    assert bps[8] - bps[0] == pytest.approx(4 * period, rel=1e-12)


def test_square_edge_times_in_cycles():
    frequency, phase, duty = 3.0, 0.7, 0.3
    w = Waveform("square", frequency=frequency, phase=phase, duty=duty)
    c = [frequency * b + phase / (2 * math.pi) for b in breakpoints(w, 0.0, 8)]
    frac = [x - math.floor(x + 1e-9) for x in c]
    # edges alternate between the falling edge (c = k + duty) and the rising edge (c = k)
    expected = [duty, 0.0] if abs(frac[0] - duty) < 1e-9 else [0.0, duty]
    np.testing.assert_allclose(frac, expected * 4, atol=1e-9)


def test_triangle_matches_formula_and_is_in_phase_with_sine():
    w = Waveform("triangle", amplitude=2.0, frequency=0.7, phase=0.3, bias=1.0)
    t = np.linspace(0.0, 5.0, 401)
    y = np.array([out(w, float(s)) for s in t])
    # (2/pi) asin(sin(theta)) is the unit triangle in phase with sin(theta); asin loses
    # precision at the corners, hence the tolerance
    ref = 1.0 + 2.0 * (2 / np.pi) * np.arcsin(np.sin(2 * np.pi * 0.7 * t + 0.3))
    np.testing.assert_allclose(y, ref, atol=1e-7)


def test_triangle_breakpoints_are_corners():
    w = Waveform("triangle", frequency=1.0)
    bps = breakpoints(w, 0.0, 4)
    assert bps == [0.25, 0.75, 1.25, 1.75]
    assert [out(w, b) for b in bps] == [1.0, -1.0, 1.0, -1.0]
    assert w.next_breakpoint(0.3) == 0.75


def test_waveform_sine_kind_equals_sine_block():
    w = Waveform("sine", amplitude=1.5, frequency=2.0, phase=0.4, bias=-1.0)
    s = Sine(amplitude=1.5, frequency=2.0, phase=0.4, bias=-1.0)
    for t in (0.0, 0.1, 0.77, 3.3):
        assert out(w, t) == out(s, t)
    assert w.next_breakpoint(0.0) == math.inf


def test_waveform_vector_amplitude():
    w = Waveform("square", amplitude=[1.0, 2.0], bias=[0.0, 1.0])
    np.testing.assert_array_equal(out(w, 0.1), [1.0, 3.0])
    np.testing.assert_array_equal(out(w, 0.6), [-1.0, -1.0])


@pytest.mark.parametrize("kwargs, match", [
    (dict(kind="sqaure"), r"Waveform: parameter 'kind' .*got 'sqaure'.*did you mean 'square'"),
    (dict(frequency=0.0), r"Waveform: parameter 'frequency' must be > 0 Hz, got 0.0"),
    (dict(frequency=[1.0, 2.0]), r"Waveform: parameter 'frequency' must be a scalar"),
    (dict(duty=1.0), r"Waveform: parameter 'duty' must be strictly between 0 and 1, got 1.0"),
    (dict(duty=0.0), r"Waveform: parameter 'duty' must be strictly between 0 and 1"),
    (dict(kind="triangle", duty=0.3), r"Waveform: parameter 'duty' applies to kind='square'"),
    (dict(offset=1.0), r"Waveform: unknown parameter 'offset'.*bias"),
])
def test_waveform_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Waveform(**kwargs)


# ---------------------------------------------------------------------------- Piecewise
def test_piecewise_values():
    p = Piecewise(times=[1.0, 2.0, 4.0], values=[5.0, -1.0, 3.0])
    assert out(p, 0.0) == 0.0  # zero before times[0]
    assert out(p, before(1.0)) == 0.0
    assert out(p, 1.0) == 5.0
    assert out(p, 1.5) == 5.0
    assert out(p, 2.0) == -1.0
    assert out(p, 4.0) == 3.0 and out(p, 100.0) == 3.0
    assert type(out(p, 1.5)) is float


def test_piecewise_breakpoints():
    p = Piecewise(times=[1.0, 2.0, 4.0], values=[5.0, -1.0, 3.0])
    assert breakpoints(p, 0.0, 4) == [1.0, 2.0, 4.0, math.inf]
    assert p.next_breakpoint(1.5) == 2.0
    assert Piecewise([0.0, 1.0], [1.0, 2.0]).next_breakpoint(0.0) == 1.0


def test_piecewise_vector_values():
    p = Piecewise(times=[0.5, 1.0], values=[[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(out(p, 0.0), [0.0, 0.0])
    np.testing.assert_array_equal(out(p, 0.7), [1.0, 2.0])
    np.testing.assert_array_equal(out(p, 1.0), [3.0, 4.0])


@pytest.mark.parametrize("times, values, match", [
    ([1.0, 1.0], [1.0, 2.0], r"Piecewise: parameter 'times' must be strictly increasing, "
                             r"but times\[0\] = 1.0 and times\[1\] = 1.0"),
    ([2.0, 1.0], [1.0, 2.0], r"strictly increasing"),
    ([], [], r"Piecewise: parameter 'times' must be a 1-D sequence of at least 1 number"),
    ([1.0, 2.0], [1.0], r"Piecewise: parameter 'values' must have one entry per time \(2\), "
                        r"got shape \(1,\)"),
    ([1.0, 2.0], 3.0, r"Piecewise: parameter 'values' .*got a scalar"),
])
def test_piecewise_errors(times, values, match):
    with pytest.raises(BlockParameterError, match=match):
        Piecewise(times, values)


# ---------------------------------------------------------------------------- Interpolate
XT = np.array([0.0, 0.5, 2.0, 3.0, 4.5])
YT = np.array([1.0, -2.0, 0.5, 4.0, 3.0])
PROBE = np.concatenate([np.linspace(-1.0, 6.0, 141), XT])


def test_interpolate_linear_matches_np_interp_and_clamps():
    b = Interpolate(XT, YT)
    assert [p.name for p in b.inputs] == ["u"]
    for s in PROBE:
        y = out(b, 0.0, float(s))
        assert type(y) is float
        assert y == pytest.approx(float(np.interp(s, XT, YT)), abs=1e-14)
    assert out(b, 0.0, -10.0) == 1.0 and out(b, 0.0, 10.0) == 3.0
    assert b.next_breakpoint(0.0) == math.inf  # breakpoints only with time=True


def test_interpolate_2d_table_gives_vector():
    y2 = np.column_stack([YT, 10 * YT, YT**2])
    b = Interpolate(XT, y2)
    for s in (-1.0, 0.25, 2.0, 2.7, 9.0):
        y = out(b, 0.0, s)
        assert y.shape == (3,)
        np.testing.assert_allclose(
            y, [np.interp(s, XT, y2[:, k]) for k in range(3)], atol=1e-13)


def test_interpolate_time_mode():
    b = Interpolate(XT, YT, time=True)
    assert len(b.inputs) == 0
    for t in (0.0, 0.3, 1.0, 4.0, 7.0):
        assert out(b, t) == pytest.approx(float(np.interp(t, XT, YT)), abs=1e-14)
    assert breakpoints(b, 0.0, 5) == [0.5, 2.0, 3.0, 4.5, math.inf]
    assert b.next_breakpoint(-1.0) == 0.0
    assert Interpolate(XT, YT).inputs[0].name == "u"  # the class table is untouched


def test_interpolate_vector_input_elementwise():
    b = Interpolate(XT, YT)
    u = np.array([-1.0, 0.1, 2.5, 8.0])
    np.testing.assert_allclose(out(b, 0.0, u), np.interp(u, XT, YT))
    with pytest.raises(ValueError, match="needs a 1-D table"):
        out(Interpolate(XT, np.column_stack([YT, YT])), 0.0, u)


def _step_reference(kind: str, s: float) -> float:
    n = len(XT)
    if kind == "previous":
        i = np.searchsorted(XT, s, side="right") - 1
    elif kind == "next":
        i = np.searchsorted(XT, s, side="right")
    else:
        i = np.searchsorted(0.5 * (XT[1:] + XT[:-1]), s, side="right")
    return float(YT[min(max(i, 0), n - 1)])


@pytest.mark.parametrize("kind", ["previous", "next", "nearest"])
def test_interpolate_step_kinds(kind):
    b = Interpolate(XT, YT, kind=kind)
    for s in PROBE:
        assert out(b, 0.0, float(s)) == _step_reference(kind, float(s))
    u = PROBE.copy()
    np.testing.assert_array_equal(out(b, 0.0, u), [_step_reference(kind, s) for s in u])


def test_interpolate_step_kinds_conventions():
    prev = Interpolate(XT, YT, kind="previous", time=True)
    assert out(prev, 0.5) == -2.0 and out(prev, before(0.5)) == 1.0
    nxt = Interpolate(XT, YT, kind="next")
    assert out(nxt, 0.0, 0.4) == -2.0 and out(nxt, 0.0, 0.5) == 0.5  # right-continuous
    near = Interpolate(XT, YT, kind="nearest", time=True)
    assert out(near, 0.25) == -2.0 and out(near, before(0.25)) == 1.0
    assert breakpoints(near, 0.0, 3) == [0.25, 1.25, 2.5]


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=[0.0, 1.0, 1.0], y=[1, 2, 3]), r"Interpolate: parameter 'x' must be strictly"),
    (dict(x=[0.0], y=[1.0]), r"Interpolate: parameter 'x' must be a 1-D sequence of at least 2"),
    (dict(x=[0.0, 1.0], y=[1.0, 2.0, 3.0]),
     r"Interpolate: parameter 'y' must have one entry \(row\) per x point \(2\), got shape"),
    (dict(x=[0.0, 1.0], y=[1.0, 2.0], kind="linaer"),
     r"Interpolate: parameter 'kind' .*got 'linaer'.*did you mean 'linear'"),
    (dict(x=[0.0, 1.0], y=[1.0, 2.0], time="yes"), r"Interpolate: parameter 'time' must be"),
    (dict(x=[0.0, 1.0], y=["a", "b"]), r"Interpolate: parameter 'y' must be a real number"),
])
def test_interpolate_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Interpolate(**kwargs)


# ---------------------------------------------------------------------------- in a diagram
def integrate(source, T: float, **options):
    """Simulate ``source -> Integrator(x0=0)``; return (t, integral)."""
    d = Diagram("src")
    d.add(source, name="src")
    d.add(Integrator(x0=0.0), name="int")
    d.connect("src.y", "int.u")
    r = simulate(d, T, **options)
    return r.t, r["int.y"]


@pytest.mark.parametrize("record_dt", [None, 0.01])
def test_square_into_integrator_gives_exact_triangle(record_dt):
    f, phase, duty, amp, bias = 1.3, 0.4, 0.3, 2.0, 0.5

    def high_cycles(c):  # measure of {c' <= c : frac(c') < duty}
        k = np.floor(c)
        return k * duty + np.minimum(c - k, duty)

    def exact(t):
        c0 = phase / (2 * np.pi)
        high = (high_cycles(f * t + c0) - high_cycles(c0)) / f
        return bias * t + amp * (2 * high - t)

    t, y = integrate(Waveform("square", amplitude=amp, frequency=f, phase=phase, bias=bias,
                              duty=duty), 5.0, solver="RK45", record_dt=record_dt)
    assert t[-1] == 5.0
    # RK45 integrates a constant exactly: any step over an edge would cost ~1e-2 here
    np.testing.assert_allclose(y, exact(t), rtol=0, atol=1e-12)


def test_step_into_integrator_gives_exact_ramp():
    t, y = integrate(Step(time=1.3, after=2.0), 4.0, solver="RK45")
    np.testing.assert_allclose(y, 2.0 * np.maximum(0.0, t - 1.3), rtol=0, atol=1e-12)
    assert y[-1] == pytest.approx(2.0 * 2.7, abs=1e-12)


def test_piecewise_into_integrator():
    times, values = [0.5, 1.7, 2.2], [1.0, -3.0, 0.25]
    t, y = integrate(Piecewise(times, values), 3.0, solver="RK45")
    edges = np.array([*times, np.inf])
    exact = sum(v * np.clip(t - edges[i], 0.0, edges[i + 1] - edges[i])
                for i, v in enumerate(values))
    np.testing.assert_allclose(y, exact, rtol=0, atol=1e-12)


def test_interpolate_time_into_integrator():
    t, y = integrate(Interpolate(XT, YT, time=True), 6.0, solver="RK45")

    def exact(s):  # the integrand is linear between these knots, so trapezoids are exact
        knots = np.unique(np.concatenate([[0.0, s], XT[XT < s]]))
        return np.trapezoid(np.interp(knots, XT, YT), knots)

    np.testing.assert_allclose(y, [exact(s) for s in t], rtol=0, atol=1e-12)
