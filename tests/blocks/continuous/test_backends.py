"""TransferFunction and StateSpace of orders 1, 2, 3, 5, 8 (and a MIMO StateSpace), compiled vs
interpreted back-end, all in one diagram (one compile).

The kernels are one pair per block kind for every order (``tf_*``, ``ss_*`` in
``blocksim.blocks.continuous.kernels``): unrolled over float params for few coefficients,
loops over arrays above. With Euler steps the transfer functions and the small state-space
systems, whose interpreted paths do the same operations in the same order, agree bitwise; the
state-space systems of order 5 and 8 and the MIMO one, which the interpreted back-end
evaluates with numpy (BLAS summation order), to 1e-12. With RK4 every signal agrees to 1e-12
only: for more than 16 states the interpreted RK4 step sums ``k1 + 2 k2 + 2 k3 + k4`` where
the compiled one (and the interpreted one for small systems) sums ``k1 + 2 (k2 + k3) + k4``,
which rounds differently in the last bit (``blocksim/engine/solvers.py``).
"""

from __future__ import annotations

import numpy as np

from blocksim import Diagram
from blocksim.blocks import Mux, Sine, StateSpace, Sum, TransferFunction
from blocksim.blocks.continuous.kernels import MAX_FLOAT_PARAMS
from tests.blocks.backends import assert_backends_agree

ORDERS = (1, 2, 3, 5, 8)


def _stable_den(rng: np.random.Generator, n: int) -> np.ndarray:
    """A monic polynomial with real roots in [-3, -0.5]."""
    return np.poly(-rng.uniform(0.5, 3.0, n))


def _stable_a(rng: np.random.Generator, n: int) -> np.ndarray:
    return -2.0 * np.eye(n) + 0.3 * rng.normal(size=(n, n))


def test_linear_systems_of_every_order_agree():
    rng = np.random.default_rng(12)
    d = Diagram("lti")
    u = d.add(Sine(amplitude=1.0, frequency=0.8, bias=0.2), name="u")
    v = d.add(Sine(amplitude=0.5, frequency=1.3), name="v")
    close: dict[str, float] = {}
    for n in ORDERS:
        biproper = n % 2 == 1  # 1, 3, 5: direct feedthrough; 2, 8: strictly proper
        num = rng.uniform(-1.0, 1.0, n + 1 if biproper else n)
        tf = d.add(TransferFunction(num, _stable_den(rng, n), x0=rng.normal(size=n)),
                   name=f"tf{n}")
        d.connect(u, tf)
        D = rng.normal() if n in (2, 5) else None
        ss = d.add(StateSpace(_stable_a(rng, n), rng.normal(size=n), rng.normal(size=n), D,
                              x0=rng.normal(size=n)), name=f"ss{n}")
        d.connect(v, ss)
        if (n + 1) ** 2 > MAX_FLOAT_PARAMS:  # array kernels against numpy
            close[f"ss{n}.y"] = 1e-12
    # a strictly proper order-8 transfer function in a feedback loop (its output is computed
    # before its input is known)
    err = d.add(Sum("+-"), name="err")
    loop = d.add(TransferFunction([2.0], _stable_den(rng, 8)), name="loop")
    d.connect(u, err["u0"])
    d.connect(loop, err["u1"])
    d.connect(err, loop)
    # two inputs, three outputs, with feedthrough
    uv = d.add(Mux(2), name="uv")
    d.connect(u, uv["u0"])
    d.connect(v, uv["u1"])
    mimo = d.add(StateSpace(_stable_a(rng, 3), rng.normal(size=(3, 2)), rng.normal(size=(3, 3)),
                            rng.normal(size=(3, 2))), name="mimo")
    d.connect(uv, mimo)
    close["mimo.y"] = 1e-12
    assert_backends_agree(d, T=2.0, dt=0.01, close=close, state_rtol=1e-15, solver="euler")
    integrated = [f"{kind}{n}.y" for kind in ("tf", "ss") for n in ORDERS]
    assert_backends_agree(d, T=2.0, dt=0.01, state_rtol=1e-13,
                          close=dict.fromkeys([*integrated, "loop.y", "err.y", "mimo.y"], 1e-12))
