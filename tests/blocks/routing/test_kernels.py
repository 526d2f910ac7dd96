"""The compiled kernels of the routing blocks against their interpreted outputs (checks in
:mod:`tests.blocks.kernel_checks`).
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.blocks.math.arithmetic import Gain
from blocksim.blocks.routing.signal_routing import (
    Concatenate,
    Demux,
    Index,
    Mux,
    Reshape,
    Selector,
    Terminator,
)
from blocksim.blocks.sources.signals import Step
from tests.blocks.kernel_checks import (
    A,
    M,
    V,
    W,
    X,
    assert_same,
    check,
    check_python,
    kernel_output,
)


def _floats(n: int) -> tuple[float, ...]:
    return tuple(0.1 * 3.0 ** i - 1.0 / (i + 1.7) for i in range(n))


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
