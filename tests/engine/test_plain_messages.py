"""Error messages show numbers as the user wrote them: ``-0.5``, never numpy 2's
``np.float64(-0.5)`` (a value read from an array, or computed with numpy, is a numpy scalar)."""

import numpy as np
import pytest

from blocksim import Clock
from blocksim.blocks import DiscreteIntegrator, Integrator, Saturation, Step, Waveform
from blocksim.engine.errors import BlocksimError, plain
from blocksim.robotics.arm import Link
from blocksim.robotics.trajectory import lspb


@pytest.mark.parametrize("value,text", [
    (np.float64(-0.5), "-0.5"), (np.int64(3), "3"), (np.float32(0.5), "0.5"),
    (np.array(2.5), "2.5"), (np.array([1.0, np.nan]), "[1.0, nan]"),
    ((np.int64(1), np.float64(-1.5)), "(1, -1.5)"), (123456789.0, "123456789.0"),
    ("fast", "'fast'"), (np.bool_(True), "True"), (None, "None"),
])
def test_plain_shows_values_as_written(value, text):
    assert plain(value) == text


def test_plain_shortens_a_long_value():
    text = plain(np.arange(1000.0))
    assert len(text) == 80 and text.endswith("...")


@pytest.mark.parametrize("make,words", [
    (lambda: Clock(np.float64(-0.5)), "-0.5"),
    (lambda: Saturation(lower=np.float64(1.0), upper=np.float64(-1.0)),
     "lower=1.0, upper=-1.0"),
    (lambda: Integrator(x0=np.float64(2.0), lower=np.float64(-1.0), upper=np.float64(1.0)),
     "x0=2.0"),
    (lambda: DiscreteIntegrator(clock=0.1, x0=np.float64(2.0), lower=np.float64(-1.0),
                                upper=np.float64(1.0)), "[-1.0, 1.0]"),
    (lambda: Waveform(frequency=np.float64(-0.5)), "got -0.5"),
    (lambda: Step(time=np.float64(np.nan)), "nan"),
    (lambda: Link(d=np.float64(1.0), qlim=[np.float64(1.0), np.float64(-1.0)]), "[1.0, -1.0]"),
    (lambda: lspb(0.0, 1.0, np.float64(-0.5)), "-0.5"),
])
def test_errors_built_from_numpy_values_print_plain_numbers(make, words):
    with pytest.raises((BlocksimError, ValueError, TypeError)) as info:
        make()
    message = str(info.value)
    assert "np." not in message and "array(" not in message, message
    assert words in message, message
