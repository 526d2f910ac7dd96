"""What the multirotor blocks say of themselves: documented defaults equal to the code's, one
unit per gain in the block catalog, and messages that quote plain numbers."""

import inspect
import re

import numpy as np
import pytest

from blocksim.blocks.quadrotor import (
    AttitudeController,
    CameraMount,
    ControlMixer,
    MultiRotor,
    MultiRotorPlot,
    PositionController,
)
from blocksim.engine.errors import BlockParameterError
from blocksim.io.catalog import units_from_docstring
from blocksim.robotics.aerial import ATTITUDE_GAINS, POSITION_GAINS, MultirotorModel
from blocksim.robotics.aerial.model import shown


def documented_defaults(cls):
    """``{parameter: the numbers after "Default" in its docstring entry}``."""
    doc = inspect.cleandoc(cls.__doc__)
    section = doc.split("Parameters\n----------\n", 1)[1].split("\nInputs\n", 1)[0]
    out, name = {}, None
    for line in section.splitlines():
        m = re.match(r"^(\w+) : ", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif name is not None:
            out[name] += " " + line.strip()
    numbers = {}
    for k, text in out.items():
        m = re.search(r"Default \(([^)]*)\)", text)
        if m:
            numbers[k] = [float(v) for v in m.group(1).split(",")]
    return numbers


@pytest.mark.parametrize(
    "cls, gains", [(PositionController, POSITION_GAINS), (AttitudeController, ATTITUDE_GAINS)]
)
def test_documented_default_gains_are_the_code_defaults(cls, gains):
    doc = documented_defaults(cls)
    sig = inspect.signature(cls).parameters
    for k, v in gains.items():
        assert doc[k] == list(v), f"{cls.__name__}.{k}: docstring {doc[k]}, code {v}"
        np.testing.assert_array_equal(sig[k].default, v)


def test_each_position_gain_has_its_own_unit_in_the_catalog():
    units = units_from_docstring(PositionController.__doc__)
    assert units["Kp"] == "1/s^2" and units["Kd"] == "1/s" and units["Ki"] == "1/s^3"
    assert units["p0"] == "m" and units["xi0"] == "m s"


def test_the_documented_poles_are_the_default_gains():
    """Kp, Kd, Ki of a PID on a double integrator with a triple pole at -s: 3 s^2, 3 s, s^3."""
    for axis, s in ((0, 1.5), (1, 1.5), (2, 2.0)):
        got = [POSITION_GAINS[k][axis] for k in ("Kp", "Kd", "Ki")]
        assert got == pytest.approx([3 * s**2, 3 * s, s**3])
        poles = np.roots([1.0, got[1], got[0], got[2]])
        np.testing.assert_allclose(poles.real, -s, atol=1e-4)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PositionController(max_tilt=np.float64(2.0)),
        lambda: PositionController(Kp=np.float32(np.nan)),
        lambda: PositionController(p0=np.array([1.0, 2.0])),
        lambda: MultiRotor(M=np.float64(-0.5)),
        lambda: MultiRotor(x0=np.arange(5.0)),
        lambda: MultiRotor(wind=np.array([np.nan, 0.0, 0.0])),
        lambda: ControlMixer(wmin=np.float64(5.0), wmax=np.float32(1.0)),
        lambda: CameraMount(mount=np.eye(3)),
        lambda: MultiRotorPlot(scale=np.float64(-1.0)),
        lambda: MultirotorModel(M=np.float64(-0.5)),
        lambda: MultirotorModel(nrotors=np.int64(5)),
        lambda: MultirotorModel(h=np.float64(np.inf)),
    ],
)
def test_messages_quote_plain_numbers(make):
    with pytest.raises((BlockParameterError, ValueError)) as exc:
        make()
    msg = str(exc.value)
    assert "np." not in msg and "array(" not in msg and "float32" not in msg, msg


def test_shown_is_plain_and_short():
    assert shown(np.float64(-0.5)) == "-0.5"
    assert shown([np.float64(1.0), np.int64(2)]) == "[1.0, 2]"
    assert shown({"M": np.float32(4.0)}) == "{'M': 4.0}"
    assert shown(np.zeros((100, 100))) == "an array of shape (100, 100)"
    assert len(shown(list(range(1000)))) == 200
