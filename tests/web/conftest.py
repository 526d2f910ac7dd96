"""A real editor server on an ephemeral port, served from a thread, called with urllib."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from blocksim.web import EditorSession, make_server

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"


class Client:
    """Calls the server's API with the token (unless told otherwise)."""

    def __init__(self, server: Any):
        self.server = server
        self.base = f"http://127.0.0.1:{server.port}"
        self.token = server.token

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = "",
             headers: dict[str, str] | None = None, raw: bytes | None = None
             ) -> tuple[int, Any]:
        """(status, decoded JSON body, or bytes for non-JSON)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                             else None)
        h = dict(headers or {})
        if token == "":
            h.setdefault("Authorization", f"token {self.token}")
        elif token is not None:
            h.setdefault("Authorization", f"token {token}")
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, ctype, content = resp.status, resp.headers["Content-Type"], resp.read()
        except urllib.error.HTTPError as exc:
            status, ctype, content = exc.code, exc.headers["Content-Type"], exc.read()
        if ctype == "application/json":
            return status, json.loads(content)
        return status, content


def start(folder: Path, file: str | None = None, static_dir: Path | None = None
          ) -> tuple[Any, Client]:
    """A server of ``folder`` (``file`` opened), its page and files from ``static_dir``
    (default: none, so the tests do not depend on the front end's build)."""
    server = make_server(EditorSession(folder, file), "127.0.0.1", 0, static_dir=static_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, Client(server)


@pytest.fixture
def editor(tmp_path):
    """(client, folder) of a server started in a folder holding first_order_loop.json."""
    shutil.copy(DIAGRAMS / "first_order_loop.json", tmp_path)
    server, client = start(tmp_path, "first_order_loop.json")
    try:
        yield client, tmp_path
    finally:
        server.shutdown()
        server.server_close()
