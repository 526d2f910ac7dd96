"""``blocksim sweep FILE``: a parameter grid or a Monte-Carlo batch of a diagram file, here or
on a Dask cluster, reduced to per-member summaries, full traces in a results folder on request.

Exit status: 0 every member succeeded, 1 some failed (they are listed with their overrides
and errors in ``DIR/index.json`` with ``--out``), 2 bad file or bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.cli.common import (
    BAD_INPUT,
    FAILED,
    OK,
    CliError,
    bar_width,
    compile_file,
    count,
    echo,
    load_file,
    memory_size,
    on_terminal,
)
from blocksim.cli.run import settings
from blocksim.engine.batch import grid as grid_of
from blocksim.engine.errors import BlocksimError, suggest
from blocksim.engine.plan import Plan
from blocksim.engine.sweep import STATS, Summaries, SweepResult, run_sweep, seeded_members, table
from blocksim.engine.sweep.folder import folder_problem
from blocksim.engine.sweep.table import swept_keys
from blocksim.engine.sweep.untrusted import UntrustedFileError

#: most members of a sweep from the command line (``--max-members`` raises it): the members'
#: overrides are built and kept in memory (about 0.5 kB each) before the first one runs
MAX_MEMBERS = 1_000_000

#: distributions of ``--vary``: name -> (number of arguments, draw(rng, *args))
DISTRIBUTIONS = {
    "normal": (2, lambda rng, mu, sigma: float(rng.normal(mu, sigma))),
    "uniform": (2, lambda rng, lo, hi: float(rng.uniform(lo, hi))),
    "lognormal": (2, lambda rng, mu, sigma: float(rng.lognormal(mu, sigma))),
}
#: at most this many summaries printed
SHOWN = 24


def add_parser(sub: Any) -> None:
    """Register the ``sweep`` command."""
    p = sub.add_parser(
        "sweep",
        help="run a parameter grid or Monte-Carlo batch of a diagram file",
        description="Run one member per grid point (--grid) or per random draw "
        "(--monte-carlo), locally or on a Dask cluster, and print per-member summaries. Exit "
        "status: 0 every member succeeded, 1 some failed, 2 bad file or bad arguments.",
    )
    p.add_argument("file", help="diagram file (.json)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--grid",
        action="append",
        metavar="BLOCK.PARAM=START:STOP:N",
        help="an axis of the grid: N values from START to STOP, or a list V1,V2,...; "
        "repeat for more axes (every combination runs)",
    )
    what.add_argument("--monte-carlo", type=int, metavar="N", help="N random members")
    p.add_argument("--seed", type=int, default=0, help="seed of --monte-carlo (default 0)")
    p.add_argument(
        "--vary",
        action="append",
        metavar="BLOCK.PARAM=DIST:A:B",
        help="with --monte-carlo: draw a parameter per member, DIST one of "
        f"{', '.join(DISTRIBUTIONS)} (normal:MEAN:STD, uniform:LOW:HIGH); noise blocks get a "
        "seed per member drawn from --seed",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, tcp://host:port")
    where.add_argument(
        "--local-cluster", type=int, metavar="WORKERS", help="start a local Dask cluster"
    )
    p.add_argument(
        "--summary",
        action="append",
        metavar="STATS",
        help=f"per-member statistics, comma-separated, of {', '.join(STATS)} (default final)",
    )
    p.add_argument("--signals", metavar="A.Y,B.Y", help="summarise these signals (default all)")
    p.add_argument("--out", metavar="DIR", help="write every member's traces (npz per chunk)")
    p.add_argument("--resume", action="store_true", help="finish the batch in --out DIR")
    p.add_argument("--chunk", type=int, help="members per chunk (task)")
    p.add_argument("--T", type=float, help="final time [s] (default: the file's, else 10)")
    p.add_argument("--set", action="append", metavar="TARGET=VALUE", help="as for run")
    p.add_argument("--solver", help="RK45, RK23, DOP853, Radau, BDF, LSODA, euler, rk4")
    p.add_argument("--dt", type=float, help="step of the fixed-step solvers [s]")
    p.add_argument("--rtol", type=float, help="relative tolerance")
    p.add_argument("--atol", type=float, help="absolute tolerance")
    p.add_argument("--record-dt", type=float, help="record on a grid of this step [s]")
    p.add_argument(
        "--backend", choices=["interpreted", "compiled", "auto"], help="back-end (default auto)"
    )
    p.add_argument("--max-members", type=count, metavar="N", default=MAX_MEMBERS,
                   help=f"most members of the sweep (default {MAX_MEMBERS:.0e}); counted "
                        f"before any is built")
    p.add_argument("--max-steps", type=count, metavar="N",
                   help="most solver steps, clock hits or recorded points of a member "
                        "(default 1e7)")
    p.add_argument("--max-memory", type=memory_size, metavar="SIZE",
                   help="most memory of a chunk's recordings, and of a chunk file read back "
                        "on --resume, e.g. 500M or 8G (default 2G)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.set_defaults(command=sweep)


def _grid_error(item: str, why: str = "") -> CliError:
    return CliError(
        BAD_INPUT,
        [
            f"--grid {item!r}: {why}expected block.param=start:stop:n (n >= 1) or "
            f"block.param=v1,v2,..., e.g. --grid pid.Kp=1:10:10"
        ],
    )


def _finite(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError
    return v


def axis_spec(item: str) -> tuple[str, tuple[float, float, int] | list[float]]:
    """``"pid.Kp=1:10:10"`` -> ``("pid.Kp", (1.0, 10.0, 10))``; ``"pid.Kp=1,2,5"`` ->
    ``("pid.Kp", [1.0, 2.0, 5.0])``: an axis checked and counted, not yet built (finite
    numbers, a whole count n >= 1)."""
    target, eq, spec = item.partition("=")
    target = target.strip()
    if not eq or "." not in target:
        raise _grid_error(item)
    try:
        if ":" in spec:
            start, stop, n = spec.split(":")
            if int(n) < 1:
                raise ValueError
            return target, (_finite(start), _finite(stop), int(n))
        return target, [_finite(v) for v in spec.split(",")]
    except ValueError:
        raise _grid_error(item, "finite numbers and a whole n >= 1 are ") from None


def axis_count(spec: tuple[float, float, int] | list[float]) -> int:
    """Values on an axis of :func:`axis_spec`."""
    return spec[2] if isinstance(spec, tuple) else len(spec)


def parse_axis(item: str) -> tuple[str, list[float]]:
    """``"pid.Kp=1:10:10"`` -> ``("pid.Kp", [1.0, 2.0, ..., 10.0])``; ``"pid.Kp=1,2,5"`` ->
    the listed values."""
    target, spec = axis_spec(item)
    if isinstance(spec, tuple):
        start, stop, n = spec
        return target, [float(v) for v in np.linspace(start, stop, n)]
    return target, spec


def member_count(args: argparse.Namespace) -> int:
    """Members the arguments ask for, counted without building any (the product of the grid
    axes' counts, or ``--monte-carlo N``); refused over ``--max-members``."""
    limit = args.max_members
    if args.grid:
        axes = [axis_spec(a) for a in args.grid]
        names = [t for t, _ in axes]
        twice = sorted({t for t in names if names.count(t) > 1})
        if twice:
            raise CliError(BAD_INPUT, [f"--grid: axis {twice[0]!r} given twice; give each "
                                       f"parameter one --grid"])
        n = math.prod(axis_count(spec) for _, spec in axes)
        what = " x ".join(str(axis_count(spec)) for _, spec in axes)
        what = f"a grid of {what} = {n} members" if len(axes) > 1 else f"a grid of {n} members"
    else:
        n, what = args.monte_carlo, f"--monte-carlo {args.monte_carlo}"
    if n > limit:
        raise CliError(
            BAD_INPUT,
            [
                f"{what}: more than the limit of {limit} members (--max-members "
                f"{limit}); give fewer values, or raise the limit with --max-members N"
            ],
        )
    return n


def parse_vary(item: str) -> tuple[str, Any]:
    """``"plant.m=normal:1:0.1"`` -> ``("plant.m", draw)`` with ``draw(rng)`` a float."""
    target, eq, spec = item.partition("=")
    name, *args = spec.split(":")
    if not eq or "." not in target or name not in DISTRIBUTIONS:
        hint = suggest(name, DISTRIBUTIONS) if eq else ""
        raise CliError(
            BAD_INPUT,
            [
                f"--vary {item!r}: expected block.param=DIST:A:B with DIST one of "
                f"{', '.join(DISTRIBUTIONS)}{hint}, e.g. --vary plant.m=normal:1:0.1"
            ],
        )
    nargs, draw = DISTRIBUTIONS[name]
    try:
        values = [_finite(a) for a in args]
        if len(values) != nargs or (name != "uniform" and values[1] < 0):
            raise ValueError
    except ValueError:
        raise CliError(
            BAD_INPUT, [f"--vary {item!r}: {name} takes {nargs} numbers (finite, a spread "
                        f">= 0), e.g. {name}:1:0.1"]
        ) from None
    return target.strip(), lambda rng: draw(rng, *values)


def members_of(args: argparse.Namespace, plan: Plan) -> list[dict[str, Any]]:
    """The members' overrides: the grid's points, or ``--monte-carlo`` draws (with a seed per
    noise block drawn from ``--seed``), counted before they are built
    (:func:`member_count`)."""
    if args.monte_carlo is not None and args.monte_carlo < 1:
        raise CliError(BAD_INPUT, [f"--monte-carlo {args.monte_carlo}: expected N >= 1"])
    member_count(args)
    if args.grid:
        return grid_of(dict(parse_axis(a) for a in args.grid))
    draws = dict(parse_vary(v) for v in args.vary or [])
    noisy = [e.name for e in plan.entries if "seed" in type(e.block)._param_names]
    rng = np.random.default_rng(args.seed)
    members = []
    for _ in range(args.monte_carlo):
        m = {name: draw(rng) for name, draw in draws.items()}
        m.update({f"{b}.seed": int(rng.integers(0, 2**62)) for b in noisy})
        members.append(m)
    return members


def summaries_of(args: argparse.Namespace) -> Summaries:
    stats = [s.strip() for item in args.summary or ["final"] for s in item.split(",") if s]
    signals = [s.strip() for s in args.signals.split(",")] if args.signals else None
    try:
        return Summaries(stats, signals)
    except ValueError as exc:
        raise CliError(BAD_INPUT, [f"--summary: {exc}"]) from None


@contextlib.contextmanager
def dask_client(args: argparse.Namespace) -> Iterator[Any]:
    """The Dask client of ``--scheduler`` / ``--local-cluster`` (None without them)."""
    if args.scheduler is None and args.local_cluster is None:
        yield None
        return
    try:
        import distributed
    except ImportError:
        raise CliError(
            BAD_INPUT,
            ["--scheduler/--local-cluster need Dask: pip install 'blocksim[distributed]'"],
        ) from None
    if args.local_cluster is not None:
        if args.local_cluster < 1:
            raise CliError(BAD_INPUT, [f"--local-cluster {args.local_cluster}: expected >= 1"])
        cluster = distributed.LocalCluster(
            n_workers=args.local_cluster,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        with cluster, distributed.Client(cluster) as client:
            yield client
        return
    try:
        client = distributed.Client(args.scheduler, timeout=30)
    except (OSError, TimeoutError, ValueError) as exc:
        raise CliError(
            BAD_INPUT, [f"--scheduler {args.scheduler}: cannot connect ({exc})"]
        ) from None
    with client:
        yield client


class Bar:
    """A tqdm bar of finished members on stderr (``progress(done, total)``)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, file=sys.stderr, unit="member", desc="sweep",
                            ncols=bar_width())
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(args: argparse.Namespace) -> int:
    """Run ``blocksim sweep``; see :func:`add_parser` for the exit status."""
    if args.vary and not args.monte_carlo:
        raise CliError(BAD_INPUT, ["--vary needs --monte-carlo N"])
    if args.resume and not args.out:
        raise CliError(BAD_INPUT, ["--resume needs the results folder --out DIR"])
    if args.chunk is not None and args.chunk < 1:
        raise CliError(BAD_INPUT, [f"--chunk {args.chunk}: expected >= 1"])
    if args.monte_carlo is not None and args.monte_carlo < 1:
        raise CliError(BAD_INPUT, [f"--monte-carlo {args.monte_carlo}: expected N >= 1"])
    member_count(args)  # before the file is even read: counted, not built
    if args.out and folder_problem(Path(args.out)):
        raise CliError(BAD_INPUT, [f"--out: {folder_problem(Path(args.out))}"])
    keep = summaries_of(args)
    df = load_file(args.file, args.set)
    if args.backend is None and "backend" not in df.simulation:
        args.backend = "auto"
    config = settings(args, df.simulation)
    plan = compile_file(df, config)
    members = members_of(args, plan)
    bar = Bar(not args.quiet and on_terminal())  # a log gets no bar
    t0 = time.perf_counter()
    try:
        with dask_client(args) as client:
            where = "local" if client is None else f"Dask scheduler {client.scheduler.address}"
            res = run_sweep(
                plan,
                seeded_members(plan, members),
                config,
                keep=keep,
                client=client,
                chunk=args.chunk,
                out=args.out,
                resume=args.resume,
                progress=bar,
            )
        if args.out:
            save_summary(res, Path(args.out) / "summary.npz")
    except UntrustedFileError as exc:  # names the results folder's file at fault
        raise CliError(BAD_INPUT, [str(exc)]) from None
    except (BlocksimError, ValueError, TypeError, KeyError) as exc:
        raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None
    except OSError as exc:  # the results folder cannot be written
        where_ = f"'{exc.filename}'" if exc.filename else f"--out {args.out!r}"
        raise CliError(BAD_INPUT, [f"{where_}: {exc.strerror or exc}"]) from None
    finally:
        bar.close()
    if not args.quiet:
        report(res, plan.name, where, time.perf_counter() - t0, args.out, swept(args))
    return FAILED if len(res.failed) else OK


def save_summary(res: SweepResult, path: Path) -> None:
    """``summary.npz``: every summary (M, ...), each member's status, and each overridden
    parameter as an array (``param:block.param``) when it is a number in every member.
    Written as a new file renamed into place (a link there is replaced, not written
    through)."""
    arrays = {f"summary:{k}": v for k, v in res.summary.items()}
    names = sorted({k for m in res.overrides for k in m})
    for n in names:
        values = [m.get(n) for m in res.overrides]
        if all(isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63
               for v in values):
            arrays[f"param:{n}"] = np.array(values, dtype=np.int64)  # seeds: every digit
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            arrays[f"param:{n}"] = np.array(values, dtype=float)
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex}.tmp.npz")
    try:
        np.savez(tmp, status=np.array([str(s) for s in res.status]), **arrays)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def swept(args: argparse.Namespace) -> list[str]:
    """The parameters that name the members: the grid's axes or the ``--vary`` parameters
    (none for a Monte Carlo of seeds only: its seeds then name them)."""
    if args.grid:
        return [axis_spec(a)[0] for a in args.grid]
    return [parse_vary(v)[0] for v in args.vary or []]


def report(res: SweepResult, name: str, where: str, wall: float, out: str | None,
           keys: list[str] | None = None) -> None:
    """Print the outcome: where it ran, the compile and run times (the rate over the run
    only), a table of the members (named by their swept values) with their status and kept
    statistics, each statistic's range, and the failures by swept values."""
    s = res.stats
    keys = swept_keys(res.overrides, keys or ())
    echo(
        f"{name}: {len(res)} members on {where} ({s.get('backend', '?')} back-end, "
        f"{s['chunks']} chunk{'s' * (s['chunks'] != 1)} of {s['chunk']}); "
        f"{table.failures(res, keys)}"
    )
    echo("  " + timing(s, wall))
    seeds = sorted({k for m in res.overrides for k in m if k.endswith(".seed")} - set(keys))
    if seeds and not keys:
        echo(f"  the members differ in their noise seeds only ({', '.join(seeds)}: each "
             f"member's in summary.npz with --out)")
    if s.get("chunks_resumed"):
        echo(f"  resumed: {s['chunks_resumed']} chunks read from {Path(out or '')}, "
             f"{s['chunks_run']} run")
    for line in table.member_table(res, keys, SHOWN):
        echo(line)
    if res.summary:
        echo("ranges over the members:")
        for line in table.range_lines(res, keys, SHOWN):
            echo(line)
    if out:
        echo(f"wrote {Path(out)} (index.json, sweep.json, chunk-*.npz, summary.npz)")


def timing(stats: dict[str, Any], wall: float) -> str:
    """``"compile 8.1 s (compiled once, before the run), run 0.52 s: 15.4 members/s (total
    8.9 s)"``: the rate counts the members run over the run time only."""
    run, ran = stats.get("run_time", wall), stats.get("members_run", 0)
    parts = []
    if "compile_time" in stats:
        how = ("compiled once, before the run" if stats.get("compile_cache") == "cold"
               else "loaded from the cache")
        again = stats.get("chunks_compiled", 0)
        if again:
            how += f"; {again} chunk{'s' * (again != 1)} compiled again on workers with " \
                   f"another cache"
        parts.append(f"compile {stats['compile_time']:.2f} s ({how})")
    rate = f": {ran / run:.4g} members/s" if ran and run > 0 else ""
    parts.append(f"run {run:.2f} s{rate}")
    return ", ".join(parts) + f" (total {wall:.2f} s)"
