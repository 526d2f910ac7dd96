"""``blocksim export-fmu FILE -o model.fmu``: a diagram file as an FMI 2.0 co-simulation FMU."""

from __future__ import annotations

import argparse
from typing import Any

from blocksim.cli.common import BAD_INPUT, OK, CliError, echo, output_path


def add_parser(sub: Any) -> None:
    """Register the ``export-fmu`` command."""
    p = sub.add_parser(
        "export-fmu", help="write a diagram file as a co-simulation FMU (FMI 2.0)",
        description="Write the diagram file as an FMI 2.0 co-simulation FMU (made with "
                    "pythonfmu) whose slave steps blocksim: root Inport blocks are its inputs "
                    "(held over each step), root Outport blocks its outputs, root Constant "
                    "blocks of one number its parameters (without Outports: the --signal ones, "
                    "else those wired into the root scopes). Running it needs Python with "
                    "blocksim installed. Exit status: 0 written, 2 the diagram cannot be "
                    "exported (every reason listed). See docs/interop.md.")
    p.add_argument("file", help="diagram file (.json)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL.fmu",
                   help="the FMU to write")
    p.add_argument("--step", type=float, metavar="SECONDS",
                   help="communication step (default: the file's dt, else T/100)")
    p.add_argument("--T", type=float, metavar="SECONDS",
                   help="stop time of the default experiment (default: the file's T, else 10)")
    p.add_argument("--signal", action="append", metavar="BLOCK.PORT", dest="signals",
                   help="a signal the FMU outputs besides the root Outports (default without "
                        "Outports: the signals wired into the root scopes); repeatable")
    p.add_argument("--allow-dir", action="append", metavar="DIR",
                   help="a folder data files may also come from while the diagram is checked")
    p.set_defaults(command=export_fmu)


def export_fmu(args: argparse.Namespace) -> int:
    """Export ``args.file``; see :func:`add_parser` for the exit status."""
    from blocksim.fmi_export import ExportError
    from blocksim.fmi_export import export_fmu as export

    target = output_path(args.output, "-o", (".fmu",), args.allow_dir)
    try:
        spec = export(args.file, target, step=args.step, stop=args.T,
                      allow_dirs=tuple(args.allow_dir or ()),
                      outputs=tuple(args.signals or ()))
    except FileNotFoundError:
        raise CliError(BAD_INPUT, [f"{args.file}: no such file"]) from None
    except (ExportError, ValueError) as exc:
        raise CliError(BAD_INPUT, [f"{args.file}: cannot export an FMU:",
                                   *(f"  {line}" for line in str(exc).splitlines())]) from None

    def names(group: str) -> str:
        return ", ".join(f"{v['name']}[{v['size']}]" if v.get("size") else v["name"]
                         for v in spec[group]) or "(none)"

    echo(f"wrote {target}: FMI 2.0 co-simulation, step {spec['step']:g} s, stop "
         f"{spec['stop']:g} s")
    echo(f"  inputs: {names('inputs')}")
    echo(f"  outputs: {names('outputs')}")
    echo(f"  parameters: {names('parameters')}")
    return OK
