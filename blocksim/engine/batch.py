"""Ensembles: parameter sweeps and Monte Carlo runs of one diagram.

``simulate_batch(diagram, overrides, T, ...)`` runs one member per ``{"block.param": value}``
dict. In the compiled back-end the members run in parallel in one numba ``prange`` loop over
rows of the flat parameter vectors (the diagram is compiled once); in the interpreted back-end
they run in a process pool. Noise blocks get a seed per member, written into that member's
overrides, so ``simulate(with_overrides(diagram, batch.overrides[m]), T)`` re-runs member m
alone and gives the same trace.

The options are validated once, as a :class:`~blocksim.engine.config.RunConfig`, before any
member runs. A member whose simulation fails (a
:class:`~blocksim.engine.errors.SimulationError`: NaN/Inf, solver failure, a block raising,
Zeno) is marked ``"failed"`` and keeps its error in ``batch.errors[m]`` (a
:class:`~blocksim.engine.record.MemberError`: type, message, time reached, block and port);
``batch.failures()`` says in one line how many failed and why. Any other exception (a
programming error, a bad override: one naming no block or parameter, or changing a block's
state size or an output's shape, which the members' shared structure cannot take) ends the
whole batch, naming the member. Before any member runs, the batch's size is checked against
``max_steps`` and ``max_memory`` (all members' recordings together;
:mod:`blocksim.engine.limits`).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from blocksim.engine.compile import compile_diagram
from blocksim.engine.config import (
    MAX_MEMORY,
    MAX_STEPS,
    RunConfig,
    batch_config,
    resolve_config,
)
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError, SimulationError, suggest
from blocksim.engine.limits import check_limits
from blocksim.engine.plan import Plan
from blocksim.engine.record import BatchResult, MemberError, SimResult
from blocksim.engine.schedule import schedule
from blocksim.engine.simulate import run_config, warn_specialize


def grid(axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the values on each axis: ``grid({"pid.Kp": [1, 2], "pid.Ki":
    [0, 1]})`` gives 4 override dicts."""
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))]


def monte_carlo(draws: Mapping[str, Callable[[np.random.Generator], Any]], n: int,
                seed: int = 0) -> list[dict[str, Any]]:
    """``n`` override dicts with each parameter drawn by ``draws[name](rng)`` from one seeded
    generator, e.g. ``{"plant.m": lambda rng: rng.normal(1.0, 0.05)}``."""
    rng = np.random.default_rng(seed)
    return [{name: draw(rng) for name, draw in draws.items()} for _ in range(n)]


def with_overrides(diagram: Diagram | Plan, overrides: Mapping[str, Any]) -> Plan:
    """The plan of ``diagram`` with some blocks rebuilt from their constructor arguments plus
    ``{"block.param": value}`` overrides (paths as in results, e.g. ``"ctrl/pid.Kp"``)."""
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram)
    by_block: dict[str, dict[str, Any]] = {}
    for key, value in overrides.items():
        path, _, param = key.rpartition(".")
        if not path:
            raise BlockParameterError(f"override {key!r}: expected 'block.param'")
        by_block.setdefault(path, {})[param] = value
    names = [e.name for e in plan.entries]
    entries = list(plan.entries)
    for path, changes in by_block.items():
        if path not in names:
            raise BlockParameterError(f"override: no block '{path}'{suggest(path, names)}")
        k = names.index(path)
        old = entries[k].block
        valid = type(old)._param_names
        for param in changes:
            if param not in valid:
                raise BlockParameterError(
                    f"override '{path}.{param}': {type(old).__name__} has no parameter "
                    f"'{param}'{suggest(param, valid)}; parameters: {', '.join(valid)}")
        try:
            new = type(old)(**{**old.params, **changes})
        except (TypeError, ValueError) as exc:
            raise BlockParameterError(f"override of block '{path}' ({type(old).__name__}): "
                                      f"{exc}") from None
        new.__dict__["_name"] = old.name
        _check_same_layout(plan, entries[k], new, sorted(changes))
        entries[k] = dataclasses.replace(entries[k], block=new)
    x0 = np.concatenate([np.asarray(e.block.x0, float).reshape(-1) for e in entries
                         if not e.discrete] or [np.zeros(0)])
    xd0 = np.concatenate([np.asarray(e.block.x0, float).reshape(-1) for e in entries
                          if e.discrete] or [np.zeros(0)])
    return dataclasses.replace(plan, entries=tuple(entries), x0=x0, xd0=xd0)


def _check_same_layout(plan: Plan, entry: Any, new: Any, changed: list[str]) -> None:
    """Refuse an override that changes a block's number of states or the shape of one of
    its outputs: the members of a batch share the plan compiled for the diagram."""
    what = f"override of {', '.join(f'{entry.name}.{c}' for c in changed)}"
    n_old = entry.states.stop - entry.states.start
    n_new = int(np.asarray(new.x0, dtype=float).size)
    if n_new != n_old:
        raise BlockParameterError(
            f"{what}: block '{entry.name}' ({entry.kind}) would have {n_new} state"
            f"{'s' * (n_new != 1)} instead of {n_old}; the members of a batch share the "
            f"diagram's structure (state sizes and signal shapes), so an override may change "
            f"values, not sizes")
    u = [np.zeros(plan.signal_shapes[s]) if plan.signal_shapes[s] else 0.0
         for s in entry.in_slots]
    try:
        with np.errstate(all="ignore"):
            y = new.output(0.0, np.asarray(new.x0, dtype=float).reshape(-1), u)
        shapes = [() if isinstance(v, float) else tuple(np.shape(v)) for v in y]
    except Exception:  # the block's own failure shows when the member runs, with its name
        return
    for port, slot, shape in zip(new.outputs, entry.out_slots, shapes):
        if shape != plan.signal_shapes[slot]:
            raise BlockParameterError(
                f"{what}: output '{entry.name}.{port.name}' ({entry.kind}) would have shape "
                f"{shape} instead of {plan.signal_shapes[slot]}; the members of a batch share "
                f"the diagram's structure, so an override may change values, not sizes")


def _member_seed(name: str, member: int) -> int:
    return zlib.crc32(f"{name}#{member}".encode()) + (member << 32)


def _seeded(plan: Plan, overrides: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each member's overrides, with a member-specific seed for every noise block whose seed
    the member does not set."""
    seeded_blocks = [e.name for e in plan.entries if "seed" in type(e.block)._param_names]
    out = []
    for m, ov in enumerate(overrides):
        ov = dict(ov)
        for name in seeded_blocks:
            ov.setdefault(f"{name}.seed", _member_seed(name, m))
        out.append(ov)
    return out


_POOL_PLAN: Plan | None = None


def _run_member(args: tuple[dict[str, Any], RunConfig]
                ) -> tuple[SimResult | None, MemberError | None]:
    """Run one member of the interpreted pool: its result, and its error if it failed."""
    ov, config = args
    assert _POOL_PLAN is not None
    try:
        return run_config(with_overrides(_POOL_PLAN, ov), config), None
    except SimulationError as exc:
        return exc.result, MemberError.from_exception(exc)


def simulate_batch(diagram: Diagram | Plan, overrides: Iterable[Mapping[str, Any]],
                   T: float | RunConfig | None = None, solver: str = "RK45", *,
                   backend: str = "auto", fuse: bool | str = "auto", rtol: float = 1e-6,
                   atol: float = 1e-9,
                   max_step: float = math.inf, dt: float | None = None,
                   record_dt: float | None = None, event_tol: float = 1e-10,
                   max_steps: int = MAX_STEPS, max_memory: float = MAX_MEMORY,
                   config: RunConfig | None = None, workers: int | None = None,
                   specialize: bool | None = None, keep: Any = "traces", client: Any = None,
                   chunk: int | None = None, out: Any = None,
                   resume: bool = False) -> BatchResult:
    """Run one simulation per override dict; see the module docstring.

    Parameters
    ----------
    diagram : Diagram or Plan
        The diagram (compiled here) or an already compiled plan.
    overrides : iterable of dict
        One ``{"block.param": value}`` dict per member (see :func:`grid`,
        :func:`monte_carlo`).
    T, solver, rtol, atol, max_step, dt, record_dt, event_tol, max_steps :
        As for :func:`~blocksim.engine.simulate.simulate`.
    max_memory : float
        Most memory [bytes] the recording of all members together may take.
    backend : {"auto", "compiled", "interpreted"}
        ``"compiled"`` (or ``"auto"`` when every block has kernels and the solver is one of
        the compiled back-end's) runs the members in a numba ``prange`` loop;
        ``"interpreted"`` uses a pool of ``workers`` processes.
    fuse : {"auto", True, False}
        The compiled tier (see :func:`~blocksim.engine.simulate.simulate`); ``"auto"`` fuses a
        batch of at least :data:`~blocksim.engine.config.FUSE_MEMBERS` members (its compile,
        once per structure, is paid back by faster members), else runs the data-wired tier
        unless the fused module is already compiled.
    config : RunConfig, optional
        All the run options in one object, instead of the keywords (``realtime`` is refused).
    workers : int, optional
        Processes of the interpreted pool (default: the CPU count).
    specialize : bool, optional
        Deprecated and ignored (a :class:`DeprecationWarning`).
    keep : {"traces", "final"}, list of str or callable
        What to keep of each member: every trace (default), the values at the last recorded
        time, the traces of the named signals, or per-member summaries of a reduction
        (``blocksim.engine.sweep.Summaries`` or ``f(chunk) -> {name: array}``); anything but
        ``"traces"`` runs the members in chunks, keeping only that
        (:mod:`blocksim.engine.sweep`).
    client : distributed.Client, optional
        Run the chunks as tasks on this Dask cluster; results are gathered in member order.
    chunk : int, optional
        Members per chunk (default: sized by memory and by the cluster's threads).
    out : path, optional
        Results folder: full traces per chunk (``.npz``) plus an index.
    resume : bool
        Finish the batch in ``out``, running only the chunks that have no file.

    Returns
    -------
    BatchResult
        Results recorded at the major times only (add ``record_dt`` for a grid), each
        member's status and, for failed members, its error. Run in chunks (``keep``,
        ``client``, ``chunk``, ``out`` or ``resume`` given), a
        :class:`~blocksim.engine.sweep.SweepResult`: what ``keep`` asks, per-member
        ``summary`` of a reduction, the results ``folder``; members lost with a worker are
        ``"failed"`` with the fault as their error.

    Raises
    ------
    ValueError
        An invalid option (before any member runs) or an empty ``overrides``.
    RunLimitError
        The batch would take more steps or memory than ``max_steps`` / ``max_memory``
        (before any member runs; :mod:`blocksim.engine.limits`).
    BlockParameterError
        An override names no block or no parameter, or changes a block's number of states or
        an output's shape; the message names the member.
    DiagramError, CompileError
        The diagram does not compile (for the chosen back-end).
    """
    warn_specialize(specialize)
    config = resolve_config(T, config, dict(
        solver=solver, rtol=rtol, atol=atol, max_step=max_step, dt=dt, record_dt=record_dt,
        event_tol=event_tol, backend=backend, fuse=fuse, max_steps=max_steps,
        max_memory=max_memory), defaults={"backend": "auto"})
    if config.realtime is not None:
        raise ValueError("simulate_batch: real-time pacing (`realtime`) is for single runs")
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram, config.algebraic)
    members = _seeded(plan, [dict(o) for o in overrides])
    if not members:
        raise ValueError("simulate_batch: `overrides` is empty; give one dict per member")
    config = batch_config(config, len(members))
    if not (isinstance(keep, str) and keep == "traces") or client is not None or \
            chunk is not None or out is not None or resume:
        from blocksim.engine.sweep import run_sweep  # (not a cycle: imported when used)

        return run_sweep(plan, members, config, keep=keep, client=client, chunk=chunk,
                         out=out, resume=resume, workers=workers)
    plans = []
    for m, ov in enumerate(members):
        try:
            plans.append(with_overrides(plan, ov))
        except BlockParameterError as exc:
            raise BlockParameterError(f"simulate_batch: member {m}: {exc}") from None
    if config.backend != "interpreted":
        # imported here so that interpreted batches never load numba (not a cycle)
        from blocksim.engine.compiled.backend import METHODS, can_compile, run_batch_compiled

        if config.backend == "auto":
            chosen = "compiled" if config.solver in METHODS and can_compile(plan) \
                else "interpreted"
            config = dataclasses.replace(config, backend=chosen)
    check_limits(plan, config, members=len(members))
    t0 = time.perf_counter()
    if config.backend == "compiled":
        res = _from_compiled(run_batch_compiled(plans, config))
    else:
        res = _run_batch_interpreted(plans[0], members, config, workers)
    if len(res.errors) != len(members):  # a back-end that does not report causes
        res.errors = [None] * len(members)
    res.overrides = members
    res.stats["wall_time"] = time.perf_counter() - t0
    res.stats["per_member"] = res.stats["wall_time"] / len(members)
    res.stats["backend"] = config.backend
    res.stats["nfailed"] = len(res.failed)
    return res


def _from_compiled(run: Any) -> BatchResult:
    """The :class:`BatchResult` of what the compiled back-end returns: its ``BatchRun``
    (``times``, ``x``, ``signals``, ``status``, ``errors`` as exceptions or None, ``stats``),
    or a finished :class:`BatchResult` (the back-end before its rewrite)."""
    if isinstance(run, BatchResult):
        return run
    errors = [None if e is None else MemberError.from_exception(e) for e in run.errors]
    return BatchResult(np.asarray(run.times), run.x, dict(run.signals), [],
                       np.asarray(run.status), dict(run.stats), errors)


def _run_batch_interpreted(plan: Plan, members: list[dict[str, Any]], config: RunConfig,
                           workers: int | None) -> BatchResult:
    # imported here, not at the top: multiprocessing and concurrent.futures.process cost a new
    # process ~30 ms of import that only an interpreted batch on several CPUs uses
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _POOL_PLAN
    sched = schedule(plan, config)
    times = sched.times[sched.record]  # the recorded major times, as the compiled batch's
    _POOL_PLAN = plan
    ctx = multiprocessing.get_context("fork") if "fork" in \
        multiprocessing.get_all_start_methods() else None
    n_workers = workers or os.cpu_count() or 1
    jobs = [(ov, config) for ov in members]
    try:
        if n_workers == 1 or ctx is None:
            outcomes = [_run_member(job) for job in jobs]
        else:
            with ProcessPoolExecutor(n_workers, mp_context=ctx) as pool:
                outcomes = list(pool.map(_run_member, jobs))
    finally:
        _POOL_PLAN = None
    x = np.full((len(members), len(times), plan.nx), np.nan)
    signals = {n: np.full((len(members), len(times), *s), np.nan)
               for n, s in zip(plan.signal_names, plan.signal_shapes)}
    status = []
    errors = []
    for m, (r, err) in enumerate(outcomes):
        errors.append(err)
        status.append("failed" if err is not None or r is None else r.status)
        if r is None or not len(r.t):
            continue
        idx = np.searchsorted(r.t, times)
        ok = (idx < len(r.t)) & (np.abs(r.t[np.minimum(idx, len(r.t) - 1)] - times) <= 1e-9)
        x[m, ok] = r.x[idx[ok]]
        for name in plan.signal_names:
            signals[name][m, ok] = r[name][idx[ok]]
    return BatchResult(times, x, signals, [], np.array(status), {}, errors)


__all__ = ["BatchResult", "MemberError", "grid", "monte_carlo", "simulate_batch",
           "with_overrides"]
