"""``blocksim blocks [--json] [TYPE ...]``: the catalog of block types for diagram files."""

from __future__ import annotations

import argparse
import json
from typing import Any

from blocksim.cli.common import BAD_INPUT, OK, CliError, echo
from blocksim.engine.errors import suggest


def add_parser(sub: Any) -> None:
    """Register the ``blocks`` command."""
    p = sub.add_parser("blocks", help="list the block types with ports and parameters",
                       description="The block catalog: each type's ports (names, shapes, "
                                   "units), parameters with defaults and units.")
    p.add_argument("types", nargs="*", metavar="TYPE", help="only these types")
    p.add_argument("--json", action="store_true", help="machine-readable JSON")
    p.set_defaults(command=blocks)


def blocks(args: argparse.Namespace) -> int:
    """Print the catalog (all types, or those named)."""
    from blocksim.io.catalog import catalog, format_entry

    entries = catalog()
    if args.types:
        known = {e["type"]: e for e in entries}
        bad = [t for t in args.types if t not in known]
        if bad:
            raise CliError(BAD_INPUT, [f"unknown block type {t!r}{suggest(t, known)}"
                                       for t in bad])
        entries = [known[t] for t in args.types]
    if args.json:
        echo(json.dumps(entries, indent=2))
    else:
        echo("\n\n".join(format_entry(e) for e in entries))
    return OK
