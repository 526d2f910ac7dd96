"""Source blocks, re-exported from the modules that define them (kept so that existing
``from blocksim.blocks.sources import ...`` lines work): :mod:`blocksim.blocks.signal_sources`
(:class:`Constant`, :class:`Time`, :class:`Step`, :class:`Ramp`, :class:`Sine`),
:mod:`blocksim.blocks.waveform` (:class:`Waveform`) and :mod:`blocksim.blocks.tables`
(:class:`Piecewise`, :class:`Interpolate`); their conventions are in
:mod:`blocksim.blocks.source_base`. New code imports from those modules or from
:mod:`blocksim.blocks`.
"""

from blocksim.blocks.signal_sources import Constant, Ramp, Sine, Step, Time
from blocksim.blocks.tables import Interpolate, Piecewise
from blocksim.blocks.waveform import Waveform

__all__ = [
    "Constant",
    "Interpolate",
    "Piecewise",
    "Ramp",
    "Sine",
    "Step",
    "Time",
    "Waveform",
]
