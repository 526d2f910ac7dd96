"""Tests of the math blocks, calling their methods directly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim import Diagram, DiagramError, simulate
from blocksim.blocks.continuous.calculus import Integrator
from blocksim.blocks.math.arithmetic import Gain, Product, Sum
from blocksim.blocks.math.functions import Function, MathFunction
from blocksim.blocks.sources.signals import Constant, Time
from blocksim.engine.errors import BlockParameterError

X = np.zeros(0)
A = np.array([[1.0, 2.0], [3.0, 5.0]])
B = np.array([[2.0, -1.0], [0.5, 4.0]])
V = np.array([1.5, -2.0])


def out(block, *u):
    """The single output of ``block`` for inputs ``u``."""
    y = block.output(0.0, X, u)
    assert isinstance(y, tuple) and len(y) == 1
    return y[0]


def in_names(block) -> list[str]:
    return [p.name for p in block.inputs]


# ---------------------------------------------------------------------------- Sum
@pytest.mark.parametrize("signs, u, expected", [
    ("++", (1.0, 2.0), 3.0),
    ("+-", (1.0, 2.0), -1.0),
    ("-+", (1.0, 2.0), 1.0),
    ("--", (1.0, 2.0), -3.0),
    ("+", (4.0,), 4.0),
    ("-", (4.0,), -4.0),
    ("+-+", (1.0, 2.0, 10.0), 9.0),
    ("-+-+", (1.0, 2.0, 4.0, 8.0), 5.0),
    ("|+-", (1.0, 2.0), -1.0),
    ("+|-|+", (1.0, 2.0, 3.0), 2.0),
    (3, (1.0, 2.0, 3.0), 6.0),
])
def test_sum_scalar(signs, u, expected):
    s = Sum(signs)
    y = out(s, *u)
    assert y == expected and type(y) is float
    assert len(s.inputs) == len(u)


def test_sum_ports_and_feedthrough():
    assert in_names(Sum("+-+")) == ["u0", "u1", "u2"]
    assert in_names(Sum("|+")) == ["u"]
    assert [p.name for p in Sum().outputs] == ["y"]
    assert Sum("+-").output_feedthrough() == {"y": ("u0", "u1")}
    assert Sum().params == {"signs": "++"}


def test_sum_arrays_broadcast_without_touching_inputs():
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    np.testing.assert_array_equal(out(Sum("+-"), a, b), [-9.0, -18.0])
    np.testing.assert_array_equal(out(Sum("-+-"), a, 1.0, b), [-10.0, -21.0])
    np.testing.assert_array_equal(a, [1.0, 2.0])  # inputs unchanged
    with pytest.raises(ValueError):
        out(Sum(), a, np.ones(3))


@pytest.mark.parametrize("signs, match", [
    ("+x", r"Sum: parameter 'signs' may contain only the characters '\+', '-', '\|', "
           r"got '\+x' \(invalid: 'x'\)"),
    ("", r"Sum: parameter 'signs' must have at least one of '\+', '-'"),
    ("||", r"Sum: parameter 'signs' must have at least one of"),
    (0, r"Sum: parameter 'signs' as a number of inputs must be >= 1, got 0"),
    (1.5, r"Sum: parameter 'signs' must be a string of .* got 1.5"),
    (["+", "-"], r"Sum: parameter 'signs' must be a string"),
])
def test_sum_errors(signs, match):
    with pytest.raises(BlockParameterError, match=match):
        Sum(signs)


def test_sum_unknown_keyword():
    with pytest.raises(BlockParameterError, match=r"Sum: unknown parameter 'sign'.*'signs'"):
        Sum(sign="+-")


# ---------------------------------------------------------------------------- Gain
def test_gain_scalar():
    g = Gain(2.5)
    y = out(g, 2.0)
    assert y == 5.0 and type(y) is float
    np.testing.assert_array_equal(out(g, V), 2.5 * V)
    assert Gain(K=3).params == {"K": 3, "order": "K*u"}


def test_gain_vector_K_is_elementwise():
    np.testing.assert_array_equal(out(Gain([2.0, 3.0]), V), [3.0, -6.0])
    np.testing.assert_array_equal(out(Gain([2.0, 3.0], order="u*K"), V), [3.0, -6.0])


def test_gain_matrix_orders():
    np.testing.assert_allclose(out(Gain(A), V), A @ V)
    np.testing.assert_allclose(out(Gain(A, order="K*u"), B), A @ B)
    np.testing.assert_allclose(out(Gain(A, order="u*K"), V), V @ A)
    np.testing.assert_allclose(out(Gain(A, order="u*K"), B), B @ A)
    np.testing.assert_allclose(out(Gain(A, order="K.*u"), B), A * B)
    assert not np.allclose(A @ V, V @ A)  # the orders are distinguishable
    np.testing.assert_allclose(out(Gain(A), 2.0), 2.0 * A)  # scalar input: element-wise


def test_gain_rectangular_matrix():
    K = np.arange(6.0).reshape(2, 3)
    y = out(Gain(K), np.array([1.0, 0.0, -1.0]))
    assert y.shape == (2,)
    np.testing.assert_allclose(y, [-2.0, -2.0])
    with pytest.raises(ValueError):
        out(Gain(K), V)  # wrong input size: numpy raises, the dry run reports it


@pytest.mark.parametrize("kwargs, match", [
    (dict(Kk=2), r"Gain: unknown parameter 'Kk' \(did you mean 'K'\?\); valid parameters: "
                 r"K, order"),
    (dict(), r"Gain"),
    (dict(K="big"), r"Gain: parameter 'K' must be a real number, vector or matrix, got 'big'"),
    (dict(K=np.ones((2, 2, 2))), r"Gain: parameter 'K' must be a scalar, vector or matrix, "
                                 r"got an array of shape \(2, 2, 2\)"),
    (dict(K=[1.0, math.inf]), r"Gain: parameter 'K' must be finite"),
    (dict(K=A, order="K*U"), r"Gain: parameter 'order' must be one of 'K\*u', 'u\*K', "
                             r"'K.\*u', got 'K\*U' \(did you mean 'K\*u'\?\)"),
    (dict(K=1.0, premul=True), r"Gain: unknown parameter 'premul'"),
])
def test_gain_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Gain(**kwargs)


# ---------------------------------------------------------------------------- Product
@pytest.mark.parametrize("ops, u, expected", [
    ("**", (3.0, 4.0), 12.0),
    ("*/", (3.0, 4.0), 0.75),
    ("/*", (4.0, 3.0), 0.75),
    ("/", (4.0,), 0.25),
    ("*", (4.0,), 4.0),
    ("*/*", (3.0, 4.0, 2.0), 1.5),
    ("//", (2.0, 4.0), 0.125),
    (3, (2.0, 3.0, 4.0), 24.0),
])
def test_product_scalar(ops, u, expected):
    p = Product(ops)
    y = out(p, *u)
    assert y == pytest.approx(expected, rel=1e-15) and type(y) is float
    assert len(p.inputs) == len(u)


def test_product_elementwise_arrays():
    np.testing.assert_allclose(out(Product("*/"), A, B), A / B)
    np.testing.assert_allclose(out(Product("**"), A, B), A * B)
    np.testing.assert_allclose(out(Product("/**"), B, A, 2.0), 2.0 * A / B)
    assert in_names(Product("*/")) == ["u0", "u1"]


def test_product_matrix_mode():
    np.testing.assert_allclose(out(Product("**", matrix=True), A, B), A @ B)
    np.testing.assert_allclose(out(Product("*/", matrix=True), A, B), A @ np.linalg.inv(B))
    np.testing.assert_allclose(out(Product("/*", matrix=True), A, B), np.linalg.inv(A) @ B)
    np.testing.assert_allclose(out(Product("/", matrix=True), A), np.linalg.inv(A))
    np.testing.assert_allclose(out(Product("**", matrix=True), A, V), A @ V)
    np.testing.assert_allclose(out(Product("*/", matrix=True), V, B), V @ np.linalg.inv(B))
    np.testing.assert_allclose(out(Product("*/", matrix=True), 2.0, B), 2.0 * np.linalg.inv(B))
    np.testing.assert_allclose(out(Product("**/", matrix=True), A, 3.0, 2.0), 1.5 * A)
    assert not np.allclose(A @ B, A * B)  # matrix and element-wise modes differ


def test_product_division_by_zero():
    with pytest.raises(ZeroDivisionError):
        out(Product("*/"), 1.0, 0.0)
    with pytest.raises(np.linalg.LinAlgError):
        out(Product("*/", matrix=True), A, np.ones((2, 2)))


@pytest.mark.parametrize("kwargs, match", [
    (dict(ops="*+"), r"Product: parameter 'ops' may contain only the characters '\*', '/', "
                     r"got '\*\+' \(invalid: '\+'\)"),
    (dict(ops=""), r"Product: parameter 'ops' must have at least one of '\*', '/'"),
    (dict(ops="*|/"), r"Product: parameter 'ops' may contain only"),
    (dict(matrix="yes"), r"Product: parameter 'matrix' must be True or False, got 'yes'"),
    (dict(op="**"), r"Product: unknown parameter 'op' \(did you mean 'ops'\?\)"),
])
def test_product_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Product(**kwargs)


# ---------------------------------------------------------------------------- Function
def test_function_single():
    f = Function(lambda u: 3 * u)
    assert in_names(f) == ["u"] and [p.name for p in f.outputs] == ["y"]
    y = out(f, 2.0)
    assert y == 6.0 and type(y) is float
    assert f.output_feedthrough() == {"y": ("u",)}


def test_function_results_become_signals():
    assert type(out(Function(lambda u: 2), 0.0)) is float
    assert type(out(Function(lambda u: np.float32(2.5)), 0.0)) is float
    assert type(out(Function(lambda u: np.array(1.5)), 0.0)) is float
    y = out(Function(lambda u: [1, 2]), 0.0)
    assert isinstance(y, np.ndarray) and y.dtype == np.float64
    np.testing.assert_array_equal(y, [1.0, 2.0])


def test_function_many_inputs_outputs_args_kwargs():
    def f(a, b, c, scale=1.0):
        return a + b * c, scale * a

    fn = Function(f, nin=2, nout=2, args=(10.0,), kwargs={"scale": -2.0})
    assert in_names(fn) == ["u0", "u1"]
    assert [p.name for p in fn.outputs] == ["y0", "y1"]
    assert fn.output(0.0, X, (1.0, 2.0)) == (21.0, -2.0)
    assert fn.output_feedthrough() == {"y0": ("u0", "u1"), "y1": ("u0", "u1")}


def test_function_feedthrough_declarations():
    f = Function(lambda: 1.0, nin=0)
    assert len(f.inputs) == 0 and out(f) == 1.0
    f = Function(lambda u: 0.0, feedthrough=False)
    assert f.output_feedthrough() == {"y": ()}
    f = Function(lambda a, b: (a, b), nin=2, nout=2, feedthrough={"y1": ("u1",)})
    assert f.output_feedthrough() == {"y0": (), "y1": ("u1",)}


def test_function_wrong_number_of_results():
    f = Function(lambda u: (u, u, u), nout=2)
    with pytest.raises(ValueError, match=r"Function: func must return a tuple of 2 outputs, "
                                         r"got tuple of length 3"):
        f.output(0.0, X, (1.0,))


def my_func(a, b):
    return a + b


@pytest.mark.parametrize("kwargs, match", [
    (dict(func=3), r"Function: parameter 'func' must be a callable, got 3"),
    (dict(func=my_func, nin=1), r"Function: func my_func\(a, b\) cannot be called with "
                                r"1 input\(s\)"),
    (dict(func=my_func, nin=2, kwargs={"c": 1}), r"my_func.*kwargs \['c'\]"),
    (dict(func=my_func, nin=-1), r"Function: parameter 'nin' must be an integer >= 0, got -1"),
    (dict(func=my_func, nin=2, nout=0), r"Function: parameter 'nout' must be an integer >= 1"),
    (dict(func=my_func, nin=2, nout=1.0), r"'nout' must be an integer"),
    (dict(func=my_func, nin=2, args="ab"), r"Function: parameter 'args' must be a tuple"),
    (dict(func=my_func, nin=2, kwargs=[1]), r"Function: parameter 'kwargs' must be a dict"),
    (dict(func=my_func, nin=2, feedthrough={"z": ("u0",)}),
     r"Function: feedthrough names output 'z', but the outputs are \['y'\]"),
    (dict(func=my_func, nin=2, feedthrough={"y": ("u3",)}),
     r"Function: feedthrough\['y'\] must be a tuple of input names from \['u0', 'u1'\]"),
    (dict(func=my_func, nin=2, feedthrough="yes"),
     r"Function: parameter 'feedthrough' must be True, False or a dict"),
    (dict(func=my_func, nin=2, n_in=2), r"Function: unknown parameter 'n_in'.*'nin'"),
])
def test_function_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Function(**kwargs)


def test_function_builtin_without_signature_is_accepted():
    f = Function(max, nin=2)
    assert out(f, 1.0, 3.0) == 3.0


# ---------------------------------------------------------------------------- MathFunction
NUMPY = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "exp": np.exp,
    "log": np.log, "log10": np.log10, "sqrt": np.sqrt, "abs": np.abs, "square": np.square,
    "reciprocal": lambda a: 1.0 / a, "sign": np.sign, "floor": np.floor, "ceil": np.ceil,
}
POSITIVE = {"log", "log10", "sqrt"}
UNIT = {"asin", "acos"}


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_mathfunction_matches_numpy(name):
    m = MathFunction(name)
    if name in POSITIVE:
        u = np.array([0.3, 1.0, 2.5, 40.0])
    elif name in UNIT:
        u = np.array([-0.9, -0.2, 0.0, 0.7])
    elif name == "reciprocal":
        u = np.array([-2.7, -0.4, 0.6, 1.5])
    else:
        u = np.array([-2.7, -0.4, 0.0, 0.6, 1.5])
    np.testing.assert_allclose(out(m, u), NUMPY[name](u), rtol=1e-14, atol=0)
    for v in u:
        y = out(m, float(v))
        assert type(y) is float
        assert y == pytest.approx(float(NUMPY[name](v)), rel=1e-14, abs=0)
    np.testing.assert_allclose(out(m, u.reshape(1, -1)), NUMPY[name](u).reshape(1, -1))


def test_mathfunction_scalar_details():
    assert out(MathFunction("floor"), -1.5) == -2.0
    assert out(MathFunction("sign"), 0.0) == 0.0 and out(MathFunction("sign"), -3.0) == -1.0
    assert type(out(MathFunction("abs"), np.float64(-2.0))) is float
    assert out(MathFunction("sin"), 1) == math.sin(1.0)
    assert MathFunction().params == {"func": "sin"}


@pytest.mark.parametrize("name, u, exc, match", [
    ("sqrt", -1.0, ValueError, r"MathFunction: sqrt\(-1.0\): the input is outside the domain"),
    ("log", 0.0, ValueError, r"log\(0.0\)"),
    ("asin", 2.0, ValueError, r"asin\(2.0\)"),
    ("reciprocal", 0.0, ZeroDivisionError, r"reciprocal\(0.0\)"),
    ("exp", 1000.0, OverflowError, r"exp\(1000.0\): the input overflows"),
])
def test_mathfunction_scalar_domain_errors(name, u, exc, match):
    with pytest.raises(exc, match=match):
        out(MathFunction(name), u)


@pytest.mark.parametrize("func, match", [
    ("sinn", r"MathFunction: parameter 'func' must be one of sin, cos, tan, .*ceil; "
             r"got 'sinn' \(did you mean 'sin'\?\)"),
    ("arcsin", r"did you mean 'asin'"),
    ("gamma", r"must be one of .*; got 'gamma'$"),
    (np.sin, r"MathFunction: parameter 'func' must be one of"),
])
def test_mathfunction_unknown(func, match):
    with pytest.raises(BlockParameterError, match=match):
        MathFunction(func)


# ---------------------------------------------------------------------------- in a diagram
def test_feedback_loop_sum_gain_integrator():
    # x' = 2 (1 - x), x(0) = 0  =>  x = 1 - exp(-2t)
    d = Diagram("loop")
    d.add(Constant(1.0), name="r")
    d.add(Sum("+-"), name="e")
    d.add(Gain(2.0), name="k")
    d.add(Integrator(x0=0.0), name="x")
    d.connect("r", "e.u0")
    d.connect("x", "e.u1")
    d.connect("e", "k")
    d.connect("k", "x")
    r = simulate(d, 3.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r["x.y"], 1.0 - np.exp(-2.0 * r.t), atol=1e-8)
    np.testing.assert_allclose(r["e.y"], np.exp(-2.0 * r.t), atol=1e-8)


def test_matrix_gain_and_products_in_a_diagram():
    d = Diagram("vec")
    d.add(Time(), name="t")
    d.add(Constant([1.0, -1.0]), name="c")
    d.add(Product("**"), name="ct")
    d.add(Gain(A), name="g")
    d.add(MathFunction("cos"), name="cos")
    d.add(Constant(4.0), name="four")
    d.add(Product("*/"), name="p")
    d.add(Integrator(x0=0.0), name="s")
    d.connect("t", "ct.u0", "cos")
    d.connect("c", "ct.u1")
    d.connect("ct", "g")
    d.connect("cos", "p.u0")
    d.connect("four", "p.u1")
    d.connect("p", "s")
    r = simulate(d, 2.0, rtol=1e-10, atol=1e-12)
    assert r["g.y"].shape == (len(r.t), 2)
    np.testing.assert_allclose(r["g.y"], np.outer(r.t, A @ [1.0, -1.0]), atol=1e-12)
    np.testing.assert_allclose(r["s.y"], np.sin(r.t) / 4.0, atol=1e-8)


def test_shape_mismatch_is_reported_at_compile_time():
    d = Diagram("bad")
    d.add(Constant([1.0, 2.0]), name="a")
    d.add(Constant([1.0, 2.0, 3.0]), name="b")
    d.add(Sum("+-"), name="s")
    d.connect("a", "s.u0")
    d.connect("b", "s.u1")
    with pytest.raises(DiagramError, match=r"'s' \(Sum\)"):
        simulate(d, 1.0)
