"""``blocksim run FILE``: simulate a diagram file, show progress, summarise, save results."""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from blocksim.cli import background
from blocksim.cli.common import (
    BAD_INPUT,
    FAILED,
    INTERRUPTED,
    OK,
    CliError,
    add_run_options,
    bar_width,
    compile_file,
    echo,
    fmt_value,
    keep_redrawing,
    load_file,
    on_terminal,
    output_path,
    run_settings,
)
from blocksim.confine import PathRefused, replacing, typed_path
from blocksim.engine.compile_notice import watching
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import BlocksimError, SimulationError
from blocksim.engine.limits import RunLimitError, check_limits
from blocksim.engine.plan import Plan
from blocksim.engine.record import SimResult
from blocksim.engine.simulate import run_config
from blocksim.io.load import DiagramFile

#: at most this many final values in the summary
SUMMARY_SIGNALS = 24
_FIGURE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")


def add_parser(sub: Any) -> None:
    """Register the ``run`` command."""
    p = sub.add_parser("run", help="simulate a diagram file",
                       description="Simulate a diagram file and print a summary. Exit status: "
                                   "0 success, 1 the simulation failed (partial results are "
                                   "still written), 2 bad file, bad arguments or a run over "
                                   "its limits (--max-steps, --max-memory), 130 interrupted "
                                   "(Ctrl-C; partial results are still written).")
    p.add_argument("file", help="diagram file (.json)")
    p.add_argument("--set", action="append", metavar="TARGET=VALUE",
                   help="override a block parameter (block.param=value, sub/block.param=...) "
                        "or a shared parameter (name=value); repeatable")
    add_run_options(p)
    p.add_argument("--out", metavar="RUN.npz", help="save the recorded result (.npz)")
    p.add_argument("--plot", metavar="OUT.png",
                   help="save the diagram's scope figures (or a plot of every signal)")
    p.add_argument("--bag", metavar="DIR",
                   help="write the recorded signals as a ROS 2 bag (rosbag2, MCAP) into the "
                        "new folder DIR, stamped with the simulation time (docs/interop.md)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.set_defaults(command=run)


class Progress:
    """A tqdm bar on ``file`` that appears once a run has lasted ``delay`` seconds.

    Called with the simulated time by :func:`blocksim.simulate` (``progress=``).
    """

    def __init__(self, T: float, enabled: bool = True, delay: float = 1.0,
                 file: TextIO | None = None):
        self.T = T
        self.enabled = enabled and T > 0
        self.delay = delay
        self.file = file if file is not None else sys.stderr
        self.start = time.perf_counter()
        self.bar: Any = None
        self.last = 0.0

    def __call__(self, t: float) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.bar is None:
            if now - self.start < self.delay:
                return
            from tqdm import tqdm

            self.bar = tqdm(total=self.T, file=self.file, unit="s", desc="simulating",
                            ncols=bar_width(self.file),
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| t = {n:.4g} of "
                                       "{total:.4g} s [{elapsed}<{remaining}]")
        if now - self.last >= 0.1 or t >= self.T:
            self.bar.n = min(t, self.T)
            self.bar.refresh()
            self.last = now

    def close(self) -> None:
        """Finish the bar (if it was shown)."""
        if self.bar is not None:
            self.bar.close()


class CompileStatus:
    """A tqdm status line for the compiled back-end's compile announcements (installed as
    :data:`blocksim.engine.compiled.compile_watch.announce` while a run prepares): "compiling
    blocksim kernels, once per installation..." then "compiling diagram ...", with the
    elapsed time."""

    #: seconds between redraws of the elapsed time while a compile goes on
    TICK = 1.0

    def __init__(self, file: TextIO | None = None):
        self.file = file if file is not None else sys.stderr
        self.bar: Any = None
        self._stop: threading.Event | None = None
        self.said: list[str] = []

    def __call__(self, message: str) -> None:
        if not on_terminal(self.file):  # a log: each announcement once, as a plain line
            if message not in self.said:
                self.said.append(message)
                print(message, file=self.file, flush=True)
            return
        text = message.removeprefix("blocksim: ").rstrip(".")
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=None, file=self.file, desc=text,
                            bar_format="{desc} [{elapsed}]", ncols=bar_width(self.file))
            self._stop = keep_redrawing(self.bar, self.TICK)
        else:
            self.bar.set_description_str(text)

    def close(self) -> None:
        """Finish the status line (if it was shown)."""
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@contextmanager
def compile_status(enabled: bool) -> Iterator[CompileStatus]:
    """Show compile announcements as a tqdm status line (restores the previous announcer);
    yields the status (close it when the run starts)."""
    status = CompileStatus()
    if not enabled:
        yield status
        return
    # imported here: compile_watch imports numba (~0.3 s), which only a compiled run needs and
    # which every other command (check, blocks, draw, ...) would pay when the parser is built
    from blocksim.engine.compiled import compile_watch

    saved = compile_watch.announce
    compile_watch.announce = status
    try:
        yield status
    finally:
        compile_watch.announce = saved
        status.close()


@contextmanager
def notice_status(enabled: bool) -> Iterator[None]:
    """Show the interpreted numerics' compile notices (:mod:`blocksim.engine.compile_notice`)
    as a status line with a running elapsed time while the diagram is prepared."""
    if not enabled:
        yield
        return
    from blocksim.engine import compile_notice

    status = CompileStatus()
    saved = compile_notice.announce
    compile_notice.announce = status
    try:
        yield
    finally:
        compile_notice.announce = saved
        status.close()


def settings(args: argparse.Namespace, file_settings: dict[str, Any]) -> RunConfig:
    """The run configuration: the file's ``simulation`` section overridden by the
    arguments (:func:`blocksim.cli.common.run_settings`); a file's deprecated ``specialize``
    setting is ignored with a note on stderr."""
    if file_settings.get("specialize") is not None:
        echo(f"{args.file}: note: simulation.specialize is deprecated and ignored (the "
             f"compiled back-end always specialises now)", sys.stderr)
    return run_settings(args, file_settings)


def prepare(args: argparse.Namespace) -> tuple[DiagramFile, RunConfig, Plan]:
    """Everything ``run`` checks before simulating: the file, its run settings with the
    options, the diagram, the run's size against the limits (``check`` makes the same
    checks); a problem ends the command with :data:`BAD_INPUT`."""
    df = load_file(args.file, args.set, args.allow_dir)
    config = settings(args, df.simulation)
    if config.backend == "compiled" and config.fuse is not True:
        # a new installation: the data-wired loop compiles on another core meanwhile
        from blocksim.engine.compiled import prewarm

        prewarm.start(config.solver)
    # the dry run calls the blocks' numerics: a cold numba compile there is announced
    with watching(f"diagram '{df.diagram.name}'"):
        plan = compile_file(df, config)
    try:
        check_limits(plan, config)
    except RunLimitError as exc:
        raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None
    return df, config, plan


def run(args: argparse.Namespace) -> int:
    """Simulate ``args.file``; see :func:`add_parser` for the exit status."""
    out = output_path(args.out, "--out", (".npz",), args.allow_dir) if args.out else None
    plot = (output_path(args.plot, "--plot", _FIGURE_SUFFIXES, args.allow_dir)
            if args.plot else None)
    bag = bag_folder(args.bag, args.allow_dir) if args.bag else None
    with notice_status(not args.quiet):  # a cold dry run compiles the blocks' numerics
        _, config, plan = prepare(args)
    T = config.T
    bar = Progress(T, not args.quiet and on_terminal())  # a log gets no bar
    error: SimulationError | None = None
    interrupted: KeyboardInterrupt | None = None
    result: SimResult | None = None
    compiled = config.backend in ("compiled", "auto")
    try:
        with compile_status(compiled and not args.quiet) as status:
            def progress(t: float) -> None:
                status.close()  # compiled: the run has started
                bar(t)

            result = run_config(plan, config, progress=progress)
    except RunLimitError as exc:
        if exc.result is None:  # refused before it started: the file asks too much
            raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None
        error, result = exc, exc.result
    except SimulationError as exc:
        error, result = exc, exc.result
    except BlocksimError as exc:  # e.g. the compiled back-end cannot run this diagram
        raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None
    except KeyboardInterrupt as exc:
        interrupted, result = exc, getattr(exc, "result", None)
    finally:
        bar.close()
    written = write_outputs(result, out, plot, plan.name)
    if bag is not None and result is not None:
        written += write_run_bag(result, bag, plan)
    if interrupted is not None:
        when = float(result.t[-1]) if result is not None and len(result.t) else 0.0
        echo(f"{args.file}: interrupted at t = {when:.6g} s", sys.stderr)
        if written:
            echo(f"partial results written: {', '.join(written)}", sys.stderr)
        return INTERRUPTED
    if error is not None:
        when = error.time if error.time is not None else math.nan
        echo(f"{args.file}: simulation failed at t = {when:.6g} s: {error}", sys.stderr)
        if written:
            echo(f"partial results written: {', '.join(written)}", sys.stderr)
    if not args.quiet and result is not None:
        summary(result, plan.name, T)
        for w in written:
            echo(f"wrote {w}")
    elif result is not None and (note := overrun_note(result.stats)):
        echo(f"{args.file}: {note}", sys.stderr)  # quiet, but a late run says so
    if error is None and result is not None and background.wanted(config, result.stats):
        proc = background.start(args, config)
        echo(f"blocksim: compiling the fused tier of this diagram in the background (pid "
             f"{proc.pid}, seconds to a minute): its next runs take it", sys.stderr)
    return FAILED if error is not None else OK


def write_outputs(result: SimResult | None, out: Path | None, plot: Path | None,
                  name: str) -> list[str]:
    """Save ``result`` (complete or partial) to ``--out`` and ``--plot``; the files written.
    A second Ctrl-C while writing stops the writing (what is written stays)."""
    written: list[str] = []
    if result is None:
        return written
    try:
        if out is not None:
            result.save(out)
            written.append(str(out))
        if plot is not None:
            written += [str(p) for p in save_plots(result, plot, name)]
    except KeyboardInterrupt:
        pass
    return written


def bag_folder(path: str, allow: list[str] | None) -> Path:
    """``--bag DIR``: a new folder in an existing one, that does not leave the working folder
    through a symbolic link found there (unless into an ``--allow-dir`` folder), as ``--out``
    (:func:`blocksim.confine.typed_path`)."""
    p = Path(path)
    if p.exists() or p.is_symlink():
        raise CliError(BAD_INPUT, [f"--bag {path!r}: exists; name a new folder"])
    if not p.parent.is_dir():
        raise CliError(BAD_INPUT, [f"--bag {path!r}: directory {str(p.parent)!r} does not "
                                   f"exist"])
    try:
        return typed_path(p, "--bag", allow or ())
    except PathRefused as exc:
        raise CliError(BAD_INPUT, [str(exc)]) from None


def write_run_bag(result: SimResult, folder: Path, plan: Plan) -> list[str]:
    """Write ``result`` (complete or partial) as a ROS 2 bag in ``folder``: every signal, its
    message type chosen by the diagram's block types (:func:`blocksim.bags.write_bag`); the
    folder written, or nothing after a second Ctrl-C. A failure ends with :data:`BAD_INPUT`."""
    from blocksim.bags import BagError, write_bag

    try:
        write_bag(result, folder, blocks={e.name: e.block for e in plan.entries})
    except KeyboardInterrupt:
        return []
    except BagError as exc:
        raise CliError(BAD_INPUT, [f"--bag {str(folder)!r}: {exc}"]) from None
    return [str(folder)]


def save_plots(result: SimResult, path: Path, name: str) -> list[Path]:
    """Save the run's sink figures (Scope, XYGraph) to ``path`` (one: as is; several:
    ``<stem>-<block><suffix>``), or a plot of every signal when there is none."""
    from blocksim.viz.scope import plot_scope, save_figure

    figures = dict(result.figures)
    if not figures:
        names = result.signals[:8]
        figures = {"signals": plot_scope(result.t, [result[n] for n in names], labels=names,
                                         title=f"{name}: recorded signals")}
    def save(fig: Any, target: Path) -> Path:
        with replacing(target) as tmp:  # a link there is replaced, not written through
            save_figure(fig, tmp)
        return target

    if len(figures) == 1:
        return [save(next(iter(figures.values())), path)]
    return [save(fig, path.with_name(f"{path.stem}-{key.replace('/', '_')}{path.suffix}"))
            for key, fig in figures.items()]


def summary(result: SimResult, name: str, T: float) -> None:
    """Print the outcome, run statistics and the final value of every signal."""
    s = result.stats
    t_end = result.t[-1] if len(result.t) else 0.0
    head = f"{name}: {result.status}, t = {t_end:.6g} of {float(T):.6g} s"
    tier = f", {s['tier']} tier" if s.get("tier") else ""
    echo(head + f" ({s.get('solver', '?')}, {s.get('backend', '?')} back-end{tier})")
    if result.status == "stopped":
        echo(f"  {result.message}")
    parts = [f"{len(result.t)} points"]
    for key, label in (("nsteps", "steps"), ("nfev", "RHS evaluations"), ("nevents", "events")):
        if s.get(key):
            parts.append(f"{s[key]} {label}")
    if "wall_time" in s:
        parts.append(f"wall {s['wall_time'] * 1e3:.1f} ms")
    echo("  " + ", ".join(parts))
    rt = s.get("realtime")
    if rt:
        overruns = sum(c["overruns"] for c in rt["clocks"].values())
        echo(f"  real time x{rt['rate']:g}: max lateness {rt['max_lateness'] * 1e3:.2f} ms, "
             f"{_count(overruns, 'overrun')} (overrun={rt['overrun']!r})")
    for line in hardware_lines(s):
        echo(f"  {line}")
    if not len(result.t):
        return
    echo("final values:")
    names = result.signals
    width = max((len(n) for n in names[:SUMMARY_SIGNALS]), default=0)
    for n in names[:SUMMARY_SIGNALS]:
        echo(f"  {n:<{width}} = {fmt_value(result[n][-1])}")
    if len(names) > SUMMARY_SIGNALS:
        echo(f"  ... and {len(names) - SUMMARY_SIGNALS} more (save them with --out)")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def hardware_lines(stats: dict[str, Any]) -> list[str]:
    """One line per hardware block of the run (``stats["hardware"]``, written by
    :class:`~blocksim.blocks.hardware.base.HardwareBlock`): its device, exchanges, their
    median, 99th percentile and largest duration, overruns and skipped hits, its recording."""
    lines = []
    for name, h in (stats.get("hardware") or {}).items():
        text = (f"hardware {name} ({h.get('device', '?')}): "
                f"{_count(int(h.get('exchanges', 0)), 'exchange')}")
        if h.get("exchanges"):
            text += (f", median {h['median_exchange'] * 1e3:.3g} ms, 99th percentile "
                     f"{h['p99_exchange'] * 1e3:.3g} ms, max {h['max_exchange'] * 1e3:.3g} ms")
        text += (f", {_count(int(h.get('overruns', 0)), 'overrun')}, "
                 f"{int(h.get('skipped', 0))} skipped")
        if h.get("record"):
            text += f", recorded to {h['record']}"
        lines.append(text)
    return lines


def overrun_note(stats: dict[str, Any]) -> str | None:
    """One line saying how many real-time overruns a run had (the pacer's clocks and the
    hardware blocks'), or None when it had none: ``--quiet`` still prints it."""
    rt = stats.get("realtime") or {}
    paced = sum(int(c["overruns"]) for c in rt.get("clocks", {}).values())
    hw = {name: int(h.get("overruns", 0)) for name, h in (stats.get("hardware") or {}).items()}
    if not paced and not any(hw.values()):
        return None
    parts = [f"{_count(paced, 'real-time overrun')}"]
    if rt:
        parts[0] += (f" (max lateness {rt['max_lateness'] * 1e3:.3g} ms, "
                     f"overrun={rt.get('overrun')!r})")
    parts += [f"{name}: {_count(n, 'overrun')}" for name, n in hw.items() if n]
    return "; ".join(parts)
