"""The compiled kernels of the math blocks against their interpreted outputs (checks in
:mod:`tests.blocks.kernel_checks`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.blocks.math.arithmetic import Gain, Product, Sum
from blocksim.blocks.math.functions import (
    _FUNCTIONS,
    Function,
    MathFunction,
    mathfunction_kernel,
)
from blocksim.engine.compiled.kernels import kernels_of
from tests.blocks.kernel_checks import A, B, M, V, W, X, check, kernel_output


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
            check(block, values[:n])


@pytest.mark.parametrize("n", [1, 2, 5, 9, 20])
def test_sum_any_arity(n):
    check(Sum(("+-" * 10)[:n]), _floats(n))
    check(Sum(("-+" * 10)[:n]), tuple(V * i for i in range(n)))


def test_sum_arrays():
    check(Sum("+-"), (V, W))
    check(Sum("-+"), (V, W))
    check(Sum("-"), (V,))
    check(Sum("+-+"), (V, 2.5, W))
    check(Sum("-+-"), (V, 2.5, W))
    check(Sum("+-"), (2.5, V))


def test_sum_broadcasts_as_numpy():
    check(Sum("+-"), (V, M))                     # (3,) and (2, 3)
    check(Sum("-+-"), (M[:1], 2.0, M))           # (1, 3), a float and (2, 3)
    check(Sum("+-"), (np.array([2.0]), V))       # (1,) and (3,)
    check(Sum("-+"), (M[:, 1], M[:, 2]))         # strided views, read in place
    check(Sum("+-+"), (M.T, V[:2], 1.5))         # (3, 2) non-contiguous, (2,), a float
    with pytest.raises(ValueError, match="broadcast"):
        kernel_output(Sum("++"), 0.0, (V, np.ones(2)))


def test_one_kernel_per_block_whatever_the_arity():
    assert {Sum(n).kernels().output for n in (1, 2, 9, 30)} == {Sum().kernels().output}
    assert len({Product(n).kernels().output for n in (1, 3, 12)}) == 1
    assert len({Product(n, matrix=True).kernels().output for n in (1, 3, 12)}) == 1
    assert kernels_of(Sum(40)) is not None


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


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_product_any_arity(n):
    check(Product(("*/" * 6)[:n]), tuple(0.5 + 0.37 * i for i in range(n)))
    check(Product(("/*" * 6)[:n]), tuple(V + (i + 0.1) for i in range(n)))
    check(Product(("*/" * 6)[:n], matrix=True), tuple(A / (i + 1) for i in range(n)), tol=1e-13)


def test_product_division_by_zero():
    block = Product("*/")
    with pytest.raises(ZeroDivisionError):
        block.output(0.0, X, (1.0, 0.0))
    # compiled: numpy's error model gives inf, which the loop reports naming the block
    # (tests/engine/compiled/test_faults.py); Python's would raise inside the loop
    assert kernel_output(block, 0.0, (1.0, 0.0)) == np.inf
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


def test_mathfunction_has_one_kernel():
    kernels = [MathFunction(name).kernels() for name in _FUNCTIONS]
    assert {k.output for k in kernels} == {mathfunction_kernel}
    assert sorted(k.params[0] for k in kernels) == list(range(len(_FUNCTIONS)))


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
