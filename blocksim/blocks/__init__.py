"""The block library. Every block is importable from here, e.g. ``from blocksim.blocks import
Gain``; the subpackages group them by family, each block's compiled kernels beside it:
:mod:`~blocksim.blocks.sources`, :mod:`~blocksim.blocks.sinks`,
:mod:`~blocksim.blocks.continuous`, :mod:`~blocksim.blocks.discrete`,
:mod:`~blocksim.blocks.math`, :mod:`~blocksim.blocks.routing`,
:mod:`~blocksim.blocks.nonlinear`, :mod:`~blocksim.blocks.lookup`,
:mod:`~blocksim.blocks.events`; and, imported on their own because they load the robotics
core, :mod:`blocksim.blocks.arm` and :mod:`blocksim.blocks.vision`. Writing a block of your
own: ``docs/writing-blocks.md``."""

# The blocks are imported on first use (PEP 562): ``from blocksim.blocks import Gain`` imports
# the math family only, so a diagram file of a few general blocks loads in a new process without
# importing (and defining the numba kernels of) the other families; ``dir()``, ``__all__`` and
# ``from blocksim.blocks import *`` still see every block.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from blocksim.blocks.lookup import BagSource, Interpolate, Piecewise
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
    from blocksim.blocks.routing import (
        Concatenate,
        Demux,
        Index,
        Mux,
        Reshape,
        Selector,
        Terminator,
    )
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

#: name -> the module that defines it (a family package, or the engine for the subsystem ports)
_EXPORTS: dict[str, str] = {
    "Derivative": "blocksim.blocks.continuous",
    "Integrator": "blocksim.blocks.continuous",
    "PID": "blocksim.blocks.continuous",
    "SecondOrderIntegrator": "blocksim.blocks.continuous",
    "StateSpace": "blocksim.blocks.continuous",
    "TransferFunction": "blocksim.blocks.continuous",
    "DiscreteDerivative": "blocksim.blocks.discrete",
    "DiscreteIntegrator": "blocksim.blocks.discrete",
    "DiscretePID": "blocksim.blocks.discrete",
    "DiscreteStateSpace": "blocksim.blocks.discrete",
    "DiscreteTransferFunction": "blocksim.blocks.discrete",
    "RateTransition": "blocksim.blocks.discrete",
    "UnitDelay": "blocksim.blocks.discrete",
    "ZOH": "blocksim.blocks.discrete",
    "discretize": "blocksim.blocks.discrete",
    "HitCrossing": "blocksim.blocks.events",
    "Stop": "blocksim.blocks.events",
    "BagSource": "blocksim.blocks.lookup",
    "Interpolate": "blocksim.blocks.lookup",
    "Piecewise": "blocksim.blocks.lookup",
    "Function": "blocksim.blocks.math",
    "Gain": "blocksim.blocks.math",
    "MathFunction": "blocksim.blocks.math",
    "Product": "blocksim.blocks.math",
    "Sum": "blocksim.blocks.math",
    "Backlash": "blocksim.blocks.nonlinear",
    "DeadZone": "blocksim.blocks.nonlinear",
    "MinMax": "blocksim.blocks.nonlinear",
    "Quantizer": "blocksim.blocks.nonlinear",
    "RateLimiter": "blocksim.blocks.nonlinear",
    "Relay": "blocksim.blocks.nonlinear",
    "Saturation": "blocksim.blocks.nonlinear",
    "Sign": "blocksim.blocks.nonlinear",
    "Switch": "blocksim.blocks.nonlinear",
    "Concatenate": "blocksim.blocks.routing",
    "Demux": "blocksim.blocks.routing",
    "Index": "blocksim.blocks.routing",
    "Mux": "blocksim.blocks.routing",
    "Reshape": "blocksim.blocks.routing",
    "Selector": "blocksim.blocks.routing",
    "Terminator": "blocksim.blocks.routing",
    "Record": "blocksim.blocks.sinks",
    "Scope": "blocksim.blocks.sinks",
    "XYGraph": "blocksim.blocks.sinks",
    "BandLimitedWhiteNoise": "blocksim.blocks.sources",
    "Constant": "blocksim.blocks.sources",
    "Ramp": "blocksim.blocks.sources",
    "RandomNumber": "blocksim.blocks.sources",
    "Sine": "blocksim.blocks.sources",
    "Step": "blocksim.blocks.sources",
    "Time": "blocksim.blocks.sources",
    "Waveform": "blocksim.blocks.sources",
    "Inport": "blocksim.engine.subsystem",
    "Outport": "blocksim.engine.subsystem",
    "Subsystem": "blocksim.engine.subsystem",
}

#: the family subpackages, reachable as attributes (``blocksim.blocks.math``) like before
_FAMILIES = (
    "continuous",
    "discrete",
    "events",
    "lookup",
    "math",
    "nonlinear",
    "routing",
    "sinks",
    "sources",
)

__all__ = [
    "PID",
    "ZOH",
    "Backlash",
    "BagSource",
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


def __getattr__(name: str) -> Any:
    """A block (or ``discretize``, or a family subpackage) on first access: imports its family
    only; raises AttributeError for any other name."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _FAMILIES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # next time a plain module attribute
    return value


def __dir__() -> list[str]:
    """Every block and family, imported or not."""
    return sorted({*globals(), *__all__, *_FAMILIES})
