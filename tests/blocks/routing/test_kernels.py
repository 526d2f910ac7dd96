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
    kernel_output,
)


def _floats(n: int) -> tuple[float, ...]:
    return tuple(0.1 * 3.0 ** i - 1.0 / (i + 1.7) for i in range(n))


# ---------------------------------------------------------------------------- routing
@pytest.mark.parametrize("nin, u", [(1, (V,)), (2, (1.0, 2.0)), (3, (1.0, V, -2.0))])
def test_mux(nin, u):
    check(Mux(nin), u)


@pytest.mark.parametrize("n", [1, 2, 7, 16])
def test_mux_and_demux_any_arity(n):
    check(Mux(n), _floats(n))
    check(Mux(n), tuple(V * i if i % 2 else float(i) for i in range(n)))
    check(Demux(n), (np.arange(float(n)),))
    check(Demux([2] * n), (np.arange(2.0 * n),))
    check(Demux([1, 2] * n), (np.arange(3.0 * n),))


def test_one_kernel_per_block_whatever_the_arity():
    for make in (Mux, Demux, Concatenate):
        assert len({make(n).kernels().output for n in (1, 2, 13, 20)}) == 1


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


@pytest.mark.parametrize("n", [1, 3, 10])
def test_concatenate_any_arity(n):
    check(Concatenate(n), tuple(V * i for i in range(n)))
    check(Concatenate(n, axis=1), tuple(M * i for i in range(n)))


# ---------------------------------------------------------------------------- routes
def _apply_routes(routes, u, shapes):
    """What the code generator does with routes: pieces of the flattened inputs, joined and
    reshaped to each output's shape."""
    out = []
    for pieces, shape in zip(routes, shapes, strict=True):
        flat = [np.ravel(np.asarray(u[port], dtype=float)) if idx is None
                else np.ravel(np.asarray(u[port], dtype=float))[list(idx)]
                for port, idx in pieces]
        y = np.concatenate(flat).reshape(shape)
        out.append(float(y) if shape == () else y)
    return out


@pytest.mark.parametrize("block, u", [
    (Mux(1), (V,)), (Mux(3), (1.0, V, -2.0)), (Mux(16), tuple(float(i) for i in range(16))),
    (Demux(3), (V,)), (Demux([1, 2]), (V,)), (Demux(16), (np.arange(16.0),)),
    (Demux([2, 1, 3]), (np.arange(6.0),)),
    (Selector(0), (V,)), (Selector(2), (V,)), (Selector([2, 0, 2]), (V,)), (Selector(0), (2.5,)),
    (Concatenate(2), (1.0, V)), (Concatenate(3), (M, M, M)), (Concatenate(10), (V,) * 10),
    (Reshape(-1), (M,)), (Reshape((3, 2)), (M,)), (Reshape(()), (np.array([2.5]),)),
    (Reshape((1,)), (2.5,)),
])
def test_routes_give_the_interpreted_outputs(block, u):
    k = block.kernels()
    assert k.params == () or k.output is not None
    expected = block.output(0.0, X, u)
    shapes = [np.shape(e) for e in expected]
    got = _apply_routes(k.routes, u, shapes)
    for g, e in zip(got, expected, strict=True):
        assert type(g) is type(e)
        np.testing.assert_array_equal(g, e)


def test_routes_format():
    """One entry per output port; pieces (input port, None or a tuple of ints >= 0)."""
    for block in (Mux(4), Demux([1, 3]), Selector([1, 0]), Concatenate(3), Reshape((2, 2))):
        routes = block.kernels().routes
        assert isinstance(routes, tuple) and len(routes) == len(block.outputs)
        for pieces in routes:
            for port, idx in pieces:
                assert 0 <= port < len(block.inputs)
                assert idx is None or (isinstance(idx, tuple)
                                       and all(type(i) is int and i >= 0 for i in idx))


def test_no_routes_where_they_depend_on_the_input_shape():
    for block in (Selector(-1), Selector([0, -1]), Selector(slice(1, None)),
                  Concatenate(2, axis=1), Concatenate(2, axis=-1)):
        k = block.kernels()
        assert k.routes is None and k.output is not None


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
