"""What runs inside an exported FMU: the diagram stepped one communication step at a time.

blocksim's run loop advances a diagram from 0 to T in one call. The FMU's ``doStep`` needs it
to stop at every communication point, take the master's inputs, and go on. The diagram is run
once, on a worker thread, with its root ``Inport`` blocks replaced by :class:`HeldInput` blocks
and its root ``Outport`` blocks by :class:`Capture` blocks (same names, same ports), plus one
:class:`Gate`, discrete at the FMU's step ``h`` (:class:`Link` joins them to the slave):

* at each communication point ``t_k = k h`` the run computes every output first (with the
  inputs held over the step that ends there: co-simulation's semantics), the Capture blocks
  keep their inputs' values, and then the first discrete update of that instant publishes them
  as the outputs at ``t_k`` and waits for the master;
* ``doStep(t_k, H)`` hands the inputs of the step (set before it) to the waiting run, whose
  HeldInput blocks give them (held, zero-order) while it integrates to ``t_{k+1}``, publishes
  again and waits; ``H`` may be any whole number of steps ``h``.

This module imports the engine only (no pythonfmu): the slave class is in
:mod:`blocksim.fmi_export.slave`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.engine.block import Block, Port

#: live links by key (the blocks of a diagram file find theirs by their ``link`` parameter)
LINKS: dict[str, Link] = {}
#: seconds the master waits for the run to reach a communication point
TIMEOUT = 600.0


class StopRun(Exception):
    """Raised inside the run when the FMU is terminated before the run's end."""


class Link:
    """The meeting point of the run's thread and the FMU's ``doStep``.

    Parameters
    ----------
    step : float
        The communication step ``h`` [s].
    inputs : dict
        Input name -> its value (float, or float array (n,)) before the first step.
    """

    def __init__(self, step: float, inputs: dict[str, Any]):
        self.step = float(step)
        self.inputs = dict(inputs)
        self.latest: dict[str, Any] = {}
        self.published = -1  # the last communication point whose outputs are published
        self.released = -1  # the last step whose inputs the master handed over
        self.outputs: dict[str, Any] = {}
        self.stopping = False
        self.finished = False
        self.error: BaseException | None = None
        self.cond = threading.Condition()

    # ------------------------------------------------------------ the run's side
    def hit(self, t: float) -> dict[str, Any]:
        """At communication point ``t``: publish the captured outputs (once), wait until the
        master releases the step that starts here, return its inputs."""
        k = round(t / self.step)
        with self.cond:
            if k > self.published:
                self.outputs = dict(self.latest)
                self.published = k
                self.cond.notify_all()
            while self.released < k and not self.stopping:
                self.cond.wait()
            if self.stopping:
                raise StopRun("the FMU was terminated")
            return self.inputs

    def finish(self, error: BaseException | None) -> None:
        """The run ended (``error``: why, when it failed)."""
        with self.cond:
            self.finished = True
            self.error = error
            self.cond.notify_all()

    # ------------------------------------------------------------ the master's side
    def wait_published(self, k: int) -> dict[str, Any]:
        """The outputs at communication point ``k``, once the run has reached it."""
        with self.cond:
            ok = self.cond.wait_for(lambda: self.published >= k or self.finished, TIMEOUT)
            if self.published >= k:
                return self.outputs
            if not ok:
                raise TimeoutError(f"the diagram did not reach t = {k * self.step:g} s in "
                                   f"{TIMEOUT:g} s")
            why = f": {self.error}" if self.error is not None else ""
            raise RuntimeError(f"the diagram's run ended before t = {k * self.step:g} s{why}")

    def release(self, k: int, inputs: dict[str, Any]) -> None:
        """Hand the inputs of steps up to ``k`` to the run."""
        with self.cond:
            self.inputs = dict(inputs)
            self.released = k
            self.cond.notify_all()

    def stop(self) -> None:
        """End the run where it waits."""
        with self.cond:
            self.stopping = True
            self.cond.notify_all()


def _link(key: str) -> Link | None:
    return LINKS.get(key)


class Gate(Block):
    """Stops the run at every communication point until the master's next ``doStep``.

    Parameters
    ----------
    link : str
        Key of the :class:`Link` in :data:`LINKS`.
    step : float
        Communication step [s] (the block's sample period).

    States
    ------
    k : discrete, the communication points passed.
    """

    outputs = ("k",)

    def __init__(self, link: str, step: float) -> None:
        super().__init__()
        self.link = link
        self.clock = float(step)
        self.set_state([0.0], ("k",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(x[0]),)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        link = _link(self.link)
        if link is not None:
            link.hit(t)
        return x + 1.0


class HeldInput(Block):
    """An FMU input: the value the master set for the current step, held over it.

    A time-driven source (no clock): at a communication point it gives the value of the step
    that ends there until the master's ``doStep`` hands over the next one, so the outputs
    published there see the inputs of the step before, and the integration over the next step
    sees the new ones.

    Parameters
    ----------
    link : str
        Key of the :class:`Link`.
    name : str
        The input's name (the root Inport block it replaces).
    size : int
        0 for a scalar, n for a vector (n,).
    start : float or sequence of float
        Value without a link (only while the FMU is built; a running FMU's link holds the
        variables' start values until the first ``doStep``).

    Outputs
    -------
    y : float or ndarray (n,)
        The input.
    """

    outputs = ("y",)

    def __init__(self, link: str, name: str, size: int = 0, start: Any = 0.0) -> None:
        super().__init__()
        self.link, self.input_name, self.size = link, name, int(size)
        self.start_value = np.array(np.broadcast_to(np.asarray(start, dtype=float),
                                              (max(self.size, 1),)))
        self.set_ports(outputs=[Port("y", (self.size,) if self.size else ())])

    def output(self, t: float, x: Any, u: Sequence[Any]) -> tuple[Any]:
        link = _link(self.link)
        v = self.start_value if link is None else link.inputs[self.input_name]
        return (float(np.asarray(v).reshape(-1)[0]) if not self.size
                else np.array(v, dtype=float).reshape(self.size),)


class Capture(Block):
    """An FMU output: passes its input through and keeps its latest value for the slave.

    Parameters
    ----------
    link : str
        Key of the :class:`Link`.
    name : str
        The output's name (the root Outport block it replaces).

    Inputs
    ------
    u : float or ndarray
        The signal the FMU outputs.

    Outputs
    -------
    y : same as u
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, link: str, name: str) -> None:
        super().__init__()
        self.link, self.output_name = link, name

    def output(self, t: float, x: Any, u: Sequence[Any]) -> tuple[Any]:
        link = _link(self.link)
        if link is not None:
            v = u[0]
            link.latest[self.output_name] = np.array(v, dtype=float) \
                if isinstance(v, np.ndarray) else float(v)
        return (u[0],)


def steps(H: float, h: float) -> int:
    """How many communication steps ``h`` the master's step ``H`` is (a whole number >= 1)."""
    m = H / h
    n = round(m)
    if n < 1 or not math.isclose(m, n, rel_tol=1e-9, abs_tol=1e-9):
        raise ValueError(f"the communication step {H:g} s is not a whole number of the "
                         f"FMU's step {h:g} s")
    return n


BLOCK_TYPES = {"FMUExportGate": Gate, "FMUExportInput": HeldInput,
               "FMUExportOutput": Capture}
