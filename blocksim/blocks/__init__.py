"""The block library. Every block is importable from here, e.g. ``from blocksim.blocks import
Gain``; the modules group them by family."""

from blocksim.blocks.continuous import PID, Derivative, Integrator, StateSpace, TransferFunction
from blocksim.blocks.math import Function, Gain, MathFunction, Product, Sum
from blocksim.blocks.sinks import Record, Scope, XYGraph
from blocksim.blocks.sources import (
    Constant,
    Interpolate,
    Piecewise,
    Ramp,
    Sine,
    Step,
    Time,
    Waveform,
)

__all__ = [
    "PID",
    "Constant",
    "Derivative",
    "Function",
    "Gain",
    "Integrator",
    "Interpolate",
    "MathFunction",
    "Piecewise",
    "Product",
    "Ramp",
    "Record",
    "Scope",
    "Sine",
    "StateSpace",
    "Step",
    "Sum",
    "Time",
    "TransferFunction",
    "Waveform",
    "XYGraph",
]
