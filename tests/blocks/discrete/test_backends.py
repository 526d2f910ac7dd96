"""DiscreteTransferFunction and DiscreteStateSpace of orders 1, 2, 3, 5, 8 (and a MIMO
DiscreteStateSpace), compiled vs interpreted back-end, all in one diagram (one compile).

They use the kernels of the continuous linear systems (``tf_*``, ``ss_*``, the ``A x + B u``
kernel as ``update``). Updates are exact sums, so there is no integration rounding: the systems
whose interpreted update runs in pure Python in index order (transfer functions and state-space
systems up to order 4) agree bitwise, those the interpreted back-end evaluates with numpy
(order 5 and 8, MIMO) to 1e-13.
"""

from __future__ import annotations

import numpy as np

from blocksim import Diagram
from blocksim.blocks import (
    ZOH,
    DiscreteStateSpace,
    DiscreteTransferFunction,
    Mux,
    Sine,
    Sum,
)
from blocksim.blocks.discrete.linear import MAX_LOOP_ORDER_UPDATE
from tests.blocks.backends import assert_backends_agree

ORDERS = (1, 2, 3, 5, 8)
TS = 0.02


def _stable_den(rng: np.random.Generator, n: int) -> np.ndarray:
    """A monic polynomial in z with real roots in [-0.8, 0.8]."""
    return np.poly(rng.uniform(-0.8, 0.8, n))


def _stable_a(rng: np.random.Generator, n: int) -> np.ndarray:
    return 0.5 * np.eye(n) + (0.3 / np.sqrt(n)) * rng.normal(size=(n, n))


def test_discrete_linear_systems_of_every_order_agree():
    rng = np.random.default_rng(21)
    d = Diagram("dlti")
    s = d.add(Sine(amplitude=1.0, frequency=0.8, bias=0.2), name="s")
    u = d.add(ZOH(TS), name="u")
    v = d.add(ZOH(TS), name="v")
    d.connect(s, u)
    d.connect(s, v)
    close: dict[str, float] = {}
    for n in ORDERS:
        biproper = n % 2 == 1
        num = rng.uniform(-1.0, 1.0, n + 1 if biproper else n)
        tf = d.add(DiscreteTransferFunction(num, _stable_den(rng, n), clock=TS,
                                            x0=rng.normal(size=n)), name=f"tf{n}")
        d.connect(u, tf)
        D = rng.normal() if n in (2, 5) else None
        ss = d.add(DiscreteStateSpace(_stable_a(rng, n), rng.normal(size=n), rng.normal(size=n),
                                      D, clock=TS, x0=rng.normal(size=n)), name=f"ss{n}")
        d.connect(v, ss)
        if n > MAX_LOOP_ORDER_UPDATE:  # numpy in the interpreted update
            close[f"tf{n}.y"] = close[f"ss{n}.y"] = 1e-13
    err = d.add(Sum("+-"), name="err")
    loop = d.add(DiscreteTransferFunction([0.5], _stable_den(rng, 8), clock=TS), name="loop")
    d.connect(u, err["u0"])
    d.connect(loop, err["u1"])
    d.connect(err, loop)
    close["loop.y"] = close["err.y"] = 1e-13
    uv = d.add(Mux(2), name="uv")
    d.connect(u, uv["u0"])
    d.connect(v, uv["u1"])
    mimo = d.add(DiscreteStateSpace(_stable_a(rng, 3), rng.normal(size=(3, 2)),
                                    rng.normal(size=(2, 3)), rng.normal(size=(2, 2)), clock=TS),
                 name="mimo")
    d.connect(uv, mimo)
    close["mimo.y"] = 1e-13
    assert_backends_agree(d, T=1.0, dt=0.01, close=close, state_rtol=1e-13)
