"""Shared checks of the kernel tests of the continuous and discrete blocks (stateful kernels).

The kernels of ``block.kernels()`` are called like the compiled back-end calls them,
``kernel(t, x, u, params)``, at many (t, x, u) points and compared with the interpreted methods:
exactly with the bound fast paths that do the same floating-point operations in the same order,
to ~1e-14 with the numpy references. Also: the params have the contract's types, the kernels
are cached module-level numba functions, and scalar kernels never allocate.
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType

import numba
import numpy as np
import pytest
from numba.core.runtime import rtsys

from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.discrete.calculus import DiscreteIntegrator
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
    """Whether the bound interpreted method is a fast path held bitwise equal to the kernel."""
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



def kernel_functions(k: Kernels) -> list:
    return [f for f in (k.output, k.deriv, k.update) if f is not None]


def param_ok(p) -> bool:
    if type(p) in (float, int, bool):
        return True
    return (isinstance(p, np.ndarray) and p.dtype == np.float64 and p.flags.c_contiguous
            and p.ndim >= 1)


def check_contract(b, modules: tuple[ModuleType, ...]) -> None:
    """Params of the contract's types, copied; kernels cached, module level in ``modules``."""
    k = kernels_of(b)
    assert isinstance(k.params, tuple) and all(param_ok(p) for p in k.params), k.params
    for f in kernel_functions(k):
        assert isinstance(f, numba.core.registry.CPUDispatcher)
        module = importlib.import_module(f.py_func.__module__)
        assert module in modules
        assert getattr(module, f.__name__) is f  # module level, importable by name
        assert type(f._cache).__name__ == "FunctionCache"  # cache=True
    arrays = [p for p in k.params if isinstance(p, np.ndarray)]
    for a in arrays:  # params are copies: the kernels cannot alias the block's coefficients
        assert all(not np.shares_memory(a, v) for v in vars(b).values()
                   if isinstance(v, np.ndarray))


def is_scalar(b, ushape) -> bool:
    """Scalar input and output and float params: the kernels must not allocate."""
    return (ushape == () and b.outputs[0].shape in ((), None)
            and not any(isinstance(p, np.ndarray) for p in b.kernels().params))


def allocations_per_call(f, args, calls=5):
    f(*args)
    before = rtsys.get_allocation_stats().alloc
    for _ in range(calls):
        f(*args)
    return (rtsys.get_allocation_stats().alloc - before) / calls


def check_no_allocation(b, ushape) -> None:
    """Every kernel of ``b`` returns floats or a tuple and allocates nothing (needs NRT stats
    enabled: the ``nrt_stats`` fixture of ``tests/blocks/conftest.py``)."""
    k = b.kernels()
    ((t, x, u),) = points(b, np.random.default_rng(0), ushape, n=1)
    args = (t, x, *u, k.params)
    for f in kernel_functions(k):
        # calling from Python adapts the array argument x with one NRT allocation
        assert allocations_per_call(f, args) == 1, f"{f.__name__} allocates"
        assert isinstance(f(*args), (float, tuple)), f.__name__

