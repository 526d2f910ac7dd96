"""The compiled kernels of the source blocks (and the time tables of :mod:`blocksim.blocks.lookup`)
against their interpreted outputs (checks in :mod:`tests.blocks.kernel_checks`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.blocks.lookup.tables import Interpolate, Piecewise
from blocksim.blocks.sources.signals import Constant, Ramp, Sine, Step, Time
from blocksim.blocks.sources.waveform import Waveform
from tests.blocks.kernel_checks import TIMES, check, kernel_output


# ---------------------------------------------------------------------------- sources
@pytest.mark.parametrize("block", [
    Constant(2.5), Constant([1.0, 2.0, 3.0]), Constant([[1.0, 2.0], [3.0, 4.0]]),
    Time(),
    Step(1.0), Step(1.0, before=-1.0, after=2.0), Step(1.0, before=[0.0, 1.0, 2.0], after=3.0),
    Ramp(0.75, 2.0, 1.0), Ramp(0.0, [1.0, -1.0, 0.5], 2.0),
    Sine(2.0, 1.5, 0.1, 0.5), Sine([1.0, 2.0, 3.0], 0.5, [0.0, 0.1, 0.2]),
    Waveform("square"), Waveform("square", 2.0, 0.75, 1.0, -0.5, duty=0.3),
    Waveform("square", [1.0, 2.0, 3.0], 1.0),
    Waveform("triangle"), Waveform("triangle", 1.5, 2.0, -0.4, 0.5),
    Waveform("triangle", [1.0, 2.0, 3.0], 1.0, bias=[0.0, 1.0, 2.0]),
    Waveform("sine", 2.0, 3.0, 1.0, 0.5), Waveform("sine", [1.0, 2.0, 3.0], 0.5),
    Piecewise([0.0, 1.0, 2.5], [3.0, -4.0, 5.0]), Piecewise([0.3, 1.0], [[1.0, 2.0, 3.0],
                                                                         [4.0, 5.0, 6.0]]),
    Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0], time=True),
    Interpolate([0.0, 1.0, 3.0], [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [3.0, 5.0, -1.0]],
                time=True),
    Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0], time=True, kind="previous"),
    Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0], time=True, kind="next"),
    Interpolate([0.0, 1.0, 3.0], [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [3.0, 5.0, -1.0]],
                time=True, kind="nearest"),
], ids=lambda b: f"{type(b).__name__}{tuple(b.params.values())}")
def test_time_sources(block):
    check(block, times=TIMES)


def test_sources_at_their_breakpoints():
    """Right limits at breakpoints: both back-ends switch at the same float."""
    for block in (Step(0.3), Ramp(0.3, 2.0), Piecewise([0.3, 1.0], [1.0, 2.0]),
                  Waveform("square", frequency=3.0, phase=0.1, duty=0.3),
                  Waveform("triangle", frequency=3.0, phase=0.1),
                  Interpolate([0.0, 0.3, 1.0], [1.0, 2.0, 0.0], time=True, kind="nearest")):
        t = 0.0
        for _ in range(6):
            t = block.next_breakpoint(t)
            if math.isinf(t):
                break
            check(block, times=(math.nextafter(t, -math.inf), t))


@pytest.mark.parametrize("kind", ["linear", "previous", "next", "nearest"])
def test_interpolate_input(kind):
    xs, ys = [0.0, 1.0, 2.5, 3.0], [1.0, -2.0, 0.5, 4.0]
    block = Interpolate(xs, ys, kind=kind)
    for s in (-1.0, 0.0, 0.4, 1.0, 1.75, 2.5, 2.75, 3.0, 9.0):
        check(block, (s,))
    check(block, (np.linspace(-1.0, 4.0, 3),))
    if kind == "linear":
        check(block, (np.linspace(-1.0, 4.0, 6).reshape(2, 3),))
        check(Interpolate(xs, [[y, -y, 2 * y] for y in ys], kind=kind), (1.75,))


def test_interpolate_kernel_gives_nan_for_nan():
    """(The interpreted block raises IndexError for a NaN input.)"""
    block = Interpolate([0.0, 1.0, 3.0], [0.0, 2.0, 3.0])
    assert math.isnan(kernel_output(block, 0.0, (math.nan,)))
