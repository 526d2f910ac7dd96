"""Routing blocks of any arity, compiled vs interpreted back-end (kernels or routes)."""

from __future__ import annotations

import numpy as np

from blocksim import Diagram
from blocksim.blocks import Concatenate, Constant, Demux, Integrator, Mux, Reshape, Selector, Sine
from tests.blocks.backends import assert_backends_agree


def test_mux_16_demux_16_concatenate_10():
    """The routed signals bitwise; the integrators' states to 1e-15 (the two back-ends' RK4
    steps may round differently in the last bit)."""
    d = Diagram("routing")
    mux = d.add(Mux(16), name="mux")
    for i in range(16):
        s = d.add(Sine(amplitude=1.0 + i, frequency=0.2 + 0.1 * i), name=f"s{i}")
        d.connect(s, mux[f"u{i}"])
    demux = d.add(Demux(16), name="demux")
    d.connect(mux, demux)
    for i in range(16):
        x = d.add(Integrator(), name=f"x{i}")
        d.connect(demux[f"y{i}"], x)
    cat = d.add(Concatenate(10), name="cat")
    for i in range(10):
        c = d.add(Constant(np.arange(3.0) + i) if i % 2 else Constant(float(i)), name=f"c{i}")
        d.connect(c, cat[f"u{i}"])
    parts = d.add(Demux([3, 5, 7, 5]), name="parts")  # 5 floats and 5 vectors of 3
    d.connect(cat, parts)
    pick = d.add(Selector([4, 0, 2]), name="pick")
    d.connect(mux, pick)
    flat = d.add(Reshape((2, 8)), name="flat")
    d.connect(mux, flat)
    xs = d.add(Integrator(x0=np.zeros(3)), name="xs")
    d.connect(pick, xs)
    states = {f"x{i}.y": 1e-15 for i in range(16)} | {"xs.y": 1e-15}
    assert_backends_agree(d, close=states, state_rtol=1e-15)
