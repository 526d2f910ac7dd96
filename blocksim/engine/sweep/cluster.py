"""Chunks of a batch as tasks on a Dask cluster (``distributed``, an optional dependency:
``pip install blocksim[distributed]``).

The plan is scattered to every worker once; each chunk is one task
(:func:`~blocksim.engine.sweep.chunks.task`: the compiled ensemble of its members on the
worker's thread, or the interpreted back-end member after member), which reduces its members
to what ``keep`` asks and writes their full traces to the results folder when there is one.
Results are taken as they complete and put in member order. Dask reschedules the tasks of a
worker that dies (up to its ``distributed.scheduler.allowed-failures``); a chunk that still
cannot finish is *lost*: its members are reported ``"failed"`` with their overrides and the
fault, the other chunks are kept, and a resumed batch runs only the lost ones.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

from blocksim.engine.config import RunConfig
from blocksim.engine.plan import Plan
from blocksim.engine.sweep.chunks import Refused, task
from blocksim.engine.sweep.keep import Assembler, Keep
from blocksim.engine.sweep.warm import warm_workers


def faults() -> tuple[type[BaseException], ...]:
    """Exceptions of a chunk's task that mean its members were lost (the worker died, the
    connection dropped, the task was cancelled), not that the batch is wrong."""
    from distributed import KilledWorker

    return (KilledWorker, CancelledError, OSError, TimeoutError, MemoryError)


def run_on_client(
    client: Any,
    plan: Plan,
    members: list[dict[str, Any]],
    config: RunConfig,
    keep: Keep,
    ranges: list[tuple[int, int]],
    todo: list[int],
    folder: str | None,
    asm: Assembler,
    state: dict[int, str],
    report: Callable[[int], None],
) -> None:
    """Submit chunks ``todo`` (member ``ranges``) to ``client``, put their kept parts into
    ``asm`` as they complete and mark them ``done`` or ``lost`` in ``state``.

    A refused override (checked before submitting, else returned by the task as
    :class:`~blocksim.engine.sweep.chunks.Refused`) or any other exception of a task (a
    reduction returning the wrong shape) cancels the remaining tasks and is raised here, as a
    local batch would raise it.
    """
    from distributed import as_completed

    from blocksim.engine.sweep.runner import lost_error

    if not todo:
        return
    lost_types = faults()
    tag = uuid.uuid4().hex[:10]
    [plan_f] = client.scatter([plan], broadcast=True, hash=False)
    # the parent compiled the chunks' code (runner.py); workers of another cache (another
    # machine) get it compiled once per cache, before any chunk is submitted
    warm_workers(client, plan_f, members[ranges[todo[0]][0]], config)
    futures = {}
    for k in todo:
        a, b = ranges[k]
        f = client.submit(
            task,
            plan_f,
            members[a:b],
            a,
            config,
            keep,
            k,
            folder,
            pure=False,
            key=f"blocksim-chunk-{tag}-{k:06d}",
        )
        futures[f] = k
    try:
        for f in as_completed(list(futures)):
            k = futures[f]
            a, b = ranges[k]
            try:
                part = f.result()
            except lost_types as exc:
                asm.lose(a, b, lost_error(exc, a, b))
                state[k] = "lost"
            else:
                if isinstance(part, Refused):  # a bad override: no traceback on the worker
                    raise part.error()
                asm.add(a, part)
                state[k] = "done"
            finally:
                f.release()
            report(b - a)
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        client.cancel([plan_f])
