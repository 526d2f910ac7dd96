"""``blocksim check FILE``: every problem of a diagram file at once, or a short description.

``check`` validates what ``run`` validates, with the same code: the file (loader), the
diagram (compiler), the run settings (:func:`blocksim.engine.config.file_config`, with the
same overriding options) and the run's size against its limits
(:func:`blocksim.engine.limits.check_limits`). A file ``check`` accepts is not refused by
``run`` with the same options.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from blocksim.cli.common import (
    BAD_INPUT,
    FAILED,
    OK,
    CliError,
    add_run_options,
    compile_file,
    echo,
    load_file,
    problem_report,
    run_settings,
)
from blocksim.engine.config import RunConfig
from blocksim.engine.limits import RunLimitError, check_limits
from blocksim.engine.plan import Plan
from blocksim.io.load import DiagramFile


def add_parser(sub: Any) -> None:
    """Register the ``check`` command."""
    p = sub.add_parser(
        "check",
        help="validate a diagram file and report every problem",
        description="Load and compile a diagram file, check its run settings "
        "and the run's size against the limits; print every "
        "problem with its line and JSON path. Exit status: 0 no "
        "problem, 1 problems found, 2 unreadable file or bad "
        "arguments.",
    )
    p.add_argument("file", help="diagram file (.json)")
    p.add_argument(
        "--set",
        action="append",
        metavar="TARGET=VALUE",
        help="check with these overrides (as for run)",
    )
    p.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also print the evaluation order, states and clocks",
    )
    add_run_options(p)
    p.set_defaults(command=check)


def check(args: argparse.Namespace) -> int:
    """Check ``args.file``; problems go to stdout (they are the command's report). A file that
    cannot be read at all, or bad arguments, end with status 2."""
    if not Path(args.file).exists():
        raise CliError(BAD_INPUT, [f"{args.file}: no such file"])
    try:
        df = load_file(args.file, args.set, args.allow_dir)
    except CliError as exc:
        if exc.lines and exc.lines[0].startswith("--set"):
            raise
        for line in exc.lines:
            echo(line)
        return FAILED
    lines, plan = check_loaded(df, args)
    for line in lines:
        echo(line)
    if plan is None:
        return FAILED
    if args.verbose:
        echo(plan.describe())
    return OK


def check_loaded(df: DiagramFile, args: argparse.Namespace) -> tuple[list[str], Plan | None]:
    """What ``blocksim check`` prints for the loaded file ``df`` (``args``: its run options,
    ``args.file`` its name as given): every problem of its settings, its compile and its run
    limits, or the one ``OK`` line; and the plan, None when there are problems (the editor's
    check says the same, :func:`blocksim.web.session.check_text`)."""
    config, problems = None, []
    try:
        config = run_settings(args, df.simulation)
    except CliError as exc:
        problems.append(
            exc.lines[0].replace(f"{args.file}: ", f"{df.source.name}: simulation: ", 1)
        )
    try:
        plan = compile_file(df, config)
    except CliError as exc:
        problems = [line.strip() for line in exc.lines[1:]] + problems
    else:
        if config is not None and (p := limit_problem(df.source.name, plan, config)):
            problems.append(p)
    if problems:
        return problem_report(df.source.name, problems), None
    n_sub = sum(1 for e in plan.entries if "/" in e.name)
    return [
        f"{args.file}: OK - {len(plan.entries)} blocks"
        f"{f' ({n_sub} inside subsystems)' if n_sub else ''}, {len(plan.signal_names)} "
        f"signals, {plan.nx} continuous and {plan.xd0.size} discrete states, "
        f"{len(plan.clocks)} clock{'s' if len(plan.clocks) != 1 else ''}"
    ], plan


def limit_problem(file: str, plan: Plan, config: RunConfig) -> str | None:
    """Why a run of ``plan`` with ``config`` would be refused for its size, or None. The
    back-end ``auto`` is costed as the compiled one (the larger recording)."""
    try:
        check_limits(plan, config)
    except RunLimitError as exc:
        return f"{file}: simulation: {exc}"
    return None
