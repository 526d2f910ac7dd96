"""The ``blocksim`` command: run, check and draw diagram files, list blocks, compare runs,
precompile the kernels (warmup), trim and linearize (analysis).

``main(argv)`` returns the exit status (0 success, 1 the task failed: simulation failure,
problems found, signals differ; 2 bad input: unreadable or invalid file, bad arguments), so
tests call it in-process; the console script ``blocksim`` calls it with ``sys.argv``.
The command modules are imported when the parser is built; a Ctrl-C while the command starts
(importing numpy, scipy, numba) ends it with one line and status 130
(:mod:`blocksim._startup`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importlib.metadata
    scans the installed distributions: ~25 ms that every other command line would pay)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ver = version("blocksim")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree
            ver = "unknown"
        print(f"blocksim {ver}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``blocksim`` command."""
    p = argparse.ArgumentParser(
        prog="blocksim", description="Block-diagram simulation from diagram files (JSON).",
        epilog="Run `blocksim COMMAND --help` for a command's options.")
    p.add_argument("--version", action=_Version, help="show the version and exit")
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    from blocksim.cli import (
        blocks,
        check,
        compare,
        draw,
        edit,
        export_fmu,
        hw,
        linearize,
        run,
        sweep,
        warmup,
    )

    for module in (run, check, draw, blocks, compare, warmup, sweep, hw, edit, linearize,
                   export_fmu):
        module.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status
    (130 and one line on stderr after Ctrl-C)."""
    try:
        from blocksim.cli.common import BAD_INPUT, CliError, plain_warnings

        p = parser()
        try:
            args = p.parse_args(list(argv) if argv is not None else None)
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return int(exc.code or 0)
        if not hasattr(args, "command"):
            p.print_help(sys.stderr)
            return BAD_INPUT
        from blocksim._startup import command_starts

        command_starts()  # Ctrl-C raises KeyboardInterrupt from here (partial results kept)
        try:
            with plain_warnings():  # one line per warning, no quoted source line
                return int(args.command(args))
        except CliError as exc:
            for line in exc.lines:
                print(line, file=sys.stderr)
            return exc.code
    except KeyboardInterrupt:
        print("blocksim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `blocksim blocks | head`: the reader left; nothing to say
        _quiet_stdout()
        return 0


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit does not fail again on the
    closed pipe (and print a traceback) after a BrokenPipeError."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (captured): nothing to redirect
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
