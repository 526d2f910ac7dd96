"""The state of one interpreted run: :class:`Run`.

The run loop (:mod:`blocksim.engine.simulate`) and its helpers (segments, events, real-time
pacing) share one :class:`Run`; blocks see it in ``start(run)`` and ``stop(run)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blocksim.engine.config import RunConfig
from blocksim.engine.evaluate import Evaluator
from blocksim.engine.loops import make_evaluator
from blocksim.engine.plan import Plan
from blocksim.engine.record import Recorder, SimResult


class Run:
    """The values of one run: configuration, evaluator (signal store), states, recorder,
    result.

    Parameters
    ----------
    plan : Plan
        The compiled diagram.
    config : RunConfig
        The validated options of the run (``run.config.T``, ``run.config.solver``, ...).

    Attributes
    ----------
    t : float
        Simulated time reached [s].
    x, xd : ndarray
        Continuous and discrete states.
    result : SimResult or None
        Set before the blocks' ``stop(run)`` is called.
    status, message : str
        ``"success"``, ``"stopped"`` or ``"failed"``, and why.
    stats : dict
        Run statistics (``nfev``, ``nsteps``, ...).
    """

    def __init__(self, plan: Plan, config: RunConfig):
        self.plan = plan
        self.config = config
        self.evaluator: Evaluator = make_evaluator(plan, config.algebraic_tol,
                                                   config.algebraic_maxiter)
        array_slots = [k for k, s in enumerate(plan.signal_shapes) if s != ()]
        constant_slots = sorted({s for e in plan.entries if e.rate == "constant"
                                 for s in e.out_slots})
        self.recorder = Recorder(plan.signal_names, array_slots, plan.nx, constant_slots)
        self.t = 0.0
        self.x = plan.x0.copy()
        self.xd = plan.xd0.copy()
        self.result: SimResult | None = None
        self.progress: Callable[[float], None] | None = None
        self.status, self.message = "success", ""
        self.stats: dict[str, Any] = {"nfev": 0, "nsteps": 0, "nsegments": 0,
                                      "noutput_evals": 0}


__all__ = ["Run"]
