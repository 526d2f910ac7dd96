"""Ensembles: parameter sweeps and Monte Carlo runs of one diagram.

``simulate_batch(diagram, overrides, T, ...)`` runs one member per ``{"block.param": value}``
dict. In the compiled back-end the members run in parallel in one numba ``prange`` loop over
rows of the flat parameter vectors (the diagram is compiled once); in the interpreted back-end
they run in a process pool. Noise blocks get a seed per member, written into that member's
overrides, so ``simulate(with_overrides(diagram, batch.overrides[m]), T)`` re-runs member m
alone and gives the same trace.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import multiprocessing
import os
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from blocksim.engine.compile import compile_diagram
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError, suggest
from blocksim.engine.plan import Plan


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
        new = type(old)(**{**old.params, **changes})
        new.__dict__["_name"] = old.name
        entries[k] = dataclasses.replace(entries[k], block=new)
    x0 = np.concatenate([np.asarray(e.block.x0, float).reshape(-1) for e in entries
                         if not e.discrete] or [np.zeros(0)])
    xd0 = np.concatenate([np.asarray(e.block.x0, float).reshape(-1) for e in entries
                          if e.discrete] or [np.zeros(0)])
    return dataclasses.replace(plan, entries=tuple(entries), x0=x0, xd0=xd0)


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


@dataclasses.dataclass
class BatchResult:
    """The members of an ensemble, recorded at common times.

    Attributes
    ----------
    t : ndarray, shape (n,)
        Recorded times [s] (the major times: clock hits, breakpoints, the record grid, T).
    x : ndarray, shape (M, n, nx)
        Continuous state of each member.
    signals : dict
        ``"block.port"`` -> array of shape (M, n, *shape).
    overrides : list of dict
        Each member's overrides (including the per-member noise seeds).
    status : ndarray of str, shape (M,)
        ``"success"``, ``"failed"`` or ``"stopped"`` per member.
    stats : dict
        ``wall_time``, ``per_member`` [s], ``compile_time``, ``backend``, ...
    """

    t: np.ndarray
    x: np.ndarray
    signals: dict[str, np.ndarray]
    overrides: list[dict[str, Any]]
    status: np.ndarray
    stats: dict[str, Any]

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self.signals:
            return self.signals[name]
        raise KeyError(f"no signal '{name}'{suggest(name, self.signals)}")

    def __len__(self) -> int:
        return len(self.overrides)


_POOL_PLAN: Plan | None = None


def _run_member(args: tuple[dict[str, Any], float, dict[str, Any]]) -> Any:
    from blocksim.engine.simulate import simulate

    ov, T, options = args
    assert _POOL_PLAN is not None
    try:
        return simulate(with_overrides(_POOL_PLAN, ov), T, **options)
    except Exception as exc:
        return getattr(exc, "result", None)


def simulate_batch(diagram: Diagram | Plan, overrides: Iterable[Mapping[str, Any]], T: float,
                   solver: str = "RK45", *, backend: str = "auto", rtol: float = 1e-6,
                   atol: float = 1e-9, max_step: float = math.inf, dt: float | None = None,
                   record_dt: float | None = None, workers: int | None = None,
                   specialize: bool = False) -> BatchResult:
    """Run one simulation per override dict; see the module docstring.

    ``backend="compiled"`` (or ``"auto"`` when every block has kernels) runs the members in a
    numba ``prange`` loop; ``"interpreted"`` uses a pool of ``workers`` processes (default:
    the CPU count). Results are recorded at the major times only (add ``record_dt`` for a
    grid).
    """
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram)
    members = _seeded(plan, [dict(o) for o in overrides])
    if not members:
        raise ValueError("simulate_batch: `overrides` is empty; give one dict per member")
    plans = [with_overrides(plan, ov) for ov in members]
    options = dict(T=float(T), solver=solver, rtol=rtol, atol=atol, max_step=max_step, dt=dt,
                   record_dt=record_dt, event_tol=1e-10, specialize=specialize)
    from blocksim.engine.compiled.backend import METHODS, can_compile

    if backend == "auto":
        backend = "compiled" if solver in METHODS and can_compile(plan) else "interpreted"
    t0 = time.perf_counter()
    if backend == "compiled":
        from blocksim.engine.compiled.backend import run_batch_compiled

        res = run_batch_compiled(plans, options)
    else:
        res = _run_batch_interpreted(plans[0], members, options, workers)
    res.overrides = members
    res.stats["wall_time"] = time.perf_counter() - t0
    res.stats["per_member"] = res.stats["wall_time"] / len(members)
    res.stats["backend"] = backend
    return res


def _run_batch_interpreted(plan: Plan, members: list[dict[str, Any]], options: dict[str, Any],
                           workers: int | None) -> BatchResult:
    from blocksim.engine.compiled.backend import major_times

    global _POOL_PLAN
    T = options.pop("T")
    options.pop("event_tol")
    options.pop("specialize")
    times, _ = major_times(plan, T, {**options, "record_dt": options["record_dt"]})
    _POOL_PLAN = plan
    ctx = multiprocessing.get_context("fork") if "fork" in \
        multiprocessing.get_all_start_methods() else None
    n_workers = workers or os.cpu_count() or 1
    try:
        if n_workers == 1 or ctx is None:
            results = [_run_member((ov, T, options)) for ov in members]
        else:
            with ProcessPoolExecutor(n_workers, mp_context=ctx) as pool:
                results = list(pool.map(_run_member, [(ov, T, options) for ov in members]))
    finally:
        _POOL_PLAN = None
    x = np.full((len(members), len(times), plan.nx), np.nan)
    signals = {n: np.full((len(members), len(times), *s), np.nan)
               for n, s in zip(plan.signal_names, plan.signal_shapes)}
    status = []
    for m, r in enumerate(results):
        if r is None:
            status.append("failed")
            continue
        status.append(r.status)
        idx = np.searchsorted(r.t, times)
        ok = (idx < len(r.t)) & (np.abs(r.t[np.minimum(idx, len(r.t) - 1)] - times) <= 1e-9)
        x[m, ok] = r.x[idx[ok]]
        for name in plan.signal_names:
            signals[name][m, ok] = r[name][idx[ok]]
    return BatchResult(times, x, signals, [], np.array(status), {})


__all__ = ["BatchResult", "grid", "monte_carlo", "simulate_batch", "with_overrides"]
