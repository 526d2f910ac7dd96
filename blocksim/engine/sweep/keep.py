"""What a batch keeps of each member: ``keep=`` of :func:`~blocksim.engine.batch.simulate_batch`.

A batch runs its members in chunks; after each chunk, only what ``keep`` asks for survives:

* ``"traces"`` — every recorded signal and state of every member (shape (M, n, ...));
* ``"final"`` — the values at the batch's last recorded time only (shape (M, 1, ...); NaN for
  a member that did not reach it: failed, or stopped earlier);
* a list of signal names — the full traces of those signals only (``x`` is then empty,
  shape (M, n, 0));
* a reduction: a callable ``f(chunk) -> {name: array}`` given the chunk's full
  :class:`~blocksim.engine.record.BatchResult` (m members) and returning per-member summaries,
  each an array of leading dimension m (e.g. :class:`Summaries`, or a cost function). The
  summaries land in ``result.summary``; ``t`` is then empty and ``x`` has shape (M, 0, nx).

Reductions run where the chunk ran (on the Dask workers for a cluster run), so a chunk's full
traces never travel.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blocksim.engine.errors import suggest
from blocksim.engine.plan import Plan
from blocksim.engine.record import BatchResult, MemberError

#: a chunk reduction: the chunk's full result -> per-member summaries (leading dim = members)
Reduction = Callable[[BatchResult], Mapping[str, Any]]
KeepSpec = str | Sequence[str] | Reduction

#: the statistics :class:`Summaries` computes over time, per member
STATS = ("final", "max_abs", "max", "min", "mean", "rms")


@dataclass
class SweepResult(BatchResult):
    """A :class:`~blocksim.engine.record.BatchResult` of a chunked or distributed batch.

    Extra attributes
    ----------------
    summary : dict
        Per-member summaries of a reduction ``keep`` (name -> array of shape (M, ...));
        empty otherwise.
    folder : str or None
        The results folder (``out=``) holding every chunk's full traces, if one was asked.
    """

    summary: dict[str, np.ndarray] = field(default_factory=dict)
    folder: str | None = None

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self.signals:
            return self.signals[name]
        if name in self.summary:
            return self.summary[name]
        known = list(self.signals) + list(self.summary)
        raise KeyError(f"no signal or summary '{name}'{suggest(name, known)}")


class Summaries:
    """Per-member statistics over time of chosen signals, a reduction for ``keep=``.

    Parameters
    ----------
    stats : sequence of str
        Among :data:`STATS`: ``"final"`` (value at the last recorded time), ``"max_abs"``,
        ``"max"``, ``"min"``, ``"mean"``, ``"rms"`` (over the recorded points the member
        reached; give ``record_dt`` for a regular grid). Default ``("final",)``.
    signals : sequence of str, optional
        ``"block.port"`` names (default: every signal of the diagram).

    Returns (when called on a chunk)
    --------------------------------
    dict
        ``"stat(block.port)"`` -> array of shape (m, *port shape), e.g.
        ``"max_abs(err.y)"``.
    """

    def __init__(self, stats: Sequence[str] = ("final",), signals: Sequence[str] | None = None):
        stats = [stats] if isinstance(stats, str) else list(stats)
        bad = [s for s in stats if s not in STATS]
        if bad or not stats:
            hint = suggest(bad[0], STATS) if bad else ""
            raise ValueError(
                f"Summaries: unknown statistic {bad[0]!r}{hint}; expected some "
                f"of {', '.join(STATS)}"
                if bad
                else f"Summaries: no statistic given; expected some of {', '.join(STATS)}"
            )
        self.stats = tuple(stats)
        self.signals = None if signals is None else tuple(signals)

    def __repr__(self) -> str:
        return f"Summaries({list(self.stats)!r}, signals={self.signals!r})"

    def __call__(self, chunk: BatchResult) -> dict[str, np.ndarray]:
        names = list(chunk.signals) if self.signals is None else self.signals
        out: dict[str, np.ndarray] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows give NaN
            for name in names:
                y = np.asarray(chunk[name], dtype=float)
                for stat in self.stats:
                    out[f"{stat}({name})"] = _statistic(stat, y)
        return out


def _statistic(stat: str, y: np.ndarray) -> np.ndarray:
    """One statistic over axis 1 (time) of ``y``, shape (m, n, *shape) -> (m, *shape)."""
    if stat == "final":
        return y[:, -1].copy() if y.shape[1] else np.full((y.shape[0], *y.shape[2:]), np.nan)
    if stat == "max_abs":
        return np.nanmax(np.abs(y), axis=1)
    if stat == "max":
        return np.nanmax(y, axis=1)
    if stat == "min":
        return np.nanmin(y, axis=1)
    if stat == "mean":
        return np.nanmean(y, axis=1)
    return np.sqrt(np.nanmean(y * y, axis=1))  # rms


@dataclass(frozen=True)
class Keep:
    """A checked ``keep=``: ``kind`` is ``"traces"``, ``"final"``, ``"signals"`` (with
    ``names``) or ``"reduce"`` (with ``reduce``)."""

    kind: str
    names: tuple[str, ...] = ()
    reduce: Reduction | None = None

    def describe(self) -> str:
        """A short text naming this choice (stored in a results folder)."""
        if self.kind == "signals":
            return "signals:" + ",".join(self.names)
        if self.kind == "reduce":
            return (
                f"reduce:{self.reduce!r}"
                if isinstance(self.reduce, Summaries)
                else f"reduce:{getattr(self.reduce, '__qualname__', type(self.reduce).__name__)}"
            )
        return self.kind


def resolve_keep(keep: KeepSpec, plan: Plan) -> Keep:
    """Check ``keep`` against the plan's signals; a clear error names what is wrong."""
    if isinstance(keep, str):
        if keep in ("traces", "final"):
            return Keep(keep)
        hint = suggest(keep, ["traces", "final"])
        raise ValueError(
            f"simulate_batch: keep={keep!r}: expected 'traces', 'final', a list "
            f"of signal names or a reduction callable{hint}"
        )
    if isinstance(keep, Summaries) and keep.signals is not None:
        _check_names(keep.signals, plan, "Summaries")
    if callable(keep):
        return Keep("reduce", reduce=keep)
    try:
        names = tuple(keep)
    except TypeError:
        raise TypeError(
            f"simulate_batch: keep={keep!r}: expected 'traces', 'final', a list "
            f"of signal names or a reduction callable"
        ) from None
    if not names:
        raise ValueError("simulate_batch: keep=[]: name at least one signal ('block.port')")
    _check_names(names, plan, "keep")
    return Keep("signals", names=names)


def _check_names(names: Sequence[str], plan: Plan, what: str) -> None:
    known = list(plan.signal_names)
    for n in names:
        if not isinstance(n, str) or n not in known:
            raise ValueError(
                f"simulate_batch: {what} names no signal {n!r}{suggest(str(n), known)}"
                f"; signals are 'block.port' names such as {known[0]!r}"
            )


def apply_keep(chunk: BatchResult, keep: Keep) -> SweepResult:
    """What ``keep`` retains of one chunk's full result (same members, same order)."""
    m = len(chunk)
    base = dict(
        overrides=chunk.overrides,
        status=chunk.status,
        stats=dict(chunk.stats),
        errors=list(chunk.errors),
    )
    if keep.kind == "traces":
        return SweepResult(chunk.t, chunk.x, dict(chunk.signals), **base)
    if keep.kind == "final":
        return SweepResult(
            chunk.t[-1:].copy(),
            chunk.x[:, -1:].copy(),
            {k: v[:, -1:].copy() for k, v in chunk.signals.items()},
            **base,
        )
    if keep.kind == "signals":
        return SweepResult(
            chunk.t, chunk.x[:, :, :0].copy(), {k: chunk.signals[k] for k in keep.names}, **base
        )
    assert keep.reduce is not None
    got = keep.reduce(chunk)
    if not isinstance(got, Mapping):
        raise TypeError(
            f"keep reduction {keep.describe()}: returned "
            f"{type(got).__name__}; expected a dict name -> array with one row "
            f"per member"
        )
    summary = {}
    for name, value in got.items():
        a = np.asarray(value)
        if a.ndim == 0 or a.shape[0] != m:
            raise ValueError(
                f"keep reduction {keep.describe()}: summary {name!r} has shape "
                f"{a.shape}; expected one row per member of the chunk ({m}, ...)"
            )
        summary[str(name)] = a
    return SweepResult(chunk.t[:0].copy(), chunk.x[:, :0].copy(), {}, summary=summary, **base)


class Assembler:
    """Puts kept chunk parts into member order; arrays are allocated from the first part
    (members of lost chunks stay NaN and are marked failed with their error)."""

    def __init__(self, members: list[dict[str, Any]]):
        self.members = members
        self.M = len(members)
        self.status = np.full(self.M, "failed", dtype=object)
        self.errors: list[MemberError | None] = [None] * self.M
        self.t: np.ndarray | None = None
        self.x: np.ndarray | None = None
        self.signals: dict[str, np.ndarray] = {}
        self.summary: dict[str, np.ndarray] = {}
        self.stats: dict[str, Any] = {}

    def add(self, start: int, part: SweepResult) -> None:
        """Members ``start .. start + len(part)`` from a kept chunk part."""
        stop = start + len(part)
        if self.x is None:
            self.t = part.t
            self.x = _nan_like(self.M, part.x)
            self.signals = {k: _nan_like(self.M, v) for k, v in part.signals.items()}
            self.summary = {k: _nan_like(self.M, v) for k, v in part.summary.items()}
        self.x[start:stop] = part.x
        for k, v in part.signals.items():
            self.signals[k][start:stop] = v
        for k, v in part.summary.items():
            self.summary[k][start:stop] = v
        self.status[start:stop] = np.asarray(part.status, dtype=object)
        self.errors[start:stop] = list(part.errors) if part.errors else [None] * len(part)
        for key in ("compile_time", "compile_cache"):
            if key in part.stats:
                self.stats.setdefault(key, part.stats[key])
        # chunks that compiled code rather than loading it (0 once the batch is warmed:
        # blocksim.engine.sweep.warm)
        cold = part.stats.get("compile_cache") == "cold"
        self.stats["chunks_compiled"] = self.stats.get("chunks_compiled", 0) + int(cold)
        # seconds spent in chunks (summed over the chunks that ran: on a cluster, the
        # workers' busy time)
        self.stats["chunk_time"] = self.stats.get("chunk_time", 0.0) + float(
            part.stats.get("chunk_time", 0.0)
        )

    def lose(self, start: int, stop: int, error: MemberError) -> None:
        """Members ``start .. stop`` were lost (their chunk's task failed)."""
        self.status[start:stop] = "failed"
        self.errors[start:stop] = [error] * (stop - start)

    def result(self, empty: SweepResult) -> SweepResult:
        """The assembled result; ``empty`` (a zero-member part) gives the layout when no chunk
        came back."""
        if self.x is None:
            self.add(0, empty)
        assert self.t is not None and self.x is not None
        status = np.array([str(s) for s in self.status])
        return SweepResult(
            self.t,
            self.x,
            self.signals,
            self.members,
            status,
            dict(self.stats),
            self.errors,
            summary=self.summary,
        )


def _nan_like(M: int, a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind in "fc":
        return np.full((M, *a.shape[1:]), np.nan, dtype=a.dtype)
    return np.zeros((M, *a.shape[1:]), dtype=a.dtype)
