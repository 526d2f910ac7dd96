"""The run configuration: every option of a simulation, typed and validated once.

:class:`RunConfig` is what :func:`~blocksim.engine.simulate.simulate`,
:func:`~blocksim.engine.batch.simulate_batch` and the ``blocksim run`` command build from their
arguments, and what both back-ends read (``config.T``, ``config.solver``, ``config.dt``, ...).
A bad option raises :class:`ValueError` when the configuration is made, before any block
starts, with a message that names the option, the value and what is expected::

    >>> RunConfig(T=1.0, solver="RK54")
    Traceback (most recent call last):
    ...
    ValueError: unknown solver 'RK54' (did you mean 'RK45'?); choose one of RK45, RK23, ...

Whether the solver suits the compiled back-end (euler, rk4, RK45) is checked by that back-end.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from blocksim.engine.algebraic import ALGEBRAIC
from blocksim.engine.errors import plain, suggest
from blocksim.engine.solvers import FIXED_STEP_SOLVERS, SOLVERS

#: the back-ends a run can ask for
BACKENDS = ("interpreted", "compiled", "auto")
#: a batch of at least this many members runs on the fused tier when ``fuse="auto"``
FUSE_MEMBERS = 256


def batch_config(config: RunConfig, members: int) -> RunConfig:
    """``config`` for a batch of ``members``: ``fuse="auto"`` becomes True from
    :data:`FUSE_MEMBERS` members (the fused tier's compile, seconds once per diagram
    structure, is paid back by the faster members)."""
    if config.fuse == "auto" and members >= FUSE_MEMBERS:
        return dataclasses.replace(config, fuse=True)
    return config
#: default most solver steps, major times (clock hits, breakpoints) or recorded points of a run
MAX_STEPS = 10_000_000
#: default most memory [bytes] the recorded result of a run (or a whole batch) may take
MAX_MEMORY = 2_000_000_000
#: default most wall-clock time [s] a real-time run may last (``T / realtime``): a day
MAX_WALL = 86_400.0
#: the options that bound a run's work; set by the user (keywords, command line), never by a
#: diagram file's ``simulation`` section
LIMIT_OPTIONS = ("max_steps", "max_memory", "max_wall")
#: what a real-time run does when a clock hit is more than a period late (``overrun``)
OVERRUN_POLICIES = ("warn", "skip", "abort")


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _finite(v: Any) -> bool:
    """Whether the number ``v`` is finite as a float (an int too large for one is not)."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def _short(v: Any) -> str:
    text = plain(v)
    return text if len(text) <= 40 else f"{text[:37]}..."


@dataclass(frozen=True)
class RunConfig:
    """The options of one run (or of every member of a batch), validated when made.

    Parameters
    ----------
    T : float
        Final time [s], finite and >= 0.
    solver : str
        ``"RK45"`` (default), ``"RK23"``, ``"DOP853"``, ``"Radau"``, ``"BDF"``, ``"LSODA"``
        (scipy, adaptive) or ``"euler"``, ``"rk4"`` (fixed step ``dt``).
    rtol, atol : float
        Relative and absolute tolerances of the adaptive solvers (scipy's meaning), > 0.
    max_step : float
        Largest step of the adaptive solvers [s], > 0 (``inf``: unbounded).
    dt : float, optional
        Step of the fixed-step solvers [s]; required by them, refused with an adaptive solver.
    record_dt : float, optional
        Record on the grid ``k * record_dt`` [s] instead of at every solver step.
    event_tol : float
        Width [s] (relative to max(1, t)) to which zero crossings are located, > 0.
    realtime : float, optional
        Pace major steps to the wall clock at this many simulated seconds per second
        (interpreted back-end only).
    overrun : {"warn", "skip", "abort"}
        What a real-time run does when a clock hit is more than one period late (an
        overrun): ``"warn"`` (default) counts overruns per clock and warns once per run;
        ``"skip"`` counts them silently and makes the hardware blocks drop their late hits'
        device exchanges (outputs hold, commands are not sent) so the loop catches up;
        ``"abort"`` stops the run with :class:`~blocksim.engine.realtime.OverrunError`
        naming the clock (the partial result in ``err.result``). A hardware block's own
        ``overrun`` parameter, when given, overrides this for that block. Without
        ``realtime`` nothing is paced and the policy has no effect
        (:mod:`blocksim.engine.realtime`).
    backend : {"interpreted", "compiled", "auto"}
        Which back-end runs the diagram (``"auto"``: compiled when it can).
    fuse : {"auto", True, False}
        The compiled back-end's tier: ``False`` the data-wired tier (loops and block entries
        compiled once per installation: a new diagram compiles nothing), ``True`` the fused
        tier (one numba module generated and compiled per diagram structure: the fastest run,
        seconds of compile the first time), ``"auto"`` (default) the fused tier when that
        diagram's module is already compiled, else the data-wired one (and a batch of many
        members fused). See ``docs/conventions.md``.
    max_steps : int
        Most solver steps, major times (clock hits, source breakpoints) or recorded points
        the run may take (default :data:`MAX_STEPS`); a run estimated to need more is refused
        before it starts (:mod:`blocksim.engine.limits`), one that gets there stops.
    max_memory : float
        Most memory [bytes] the recorded result may take (default :data:`MAX_MEMORY`; for a
        batch, all members together), checked the same way.
    max_wall : float
        Most wall-clock time [s] a real-time run may last, ``T / realtime`` (default
        :data:`MAX_WALL`, a day); a longer one is refused before it starts.
    algebraic : {"error", "solve"}
        What an algebraic loop (a cycle of direct feedthrough) is: ``"error"`` (default) a
        diagram error naming it port by port; ``"solve"`` an equation, torn at the fewest
        ports and solved by Newton's method at each evaluation, in both back-ends
        (:mod:`blocksim.engine.algebraic`, :mod:`blocksim.engine.loops`; the compiled
        back-end on its fused tier).
    algebraic_tol : float
        Tolerance of that Newton iteration, relative and absolute: converged when every
        ``|z - g(z)| <= algebraic_tol * (1 + |z|)`` (default 1e-10).
    algebraic_maxiter : int
        Most Newton iterations per solve (default 50); a loop that has not converged by
        then stops the run with :class:`~blocksim.engine.errors.AlgebraicLoopError` naming
        it and the time.

    Raises
    ------
    ValueError
        An option is out of range, unknown (with a did-you-mean suggestion) or inconsistent
        with another one (``dt`` and the solver, ``realtime`` and the back-end).

    Notes
    -----
    Numbers are stored as ``float``. The configuration is immutable; derive another with
    :func:`dataclasses.replace` (validated again).
    """

    T: float
    solver: str = "RK45"
    rtol: float = 1e-6
    atol: float = 1e-9
    max_step: float = math.inf
    dt: float | None = None
    record_dt: float | None = None
    event_tol: float = 1e-10
    realtime: float | None = None
    overrun: str = "warn"
    backend: str = "interpreted"
    fuse: bool | str = "auto"
    max_steps: int = MAX_STEPS
    max_memory: float = MAX_MEMORY
    max_wall: float = MAX_WALL
    algebraic: str = "error"
    algebraic_tol: float = 1e-10
    algebraic_maxiter: int = 50

    def __post_init__(self) -> None:
        T = self.T
        if not (_is_number(T) and _finite(T) and T >= 0):
            raise ValueError(f"`T` (final time, s) must be a finite number >= 0, got {_short(T)}")
        solver = self.solver
        if not isinstance(solver, str) or solver not in SOLVERS:
            raise ValueError(f"unknown solver {solver!r}{suggest(str(solver), SOLVERS)}; "
                             f"choose one of {', '.join(SOLVERS)}")
        self._positive("rtol")
        self._positive("atol")
        self._positive("max_step", allow_inf=True)
        if solver in FIXED_STEP_SOLVERS:
            if self.dt is None:
                raise ValueError(f"solver {solver!r} is fixed-step and needs `dt`, the step "
                                 f"size in seconds (e.g. dt=1e-3)")
        elif self.dt is not None:
            raise ValueError(f"`dt` is the step of the fixed-step solvers "
                             f"({', '.join(FIXED_STEP_SOLVERS)}); with {solver!r} bound the "
                             f"step with `max_step` instead")
        if self.dt is not None:
            self._positive("dt")
        if self.record_dt is not None:
            self._positive("record_dt")
        self._positive("event_tol")
        if self.realtime is not None:
            self._positive("realtime", what="a positive speed factor (1.0 = real time)")
        if not isinstance(self.overrun, str) or self.overrun not in OVERRUN_POLICIES:
            raise ValueError(f"`overrun` (what a real-time run does when a clock hit is a "
                             f"period late) must be 'warn', 'skip' or 'abort', got "
                             f"{self.overrun!r}{suggest(str(self.overrun), OVERRUN_POLICIES)}")
        backend = self.backend
        if not isinstance(backend, str) or backend not in BACKENDS:
            raise ValueError(f"`backend` must be 'interpreted', 'compiled' or 'auto', got "
                             f"{backend!r}{suggest(str(backend), BACKENDS)}")
        if not (isinstance(self.fuse, bool) or self.fuse == "auto"):
            raise ValueError(f"`fuse` (the compiled tier) must be True, False or 'auto', got "
                             f"{self.fuse!r}")
        if self.realtime is not None and backend == "compiled":
            raise ValueError("real-time pacing (`realtime`) needs the interpreted back-end, "
                             "not backend='compiled'")
        if not isinstance(self.algebraic, str) or self.algebraic not in ALGEBRAIC:
            raise ValueError(f"`algebraic` must be 'error' (report an algebraic loop) or "
                             f"'solve' (solve it at each evaluation), got {self.algebraic!r}"
                             f"{suggest(str(self.algebraic), ALGEBRAIC)}")
        self._positive("algebraic_tol")
        n = self.algebraic_maxiter
        if not (_is_number(n) and n >= 1 and _finite(n) and n == int(n)):
            raise ValueError(f"`algebraic_maxiter` (most Newton iterations of an algebraic "
                             f"loop) must be a whole number >= 1, got {_short(n)}")
        object.__setattr__(self, "algebraic_maxiter", int(n))
        for name in LIMIT_OPTIONS:
            v = getattr(self, name)
            if not (_is_number(v) and v >= 1 and _finite(v)):
                raise ValueError(f"`{name}` must be a number >= 1, got {_short(v)}")
        object.__setattr__(self, "max_steps", int(self.max_steps))
        object.__setattr__(self, "T", float(T))

    def _positive(self, name: str, allow_inf: bool = False,
                  what: str = "a positive number") -> None:
        """Check that option ``name`` is > 0 (and finite unless ``allow_inf``); store it as
        a float."""
        v = getattr(self, name)
        if not (_is_number(v) and v > 0 and (allow_inf or _finite(v))):
            raise ValueError(f"`{name}` must be {what}, got {_short(v)}")
        object.__setattr__(self, name, float(v) if _finite(v) else math.inf)

    @property
    def fixed_step(self) -> bool:
        """Whether the solver is a fixed-step one (``euler``, ``rk4``)."""
        return self.solver in FIXED_STEP_SOLVERS

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> RunConfig:
        """The configuration of ``options`` (e.g. a diagram file's ``simulation`` section).

        Raises
        ------
        ValueError
            An option is unknown (named with a did-you-mean suggestion), missing (``T``) or
            invalid.
        """
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in options if k not in names]
        if unknown:
            k = unknown[0]
            raise ValueError(f"unknown run option {k!r}{suggest(str(k), names)}; options: "
                             f"{', '.join(names)}")
        if "T" not in options:
            raise ValueError("the final time `T` [s] is missing")
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (``RunConfig(**config.to_dict()) == config``)."""
        return dataclasses.asdict(self)


def file_config(simulation: Mapping[str, Any], given: Mapping[str, Any] | None = None,
                default_T: float = 10.0) -> RunConfig:
    """The configuration of a diagram file's ``simulation`` section overridden by ``given``
    (the command line's options and limits, None values ignored): the one validation that
    ``blocksim check`` and ``blocksim run`` share.

    ``T`` defaults to ``default_T``; the deprecated ``specialize`` is ignored; the limits
    (:data:`LIMIT_OPTIONS`) come from ``given`` only, never from the file.

    Raises
    ------
    ValueError
        An option is unknown, invalid or inconsistent, or the file sets a limit.
    """
    options = {k: v for k, v in simulation.items() if k != "specialize"}
    for name in LIMIT_OPTIONS:
        if name in options:
            raise ValueError(f"`{name}` is a limit the user sets (keyword, or --"
                             f"{name.replace('_', '-')} on the command line), not a diagram "
                             f"file")
    options.update({k: v for k, v in (given or {}).items() if v is not None})
    options.setdefault("T", default_T)
    return RunConfig.from_mapping(options)


def resolve_config(T: float | RunConfig | None, config: RunConfig | None,
                   options: Mapping[str, Any],
                   defaults: Mapping[str, Any] | None = None) -> RunConfig:
    """The configuration of a call that takes either a :class:`RunConfig` or ``T`` and
    keyword options (``simulate``, ``simulate_batch``).

    Parameters
    ----------
    T : float or RunConfig or None
        The final time, or the whole configuration given in its place.
    config : RunConfig or None
        The whole configuration.
    options : mapping
        The other keyword options of the call, by :class:`RunConfig` field name.
    defaults : mapping, optional
        The call's defaults where they differ from :class:`RunConfig`'s (e.g. ``backend``).

    Raises
    ------
    ValueError
        Options given both in a configuration and as keywords, or an invalid option.
    TypeError
        ``config`` is not a :class:`RunConfig`.
    """
    if isinstance(T, RunConfig):
        if config is not None:
            raise ValueError("give the run configuration once: as `config` or in place of `T`")
        config, T = T, None
    if config is None:
        return RunConfig(T=T, **options)  # type: ignore[arg-type]
    if not isinstance(config, RunConfig):
        raise TypeError(f"`config` must be a RunConfig, got {type(config).__name__}")
    base = {f.name: f.default for f in dataclasses.fields(RunConfig)}
    base.update(defaults or {})
    given = ["T"] if T is not None else []
    given += [k for k, v in options.items() if not (v is base[k] or v == base[k])]
    if given:
        raise ValueError(f"give the run options either in `config` or as keywords, not both; "
                         f"got `config` and {', '.join(f'`{k}`' for k in given)}")
    return config


__all__ = ["BACKENDS", "FUSE_MEMBERS", "LIMIT_OPTIONS", "MAX_MEMORY", "MAX_STEPS", "MAX_WALL",
           "OVERRUN_POLICIES", "RunConfig", "batch_config", "file_config", "resolve_config"]
