"""One chunk of a batch: build its members' plans, run them, write the chunk's full traces to
the results folder when asked, and keep what ``keep`` asks for.

:func:`run_chunk` is what a Dask task runs on a worker (and what a local chunked batch runs in
the calling process), so everything it takes and returns pickles: the plan, the members'
override dicts, the run configuration, the checked ``keep``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.batch import _from_compiled, _run_batch_interpreted, with_overrides
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import BlockParameterError, SimulationError, suggest
from blocksim.engine.plan import Plan
from blocksim.engine.record import BatchResult, MemberError, SimResult
from blocksim.engine.schedule import major_times, schedule
from blocksim.engine.simulate import run_config
from blocksim.engine.sweep.folder import write_chunk
from blocksim.engine.sweep.keep import Keep, SweepResult, apply_keep

#: most members in a chunk chosen by default
MAX_CHUNK = 4096
#: fewest members in a default chunk of a cluster run (amortises a task's overhead)
MIN_CHUNK = 16
#: bytes of full traces a default chunk may hold
CHUNK_BYTES = 64 * 2**20
#: distinct override combinations (per block) checked before a batch starts
MAX_CHECKED = 10_000
#: most seconds spent checking override values before a batch starts (names always are)
CHECK_SECONDS = 2.0


def resolve_backend(plan: Plan, config: RunConfig) -> RunConfig:
    """``config`` with ``backend="auto"`` replaced by the back-end that will run (compiled
    when every block has kernels and the solver is a compiled one)."""
    if config.backend != "auto":
        return config
    from blocksim.engine.compiled.backend import METHODS, can_compile

    chosen = "compiled" if config.solver in METHODS and can_compile(plan) else "interpreted"
    return dataclasses.replace(config, backend=chosen)


def recorded_times(plan: Plan, config: RunConfig) -> np.ndarray:
    """The times every member's traces are given at (the major times that are recorded: the
    same for both back-ends and every way of running a chunk)."""
    s = schedule(plan, config)
    return s.times[s.record]


def member_bytes(plan: Plan, config: RunConfig) -> int:
    """Bytes of one member's full recording at the batch's major times (state and signals)."""
    n = len(major_times(plan, config)[0])
    width = plan.nx + sum(math.prod(s) for s in plan.signal_shapes)
    return 8 * n * max(1, width) + 8 * n


def default_chunk(plan: Plan, config: RunConfig, members: int, slots: int = 1) -> int:
    """Members per chunk: with a cluster of ``slots`` worker threads, four chunks per slot but
    no fewer than :data:`MIN_CHUNK` members (task overhead) unless that would idle a slot;
    locally, one chunk. Never more than :data:`CHUNK_BYTES` of traces or :data:`MAX_CHUNK`
    members."""
    cap = max(1, min(MAX_CHUNK, CHUNK_BYTES // member_bytes(plan, config)))
    if slots > 1:
        spread = max(math.ceil(members / (4 * slots)), min(MIN_CHUNK, math.ceil(members / slots)))
    else:
        spread = members
    return max(1, min(cap, spread, members))


def bounds(members: int, chunk: int) -> list[tuple[int, int]]:
    """The member ranges ``[(start, stop), ...]`` of chunks of ``chunk`` members."""
    return [(s, min(s + chunk, members)) for s in range(0, members, chunk)]


def run_chunk(
    plan: Plan,
    members: list[dict[str, Any]],
    start: int,
    config: RunConfig,
    keep: Keep,
    index: int = 0,
    folder: str | None = None,
    threads: int | None = None,
    workers: int | None = 1,
) -> SweepResult:
    """Run members ``start .. start + len(members)`` of a batch and keep what ``keep`` asks.

    Parameters
    ----------
    plan : Plan
        The diagram's compiled plan (shared by every member).
    members : list of dict
        The chunk's override dicts (noise seeds already set).
    start : int
        Index of the chunk's first member in the batch (named in errors).
    config : RunConfig
        Run options, with a concrete back-end (``"compiled"`` or ``"interpreted"``).
    keep : Keep
        What survives of the chunk (see :mod:`blocksim.engine.sweep.keep`).
    index : int
        The chunk's number (its file name in ``folder``).
    folder : str, optional
        A results folder: the chunk's full traces are written there as ``.npz``.
    threads : int, optional
        Threads of the compiled ensemble (default: one per CPU).
    workers : int, optional
        Processes of the interpreted back-end (1: in this process, as in a Dask task).

    Returns
    -------
    SweepResult
        The kept part of the chunk (its members in order); ``stats["chunk_time"]`` [s] is
        its wall time here.
    """
    t0 = time.perf_counter()
    full = full_chunk(plan, members, start, config, threads, workers)
    if folder is not None:
        write_chunk(folder, index, start, full)
    part = apply_keep(full, keep)
    part.stats["chunk_time"] = time.perf_counter() - t0
    return part


def full_chunk(
    plan: Plan,
    members: list[dict[str, Any]],
    start: int,
    config: RunConfig,
    threads: int | None = None,
    workers: int | None = 1,
) -> BatchResult:
    """Every recorded signal of the chunk's members (a :class:`BatchResult` of m members)."""
    if config.backend == "compiled":
        from blocksim.engine.compiled.backend import run_batch_compiled

        plans = [_member_plan(plan, ov, start + i) for i, ov in enumerate(members)]
        res = _from_compiled(run_batch_compiled(plans, config, threads))
    elif workers == 1:
        res = _interpreted_serial(plan, members, start, config)
    else:
        for i, ov in enumerate(members):  # bad overrides end the batch before a pool starts
            _member_plan(plan, ov, start + i)
        res = _run_batch_interpreted(plan, members, config, workers)
    if len(res.errors) != len(members):
        res.errors = [None] * len(members)
    res.overrides = members
    return res


def _member_plan(plan: Plan, overrides: dict[str, Any], m: int) -> Plan:
    try:
        return with_overrides(plan, overrides)
    except BlockParameterError as exc:
        raise BlockParameterError(f"simulate_batch: member {m}: {exc}") from None


def _interpreted_serial(
    plan: Plan, members: list[dict[str, Any]], start: int, config: RunConfig
) -> BatchResult:
    """The interpreted back-end, one member after the other in this process (a Dask task's
    way: no process pool inside a worker), laid out as the interpreted pool's result."""
    times = recorded_times(plan, config)
    M, n = len(members), len(times)
    x = np.full((M, n, plan.nx), np.nan)
    signals = {
        s: np.full((M, n, *shape), np.nan)
        for s, shape in zip(plan.signal_names, plan.signal_shapes)
    }
    status, errors = [], []
    for i, ov in enumerate(members):
        member = _member_plan(plan, ov, start + i)
        r: SimResult | None
        err: MemberError | None = None
        try:
            r = run_config(member, config)
        except SimulationError as exc:
            r, err = exc.result, MemberError.from_exception(exc)
        errors.append(err)
        status.append("failed" if err is not None or r is None else r.status)
        if r is None or not len(r.t):
            continue
        idx = np.searchsorted(r.t, times)
        ok = (idx < len(r.t)) & (np.abs(r.t[np.minimum(idx, len(r.t) - 1)] - times) <= 1e-9)
        x[i, ok] = r.x[idx[ok]]
        for s in plan.signal_names:
            signals[s][i, ok] = r[s][idx[ok]]
    return BatchResult(times, x, signals, [], np.array(status), {}, errors)


def empty_part(plan: Plan, config: RunConfig, keep: Keep) -> SweepResult:
    """A zero-member kept part: the layout of the result when no chunk came back."""
    times = recorded_times(plan, config)
    n = len(times)
    chunk = BatchResult(
        times,
        np.zeros((0, n, plan.nx)),
        {s: np.zeros((0, n, *shape)) for s, shape in zip(plan.signal_names, plan.signal_shapes)},
        [],
        np.array([], dtype=str),
        {},
        [],
    )
    try:
        return apply_keep(chunk, keep)
    except Exception:  # a reduction that cannot take zero members: no summaries
        return SweepResult(times[:0], chunk.x[:, :0], {}, [], chunk.status, {}, [])


@dataclasses.dataclass(frozen=True)
class Refused:
    """What a Dask task returns instead of raising when its members' overrides are refused
    (the parent raises it, as a local batch would: the worker logs no traceback)."""

    message: str

    def error(self) -> BlockParameterError:
        return BlockParameterError(self.message)


def task(
    plan: Plan,
    members: list[dict[str, Any]],
    start: int,
    config: RunConfig,
    keep: Keep,
    index: int,
    folder: str | None,
) -> SweepResult | Refused:
    """A Dask task: one chunk on one worker thread (the compiled ensemble on that thread
    only, the interpreted back-end member after member); see :func:`run_chunk`. A refused
    override comes back as :class:`Refused`."""
    try:
        part = run_chunk(plan, members, start, config, keep, index, folder, threads=1, workers=1)
    except BlockParameterError as exc:
        return Refused(str(exc))
    part.stats["worker_pid"] = os.getpid()
    return part


def check_members(plan: Plan, members: list[dict[str, Any]], most: int | None = None,
                  seconds: float | None = None) -> None:
    """Refuse bad overrides here, before any chunk is submitted: every key of every member
    must name a parameter of a block, and each distinct combination of one block's values
    must build it with the same number of states (checked up to ``most`` combinations or
    ``seconds`` of work; a chunk still refuses the others, with one line). Nothing of a
    block runs here (no output is computed).

    Raises
    ------
    BlockParameterError
        Naming the first member whose override is refused.
    """
    most = MAX_CHECKED if most is None else most
    seconds = CHECK_SECONDS if seconds is None else seconds
    t0 = time.perf_counter()
    entries = {e.name: e for e in plan.entries}
    seen: set[Any] = set()
    for m, ov in enumerate(members):
        groups: dict[str, dict[str, Any]] = {}
        for key, value in ov.items():
            block, _, param = str(key).rpartition(".")
            groups.setdefault(block, {})[param] = value
        for block, changes in groups.items():
            names = (block, *sorted(changes))
            whole = (names, repr(sorted(changes.items())))
            if names in seen and (whole in seen or len(seen) >= most
                                  or time.perf_counter() - t0 > seconds):
                continue
            try:
                _check_block(plan, entries, block, changes)
            except BlockParameterError as exc:
                raise BlockParameterError(f"simulate_batch: member {m}: {exc}") from None
            seen.update((names, whole))


def _check_block(plan: Plan, entries: dict[str, Any], block: str, changes: dict[str, Any]
                 ) -> None:
    if not block:
        raise BlockParameterError(f"override {next(iter(changes))!r}: expected 'block.param'")
    entry = entries.get(block)
    if entry is None:
        raise BlockParameterError(f"override: no block '{block}'{suggest(block, entries)}")
    old = entry.block
    valid = type(old)._param_names
    for param in changes:
        if param not in valid:
            raise BlockParameterError(
                f"override '{block}.{param}': {type(old).__name__} has no parameter "
                f"'{param}'{suggest(param, valid)}; parameters: {', '.join(valid)}")
    try:
        new = type(old)(**{**old.params, **changes})
    except (TypeError, ValueError) as exc:
        raise BlockParameterError(f"override of block '{block}' ({type(old).__name__}): "
                                  f"{exc}") from None
    n_old, n_new = entry.states.stop - entry.states.start, int(np.size(new.x0))
    if n_new != n_old:
        raise BlockParameterError(
            f"override of {', '.join(f'{block}.{c}' for c in sorted(changes))}: block "
            f"'{block}' would have {n_new} states instead of {n_old}; the members of a batch "
            f"share the diagram's structure, so an override may change values, not sizes")


def folder_path(out: str | os.PathLike[str] | None) -> str | None:
    """``out`` as an absolute path string (workers may run elsewhere in the tree)."""
    return None if out is None else str(Path(out).resolve())
