"""Shared pieces of the command line: exit codes, loading with problems mapped to lines."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from blocksim.confine import PathRefused, typed_path
from blocksim.engine.compile import compile_diagram
from blocksim.engine.config import RunConfig, file_config
from blocksim.engine.errors import MAX_PROBLEMS, DiagramError, shown_problems
from blocksim.engine.plan import Plan
from blocksim.io.errors import DiagramFileError
from blocksim.io.load import DiagramFile, load

#: exit codes: success, failure of the task (simulation failed, problems found, signals
#: differ), bad input (unreadable or invalid file, bad arguments, a run over its limits),
#: interrupted (Ctrl-C)
OK, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130


class CliError(Exception):
    """Ends a command with ``code`` after printing ``lines`` to stderr."""

    def __init__(self, code: int, lines: list[str]):
        super().__init__("\n".join(lines))
        self.code = code
        self.lines = lines


def parse_sets(items: list[str] | None) -> dict[str, str]:
    """``["pid.Kp=2", "Ts=1e-3"]`` -> ``{"pid.Kp": "2", "Ts": "1e-3"}`` (values stay strings:
    the loader reads them by the file's rules)."""
    out: dict[str, str] = {}
    for item in items or []:
        target, eq, value = item.partition("=")
        target = target.strip()
        if not eq or not target or not re.fullmatch(r"[A-Za-z_][\w\-/]*(\.[A-Za-z_]\w*)?",
                                                   target):
            raise CliError(BAD_INPUT, [f"--set {item!r}: expected block.param=value (or "
                                       f"name=value for a shared parameter), e.g. "
                                       f"--set pid.Kp=2.5"])
        out[target] = value.strip()
    return out


def load_file(file: str, sets: list[str] | None,
              allow_dirs: list[str] | None = None) -> DiagramFile:
    """Load ``file`` with the ``--set`` overrides (included and data files from its folder or
    the ``--allow-dir`` folders), or end with :data:`BAD_INPUT` listing every problem."""
    overrides = parse_sets(sets)
    try:
        return load(file, overrides, allow_dirs=allow_dirs or ())
    except FileNotFoundError:
        raise CliError(BAD_INPUT, [f"{file}: no such file"]) from None
    except IsADirectoryError:
        raise CliError(BAD_INPUT, [f"{file}: is a directory, not a diagram file"]) from None
    except PermissionError:
        raise CliError(BAD_INPUT, [f"{file}: permission denied"]) from None
    except DiagramFileError as exc:
        raise CliError(BAD_INPUT, problem_report(file, exc.problems)) from None


#: default final time when neither the file nor --T gives one [s]
DEFAULT_T = 10.0


def add_run_options(p: Any) -> None:
    """The options ``run`` and ``check`` share: run settings (overriding the file's
    ``simulation`` section), limits, allowed folders."""
    p.add_argument("--T", type=float, help="final time [s] (default: the file's, else 10)")
    p.add_argument("--solver", help="RK45, RK23, DOP853, Radau, BDF, LSODA, euler, rk4")
    p.add_argument("--dt", type=float, help="step of the fixed-step solvers [s]")
    p.add_argument("--rtol", type=float, help="relative tolerance")
    p.add_argument("--atol", type=float, help="absolute tolerance")
    p.add_argument("--record-dt", type=float, help="record on a grid of this step [s]")
    p.add_argument("--backend", choices=["interpreted", "compiled", "auto"],
                   help="back-end (default: the file's, else interpreted)")
    p.add_argument("--fuse", choices=["auto", "yes", "no"],
                   help="compiled tier: yes = fused (one module per diagram, fastest run, "
                        "compiles once), no = data-wired (compiles nothing new), auto = fused "
                        "when already compiled (default: the file's, else auto)")
    p.add_argument("--realtime", type=float, nargs="?", const=1.0, metavar="FACTOR",
                   help="pace the run to the wall clock, FACTOR simulated seconds per second "
                        "(default 1.0; interpreted back-end)")
    p.add_argument("--overrun", choices=["warn", "skip", "abort"],
                   help="what a real-time run does when a clock hit is a period late "
                        "(default: the file's, else warn)")
    p.add_argument("--algebraic", choices=["error", "solve"],
                   help="an algebraic loop is an error naming it, or is solved at each "
                        "evaluation by Newton's method (default: the file's, else error)")
    p.add_argument("--max-steps", type=count, metavar="N",
                   help="most solver steps, clock hits or recorded points (default 1e7)")
    p.add_argument("--max-memory", type=memory_size, metavar="SIZE",
                   help="most memory of the recorded result, e.g. 500M or 8G (default 2G)")
    p.add_argument("--max-wall", type=seconds, metavar="SECONDS",
                   help="most wall-clock time of a real-time run, T / realtime (default "
                        "86400, a day)")
    p.add_argument("--allow-dir", action="append", metavar="DIR",
                   help="a folder subsystem and data files may also come from (besides the "
                        "diagram's own); repeatable")


def count(text: str) -> int:
    """``"1e6"`` or ``"1000000"`` -> 1000000 (a whole number >= 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value >= 1 and math.isfinite(value) and value == int(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite whole number >= 1")
    return int(value)


def seconds(text: str) -> float:
    """``"3600"`` -> 3600.0 (a finite number of seconds >= 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value >= 1 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds >= 1")
    return value


def memory_size(text: str) -> float:
    """``"500M"`` -> 5e8 bytes (suffixes k, M, G, T; none: bytes)."""
    scale = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
    t = text.strip().lower().removesuffix("b")
    factor = scale.get(t[-1:], 1.0)
    try:
        value = float(t[:-1] if t[-1:] in scale else t) * factor
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 500M, 8G)") from None
    if not (value >= 1 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite positive size")
    return value


def run_settings(args: argparse.Namespace, simulation: dict[str, Any]) -> RunConfig:
    """The run configuration of ``args.file``: its ``simulation`` section overridden by the
    options (:func:`blocksim.engine.config.file_config`, the one validation ``run`` and
    ``check`` share); a bad option ends with :data:`BAD_INPUT`."""
    given = {key: getattr(args, key, None) for key in
             ("T", "solver", "dt", "rtol", "atol", "record_dt", "realtime", "overrun",
              "backend", "max_steps", "max_memory", "max_wall", "algebraic")}
    fuse = getattr(args, "fuse", None)
    given["fuse"] = {"yes": True, "no": False}.get(fuse, fuse)
    try:
        return file_config(simulation, given, DEFAULT_T)
    except (TypeError, ValueError) as exc:
        raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None


def problem_report(file: str, problems: list[str]) -> list[str]:
    """A header and one line per problem (the first
    :data:`~blocksim.engine.errors.MAX_PROBLEMS`, then how many more)."""
    n = len(problems)
    return [f"{file}: {n} problem{'s' if n != 1 else ''}:"] + [
        f"  {p}" for p in shown_problems(problems)]


def locate_compile_problems(df: DiagramFile, err: DiagramError) -> list[str]:
    """Prefix each compile problem with the file and line of the block it names (wire
    problems already carry ``(at file:line)``)."""
    out = []
    for p in err.problems[:MAX_PROBLEMS]:  # only these are shown (problem_report)
        m = re.search(r"\(at ([^()\s]+:\d+)\)", p)
        if m:
            out.append(f"{m.group(1)}: {p.replace(m.group(0), '').replace('  ', ' ')}")
            continue
        quoted = re.findall(r"'([A-Za-z_][\w\-/]*)(?:\.[A-Za-z_]\w*)?'", p)
        ports = re.findall(r"([A-Za-z_][\w\-/]*)\.[A-Za-z_]\w*", p)
        for cand in quoted + ports:
            if cand in df.origins:
                source, jpath = df.origins[cand]
                out.append(f"{source.where(jpath)}: {p}")
                break
        else:
            out.append(f"{df.source.name}: {p}")
    return out + err.problems[MAX_PROBLEMS:]


def compile_file(df: DiagramFile, config: RunConfig | None = None) -> Plan:
    """Compile the loaded diagram (its algebraic loops solved when ``config.algebraic``, or
    without a configuration the file's ``simulation.algebraic``, is ``"solve"``), or end
    with :data:`BAD_INPUT` listing every problem at its line."""
    algebraic = config.algebraic if config is not None else df.simulation.get("algebraic")
    try:
        return compile_diagram(df.diagram, "solve" if algebraic == "solve" else "error")
    except DiagramError as exc:
        raise CliError(BAD_INPUT, problem_report(df.source.name,
                                                 locate_compile_problems(df, exc))) from None


def fmt_value(v: Any) -> str:
    """A signal value for a summary line: ``1.000683661`` or ``[0.1, 0.2, ...] (shape)``."""
    import numpy as np

    a = np.asarray(v)
    if a.ndim == 0:
        return f"{float(a):.10g}"
    flat = ", ".join(f"{x:.6g}" for x in a.reshape(-1)[:6])
    more = ", ..." if a.size > 6 else ""
    return f"[{flat}{more}] shape {a.shape}"


def echo(line: str = "", file: TextIO | None = None) -> None:
    """Print ``line`` to stdout (or ``file``)."""
    print(line, file=file or sys.stdout)


def output_path(path: str, what: str, suffixes: tuple[str, ...],
                allow: Sequence[str] | None = None) -> Path:
    """``path`` as a Path whose suffix is one of ``suffixes`` and whose directory exists, that
    does not leave the working folder through a symbolic link found there (unless into an
    ``allow`` folder: ``--allow-dir``) and is not a folder, pipe or device
    (:func:`blocksim.confine.typed_path`)."""
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise CliError(BAD_INPUT, [f"{what} {path!r}: use a file name ending in "
                                   f"{', '.join(suffixes)}"])
    if not p.parent.exists():
        raise CliError(BAD_INPUT, [f"{what} {path!r}: directory {str(p.parent)!r} does not "
                                   f"exist"])
    try:
        return typed_path(p, what, allow or ())
    except PathRefused as exc:
        raise CliError(BAD_INPUT, [str(exc)]) from None


def on_terminal(file: TextIO | None = None) -> bool:
    """Whether ``file`` (default: the current stderr) is a terminal: progress bars and
    status lines are drawn there only (in a log, tqdm's redraws would be lines of garbage)."""
    f = file if file is not None else sys.stderr
    try:
        return bool(f.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def bar_width(file: TextIO | None = None) -> int:
    """The width [columns] to draw a bar on the terminal ``file`` (default stderr): its own,
    or 100 where the terminal reports none (a pseudo-terminal nobody sized gives 0, and tqdm
    would then draw nothing at all)."""
    f = file if file is not None else sys.stderr
    try:
        return os.get_terminal_size(f.fileno()).columns or 100
    except (AttributeError, ValueError, OSError):
        return 100


def keep_redrawing(bar: Any, seconds: float = 1.0) -> threading.Event:
    """Redraw the tqdm ``bar`` every ``seconds`` on a daemon thread until the returned event
    is set: tqdm redraws only on updates, so its elapsed time would stand still through a
    long compile and the line would look frozen."""
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(seconds):
            bar.refresh()

    threading.Thread(target=tick, daemon=True).start()
    return stop


_PACKAGE = str(Path(__file__).resolve().parents[1])


def format_warning(message: Warning | str, category: type[Warning], filename: str,
                   lineno: int) -> str:
    """A warning as one line for the command line: ``blocksim: warning: MESSAGE`` for
    blocksim's own (issued from its package), ``warning: MESSAGE (Category, file:line)`` for
    another library's or a user's block: never the source line Python would quote."""
    text = " ".join(str(message).split())
    if str(Path(filename).resolve()).startswith(_PACKAGE):
        return f"blocksim: warning: {text}"
    return f"warning: {text} ({category.__name__}, {Path(filename).name}:{lineno})"


@contextmanager
def plain_warnings(to: TextIO | None = None) -> Iterator[None]:
    """While a command runs, print each warning as one line (:func:`format_warning`) on
    ``to`` (default: the current stderr) instead of Python's two lines (file, line number,
    category, then the quoted source line of the caller)."""
    saved = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        print(format_warning(message, category, filename, lineno),
              file=to or file or sys.stderr)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = saved
