"""Compiled kernels of the discrete blocks against their interpreted methods.

ZOH, UnitDelay, RateTransition, DiscreteIntegrator (every method, limited or not, scalar,
vector, matrix), DiscreteTransferFunction (orders 0 to 14), DiscreteStateSpace (SISO and
MIMO), DiscretePID and DiscreteDerivative: the numba kernels are compared with the interpreted
``output``/``update`` at many (t, x, u) points (see :mod:`tests.blocks.state_kernel_checks`),
with the same contract checks as the continuous blocks' kernels.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from blocksim.blocks.continuous import kernels as cont_kernels
from blocksim.blocks.discrete import kernels as disc
from blocksim.blocks.discrete.calculus import DiscreteDerivative, DiscreteIntegrator
from blocksim.blocks.discrete.linear import DiscreteStateSpace, DiscreteTransferFunction
from blocksim.blocks.discrete.pid import DiscretePID
from blocksim.blocks.discrete.sample_hold import ZOH, RateTransition, UnitDelay
from blocksim.engine.compiled.kernels import Kernels
from tests.blocks.state_kernel_checks import (
    _ss,
    _tf,
    check_contract,
    check_no_allocation,
    is_exact,
    is_scalar,
    kernel_functions,
    nan_like,
    points,
    same_state,
    same_value,
    state,
)

DISCRETE = {
    "zoh-scalar": (lambda: ZOH(0.1), ()),
    "zoh-vector": (lambda: ZOH((0.1, 0.05)), (3,)),
    "zoh-matrix": (lambda: ZOH(0.2), (2, 2)),
    "unitdelay-scalar": (lambda: UnitDelay(0.1, x0=0.5), None),
    "unitdelay-vector": (lambda: UnitDelay(0.1, x0=[1.0, 2.0, 3.0]), None),
    "unitdelay-vector-1": (lambda: UnitDelay(0.1, x0=[1.0]), None),
    "unitdelay-matrix": (lambda: UnitDelay(0.1, x0=np.ones((2, 3))), None),
    "ratetransition-sample": (lambda: RateTransition(0.1), ()),
    "ratetransition-sample-vector": (lambda: RateTransition(0.1), (3,)),
    "ratetransition-delay": (lambda: RateTransition(0.1, delay=True, x0=0.2), None),
    "ratetransition-delay-vector": (lambda: RateTransition(0.1, delay=True, x0=[0.0, 1.0]),
                                    None),
    **{f"dintegrator-{m}-{'limited' if lim else 'free'}":
       ((lambda m=m, lim=lim: DiscreteIntegrator(0.1, m, K=0.7, x0=0.1,
                                                 **(dict(lower=-0.2, upper=0.3) if lim
                                                    else {}))), None)
       for m in ("forward", "backward", "trapezoidal") for lim in (False, True)},
    "dintegrator-lower-only": (lambda: DiscreteIntegrator(0.5, "backward", K=2.0, lower=-0.1),
                               None),
    **{f"dintegrator-vector-{m}": ((lambda m=m: DiscreteIntegrator(
        0.1, m, K=3.0, x0=[0.0, 0.1, 0.2], lower=[-0.1, -1.0, -math.inf],
        upper=[0.1, 0.3, math.inf])), None) for m in ("forward", "trapezoidal")},
    "dintegrator-vector-free": (lambda: DiscreteIntegrator(0.1, "backward", x0=[0.0, 1.0]),
                                None),
    "dintegrator-matrix": (lambda: DiscreteIntegrator(0.5, "backward", K=2.0, x0=np.eye(2),
                                                      lower=-1.0, upper=1.0), None),
    "dintegrator-matrix-forward": (lambda: DiscreteIntegrator(0.5, x0=np.zeros((2, 3))), None),
    "dtf-gain": (lambda: DiscreteTransferFunction([3.0], [2.0], clock=0.1), None),
    "dtf-zero-gain": (lambda: DiscreteTransferFunction([0.0], [2.0], clock=0.1), None),
    **{f"dtf-{n}-{'biproper' if bp else 'strict'}":
       ((lambda n=n, bp=bp: _tf(n, bp, 20 + n, DiscreteTransferFunction, clock=0.1)), None)
       for n in (1, 2, 3, 4, 6, 14) for bp in (False, True)},
    "dss-siso-2-d": (lambda: _ss(2, 1, 1, True, 30, DiscreteStateSpace, clock=0.1), None),
    "dss-siso-6": (lambda: _ss(6, 1, 1, False, 31, DiscreteStateSpace, clock=0.1), None),
    "dss-si-mo": (lambda: _ss(3, 1, 2, False, 32, DiscreteStateSpace, clock=0.1), None),
    "dss-mimo-d": (lambda: _ss(3, 2, 2, True, 33, DiscreteStateSpace, clock=0.1), None),
    "dss-mi-so-d": (lambda: _ss(2, 3, 1, True, 34, DiscreteStateSpace, clock=0.1), None),
    "dpid": (lambda: DiscretePID(2.0, 1.5, 0.3, clock=0.01), None),
    "dpid-filtered": (lambda: DiscretePID(2.0, 1.5, 0.3, clock=0.01, N=50.0), None),
    "dpid-limited": (lambda: DiscretePID(2.0, 1.5, 0.3, clock=0.01, lower=-1.0, upper=1.0),
                     None),
    "dpid-limited-filtered-negative-ki": (lambda: DiscretePID(1.0, -2.0, 0.1, clock=0.05,
                                                              N=20.0, upper=0.5), None),
    "dderivative": (lambda: DiscreteDerivative(0.1, K=2.0), None),
    "dderivative-filtered": (lambda: DiscreteDerivative(0.1, K=2.0, N=30.0, x0=0.3), None),
    "dderivative-vector": (lambda: DiscreteDerivative(0.1, x0=[0.0, 1.0]), None),
    "dderivative-vector-filtered": (lambda: DiscreteDerivative(0.1, N=5.0, x0=[0.0, 1.0]),
                                    None),
}


def _input_shape(block, given):
    return block.inputs[0].shape if given is None else given


# ================================================================== kernels vs interpreted
@pytest.mark.parametrize("name", list(DISCRETE))
def test_discrete_kernels_match_interpreted(name):
    make, ushape = DISCRETE[name]
    b = make()
    k = b.kernels()
    assert isinstance(k, Kernels) and k.deriv is None and k.output is not None
    assert (k.update is None) == (b.nx == 0)
    strict = b.output_feedthrough()["y"] == ()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for t, x, u in points(b, rng, _input_shape(b, ushape)):
        y = k.output(t, x, *u, k.params)
        same_value(y, b.output(t, x, u)[0], is_exact(b.output))
        same_value(y, type(b).output(b, t, x, u)[0], exact=False)
        if not isinstance(y, float):
            assert not np.shares_memory(y, x) and not np.shares_memory(y, u[0])
        if strict:
            same_value(k.output(t, x, *nan_like(u), k.params), y, exact=True)
        if b.nx:
            xn = k.update(t, x, *u, k.params)
            same_state(xn, b.update(t, x, u), is_exact(b.update))
            same_state(xn, type(b).update(b, t, x, u), exact=False)


# ================================================================== targeted values
def test_discrete_pid_clamps_and_filters():
    b = DiscretePID(1.0, 1.0, 0.0, clock=0.1, upper=1.0)
    k = b.kernels()
    assert k.update(0.0, state([2.0, 0.0]), 1.0, k.params) == (2.0, 1.0)  # clamped, z' = e
    assert k.update(0.0, state([2.0, 0.0]), -1.0, k.params) == (2.0 - 0.1, -1.0)
    b = DiscretePID(0.0, 0.0, 1.0, clock=0.1, N=10.0)  # h = 0.2
    k = b.kernels()
    assert k.output(0.0, state([0.0, 0.0]), 1.0, k.params) == pytest.approx(5.0)
    assert k.update(0.0, state([0.0, 0.0]), 1.0, k.params)[1] == pytest.approx(0.5)


# ================================================================== contract
@pytest.mark.parametrize("name", list(DISCRETE))
def test_kernels_follow_the_contract(name):
    check_contract(DISCRETE[name][0](), (cont_kernels, disc))


SCALAR = [n for n, (make, ushape) in DISCRETE.items()
          if is_scalar(make(), _input_shape(make(), ushape))]


def test_the_scalar_paths_are_covered():
    for must in ("zoh-scalar", "unitdelay-scalar", "dintegrator-backward-limited",
                 "dtf-2-biproper", "dtf-14-strict", "dpid-filtered", "dderivative-filtered"):
        assert must in SCALAR


@pytest.mark.parametrize("name", SCALAR)
def test_scalar_kernels_do_not_allocate(name, nrt_stats):
    make, ushape = DISCRETE[name]
    b = make()
    check_no_allocation(b, _input_shape(b, ushape))


def test_parameter_sweep_reuses_the_compiled_code():
    pairs = [
        (DiscretePID(1.0, 1.0, 1.0, clock=0.1), DiscretePID(2.0, 0.0, 0.5, clock=0.02, N=30.0,
                                                            lower=-1.0, upper=1.0)),
        (DiscreteIntegrator(0.1, "trapezoidal", lower=0.0), DiscreteIntegrator(
            0.2, "trapezoidal", K=3.0, upper=5.0)),
        (DiscreteTransferFunction([1.0], [1.0, 0.5, 0.1], clock=0.1),
         DiscreteTransferFunction([2.0, 1.0], [1.0, -0.3, 0.2], clock=0.01)),
    ]
    for b1, b2 in pairs:
        k1, k2 = b1.kernels(), b2.kernels()
        assert kernel_functions(k1) == kernel_functions(k2)
        x = state(np.full(b1.nx, 0.25))
        for f in kernel_functions(k1):
            f(0.0, x, 0.5, k1.params)
            n = len(f.signatures)
            f(0.0, x, 0.5, k2.params)
            assert len(f.signatures) == n, f"{f.__name__} recompiled for new parameter values"


def test_interpreted_discrete_pid_uses_the_kernel_functions():
    """The interpreted DiscretePID calls the kernels' Python functions."""
    d = DiscretePID(2.0, 1.0, 0.2, clock=0.1, N=10.0)
    x, u = state([0.3, -0.2]), (0.7,)
    assert d.update(0.0, x, u) == disc.dpid_update.py_func(0.0, x.tolist(), 0.7,
                                                           d.kernels().params)
    assert d.output(0.0, x, u) == (disc.dpid_output.py_func(0.0, x.tolist(), 0.7,
                                                            d.kernels().params),)
