"""The exception hierarchy of blocksim.

Every error names what went wrong in the user's terms: the block (by its path in the diagram),
the port, the time, what was expected and what was found. Errors raised while a simulation runs
carry the partial :class:`~blocksim.engine.record.SimResult` recorded so far in ``.result``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class BlocksimError(Exception):
    """Base class of every error raised by blocksim."""


class BlockParameterError(BlocksimError, TypeError):
    """A block constructor got an unknown or invalid parameter."""


class DiagramError(BlocksimError):
    """A diagram cannot be compiled; ``problems`` lists every problem found, one string each."""

    def __init__(self, diagram: str, problems: list[str]):
        self.diagram = diagram
        self.problems = list(problems)
        n = len(self.problems)
        head = f"diagram '{diagram}' has {n} problem{'s' if n != 1 else ''}:"
        super().__init__("\n".join([head] + [f"  - {p}" for p in self.problems]))


class SimulationError(BlocksimError):
    """A run stopped before its end time.

    Attributes
    ----------
    result : SimResult or None
        Everything recorded up to the failure.
    block, port : str or None
        Path of the block and name of the port at fault, when known.
    time : float or None
        Simulation time of the failure [s].
    """

    def __init__(self, message: str, *, result: Any = None, block: str | None = None,
                 port: str | None = None, time: float | None = None):
        super().__init__(message)
        self.result = result
        self.block = block
        self.port = port
        self.time = time


class NonFiniteError(SimulationError):
    """A signal, state or derivative became NaN or infinite."""


class SolverError(SimulationError):
    """The ODE solver failed (step size too small, Newton failure, ...)."""


class ZenoError(SimulationError):
    """A block produced events ever closer in time (chattering); the error names it."""


class BlockRuntimeError(SimulationError):
    """A block method raised an exception during a run."""


def suggest(name: str, valid: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest valid name, or ``""``."""
    options = list(valid)
    same_letters = [v for v in options if v.lower() == name.lower()]
    close = same_letters or difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
