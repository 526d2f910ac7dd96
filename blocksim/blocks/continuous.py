"""Continuous-time blocks, re-exported from the modules that define them (kept so that existing
``from blocksim.blocks.continuous import ...`` lines work): :mod:`blocksim.blocks.calculus`
(:class:`Integrator`, :class:`Derivative`), :mod:`blocksim.blocks.linear`
(:class:`TransferFunction`, :class:`StateSpace`) and :mod:`blocksim.blocks.pid` (:class:`PID`).
New code imports from those modules or from :mod:`blocksim.blocks`.
"""

from blocksim.blocks.calculus import Derivative, Integrator
from blocksim.blocks.linear import StateSpace, TransferFunction
from blocksim.blocks.pid import PID

__all__ = ["PID", "Derivative", "Integrator", "StateSpace", "TransferFunction"]
