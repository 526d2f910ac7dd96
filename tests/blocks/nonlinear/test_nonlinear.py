"""Tests of the nonlinear blocks.

Block methods are called directly (values, vector behaviour, zero-crossing values and
directions, Relay transitions, feedthrough declarations, bad parameters); at the end, diagrams
are simulated to check that the engine locates the switching instants the blocks declare.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks.continuous.calculus import Integrator
from blocksim.blocks.nonlinear.quantize import Quantizer
from blocksim.blocks.nonlinear.rate_limits import Backlash, RateLimiter
from blocksim.blocks.nonlinear.saturation import DeadZone, Saturation
from blocksim.blocks.nonlinear.switching import MinMax, Relay, Sign, Switch
from blocksim.blocks.sources.signals import Constant, Sine, Time
from blocksim.blocks.sources.waveform import Waveform
from blocksim.engine.clock import EVENT, Clock
from blocksim.engine.errors import BlockParameterError

X = np.zeros(0)
NAN = math.nan


def out(block, *u, x=X, t=0.0):
    """The single output of ``block`` for inputs ``u``."""
    y = block.output(t, x, u)
    assert isinstance(y, tuple) and len(y) == 1
    return y[0]


def zc(block, *u, x=X):
    return list(np.asarray(block.zero_crossings(0.0, x, u), dtype=float))


def state(values) -> np.ndarray:
    """``values`` as a float64 view into a larger array, like the engine's state slices."""
    v = np.asarray(values, dtype=float).reshape(-1)
    full = np.zeros(v.size + 4)
    full[2:2 + v.size] = v
    return full[2:2 + v.size]


def names(ports) -> list[str]:
    return [p.name for p in ports]


# ---------------------------------------------------------------------------- Saturation
@pytest.mark.parametrize("u, expected", [
    (-3.0, -1.0), (-1.0, -1.0), (-0.25, -0.25), (0.0, 0.0), (0.5, 0.5), (2.0, 2.0), (7.0, 2.0),
])
def test_saturation_scalar(u, expected):
    y = out(Saturation(-1.0, 2.0), u)
    assert y == expected and type(y) is float


def test_saturation_vector_nan_and_infinite_limits():
    s = Saturation(-1.0, 1.0, size=None)
    u = np.array([-2.0, 0.5, 3.0])
    y = out(s, u)
    np.testing.assert_array_equal(y, [-1.0, 0.5, 1.0])
    assert y.dtype == np.float64
    np.testing.assert_array_equal(u, [-2.0, 0.5, 3.0])  # input untouched
    assert math.isnan(out(Saturation(), NAN))
    assert out(Saturation(-math.inf, 1.0), -1e300) == -1e300
    assert out(Saturation(0.0, math.inf), 1e300) == 1e300
    assert out(Saturation(2.0, 2.0), -5.0) == 2.0


def test_saturation_zero_crossings():
    s = Saturation(-1.0, 2.0)
    assert s.crossing_directions == (0, 0)
    assert zc(s, 0.5) == [0.5 - 2.0, 0.5 + 1.0]
    v = Saturation(-1.0, 2.0, size=3)
    assert v.crossing_directions == (0,) * 6
    np.testing.assert_array_equal(zc(v, np.array([0.0, 3.0, -2.0])),
                                  [-2.0, 1.0, -4.0, 1.0, 4.0, -1.0])
    # an infinite limit has no crossing
    assert Saturation(-math.inf, 1.0).crossing_directions == (0,)
    assert zc(Saturation(-math.inf, 1.0), 3.0) == [2.0]
    assert Saturation(-math.inf, math.inf).crossing_directions == ()
    # no crossings at all
    n = Saturation(size=None)
    assert n.crossing_directions == () and list(n.zero_crossings(0.0, X, (np.ones(5),))) == []


def test_saturation_size_mismatch_is_explained():
    with pytest.raises(ValueError, match=r"Saturation: input 'u' has 3 element\(s\), but the "
                                         r"block was built with size=1.*size=3, or size=None"):
        zc(Saturation(), np.ones(3))
    with pytest.raises(ValueError, match=r"has 1 element\(s\), but .* size=2"):
        zc(Saturation(size=2), 1.0)


def test_saturation_feedthrough_and_params():
    s = Saturation(-1.0, 1.0)
    assert s.output_feedthrough() == {"y": ("u",)}
    assert s.params == {"lower": -1.0, "upper": 1.0, "size": 1}
    assert s.nx == 0


@pytest.mark.parametrize("kwargs, match", [
    (dict(lower=2.0, upper=1.0), r"Saturation: parameter 'lower' must be <= 'upper', "
                                 r"got lower=2.0, upper=1.0"),
    (dict(lower="a"), r"Saturation: parameter 'lower' must be a real number or \+-inf"),
    (dict(upper=NAN), r"Saturation: parameter 'upper' must be a real number or \+-inf \(not "
                      r"NaN\), got nan"),
    (dict(size=0), r"Saturation: parameter 'size' must be None or an integer >= 1.*got 0"),
    (dict(size=2.0), r"Saturation: parameter 'size' .* got 2.0"),
    (dict(size=True), r"Saturation: parameter 'size'"),
    (dict(limit=1.0), r"Saturation: unknown parameter 'limit'"),
])
def test_saturation_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Saturation(**kwargs)


# ---------------------------------------------------------------------------- DeadZone
@pytest.mark.parametrize("u, expected", [
    (-3.0, -2.0), (-1.0, 0.0), (0.0, 0.0), (2.0, 0.0), (2.5, 0.5), (-1.5, -0.5),
])
def test_deadzone_scalar(u, expected):
    y = out(DeadZone(-1.0, 2.0), u)
    assert y == expected and type(y) is float


def test_deadzone_vector_nan_and_crossings():
    d = DeadZone(-0.5, 0.5, size=4)
    y = out(d, np.array([-2.0, 0.0, 0.5, 1.5]))
    np.testing.assert_array_equal(y, [-1.5, 0.0, 0.0, 1.0])
    assert math.isnan(out(DeadZone(), NAN))
    assert np.isnan(out(DeadZone(size=None), np.array([NAN, 0.0]))[0])
    assert d.crossing_directions == (0,) * 8
    s = DeadZone(-1.0, 2.0)
    assert zc(s, 0.0) == [-2.0, 1.0]  # u - end, u - start
    assert s.output_feedthrough() == {"y": ("u",)}


@pytest.mark.parametrize("kwargs, match", [
    (dict(start=1.0, end=0.0), r"DeadZone: parameter 'start' must be <= 'end', got start=1.0, "
                               r"end=0.0"),
    (dict(start=-math.inf), r"DeadZone: parameter 'start' must be a finite real number, "
                            r"got -inf"),
    (dict(end=[1.0]), r"DeadZone: parameter 'end' must be a finite real number"),
    (dict(size=-1), r"DeadZone: parameter 'size'"),
])
def test_deadzone_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        DeadZone(**kwargs)


# ---------------------------------------------------------------------------- Quantizer
@pytest.mark.parametrize("q, u, expected", [
    (1.0, 0.4, 0.0), (1.0, 0.5, 1.0), (1.0, -0.5, -1.0), (1.0, 2.5, 3.0), (1.0, -2.5, -3.0),
    (1.0, 1.49, 1.0), (0.5, 0.8, 1.0), (0.5, 0.7, 0.5), (0.25, -0.3, -0.25), (2.0, 5.0, 6.0),
    (1.0, 0.49999999999999994, 0.0),  # floor(u + 0.5) would give 1
])
def test_quantizer_scalar(q, u, expected):
    y = out(Quantizer(q), u)
    assert y == expected and type(y) is float


def test_quantizer_vector_nonfinite_and_crossings():
    qz = Quantizer(0.5, size=5)
    u = np.array([0.24, 0.25, -0.25, -0.8, 1.3])
    np.testing.assert_array_equal(out(qz, u), [0.0, 0.5, -0.5, -1.0, 1.5])
    for q, v in [(0.1, x) for x in np.linspace(-3, 3, 61)]:  # agrees with the scalar path
        assert out(Quantizer(q, size=None), np.array([v]))[0] == out(Quantizer(q), float(v))
    assert math.isnan(out(Quantizer(), NAN))
    assert out(Quantizer(), math.inf) == math.inf
    # crossings: a continuous triangle wave of u, zero exactly at the jumps (k + 1/2) interval
    z = Quantizer(0.5)
    assert z.crossing_directions == (0,)
    assert zc(z, 0.25) == [0.0] and zc(z, -0.75) == [0.0] and zc(z, 1.25) == [0.0]
    assert zc(z, 0.0) == [-0.5] and zc(z, 0.5) == [0.5] and zc(z, -1.0) == [-0.5]
    assert zc(z, 0.2) == pytest.approx([-0.1]) and zc(z, 0.3) == pytest.approx([0.1])
    assert zc(z, 0.7) == pytest.approx([0.1]) and zc(z, 0.8) == pytest.approx([-0.1])
    grid = np.linspace(-3.0, 3.0, 6001) + 1e-4  # never exactly on a jump
    g = np.array([zc(z, float(v))[0] for v in grid])
    assert np.max(np.abs(np.diff(g))) < 2 * 0.001 / 0.5  # continuous (slope 1/interval)
    levels = np.array([out(z, float(v)) for v in grid])
    flips = np.flatnonzero(np.diff(levels) != 0)
    np.testing.assert_array_equal(flips, np.flatnonzero(np.diff(np.sign(g)) != 0))
    np.testing.assert_allclose(zc(qz, u), [zc(z, float(v))[0] for v in u])
    assert math.isnan(zc(z, NAN)[0])
    assert Quantizer(size=None).crossing_directions == ()


@pytest.mark.parametrize("interval, match", [
    (0.0, r"Quantizer: parameter 'interval' must be > 0, got 0.0"),
    (-1.0, r"Quantizer: parameter 'interval' must be > 0"),
    (math.inf, r"Quantizer: parameter 'interval' must be a finite real number, got inf"),
    ("1", r"Quantizer: parameter 'interval' must be a finite real number, got '1'"),
])
def test_quantizer_errors(interval, match):
    with pytest.raises(BlockParameterError, match=match):
        Quantizer(interval)


# ---------------------------------------------------------------------------- Sign
def test_sign():
    s = Sign()
    assert [out(s, v) for v in (-2.0, 0.0, 3.0)] == [-1.0, 0.0, 1.0]
    assert type(out(s, 3.0)) is float
    assert math.isnan(out(s, NAN))
    np.testing.assert_array_equal(out(Sign(size=3), np.array([-0.1, 0.0, 4.0])), [-1, 0, 1])
    assert s.crossing_directions == (0,)
    assert zc(s, -0.3) == [-0.3]
    np.testing.assert_array_equal(zc(Sign(size=2), np.array([1.0, -2.0])), [1.0, -2.0])
    assert s.output_feedthrough() == {"y": ("u",)}
    with pytest.raises(BlockParameterError, match=r"Sign: parameter 'size'"):
        Sign(size="3")
    with pytest.raises(BlockParameterError, match=r"Sign: unknown parameter 'threshold'"):
        Sign(threshold=1.0)


# ---------------------------------------------------------------------------- MinMax
def test_minmax_two_scalars_and_ports():
    mn, mx = MinMax("min"), MinMax("max")
    assert names(mn.inputs) == ["u0", "u1"] and names(mn.outputs) == ["y"]
    assert out(mn, 1.0, -2.0) == -2.0 and out(mx, 1.0, -2.0) == 1.0
    assert type(out(mx, 1.0, 3.0)) is float
    assert mn.output_feedthrough() == {"y": ("u0", "u1")}
    assert mn.crossing_directions == ()


@pytest.mark.parametrize("func", ["min", "max"])
@pytest.mark.parametrize("u", [(NAN, 1.0), (1.0, NAN), (1.0, NAN, 2.0), (NAN, 5.0, -5.0)])
def test_minmax_propagates_nan(func, u):
    assert math.isnan(out(MinMax(func, nin=len(u)), *u))


def test_minmax_many_inputs_and_arrays():
    assert out(MinMax("min", 4), 3.0, 1.0, 2.0, 5.0) == 1.0
    assert out(MinMax("max", 4), 3.0, 1.0, 2.0, 5.0) == 5.0
    y = out(MinMax("max", 3), np.array([1.0, 5.0]), 2.0, np.array([0.0, 7.0]))
    np.testing.assert_array_equal(y, [2.0, 7.0])
    assert y.dtype == np.float64


def test_minmax_single_input_reduces_a_vector():
    mn = MinMax("min", nin=1)
    assert names(mn.inputs) == ["u"]
    y = out(mn, np.array([3.0, -1.0, 2.0]))
    assert y == -1.0 and type(y) is float
    assert out(MinMax("max", 1), np.array([3.0, -1.0, 2.0])) == 3.0
    assert out(mn, 4.0) == 4.0
    assert math.isnan(out(mn, np.array([1.0, NAN])))


@pytest.mark.parametrize("kwargs, match", [
    (dict(func="mean"), r"MinMax: parameter 'func' must be 'min' or 'max', got 'mean'"),
    (dict(func="maxx"), r"got 'maxx' \(did you mean 'max'\?\)"),
    (dict(nin=0), r"MinMax: parameter 'nin' must be an integer >= 1, got 0"),
    (dict(nin=2.5), r"MinMax: parameter 'nin' must be an integer >= 1, got 2.5"),
])
def test_minmax_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        MinMax(**kwargs)


# ---------------------------------------------------------------------------- Switch
@pytest.mark.parametrize("criterion, control, expected", [
    (">=", 0.0, "T"), (">=", -0.1, "F"), (">=", 1.0, "T"),
    (">", 0.0, "F"), (">", 0.1, "T"),
    ("!=", 0.0, "F"), ("!=", -3.0, "T"),
])
def test_switch_scalar_criteria(criterion, control, expected):
    s = Switch(0.0, criterion)
    y = out(s, 10.0, control, 20.0)
    assert y == (10.0 if expected == "T" else 20.0)


def test_switch_threshold_ports_and_feedthrough():
    s = Switch(threshold=2.0)
    assert names(s.inputs) == ["u_true", "control", "u_false"]
    assert out(s, 1.0, 2.0, -1.0) == 1.0 and out(s, 1.0, 1.9, -1.0) == -1.0
    assert type(out(s, np.float64(1.0), 2.0, -1.0)) is float
    assert s.output_feedthrough() == {"y": ("u_true", "control", "u_false")}
    assert s.crossing_directions == (0,)
    assert zc(s, 1.0, 5.0, -1.0) == [3.0]


def test_switch_vectors():
    s = Switch(0.0)
    a, b = np.array([1.0, 2.0]), np.array([-1.0, -2.0])
    assert out(s, a, 1.0, b) is a  # a scalar control selects a whole input
    np.testing.assert_array_equal(out(s, a, -1.0, b), b)
    y = out(Switch(0.0, size=2), a, np.array([1.0, -1.0]), b)  # element-wise
    np.testing.assert_array_equal(y, [1.0, -2.0])
    assert y.dtype == np.float64
    np.testing.assert_array_equal(zc(Switch(0.5, size=2), a, np.array([1.0, -1.0]), b),
                                  [0.5, -1.5])
    with pytest.raises(ValueError, match=r"Switch: inputs 'u_true' \(shape \(2,\)\) and "
                                         r"'u_false' \(shape \(\)\) must have the same shape"):
        out(s, a, 1.0, 3.0)
    with pytest.raises(ValueError, match=r"Switch: input 'control' has 2 element\(s\), but "
                                         r"the block was built with size=1"):
        zc(s, a, np.array([1.0, -1.0]), b)


@pytest.mark.parametrize("kwargs, match", [
    (dict(criterion="=="), r"Switch: parameter 'criterion' must be one of '>=', '>', '!=', "
                           r"got '=='"),
    (dict(criterion=1), r"Switch: parameter 'criterion' must be one of .* got 1"),
    (dict(threshold=NAN), r"Switch: parameter 'threshold' must be a finite real number"),
    (dict(size=0), r"Switch: parameter 'size'"),
])
def test_switch_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Switch(**kwargs)


# ---------------------------------------------------------------------------- Relay
def test_relay_declaration():
    r = Relay(on_point=0.5, off_point=-0.5, on_value=3.0, off_value=-2.0)
    assert r.clock is EVENT and r.is_discrete
    np.testing.assert_array_equal(r.x0, [0.0])
    assert r.state_names == ("mode",)
    assert r.crossing_directions == (1, -1)
    assert r.output_feedthrough() == {"y": ()}
    np.testing.assert_array_equal(Relay(x0=1).x0, [1.0])
    np.testing.assert_array_equal(Relay(x0=True).x0, [1.0])
    copied = pickle.loads(pickle.dumps(r))
    assert copied.clock is EVENT and copied.params == r.params


def test_relay_output_depends_on_mode_only():
    r = Relay(0.5, -0.5, on_value=3.0, off_value=-2.0)
    assert out(r, None, x=state([0.0])) == -2.0  # never reads u
    assert out(r, None, x=state([1.0])) == 3.0
    assert type(out(r, None, x=state([1.0]))) is float


def test_relay_crossings_and_transitions():
    r = Relay(0.5, -0.5)
    off, on = state([0.0]), state([1.0])
    assert zc(r, 0.2, x=off) == [0.2 - 0.5, 0.2 + 0.5]
    # rising through on_point turns on; falling through off_point turns off
    np.testing.assert_array_equal(r.on_event(0.0, off, (0.5,), 0), [1.0])
    np.testing.assert_array_equal(r.on_event(0.0, on, (-0.5,), 1), [0.0])
    # already in that mode: nothing changes
    assert r.on_event(0.0, on, (0.5,), 0) is None
    assert r.on_event(0.0, off, (-0.5,), 1) is None
    # the mode survives an update (an EVENT block's state changes only in on_event)
    np.testing.assert_array_equal(r.update(0.0, on, (-9.0,)), [1.0])
    with pytest.raises(ValueError, match=r"Relay: input 'u' must be a scalar, got shape \(2,\)"):
        zc(r, np.ones(2), x=off)


def test_relay_hysteresis_by_hand():
    """Drive the relay through the crossings an engine would detect, one sample at a time."""
    r = Relay(0.5, -0.5)
    x = r.x0.copy()
    g_old = None
    ys = []
    for v in [0.0, 0.4, 0.6, 0.0, -0.4, -0.6, -0.1, 0.45, 0.55]:
        g = zc(r, v, x=x)
        if g_old is not None:
            for i, d in enumerate(r.crossing_directions):
                rising = g_old[i] < 0.0 <= g[i]
                falling = g_old[i] > 0.0 >= g[i]
                if (d >= 0 and rising) or (d <= 0 and falling):
                    new = r.on_event(0.0, x, (v,), i)
                    if new is not None:
                        x = np.asarray(new, dtype=float)
        g_old = g
        ys.append(out(r, v, x=x))
    assert ys == [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("kwargs, match", [
    (dict(on_point=0.0, off_point=1.0), r"Relay: parameter 'off_point' must be <= 'on_point'.*"
                                        r"got on_point=0.0, off_point=1.0"),
    (dict(x0=2), r"Relay: parameter 'x0' \(initial mode\) must be 0 \(off\) or 1 \(on\), got 2"),
    (dict(x0="on"), r"Relay: parameter 'x0' .* got 'on'"),
    (dict(x0=[1]), r"Relay: parameter 'x0' .* got \[1\]"),
    (dict(on_value=math.inf), r"Relay: parameter 'on_value' must be a finite real number"),
    (dict(on_point=None), r"Relay: parameter 'on_point' must be a finite real number, got None"),
    (dict(hysteresis=1.0), r"Relay: unknown parameter 'hysteresis'; valid parameters: "
                           r"on_point, off_point, on_value, off_value, x0"),
])
def test_relay_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Relay(**kwargs)


# ---------------------------------------------------------------------------- Backlash
def exact_backlash(u, width, y0):
    """Backlash of the sampled input u (exact for a piecewise-linear input sampled at its
    corners): y_k = clip(y_{k-1}, u_k - width/2, u_k + width/2)."""
    y, out_ = y0, []
    for v in u:
        y = min(max(y, v - width / 2), v + width / 2)
        out_.append(y)
    return np.array(out_)


def test_backlash_continuous_declaration():
    b = Backlash(width=1.0)
    assert b.clock is None and not b.is_discrete
    np.testing.assert_array_equal(b.x0, [0.0])
    assert b.state_names == ("z",)
    assert b.output_feedthrough() == {"y": ("u",)}
    assert b.crossing_directions == (0, 0)
    v = Backlash(0.2, x0=[0.0, 1.0, 2.0])
    assert v.state_names == ("z0", "z1", "z2")
    assert v.crossing_directions == (0,) * 6


def test_backlash_continuous_output_deriv_crossings():
    b = Backlash(width=1.0, tau=0.01)
    z = state([0.2])
    # inside the band [z - 0.5, z + 0.5]: held, and the state does not move
    assert out(b, 0.5, x=z) == 0.2 and b.deriv(0.0, z, (0.5,))[0] == 0.0
    # pushing up: engaged, y = u - width/2 exactly; the state tracks it with time constant tau
    assert out(b, 1.0, x=z) == 0.5
    assert b.deriv(0.0, z, (1.0,))[0] == pytest.approx((0.5 - 0.2) / 0.01)
    # pushing down
    assert out(b, -1.0, x=z) == -0.5
    assert b.deriv(0.0, z, (-1.0,))[0] == pytest.approx((-0.5 - 0.2) / 0.01)
    assert type(out(b, 1.0, x=z)) is float
    # crossings u - w/2 - z (engage up) and u + w/2 - z (engage down)
    assert zc(b, 0.5, x=z) == pytest.approx([0.5 - 0.5 - 0.2, 0.5 + 0.5 - 0.2])
    assert zc(b, 0.7, x=z)[0] == pytest.approx(0.0, abs=1e-15)


def test_backlash_vector():
    b = Backlash(width=1.0, x0=[0.0, 0.0, 0.0])
    z = state([0.0, 0.0, 0.0])
    y = out(b, np.array([2.0, 0.1, -2.0]), x=z)
    np.testing.assert_array_equal(y, [1.5, 0.0, -1.5])
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(b.deriv(0.0, z, (np.array([2.0, 0.1, -2.0]),)),
                               [1500.0, 0.0, -1500.0])
    np.testing.assert_allclose(zc(b, np.array([2.0, 0.1, -2.0]), x=z),
                               [1.5, -0.4, -2.5, 2.5, 0.6, -1.5])
    with pytest.raises(ValueError, match=r"Backlash: input 'u' has 2 element\(s\) but the "
                                         r"state has 3"):
        out(b, np.ones(2), x=z)
    with pytest.raises(ValueError, match=r"Backlash: input 'u' has 2 element\(s\) but the "
                                         r"state has 1"):
        out(Backlash(), np.ones(2), x=state([0.0]))


def test_backlash_continuous_triangle_by_integration():
    """Integrate the block's own equations (explicit Euler, dt = tau) on a triangle wave."""
    w, tau, dt = 0.5, 1e-4, 1e-4
    b = Backlash(w, tau=tau)
    t = np.arange(0.0, 2.0 + dt / 2, dt)
    u = 2.0 / np.pi * np.arcsin(np.sin(2 * np.pi * t))  # triangle, peak 1 at t = 0.25
    z = b.x0.copy()
    ys = []
    for v in u:
        ys.append(out(b, float(v), x=z))
        z = z + dt * np.asarray(b.deriv(0.0, z, (float(v),)))
    ys = np.array(ys)
    ref = exact_backlash(u, w, 0.0)
    assert np.max(np.abs(ys - ref)) < 5 * tau * 4.0  # slope 4/s: held value lags ~tau*slope
    assert ys.max() == pytest.approx(0.75, abs=5 * tau * 4.0)


def test_backlash_discrete():
    b = Backlash(width=1.0, x0=0.2, clock=0.1)
    assert b.clock == Clock(0.1) and b.is_discrete
    assert b.crossing_directions == () and list(b.zero_crossings(0.0, state([0.2]), (5.0,))) == []
    assert b.output_feedthrough() == {"y": ("u",)}
    x = b.x0.copy()
    ys = []
    for v in [0.0, 0.6, 1.0, 0.8, 0.3, -0.6, -0.4]:
        y = out(b, v, x=x)
        x = np.asarray(b.update(0.0, x, (v,)), dtype=float)
        assert x[0] == y  # the state is the previous output
        ys.append(y)
    np.testing.assert_allclose(ys, [0.2, 0.2, 0.5, 0.5, 0.5, -0.1, -0.1])
    np.testing.assert_allclose(ys, exact_backlash([0.0, 0.6, 1.0, 0.8, 0.3, -0.6, -0.4], 1.0,
                                                  0.2))
    assert Backlash(1.0, clock=(0.5, 0.25)).clock == Clock(0.5, 0.25)


@pytest.mark.parametrize("kwargs, match", [
    (dict(width=-1.0), r"Backlash: parameter 'width' must be >= 0, got -1.0"),
    (dict(width=math.inf), r"Backlash: parameter 'width' must be a finite real number"),
    (dict(tau=0.0), r"Backlash: parameter 'tau' must be > 0, got 0.0"),
    (dict(x0=[[0.0]]), r"Backlash: parameter 'x0' must be a finite real number or a non-empty "
                       r"1-D array"),
    (dict(x0=[]), r"Backlash: parameter 'x0'"),
    (dict(x0=NAN), r"Backlash: parameter 'x0'"),
    (dict(clock=-1.0), r"Backlash: clock must be a Clock, a period in seconds"),
    (dict(clock="fast"), r"Backlash: clock must be a Clock"),
])
def test_backlash_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Backlash(**kwargs)


# ---------------------------------------------------------------------------- RateLimiter
def test_ratelimiter_continuous():
    r = RateLimiter(rising=2.0, falling=-1.0, tau=0.01)
    assert r.clock is None and r.state_names == ("y",)
    assert r.output_feedthrough() == {"y": ()}
    x = state([0.5])
    assert out(r, None, x=x) == 0.5 and type(out(r, None, x=x)) is float  # never reads u
    assert r.deriv(0.0, x, (10.0,))[0] == 2.0  # rate-limited up
    assert r.deriv(0.0, x, (-10.0,))[0] == -1.0  # rate-limited down
    assert r.deriv(0.0, x, (0.505,))[0] == pytest.approx(0.5)  # (u - y) / tau inside
    unlimited = RateLimiter(math.inf, -math.inf, tau=0.1)
    assert unlimited.deriv(0.0, x, (1.5,))[0] == pytest.approx(10.0)


def test_ratelimiter_continuous_vector():
    r = RateLimiter(1.0, -1.0, x0=[0.0, 0.0], tau=0.1)
    x = state([0.0, 1.0])
    np.testing.assert_allclose(r.deriv(0.0, x, (np.array([5.0, 0.95]),)), [1.0, -0.5])
    y = out(r, None, x=x)
    np.testing.assert_array_equal(y, [0.0, 1.0])
    y[0] = 99.0
    assert x[0] == 0.0  # the output is not a view of the state
    assert r.state_names == ("y0", "y1")


def test_ratelimiter_continuous_ramp_by_integration():
    """The block's ODE: a unit step is followed at the rising rate, then settles."""
    r = RateLimiter(rising=2.0, falling=-1.0, tau=1e-3)
    dt = 1e-4
    x = r.x0.copy()
    ys = []
    for _ in range(10000):  # 1 s, u = 1
        ys.append(out(r, 1.0, x=x))
        x = x + dt * np.asarray(r.deriv(0.0, x, (1.0,)))
    ys = np.array(ys)
    t = np.arange(10000) * dt
    ramp = t < 0.49
    np.testing.assert_allclose(ys[ramp], 2.0 * t[ramp], atol=1e-9)
    assert abs(ys[-1] - 1.0) < 1e-9


def test_ratelimiter_discrete():
    r = RateLimiter(rising=1.0, falling=-2.0, x0=0.0, clock=0.1)
    assert r.clock == Clock(0.1) and r.is_discrete
    assert r.output_feedthrough() == {"y": ("u",)}  # the output at a hit reads u[k]
    x = r.x0.copy()
    ys = []
    for v in [1.0, 1.0, 0.25, 0.25, -1.0, -1.0, -1.0]:
        y = out(r, v, x=x)
        x = np.asarray(r.update(0.0, x, (v,)), dtype=float)
        assert x[0] == y
        ys.append(y)
    np.testing.assert_allclose(ys, [0.1, 0.2, 0.25, 0.25, 0.05, -0.15, -0.35])
    v = RateLimiter(1.0, -1.0, x0=[0.0, 0.0], clock=0.5)
    np.testing.assert_allclose(out(v, np.array([3.0, -0.2]), x=state([0.0, 0.0])), [0.5, -0.2])


@pytest.mark.parametrize("kwargs, match", [
    (dict(rising=-1.0), r"RateLimiter: parameter 'rising' must be >= 0.*got -1.0"),
    (dict(falling=1.0), r"RateLimiter: parameter 'falling' must be <= 0 \(a rate of decrease "
                        r"is negative, e.g. falling=-1\), got 1.0"),
    (dict(rising=NAN), r"RateLimiter: parameter 'rising' must be a real number or \+-inf"),
    (dict(tau=-1.0), r"RateLimiter: parameter 'tau' must be > 0"),
    (dict(x0="0"), r"RateLimiter: parameter 'x0'"),
    (dict(clock=0.0), r"RateLimiter: clock must be a Clock.*period must be a positive"),
    (dict(rate=1.0), r"RateLimiter: unknown parameter 'rate'"),
])
def test_ratelimiter_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        RateLimiter(**kwargs)


# ---------------------------------------------------------------------------- in a diagram
def switch_times(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Recorded times at which ``y`` first has its new value after a change."""
    k = np.flatnonzero(np.diff(y) != 0.0)
    return t[k + 1]


def test_relay_switching_instants_are_located():
    f = 1.0
    d = Diagram("relay")
    d.add(Sine(frequency=f), "s")
    d.add(Relay(on_point=0.5, off_point=-0.5), "r")
    d.connect("s", "r")
    r = simulate(d, 2.0)
    t_on = math.asin(0.5) / (2 * math.pi * f)  # 1/12
    t_off = 0.5 / f + t_on  # falls through -0.5
    expected = [t_on, t_off, 1.0 + t_on, 1.0 + t_off]
    np.testing.assert_allclose(switch_times(r.t, r["r.y"]), expected, atol=1e-6)
    assert set(np.unique(r["r.y"])) == {0.0, 1.0}


def test_relay_initial_mode_and_feedback_loop():
    # bang-bang temperature-like loop: x' = relay(x) - 0.5, relay on below -0.1, off above 0.1
    # (the relay sees -x); starting on, x rises at 0.5 from 0 to 0.1, then falls to -0.1, ...
    d = Diagram("bangbang")
    d.add(Relay(on_point=0.1, off_point=-0.1, on_value=1.0, off_value=0.0, x0=1), "r")
    d.add(Constant(-0.5), "c")
    from blocksim.blocks.math.arithmetic import Gain, Sum

    d.add(Sum("++"), "s")
    d.add(Integrator(0.0), "x")
    d.add(Gain(-1.0), "neg")
    d.connect("r", "s.u0")
    d.connect("c", "s.u1")
    d.connect("s", "x")
    d.connect("x", "neg")
    d.connect("neg", "r")
    r = simulate(d, 1.0)
    # x reaches 0.1 at t=0.2 (off), -0.1 at 0.6 (on), 0.1 at 1.0
    np.testing.assert_allclose(switch_times(r.t, r["r.y"]), [0.2, 0.6], atol=1e-8)
    assert np.max(r["x.y"]) <= 0.1 + 1e-8 and np.min(r["x.y"]) >= -0.1 - 1e-8


def test_saturated_sine_integrates_exactly():
    d = Diagram("sat")
    d.add(Sine(amplitude=2.0, frequency=1.0), "s")
    d.add(Saturation(-1.0, 1.0), "sat")
    d.add(Integrator(0.0), "i")
    d.connect("s", "sat")
    d.connect("sat", "i")
    r = simulate(d, 0.5, rtol=1e-10, atol=1e-12)
    # 2 sin(2 pi t) = 1 at t = 1/12 and 5/12: steps end there
    for tc in (1 / 12, 5 / 12):
        assert np.min(np.abs(r.t - tc)) < 1e-9
    exact = 2.0 * (1.0 - math.sqrt(3.0) / 2.0) / math.pi + 1.0 / 3.0
    assert r["i.y"][-1] == pytest.approx(exact, abs=1e-8)
    assert np.max(np.abs(r["sat.y"])) <= 1.0


def test_quantizer_sign_switch_steps_are_located():
    d = Diagram("steps")
    d.add(Time(), "t")
    d.add(Constant(-0.3), "off")
    from blocksim.blocks.math.arithmetic import Sum

    d.add(Sum("++"), "ramp")  # t - 0.3
    d.add(Quantizer(0.25), "q")
    d.add(Sign(), "sg")
    d.add(Switch(threshold=0.5, criterion=">"), "sw")
    d.add(Constant(1.0), "one")
    d.add(Constant(-1.0), "minus")
    d.add(Integrator(0.0), "i")  # something to integrate, so the solver steps
    d.connect("t", "ramp.u0")
    d.connect("off", "ramp.u1")
    d.connect("ramp", "q", "sg", "sw.control")
    d.connect("one", "sw.u_true")
    d.connect("minus", "sw.u_false")
    d.connect("q", "i")
    r = simulate(d, 1.0)
    # quantizer jumps where t - 0.3 = (k + 1/2) 0.25, sign at t = 0.3, switch at t = 0.8: the
    # solver's steps end there (at an exact jump the value may be either side's)
    jumps = {"q": [0.175, 0.425, 0.675, 0.925], "sg": [0.3], "sw": [0.8]}
    for name, times in jumps.items():
        for tc in times:
            assert np.min(np.abs(r.t - tc)) < 1e-8, (name, tc)
        changed = switch_times(r.t, r[f"{name}.y"])
        assert len(changed) <= 2 * len(times)
        assert all(np.min(np.abs(tc - np.array(times))) < 1e-3 for tc in changed)
    k = np.searchsorted(r.t, [0.1, 0.2, 0.29, 0.31, 0.5, 0.79, 0.81, 0.7, 0.95], "right") - 1
    np.testing.assert_array_equal(r["q.y"][k[[0, 1, 4, 7, 8]]], [-0.25, 0.0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(r["sg.y"][k[[2, 3]]], [-1.0, 1.0])
    np.testing.assert_array_equal(r["sw.y"][k[[5, 6]]], [-1.0, 1.0])
    # integral of the quantized ramp; not to rounding: the state at a located crossing is
    # interpolated within a solver step whose later stages already saw the new level
    exact = -0.25 * 0.175 + 0.25 * 0.25 + 0.5 * 0.25 + 0.75 * 0.075
    assert r["i.y"][-1] == pytest.approx(exact, abs=2e-5)


def test_backlash_on_a_triangle_wave():
    w, tau = 0.5, 1e-3
    d = Diagram("backlash")
    d.add(Waveform("triangle", amplitude=1.0, frequency=1.0), "u")
    d.add(Backlash(width=w, tau=tau), "b")
    d.connect("u", "b")
    r = simulate(d, 2.0)
    u, y = r["u.y"], r["b.y"]
    ref = exact_backlash(u, w, 0.0)  # the triangle's corners are breakpoints: recorded
    assert np.max(np.abs(y - ref)) < 5 * tau * 4.0
    # engaged segments are exact: y = u -+ w/2
    up = (r.t > 0.07) & (r.t < 0.25)
    np.testing.assert_allclose(y[up], u[up] - w / 2, atol=1e-12)
    # peak and held value; engagement instants (u reaches the band edge) are step ends
    assert np.max(y) == pytest.approx(0.75, abs=5 * tau * 4.0)
    # the first engagement, from rest (z = x0 = 0 exactly), at u = w/2 (t = 1/16) is located;
    # then engage down at u = 0.75 - w/2 (t = 3/8), up again at u = -0.75 + w/2 (t = 7/8),
    # within the lag of the held value
    assert np.min(np.abs(r.t - 0.0625)) < 1e-7
    for tc in (0.375, 0.875):
        assert np.min(np.abs(r.t - tc)) < 5 * tau


def test_rate_limiters_in_a_diagram():
    d = Diagram("rl")
    d.add(Constant(1.0), "c")
    d.add(RateLimiter(rising=2.0, falling=-1.0), "rc")
    d.add(RateLimiter(rising=2.0, falling=-1.0, clock=0.1), "rd")
    d.connect("c", "rc", "rd")
    r = simulate(d, 1.0)
    t = r.t
    ramp = t < 0.49
    np.testing.assert_allclose(r["rc.y"][ramp], 2.0 * t[ramp], atol=1e-6)
    assert r["rc.y"][-1] == pytest.approx(1.0, abs=1e-6)
    # discrete: 0.2, 0.4, ... held between hits, from the hit at t = 0
    for tk, yk in [(0.0, 0.2), (0.1, 0.4), (0.25, 0.6), (0.45, 1.0), (1.0, 1.0)]:
        k = np.searchsorted(t, tk, side="right") - 1
        assert r["rd.y"][k] == pytest.approx(yk)
