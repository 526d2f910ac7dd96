"""Sources: blocks with no inputs whose output is a function of time (or a random sequence).

:mod:`~blocksim.blocks.sources.signals` (:class:`Constant`, :class:`Time`, :class:`Step`,
:class:`Ramp`, :class:`Sine`), :mod:`~blocksim.blocks.sources.waveform` (:class:`Waveform`),
:mod:`~blocksim.blocks.sources.noise` (:class:`RandomNumber`, :class:`BandLimitedWhiteNoise`);
their shared conventions (values, breakpoints) are in :mod:`~blocksim.blocks.sources.base`.
:class:`Piecewise`, a table of values in time, lives with the lookup tables
(:mod:`blocksim.blocks.lookup`).
"""

from blocksim.blocks.sources.noise import BandLimitedWhiteNoise, RandomNumber
from blocksim.blocks.sources.signals import Constant, Ramp, Sine, Step, Time
from blocksim.blocks.sources.waveform import Waveform

__all__ = [
    "BandLimitedWhiteNoise",
    "Constant",
    "Ramp",
    "RandomNumber",
    "Sine",
    "Step",
    "Time",
    "Waveform",
]
