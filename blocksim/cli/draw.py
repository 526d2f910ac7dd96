"""``blocksim draw FILE -o diagram.png``: a picture of a diagram file."""

from __future__ import annotations

import argparse
from typing import Any

from blocksim.cli.common import (
    BAD_INPUT,
    OK,
    CliError,
    compile_file,
    echo,
    load_file,
    output_path,
)


def add_parser(sub: Any) -> None:
    """Register the ``draw`` command."""
    p = sub.add_parser("draw", help="draw a diagram file (PNG, SVG or PDF)",
                       description="Draw the diagram left to right in evaluation order: blocks "
                                   "as boxes with port labels, wires, subsystems as frames. "
                                   "Exit status: 0 drawn, 2 bad file or bad arguments.")
    p.add_argument("file", help="diagram file (.json)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png",
                   help="picture to write: .png, .svg or .pdf")
    p.add_argument("--dpi", type=float, help="resolution of a PNG [dots per inch]")
    p.add_argument("--set", action="append", metavar="TARGET=VALUE",
                   help="draw with these overrides (as for run)")
    p.set_defaults(command=draw)


def draw(args: argparse.Namespace) -> int:
    """Draw ``args.file`` into ``args.output``."""
    from blocksim.viz.draw import draw_diagram

    out = output_path(args.output, "-o", (".png", ".svg", ".pdf"))
    df = load_file(args.file, args.set)
    plan = compile_file(df)
    try:
        draw_diagram(plan, out, dpi=args.dpi)
    except ValueError as exc:  # a resolution or figure size over the limits (viz.scope)
        raise CliError(BAD_INPUT, [f"{args.file}: --dpi: {exc}"]) from None
    echo(f"wrote {out}")
    return OK
