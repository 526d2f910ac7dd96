"""The built front end served by the editor's server: the page, its files (plain names only,
their content types), the security headers, and the token's cookie."""

from __future__ import annotations

import http.client
import os
import threading

import pytest

from blocksim.web import EditorSession, make_server
from blocksim.web.assets import PAGE_CSP, STATIC_DIR, asset_file, cookie_name

from .conftest import start

INDEX = b'<!doctype html><html><head><script type="module" src="/assets/app-1a2b.js"></script>' \
        b'</head><body><div id="root"></div></body></html>\n'
FILES = {"app-1a2b.js": (b"console.log('editor');\n", "text/javascript; charset=utf-8"),
         "app-1a2b.css": (b"body{margin:0}\n", "text/css; charset=utf-8"),
         "logo.svg": (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"),
         "font-3c4d.woff2": (b"wOF2\x00\x01", "font/woff2"),
         "app-1a2b.js.map": (b'{"version":3}', "application/json")}


@pytest.fixture
def static(tmp_path_factory):
    root = tmp_path_factory.mktemp("static")
    (root / "assets").mkdir()
    (root / "index.html").write_bytes(INDEX)
    for name, (data, _) in FILES.items():
        (root / "assets" / name).write_bytes(data)
    (root / "secret.txt").write_text("not an asset")
    (root / "assets" / ".hidden.js").write_text("hidden")
    return root


@pytest.fixture
def served(tmp_path, static):
    server, client = start(tmp_path, None, static_dir=static)
    try:
        yield server, client
    finally:
        server.shutdown()
        server.server_close()


def _get(server, path, headers=None, method="GET"):
    """(status, headers, body) of one raw request (no urllib: a path is sent as written)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def test_the_page_is_the_built_index_with_its_csp_and_cookie(served):
    server, _ = served
    for path in ("/", "/index.html"):
        status, headers, body = _get(server, f"{path}?token={server.token}")
        assert status == 200 and body == INDEX
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Content-Security-Policy"] == PAGE_CSP
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["Cache-Control"] == "no-store"
        assert headers["Set-Cookie"] == (f"blocksim_token_{server.port}={server.token}; "
                                         f"HttpOnly; SameSite=Strict; Path=/")
    status, headers, body = _get(server, "/", {"Authorization": f"token {server.token}"})
    assert status == 200 and body == INDEX and "Set-Cookie" in headers
    status, headers, body = _get(server, "/", method="HEAD",
                                 headers={"Authorization": f"token {server.token}"})
    assert status == 200 and body == b"" and int(headers["Content-Length"]) == len(INDEX)
    # without the token: no page, no cookie
    for token in ("", "?token=wrong"):
        status, headers, _ = _get(server, "/" + token)
        assert status == 403 and "Set-Cookie" not in headers


def test_the_cookie_stands_for_the_token(served):
    server, client = served
    cookie = f"{cookie_name(server.port)}={server.token}"
    status, _, body = _get(server, "/assets/app-1a2b.js", {"Cookie": cookie})
    assert status == 200 and body == FILES["app-1a2b.js"][0]
    assert _get(server, "/api/diagram", {"Cookie": f"other=1; {cookie}"})[0] == 200
    status, _, _ = _get(server, "/api/diagram", {"Cookie": f"{cookie_name(server.port)}=no"})
    assert status == 403
    # the cookie of another port's editor is not this one's
    status, _, _ = _get(server, "/api/diagram",
                        {"Cookie": f"{cookie_name(server.port + 1)}={server.token}"})
    assert status == 403
    # the Host and Origin checks still hold with the cookie
    port = server.port
    assert _get(server, "/api/diagram", {"Cookie": cookie,
                                         "Origin": "http://evil.example"})[0] == 403
    assert _get(server, "/api/diagram", {"Cookie": cookie,
                                         "Host": f"evil.example:{port}"})[0] == 403
    assert client.call("PUT", "/api/diagram", client.call("GET", "/api/diagram")[1],
                       token=None, headers={"Cookie": cookie})[0] == 200


def test_assets_are_served_with_their_content_types(served):
    server, _ = served
    auth = {"Authorization": f"token {server.token}"}
    for name, (data, ctype) in FILES.items():
        status, headers, body = _get(server, f"/assets/{name}", auth)
        assert (status, body) == (200, data), name
        assert headers["Content-Type"] == ctype, name
        assert headers["X-Content-Type-Options"] == "nosniff"
    assert _get(server, "/assets/app-1a2b.js")[0] == 403  # the token is needed here too
    assert _get(server, f"/assets/app-1a2b.js?token={server.token}")[0] == 200


def test_only_plain_file_names_of_assets_are_served(served, static):
    server, _ = served
    auth = {"Authorization": f"token {server.token}"}
    os.symlink(static / "secret.txt", static / "assets" / "link.txt")
    (static / "assets" / "sub").mkdir()
    (static / "assets" / "sub" / "x.js").write_text("nested")
    for path in ("/assets/../secret.txt", "/assets/%2e%2e/secret.txt", "/assets/..%2fsecret.txt",
                 "/assets/.hidden.js", "/assets/link.txt", "/assets/sub/x.js", "/assets/sub",
                 "/assets/", "/assets/missing.js", "/secret.txt", "/assets/..",
                 "/assets/%2fetc%2fpasswd", "/assets//etc/passwd"):
        status, _, body = _get(server, path, auth)
        assert status == 404, (path, body)
        assert b"not an asset" not in body and b"nested" not in body
    assert asset_file(static, "../secret.txt") is None
    assert asset_file(static, "app-1a2b.js") == static / "assets" / "app-1a2b.js"
    assert asset_file(None, "app-1a2b.js") is None


def test_without_a_build_the_page_explains_the_server(tmp_path):
    server, _ = start(tmp_path, None, static_dir=tmp_path / "no-build")
    try:
        status, headers, body = _get(server, f"/?token={server.token}")
        assert status == 200 and b"not built yet" in body and b"/api/run" in body
        assert headers["Content-Security-Policy"] == PAGE_CSP and "Set-Cookie" in headers
        assert _get(server, f"/assets/app.js?token={server.token}")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_the_default_page_comes_from_the_package(tmp_path):
    server = make_server(EditorSession(tmp_path), "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert server.static_dir == STATIC_DIR
        status, _, body = _get(server, f"/?token={server.token}")
        index = STATIC_DIR / "index.html"
        assert status == 200
        assert body == index.read_bytes() if index.is_file() else b"not built yet" in body
    finally:
        server.shutdown()
        server.server_close()
