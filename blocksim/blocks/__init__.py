"""The block library. Every block is importable from here, e.g. ``from blocksim.blocks import
Gain``; the subpackages group them by family, each block's compiled kernels beside it:
:mod:`~blocksim.blocks.sources`, :mod:`~blocksim.blocks.sinks`,
:mod:`~blocksim.blocks.continuous`, :mod:`~blocksim.blocks.discrete`,
:mod:`~blocksim.blocks.math`, :mod:`~blocksim.blocks.routing`,
:mod:`~blocksim.blocks.nonlinear`, :mod:`~blocksim.blocks.lookup`,
:mod:`~blocksim.blocks.events`; and, imported on their own because they load the robotics
core, :mod:`blocksim.blocks.arm` and :mod:`blocksim.blocks.vision`. Writing a block of your
own: ``docs/writing-blocks.md``."""

from blocksim.blocks.continuous import (
    PID,
    Derivative,
    Integrator,
    SecondOrderIntegrator,
    StateSpace,
    TransferFunction,
)
from blocksim.blocks.discrete import (
    ZOH,
    DiscreteDerivative,
    DiscreteIntegrator,
    DiscretePID,
    DiscreteStateSpace,
    DiscreteTransferFunction,
    RateTransition,
    UnitDelay,
    discretize,
)
from blocksim.blocks.events import HitCrossing, Stop
from blocksim.blocks.lookup import Interpolate, Piecewise
from blocksim.blocks.math import Function, Gain, MathFunction, Product, Sum
from blocksim.blocks.nonlinear import (
    Backlash,
    DeadZone,
    MinMax,
    Quantizer,
    RateLimiter,
    Relay,
    Saturation,
    Sign,
    Switch,
)
from blocksim.blocks.routing import Concatenate, Demux, Index, Mux, Reshape, Selector, Terminator
from blocksim.blocks.sinks import Record, Scope, XYGraph
from blocksim.blocks.sources import (
    BandLimitedWhiteNoise,
    Constant,
    Ramp,
    RandomNumber,
    Sine,
    Step,
    Time,
    Waveform,
)
from blocksim.engine.subsystem import Inport, Outport, Subsystem

__all__ = [
    "PID",
    "ZOH",
    "Backlash",
    "BandLimitedWhiteNoise",
    "Concatenate",
    "Constant",
    "DeadZone",
    "Demux",
    "Derivative",
    "DiscreteDerivative",
    "DiscreteIntegrator",
    "DiscretePID",
    "DiscreteStateSpace",
    "DiscreteTransferFunction",
    "Function",
    "Gain",
    "HitCrossing",
    "Index",
    "Inport",
    "Integrator",
    "Interpolate",
    "MathFunction",
    "MinMax",
    "Mux",
    "Outport",
    "Piecewise",
    "Product",
    "Quantizer",
    "Ramp",
    "RandomNumber",
    "RateLimiter",
    "RateTransition",
    "Record",
    "Relay",
    "Reshape",
    "Saturation",
    "Scope",
    "SecondOrderIntegrator",
    "Selector",
    "Sign",
    "Sine",
    "StateSpace",
    "Step",
    "Stop",
    "Subsystem",
    "Sum",
    "Switch",
    "Terminator",
    "Time",
    "TransferFunction",
    "UnitDelay",
    "Waveform",
    "XYGraph",
    "discretize",
]
