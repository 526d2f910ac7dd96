"""Math blocks of any arity and every MathFunction, compiled vs interpreted back-end."""

from __future__ import annotations

import numpy as np

from blocksim import Diagram
from blocksim.blocks import Constant, Integrator, MathFunction, Product, Sine, Sum
from blocksim.blocks.math.functions import _FUNCTIONS
from tests.blocks.backends import assert_backends_agree


def _sines(d: Diagram, n: int, prefix: str) -> list:
    return [d.add(Sine(amplitude=1.0 + 0.25 * i, frequency=0.3 + 0.1 * i, bias=2.0 + i),
                  name=f"{prefix}{i}") for i in range(n)]


def test_sum_of_20_and_products_of_12_inputs():
    d = Diagram("arity")
    total = d.add(Sum(("+-" * 10)[:20]), name="total")
    for i, s in enumerate(_sines(d, 20, "s")):
        d.connect(s, total[f"u{i}"])
    prod = d.add(Product(("**/" * 4)[:12]), name="prod")
    for i, s in enumerate(_sines(d, 12, "p")):
        d.connect(s, prod[f"u{i}"])
    rng = np.random.default_rng(3)
    mat = d.add(Product(("*/" * 6)[:12], matrix=True), name="mat")
    for i in range(12):
        c = d.add(Constant(np.eye(3) * (1.5 + 0.1 * i) + 0.2 * rng.normal(size=(3, 3))),
                  name=f"m{i}")
        d.connect(c, mat[f"u{i}"])
    x = d.add(Integrator(), name="x")
    d.connect(total, x)
    assert_backends_agree(d, close={"mat.y": 1e-12})


def test_every_mathfunction():
    """The function outputs bitwise; their integrals to 1e-15 (the compiled RK4 stages round
    differently in the last bit for a few of them)."""
    d = Diagram("functions")
    u = d.add(Sine(amplitude=0.4, frequency=0.7, bias=0.5), name="u")
    for name in _FUNCTIONS:
        f = d.add(MathFunction(name), name=f"f_{name}")
        d.connect(u, f)
        x = d.add(Integrator(), name=f"x_{name}")
        d.connect(f, x)
    assert_backends_agree(d, close={f"x_{name}.y": 1e-15 for name in _FUNCTIONS},
                          state_rtol=1e-15)
