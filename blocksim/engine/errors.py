"""The exception hierarchy of blocksim.

Every error names what went wrong in the user's terms: the block (by its path in the diagram),
the port, the time, what was expected and what was found. Errors raised while a simulation runs
carry the partial :class:`~blocksim.engine.record.SimResult` recorded so far in ``.result``.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
from collections.abc import Iterable, Iterator
from typing import Any

from blocksim._messages import plain as plain  # re-exported: one helper for all messages

#: most problems the message of a :class:`DiagramError` (and ``blocksim check``/``run``)
#: lists; the others are counted ("... and N more problems"), all kept in ``.problems``
MAX_PROBLEMS = 100
#: most names a message lists (ports of a block, blocks of a loop), then "... (N in all)"
LISTED_NAMES = 20
#: most name comparisons the did-you-mean suggestions of one load or one compile may make
#: together (a file of 20 000 unknown types gets suggestions for the first ones only)
SUGGEST_COMPARISONS = 200_000
#: no suggestion is looked for a name longer than this
SUGGEST_MAX_CHARS = 100


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
        super().__init__("\n".join([head] + [f"  - {p}" for p in shown_problems(
            self.problems)]))


def shown_problems(problems: list[str]) -> list[str]:
    """The first :data:`MAX_PROBLEMS` of ``problems``, then ``"... and N more problems"``
    when there are more."""
    if len(problems) <= MAX_PROBLEMS:
        return list(problems)
    return [*problems[:MAX_PROBLEMS], f"... and {len(problems) - MAX_PROBLEMS} more problems "
            f"(the first {MAX_PROBLEMS} are listed)"]


def listing(names: list[str], total: int | None = None) -> str:
    """``"a, b, c"``: at most :data:`LISTED_NAMES` of ``names`` (``total`` in all, default
    ``len(names)``), then ``", ... (N in all)"``; ``"(none)"`` for none."""
    total = len(names) if total is None else total
    if not total:
        return "(none)"
    shown = ", ".join(names[:LISTED_NAMES])
    return shown if total <= LISTED_NAMES else f"{shown}, ... ({total} in all)"


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


class AlgebraicLoopError(SimulationError):
    """An algebraic loop solved at each evaluation (``algebraic="solve"``) did not converge:
    the message names the loop port by port (also in ``loop``), the time and the residual."""

    def __init__(self, message: str, *, loop: str = "", **kwargs: Any):
        super().__init__(message, **kwargs)
        self.loop = loop


_BUDGET: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "blocksim_suggest_budget", default=None)


@contextlib.contextmanager
def suggestion_budget(comparisons: int | None = None) -> Iterator[None]:
    """Bound the did-you-mean work of :func:`suggest` inside the block to ``comparisons``
    name comparisons in all (default :data:`SUGGEST_COMPARISONS`); once spent, no more
    suggestions are made. Nested, the outer budget holds."""
    if _BUDGET.get() is not None:
        yield
        return
    token = _BUDGET.set([SUGGEST_COMPARISONS if comparisons is None else comparisons])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def suggest(name: str, valid: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest valid name, or ``""`` (also for a
    name longer than :data:`SUGGEST_MAX_CHARS`, and once the :func:`suggestion_budget` in
    force is spent)."""
    if len(name) > SUGGEST_MAX_CHARS:
        return ""
    budget = _BUDGET.get()
    if budget is not None:
        if budget[0] <= 0:
            return ""
        size = len(valid) if hasattr(valid, "__len__") else None
        if size is not None and size > budget[0]:
            budget[0] = 0
            return ""
    options = list(valid)
    if budget is not None:
        budget[0] -= len(options)
    same_letters = [v for v in options if v.lower() == name.lower()]
    close = same_letters or difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def connect_hint(block: str, port: str,
                 origins: dict[str, tuple[str, str | None]] | None = None) -> str:
    """How to drive the unconnected input ``block.port`` (``block``: its path in the flat
    diagram), in the terms of where its diagram came from (``origins[block]``: its name in
    its own diagram and that diagram's ``origin``): the JSON wire for a diagram read from a
    file, ``d.connect(...)`` for one built in Python."""
    local, origin = (origins or {}).get(block, (block, None))
    if origin is None:
        return f"connect an output to it with d.connect(<source>, '{block}.{port}')"
    where = f" of subsystem '{block[:-len(local) - 1]}'" if block != local else ""
    return (f'connect an output to it: add {{"from": "<block>.<output>", "to": '
            f'"{local}.{port}"}} to the "wires"{where}')

