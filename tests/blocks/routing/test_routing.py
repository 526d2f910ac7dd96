"""Tests of the routing blocks: Mux, Demux, Selector (Index), Concatenate, Reshape, Terminator.

Block methods are called directly (values, shapes, types, no aliasing of inputs, feedthrough,
bad parameters); at the end a diagram routes signals through all of them.
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks.routing.signal_routing import (
    Concatenate,
    Demux,
    Index,
    Mux,
    Reshape,
    Selector,
    Terminator,
)
from blocksim.blocks.sources.signals import Constant, Time
from blocksim.engine.errors import BlockParameterError

X = np.zeros(0)


def outs(block, *u):
    y = block.output(0.0, X, u)
    assert isinstance(y, tuple) and len(y) == len(block.outputs)
    return y


def out(block, *u):
    (y,) = outs(block, *u)
    return y


def names(ports) -> list[str]:
    return [p.name for p in ports]


# ---------------------------------------------------------------------------- Mux
def test_mux_scalars():
    m = Mux()
    assert names(m.inputs) == ["u0", "u1"] and names(m.outputs) == ["y"]
    y = out(m, 1.0, 2.0)
    np.testing.assert_array_equal(y, [1.0, 2.0])
    assert isinstance(y, np.ndarray) and y.dtype == np.float64 and y.shape == (2,)
    assert m.output_feedthrough() == {"y": ("u0", "u1")}


def test_mux_mixed_and_single():
    a = np.array([2.0, 3.0])
    y = out(Mux(3), 1.0, a, np.array([4.0]))
    np.testing.assert_array_equal(y, [1.0, 2.0, 3.0, 4.0])
    y[1] = 99.0
    assert a[0] == 2.0  # no aliasing
    one = Mux(1)
    assert names(one.inputs) == ["u"]
    np.testing.assert_array_equal(out(one, 5.0), [5.0])
    np.testing.assert_array_equal(out(Mux(2), np.int64(3), a), [3.0, 2.0, 3.0])


def test_mux_refuses_matrices():
    with pytest.raises(ValueError, match=r"Mux: input 'u1' has shape \(2, 2\); Mux stacks "
                                         r"scalars and vectors only"):
        out(Mux(), 1.0, np.eye(2))


@pytest.mark.parametrize("nin", [0, -1, 1.5, "2", True, None])
def test_mux_errors(nin):
    with pytest.raises(BlockParameterError, match=r"Mux: parameter 'nin' must be an integer "
                                                  r">= 1, got"):
        Mux(nin)


# ---------------------------------------------------------------------------- Demux
def test_demux_into_scalars():
    d = Demux(3)
    assert names(d.inputs) == ["u"] and names(d.outputs) == ["y0", "y1", "y2"]
    y = outs(d, np.array([1.0, 2.0, 3.0]))
    assert y == (1.0, 2.0, 3.0) and all(type(v) is float for v in y)
    assert d.output_feedthrough() == {"y0": ("u",), "y1": ("u",), "y2": ("u",)}


def test_demux_equal_parts():
    u = np.arange(6.0)
    y0, y1 = outs(Demux(2), u)
    np.testing.assert_array_equal(y0, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(y1, [3.0, 4.0, 5.0])
    y0[0] = 99.0
    assert u[0] == 0.0  # parts are copies
    with pytest.raises(ValueError, match=r"Demux: input 'u' has 5 element\(s\), not a multiple "
                                         r"of nout=2"):
        outs(Demux(2), np.arange(5.0))


def test_demux_widths():
    d = Demux([2, 1, 3])
    assert names(d.outputs) == ["y0", "y1", "y2"]
    y0, y1, y2 = outs(d, np.arange(6.0))
    np.testing.assert_array_equal(y0, [0.0, 1.0])
    assert y1 == 2.0 and type(y1) is float  # width 1: a scalar
    np.testing.assert_array_equal(y2, [3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match=r"Demux: input 'u' has 5 element\(s\) but the widths "
                                         r"\[2, 1, 3\] sum to 6"):
        outs(d, np.arange(5.0))
    one = Demux(1)
    assert names(one.outputs) == ["y"] and outs(one, 4.0) == (4.0,)
    np.testing.assert_array_equal(outs(Demux((4,)), np.arange(4.0))[0], np.arange(4.0))
    with pytest.raises(ValueError, match=r"Demux: input 'u' must be a vector, got shape \(2, 2\)"):
        outs(Demux(2), np.eye(2))


@pytest.mark.parametrize("nout", [0, [], [2, 0], [1.5], "3", None, [True]])
def test_demux_errors(nout):
    with pytest.raises(BlockParameterError, match=r"Demux: parameter 'nout' must be an "
                                                  r"integer >= 1"):
        Demux(nout)


# ---------------------------------------------------------------------------- Selector
def test_selector_int_list_slice():
    u = np.array([10.0, 11.0, 12.0, 13.0])
    y = out(Selector(2), u)
    assert y == 12.0 and type(y) is float
    assert out(Selector(-1), u) == 13.0
    np.testing.assert_array_equal(out(Selector([3, 0, 0]), u), [13.0, 10.0, 10.0])
    np.testing.assert_array_equal(out(Selector(np.array([1, 2])), u), [11.0, 12.0])
    s = out(Selector(slice(1, None)), u)
    np.testing.assert_array_equal(s, [11.0, 12.0, 13.0])
    s[0] = 99.0
    assert u[1] == 11.0  # a copy, not a view
    np.testing.assert_array_equal(out(Selector(slice(None, None, -2)), u), [13.0, 11.0])
    assert out(Selector(0), 5.0) == 5.0  # a float is a one-element vector
    np.testing.assert_array_equal(out(Selector([0]), 5.0), [5.0])
    np.testing.assert_array_equal(out(Selector(1), np.eye(2)), [0.0, 1.0])  # a matrix row
    sel = Selector(0)
    assert names(sel.inputs) == ["u"] and sel.output_feedthrough() == {"y": ("u",)}


def test_index_is_selector():
    assert Index is Selector
    assert out(Index(1), np.array([1.0, 2.0])) == 2.0


def test_selector_out_of_range():
    with pytest.raises(IndexError, match=r"Selector: index 4 is out of range for an input of 3 "
                                         r"element\(s\) \(indices are 0-based\)"):
        out(Selector(4), np.zeros(3))
    with pytest.raises(IndexError, match=r"Selector: index \[0, 3\] is out of range"):
        out(Selector([0, 3]), np.zeros(3))


@pytest.mark.parametrize("index, match", [
    (1.0, r"Selector: parameter 'index' must be an int, a non-empty sequence of ints or a slice, "
          r"got 1.0"),
    ([], r"Selector: parameter 'index' must be"),
    ([0, 1.5], r"Selector: parameter 'index' must be"),
    ("0", r"Selector: parameter 'index' must be"),
    (True, r"Selector: parameter 'index' must be"),
    (slice(0.5, 2), r"Selector: a slice 'index' needs integer \(or None\) start, stop"),
    (slice(0, 2, 0), r"Selector: a slice 'index' needs .* non-zero step"),
])
def test_selector_errors(index, match):
    with pytest.raises(BlockParameterError, match=match):
        Selector(index)


# ---------------------------------------------------------------------------- Concatenate
def test_concatenate():
    c = Concatenate()
    assert names(c.inputs) == ["u0", "u1"]
    np.testing.assert_array_equal(out(c, np.array([1.0, 2.0]), 3.0), [1.0, 2.0, 3.0])
    m = out(Concatenate(2, axis=1), np.eye(2), np.ones((2, 1)))
    np.testing.assert_array_equal(m, [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    rows = out(Concatenate(3, axis=0), np.eye(2), np.ones((1, 2)), np.zeros((1, 2)))
    assert rows.shape == (4, 2) and rows.dtype == np.float64
    assert out(Concatenate(2, axis=-1), np.ones((2, 1)), np.ones((2, 2))).shape == (2, 3)
    a = np.array([1.0])
    y = out(Concatenate(1), a)
    y[0] = 5.0
    assert a[0] == 1.0
    assert c.output_feedthrough() == {"y": ("u0", "u1")}
    with pytest.raises(ValueError, match=r"Concatenate: cannot join inputs of shapes \(2, 2\), "
                                         r"\(3, 3\) along axis 1"):
        out(Concatenate(2, axis=1), np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match=r"Concatenate: cannot join .* along axis 2"):
        out(Concatenate(2, axis=2), np.eye(2), np.eye(2))


@pytest.mark.parametrize("kwargs, match", [
    (dict(nin=0), r"Concatenate: parameter 'nin' must be an integer >= 1, got 0"),
    (dict(axis=0.0), r"Concatenate: parameter 'axis' must be an integer, got 0.0"),
    (dict(axis=None), r"Concatenate: parameter 'axis' must be an integer, got None"),
])
def test_concatenate_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Concatenate(**kwargs)


# ---------------------------------------------------------------------------- Reshape
def test_reshape():
    u = np.arange(6.0)
    y = out(Reshape((2, 3)), u)
    np.testing.assert_array_equal(y, [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    y[0, 0] = 99.0
    assert u[0] == 0.0  # not a view
    np.testing.assert_array_equal(out(Reshape(-1), np.eye(2)), [1.0, 0.0, 0.0, 1.0])
    assert out(Reshape((3, -1)), u).shape == (3, 2)
    np.testing.assert_array_equal(out(Reshape((1,)), 4.0), [4.0])
    s = out(Reshape(()), np.array([7.0]))
    assert s == 7.0 and type(s) is float
    assert Reshape().params == {"shape": -1}
    with pytest.raises(ValueError, match=r"Reshape: cannot reshape an input of shape \(6,\) "
                                         r"\(6 elements\) to \(4, -1\)"):
        out(Reshape((4, -1)), u)


@pytest.mark.parametrize("shape", [0, (2, 0), (-1, -1), (2.0, 3), "23", None, (-2, 3)])
def test_reshape_errors(shape):
    with pytest.raises(BlockParameterError, match=r"Reshape: parameter 'shape' must be an int "
                                                  r"or a tuple of ints >= 1, with at most one "
                                                  r"-1, got"):
        Reshape(shape)


# ---------------------------------------------------------------------------- Terminator
def test_terminator():
    t = Terminator()
    assert names(t.inputs) == ["u"] and t.outputs == ()
    assert t.output(0.0, X, (np.ones(3),)) == ()
    assert t.output_feedthrough() == {}
    assert t.nx == 0
    with pytest.raises(BlockParameterError, match=r"Terminator: unknown parameter 'n'"):
        Terminator(n=1)


# ---------------------------------------------------------------------------- in a diagram
def test_routing_in_a_diagram():
    d = Diagram("routing")
    d.add(Time(), "t")
    d.add(Constant([10.0, 20.0]), "c")
    d.add(Mux(2), "mux")  # [t, 10, 20]
    d.add(Selector([2, 0]), "sel")  # [20, t]
    d.add(Demux(2), "dm")  # 20, t
    d.add(Concatenate(2), "cat")  # [20, t, t]
    d.add(Reshape((3, 1)), "col")
    d.add(Terminator(), "sink")
    d.connect("t", "mux.u0", "cat.u1")
    d.connect("c", "mux.u1")
    d.connect("mux", "sel")
    d.connect("sel", "dm", "cat.u0")
    d.connect("dm.y0", "sink")
    d.connect("cat", "col")
    r = simulate(d, 1.0, record_dt=0.25)
    t = r.t
    np.testing.assert_allclose(t, [0.0, 0.25, 0.5, 0.75, 1.0])
    assert r["mux.y"].shape == (5, 3) and r["col.y"].shape == (5, 3, 1)
    np.testing.assert_allclose(r["mux.y"][:, 0], t)
    np.testing.assert_allclose(r["dm.y1"], t)
    np.testing.assert_allclose(r["dm.y0"], 20.0)
    np.testing.assert_allclose(r["col.y"][:, :, 0], np.column_stack([np.full(5, 20.0), t, t]))
