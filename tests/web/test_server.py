"""The server itself: bound before it serves, the body limit on chunked bodies, the security
headers on every answer, blocking work off the event loop, failures as one line, shutdown."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

from blocksim.web import EditorSession, make_server
from blocksim.web.assets import API_CSP
from blocksim.web.server import MAX_BODY

from .conftest import start


def _raw(server, method, path, body_chunks=None, headers=None):
    """(status, headers, body) of a request whose body is sent chunked."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        h = {"Authorization": f"token {server.token}", **(headers or {})}
        if body_chunks is None:
            conn.request(method, path, headers=h)
        else:
            conn.request(method, path, body=iter(body_chunks), headers=h,
                         encode_chunked=True)
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def test_the_port_is_bound_before_serving(tmp_path):
    server = make_server(EditorSession(tmp_path), "127.0.0.1", 0, static_dir=None)
    try:
        assert server.port > 0 and f":{server.port}/?token={server.token}" in server.url
        # a connection made before serve_forever waits in the backlog and is answered
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.connect()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        conn.request("GET", "/api/diagram", headers={"Authorization": f"token {server.token}"})
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["blocksim"] == 1
        conn.close()
        # a second server on the same port cannot listen
        try:
            make_server(EditorSession(tmp_path), "127.0.0.1", server.port, static_dir=None)
        except OSError:
            pass
        else:
            raise AssertionError("two servers listened on one port")
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", server.port)) != 0  # closed


def test_a_chunked_body_is_read_up_to_the_limit(editor):
    client, _ = editor
    server = client.server
    _, doc = client.call("GET", "/api/diagram")
    text = json.dumps(doc).encode()
    status, _, body = _raw(server, "PUT", "/api/diagram", [text[:10], text[10:]])
    assert status == 200 and json.loads(body)["ok"] is True
    # over the limit: refused while reading, without taking it all
    sent = []

    def chunks():
        for _ in range(MAX_BODY // 65536 + 2):
            sent.append(1)
            yield b" " * 65536

    status, headers, body = _raw(server, "PUT", "/api/diagram", chunks())
    assert status == 413 and "limit" in json.loads(body)["error"]
    assert headers["Content-Type"] == "application/json"
    assert client.call("GET", "/api/diagram") == (200, doc)  # unchanged, still serving


def test_every_answer_carries_the_security_headers(editor):
    client, _ = editor
    server = client.server
    cases = [("GET", "/api/diagram", {}, 200), ("GET", "/api/nothing", {}, 404),
             ("DELETE", "/api/diagram", {}, 405), ("GET", "/api/blocks",
                                                  {"Origin": "http://evil.example"}, 403),
             ("GET", "/api/run/0123456789abcdef", {}, 404), ("PUT", "/", {}, 405),
             ("POST", "/api/run/0123456789abcdef/result.npz", {}, 405)]
    for method, path, headers, expected in cases:
        status, h, body = _raw(server, method, path, headers=headers)
        assert status == expected, (method, path, body)
        assert h["Content-Security-Policy"] == API_CSP
        assert h["X-Content-Type-Options"] == "nosniff" and h["X-Frame-Options"] == "DENY"
        assert h["Referrer-Policy"] == "no-referrer" and h["Cache-Control"] == "no-store"
        assert "server" not in {k.lower() for k in h}
        if status != 200:
            error = json.loads(body)["error"]
            assert error and "\n" not in error
    status, _, body = _raw(server, "DELETE", "/api/diagram")
    assert json.loads(body)["error"] == "DELETE /api/diagram: method not allowed"
    status, _, body = _raw(server, "GET", "/nothing")
    assert json.loads(body)["error"] == "/nothing: no such resource"


def test_slow_work_does_not_hold_other_requests(editor, monkeypatch):
    client, _ = editor
    session = client.server.session
    real = session.check
    entered = threading.Event()

    def slow_check():
        entered.set()
        time.sleep(1.5)
        return real()

    monkeypatch.setattr(session, "check", slow_check)
    done = []
    thread = threading.Thread(target=lambda: done.append(client.call("POST", "/api/check")))
    thread.start()
    assert entered.wait(30)
    t0 = time.monotonic()
    assert client.call("GET", "/api/diagram")[0] == 200
    assert time.monotonic() - t0 < 1.0  # answered while the check sleeps
    thread.join(30)
    assert done and done[0][0] == 200 and done[0][1]["ok"] is True


def test_a_failure_inside_is_one_line_and_the_server_goes_on(editor, monkeypatch, capfd):
    client, _ = editor

    def broken():
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(client.server.session, "document", broken)
    status, body = client.call("GET", "/api/diagram")
    assert status == 500 and body["error"].startswith("internal error: RuntimeError: disk")
    monkeypatch.undo()
    assert client.call("GET", "/api/diagram")[0] == 200
    err = capfd.readouterr().err
    assert "GET /api/diagram: RuntimeError: disk on fire" in err and "Traceback" not in err


def test_shutdown_ends_serving_and_close_twice_is_harmless(tmp_path):
    server, client = start(tmp_path)
    assert client.call("GET", "/api/diagram")[0] == 200
    t0 = time.monotonic()
    server.shutdown()
    assert time.monotonic() - t0 < 3.0
    server.server_close()
    server.server_close()
    # a server never served shuts down at once
    idle = make_server(EditorSession(tmp_path), "127.0.0.1", 0, static_dir=None)
    idle.shutdown()
    idle.server_close()
