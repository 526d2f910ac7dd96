"""blocksim: block-diagram simulation for robotics and control.

The public API: build a :class:`Diagram` of blocks (:mod:`blocksim.blocks`), then
:func:`simulate` it into a :class:`SimResult`.
"""

import blocksim._startup  # (first: a quiet Ctrl-C while the command starts)

# isort: split
import blocksim._exit  # noqa: F401  (no garbage collection of the whole heap at exit)
from blocksim.engine.batch import BatchResult, grid, monte_carlo, simulate_batch, with_overrides
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock
from blocksim.engine.compile import compile_diagram
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.config import RunConfig
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import (
    BlockParameterError,
    BlocksimError,
    DiagramError,
    NonFiniteError,
    SimulationError,
    SolverError,
)
from blocksim.engine.plan import Plan
from blocksim.engine.record import MemberError, SimResult
from blocksim.engine.simulate import simulate

__all__ = [
    "BatchResult",
    "Block",
    "BlockParameterError",
    "BlocksimError",
    "Clock",
    "Diagram",
    "DiagramError",
    "Kernels",
    "MemberError",
    "NonFiniteError",
    "Plan",
    "Port",
    "RunConfig",
    "SimResult",
    "SimulationError",
    "SolverError",
    "compile_diagram",
    "grid",
    "monte_carlo",
    "simulate",
    "simulate_batch",
    "with_overrides",
]
