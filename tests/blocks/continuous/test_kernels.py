"""Compiled kernels of the continuous and discrete blocks against their interpreted methods.

For every block and its kernel variants (scalar, vector, matrix; limits active and inactive;
transfer-function orders 0 to 17; SISO and MIMO state space; filtered or not) the numba
kernels of ``block.kernels()`` are called like the compiled back-end calls them,
``kernel(t, x, u, params)``, at many (t, x, u) points (limits hit exactly, exceeded, pushed
against) and compared with the interpreted methods: exactly with the bound fast paths that do
the same floating-point operations in the same order, to ~1e-14 with the numpy references.
Also checked: outputs without feedthrough never read u, scalar kernels never allocate, params
have the contract's types, kernels are cached module-level numba functions, and a parameter
sweep reuses the compiled code.

Each kernel is compiled once per argument type (numba, ``cache=True``); the cases reuse types
so that a cold run (empty numba cache) stays short.
"""

from __future__ import annotations

import importlib
import math
import zlib

import numba
import numpy as np
import pytest
from numba.core.runtime import _nrt_python, rtsys

from blocksim.blocks.continuous import kernels as cont_kernels
from blocksim.blocks.continuous import pid as cont
from blocksim.blocks.continuous.calculus import Derivative, Integrator
from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.continuous.pid import PID
from blocksim.blocks.discrete import kernels as disc
from blocksim.blocks.discrete.calculus import DiscreteDerivative, DiscreteIntegrator
from blocksim.blocks.discrete.linear import DiscreteStateSpace, DiscreteTransferFunction
from blocksim.blocks.discrete.pid import DiscretePID
from blocksim.blocks.discrete.sample_hold import ZOH, RateTransition, UnitDelay
from blocksim.engine.compiled.kernels import Kernels, kernels_of

#: interpreted methods evaluated with numpy (other summation order than the kernels' loops):
#: compared to ~1e-14 only
NUMPY_METHODS = {"_deriv_np", "_out_np", "_out_ft_np", "_deriv_si", "_deriv_mi", "_out_so",
                 "_out_mo", "_update_si", "deriv", "output", "update"}
RTOL, ATOL = 1e-13, 1e-14


def state(values) -> np.ndarray:
    """``values`` as a float64 view into a larger array, like the engine's state slices."""
    v = np.asarray(values, dtype=float).reshape(-1)
    full = np.zeros(v.size + 4)
    full[2:2 + v.size] = v
    return full[2:2 + v.size]


def _rng_values(rng, shape, special):
    """Random values in [-3, 3], about a third of them taken from ``special``."""
    v = rng.uniform(-3.0, 3.0, shape)
    pick = rng.random(shape) < 0.35
    return np.where(pick, rng.choice(special, shape), v)


SPECIAL = np.array([-1.0, 1.0, 0.5, -0.1, 0.1, 0.3, 0.0, -0.2])


def points(block, rng, ushape, n=16):
    """``n`` (t, x, u) points; ``u`` a 1-tuple with a float or an array of ``ushape``."""
    out = []
    for _ in range(n):
        t = float(rng.uniform(0.0, 10.0))
        x = state(_rng_values(rng, block.nx, SPECIAL))
        if isinstance(block, DiscreteIntegrator):  # its state never leaves the limits
            x = state(np.clip(x, block._lower_v, block._upper_v))
        uv = _rng_values(rng, ushape, SPECIAL)
        u = (float(uv),) if ushape == () else (np.ascontiguousarray(uv),)
        out.append((t, x, u))
    return out


def nan_like(u):
    """An input of the same type as ``u`` made of NaN: a kernel that reads it returns NaN."""
    return (math.nan,) if isinstance(u[0], float) else (np.full_like(u[0], math.nan),)


def flat(v) -> np.ndarray:
    return np.asarray(v, dtype=float).reshape(-1)


def same_value(kv, iv, exact):
    """A kernel result ``kv`` equals the interpreted ``iv`` (type, shape and value)."""
    if isinstance(iv, float):
        assert type(kv) is float, f"kernel returned {type(kv).__name__} for a float signal"
        if exact:
            assert kv == iv or (math.isnan(kv) and math.isnan(iv))
        else:
            assert kv == pytest.approx(iv, rel=RTOL, abs=ATOL)
    else:
        assert isinstance(kv, np.ndarray) and kv.dtype == np.float64
        assert kv.shape == np.shape(iv)
        if exact:
            np.testing.assert_array_equal(kv, iv)
        else:
            np.testing.assert_allclose(kv, iv, rtol=RTOL, atol=ATOL)


def same_state(kv, iv, exact):
    """A kernel's deriv/update ``kv`` (tuple or 1-D array) equals the interpreted ``iv``."""
    assert isinstance(kv, (tuple, np.ndarray))
    if isinstance(kv, tuple):
        assert all(type(v) is float for v in kv)
    else:
        assert kv.ndim == 1 and kv.dtype == np.float64
    if exact:
        np.testing.assert_array_equal(flat(kv), flat(iv))
    else:
        np.testing.assert_allclose(flat(kv), flat(iv), rtol=RTOL, atol=ATOL)


def is_exact(bound) -> bool:
    return getattr(bound, "__name__", "") not in NUMPY_METHODS


# ================================================================== the cases
A3 = np.array([[-1.0, 0.5, 0.0], [0.2, -2.0, 1.0], [0.0, -0.3, -0.5]])
COMPANION_A = np.array([[-3.0, -2.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def _ss(n, m, p, with_d, seed, cls=StateSpace, **kw):
    rng = np.random.default_rng(seed)
    A, B, C = rng.normal(size=(n, n)), rng.normal(size=(n, m)), rng.normal(size=(p, n))
    D = rng.normal(size=(p, m)) if with_d else None
    return cls(A, B, C, D, **kw)


def _tf(n, biproper, seed, cls=TransferFunction, **kw):
    rng = np.random.default_rng(seed)
    den = np.concatenate([[1.0], rng.uniform(0.5, 2.0, n)])
    num = rng.uniform(-1.0, 1.0, n + 1 if biproper else max(n, 1))
    return cls(num, den, **kw)


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
@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_kernels_match_interpreted(name):
    b = CONTINUOUS[name]()
    k = b.kernels()
    assert isinstance(k, Kernels) and k.update is None and k.output is not None
    assert (k.deriv is None) == (b.nx == 0)
    strict = b.output_feedthrough()["y"] == ()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for t, x, u in points(b, rng, _input_shape(b, None)):
        y = k.output(t, x, *u, k.params)
        same_value(y, b.output(t, x, u)[0], is_exact(b.output))
        same_value(y, type(b).output(b, t, x, u)[0], exact=False)
        if strict:  # never reads u: the engine may call it before u is known
            same_value(k.output(t, x, *nan_like(u), k.params), y, exact=True)
        if b.nx:
            dx = k.deriv(t, x, *u, k.params)
            same_state(dx, b.deriv(t, x, u), is_exact(b.deriv))
            same_state(dx, type(b).deriv(b, t, x, u), exact=False)


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
ALL_BLOCKS = ([(n, m) for n, m in CONTINUOUS.items()]
              + [(n, m) for n, (m, _) in DISCRETE.items()])


def _kernel_functions(k: Kernels):
    return [f for f in (k.output, k.deriv, k.update) if f is not None]


def _param_ok(p) -> bool:
    if type(p) in (float, int, bool):
        return True
    return (isinstance(p, np.ndarray) and p.dtype == np.float64 and p.flags.c_contiguous
            and p.ndim >= 1)


@pytest.mark.parametrize(("name", "make"), ALL_BLOCKS, ids=[n for n, _ in ALL_BLOCKS])
def test_kernels_follow_the_contract(name, make):
    b = make()
    k = kernels_of(b)
    assert isinstance(k.params, tuple) and all(_param_ok(p) for p in k.params), k.params
    for f in _kernel_functions(k):
        assert isinstance(f, numba.core.registry.CPUDispatcher)
        module = importlib.import_module(f.py_func.__module__)
        assert module in (cont, cont_kernels, disc)
        assert getattr(module, f.__name__) is f  # module level, importable by name
        assert type(f._cache).__name__ == "FunctionCache"  # cache=True
    arrays = [p for p in k.params if isinstance(p, np.ndarray)]
    for a in arrays:  # params are copies: the kernels cannot alias the block's coefficients
        assert all(not np.shares_memory(a, v) for v in vars(b).values()
                   if isinstance(v, np.ndarray))


def _ushape(name, block):
    return _input_shape(block, DISCRETE[name][1] if name in DISCRETE else None)


def _is_scalar(name, make) -> bool:
    """Scalar input and output and float params: the kernels must not allocate."""
    b = make()
    return (_ushape(name, b) == () and b.outputs[0].shape in ((), None)
            and not any(isinstance(p, np.ndarray) for p in b.kernels().params))


SCALAR = [(n, m) for n, m in ALL_BLOCKS if _is_scalar(n, m)]


@pytest.fixture
def nrt_stats():
    was = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield
    if not was:
        _nrt_python.memsys_disable_stats()


def _allocations_per_call(f, args, calls=5):
    f(*args)
    before = rtsys.get_allocation_stats().alloc
    for _ in range(calls):
        f(*args)
    return (rtsys.get_allocation_stats().alloc - before) / calls


def test_the_scalar_paths_are_covered():
    names = {n for n, _ in SCALAR}
    for must in ("integrator-scalar", "integrator-scalar-limited", "tf-1-strict",
                 "tf-2-strict", "tf-3-biproper", "tf-4-strict", "ss-siso-4-d", "pid",
                 "pid-limited-band", "zoh-scalar", "unitdelay-scalar",
                 "dintegrator-backward-limited", "dtf-2-biproper", "dpid-filtered",
                 "dderivative-filtered"):
        assert must in names


@pytest.mark.parametrize(("name", "make"), SCALAR, ids=[n for n, _ in SCALAR])
def test_scalar_kernels_do_not_allocate(name, make, nrt_stats):
    b = make()
    k = b.kernels()
    ((t, x, u),) = points(b, np.random.default_rng(0), _ushape(name, b), n=1)
    args = (t, x, *u, k.params)
    for f in _kernel_functions(k):
        # calling from Python adapts the array argument x with one NRT allocation
        assert _allocations_per_call(f, args) == 1, f"{f.__name__} allocates"
        assert isinstance(f(*args), (float, tuple)), f.__name__


def test_parameter_sweep_reuses_the_compiled_code():
    pairs = [
        (PID(Kp=1.0, Ki=2.0, lower=-1.0, upper=1.0), PID(Kp=5.0, Ki=0.1, Kd=1.0, N=10.0,
                                                         upper=3.0, clamp_band=0.1)),
        (PID(Kp=1.0), PID(Kp=3.0, Ki=2.0, Kd=0.5)),
        (TransferFunction([1.0], [1.0, 2.0, 1.0]), TransferFunction([3.0], [2.0, 0.1, 5.0])),
        (TransferFunction([1.0], [1.0] + [0.5] * 8), TransferFunction([2.0], [1.0] + [0.3] * 8)),
        (Integrator(x0=[0.0, 0.0], upper=1.0), Integrator(x0=[0.5, 0.5], lower=-2.0)),
        (DiscretePID(1.0, 1.0, 1.0, clock=0.1), DiscretePID(2.0, 0.0, 0.5, clock=0.02, N=30.0,
                                                            lower=-1.0, upper=1.0)),
        (DiscreteIntegrator(0.1, "trapezoidal", lower=0.0), DiscreteIntegrator(
            0.2, "trapezoidal", K=3.0, upper=5.0)),
    ]
    for b1, b2 in pairs:
        k1, k2 = b1.kernels(), b2.kernels()
        assert _kernel_functions(k1) == _kernel_functions(k2)
        x = state(np.full(b1.nx, 0.25))
        u = 0.5 if b1.inputs[0].shape == () else np.full(b1.inputs[0].shape, 0.5)
        for f in _kernel_functions(k1):
            f(0.0, x, u, k1.params)
            n = len(f.signatures)
            f(0.0, x, u, k2.params)
            assert len(f.signatures) == n, f"{f.__name__} recompiled for new parameter values"


def test_interpreted_pid_uses_the_kernel_functions():
    """The numerics exist once: the interpreted PID and DiscretePID call the kernels' Python
    functions, so their results are those of the kernels' source."""
    b = PID(Kp=2.0, Ki=1.0, Kd=0.2, lower=-1.0, upper=1.0, clamp_band=0.1)
    x, u = state([0.3, -0.2]), (0.7,)
    assert b.output(0.0, x, u) == (cont.pid_output_limited.py_func(0.0, x.tolist(), 0.7,
                                                                   b.kernels().params),)
    assert b.deriv(0.0, x, u) == cont.pid_deriv_limited.py_func(0.0, x.tolist(), 0.7,
                                                                b.kernels().params)
    d = DiscretePID(2.0, 1.0, 0.2, clock=0.1, N=10.0)
    assert d.update(0.0, x, u) == disc.dpid_update.py_func(0.0, x.tolist(), 0.7,
                                                           d.kernels().params)
