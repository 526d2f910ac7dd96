"""The block library. Every block is importable from here, e.g. ``from blocksim.blocks import
Gain``; the modules group them by family."""

from blocksim.blocks.arithmetic import Gain, Product, Sum
from blocksim.blocks.calculus import Derivative, Integrator
from blocksim.blocks.discrete_calculus import DiscreteDerivative, DiscreteIntegrator
from blocksim.blocks.discrete_linear import DiscreteStateSpace, DiscreteTransferFunction
from blocksim.blocks.discrete_pid import DiscretePID
from blocksim.blocks.discretization import discretize
from blocksim.blocks.events import HitCrossing, Stop
from blocksim.blocks.functions import Function, MathFunction
from blocksim.blocks.linear import StateSpace, TransferFunction
from blocksim.blocks.noise import BandLimitedWhiteNoise, RandomNumber
from blocksim.blocks.pid import PID
from blocksim.blocks.quantize import Quantizer
from blocksim.blocks.rate_limits import Backlash, RateLimiter
from blocksim.blocks.routing import Concatenate, Demux, Index, Mux, Reshape, Selector, Terminator
from blocksim.blocks.sample_hold import ZOH, RateTransition, UnitDelay
from blocksim.blocks.saturation import DeadZone, Saturation
from blocksim.blocks.second_order import SecondOrderIntegrator
from blocksim.blocks.signal_sources import Constant, Ramp, Sine, Step, Time
from blocksim.blocks.sinks import Record, Scope, XYGraph
from blocksim.blocks.switching import MinMax, Relay, Sign, Switch
from blocksim.blocks.tables import Interpolate, Piecewise
from blocksim.blocks.waveform import Waveform
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
