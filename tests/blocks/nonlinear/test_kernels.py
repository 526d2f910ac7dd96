"""Compiled kernels of the nonlinear blocks against their interpreted methods.

Every kernel is called directly, as the compiled back-end calls it, ``kernel(t, x, u0, ...,
params)``, and compared with the block's interpreted ``output`` / ``deriv`` / ``update`` /
``zero_crossings`` / ``on_event`` on grids of inputs and states that include the switching
points, signed zeros, infinities and NaN.

Equality is bitwise (NaN payloads aside): the kernels' scalar functions restate the
interpreted methods' inline expressions (or are the same functions), their array paths loop
over the elements with numpy's semantics (see :mod:`blocksim.blocks.nonlinear`). Exceptions:
the sign of a zero result of ``MinMax`` over a single array (numpy's vectorised reduction).
The noise kernels are tested in ``tests/blocks/sources/test_noise_kernels.py``.

The kernels compile on first use (numba, ``cache=True``): the variants below are chosen to
cover every branch with few compiled signatures.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from blocksim.blocks.nonlinear import kernels as nonlinear
from blocksim.blocks.nonlinear.quantize import Quantizer
from blocksim.blocks.nonlinear.rate_limits import Backlash, RateLimiter
from blocksim.blocks.nonlinear.saturation import DeadZone, Saturation
from blocksim.blocks.nonlinear.switching import MinMax, Relay, Sign, Switch
from blocksim.engine.compiled.kernels import Kernels
from tests.blocks.kernel_checks import assert_bitwise, assert_sequence

INF, NAN = math.inf, math.nan
X0 = np.zeros(0)
#: scalar test inputs: switching points of the default parameters, signed zeros, non-finite
VALUES = (-INF, -1e300, -3.7, -2.5, -1.0, -0.75, -0.5, -0.25, -1e-300, -0.0, 0.0, 0.25, 0.5,
          0.75, 1.0, 1.5, 2.5, 3.7, 1e300, INF, NAN)
#: the same as a vector (21 elements) and as a 2-D array (3, 7)
VEC = np.array(VALUES)
MAT = VEC.reshape(3, 7)


def check_params(params: tuple) -> None:
    """The contract's parameter types: floats, ints, bools, C-contiguous float64 arrays."""
    assert isinstance(params, tuple)
    for p in params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous
        else:
            assert type(p) in (float, int, bool), (p, type(p))


def kernel_functions(k: Kernels) -> list:
    return [f for f in (k.output, k.deriv, k.update, k.crossings, k.on_event) if f is not None]


def check_crossings(k: Kernels, block, x, *u) -> None:
    """The crossings kernel equals ``zero_crossings``: as many floats, bitwise."""
    g = np.asarray(block.zero_crossings(0.0, x, u), dtype=float)
    assert g.shape == (len(block.crossing_directions),)
    assert_sequence(k.crossings(0.0, x, *u, k.params), g, g.size)


# ---------------------------------------------------------------------------- stateless
N = VEC.size  # the ``size`` of the blocks with vector zero crossings
STATELESS = {
    "saturation": lambda: Saturation(),
    "saturation-half-open": lambda: Saturation(lower=0.0, upper=INF, size=N),
    "saturation-negative-zero": lambda: Saturation(lower=-INF, upper=-0.0, size=None),
    "saturation-point": lambda: Saturation(lower=2.5, upper=2.5),
    "saturation-unlimited": lambda: Saturation(lower=-INF, upper=INF),
    "deadzone": lambda: DeadZone(),
    "deadzone-empty": lambda: DeadZone(start=0.0, end=0.0),
    "deadzone-positive": lambda: DeadZone(start=1.0, end=3.7, size=N),
    "quantizer": lambda: Quantizer(),
    "quantizer-fine": lambda: Quantizer(interval=0.3, size=N),
    "quantizer-coarse": lambda: Quantizer(interval=2.5, size=None),
    "sign": lambda: Sign(),
    "sign-vector": lambda: Sign(size=N),
}


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf
@pytest.mark.parametrize("name", STATELESS)
def test_stateless_kernels(name):
    b = STATELESS[name]()
    k = b.kernels()
    check_params(k.params)
    assert k.deriv is None and k.update is None and k.on_event is None
    assert (k.crossings is None) == (not b.crossing_directions)
    size = b.params["size"]
    for v in VALUES:
        assert_bitwise(k.output(0.0, X0, v, k.params), b.output(0.0, X0, (v,))[0])
        if k.crossings is not None and size == 1:
            check_crossings(k, b, X0, v)
    # 2-D arrays take the same path as 1-D ones: compiled once per kernel, to save time
    for arr in (VEC, MAT) if name in ("quantizer", "sign") else (VEC,):
        assert_bitwise(k.output(0.0, X0, arr, k.params), b.output(0.0, X0, (arr,))[0])
    if k.crossings is not None and size == N:
        check_crossings(k, b, X0, VEC)
        with pytest.raises(ValueError, match="number of elements differs from the block's"):
            k.crossings(0.0, X0, VEC[:3], k.params)


def test_stateless_kernels_accept_strided_arrays():
    strided = MAT[:, ::2]
    b = Saturation(size=None)
    k = b.kernels()
    assert_bitwise(k.output(0.0, X0, strided, k.params), b.output(0.0, X0, (strided,))[0])


def test_zero_signs_follow_the_interpreted_path():
    """The interpreted scalar and numpy paths differ in zero signs; each kernel path follows
    its own."""
    k = Sign().kernels()
    assert math.copysign(1.0, k.output(0.0, X0, -0.0, k.params)) == -1.0
    assert not np.signbit(k.output(0.0, X0, np.array([-0.0]), k.params)[0])  # numpy's sign
    k = DeadZone().kernels()
    assert math.copysign(1.0, k.output(0.0, X0, -0.25, k.params)) == -1.0  # 0.0 * u
    assert not np.signbit(k.output(0.0, X0, np.array([-0.25]), k.params)[0])  # u - clip(u)
    x = _state_slice([-0.0])
    k = Backlash(width=0.0, x0=-0.0).kernels()
    assert math.copysign(1.0, k.output(0.0, x, 0.0, k.params)) == -1.0  # _clip keeps z on ties
    k = Backlash(width=0.0, x0=[-0.0]).kernels()
    assert not np.signbit(k.output(0.0, x, np.array([0.0]), k.params)[0])  # numpy: the bound


# ---------------------------------------------------------------------------- MinMax
SIGNED = (-1.0, -0.0, 0.0, 2.0, NAN)
#: every ordered pair of SIGNED, as two contiguous vectors
FIRST, SECOND = np.array([(a, b) for a in SIGNED for b in SIGNED]).T.copy()
MINMAX_INPUTS = [
    *[(a, b) for a in SIGNED for b in SIGNED],  # floats
    (3.0, NAN, 1.0),
    (NAN, 3.0, 1.0),
    (0.0, -0.0, -0.0),
    (FIRST, SECOND),  # arrays of one type
    (FIRST, SECOND, -0.0),  # floats and arrays of one shape (below: -0.0 -> +-inf)
    (np.array([[1.0, 5.0], [-2.0, -0.0]]), np.array([0.5, 0.0]), NAN),  # numpy broadcasting
]


@pytest.mark.parametrize("func", ["min", "max"])
def test_minmax_kernels(func):
    for u in MINMAX_INPUTS:
        if len(u) == 3 and type(u[2]) is float and u[2] == 0.0:  # neutral: keeps the ties
            u = (u[0], u[1], INF if func == "min" else -INF)
        b = MinMax(func=func, nin=len(u))
        k = b.kernels()
        check_params(k.params)
        assert k.output is nonlinear.minmax_output
        assert_bitwise(k.output(0.0, X0, *u, k.params), b.output(0.0, X0, u)[0])
    b = MinMax(func=func, nin=1)
    k = b.kernels()
    assert k.output is nonlinear.minmax_reduce_output
    for u in (2.5, NAN, VEC[1:-1], VEC):
        # a single array: numpy's reduction fixes no zero sign
        assert_bitwise(k.output(0.0, X0, u, k.params), b.output(0.0, X0, (u,))[0],
                    zero_sign=type(u) is float)


def test_minmax_and_switch_kernels_need_one_shape():
    k = MinMax(nin=2).kernels()
    with pytest.raises(ValueError, match="MinMax: the compiled kernel needs"):
        k.output(0.0, X0, np.ones(3), np.ones(1), k.params)
    k = MinMax(nin=3).kernels()
    with pytest.raises(ValueError, match="MinMax: the compiled kernel needs"):
        k.output(0.0, X0, np.ones(3), np.ones(1), 0.0, k.params)
    k = Switch(size=None).kernels()
    with pytest.raises(ValueError, match="Switch: with an array control"):
        k.output(0.0, X0, np.ones(3), np.ones(2), 1.0, k.params)


# ---------------------------------------------------------------------------- Switch
@pytest.mark.parametrize("criterion", [">=", ">", "!="])
def test_switch_kernels(criterion):
    for threshold in (0.0, 0.5):
        b = Switch(threshold=threshold, criterion=criterion)
        k = b.kernels()
        check_params(k.params)
        a, c = np.array([1.0, 2.0, 3.0]), np.array([-4.0, 5.0, 6.0])
        for control in VALUES:
            for u_true, u_false in ((1.0, -1.0), (NAN, -0.0), (a, c)):
                u = (u_true, control, u_false)
                assert_bitwise(k.output(0.0, X0, *u, k.params), b.output(0.0, X0, u)[0])
            check_crossings(k, b, X0, 1.0, control, -1.0)
        b = Switch(threshold=threshold, criterion=criterion, size=6)
        k = b.kernels()
        control = np.array([-1.0, 0.0, 0.5, 0.7, NAN, -0.0])
        for u_true, u_false in ((1.0, -1.0), (VEC[:6], 7.0)):
            u = (u_true, control, u_false)
            assert_bitwise(k.output(0.0, X0, *u, k.params), b.output(0.0, X0, u)[0])
        check_crossings(k, b, X0, VEC[:6], control, 7.0)


# ---------------------------------------------------------------------------- Relay
def test_relay_kernels():
    b = Relay(on_point=1.0, off_point=-1.0, on_value=5.0, off_value=-0.0, x0=1)
    k = b.kernels()
    check_params(k.params)
    assert k.params == (5.0, -0.0, 1.0, -1.0)
    for mode in (0.0, 1.0):
        x = np.array([mode])
        for u in (-2.0, -1.0, 0.0, 1.0, 2.0, NAN):
            assert_bitwise(k.output(0.0, x, u, k.params), b.output(0.0, x, (u,))[0])
            assert_sequence(k.update(0.0, x, u, k.params), b.update(0.0, x, (u,)), 1)
            check_crossings(k, b, x, u)
            for which in (0, 1):
                new = b.on_event(0.0, x, (u,), which)
                assert_sequence(k.on_event(0.0, x, u, k.params, which),
                                x if new is None else new, 1)


# ---------------------------------------------------------------------------- Backlash, RateLimiter
STATEFUL = {
    "backlash": lambda: Backlash(width=1.0),
    "backlash-no-play": lambda: Backlash(width=0.0, tau=0.5),
    "backlash-clocked": lambda: Backlash(width=2.0, x0=0.25, clock=0.1),
    "backlash-vector": lambda: Backlash(width=1.0, x0=[0.0, 1.0, -2.0]),
    "backlash-vector-clocked": lambda: Backlash(width=0.5, x0=[0.0, 1.0, -2.0], clock=0.1),
    "ratelimiter": lambda: RateLimiter(rising=2.0, falling=-0.5, tau=0.01),
    "ratelimiter-unlimited": lambda: RateLimiter(rising=INF, falling=-INF),
    "ratelimiter-clocked": lambda: RateLimiter(rising=2.0, falling=-0.5, clock=0.1),
    "ratelimiter-clocked-one-sided": lambda: RateLimiter(rising=0.0, falling=-INF,
                                                         clock=(0.3, 0.1)),
    "ratelimiter-vector": lambda: RateLimiter(rising=1.0, falling=-3.0, x0=[0.0, 0.5, 1.0]),
    "ratelimiter-vector-clocked": lambda: RateLimiter(rising=1.0, falling=-3.0,
                                                      x0=[0.0, 0.5, 1.0], clock=0.25),
}
STATES = (-2.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 3.0, NAN)


def _state_slice(values) -> np.ndarray:
    """A view into a larger array, like the engine's state slices."""
    v = np.asarray(values, dtype=float).reshape(-1)
    full = np.zeros(v.size + 3)
    full[1:1 + v.size] = v
    return full[1:1 + v.size]


@pytest.mark.parametrize("name", STATEFUL)
def test_stateful_kernels(name):
    b = STATEFUL[name]()
    k = b.kernels()
    check_params(k.params)
    discrete = b.clock is not None
    assert (k.update is not None, k.deriv is not None) == (discrete, not discrete)
    assert (k.crossings is None) == (not b.crossing_directions) and k.on_event is None
    second = k.update if discrete else k.deriv
    interpreted_second = b.update if discrete else b.deriv
    n = b.nx
    vector = b.state_names != ("z",) and b.state_names != ("y",)
    rng = np.random.default_rng(0)
    for z in STATES:
        for v in VALUES:
            if vector:
                x = _state_slice(np.where(rng.random(n) < 0.3, z, rng.choice(STATES, n)))
                u = np.where(rng.random(n) < 0.5, v, rng.choice(VALUES, n))
            else:
                x, u = _state_slice([z]), v
            assert_bitwise(k.output(0.0, x, u, k.params), b.output(0.0, x, (u,))[0])
            assert_sequence(second(0.0, x, u, k.params), interpreted_second(0.0, x, (u,)), n)
            if k.crossings is not None:
                check_crossings(k, b, x, u)


def test_stateful_kernels_input_shapes():
    """A scalar-state block also takes a 1-element array; a vector one any shape of n
    elements; a wrong size raises."""
    b = Backlash(width=1.0)
    k = b.kernels()
    for z, v in ((0.2, 3.0), (-0.0, 0.5), (0.0, -0.5), (0.3, 0.1)):
        x, u = _state_slice([z]), np.array([v])
        assert_bitwise(k.output(0.0, x, u, k.params), b.output(0.0, x, (u,))[0])
        assert_sequence(k.deriv(0.0, x, u, k.params), b.deriv(0.0, x, (u,)), 1)
        check_crossings(k, b, x, u)
    b = RateLimiter(x0=np.zeros(3), clock=0.1)
    k = b.kernels()
    x = _state_slice([0.0, 1.0, 2.0])
    u = np.arange(3.0)
    assert_bitwise(k.output(0.0, x, u, k.params), b.output(0.0, x, (u,))[0])
    with pytest.raises(ValueError, match="as many elements as the state"):
        k.output(0.0, x, np.ones(2), k.params)
    with pytest.raises(ValueError, match="as many elements as the state"):
        Backlash().kernels().output(0.0, _state_slice([0.0]), np.ones(2), (0.5, 1e-3))


# ---------------------------------------------------------------------------- the contract
ALL_BLOCKS = list(STATELESS.values()) + list(STATEFUL.values()) + [
        lambda: MinMax(nin=1), lambda: MinMax(nin=4), lambda: Switch(), lambda: Relay()]


def test_kernels_are_cached_module_level_functions():
    for make in ALL_BLOCKS:
        k = make().kernels()
        assert isinstance(k, Kernels)
        for f in kernel_functions(k):
            assert f.py_func.__module__ == nonlinear.__name__
            assert getattr(nonlinear, f.__name__) is f  # importable by name
            assert f.targetoptions.get("cache") is True or type(f._cache).__name__ != \
                "NullCache"


@njit
def _as_generated_code(t, xs, u, v, w, P):
    """Kernels called from compiled code, on state slices, as the generated module does."""
    y0 = nonlinear.saturation_output(t, xs[0:0], u, P[0])
    y1 = nonlinear.minmax_output(t, xs[0:0], y0, v, w, P[1])
    y2 = nonlinear.backlash_vector_output(t, xs[1:4], y1, P[2])
    d = nonlinear.backlash_vector_deriv(t, xs[1:4], y1, P[2])
    return y0, y1, y2, d[0] + d[1] + d[2]


def test_kernels_called_from_compiled_code():
    sat, mm = Saturation(size=None), MinMax(func="max", nin=3)
    bl = Backlash(width=1.0, x0=np.zeros(3))
    P = (sat.kernels().params, mm.kernels().params, bl.kernels().params)
    xs = np.array([4.0, 0.1, -0.2, 0.3])
    u, v, w = np.array([2.0, -3.0, 0.5]), np.array([0.0, -1.0, 0.6]), -0.5
    y0, y1, y2, dsum = _as_generated_code(0.0, xs, u, v, w, P)
    assert_bitwise(y0, sat.output(0.0, X0, (u,))[0])
    assert_bitwise(y1, mm.output(0.0, X0, (y0, v, w))[0])
    assert_bitwise(y2, bl.output(0.0, xs[1:4], (y1,))[0])
    assert dsum == float(np.sum(bl.deriv(0.0, xs[1:4], (y1,))))
