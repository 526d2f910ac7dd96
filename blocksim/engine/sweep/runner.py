"""A batch in chunks: locally (one chunk after the other, each a compiled ensemble on every
CPU) or on a Dask cluster (one task per chunk), keeping only what ``keep`` asks, writing full
traces per chunk to a results folder when asked, and resuming from one.

This is what :func:`~blocksim.engine.batch.simulate_batch` runs when it is given ``keep=``
other than ``"traces"``, a ``client``, a ``chunk`` size, an ``out`` folder or ``resume``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blocksim.engine.config import LIMIT_OPTIONS, RunConfig, batch_config
from blocksim.engine.plan import Plan
from blocksim.engine.record import MemberError
from blocksim.engine.sweep.chunks import (
    bounds,
    check_members,
    default_chunk,
    empty_part,
    folder_path,
    member_bytes,
    recorded_times,
    resolve_backend,
    run_chunk,
)
from blocksim.engine.sweep.digest import plan_digest
from blocksim.engine.sweep.folder import (
    FORMAT,
    VERSION,
    dumps,
    folder_problem,
    jsonable,
    open_folder,
    read_chunk,
    read_meta,
    write_index,
)
from blocksim.engine.sweep.keep import Assembler, KeepSpec, SweepResult, apply_keep, resolve_keep
from blocksim.engine.sweep.untrusted import UntrustedFileError
from blocksim.engine.sweep.verify import ChunkSpec
from blocksim.engine.sweep.warm import warm

#: ``progress(members_done, members_total)``, called after each chunk
Progress = Callable[[int, int], None]


def run_sweep(
    plan: Plan,
    members: list[dict[str, Any]],
    config: RunConfig,
    *,
    keep: KeepSpec = "traces",
    client: Any = None,
    chunk: int | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    workers: int | None = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Run the members (override dicts, noise seeds already set) of ``plan`` in chunks.

    Parameters
    ----------
    plan : Plan
        The compiled diagram.
    members : list of dict
        One ``{"block.param": value}`` dict per member.
    config : RunConfig
        The run options of every member.
    keep : str, list of str or callable
        What to keep of each member (:mod:`blocksim.engine.sweep.keep`).
    client : distributed.Client, optional
        Run each chunk as one task on this Dask cluster, results gathered in member order.
        Without it, chunks run here one after the other.
    chunk : int, optional
        Members per chunk (default :func:`~blocksim.engine.sweep.chunks.default_chunk`; on
        ``resume``, the folder's).
    out : path, optional
        Results folder for every chunk's full traces and an index
        (:mod:`blocksim.engine.sweep.folder`); with a cluster it must be on a file system the
        workers share.
    resume : bool
        Continue the batch in ``out``: only the chunks without a file run.
    workers : int, optional
        Processes of the interpreted back-end when running locally.
    progress : callable, optional
        ``progress(done, total)`` in members, after each chunk.

    Returns
    -------
    SweepResult
        The kept results in member order; members of chunks lost to a fault (a worker
        dying, after Dask's retries) are ``"failed"`` with a
        :class:`~blocksim.engine.record.MemberError` naming the fault. ``stats``:
        ``compile_time`` [s] and ``compile_cache`` of the compile done once before the
        chunks (:mod:`blocksim.engine.sweep.warm`; compiled back-end), ``run_time`` [s] of
        the chunks alone, ``members_per_second`` (members run over ``run_time``),
        ``chunks_compiled`` (chunks that compiled again: workers of another cache), and
        ``wall_time`` of it all.
    """
    t0 = time.perf_counter()
    if not members:
        raise ValueError("simulate_batch: `overrides` is empty; give one dict per member")
    if resume and out is None:
        raise ValueError(
            "simulate_batch: resume=True needs the results folder `out` of the batch to resume"
        )
    kept = resolve_keep(keep, plan)
    config = batch_config(resolve_backend(plan, config), len(members))
    if out is not None and folder_problem(Path(out)):
        raise UntrustedFileError(folder_problem(Path(out)))
    folder = folder_path(out)
    M = len(members)
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in LIMIT_OPTIONS}
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "diagram": plan.name,
        "diagram_sha256": plan_digest(plan),
        "members": M,
        "config": jsonable(settings),
        "signals": list(plan.signal_names),
    }
    if chunk is None and resume and folder is not None:
        chunk = _folder_chunk(folder)
    if chunk is None:
        chunk = default_chunk(plan, config, M, _slots(client))
    if int(chunk) < 1:
        raise ValueError(
            f"simulate_batch: chunk={chunk}: expected a positive number of members per chunk"
        )
    _check_limits(plan, config, int(chunk))
    check_members(plan, members)  # bad overrides end here, before any chunk is submitted
    ranges = bounds(M, int(chunk))
    meta.update(chunk=int(chunk), chunks=[list(r) for r in ranges])
    done = open_folder(folder, meta, members, resume)[0] if folder is not None else set()
    asm = Assembler(members)
    times = recorded_times(plan, config) if done else None
    for k in sorted(done):  # resumed chunks: checked, then kept parts from their files
        a, b = ranges[k]
        spec = ChunkSpec(k, a, b, tuple(plan.signal_names), plan.nx,
                         tuple(plan.signal_shapes), times,
                         json.loads(dumps(members[a:b])), config.max_memory)
        start, full = read_chunk(folder, spec)  # type: ignore[arg-type]
        asm.add(start, apply_keep(full, kept))
    todo = [k for k in range(len(ranges)) if k not in done]
    state = {k: "done" for k in done}
    report = _Reporter(progress, M, sum(b - a for k, (a, b) in enumerate(ranges) if k in done))
    # compiled once here, before any chunk: workers sharing this cache load it (warm.py)
    warmed = warm(plan, members[ranges[todo[0]][0]], config) if todo else {}
    t_run = time.perf_counter()
    if client is None:
        for k in todo:
            a, b = ranges[k]
            part = run_chunk(plan, members[a:b], a, config, kept, k, folder, workers=workers)
            asm.add(a, part)
            state[k] = "done"
            report(b - a)
    else:
        from blocksim.engine.sweep.cluster import run_on_client

        run_on_client(client, plan, members, config, kept, ranges, todo, folder, asm, state, report)
    run_time = time.perf_counter() - t_run
    res = asm.result(empty_part(plan, config, kept))
    if folder is not None:
        write_index(folder, ranges, state, [int(m) for m in res.failed], res.errors, members)
        res.folder = folder
    wall = time.perf_counter() - t0
    lost = sum(b - a for k, (a, b) in enumerate(ranges) if state.get(k) == "lost")
    ran = sum(b - a for k, (a, b) in enumerate(ranges) if k in todo)
    res.stats.update(warmed)
    res.stats.update(
        wall_time=wall,
        run_time=run_time,
        members_run=ran,
        per_member=wall / M,
        backend=config.backend,
        nfailed=len(res.failed),
        chunk=int(chunk),
        chunks=len(ranges),
        chunks_run=len(todo),
        chunks_resumed=len(done),
        lost=lost,
        members_per_second=ran / run_time if run_time > 0 else float("nan"),
        scheduler="dask" if client is not None else "local",
    )
    return res


def seeded_members(plan: Plan, overrides: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each member's overrides with a member-specific seed for every noise block it does not
    seed itself (as :func:`~blocksim.engine.batch.simulate_batch` does before running)."""
    from blocksim.engine.batch import _seeded

    return _seeded(plan, [dict(o) for o in overrides])


class _Reporter:
    def __init__(self, progress: Progress | None, total: int, done: int):
        self.progress, self.total, self.done = progress, total, done
        if progress is not None and done:
            progress(done, total)

    def __call__(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done, self.total)


def _slots(client: Any) -> int:
    """Tasks the cluster runs at once (its worker threads); 1 without a client."""
    if client is None:
        return 1
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # a client that cannot say: assume one slot per CPU here
        return os.cpu_count() or 1


def _folder_chunk(folder: str) -> int | None:
    """The chunk size of the batch in ``folder`` (None if there is none), from its checked
    ``sweep.json``."""
    meta = read_meta(folder)
    return None if meta is None else int(meta["chunk"])


def _check_limits(plan: Plan, config: RunConfig, chunk: int) -> None:
    """The run limits: ``max_steps`` (and ``max_memory`` for one member's single run) of
    one member, and ``max_memory`` for what a chunk holds at once (its members' recordings
    at the major times: a batch in chunks holds one chunk before keeping only what ``keep``
    asks)."""
    from blocksim.engine.limits import RunLimitError, check_limits

    check_limits(plan, config, members=1)
    held = chunk * member_bytes(plan, config)
    limit = getattr(config, "max_memory", math.inf)
    if held > limit:
        raise RunLimitError(
            f"simulate_batch: a chunk of {chunk} members of '{plan.name}' would hold about "
            f"{held / 1e6:.3g} MB of recordings; the limit is max_memory = {limit / 1e6:.3g} "
            f"MB. Use a smaller chunk= (--chunk), record less often, or raise max_memory",
            limit="max_memory",
        )


def lost_error(exc: BaseException, start: int, stop: int) -> MemberError:
    """The error of members lost with their chunk's task."""
    return MemberError(
        type(exc).__name__,
        f"members {start}..{stop - 1} were lost with their chunk's task: "
        f"{exc}; rerun with resume=True (--resume) and the same results folder "
        f"to run only what is missing",
    )
