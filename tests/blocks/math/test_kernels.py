"""The compiled kernels of the source, math and routing blocks against their interpreted outputs.

Every case calls ``k.output(t, x, *u, k.params)`` and ``block.output(t, x, u)`` and requires the
same kind of value (float for a scalar, float64 array of the same shape otherwise) and the same
numbers: bit for bit, except where numba and numpy call different libraries (array
transcendental functions, BLAS/LAPACK), compared to 1e-15 (1e-14 for matrix inverses).

Numba compiles each kernel once per argument types, so the cases reuse a few input types
(floats, ``V`` of shape (3,), ``M`` of shape (2, 3), ``A`` of shape (3, 3)) to keep the cold-cache
run short.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from blocksim.blocks.arithmetic import Gain, Product, Sum
from blocksim.blocks.functions import _FUNCTION_KERNELS, _FUNCTIONS, Function, MathFunction
from blocksim.blocks.routing import (
    Concatenate,
    Demux,
    Index,
    Mux,
    Reshape,
    Selector,
    Terminator,
)
from blocksim.blocks.signal_sources import Constant, Ramp, Sine, Step, Time
from blocksim.blocks.tables import Interpolate, Piecewise
from blocksim.blocks.waveform import Waveform
from blocksim.engine.compiled.kernels import Kernels, kernels_of

X = np.zeros(0)
V = np.array([0.5, -2.0, 3.25])
W = np.array([1.5, 0.25, -4.0])
M = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]])
A = np.array([[2.0, 0.5, -1.0], [0.25, 3.0, 0.5], [1.0, -0.5, 4.0]])
B = np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 3.0], [0.5, 0.0, 2.5]])
TIMES = (-0.5, 0.0, 0.3, 0.75, 1.0, 1.2, 2.0, 2.5, 3.0, 7.3)


# ---------------------------------------------------------------------------- helpers
def _check_params(params: tuple) -> None:
    """The contract: a flat tuple of floats, ints, bools and C-contiguous float64 arrays."""
    assert isinstance(params, tuple)
    for p in params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable, params
        else:
            assert type(p) in (float, int, bool), params


def _check_module_level(fn: object) -> None:
    """The generated module imports kernels by module and attribute name."""
    module = sys.modules[fn.py_func.__module__]  # type: ignore[attr-defined]
    assert any(v is fn for v in vars(module).values()), fn


def kernel_output(block, t: float, u: tuple = ()):
    k = block.kernels()
    assert isinstance(k, Kernels)
    _check_params(k.params)
    _check_module_level(k.output)
    assert k.deriv is None and k.update is None
    return k.output(t, X, *u, k.params)


def assert_same(actual, expected, tol: float = 0.0) -> None:
    """Same kind (float or float64 array), same shape, same values (exactly when tol is 0)."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, tol)
        return
    if isinstance(expected, (float, np.floating)):
        assert isinstance(actual, float), (actual, expected)
    else:
        assert isinstance(actual, np.ndarray) and actual.dtype == np.float64, actual
        assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if tol:
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(actual, expected)


def check(block, u: tuple = (), times: tuple = (0.3,), tol: float = 0.0) -> None:
    for t in times:
        expected = block.output(t, X, u)
        assert_same(kernel_output(block, t, u), expected[0] if len(expected) == 1 else expected,
                    tol)


def check_python(block, u: tuple, tol: float = 0.0) -> None:
    """The kernel's Python function (uncompiled, so cheap to test for every arity)."""
    k = block.kernels()
    expected = block.output(0.0, X, u)
    assert_same(k.output.py_func(0.0, X, *u, k.params),
                expected[0] if len(expected) == 1 else expected, tol)


# ---------------------------------------------------------------------------- sources
@pytest.mark.parametrize("block", [
    Constant(2.5), Constant([1.0, 2.0, 3.0]), Constant([[1.0, 2.0], [3.0, 4.0]]),
    Time(),
    Step(1.0), Step(1.0, before=-1.0, after=2.0), Step(1.0, before=[0.0, 1.0, 2.0], after=3.0),
    Ramp(0.75, 2.0, 1.0), Ramp(0.0, [1.0, -1.0, 0.5], 2.0),
    Sine(2.0, 1.5, 0.1, 0.5), Sine([1.0, 2.0, 3.0], 0.5, [0.0, 0.1, 0.2]),
    Waveform("square"), Waveform("square", 2.0, 0.75, 1.0, -0.5, duty=0.3),
    Waveform("square", [1.0, 2.0, 3.0], 1.0),
    Waveform("triangle"), Waveform("triangle", 1.5, 2.0, -0.4, 0.5),
    Waveform("triangle", [1.0, 2.0, 3.0], 1.0, bias=[0.0, 1.0, 2.0]),
    Waveform("sine", 2.0, 3.0, 1.0, 0.5), Waveform("sine", [1.0, 2.0, 3.0], 0.5),
    Piecewise([0.0, 1.0, 2.5], [3.0, -4.0, 5.0]), Piecewise([0.3, 1.0], [[1.0, 2.0, 3.0],
                                                                         [4.0, 5.0, 6.0]]),
    Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0], time=True),
    Interpolate([0.0, 1.0, 3.0], [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [3.0, 5.0, -1.0]],
                time=True),
    Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0], time=True, kind="previous"),
    Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0], time=True, kind="next"),
    Interpolate([0.0, 1.0, 3.0], [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [3.0, 5.0, -1.0]],
                time=True, kind="nearest"),
], ids=lambda b: f"{type(b).__name__}{tuple(b.params.values())}")
def test_time_sources(block):
    check(block, times=TIMES)


def test_sources_at_their_breakpoints():
    """Right limits at breakpoints: both back-ends switch at the same float."""
    for block in (Step(0.3), Ramp(0.3, 2.0), Piecewise([0.3, 1.0], [1.0, 2.0]),
                  Waveform("square", frequency=3.0, phase=0.1, duty=0.3),
                  Waveform("triangle", frequency=3.0, phase=0.1),
                  Interpolate([0.0, 0.3, 1.0], [1.0, 2.0, 0.0], time=True, kind="nearest")):
        t = 0.0
        for _ in range(6):
            t = block.next_breakpoint(t)
            if math.isinf(t):
                break
            check(block, times=(math.nextafter(t, -math.inf), t))


@pytest.mark.parametrize("kind", ["linear", "previous", "next", "nearest"])
def test_interpolate_input(kind):
    xs, ys = [0.0, 1.0, 2.5, 3.0], [1.0, -2.0, 0.5, 4.0]
    block = Interpolate(xs, ys, kind=kind)
    for s in (-1.0, 0.0, 0.4, 1.0, 1.75, 2.5, 2.75, 3.0, 9.0):
        check(block, (s,))
    check(block, (np.linspace(-1.0, 4.0, 3),))
    if kind == "linear":
        check(block, (np.linspace(-1.0, 4.0, 6).reshape(2, 3),))
        check(Interpolate(xs, [[y, -y, 2 * y] for y in ys], kind=kind), (1.75,))


def test_interpolate_kernel_gives_nan_for_nan():
    """(The interpreted block raises IndexError for a NaN input.)"""
    block = Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0])
    assert math.isnan(kernel_output(block, 0.0, (math.nan,)))


# ---------------------------------------------------------------------------- math
def _floats(n: int) -> tuple[float, ...]:
    return tuple(0.1 * 3.0 ** i - 1.0 / (i + 1.7) for i in range(n))


@pytest.mark.parametrize("signs", ["+", "-", "++", "+-", "-+", "--", "+-+", "-++", "|+-|-"])
def test_sum_scalars(signs):
    block = Sum(signs)
    check(block, _floats(len(block.inputs)))


def test_sum_every_sign_pattern_in_port_order():
    """Bitwise equal for every pattern of up to 5 signs, with values whose sum depends on the
    order of the additions (both back-ends add in port order)."""
    import itertools

    values = (1e16, 1.0, -1e16, 3.0, 0.1)
    for n in range(1, 6):
        for signs in itertools.product("+-", repeat=n):
            block = Sum("".join(signs))
            expected = values[0] if signs[0] == "+" else -values[0]
            for v, c in zip(values[1:n], signs[1:]):
                expected = expected + v if c == "+" else expected - v
            assert block.output(0.0, X, values[:n])[0] == expected
            check_python(block, values[:n])


@pytest.mark.parametrize("n", range(1, 9))
def test_sum_every_arity(n):
    check_python(Sum(("+-" * 4)[:n]), _floats(n))
    check_python(Sum(("-+" * 4)[:n]), tuple(V * i for i in range(n)))


def test_sum_arrays():
    check(Sum("+-"), (V, W))
    check(Sum("-+"), (V, W))
    check(Sum("-"), (V,))
    check(Sum("+-+"), (V, 2.5, W))
    check(Sum("-+-"), (V, 2.5, W))
    check(Sum("+-"), (2.5, V))


def test_sum_with_more_than_eight_inputs_has_no_kernels():
    assert Sum(9).kernels() is None
    assert kernels_of(Sum(9)) is None


@pytest.mark.parametrize("block, u", [
    (Gain(2.5), (1.5,)),
    (Gain(2.5), (V,)),
    (Gain([1.0, -2.0, 0.5]), (V,)),
    (Gain(A), (1.5,)),
    (Gain(A, order="K.*u"), (A,)),
])
def test_gain_elementwise(block, u):
    check(block, u)


@pytest.mark.parametrize("block, u", [
    (Gain(A), (V,)),
    (Gain(M), (V,)),          # (2, 3) @ (3,)
    (Gain(A), (B,)),
    (Gain(A, order="u*K"), (V,)),
])
def test_gain_matrix(block, u):
    check(block, u, tol=1e-15)


@pytest.mark.parametrize("ops", ["*", "/", "**", "*/", "/*", "//", "*/*", "/**"])
def test_product_scalars(ops):
    block = Product(ops)
    check(block, tuple(0.5 + 0.37 * i for i in range(len(block.inputs))))


def test_product_arrays():
    check(Product("*/"), (V, W))
    check(Product("/"), (V,))
    check(Product("*/*"), (V, 2.5, W))
    check(Product("/*/"), (V, 2.5, W))


@pytest.mark.parametrize("n", range(1, 9))
def test_product_every_arity(n):
    check_python(Product(("*/" * 4)[:n]), tuple(0.5 + 0.37 * i for i in range(n)))
    check_python(Product(("/*" * 4)[:n]), tuple(V + (i + 0.1) for i in range(n)))
    check_python(Product(("*" * n), matrix=True), tuple(A / (i + 1) for i in range(n)), 1e-14)


def test_product_division_by_zero():
    block = Product("*/")
    with pytest.raises(ZeroDivisionError):
        block.output(0.0, X, (1.0, 0.0))
    with pytest.raises(ZeroDivisionError):
        kernel_output(block, 0.0, (1.0, 0.0))
    with np.errstate(divide="ignore"):
        check(block, (V, np.array([0.0, 1.0, -0.0])))  # arrays: inf and -inf in both


@pytest.mark.parametrize("ops, u", [
    ("**", (V, W)),                   # inner product: a float
    ("/**/", (A, B, V, 2.0)),         # inv(A) @ B @ V / 2
    ("*/*", (V, A, B)),               # V @ inv(A) @ B
    ("**/", (2.5, A, B)),             # 2.5 * A @ inv(B)
    ("//", (2.0, A)),                 # 0.5 * inv(A)
])
def test_product_matrix(ops, u):
    check(Product(ops, matrix=True), u, tol=1e-14)


def test_product_with_more_than_eight_inputs_has_no_kernels():
    assert Product(9).kernels() is None
    assert Product(9, matrix=True).kernels() is None


_ARGS = {"asin": 0.3, "acos": -0.4, "log": 2.5, "log10": 0.07, "sqrt": 2.0, "reciprocal": -3.0,
         "floor": -2.5, "ceil": -2.5}


@pytest.mark.parametrize("name", sorted(_FUNCTIONS))
def test_mathfunction(name):
    block = MathFunction(name)
    check(block, (_ARGS.get(name, 0.7),))
    check(block, (_ARGS.get(name, -0.7),))


@pytest.mark.parametrize("name", ["sin", "asin", "log10", "sign", "floor", "reciprocal"])
def test_mathfunction_array(name):
    """The kernels are ``np.<function>(u)`` for floats and arrays alike; a few names suffice."""
    vec = np.array([0.3, 0.45, 0.8]) if name == "asin" else V
    if name == "log10":
        vec = np.abs(V)
    check(MathFunction(name), (vec,), tol=1e-15)


def test_mathfunction_kernel_names():
    assert {k.py_func.__name__ for k in _FUNCTION_KERNELS.values()} == {
        f"mathfunction_{name}_kernel" for name in _FUNCTIONS}


def test_mathfunction_sign_and_matrix_input():
    block = MathFunction("sign")
    for v in (-2.0, 0.0, -0.0, 3.0):
        check(block, (v,))
    check(MathFunction("exp"), (M,), tol=1e-15)


@pytest.mark.parametrize("name, u", [
    ("sqrt", -1.0), ("log", 0.0), ("log", -1.0), ("asin", 2.0), ("reciprocal", 0.0),
    ("exp", 1000.0), ("cosh", 1000.0)])
def test_mathfunction_outside_domain_gives_non_finite(name, u):
    """The kernel gives NaN or Inf where the interpreted block raises; the engine reports it."""
    block = MathFunction(name)
    with pytest.raises((ValueError, ZeroDivisionError, OverflowError)):
        block.output(0.0, X, (u,))
    assert not math.isfinite(kernel_output(block, 0.0, (u,)))


def test_function_has_no_kernels():
    block = Function(lambda u: 2 * u)
    assert block.kernels() is None
    assert kernels_of(block) is None


# ---------------------------------------------------------------------------- routing
@pytest.mark.parametrize("nin, u", [(1, (V,)), (2, (1.0, 2.0)), (3, (1.0, V, -2.0))])
def test_mux(nin, u):
    check(Mux(nin), u)


@pytest.mark.parametrize("n", range(1, 13))
def test_mux_and_demux_every_arity(n):
    check_python(Mux(n), _floats(n))
    check_python(Demux(n), (np.arange(float(n)),))
    check_python(Demux([2] * n), (np.arange(2.0 * n),))


def test_mux_and_demux_limits():
    assert Mux(13).kernels() is None
    assert Demux(13).kernels() is None
    assert Demux(12).kernels() is not None


@pytest.mark.parametrize("nout, u", [
    (1, (2.5,)), (3, (V,)), ([1, 1, 1], (W,)), ([1, 2], (V,)), ([3], (V,)),
])
def test_demux(nout, u):
    check(Demux(nout), u)


def test_demux_size_mismatch_raises():
    with pytest.raises(ValueError, match="size"):
        kernel_output(Demux([1, 1]), 0.0, (V,))
    # an int nout compiles as nout scalars; widths are needed for vector parts
    with pytest.raises(ValueError, match="size"):
        kernel_output(Demux(1), 0.0, (V,))


@pytest.mark.parametrize("index, u", [
    (0, (V,)), (2, (V,)), (-1, (V,)), (0, (2.5,)), (1, (M,)), (-2, (M,)),
    ([2, 0, -1, 2], (V,)), ([1, 0], (M,)),
    (slice(1, None), (V,)), (slice(None, None, -1), (V,)), (slice(None, -1, 2), (V,)),
    (slice(-2, None, -1), (V,)), (slice(5, 9), (V,)), (slice(None), (M,)), (slice(0, 1), (2.5,)),
])
def test_selector(index, u):
    check(Selector(index), u)


def test_selector_out_of_range_raises():
    for index in (3, -4, [0, 3]):
        with pytest.raises(IndexError):
            Index(index).output(0.0, X, (V,))
        with pytest.raises(IndexError, match="out of range"):
            kernel_output(Index(index), 0.0, (V,))


@pytest.mark.parametrize("nin, axis, u", [
    (1, 0, (V,)), (2, 0, (1.0, V)), (2, 0, (M, M)), (2, 1, (M, M)), (2, -1, (M, M)),
])
def test_concatenate(nin, axis, u):
    check(Concatenate(nin, axis), u)


@pytest.mark.parametrize("n", range(1, 9))
def test_concatenate_every_arity(n):
    check_python(Concatenate(n), tuple(V * i for i in range(n)))


def test_concatenate_limit():
    assert Concatenate(9).kernels() is None


@pytest.mark.parametrize("shape, u", [
    (-1, (M,)), ((3, 2), (M,)), ((3, -1), (M,)), ((1, 3), (V,)), ((1,), (2.5,)), ((), (2.5,)),
    ((), (np.array([2.5]),)),
])
def test_reshape(shape, u):
    block = Reshape(shape)
    check(block, u)
    y = kernel_output(block, 0.0, u)
    assert not (isinstance(y, np.ndarray) and np.shares_memory(y, u[0]))


def test_terminator():
    k = Terminator().kernels()
    assert k.output is None and k.params == ()


def test_kernels_compose_in_numba():
    """Kernels called from numba code, as the generated module calls them."""
    import numba

    step, gain, mux, demux = Step(0.5, 0.0, 2.0), Gain(A), Mux(2), Demux([1, 2])
    ks, kg, km, kd = (b.kernels() for b in (step, gain, mux, demux))
    f_step, f_gain, f_mux, f_demux = ks.output, kg.output, km.output, kd.output

    @numba.njit
    def evaluate(t, x, v, P):
        s0 = f_step(t, x, P[0])
        s1 = f_mux(t, x, s0, v, P[2])
        s2 = f_gain(t, x, s1, P[1])
        return f_demux(t, x, s2, P[3])

    y = evaluate(1.0, X, V[:2].copy(), (ks.params, kg.params, km.params, kd.params))
    u = step.output(1.0, X, ())[0]
    m = mux.output(1.0, X, (u, V[:2].copy()))[0]
    assert_same(y, demux.output(1.0, X, (gain.output(1.0, X, (m,))[0],)), tol=1e-15)


def test_every_block_of_these_modules_defines_kernels():
    import blocksim.blocks.arithmetic as math_blocks
    import blocksim.blocks.functions as function_blocks
    import blocksim.blocks.routing as routing_blocks
    import blocksim.blocks.signal_sources as source_blocks
    import blocksim.blocks.tables as table_blocks
    import blocksim.blocks.waveform as waveform_blocks

    for module in (source_blocks, waveform_blocks, table_blocks, math_blocks, function_blocks,
                   routing_blocks):
        for name in module.__all__:
            assert "kernels" in vars(getattr(module, name)), name
