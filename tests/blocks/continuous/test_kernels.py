"""Compiled kernels of the continuous blocks against their interpreted methods.

For every block and its kernel variants (scalar, vector, matrix; limits active and inactive;
transfer-function orders 0 to 17; SISO and MIMO state space; filtered or not) the numba
kernels are compared with the interpreted methods at many (t, x, u) points (limits hit
exactly, exceeded, pushed against): see :mod:`tests.blocks.state_kernel_checks`. Also checked:
outputs without feedthrough never read u, scalar kernels never allocate, params have the
contract's types, kernels are cached module-level numba functions, and a parameter sweep
reuses the compiled code. The discrete blocks' kernels are tested in
``tests/blocks/discrete/test_kernels.py``.

Each kernel is compiled once per argument type (numba, ``cache=True``); the cases reuse types
so that a cold run (empty numba cache) stays short.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from blocksim.blocks.continuous import kernels as cont_kernels
from blocksim.blocks.continuous import pid as cont
from blocksim.blocks.continuous.calculus import Derivative, Integrator
from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.continuous.pid import PID
from blocksim.engine.compiled.kernels import Kernels
from tests.blocks.state_kernel_checks import (
    A3,
    COMPANION_A,
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

CONTINUOUS = {
    "integrator-scalar": lambda: Integrator(x0=0.2),
    "integrator-scalar-limited": lambda: Integrator(x0=0.2, lower=-1.0, upper=1.0),
    "integrator-scalar-upper-only": lambda: Integrator(upper=0.5),
    "integrator-vector": lambda: Integrator(x0=[0.0, 0.2, 0.3]),
    "integrator-vector-1": lambda: Integrator(x0=[0.1]),
    "integrator-vector-limited": lambda: Integrator(x0=[0.0, 0.2, 0.3], lower=-0.1,
                                                    upper=[0.1, 0.3, math.inf]),
    "integrator-matrix": lambda: Integrator(x0=np.zeros((2, 3))),
    "integrator-matrix-limited": lambda: Integrator(x0=np.zeros((2, 2)), lower=-1.0,
                                                    upper=[[0.5, 1.0], [0.3, math.inf]]),
    "tf-gain": lambda: TransferFunction([2.0], [4.0]),
    "tf-zero-gain": lambda: TransferFunction([0.0], [3.0]),
    **{f"tf-{n}-{'biproper' if bp else 'strict'}": (lambda n=n, bp=bp: _tf(n, bp, n))
       for n in (1, 2, 3, 4, 5, 13, 17) for bp in (False, True)},
    "tf-zero-numerator": lambda: TransferFunction([0.0], [1.0, 2.0, 1.0]),
    # (dense A; the output kernels' code is that of the TransferFunction cases above)
    **{f"ss-siso-{n}-{'d' if d else 'strict'}": (lambda n=n, d=d: _ss(n, 1, 1, d, 10 + n))
       for n, d in ((1, False), (1, True), (2, True), (3, False), (4, True), (6, False))},
    "ss-siso-companion": lambda: StateSpace(COMPANION_A, [1.0, 0.0, 0.0], [0.5, -1.0, 2.0], 0.3),
    "ss-si-mo": lambda: StateSpace(A3, [0.0, 1.0, 0.5], np.eye(3)),
    "ss-si-mo-d": lambda: _ss(3, 1, 2, True, 1),
    "ss-mi-so": lambda: _ss(3, 2, 1, False, 2),
    "ss-mi-so-d": lambda: _ss(3, 2, 1, True, 3),
    "ss-mimo": lambda: _ss(4, 2, 3, False, 4),
    "ss-mimo-d": lambda: _ss(4, 2, 3, True, 5),
    "derivative-scalar": lambda: Derivative(N=20.0, x0=0.1),
    "derivative-vector": lambda: Derivative(N=5.0, x0=[0.0, 0.5]),
    "pid": lambda: PID(Kp=2.0, Ki=1.5, Kd=0.3, N=40.0),
    "pid-limited": lambda: PID(Kp=2.0, Ki=1.5, Kd=0.3, N=40.0, lower=-1.0, upper=1.0),
    "pid-limited-band": lambda: PID(Kp=2.0, Ki=1.5, Kd=0.3, lower=-1.0, upper=1.0,
                                    clamp_band=0.5),
    "pid-negative-ki-upper-only": lambda: PID(Kp=1.0, Ki=-2.0, upper=0.5, clamp_band=0.2),
    "pid-ki-zero-limited": lambda: PID(Kp=3.0, Kd=0.1, lower=-0.5, upper=0.5),
}


# ================================================================== kernels vs interpreted
@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_kernels_match_interpreted(name):
    b = CONTINUOUS[name]()
    k = b.kernels()
    assert isinstance(k, Kernels) and k.update is None and k.output is not None
    assert (k.deriv is None) == (b.nx == 0)
    strict = b.output_feedthrough()["y"] == ()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for t, x, u in points(b, rng, b.inputs[0].shape):
        y = k.output(t, x, *u, k.params)
        same_value(y, b.output(t, x, u)[0], is_exact(b.output))
        same_value(y, type(b).output(b, t, x, u)[0], exact=False)
        if strict:  # never reads u: the engine may call it before u is known
            same_value(k.output(t, x, *nan_like(u), k.params), y, exact=True)
        if b.nx:
            dx = k.deriv(t, x, *u, k.params)
            same_state(dx, b.deriv(t, x, u), is_exact(b.deriv))
            same_state(dx, type(b).deriv(b, t, x, u), exact=False)


# ================================================================== targeted values
def test_integrator_limits_stop_and_clip():
    k = Integrator(x0=0.0, lower=-1.0, upper=1.0).kernels()
    assert k.deriv(0.0, state([1.0]), 2.0, k.params) == (0.0,)  # at the upper limit, pushed
    assert k.deriv(0.0, state([1.0]), -2.0, k.params) == (-2.0,)  # leaves it
    assert k.deriv(0.0, state([-1.5]), -2.0, k.params) == (0.0,)  # beyond the lower one
    assert k.output(0.0, state([1.5]), math.nan, k.params) == 1.0
    k = Integrator(x0=[0.0, 0.0], lower=-1.0, upper=1.0).kernels()
    np.testing.assert_array_equal(k.deriv(0.0, state([1.0, 1.0]), np.array([2.0, -2.0]),
                                          k.params), [0.0, -2.0])


@pytest.mark.parametrize(("xi", "e", "dxi"), [
    (0.0, 1.0, 1.0),  # v = 0.1 below the limit: free
    (1.2, 1.0, 0.4),  # excess 0.3 inside the band 0.5: faded, e (1 - 0.3 / 0.5)
    (1.5, 1.0, 0.0),  # excess 0.6 >= band: stopped
    (2.0, -1.0, -1.0),  # beyond the limit but unwinding: free
])
def test_pid_clamp_regions(xi, e, dxi):
    b = PID(Kp=0.1, Ki=1.0, upper=1.0, clamp_band=0.5)  # v = 0.1 e + xi
    k = b.kernels()
    x = state([xi, 0.0])
    dx = k.deriv(0.0, x, e, k.params)
    assert dx[0] == pytest.approx(dxi, rel=1e-12) and dx[1] == 100.0 * e
    assert dx == b.deriv(0.0, x, (e,))
    assert k.output(0.0, x, e, k.params) == min(0.1 * e + xi, 1.0)


# ================================================================== contract
@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_kernels_follow_the_contract(name):
    check_contract(CONTINUOUS[name](), (cont, cont_kernels))


SCALAR = [n for n, make in CONTINUOUS.items() if is_scalar(make(), make().inputs[0].shape)]


def test_the_scalar_paths_are_covered():
    for must in ("integrator-scalar", "integrator-scalar-limited", "tf-1-strict",
                 "tf-2-strict", "tf-3-biproper", "tf-4-strict", "tf-13-biproper",
                 "ss-siso-4-d", "pid", "pid-limited-band"):
        assert must in SCALAR


@pytest.mark.parametrize("name", SCALAR)
def test_scalar_kernels_do_not_allocate(name, nrt_stats):
    b = CONTINUOUS[name]()
    check_no_allocation(b, b.inputs[0].shape)


def test_parameter_sweep_reuses_the_compiled_code():
    pairs = [
        (PID(Kp=1.0, Ki=2.0, lower=-1.0, upper=1.0), PID(Kp=5.0, Ki=0.1, Kd=1.0, N=10.0,
                                                         upper=3.0, clamp_band=0.1)),
        (PID(Kp=1.0), PID(Kp=3.0, Ki=2.0, Kd=0.5)),
        (TransferFunction([1.0], [1.0, 2.0, 1.0]), TransferFunction([3.0], [2.0, 0.1, 5.0])),
        (TransferFunction([1.0], [1.0] + [0.5] * 8), TransferFunction([2.0], [1.0] + [0.3] * 8)),
        (Integrator(x0=[0.0, 0.0], upper=1.0), Integrator(x0=[0.5, 0.5], lower=-2.0)),
    ]
    for b1, b2 in pairs:
        k1, k2 = b1.kernels(), b2.kernels()
        assert kernel_functions(k1) == kernel_functions(k2)
        x = state(np.full(b1.nx, 0.25))
        u = 0.5 if b1.inputs[0].shape == () else np.full(b1.inputs[0].shape, 0.5)
        for f in kernel_functions(k1):
            f(0.0, x, u, k1.params)
            n = len(f.signatures)
            f(0.0, x, u, k2.params)
            assert len(f.signatures) == n, f"{f.__name__} recompiled for new parameter values"


def test_interpreted_pid_uses_the_kernel_functions():
    """The numerics exist once: the interpreted PID calls the kernels' Python functions, so its
    results are those of the kernels' source."""
    b = PID(Kp=2.0, Ki=1.0, Kd=0.2, lower=-1.0, upper=1.0, clamp_band=0.1)
    x, u = state([0.3, -0.2]), (0.7,)
    assert b.output(0.0, x, u) == (cont.pid_output_limited.py_func(0.0, x.tolist(), 0.7,
                                                                   b.kernels().params),)
    assert b.deriv(0.0, x, u) == cont.pid_deriv_limited.py_func(0.0, x.tolist(), 0.7,
                                                                b.kernels().params)
