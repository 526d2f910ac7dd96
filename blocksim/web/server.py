"""The HTTP server of ``blocksim edit``: the editor's JSON API on a local port.

:func:`make_server` builds an :class:`EditorServer` (a :class:`http.server.ThreadingHTTPServer`)
around an :class:`~blocksim.web.session.EditorSession`; ``server.url`` is the address to
open, with its access token. Every request is refused (403, one line) unless

* it carries the token (query ``token=...``, header ``Authorization: token ...``, or the
  cookie a ``GET /`` with the token sets: :mod:`blocksim.web.assets`),
* its ``Host`` header is ``127.0.0.1:PORT`` or ``localhost:PORT`` (or the address it was bound
  to), so a foreign name resolving to this machine (DNS rebinding) reaches nothing,
* its ``Origin`` header, when it has one, is this server's own origin (a page of another site
  cannot call the API, even with a stolen token).

The routes (bodies JSON, at most :data:`MAX_BODY` bytes; bad JSON is a 400 with one line):

==========================================  ===============================================
``GET /``                                   the editor's page (``static/index.html``)
``GET /assets/<name>``                      its files (``static/assets/<name>``)
``GET /api/blocks``                         the block catalog (``blocksim blocks --json``)
``GET /api/diagram``                        the current document (``docs/diagram-format.md``)
``PUT /api/diagram``                        replace it: ``{"ok", "problems"}`` of loading it
``POST /api/check``                         ``{"ok", "report", "problems"}`` as ``blocksim check``
``POST /api/run``                           ``{"T", "solver", "backend", ...}`` -> ``{"id"}``
``GET /api/run/<id>``                       state, progress, at the end the final values
``POST /api/run/<id>/stop``                 stop it (its partial result is kept)
``GET /api/run/<id>/result.npz``            the recorded result (``SimResult.load``)
``POST /api/save``                          ``{"path": "name.json"}`` (optional) -> ``{"path"}``
==========================================  ===============================================
"""

from __future__ import annotations

import html
import json
import re
import secrets
import shutil
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from blocksim.cli.common import CliError
from blocksim.io.errors import DiagramFileError
from blocksim.io.guard import MAX_FILE_BYTES
from blocksim.web.assets import (
    API_CSP,
    PAGE_CSP,
    SECURITY_HEADERS,
    STATIC_DIR,
    asset_file,
    content_type,
    given_token,
    index_file,
    token_cookie,
    token_ok,
)
from blocksim.web.marks import annotate
from blocksim.web.runs import Runs
from blocksim.web.session import EditorSession, SaveRefused, _settings_args, parse_document

#: largest request body [bytes]: the diagram file limit
MAX_BODY = MAX_FILE_BYTES

#: the keys ``POST /api/run`` accepts (the run options of ``blocksim run``)
RUN_OPTIONS = ("T", "solver", "dt", "rtol", "atol", "record_dt", "realtime", "overrun",
               "backend", "fuse", "max_steps", "max_memory", "max_wall")

_RUN_PATH = re.compile(r"^/api/run/([0-9a-f]{16})(/stop|/result\.npz|/traces)?$")


class HttpError(Exception):
    """Ends a request with ``status`` and ``{"error": message}`` (one line) plus ``extra``."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        lines = message.strip().splitlines()
        self.message = lines[0] if lines else ""
        self.extra = extra


class EditorServer(ThreadingHTTPServer):
    """The editor's server: its session, runs, token and the hosts it answers to."""

    daemon_threads = True

    def __init__(self, session: EditorSession, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, static_dir: Path | None = STATIC_DIR):
        super().__init__((host, port), _Handler)
        self.session = session
        #: the built front end (``index.html``, ``assets/``); ``None``: none
        self.static_dir = static_dir
        self.token = token or secrets.token_hex(24)
        self.port = self.server_address[1]
        self.host = host
        names = {"127.0.0.1", "localhost", host}
        if ":" in host:
            names.add(f"[{host}]")
        self.allowed_hosts = {f"{n}:{self.port}" for n in names}
        self.allowed_origins = {f"http://{h}" for h in self.allowed_hosts}
        self.scratch = Path(tempfile.mkdtemp(prefix="blocksim-edit-"))
        self.runs = Runs(self.scratch)
        self._catalog: list[dict[str, Any]] | None = None
        self._catalog_lock = threading.Lock()

    @property
    def url(self) -> str:
        """The address to open, with the token."""
        shown = "127.0.0.1" if self.host in ("127.0.0.1", "0.0.0.0", "") else self.host
        if ":" in shown:
            shown = f"[{shown}]"
        return f"http://{shown}:{self.port}/?token={self.token}"

    def catalog(self) -> list[dict[str, Any]]:
        with self._catalog_lock:
            if self._catalog is None:
                from blocksim.io.catalog import catalog

                self._catalog = catalog()
            return self._catalog

    def server_close(self) -> None:
        """Stop the runs, remove their files, close the socket."""
        self.runs.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        super().server_close()


def make_server(session: EditorSession, host: str = "127.0.0.1", port: int = 0,
                token: str | None = None, static_dir: Path | None = STATIC_DIR
                ) -> EditorServer:
    """An :class:`EditorServer` listening on ``host:port`` (``port`` 0: a free one), its page
    and files from ``static_dir``; serve it with ``serve_forever()`` and end it with
    ``shutdown()`` then ``server_close()``."""
    return EditorServer(session, host, port, token, static_dir)


class _Handler(BaseHTTPRequestHandler):
    server: EditorServer
    server_version = "blocksim-edit"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the terminal shows the URL line and nothing per request

    # -- dispatch ---------------------------------------------------------------------
    def do_GET(self) -> None:
        self._handle("GET")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def _handle(self, method: str) -> None:
        try:
            url = urlsplit(self.path)
            self._guard(url.query)
            self._route(method, url.path)
        except HttpError as exc:
            self._json({"error": exc.message, **exc.extra}, exc.status)
        except Exception as exc:
            print(f"blocksim edit: {method} {urlsplit(self.path).path}: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr)
            self._json({"error": f"internal error: {type(exc).__name__}: {exc}"}, 500)

    def _guard(self, query: str) -> None:
        host = self.headers.get("Host", "")
        if host not in self.server.allowed_hosts:
            raise HttpError(403, f"forbidden: Host {host!r} is not this server "
                                 f"(use 127.0.0.1:{self.server.port})")
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.allowed_origins:
            raise HttpError(403, f"forbidden: cross-origin request from {origin!r}")
        values = parse_qs(query).get("token")
        given, _ = given_token(self.headers.get("Authorization"),
                               values[0] if values else None, self.headers.get("Cookie"),
                               self.server.port)
        if not token_ok(given, self.server.token):
            raise HttpError(403, "forbidden: missing or wrong token (open the URL "
                                 "`blocksim edit` printed)")

    def _route(self, method: str, path: str) -> None:
        s = self.server
        if path in ("/", "/index.html") and method in ("GET", "HEAD"):
            index = index_file(s.static_dir)
            page = index.read_bytes() if index is not None else _page(s).encode()
            self._send(page, "text/html; charset=utf-8", 200, head_only=method == "HEAD",
                       headers={"Set-Cookie": token_cookie(s.port, s.token)}, csp=PAGE_CSP)
            return
        if path.startswith("/assets/") and method in ("GET", "HEAD"):
            name = path[len("/assets/"):]
            found = asset_file(s.static_dir, name)
            if found is None:
                raise HttpError(404, f"{path}: no such file")
            self._send(found.read_bytes(), content_type(name), 200,
                       head_only=method == "HEAD", csp=PAGE_CSP)
            return
        if path == "/api/blocks" and method == "GET":
            self._json(s.catalog())
        elif path == "/api/diagram" and method == "GET":
            self._json(s.session.document(), headers={"X-Blocksim-File": s.session.name})
        elif path == "/api/diagram" and method == "PUT":
            try:
                problems, loaded = s.session.replace_loaded(self._body())
            except ValueError as exc:
                raise HttpError(400, str(exc)) from None
            self._json({"ok": not problems, "problems": problems,
                        **annotate(s.session, s.catalog(), problems, loaded)})
        elif path == "/api/check" and method == "POST":
            self._body(optional=True)
            report = s.session.check()
            ok = ": OK" in report[0]
            problems = [] if ok else [line.strip() for line in report[1:]]
            self._json({"ok": ok, "report": report, "problems": problems,
                        **annotate(s.session, s.catalog(), problems)})
        elif path == "/api/run" and method == "POST":
            self._start_run(self._body(optional=True))
        elif path == "/api/save" and method == "POST":
            body = self._body(optional=True) or {}
            if not isinstance(body, dict) or set(body) - {"path"}:
                raise HttpError(400, 'save takes {"path": "name.json"} (optional)')
            try:
                target = s.session.save(body.get("path"))
            except SaveRefused as exc:
                status = 422 if len(exc.problems) > 1 else 400
                raise HttpError(status, exc.problems[0], problems=exc.problems) from None
            self._json({"ok": True, "path": str(target.relative_to(s.session.folder))})
        elif m := _RUN_PATH.match(path):
            self._run_route(method, m.group(1), m.group(2) or "")
        elif path.startswith("/api/") or path == "/":
            raise HttpError(405 if _known(path) else 404,
                            f"{method} {path}: " + ("method not allowed" if _known(path)
                                                    else "no such resource"))
        else:
            raise HttpError(404, f"{path}: no such resource")

    # -- runs -------------------------------------------------------------------------
    def _start_run(self, body: Any) -> None:
        s = self.server
        options = body or {}
        if not isinstance(options, dict):
            raise HttpError(400, "run takes an object of run options, e.g. "
                                 '{"T": 10, "solver": "RK45", "backend": "interpreted"}')
        unknown = sorted(set(options) - set(RUN_OPTIONS))
        if unknown:
            raise HttpError(400, f"unknown run option {unknown[0]!r}; the options are "
                                 f"{', '.join(RUN_OPTIONS)}")
        if "fuse" in options:
            options["fuse"] = {"yes": True, "no": False}.get(options["fuse"], options["fuse"])
        try:
            df = s.session.load()
        except DiagramFileError as exc:
            raise HttpError(422, exc.problems[0] if exc.problems else str(exc),
                            problems=list(exc.problems)) from None
        try:
            from blocksim.cli.common import run_settings

            run_settings(_settings_args(s.session.name, options), df.simulation)
        except CliError as exc:
            raise HttpError(400, exc.lines[0]) from None
        run = s.runs.start(s.session.text(), s.session.name, s.session.base_dir, options)
        self._json({"id": run.id, "url": f"/api/run/{run.id}"}, 202)

    def _run_route(self, method: str, run_id: str, tail: str) -> None:
        run = self.server.runs.get(run_id)
        if run is None:
            raise HttpError(404, f"no run {run_id!r}")
        if tail == "" and method == "GET":
            self._json(run.describe())
        elif tail == "/stop" and method == "POST":
            self._body(optional=True)
            self.server.runs.stop(run)
            self._json(run.describe())
        elif tail == "/traces" and method == "GET":
            # GET /api/run/<id>/traces[?signals=a.y,b.u]: the recorded traces as JSON
            # (blocksim.web.traces), for the page's plots
            if not run.finished:
                raise HttpError(409, f"run {run_id} is still {run.state}")
            if not run.has_npz or not run.npz.exists():
                raise HttpError(404, f"run {run_id} recorded no result ({run.state})")
            from blocksim.web.traces import TraceError, traces

            asked = parse_qs(urlsplit(self.path).query).get("signals")
            names = [n for n in asked[0].split(",") if n] if asked else None
            try:
                self._json(traces(run.npz, names))
            except TraceError as exc:
                raise HttpError(400, str(exc)) from None
        elif tail == "/result.npz" and method == "GET":
            if not run.finished:
                raise HttpError(409, f"run {run_id} is still {run.state}")
            if not run.has_npz or not run.npz.exists():
                raise HttpError(404, f"run {run_id} recorded no result ({run.state})")
            data = run.npz.read_bytes()
            self._send(data, "application/octet-stream", 200, headers={
                "Content-Disposition": f'attachment; filename="run-{run_id}.npz"'})
        else:
            raise HttpError(405, f"{method} {self.path.split('?')[0]}: method not allowed")

    # -- bodies and responses ---------------------------------------------------------
    def _body(self, optional: bool = False) -> Any:
        if self.headers.get("Transfer-Encoding"):
            raise HttpError(411, "send the body with a Content-Length (no chunked encoding)")
        length_text = self.headers.get("Content-Length")
        try:
            length = int(length_text) if length_text is not None else 0
        except ValueError:
            raise HttpError(400, f"bad Content-Length {length_text!r}") from None
        if length < 0:
            raise HttpError(400, f"bad Content-Length {length_text!r}")
        if length > MAX_BODY:
            self.close_connection = True
            raise HttpError(413, f"request body of {length} bytes is over the limit of "
                                 f"{MAX_BODY} bytes")
        raw = self.rfile.read(length) if length else b""
        if not raw.strip():
            if optional:
                return None
            raise HttpError(400, "a JSON body is needed")
        try:
            return parse_document(raw.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise HttpError(400, "bad JSON: the body is not UTF-8") from None
        except RecursionError:
            raise HttpError(400, "bad JSON: nested too deeply") from None
        except ValueError as exc:
            raise HttpError(400, f"bad JSON: {exc}") from None

    def _json(self, value: Any, status: int = 200, headers: dict[str, str] | None = None
              ) -> None:
        data = json.dumps(value, allow_nan=False).encode()
        self._send(data, "application/json", status, headers=headers)

    def _send(self, data: bytes, ctype: str, status: int, head_only: bool = False,
              headers: dict[str, str] | None = None, csp: str = API_CSP) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in SECURITY_HEADERS.items():
            self.send_header(k, v)
        self.send_header("Content-Security-Policy", csp)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not head_only:
            self.wfile.write(data)


def _known(path: str) -> bool:
    return path in ("/", "/api/blocks", "/api/diagram", "/api/check", "/api/run",
                    "/api/save")


def _page(server: EditorServer) -> str:
    """The page at ``/`` until the editor's front end is built: what the server is and its
    API, nothing that pretends to edit."""
    rows = "\n".join(
        f"<tr><td><code>{html.escape(m)}</code></td><td>{html.escape(w)}</td></tr>"
        for m, w in (
            ("GET /api/blocks", "the block catalog (as blocksim blocks --json)"),
            ("GET /api/diagram", "the current diagram document"),
            ("PUT /api/diagram", "replace the document; returns the problems of loading it"),
            ("POST /api/check", "every problem, as blocksim check prints them"),
            ("POST /api/run", 'start a run: {"T": ..., "solver": ..., "backend": ...}'),
            ("GET /api/run/<id>", "its progress, at the end the final value of every signal"),
            ("POST /api/run/<id>/stop", "stop it"),
            ("GET /api/run/<id>/result.npz", "the recorded result"),
            ("POST /api/save", 'save the document: {"path": "name.json"} (optional)'),
        ))
    name = html.escape(server.session.name)
    folder = html.escape(str(server.session.folder))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>blocksim edit: {name}</title>
<style>body{{font-family:sans-serif;max-width:50em;margin:2em auto}}
td{{padding:.2em 1em .2em 0;vertical-align:top}}</style></head>
<body>
<h1>blocksim edit</h1>
<p><strong>The editor page is not built yet.</strong> This server already offers the
editor's JSON API, which the page will use; it can be called from scripts and tests.</p>
<p>Document: <code>{name}</code> in <code>{folder}</code> (saving writes only inside this
folder).</p>
<p>Every request needs the token: the <code>token</code> query parameter of this page's
address, or the header <code>Authorization: token ...</code>.</p>
<table>
{rows}
</table>
</body></html>
"""
