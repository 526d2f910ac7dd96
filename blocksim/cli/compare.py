"""``blocksim compare A.npz B.npz``: per-signal differences of two saved runs."""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.cli.common import (
    BAD_INPUT,
    FAILED,
    OK,
    CliError,
    echo,
    memory_size,
    output_path,
)
from blocksim.engine.record import SimResult


def add_parser(sub: Any) -> None:
    """Register the ``compare`` command."""
    p = sub.add_parser("compare", help="compare two saved runs (.npz) signal by signal",
                       description="Print the largest absolute difference of every signal "
                                   "recorded in both runs (interpolated onto a common time grid "
                                   "where the times differ). Exit status: 0 all within --tol, "
                                   "1 a signal differs or is missing from one run, 2 bad "
                                   "arguments.")
    p.add_argument("a", help="first run (.npz written by `blocksim run --out`)")
    p.add_argument("b", help="second run")
    p.add_argument("--tol", type=float, default=1e-6,
                   help="largest accepted absolute difference (default 1e-6)")
    p.add_argument("--plot", metavar="OUT.png", help="overlay plot of the signals")
    p.add_argument("--max-memory", type=memory_size, metavar="SIZE",
                   help="most memory the arrays of each file may take once read, e.g. 500M "
                        "or 8G (default 2G; a file over it is refused before it is inflated)")
    p.set_defaults(command=compare)


def load_result(path: str, max_memory: float | None = None) -> SimResult:
    """A saved :class:`SimResult`, read as untrusted input (bounded: see
    :meth:`SimResult.load`), or end with :data:`BAD_INPUT` and one line."""
    from blocksim.engine.sweep.untrusted import UntrustedFileError

    try:
        return SimResult.load(path, max_memory=max_memory)
    except UntrustedFileError as exc:
        raise CliError(BAD_INPUT, [str(exc)]) from None
    except (OSError, ValueError, KeyError, TypeError, IndexError, zipfile.BadZipFile) as exc:
        raise CliError(BAD_INPUT, [f"{path}: not a saved blocksim run ({type(exc).__name__}: "
                                   f"{exc})"[:400]]) from None


def _last_at_each_time(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = np.r_[t[1:] != t[:-1], True] if t.size else np.zeros(0, dtype=bool)
    return t[keep], y[keep]


def on_grid(result: SimResult, name: str, grid: np.ndarray) -> np.ndarray:
    """Signal ``name`` of ``result`` linearly interpolated at the times ``grid``, shape
    ``(len(grid), elements)`` (at an instant recorded twice, e.g. an event, the later value)."""
    y = np.asarray(result[name], dtype=float).reshape(len(result.t), -1)
    t, y = _last_at_each_time(result.t, y)
    return np.stack([np.interp(grid, t, y[:, k]) for k in range(y.shape[1])], axis=1)


def differences(a: SimResult, b: SimResult) -> tuple[np.ndarray, dict[str, tuple[float, float]],
                                                      list[str]]:
    """Common grid, ``{signal: (max |a - b|, time of it)}`` for the signals of both runs, and
    problems (signals in one run only, different shapes, no overlap in time)."""
    problems = [f"signal {n!r} only in {w}" for w, x, y in (("A", a, b), ("B", b, a))
                for n in x.signals if n not in y.signals]
    same_t = a.t.shape == b.t.shape and np.array_equal(a.t, b.t)
    if same_t:
        grid = a.t
    else:
        lo, hi = max(a.t[0], b.t[0]), min(a.t[-1], b.t[-1])
        grid = np.unique(np.concatenate([a.t, b.t]))
        grid = grid[(grid >= lo) & (grid <= hi)]
        if not grid.size:
            problems.append("the runs do not overlap in time")
    out: dict[str, tuple[float, float]] = {}
    for n in a.signals:
        if n not in b.signals or not grid.size:
            continue
        if np.shape(a[n])[1:] != np.shape(b[n])[1:]:
            problems.append(f"signal {n!r} has shape {np.shape(a[n])[1:]} in A and "
                            f"{np.shape(b[n])[1:]} in B")
            continue
        if same_t:
            ya = np.asarray(a[n], dtype=float).reshape(len(grid), -1)
            yb = np.asarray(b[n], dtype=float).reshape(len(grid), -1)
        else:
            ya, yb = on_grid(a, n, grid), on_grid(b, n, grid)
        d = np.abs(ya - yb).max(axis=1) if ya.size else np.zeros(len(grid))
        d = np.where(np.isnan(d), np.inf, d)
        k = int(np.argmax(d)) if d.size else 0
        out[n] = (float(d[k]) if d.size else 0.0, float(grid[k]) if d.size else 0.0)
    return grid, out, problems


def compare(args: argparse.Namespace) -> int:
    """Compare the runs ``args.a`` and ``args.b``."""
    plot = output_path(args.plot, "--plot", (".png", ".svg", ".pdf")) if args.plot else None
    if not args.tol >= 0:
        raise CliError(BAD_INPUT, [f"--tol must be >= 0, got {args.tol}"])
    a, b = load_result(args.a, args.max_memory), load_result(args.b, args.max_memory)
    for name, r in ((args.a, a), (args.b, b)):
        if not len(r.t):
            raise CliError(BAD_INPUT, [f"{name}: the saved run has no recorded points"])
    grid, diffs, problems = differences(a, b)
    echo(f"A = {args.a} ({len(a.t)} points), B = {args.b} ({len(b.t)} points); "
         f"{'same times' if grid is a.t else f'{len(grid)} common grid points'}")
    width = max((len(n) for n in diffs), default=6)
    echo(f"  {'signal':<{width}}  {'max |A-B|':>12}  {'at t [s]':>10}")
    bad = 0
    for n, (d, t) in diffs.items():
        flag = "" if d <= args.tol else "  > tol"
        bad += d > args.tol
        echo(f"  {n:<{width}}  {d:12.4g}  {t:10.6g}{flag}")
    for p in problems:
        echo(f"  {p}")
    if plot is not None:
        overlay(a, b, list(diffs), plot, Path(args.a).name, Path(args.b).name)
        echo(f"wrote {plot}")
    verdict = "differ" if bad or problems else "agree"
    echo(f"{len(diffs)} signals compared, {bad} above tol {args.tol:g}: the runs {verdict}")
    return FAILED if bad or problems else OK


def overlay(a: SimResult, b: SimResult, names: list[str], path: Path, la: str,
            lb: str) -> None:
    """Plot each signal of both runs (A solid, B dashed), one axes per signal (at most 8)."""
    from blocksim.viz.scope import new_figure, save_figure

    names = names[:8] or ["(no common signal)"]
    fig = new_figure(figsize=(8.0, min(14.0, 2.2 * len(names))))
    axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
    for ax, n in zip(axes, names):
        if n in a.signals and n in b.signals:
            ax.plot(a.t, np.asarray(a[n]).reshape(len(a.t), -1), "-", lw=1.2)
            ax.set_prop_cycle(None)
            ax.plot(b.t, np.asarray(b[n]).reshape(len(b.t), -1), "--", lw=1.2)
        ax.set_ylabel(n, fontsize=8)
        ax.grid(True)
    axes[0].set_title(f"{la} (solid) vs {lb} (dashed)")
    axes[-1].set_xlabel("t [s]")
    save_figure(fig, path)
