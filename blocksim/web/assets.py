"""What the editor's server needs besides its API: the built page and its files, the headers of
every answer, and the token (query, header or cookie).

The editor's front end is built (vite, from the repository's ``web/`` folder) into
:data:`STATIC_DIR`: ``index.html`` and ``assets/<name>``. The server answers ``GET /`` with
that ``index.html`` when it exists (else with its own short page) and ``GET /assets/<name>``
with the file, plain file names only (no folder, no ``..``, no hidden file, no link).

The page's own requests (``<script src>``, ``fetch()``) cannot carry the token of its address,
so a ``GET /`` with the right token sets the cookie :func:`token_cookie` (``HttpOnly``,
``SameSite=Strict``: sent by this server's own pages only), which later requests may carry
instead of the token, as Jupyter does.
"""

from __future__ import annotations

import re
import secrets
import stat
from http.cookies import CookieError, SimpleCookie
from pathlib import Path

#: where the built front end lives (``index.html``, ``assets/``)
STATIC_DIR = Path(__file__).resolve().parent / "static"

#: the Content-Security-Policy of the page and its files: everything from this server only
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data: blob:; connect-src 'self'; font-src 'self' data:; "
            "frame-ancestors 'none'")
#: the Content-Security-Policy of every other answer (JSON, files to download)
API_CSP = "default-src 'none'; frame-ancestors 'none'"

#: headers on every answer
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token is in the page's address
    "X-Frame-Options": "DENY",
}

#: the content types of the files of ``assets/`` (others: ``application/octet-stream``)
CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".map": "application/json",
    ".json": "application/json",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".html": "text/html; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".wasm": "application/wasm",
}

#: a plain file name: letters, digits, ``_ - .``, not starting with a dot
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_\-][A-Za-z0-9_.\-]*$")

#: the largest file served [bytes]
MAX_ASSET_BYTES = 64 * 1024 * 1024


def content_type(name: str) -> str:
    """The Content-Type of the file ``name`` (by its suffix)."""
    return CONTENT_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


def _regular(path: Path) -> bool:
    try:
        info = path.lstat()  # a link is not served, wherever it points
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= MAX_ASSET_BYTES


def index_file(static_dir: Path | None) -> Path | None:
    """``static_dir/index.html`` when it is a regular file, else ``None``."""
    if static_dir is None:
        return None
    path = Path(static_dir) / "index.html"
    return path if _regular(path) else None


def asset_file(static_dir: Path | None, name: str) -> Path | None:
    """``static_dir/assets/name`` when ``name`` is a plain file name (no ``/``, no ``..``, not
    hidden) of a regular file there (not a link), else ``None``."""
    if static_dir is None or not _PLAIN_NAME.match(name) or ".." in name:
        return None
    folder = Path(static_dir) / "assets"
    if folder.is_symlink() or not folder.is_dir():
        return None
    path = folder / name
    return path if _regular(path) else None


def cookie_name(port: int) -> str:
    """The name of the token's cookie of the server on ``port`` (one per port, so two
    editors on one machine keep their own)."""
    return f"blocksim_token_{port}"


def token_cookie(port: int, token: str) -> str:
    """The ``Set-Cookie`` value that lets the page's own requests carry ``token``."""
    return f"{cookie_name(port)}={token}; HttpOnly; SameSite=Strict; Path=/"


def cookie_token(cookie_header: str | None, port: int) -> str | None:
    """The token in a ``Cookie`` header, or ``None``."""
    if not cookie_header:
        return None
    jar = SimpleCookie()
    try:
        jar.load(cookie_header)
    except CookieError:
        return None
    morsel = jar.get(cookie_name(port))
    return morsel.value if morsel is not None else None


def given_token(authorization: str | None, query_token: str | None,
                cookie_header: str | None, port: int) -> tuple[str | None, bool]:
    """(the token a request carries, whether it came from the cookie): the header
    ``Authorization: token ...`` first, then the query's ``token=``, then the cookie."""
    auth = authorization or ""
    if auth.lower().startswith("token "):
        return auth[6:].strip(), False
    if query_token:
        return query_token, False
    found = cookie_token(cookie_header, port)
    return found, found is not None


def token_ok(given: str | None, token: str) -> bool:
    """Whether ``given`` is ``token`` (compared in constant time)."""
    return bool(given) and secrets.compare_digest(given.encode(), token.encode())
