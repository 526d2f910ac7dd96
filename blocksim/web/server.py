"""The HTTP server of ``blocksim edit``: the editor's page and JSON API on a local port.

A starlette application served by uvicorn (the ``editor`` extra). :func:`make_server` builds
an :class:`EditorServer` around an :class:`~blocksim.web.session.EditorSession` and binds its
socket (so ``server.port`` and ``server.url``, the address to open with its access token, are
known before it serves); ``serve_forever()`` serves in the calling thread, ``shutdown()`` (from
another thread) ends it, ``server_close()`` stops the runs and frees the socket. Every request
is refused (403, one line) unless

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
``PUT /api/diagram``                        replace it: ``{"ok", "problems", "marks", "ports"}``
``POST /api/check``                         ``{"ok", "report", "problems", "marks", "ports"}``
``POST /api/run``                           ``{"T", "solver", "backend", ...}`` -> ``{"id"}``
``GET /api/run/<id>``                       state, progress, at the end the final values
``POST /api/run/<id>/stop``                 stop it (its partial result is kept)
``GET /api/run/<id>/result.npz``            the recorded result (``SimResult.load``)
``GET /api/run/<id>/traces``                its signals for plotting (``?signals=a.y,b.y``)
``POST /api/save``                          ``{"path": "name.json"}`` (optional) -> ``{"path"}``
==========================================  ===============================================

Endpoints that call blocking code (loading, checking, starting a worker, reading files) run it
in starlette's thread pool, so one slow request does not hold the others.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

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
from blocksim.web.page import explanatory_page
from blocksim.web.runs import Runs
from blocksim.web.session import EditorSession, SaveRefused, _settings_args, parse_document

#: largest request body [bytes]: the diagram file limit
MAX_BODY = MAX_FILE_BYTES

#: the keys ``POST /api/run`` accepts (the run options of ``blocksim run``)
RUN_OPTIONS = ("T", "solver", "dt", "rtol", "atol", "record_dt", "realtime", "overrun",
               "backend", "fuse", "max_steps", "max_memory", "max_wall")

#: seconds ``shutdown()`` lets requests under way finish
GRACE = 5

_KNOWN = ("/", "/index.html", "/api/blocks", "/api/diagram", "/api/check", "/api/run",
          "/api/save")


class HttpError(Exception):
    """Ends a request with ``status`` and ``{"error": message}`` (one line) plus ``extra``."""

    def __init__(self, status: int, message: str, **extra: Any):
        super().__init__(message)
        self.status = status
        lines = message.strip().splitlines()
        self.message = lines[0] if lines else ""
        self.extra = extra


def _json(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(value, allow_nan=False), status, headers=headers,
                    media_type="application/json")


def _error(exc: HttpError) -> Response:
    headers = {"Connection": "close"} if exc.status == 413 else None
    return _json({"error": exc.message, **exc.extra}, exc.status, headers)


class EditorServer:
    """The editor's server: its session, runs, token, socket and the hosts it answers to."""

    def __init__(self, session: EditorSession, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, static_dir: Path | None = STATIC_DIR):
        self.session = session
        #: the built front end (``index.html``, ``assets/``); ``None``: none
        self.static_dir = static_dir
        self.token = token or secrets.token_hex(24)
        self.host = host
        self.socket = _listen(host, port)
        self.port = self.socket.getsockname()[1]
        names = {"127.0.0.1", "localhost", host}
        if ":" in host:
            names.add(f"[{host}]")
        self.allowed_hosts = {f"{n}:{self.port}" for n in names}
        self.allowed_origins = {f"http://{h}" for h in self.allowed_hosts}
        self.scratch = Path(tempfile.mkdtemp(prefix="blocksim-edit-"))
        self.runs = Runs(self.scratch)
        self.app = build_app(self)
        self._catalog: list[dict[str, Any]] | None = None
        self._catalog_lock = threading.Lock()
        self._uvicorn: Any = None
        self._serving = threading.Event()
        self._stopped = threading.Event()
        self._closed = False

    @property
    def url(self) -> str:
        """The address to open, with the token."""
        shown = "127.0.0.1" if self.host in ("127.0.0.1", "0.0.0.0", "") else self.host
        if ":" in shown:
            shown = f"[{shown}]"
        return f"http://{shown}:{self.port}/?token={self.token}"

    def catalog(self) -> list[dict[str, Any]]:
        """The block catalog (built once)."""
        with self._catalog_lock:
            if self._catalog is None:
                from blocksim.io.catalog import catalog

                self._catalog = catalog()
            return self._catalog

    def serve_forever(self) -> None:
        """Serve in the calling thread until :meth:`shutdown`; in the main thread, Ctrl-C
        (SIGINT) or SIGTERM stop it too, then ``KeyboardInterrupt`` or ``SystemExit(143)`` is
        raised once it has stopped (so the caller's ``server_close()`` runs)."""
        import uvicorn

        class Server(uvicorn.Server):
            """uvicorn's server, which after a signal returns instead of raising it again
            (so the caller's cleanup runs: the runs' workers end, the scratch folder goes)."""

            signals: list[int] = []

            def handle_exit(self, sig: int, frame: Any) -> None:
                self.signals.append(sig)
                super().handle_exit(sig, frame)

            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:
                if threading.current_thread() is not threading.main_thread():
                    yield
                    return
                handled = (signal.SIGINT, signal.SIGTERM)
                original = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
                try:
                    yield
                finally:
                    for sig, handler in original.items():
                        signal.signal(sig, handler)

        config = uvicorn.Config(
            self.app, log_level="warning", access_log=False, log_config=None,
            lifespan="off", http="h11", ws="none", server_header=False,
            timeout_graceful_shutdown=GRACE)
        self._uvicorn = Server(config)
        self._uvicorn.signals = []
        self._serving.set()
        try:
            self._uvicorn.run(sockets=[self.socket])
        finally:
            self._stopped.set()
        if signal.SIGINT in self._uvicorn.signals:
            raise KeyboardInterrupt
        if signal.SIGTERM in self._uvicorn.signals:
            raise SystemExit(128 + signal.SIGTERM)

    def shutdown(self) -> None:
        """Ask :meth:`serve_forever` to end and wait until it has (from another thread)."""
        if not self._serving.is_set():
            return
        self._uvicorn.should_exit = True
        self._stopped.wait()

    def server_close(self) -> None:
        """Stop the runs, remove their files, close the socket."""
        if self._closed:
            return
        self._closed = True
        self.runs.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        self.socket.close()


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (``OSError`` when it cannot)."""
    info = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                              flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = info[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


def make_server(session: EditorSession, host: str = "127.0.0.1", port: int = 0,
                token: str | None = None, static_dir: Path | None = STATIC_DIR
                ) -> EditorServer:
    """An :class:`EditorServer` listening on ``host:port`` (``port`` 0: a free one), its page
    and files from ``static_dir``; serve it with ``serve_forever()`` and end it with
    ``shutdown()`` then ``server_close()``."""
    return EditorServer(session, host, port, token, static_dir)


# -- access and headers: every request, every answer -------------------------------------
class Guard:
    """ASGI middleware: the Host, Origin and token checks before anything else, the security
    headers on every answer, and a failure of the application as one 500 line."""

    def __init__(self, app: Any, server: EditorServer):
        self.app = app
        self.server = server

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        started = False

        async def send_with_headers(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()
                         if k.lower().encode() not in present]
                if b"content-security-policy" not in present:
                    extra.append((b"content-security-policy", API_CSP.encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        request = Request(scope)
        try:
            self.check(request)
        except HttpError as exc:
            await _error(exc)(scope, receive, send_with_headers)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:  # answered by _internal_error (starlette re-raises it)
            print(f"blocksim edit: {scope['method']} {scope['path']}: "
                  f"{_one_line(exc)}", file=sys.stderr)
            if not started:
                await _internal_error(request, exc)(scope, receive, send_with_headers)

    def check(self, request: Request) -> None:
        s = self.server
        host = request.headers.get("host", "")
        if host not in s.allowed_hosts:
            raise HttpError(403, f"forbidden: Host {host!r} is not this server "
                                 f"(use 127.0.0.1:{s.port})")
        origin = request.headers.get("origin")
        if origin is not None and origin not in s.allowed_origins:
            raise HttpError(403, f"forbidden: cross-origin request from {origin!r}")
        given, _ = given_token(request.headers.get("authorization"),
                               request.query_params.get("token"),
                               request.headers.get("cookie"), s.port)
        if not token_ok(given, s.token):
            raise HttpError(403, "forbidden: missing or wrong token (open the URL "
                                 "`blocksim edit` printed)")


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HttpError)
    return _error(exc)


def _one_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _internal_error(request: Request, exc: Exception) -> Response:
    return _error(HttpError(500, f"internal error: {_one_line(exc)}"))


async def _starlette_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404 and 405, worded as the rest."""
    assert isinstance(exc, HTTPException)
    method, path = request.method, request.url.path
    if exc.status_code == 405 or path in _KNOWN:
        return _error(HttpError(405, f"{method} {path}: method not allowed"))
    if path.startswith("/api/") or path == "/":
        return _error(HttpError(exc.status_code, f"{method} {path}: no such resource"))
    return _error(HttpError(exc.status_code, f"{path}: no such resource"))


# -- bodies -------------------------------------------------------------------------------
async def read_body(request: Request, optional: bool = False) -> Any:
    """The request's JSON body: at most :data:`MAX_BODY` bytes (refused from its
    Content-Length before reading, or as soon as a chunked body passes it)."""
    length_text = request.headers.get("content-length")
    if length_text is not None:
        try:
            length = int(length_text)
        except ValueError:
            raise HttpError(400, f"bad Content-Length {length_text!r}") from None
        if length < 0:
            raise HttpError(400, f"bad Content-Length {length_text!r}")
        if length > MAX_BODY:
            raise HttpError(413, f"request body of {length} bytes is over the limit of "
                                 f"{MAX_BODY} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise HttpError(413, f"request body is over the limit of {MAX_BODY} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
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


# -- the application ----------------------------------------------------------------------
def build_app(server: EditorServer) -> Any:
    """The editor's ASGI application for ``server``."""
    s = server

    def page(request: Request) -> Response:
        index = index_file(s.static_dir)
        body = index.read_bytes() if index is not None else explanatory_page(
            s.session.name, str(s.session.folder)).encode()
        return Response(body, media_type="text/html; charset=utf-8", headers={
            "Set-Cookie": token_cookie(s.port, s.token), "Content-Security-Policy": PAGE_CSP})

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        found = asset_file(s.static_dir, name)
        if found is None:
            raise HttpError(404, f"{request.url.path}: no such file")
        return Response(found.read_bytes(), media_type=content_type(name),
                        headers={"Content-Security-Policy": PAGE_CSP})

    def blocks(request: Request) -> Response:
        return _json(s.catalog())

    def get_diagram(request: Request) -> Response:
        return _json(s.session.document(), headers={"X-Blocksim-File": s.session.name})

    async def put_diagram(request: Request) -> Response:
        body = await read_body(request)

        def work() -> dict[str, Any]:
            try:
                problems, loaded = s.session.replace_loaded(body)
            except ValueError as exc:
                raise HttpError(400, str(exc)) from None
            return {"ok": not problems, "problems": problems,
                    **annotate(s.session, s.catalog, problems, loaded)}

        return _json(await run_in_threadpool(work))

    async def check(request: Request) -> Response:
        await read_body(request, optional=True)

        def work() -> dict[str, Any]:
            report = s.session.check()
            ok = ": OK" in report[0]
            problems = [] if ok else [line.strip() for line in report[1:]]
            return {"ok": ok, "report": report, "problems": problems,
                    **annotate(s.session, s.catalog, problems)}

        return _json(await run_in_threadpool(work))

    async def save(request: Request) -> Response:
        body = await read_body(request, optional=True) or {}
        if not isinstance(body, dict) or set(body) - {"path"}:
            raise HttpError(400, 'save takes {"path": "name.json"} (optional)')

        def work() -> dict[str, Any]:
            try:
                target = s.session.save(body.get("path"))
            except SaveRefused as exc:
                status = 422 if len(exc.problems) > 1 else 400
                raise HttpError(status, exc.problems[0], problems=exc.problems) from None
            return {"ok": True, "path": str(target.relative_to(s.session.folder))}

        return _json(await run_in_threadpool(work))

    async def start_run(request: Request) -> Response:
        options = await read_body(request, optional=True) or {}
        if not isinstance(options, dict):
            raise HttpError(400, "run takes an object of run options, e.g. "
                                 '{"T": 10, "solver": "RK45", "backend": "interpreted"}')
        unknown = sorted(set(options) - set(RUN_OPTIONS))
        if unknown:
            raise HttpError(400, f"unknown run option {unknown[0]!r}; the options are "
                                 f"{', '.join(RUN_OPTIONS)}")
        if "fuse" in options:
            options["fuse"] = {"yes": True, "no": False}.get(options["fuse"], options["fuse"])
        run = await run_in_threadpool(_start_run, s, options)
        return _json({"id": run.id, "url": f"/api/run/{run.id}"}, 202)

    def run_of(request: Request) -> Any:
        run_id = request.path_params["run_id"]
        run = s.runs.get(run_id)
        if run is None:
            raise HttpError(404, f"no run {run_id!r}")
        return run

    def run_state(request: Request) -> Response:
        return _json(run_of(request).describe())

    async def stop_run(request: Request) -> Response:
        run = run_of(request)
        await read_body(request, optional=True)
        s.runs.stop(run)
        return _json(run.describe())

    def finished_npz(request: Request) -> Any:
        run = run_of(request)
        if not run.finished:
            raise HttpError(409, f"run {run.id} is still {run.state}")
        if not run.has_npz or not run.npz.exists():
            raise HttpError(404, f"run {run.id} recorded no result ({run.state})")
        return run

    def result(request: Request) -> Response:
        run = finished_npz(request)
        return Response(run.npz.read_bytes(), media_type="application/octet-stream", headers={
            "Content-Disposition": f'attachment; filename="run-{run.id}.npz"'})

    def run_traces(request: Request) -> Response:
        from blocksim.web.traces import TraceError, traces

        run = finished_npz(request)
        wanted = [n for v in request.query_params.getlist("signals") for n in v.split(",")
                  if n]
        try:
            return _json(traces(run.npz, wanted or None))
        except TraceError as exc:
            raise HttpError(400, str(exc)) from None

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/index.html", page, methods=["GET"]),
        Route("/assets/{name}", asset, methods=["GET"]),
        Route("/api/blocks", blocks, methods=["GET"]),
        Route("/api/diagram", get_diagram, methods=["GET"]),
        Route("/api/diagram", put_diagram, methods=["PUT"]),
        Route("/api/check", check, methods=["POST"]),
        Route("/api/run", start_run, methods=["POST"]),
        Route("/api/run/{run_id}", run_state, methods=["GET"]),
        Route("/api/run/{run_id}/stop", stop_run, methods=["POST"]),
        Route("/api/run/{run_id}/result.npz", result, methods=["GET"]),
        Route("/api/run/{run_id}/traces", run_traces, methods=["GET"]),
        Route("/api/save", save, methods=["POST"]),
    ]
    app = Starlette(routes=routes, exception_handlers={
        HttpError: _http_error, HTTPException: _starlette_error, Exception: _internal_error})
    return Guard(app, server)


def _start_run(s: EditorServer, options: dict[str, Any]) -> Any:
    """Check the document and the options as ``blocksim run`` would, then start a worker."""
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
    return s.runs.start(s.session.text(), s.session.name, s.session.base_dir, options)
