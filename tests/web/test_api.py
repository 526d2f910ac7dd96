"""The editor's JSON API against a real server: access checks, catalog, document, check,
save (confined, round trip)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys

from blocksim.cli.common import problem_report
from blocksim.io import dumps, load, loads
from blocksim.io.catalog import catalog
from blocksim.web.server import MAX_BODY

from .conftest import start


def test_every_request_needs_the_token(editor):
    client, _ = editor
    for path in ("/", "/api/blocks", "/api/diagram"):
        assert client.call("GET", path, token=None)[0] == 403
        assert client.call("GET", path, token="wrong")[0] == 403
    status, body = client.call("GET", "/api/diagram", token=None)
    assert "token" in body["error"]
    assert client.call("PUT", "/api/diagram", {"blocksim": 1}, token=None)[0] == 403
    assert client.call("POST", "/api/save", {}, token=None)[0] == 403
    # the token in the query works as well as in the header
    status, page = client.call("GET", f"/?token={client.token}", token=None)
    assert status == 200 and b"not built yet" in page and b"/api/run" in page
    assert client.call("GET", f"/api/blocks?token={client.token}", token=None)[0] == 200


def test_a_foreign_origin_or_host_is_refused(editor):
    client, _ = editor
    port = client.server.port
    status, body = client.call("GET", "/api/diagram", headers={"Origin": "http://evil.example"})
    assert status == 403 and "cross-origin" in body["error"]
    assert client.call("POST", "/api/check", headers={"Origin": "null"})[0] == 403
    status, body = client.call("GET", "/api/diagram", headers={"Host": f"evil.example:{port}"})
    assert status == 403 and "Host" in body["error"]
    assert client.call("GET", "/api/diagram", headers={"Host": "127.0.0.1:1"})[0] == 403
    for own in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
        assert client.call("GET", "/api/diagram", headers={"Origin": own})[0] == 200
    assert client.call("GET", "/api/diagram", headers={"Host": f"localhost:{port}"})[0] == 200


def test_the_catalog_is_blocksim_blocks_json(editor):
    client, _ = editor
    status, body = client.call("GET", "/api/blocks")
    assert status == 200
    assert body == json.loads(json.dumps(catalog()))
    assert {"Gain", "Integrator", "Scope"} <= {e["type"] for e in body}


def test_put_then_get_gives_the_same_document(editor):
    client, folder = editor
    status, doc = client.call("GET", "/api/diagram")
    assert status == 200
    assert doc == json.loads((folder / "first_order_loop.json").read_text())
    doc["parameters"]["K"] = 3.5
    doc["layout"]["blocks"]["x"] = {"x": 400, "y": 40}
    status, body = client.call("PUT", "/api/diagram", doc)
    assert status == 200 and body["ok"] is True and body["problems"] == body["marks"] == []
    assert set(body["ports"]) == set(doc["blocks"])
    assert client.call("GET", "/api/diagram") == (200, doc)


def test_put_reports_the_problems_of_loading(editor):
    client, _ = editor
    _, doc = client.call("GET", "/api/diagram")
    doc["blocks"]["gain"]["params"] = {"K": "2 +"}
    doc["blocks"]["ref"]["type"] = "Stepp"
    status, body = client.call("PUT", "/api/diagram", doc)
    assert status == 200 and body["ok"] is False and len(body["problems"]) == 2
    assert all(p.startswith("first_order_loop.json:") for p in body["problems"])
    assert any("'Step'" in p for p in body["problems"])  # did you mean
    assert [m["message"] for m in body["marks"]] == body["problems"]
    assert {m["block"]: m["param"] for m in body["marks"]} == {"ref": None, "gain": "K"}
    assert "ref" not in body["ports"]  # an unknown type
    assert body["ports"]["gain"] == {"inputs": ["u"], "outputs": ["y"]}  # the catalog's
    assert client.call("GET", "/api/diagram")[1] == doc  # kept: an editor holds unfinished work
    status, body = client.call("POST", "/api/save")
    assert status == 422 and len(body["problems"]) == 3  # header + both problems


def test_bad_bodies_are_refused_with_one_line(editor):
    client, _ = editor
    status, body = client.call("PUT", "/api/diagram", raw=b"{not json")
    assert status == 400 and body["error"].startswith("bad JSON") and "\n" not in body["error"]
    assert client.call("PUT", "/api/diagram", raw=b'{"blocksim": NaN}')[0] == 400
    assert client.call("PUT", "/api/diagram", [1, 2])[0] == 400
    assert client.call("PUT", "/api/diagram", raw=b"")[0] == 400
    # a body over the limit is refused from its Content-Length, before it is read
    conn = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=30)
    conn.putrequest("PUT", "/api/diagram")
    conn.putheader("Authorization", f"token {client.token}")
    conn.putheader("Content-Length", str(MAX_BODY + 1))
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 413 and "limit" in json.loads(resp.read())["error"]
    conn.close()
    assert client.call("GET", "/api/nothing")[0] == 404
    assert client.call("DELETE", "/api/diagram")[0] == 405
    assert client.call("GET", "/api/diagram")[0] == 200  # still serving


def _blocksim(*args, cwd):
    return subprocess.run([sys.executable, "-m", "blocksim.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_check_gives_the_messages_of_blocksim_check(tmp_path):
    text = json.dumps({
        "blocksim": 1, "name": "broken",
        "blocks": {"ref": {"type": "Step"}, "err": {"type": "Sum", "params": {"signs": "+-"}},
                   "gain": {"type": "Gain", "params": {"K": 2}},
                   "lonely": {"type": "Integrator"}},
        "wires": [{"from": "ref", "to": "err.u0"}, {"from": "err", "to": "gain"}],
        "simulation": {"T": -1}}, indent=1)
    (tmp_path / "broken.json").write_text(text)
    server, client = start(tmp_path, "broken.json")
    try:
        status, body = client.call("POST", "/api/check")
        cli = _blocksim("check", "broken.json", cwd=tmp_path)
        assert status == 200 and body["ok"] is False
        assert cli.returncode == 1
        assert body["report"] == cli.stdout.splitlines()
        assert len(body["problems"]) >= 3  # T, err.u1 and lonely.u unconnected, all at once
        marks = {(m["block"], m["port"]) for m in body["marks"]}
        assert {("err", "u1"), ("lonely", "u"), (None, None)} <= marks
        assert [m["message"] for m in body["marks"]] == body["problems"]
        # after an edit, the messages are those of the file a save writes
        _, doc = client.call("GET", "/api/diagram")
        doc["wires"] += [{"from": "gain", "to": "lonely"}, {"from": "lonely", "to": "err.u1"}]
        doc["simulation"] = {"T": 1}
        body = client.call("PUT", "/api/diagram", doc)[1]
        assert body["ok"] and body["ports"]["err"] == {"inputs": ["u0", "u1"], "outputs": ["y"]}
        assert client.call("POST", "/api/save", {"path": "fixed.json"})[0] == 200
        status, body = client.call("POST", "/api/check")
        cli = _blocksim("check", "fixed.json", cwd=tmp_path)
        assert body["ok"] is True and cli.returncode == 0
        assert body["report"] == cli.stdout.splitlines()
    finally:
        server.shutdown()
        server.server_close()


def test_a_load_problem_is_reported_like_blocksim_check(tmp_path):
    (tmp_path / "bad.json").write_text('{"blocksim": 1, "blocks": {"g": {"type": "Gian"}}}\n')
    server, client = start(tmp_path, "bad.json")
    try:
        body = client.call("POST", "/api/check")[1]
        cli = _blocksim("check", "bad.json", cwd=tmp_path)
        assert body["report"] == cli.stdout.splitlines() and not body["ok"]
    finally:
        server.shutdown()
        server.server_close()


def test_save_writes_a_file_that_loads_back_equal(editor):
    client, folder = editor
    _, doc = client.call("GET", "/api/diagram")
    doc["parameters"]["K"] = "pi/2"
    client.call("PUT", "/api/diagram", doc)
    status, body = client.call("POST", "/api/save", {"path": "sub.json"})
    assert (status, body) == (200, {"ok": True, "path": "sub.json"})
    saved = folder / "sub.json"
    assert json.loads(saved.read_text()) == doc
    expected = loads(json.dumps(doc), "x", base_dir=folder)
    back = load(saved)
    assert dumps(back.diagram) == dumps(expected.diagram)
    assert back.layout == doc["layout"] and back.simulation == expected.simulation
    # saving again without a path writes the same file (now the document's name)
    saved.write_text("old")
    assert client.call("POST", "/api/save") == (200, {"ok": True, "path": "sub.json"})
    assert json.loads(saved.read_text()) == doc
    assert not [p for p in folder.iterdir() if p.name.startswith(".sub.")]  # no temp left


def test_save_is_confined_to_the_folder(editor, tmp_path_factory):
    client, folder = editor
    outside = tmp_path_factory.mktemp("outside")
    (folder / "out").symlink_to(outside)
    (folder / "link.json").symlink_to(outside / "victim.json")
    (folder / "adir.json").mkdir()
    for path in (str(outside / "abs.json"), "../escape.json", "out/through.json",
                 "link.json", "~/home.json", "adir.json", "notjson.txt", "missing/x.json", 3):
        status, body = client.call("POST", "/api/save", {"path": path})
        assert status == 400, (path, body)
        assert "\n" not in body["error"]
    assert list(outside.iterdir()) == []
    assert not (folder.parent / "escape.json").exists()
    assert client.call("POST", "/api/save", {"path": "x.json", "other": 1})[0] == 400
    # a link that stays inside the folder is replaced, not written through
    (folder / "inner.json").write_text("{}")
    (folder / "alias.json").symlink_to(folder / "inner.json")
    assert client.call("POST", "/api/save", {"path": "alias.json"})[0] == 200
    assert not os.path.islink(folder / "alias.json")
    assert (folder / "inner.json").read_text() == "{}"


def test_an_empty_editor_starts_with_an_empty_diagram(tmp_path):
    server, client = start(tmp_path)
    try:
        status, doc = client.call("GET", "/api/diagram")
        assert status == 200 and doc["blocks"] == {} and doc["blocksim"] == 1
        body = client.call("POST", "/api/check")[1]
        assert body["ok"] is False and body["report"] == problem_report(
            "untitled.json", body["problems"])
        doc["blocks"] = {"c": {"type": "Constant", "params": {"value": 2.0}},
                         "s": {"type": "Scope"}}
        doc["wires"] = [{"from": "c", "to": "s"}]
        assert client.call("PUT", "/api/diagram", doc)[1]["ok"]
        assert client.call("POST", "/api/save")[1] == {"ok": True, "path": "untitled.json"}
        assert load(tmp_path / "untitled.json").diagram.name == "untitled"
    finally:
        server.shutdown()
        server.server_close()
