"""Running a plan in the compiled back-end: build, render, load (cached), integrate, record.

``plan`` -> :func:`~blocksim.engine.compiled.ir.build` (statements) ->
:func:`~blocksim.engine.compiled.render.render` (a module source that depends on the diagram's
structure only) -> :func:`~blocksim.engine.compiled.modules.load_generated` (written once to the
cache folder, numba-cached next to it) -> its ``run``/``run_batch`` with the parameters as flat
vectors. ``stats`` tell where compile time went (``compile_kernels``, ``compile_diagram``,
``compile_loop``, ``compile_load``) and how many functions were really compiled
(``compiled_functions``: 0 when everything came from the caches).
"""

from __future__ import annotations

import math
import os
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from blocksim.engine.clock import EVENT
from blocksim.engine.compiled import ir, prewarm
from blocksim.engine.compiled.compile_watch import CompileWatch
from blocksim.engine.compiled.failures import (
    CompileError,
    entry_errors,
    member_error,
    typing_errors,
)
from blocksim.engine.compiled.interrupt import interrupt_flag, interrupted, interruptible
from blocksim.engine.compiled.kernels import Kernels, kernels_of
from blocksim.engine.compiled.loop import LoopOptions, Status
from blocksim.engine.compiled.loop_code import (
    loop_failure,
    loop_slots,
    reset_failure,
    row_failure,
)
from blocksim.engine.compiled.modules import (
    GeneratedModule,
    cache_dir,
    generated_name,
    load_generated,
)
from blocksim.engine.compiled.params import ParamLayout, pack_block, pack_params, param_layout
from blocksim.engine.compiled.render import render
from blocksim.engine.compiled.steps import METHODS, Method
from blocksim.engine.compiled.wiring import Wiring, build_wiring, wired_module
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import (
    BlocksimError,
)
from blocksim.engine.plan import Plan
from blocksim.engine.record import SimResult
from blocksim.engine.schedule import Schedule, schedule

#: events closer than this many event_tol * max(1, T) to each other count as a burst, and a
#: burst of ZENO_COUNT of them stops the run (Zeno behaviour)
ZENO_WIDTH = 100.0
ZENO_COUNT = 50

#: fixed-step runs of at most this many steps run in the calling thread (a fraction of a
#: second even for heavy diagrams); the others run on a worker thread that Ctrl-C can stop
#: (:mod:`blocksim.engine.compiled.interrupt`), which costs some 20-50 us per run
IN_PLACE_STEPS = 20_000

#: ``stats["tier_reason"]`` of a run that has algebraic loops to solve
LOOPS_FUSED = ("the fused tier: it solves the diagram's algebraic loops (the data-wired tier "
               "does not)")

#: a run's ``status`` by how its loop ended (every other ending is "failed")
STATUS_TEXT = {Status.DONE: "success", Status.STOPPED: "stopped",
               Status.INTERRUPTED: "interrupted"}


def _takes_no_part(e: Any) -> bool:
    """A block with no outputs, no states and no events (a post-run sink: Scope, ...)."""
    b = e.block
    return not e.out_slots and e.states.stop == e.states.start and not b.crossing_directions


def _reason(e: Any, k: Kernels | None) -> str | None:
    """Why the block of entry ``e`` with kernels ``k`` cannot be compiled, or None."""
    b = e.block
    if k is None:
        return "has no compiled kernels"
    if k.output is None and k.routes is None and e.out_slots:
        return "its kernels have neither output nor routes"
    if b.crossing_directions and k.crossings is None:
        return "has zero crossings but no crossings kernel"
    if b.clock is EVENT and k.on_event is None:
        return "event modes without an on_event kernel"
    return None


def _entry_kernels(plan: Plan) -> list[Kernels | None]:
    """Every block's kernels (None for the blocks that take no part in a run)."""
    return [None if _takes_no_part(e) else kernels_of(e.block) for e in plan.entries]


def _reasons(plan: Plan, kernels: list[Kernels | None]) -> list[str]:
    return [f"{e.name} ({e.kind}): {why}" for e, k in zip(plan.entries, kernels)
            if not _takes_no_part(e) and (why := _reason(e, k)) is not None]


def unsupported(plan: Plan) -> list[str]:
    """Why each block that cannot be compiled cannot, as ``"name (Kind): reason"``."""
    return _reasons(plan, _entry_kernels(plan))


def can_compile(plan: Plan) -> bool:
    """Whether every block of ``plan`` has kernels (the ``backend="auto"`` test)."""
    return not unsupported(plan)


def kernels_for(plan: Plan, solver: str) -> list[Kernels | None]:
    """Every block's kernels (None for the blocks that take no part in a run), after
    checking that the plan and the solver can run compiled."""
    kernels = _entry_kernels(plan)
    problems = _reasons(plan, kernels)
    if problems:
        raise CompileError("the compiled back-end cannot run this diagram; blocks without "
                           "compiled kernels: " + "; ".join(problems) +
                           " (use backend='interpreted', or 'auto' to choose)")
    if solver not in METHODS:
        raise CompileError(f"the compiled back-end integrates with {', '.join(METHODS)}; "
                           f"got solver {solver!r} (use backend='interpreted' for it)")
    return kernels


def _params(kernels: list[Kernels | None]) -> list[tuple[Any, ...]]:
    return [k.params if k is not None else () for k in kernels]


@dataclass(frozen=True)
class Prepared:
    """A plan ready to run on one tier: its program, parameter layout, the module whose
    ``run``/``run_batch`` it calls, and (fused) the generated module or (wired) its wiring."""

    program: ir.Program
    layout: ParamLayout
    kernels: list[Kernels | None]
    tier: str
    module: ModuleType
    generated: GeneratedModule | None = None
    wiring: Wiring | None = None

    @property
    def name(self) -> str:
        return self.module.__name__

    def pi(self, pi: np.ndarray) -> np.ndarray:
        """The int vector(s) the loop takes: the block int parameters, after the program on
        the wired tier."""
        return pi if self.wiring is None else self.wiring.with_params(pi)


#: prepared plans by (id(plan), solver, tier), dropped when the plan is garbage-collected
_PREPARED: dict[tuple[int, str, str], Prepared] = {}


def prepare(plan: Plan, solver: str, tier: str = "wired") -> Prepared:
    """Check and build ``plan`` for ``tier``: on the fused tier render and load its generated
    module (numba compiles, or loads from its cache, at the first call), on the wired tier
    build its tables and load its block entries (compiled here the first time a block form
    is seen). A plan is immutable, so this is done once per plan, solver and tier."""
    key = (id(plan), solver, tier)
    if key not in _PREPARED:
        _PREPARED[key] = _prepare(plan, solver, tier)
        weakref.finalize(plan, _PREPARED.pop, key, None)
    return _PREPARED[key]


#: the statements of a plan, by (id(plan), solver): kernels, program, parameter layout
_BUILT: dict[tuple[int, str], tuple[list[Kernels | None], ir.Program, ParamLayout]] = {}


def _build(plan: Plan, solver: str) -> tuple[list[Kernels | None], ir.Program, ParamLayout]:
    """The plan's kernels, program and parameter layout (the same for both tiers)."""
    key = (id(plan), solver)
    if key not in _BUILT:
        kernels = kernels_for(plan, solver)
        try:
            program = ir.build(plan, kernels)
        except ValueError as exc:
            raise CompileError(f"the compiled back-end cannot run this diagram: {exc}") \
                from None
        _BUILT[key] = (kernels, program, param_layout(_params(kernels)))
        weakref.finalize(plan, _BUILT.pop, key, None)
    return _BUILT[key]


def _prepare(plan: Plan, solver: str, tier: str) -> Prepared:
    kernels, program, layout = _build(plan, solver)
    if plan.loops and tier != "fused":
        raise CompileError(f"diagram '{plan.name}': the data-wired tier does not solve "
                           f"algebraic loops; the fused tier does (fuse=True)")
    if tier == "fused":
        generated = load_generated(program, layout, METHODS[solver])
        return Prepared(program, layout, kernels, tier, generated.module, generated=generated)
    with typing_errors(plan):
        wiring = build_wiring(plan, program, kernels, layout)
    return Prepared(program, layout, kernels, tier, wired_module(METHODS[solver]),
                    wiring=wiring)


def fused_ready(plan: Plan, solver: str) -> bool:
    """Whether the fused module of ``plan`` has been compiled before (by any process): its
    marker file is in the cache folder, so a fused run loads instead of compiling. Renders
    the module's source to name it; writes and imports nothing."""
    try:
        _, program, layout = _build(plan, solver)
    except CompileError:
        return False
    return ready_marker(generated_name(render(program, layout, METHODS[solver]))).exists()


def ready_marker(module_name: str) -> Path:
    """The file that says a generated module's loop has been compiled and cached."""
    return cache_dir() / f"{module_name}.ready"


def choose_tier(plan: Plan, config: RunConfig) -> str:
    """The tier of a compiled run: ``config.fuse`` True -> fused, False -> wired, "auto" ->
    fused when its module is already compiled, else wired (which compiles nothing new for
    known block forms). A plan with algebraic loops to solve runs fused whatever
    ``config.fuse`` says (:data:`LOOPS_FUSED`): the data-wired tier does not solve them."""
    if config.fuse is True or plan.loops:
        return "fused"
    if config.fuse is False:
        return "wired"
    return "fused" if fused_ready(plan, config.solver) else "wired"


def _schedule(plan: Plan, config: RunConfig) -> Schedule:
    """The major times (every record grid point among them), as contiguous arrays."""
    s = schedule(plan, config, grid_major=True)
    return Schedule(*(np.ascontiguousarray(a) for a in s))


def _options(program: ir.Program, config: RunConfig, sched: Schedule, cap: int,
             record_steps: bool, members: int = 1) -> LoopOptions:
    """The loop's options; its rows are limited so that the recording of ``members`` runs
    stays within ``config.max_memory`` (each row: the time, the states and every signal)."""
    tol = float(config.event_tol)
    row_bytes = 8 * (1 + program.nx + program.nsig)
    max_rows = max(2, int(min(config.max_memory / members / row_bytes, 2 ** 62)))
    max_steps = int(min(config.max_steps, 2 ** 62))
    return LoopOptions(float(config.dt or 0.0), float(config.rtol),
                       float(config.atol), float(config.max_step), int(cap),
                       record_steps, tol, ZENO_WIDTH * tol * max(1.0, config.T), ZENO_COUNT,
                       np.array(program.directions, dtype=np.int64),
                       np.array(program.stop_mask, dtype=np.bool_),
                       np.zeros(sched.fired.shape[1], dtype=np.bool_), interrupt_flag(),
                       max_rows, max_steps)


def _lean(program: ir.Program, config: RunConfig) -> bool:
    """Whether the lean loop ``run_fixed`` serves the run: a fixed-step method and no zero
    crossings (else the general ``run``)."""
    return METHODS[config.solver] is not Method.DOPRI and not program.directions


def _first(sched: Schedule) -> Schedule:
    """The schedule's first major time only (a call that compiles, or loads, the loop)."""
    return Schedule(*(a[:1] for a in sched))


def _compile_stats(watch: CompileWatch, total: float, prep: Prepared) -> dict[str, Any]:
    s = watch.seconds
    if prep.tier == "fused":  # compiled (or loaded): later "auto" runs take the fused tier
        ready_marker(prep.name).touch()
    return {"compile_time": total, "compile_kernels": s["kernels"],
            "compile_diagram": s["diagram"], "compile_loop": s["loop"],
            "compile_entries": s["entries"],
            "compile_load": max(0.0, total - sum(s.values())),
            "compiled_functions": len(watch.compiled),
            "compiled": list(watch.compiled),
            "compile_cache": "cold" if watch.compiled else "cached",
            "tier": prep.tier, "generated_module": prep.name}


def _signals(program: ir.Program, flat: np.ndarray) -> dict[str, np.ndarray]:
    """Split recorded flat signal buffers, shape (..., nsig), into ``"block.port"`` arrays of
    shape (..., *port shape)."""
    lead = flat.shape[:-1]
    out = {}
    for s in program.signals:
        col = flat[..., s.start:s.start + s.size]
        out[s.name] = col[..., 0].copy() if not s.shape else col.reshape((*lead, *s.shape))
    return out


def run_compiled(plan: Plan, config: RunConfig, stats: dict[str, Any]) -> SimResult:
    """Simulate ``plan`` in the compiled back-end; returns the result (partial on failure,
    raised as the matching SimulationError with ``.result``)."""
    t0 = time.perf_counter()
    tier = choose_tier(plan, config)
    with CompileWatch("", plan.name) as watch:
        prep = prepare(plan, config.solver, tier)
        program, module = prep.program, prep.module
        watch.module_name = prep.name
        pv, pi = pack_params(_params(prep.kernels), prep.layout)
        pi = prep.pi(pi)
        pv = loop_slots(pv, program, prep.layout.nv, config.algebraic_tol,
                        config.algebraic_maxiter)
        sched = _schedule(plan, config)
    T, dt = config.T, float(config.dt or 0.0)
    every_step = dt and config.record_dt is None  # else only major times are recorded
    cap = max(16, sched.times.size * 2 + (int(T / dt) + 2 if every_step else 0))
    opts = _options(program, config, sched, cap, config.record_dt is None)
    args = (pv, pi, np.ascontiguousarray(plan.x0, dtype=float),
            np.ascontiguousarray(plan.xd0, dtype=float), np.zeros(program.nsig))
    loop = module.run_fixed if _lean(program, config) else module.run
    if prep.tier == "wired":  # compiled in the background meanwhile (blocksim run)?
        prewarm.wait(METHODS[config.solver], "run_fixed" if _lean(program, config) else "run")
    with watch, typing_errors(plan), entry_errors(plan, prep):
        loop(*args, _first(sched), opts._replace(cap=2))
    stats.update(_compile_stats(watch, time.perf_counter() - t0, prep))
    if plan.loops:
        reset_failure(pv, prep.layout.nv)
        stats["tier_reason"] = LOOPS_FUSED
    t1 = time.perf_counter()
    while True:
        if dt and T / dt <= IN_PLACE_STEPS:  # short: Ctrl-C waits for its end
            with entry_errors(plan, prep):
                nrec, t_rec, x_rec, s_rec, counters, status = loop(*args, sched, opts)
        else:
            with entry_errors(plan, prep):
                (nrec, t_rec, x_rec, s_rec, counters, status), _ = interruptible(
                    lambda o=opts: loop(*args, sched, o), opts.interrupt)
        if status != Status.FULL:  # cap holds every row (the lean loop never grows it)
            break
        opts = opts._replace(cap=2 * opts.cap)
    wall = time.perf_counter() - t1
    t_rec, x_rec, s_rec = t_rec[:nrec], x_rec[:nrec], s_rec[:nrec]
    t_final = float(t_rec[-1]) if len(t_rec) else 0.0
    nfev, nsteps, nevents = counters
    stats.update(nfev=int(nfev), nsteps=int(nsteps), nevents=int(nevents),
                 nsegments=len(sched.times) - 1, wall_time=wall,
                 realtime_factor=t_final / wall if wall > 0 else math.inf,
                 t_final=t_final, nrecorded=len(t_rec), backend="compiled")
    status = Status(int(status))
    result = SimResult(t_rec, x_rec, _signals(program, s_rec), plan.state_names, stats,
                       plan.aliases, STATUS_TEXT.get(status, "failed"))
    if status is Status.INTERRUPTED:
        result.message = f"interrupted at t={t_final:.9g} s"
        raise interrupted(result.message, result)
    error = loop_failure(plan, pv, prep.layout.nv, result) or member_error(
        plan, program, status, t_final, s_rec, x_rec, opts, result, int(nsteps))
    if status is Status.STOPPED:
        stoppers = [e.name for e in plan.entries if e.block.stops_simulation]
        result.message = f"stopped by block '{stoppers[0]}' at t={t_final:.9g} s"
    if error is not None:
        result.message = str(error)
        raise error
    return result


def member_params(plans: list[Plan], base: list[Kernels | None],
                  layout: ParamLayout) -> tuple[np.ndarray, np.ndarray]:
    """The (M, nv) and (M, ni) parameter rows of the members. Blocks a member shares with the
    first member (the same object: not overridden) keep the first member's values; only the
    others are repacked. An override that changes a block's compiled form (e.g. adds limits,
    which selects another kernel) is refused, since one generated module serves all."""
    pv0, pi0 = pack_params(_params(base), layout)
    PV = np.tile(pv0, (len(plans), 1))
    PI = np.tile(pi0, (len(plans), 1))
    first = plans[0].entries
    for m, member in enumerate(plans[1:], start=1):
        for k, e in enumerate(member.entries):
            if e.block is first[k].block or base[k] is None:
                continue
            kern = kernels_of(e.block)
            ref = base[k]
            if kern is None or any(getattr(kern, f) is not getattr(ref, f) for f in
                                   ("output", "deriv", "update", "crossings", "on_event")) \
                    or kern.routes != ref.routes:
                raise CompileError(
                    f"member {m} changes how block '{e.name}' compiles (another kernel: e.g. "
                    f"limits added or removed); run members of one form per batch, or use "
                    f"backend='interpreted'")
            try:
                pack_block(kern.params, layout.items[k], PV[m], PI[m])
            except ValueError as exc:
                raise CompileError(f"member {m}, block '{e.name}': {exc}") from None
    return np.ascontiguousarray(PV), np.ascontiguousarray(PI)


@dataclass(frozen=True)
class BatchRun:
    """What a compiled ensemble returns (at the major times): ``t`` (M, n), ``x`` (M, n, nx),
    ``signals`` by name (M, n, *shape), ``status`` per member, ``errors`` per member (None or
    the error a single run would raise), and timing ``stats``."""

    times: np.ndarray
    x: np.ndarray
    signals: dict[str, np.ndarray]
    status: list[str]
    errors: list[BlocksimError | None]
    stats: dict[str, Any]


def run_batch_compiled(plans: list[Plan], config: RunConfig,
                       threads: int | None = None) -> BatchRun:
    """Run one member per plan (same structure, different parameters) over rows of the flat
    parameter vectors (one compiled module for all), in chunks on ``threads`` threads (default:
    one per CPU) that run without the GIL."""
    plan = plans[0]
    t0 = time.perf_counter()
    tier = choose_tier(plan, config)
    with CompileWatch("", plan.name) as watch:
        prep = prepare(plan, config.solver, tier)
        watch.module_name = prep.name
    program, module = prep.program, prep.module
    PV, PI = member_params(plans, prep.kernels, prep.layout)
    PI = prep.pi(PI)
    PV = loop_slots(PV, program, prep.layout.nv, config.algebraic_tol,
                    config.algebraic_maxiter)
    X0 = np.ascontiguousarray(np.stack([p.x0 for p in plans]).reshape(len(plans), plan.nx))
    XD0 = np.ascontiguousarray(np.stack([p.xd0 for p in plans]).reshape(len(plans), -1)
                               if plan.xd0.size else np.zeros((len(plans), 0)))
    sched = _schedule(plan, config)
    opts = _options(program, config, sched, sched.times.size + 1, False, len(plans))
    opts = opts._replace(cap=sched.times.size + 1, max_rows=max(opts.max_rows,
                                                                sched.times.size + 1))
    sig0 = np.zeros(program.nsig)
    M, n_major = len(plans), sched.times.size
    t_out = np.full((M, n_major), np.nan)
    x_out = np.full((M, n_major, plan.nx), np.nan)
    s_out = np.full((M, n_major, program.nsig), np.nan)
    counts = np.zeros(M, dtype=np.int64)
    status = np.zeros(M, dtype=np.int64)
    t_last = np.zeros(M)
    x_last = np.full((M, plan.nx), np.nan)
    s_last = np.full((M, program.nsig), np.nan)
    outputs = (t_out, x_out, s_out, counts, status, t_last, x_last, s_last)
    batch = module.run_batch_fixed if _lean(program, config) else module.run_batch
    with watch, typing_errors(plan), entry_errors(plan, prep):
        batch(PV, PI, X0, XD0, sig0, _first(sched), opts, outputs, 0, 1)
    stats = _compile_stats(watch, time.perf_counter() - t0, prep)
    t1 = time.perf_counter()
    workers = max(1, min(threads or os.cpu_count() or 1, M))
    bounds = np.linspace(0, M, workers + 1).astype(int)
    status[:] = Status.INTERRUPTED  # a member that never starts keeps it
    with ThreadPoolExecutor(workers) as pool:  # run_batch releases the GIL
        chunks = [pool.submit(batch, PV, PI, X0, XD0, sig0, sched, opts, outputs, bounds[k],
                              bounds[k + 1]) for k in range(workers)]
        with entry_errors(plan, prep):
            _, interrupted = interruptible(lambda: [c.result() for c in chunks],
                                           opts.interrupt)
    wall = time.perf_counter() - t1
    stats.update(run_time=wall, run_per_member=wall / len(plans))
    text, errors = [], []
    for m, code in enumerate(status):
        st = Status(int(code))
        text.append(STATUS_TEXT.get(st, "failed"))
        errors.append(row_failure(plans[m], program, s_last[m], config.algebraic_tol)
                      or member_error(plans[m], program, st, float(t_last[m]),
                                      s_last[m:m + 1], x_last[m:m + 1], opts, None))
    keep = sched.record  # the recorded major times (all of them without record_dt)
    out = BatchRun(sched.times[keep], x_out[:, keep], _signals(program, s_out[:, keep]), text,
                   errors, stats)
    if interrupted:
        raise interrupted(f"interrupted: {text.count('interrupted')} of {M} members "
                          f"unfinished", out)
    return out


__all__ = [
    "METHODS",
    "BatchRun",
    "CompileError",
    "Method",
    "can_compile",
    "choose_tier",
    "fused_ready",
    "kernels_for",
    "prepare",
    "run_batch_compiled",
    "run_compiled",
    "unsupported",
]
