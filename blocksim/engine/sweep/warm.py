"""Compile a batch's diagram once, before its chunks run.

A compiled chunk compiles its diagram's code (or loads it from numba's disk cache) at its
first call. Chunks submitted to several Dask workers at once would each compile the same code
at the same time (two workers on two cores: each 20 s instead of one 8 s compile, and
every "compiling..." message twice). So the batch is *warmed* first:
:func:`warm` compiles (or loads) it in the calling process, with the chunks' own
configuration, by running the first member to ``T = 0``; numba writes the compiled code to
its cache on disk. Workers that share that cache (same machine, same ``NUMBA_CACHE_DIR`` and
``BLOCKSIM_CACHE_DIR``, same installation: :func:`cache_key`) then only load it; for every
other cache on the cluster (another machine), :func:`warm_workers` warms one worker of that
cache before the chunks are submitted, so each cache is filled once.

The compile time is measured here, apart from the run (:mod:`blocksim.engine.sweep.runner`
reports the rate over the run time only).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import time
from typing import Any

from blocksim.engine.config import RunConfig
from blocksim.engine.plan import Plan


def warm(plan: Plan, member: dict[str, Any], config: RunConfig) -> dict[str, Any]:
    """Compile (or load from the disk cache) what the chunks of a batch will run, here.

    Parameters
    ----------
    plan : Plan
        The batch's compiled plan.
    member : dict
        One member's overrides (the first): its plan is the one run, to ``T = 0``.
    config : RunConfig
        The chunks' configuration (with a concrete back-end and the batch's ``fuse``).

    Returns
    -------
    dict
        ``compile_time`` [s] (what the warm-up took), ``compile_cache`` (``"cold"``: code was
        compiled, ``"cached"``: loaded from the disk cache) and ``compiled_functions``; empty
        for the interpreted back-end, which compiles nothing.
    """
    if config.backend != "compiled":
        return {}
    from blocksim.engine.batch import with_overrides
    from blocksim.engine.compiled.backend import run_batch_compiled

    t0 = time.perf_counter()
    run = run_batch_compiled([with_overrides(plan, member)], dataclasses.replace(config, T=0.0),
                             threads=1)
    return {
        "compile_time": time.perf_counter() - t0,
        "compile_cache": run.stats.get("compile_cache", "cached"),
        "compiled_functions": run.stats.get("compiled_functions", 0),
    }


def cache_key() -> tuple[str, str, str, str]:
    """What decides whether two processes share compiled code on disk: the machine, numba's
    cache folder (``NUMBA_CACHE_DIR``; empty: next to the installed sources), blocksim's
    folder of generated modules and the installation's folder."""
    import numba

    import blocksim
    from blocksim.engine.compiled.modules import cache_dir

    return (socket.gethostname(), str(numba.config.CACHE_DIR or ""), str(cache_dir()),
            os.path.dirname(os.path.abspath(blocksim.__file__)))


def _warm_task(plan: Plan, member: dict[str, Any], config: RunConfig) -> dict[str, Any]:
    return dict(warm(plan, member, config), worker_pid=os.getpid())


def warm_workers(client: Any, plan: Any, member: dict[str, Any], config: RunConfig
                 ) -> list[dict[str, Any]]:
    """Warm one worker of every compiled-code cache of the cluster that is not this
    process's (:func:`cache_key`), all at once, and wait for them.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    plan : Plan or distributed.Future
        The batch's plan (scattered or not).
    member, config
        As for :func:`warm` (the parent has warmed its own cache already).

    Returns
    -------
    list of dict
        What each warmed worker reported (:func:`warm`'s dict and its ``worker_pid``);
        empty when every worker shares this process's cache (a local cluster), or the
        workers cannot say (they then compile at their first chunk, as before).
    """
    if config.backend != "compiled":
        return []
    try:
        keys = client.run(cache_key)
    except Exception:  # a worker that cannot answer: nothing to warm ahead
        return []
    here = cache_key()
    targets: dict[Any, str] = {}
    for address, key in sorted(keys.items()):
        if tuple(key) != here:
            targets.setdefault(tuple(key), address)
    futures = [client.submit(_warm_task, plan, member, config, workers=[address],
                             allow_other_workers=False, pure=False)
               for address in targets.values()]
    try:
        return list(client.gather(futures))
    finally:
        client.cancel(futures)


__all__ = ["cache_key", "warm", "warm_workers"]
