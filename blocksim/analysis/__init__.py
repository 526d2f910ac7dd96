"""Operating points, trim, linearization and control design on top of the engine.

:func:`trim` finds an equilibrium (states and root inputs with x' = 0 and given outputs),
:func:`linearize` gives the linear model between analysis points as a ``control.StateSpace``
(python-control, imported on first use), :func:`lqr`/:func:`dlqr` and :func:`margins` wrap
python-control's design and frequency-response tools. Guide: ``docs/analysis.md``.

This package sits on top of the engine and the blocks; nothing below imports it.
"""

from blocksim.analysis.design import Margins, dlqr, lqr, margins
from blocksim.analysis.linearize import linear_model, linearize
from blocksim.analysis.operating_point import OperatingPoint, operating_point, root_inputs
from blocksim.analysis.points import AnalysisError
from blocksim.analysis.trim import trim

__all__ = [
    "AnalysisError",
    "Margins",
    "OperatingPoint",
    "dlqr",
    "linear_model",
    "linearize",
    "lqr",
    "margins",
    "operating_point",
    "root_inputs",
    "trim",
]
