"""``blocksim edit [FILE]``: the diagram editor's local server (:mod:`blocksim.web`).

The first line on stdout is the address to open, with its access token (as Jupyter prints
it); the browser opens it unless ``--no-browser``. Ctrl-C stops the server (status 130, one
line on stderr). The server (starlette + uvicorn) is the ``editor`` extra.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from blocksim.cli.common import BAD_INPUT, INTERRUPTED, CliError, echo, problem_report


def add_parser(sub: Any) -> None:
    """Register the ``edit`` command."""
    p = sub.add_parser("edit", help="edit a diagram file in the browser (local server)",
                       description="Start the diagram editor's server on this machine and "
                                   "print its address (with an access token) as the first "
                                   "line. Saving writes only inside the current folder. "
                                   "Stop it with Ctrl-C (status 130); 2: bad file or "
                                   "arguments.")
    p.add_argument("file", nargs="?", help="diagram file (.json) in the current folder; "
                                           "a new name starts an empty diagram saved there "
                                           "(default: an empty diagram)")
    p.add_argument("--port", type=_port, default=0,
                   help="port to listen on (default: a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(command=edit)


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return value


def edit(args: argparse.Namespace) -> int:
    """Serve the editor until Ctrl-C."""
    from blocksim.io.errors import DiagramFileError

    try:
        from blocksim.web.server import make_server
    except ImportError as exc:  # starlette or uvicorn missing
        missing = (exc.name or "starlette").split(".")[0]
        raise CliError(BAD_INPUT, [f"blocksim edit needs the editor extra ({missing} is not "
                                   f"installed): python -m pip install 'blocksim[editor]'"]
                       ) from None
    from blocksim.web.session import EditorSession, SaveRefused

    if args.file is not None and Path(args.file).is_dir():
        raise CliError(BAD_INPUT, [f"{args.file}: is a directory, not a diagram file"])
    try:
        session = EditorSession(Path.cwd(), args.file)
    except SaveRefused as exc:
        raise CliError(BAD_INPUT, exc.problems) from None
    except DiagramFileError as exc:
        raise CliError(BAD_INPUT, problem_report(args.file, exc.problems)) from None
    except PermissionError:
        raise CliError(BAD_INPUT, [f"{args.file}: permission denied"]) from None
    try:
        server = make_server(session, args.host, args.port)
    except OSError as exc:
        raise CliError(BAD_INPUT, [f"--host {args.host} --port {args.port}: cannot listen: "
                                   f"{exc.strerror or exc}"]) from None
    try:
        echo(server.url)
        sys.stdout.flush()
        if args.file is not None and not (session.folder / session.name).exists():
            echo(f"{args.file}: new file (an empty diagram until saved)", sys.stderr)
        if not args.no_browser:
            import webbrowser

            webbrowser.open(server.url)
        server.serve_forever()
    except KeyboardInterrupt:
        echo("blocksim edit: stopped", sys.stderr)
        return INTERRUPTED
    finally:
        server.server_close()
    return 0
