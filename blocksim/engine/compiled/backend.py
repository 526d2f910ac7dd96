"""Running a plan in the compiled back-end: generate, compile (cached), integrate, record.

The generated module is written to a cache directory (``$BLOCKSIM_CACHE_DIR``, default
``~/.cache/blocksim/compiled``) under a name derived from its source, so a second process
running the same diagram finds numba's cache next to it and does not recompile.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from blocksim.engine.clock import EVENT
from blocksim.engine.compiled.codegen import (
    Inline,
    generate,
    pack_block,
    pack_params,
    param_layout,
    signal_layout,
    source_hash,
)
from blocksim.engine.compiled.kernels import Kernels, kernels_of
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import BlocksimError, NonFiniteError, SolverError, ZenoError
from blocksim.engine.plan import Plan
from blocksim.engine.record import SimResult

METHODS = {"euler": 0, "rk4": 1, "RK45": 2}
_MODULES: dict[str, ModuleType] = {}


class CompileError(BlocksimError):
    """The diagram cannot run in the compiled back-end (lists the blocks and why)."""


def _is_post_run_sink(e: Any) -> bool:
    b = e.block
    return not e.out_slots and e.states.stop == e.states.start and not b.crossing_directions


def unsupported(plan: Plan) -> list[str]:
    """Why each block that cannot be compiled cannot, as ``"name (Kind): reason"``."""
    reasons = []
    for e in plan.entries:
        b = e.block
        if _is_post_run_sink(e):
            continue
        k = kernels_of(b)
        if k is None:
            reasons.append(f"{e.name} ({e.kind}): has no compiled kernels")
        elif b.crossing_directions and k.crossings is None:
            reasons.append(f"{e.name} ({e.kind}): has zero crossings but no crossings kernel")
        elif b.clock is EVENT and k.on_event is None:
            reasons.append(f"{e.name} ({e.kind}): event modes without an on_event kernel")
    return reasons


def can_compile(plan: Plan) -> bool:
    """Whether every block of ``plan`` has kernels (the ``backend="auto"`` test)."""
    return not unsupported(plan)


def cache_dir() -> Path:
    """Where generated modules (and numba's cache of them) live."""
    root = os.environ.get("BLOCKSIM_CACHE_DIR") or Path.home() / ".cache" / "blocksim"
    path = Path(root) / "compiled"
    path.mkdir(parents=True, exist_ok=True)
    return path


def load_module(plan: Plan, kernels: list[Kernels | None], specialized: bool = False,
                inline: bool = False, tunable: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[ModuleType, str, bool]:
    """Generate, write and import the module of ``plan``; also says whether it was new.
    ``inline`` writes the scalar parameter values into the source except those ``tunable``
    marks (boolean masks over pv and pi; see ``codegen.generate``)."""
    values = [k.params if k is not None else () for k in kernels]
    params = param_layout(values)
    fixed = None
    if inline:
        pv, pi = pack_params(values, params)
        masks = tunable or (np.zeros(pv.size, dtype=bool), np.zeros(pi.size, dtype=bool))
        fixed = Inline(pv, pi, *masks)
    src = generate(plan, kernels, signal_layout(plan), params, specialized, fixed)
    name = f"blocksim_plan_{source_hash(src)}"
    if name in _MODULES:
        return _MODULES[name], src, False
    path = cache_dir() / f"{name}.py"
    fresh = not path.exists()
    if fresh or path.read_text() != src:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(src)
        tmp.replace(path)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _MODULES[name] = module
    return module, src, fresh


def major_times(plan: Plan, T: float, options: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted major times in [0, T] (clock hits, breakpoints, record grid, T) and which
    clocks fire at each, shape (n, nclocks)."""
    tb = plan.timebase
    times: dict[float, set[int]] = {0.0: set(), float(T): set()}
    for c_index, c in enumerate(plan.clocks):
        ticks = tb.next_hit(c, 0)
        while True:
            t = tb.to_time(ticks)
            if t > T:
                break
            times.setdefault(t, set()).add(c_index)
            ticks = tb.next_hit(c, ticks + 1)
    for k in plan.breakpoint_entries:
        block = plan.entries[k].block
        t = block.next_breakpoint(0.0)
        while t < T:
            times.setdefault(t, set())
            t = block.next_breakpoint(t)
    grid = options.get("record_dt")
    if grid is None and plan.nx == 0 and not plan.clocks:
        grid = options.get("dt") or (options["max_step"] if math.isfinite(options["max_step"])
                                     else T / 1000.0)
    if grid:
        known = np.array(sorted(times))
        for k in range(math.floor(T / grid + 1e-9) + 1):
            g = k * grid
            j = int(np.searchsorted(known, g))
            near = [known[i] for i in (j - 1, j) if 0 <= i < len(known)]
            if not any(abs(v - g) <= 1e-9 * max(1.0, g) for v in near):
                times.setdefault(g, set())  # a clock hit or breakpoint already stands there
    ordered = sorted(times)
    fired = np.zeros((len(ordered), max(1, len(plan.clocks))), dtype=np.bool_)
    for i, t in enumerate(ordered):
        for c in times[t]:
            fired[i, c] = True
    return np.array(ordered, dtype=float), fired


def _kernels_for(plan: Plan, solver: str) -> list[Kernels | None]:
    """Every block's kernels (None for post-run sinks), after checking that the plan and the
    solver can run compiled."""
    problems = unsupported(plan)
    if problems:
        raise CompileError("the compiled back-end cannot run this diagram; blocks without "
                           "compiled kernels: " + "; ".join(problems) +
                           " (use backend='interpreted', or 'auto' to choose)")
    if solver not in METHODS:
        raise CompileError(f"the compiled back-end integrates with {', '.join(METHODS)}; "
                           f"got solver {solver!r}")
    return [None if _is_post_run_sink(e) else kernels_of(e.block) for e in plan.entries]


def _params(kernels: list[Kernels | None]) -> list[tuple[Any, ...]]:
    return [k.params if k is not None else () for k in kernels]


def _diagram_functions(module: ModuleType, specialized: bool) -> tuple[Any, ...]:
    """The generated functions the shared loops take (none for the specialised loops)."""
    if specialized:
        return ()
    return (module.evaluate, module.rhs, module.update, module.crossings, module.fire)


def _fixed_loop_serves(module: ModuleType, solver: str) -> bool:
    """True when the generated, cached fixed-step loop runs this case: a fixed-step method and
    a diagram without zero crossings (see :mod:`blocksim.engine.compiled.fixed_loop`)."""
    return METHODS[solver] in (0, 1) and module.DIRECTIONS.size == 0


def _event_args(module: ModuleType, config: RunConfig) -> tuple[Any, ...]:
    """(directions, stop mask, event_tol, Zeno interval, Zeno count) for the loops."""
    tol = float(config.event_tol)
    return (module.DIRECTIONS, module.STOP_MASK, tol, 100.0 * tol * max(1.0, config.T), 50)


def _signals(plan: Plan, layout: Any, flat: np.ndarray) -> dict[str, np.ndarray]:
    """Split recorded flat signal buffers, shape (..., size), into ``"block.port"`` arrays of
    shape (..., *port shape)."""
    lead = flat.shape[:-1]
    signals = {}
    for name, (start, n, shape) in zip(plan.signal_names, layout.slots):
        col = flat[..., start:start + n]
        signals[name] = col[..., 0].copy() if not shape else col.reshape((*lead, *shape))
    return signals


def run_compiled(plan: Plan, config: RunConfig, stats: dict[str, Any]) -> SimResult:
    """Simulate ``plan`` in the compiled back-end; returns the result (partial on failure,
    raised as the matching SimulationError with ``.result``)."""
    solver = config.solver
    kernels = _kernels_for(plan, solver)
    t0 = time.perf_counter()

    specialized = False  # `specialize` is deprecated: no longer passed on
    # a single specialised run inlines its parameter values; ensembles keep them tunable
    module, _, fresh = load_module(plan, kernels, specialized, inline=specialized)
    params = _params(kernels)
    pv, pi = pack_params(params, param_layout(params))
    layout = signal_layout(plan)
    T = config.T
    times, fired = major_times(plan, T, config.to_dict())
    dt = float(config.dt or 0.0)
    args = (pv, pi, np.ascontiguousarray(plan.x0, dtype=float),
            np.ascontiguousarray(plan.xd0, dtype=float), np.zeros(max(layout.size, 1)))
    cap = max(16, len(times) * 2 + (int(T / dt) + 2 if dt else 0))
    ev = _event_args(module, config)
    if specialized and _fixed_loop_serves(module, solver):
        def runner(times: np.ndarray, fired: np.ndarray, cap: int) -> tuple[Any, ...]:
            return module.run_fixed(*args, times, fired, METHODS[solver], dt, cap, True)
    else:
        if specialized:
            loop = module.run_fast
        else:
            from blocksim.engine.compiled import shared  # compiled once per installation

            loop = shared.run
        funcs = _diagram_functions(module, specialized)
        rest = (METHODS[solver], dt, float(config.rtol), float(config.atol),
                float(config.max_step))

        def runner(times: np.ndarray, fired: np.ndarray, cap: int) -> tuple[Any, ...]:
            return loop(*funcs, *args, times, fired, *rest, cap, True, *ev)
    runner(times[:1], np.ascontiguousarray(fired[:1]), 4)  # compile or load the cache
    stats["compile_time"] = time.perf_counter() - t0
    stats["compile_cache"] = "cold" if fresh else "cached-or-warm"
    t1 = time.perf_counter()
    while True:
        nrec, t_rec, x_rec, s_rec, nfev, nsteps, nevents, status = runner(times, fired, cap)
        if status != 5:  # 5: the fixed-step loop's record buffer was too small
            break
        cap *= 2
    wall = time.perf_counter() - t1
    t_rec, x_rec, s_rec = t_rec[:nrec], x_rec[:nrec], s_rec[:nrec]
    grid = config.record_dt
    if grid:
        on_grid = np.abs(t_rec / grid - np.round(t_rec / grid)) <= 1e-9 * np.maximum(1, t_rec)
        t_rec, x_rec, s_rec = t_rec[on_grid], x_rec[on_grid], s_rec[on_grid]
    signals = _signals(plan, layout, s_rec)
    t_final = float(t_rec[-1]) if len(t_rec) else 0.0
    stats.update(nfev=int(nfev), nsteps=int(nsteps), nevents=int(nevents),
                 nsegments=len(times) - 1, wall_time=wall,
                 realtime_factor=t_final / wall if wall > 0 else math.inf,
                 t_final=t_final, nrecorded=len(t_rec), backend="compiled")
    status_text = {0: "success", 1: "failed", 2: "failed", 3: "stopped", 4: "failed"}[int(status)]
    result = SimResult(t_rec, x_rec, signals, plan.state_names, stats, plan.aliases,
                       status_text)
    if status == 3:
        stoppers = [e.name for e in plan.entries if e.block.stops_simulation]
        result.message = f"stopped by block '{stoppers[0]}' at t={t_final:.9g} s"
    if status == 4:
        chatter = [e.name for e in plan.entries if e.block.crossing_directions]
        names = ", ".join(f"'{c}'" for c in chatter)
        raise ZenoError(f"block {names} is chattering: 50 events within "
                        f"{ev[3]:.3g} s of each other up to t={t_final:.9g} s (Zeno behaviour)",
                        result=result, block=chatter[0] if chatter else None, time=t_final)
    if status == 1:
        raise _non_finite(plan, layout, s_rec, x_rec, t_final, result)
    if status == 2:
        result.message = f"step size too small at t={t_final:.9g} s"
        raise SolverError(f"compiled Dormand-Prince: required step size below the spacing of "
                          f"floating-point numbers after t={t_final:.9g} s; try a stiff "
                          f"solver in the interpreted back-end", result=result, time=t_final)
    return result


def _member_params(plans: list[Plan], base: list[Kernels | None],
                   playout: Any) -> tuple[np.ndarray, np.ndarray]:
    """The (M, nv) and (M, ni) parameter rows of the members. Blocks a member shares with the
    first member (the same object: not overridden) keep the first member's values; only the
    others are repacked. An override that changes a block's compiled form (e.g. adds limits,
    which selects another kernel) is refused, since one generated module serves all."""
    pv0, pi0 = pack_params(_params(base), playout)
    PV = np.tile(pv0, (len(plans), 1))
    PI = np.tile(pi0, (len(plans), 1))
    first = plans[0].entries
    for m, member in enumerate(plans[1:], start=1):
        for k, e in enumerate(member.entries):
            if e.block is first[k].block or base[k] is None:
                continue
            kern = kernels_of(e.block)
            ref = base[k]
            if any(getattr(kern, f) is not getattr(ref, f)
                   for f in ("output", "deriv", "update", "crossings", "on_event")):
                raise CompileError(
                    f"member {m} changes how block '{e.name}' compiles (another kernel: e.g. "
                    f"limits added or removed); run members of one form per batch, or use "
                    f"backend='interpreted'")
            try:
                pack_block(kern.params, playout.items[k], PV[m], PI[m])
            except ValueError as exc:
                raise CompileError(f"member {m}, block '{e.name}': {exc}") from None
    return np.ascontiguousarray(PV), np.ascontiguousarray(PI)


def run_batch_compiled(plans: list[Plan], config: RunConfig) -> Any:
    """Run one member per plan (same structure, different parameters) in a numba prange
    loop; returns a :class:`~blocksim.engine.batch.BatchResult` without overrides."""
    from blocksim.engine.batch import BatchResult

    plan = plans[0]
    solver = config.solver
    base = _kernels_for(plan, solver)
    t0 = time.perf_counter()
    specialized = False  # `specialize` is deprecated: no longer passed on
    playout = param_layout(_params(base))
    PV, PI = _member_params(plans, base, playout)
    # specialised ensembles inline the parameters every member shares; those the members
    # vary stay tunable, so one compiled module serves any values of them
    varies = (~np.all((PV == PV[0]) | (np.isnan(PV) & np.isnan(PV[0])), axis=0),
              ~np.all(PI == PI[0], axis=0))
    module, _, _ = load_module(plan, base, specialized, inline=specialized,
                               tunable=varies)
    X0 = np.ascontiguousarray(np.stack([p.x0 for p in plans]).reshape(len(plans), plan.nx))
    XD0 = np.ascontiguousarray(np.stack([p.xd0 for p in plans]).reshape(len(plans), -1)
                               if plan.xd0.size else np.zeros((len(plans), 0)))
    layout = signal_layout(plan)
    T = config.T
    times, fired = major_times(plan, T, config.to_dict())
    dt = float(config.dt or 0.0)
    sig0 = np.zeros(max(layout.size, 1))
    if specialized and _fixed_loop_serves(module, solver):
        def runner(PV: np.ndarray, PI: np.ndarray, X0: np.ndarray, XD0: np.ndarray,
                   times: np.ndarray, fired: np.ndarray) -> tuple[Any, ...]:
            return module.batch_fixed(PV, PI, X0, XD0, sig0, times, fired, METHODS[solver], dt)
    else:
        if specialized:
            loop = module.batch_fast
        else:
            from blocksim.engine.compiled import shared  # compiled once per installation

            loop = shared.run_batch
        funcs = _diagram_functions(module, specialized)
        rest = (METHODS[solver], dt, float(config.rtol), float(config.atol),
                float(config.max_step), *_event_args(module, config))

        def runner(PV: np.ndarray, PI: np.ndarray, X0: np.ndarray, XD0: np.ndarray,
                   times: np.ndarray, fired: np.ndarray) -> tuple[Any, ...]:
            return loop(*funcs, PV, PI, X0, XD0, sig0, times, fired, *rest)
    runner(PV[:1], PI[:1], X0[:1], XD0[:1], times[:1],
           np.ascontiguousarray(fired[:1]))  # compile or load the cache
    compile_time = time.perf_counter() - t0
    t1 = time.perf_counter()
    _, x_out, s_out, _, status = runner(PV, PI, X0, XD0, times, fired)
    wall = time.perf_counter() - t1
    signals = _signals(plan, layout, s_out)
    text = np.array([{0: "success", 3: "stopped"}.get(int(s), "failed") for s in status])
    return BatchResult(times, x_out, signals, [], text,
                       {"compile_time": compile_time, "run_time": wall,
                        "run_per_member": wall / len(plans)})


def _non_finite(plan: Plan, layout: Any, s_rec: np.ndarray, x_rec: np.ndarray, t: float,
                result: SimResult) -> NonFiniteError:
    last = s_rec[-1]
    for step in plan.order:
        e = plan.entries[step.entry]
        for p in step.ports:
            start, n, _ = layout.slots[e.out_slots[p]]
            if not np.all(np.isfinite(last[start:start + n])):
                name = plan.signal_names[e.out_slots[p]]
                port = name.rsplit(".", 1)[1]
                result.message = f"signal '{name}' is not finite at t={t:.6g} s"
                return NonFiniteError(f"signal '{name}' ({e.kind}) is {last[start]} at "
                                      f"t={t:.6g} s: a NaN or Inf left block '{e.name}' through "
                                      f"port '{port}'", result=result, block=e.name,
                                      port=port, time=t)
    i = int(np.flatnonzero(~np.isfinite(x_rec[-1]))[0])
    name = plan.state_names[i]
    result.message = f"state '{name}' is not finite at t={t:.6g} s"
    return NonFiniteError(f"state '{name}' became {x_rec[-1, i]} at t={t:.6g} s",
                          result=result, block=name.rsplit(".", 1)[0], time=t)


__all__ = ["METHODS", "CompileError", "can_compile", "run_compiled", "unsupported"]
