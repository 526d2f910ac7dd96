"""``blocksim check FILE``: every problem of a diagram file at once, or a short description."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from blocksim.cli.common import (
    BAD_INPUT,
    FAILED,
    OK,
    CliError,
    compile_file,
    echo,
    load_file,
    problem_report,
)
from blocksim.cli.run import DEFAULT_T
from blocksim.engine.config import RunConfig


def add_parser(sub: Any) -> None:
    """Register the ``check`` command."""
    p = sub.add_parser("check", help="validate a diagram file and report every problem",
                       description="Load and compile a diagram file; print every problem with "
                                   "its line and JSON path. Exit status: 0 no problem, 1 "
                                   "problems found.")
    p.add_argument("file", help="diagram file (.json)")
    p.add_argument("--set", action="append", metavar="TARGET=VALUE",
                   help="check with these overrides (as for run)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print the evaluation order, states and clocks")
    p.set_defaults(command=check)


def check(args: argparse.Namespace) -> int:
    """Check ``args.file``; problems go to stdout (they are the command's report). A file that
    cannot be read at all, or bad arguments, end with status 2."""
    if not Path(args.file).is_file():
        raise CliError(BAD_INPUT, [f"{args.file}: no such file"])
    try:
        df = load_file(args.file, args.set)
    except CliError as exc:
        if exc.lines and exc.lines[0].startswith("--set"):
            raise
        for line in exc.lines:
            echo(line)
        return FAILED
    problems = [] if (p := simulation_problem(df.source.name, df.simulation)) is None else [p]
    try:
        plan = compile_file(df)
    except CliError as exc:
        problems = [line.strip() for line in exc.lines[1:]] + problems
    if problems:
        for line in problem_report(df.source.name, problems):
            echo(line)
        return FAILED
    n_sub = sum(1 for e in plan.entries if "/" in e.name)
    echo(f"{args.file}: OK - {len(plan.entries)} blocks"
         f"{f' ({n_sub} inside subsystems)' if n_sub else ''}, {len(plan.signal_names)} "
         f"signals, {plan.nx} continuous and {plan.xd0.size} discrete states, "
         f"{len(plan.clocks)} clock{'s' if len(plan.clocks) != 1 else ''}")
    if args.verbose:
        echo(plan.describe())
    return OK


def simulation_problem(file: str, simulation: dict[str, Any]) -> str | None:
    """What is wrong with the file's ``simulation`` settings as a run configuration (``T``
    defaulting as for ``blocksim run``; the deprecated ``specialize`` ignored), or None."""
    options = {k: v for k, v in simulation.items() if k != "specialize"}
    try:
        RunConfig.from_mapping({"T": DEFAULT_T, **options})
    except (TypeError, ValueError) as exc:
        return f"{file}: simulation: {exc}"
    return None
