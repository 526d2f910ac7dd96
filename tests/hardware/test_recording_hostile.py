"""A session log given to ``replay=`` is untrusted input: read bounded (regular files only, a
size limit before reading, nesting bounded) and checked, every problem one clear error naming
the file and never quoting its bytes."""

import json
import os
import threading
import time

import pytest

from blocksim.hardware import ReplayError, SessionLog
from blocksim.hardware.recording import FORMAT, MAX_BYTES, RecordingError


def log_doc(kind="coppeliasim", entries=None, **over):
    doc = {"format": FORMAT, "version": 1, "device": "tcp://x:1", "kind": kind}
    doc["entries"] = [] if entries is None else entries
    doc.update(over)
    return doc


def refused(path, match, kind=None):
    with pytest.raises(RecordingError, match=match) as info:
        SessionLog.load(path, kind=kind)
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, ReplayError)
    text = str(err)
    assert text.startswith(f"{path}: ") and "\n" not in text
    return text


def test_a_binary_file_is_refused_without_quoting_its_bytes(tmp_path):
    """It used to end in a UnicodeDecodeError traceback."""
    p = tmp_path / "session.json"
    p.write_bytes(b'{"format": "' + bytes(range(128, 256)) + b'"}')
    text = refused(p, r"not a session log: not UTF-8 text \(a bad byte at offset 12\)")
    assert "0x80" not in text and "\\x80" not in text


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "session.json"
    os.mkfifo(fifo)

    def writer():  # a reader that waited would get '{}' after a while
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.05)
                continue
            time.sleep(1.0)
            os.write(fd, b"{}")
            os.close(fd)
            return

    threading.Thread(target=writer, daemon=True).start()
    t0 = time.perf_counter()
    refused(fifo, "not a regular file")
    assert time.perf_counter() - t0 < 0.5


@pytest.mark.parametrize("target", ["dir", "/dev/null"])
def test_a_directory_or_a_device_is_not_a_regular_file(tmp_path, target):
    path = tmp_path if target == "dir" else target
    refused(path, "not a regular file")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: nothing to read, only its size says no
    t0 = time.perf_counter()
    refused(p, f"larger than {MAX_BYTES} bytes")
    assert time.perf_counter() - t0 < 0.5


def test_a_missing_file_is_named(tmp_path):
    refused(tmp_path / "nothing.json", r"cannot open the session log \(No such file")


def test_deep_json_is_refused(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 200_000 + "]" * 200_000)
    refused(p, "JSON nested too deep")
    args = "[" * 200 + "]" * 200
    p.write_text(json.dumps(log_doc(entries=[["call", "f", [0], 1]])).replace("[0]", args))
    refused(p, "entry 0: values nested deeper than 64")


BAD_DOCS = {
    "not json": ("{", r"not JSON \(Expecting property name"),
    "a list": ("[]", "not a blocksim hardware session log"),
    "no format": (json.dumps({"kind": "serial"}), "not a blocksim hardware session log"),
    "unknown kind": (json.dumps(log_doc(kind="vrep")), "of an unknown kind"),
    "version 2": (json.dumps(log_doc(version=2)), "not a session log of version 1"),
    "device a number": (json.dumps(log_doc(device=5)), "not a session log of version 1"),
    "entries a dict": (json.dumps(log_doc(entries={})), "not a session log of version 1"),
    "an entry not a list": (json.dumps(log_doc(entries=[5])), "entry 0: expected a list"),
    "an entry of the other kind": (
        json.dumps(log_doc(entries=[["w", {"bytes": ""}]])),
        "entry 0: expected a list starting with one of call",
    ),
    "a short call": (json.dumps(log_doc(entries=[["call", "f"]])), "entry 0: expected"),
    "args not a list": (
        json.dumps(log_doc(entries=[["call", "f", "x", 1]])),
        "entry 0: expected",
    ),
    "a malformed dict value": (
        json.dumps(log_doc(entries=[["call", "f", [], {"dict": 5}]])),
        "entry 0: a malformed value",
    ),
    "an unhashable key": (
        json.dumps(log_doc(entries=[["call", "f", [], {"dict": [[[1], 2]]}]])),
        "entry 0: a malformed value",
    ),
    "bad base64 in a reply": (
        json.dumps(log_doc(entries=[["call", "f", [], {"bytes": "%%%"}]])),
        "entry 0: a malformed value",
    ),
    "a 5000-digit integer": (
        json.dumps(log_doc()).replace('"entries": []', '"entries": [' + "9" * 5000 + "]"),
        "a bad JSON value",
    ),
    "serial bytes not base64": (
        json.dumps(log_doc("serial", [["w", {"bytes": "not base64!"}]])),
        "entry 0: the bytes are not base64",
    ),
    "serial bytes not a dict": (
        json.dumps(log_doc("serial", [["r", "ff"]])),
        r"entry 0: expected \['r', \{'bytes': base64\}\]",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCS))
def test_a_malformed_log_is_one_error_naming_the_file(tmp_path, case):
    text, why = BAD_DOCS[case]
    p = tmp_path / "session.json"
    p.write_text(text)
    refused(p, why)


def test_the_kind_asked_for_is_checked_and_a_good_log_still_loads(tmp_path):
    p = tmp_path / "session.json"
    entries = [["call", "sim.getObject", ["/a"], 12], ["call", "f", [], {"bytes": "AAE="}]]
    p.write_text(json.dumps(log_doc(entries=entries, device="tcp://h:1\x1b[2J")))
    refused(p, "a coppeliasim session, expected a serial one", kind="serial")
    log = SessionLog.load(p, kind="coppeliasim")
    assert log.entries == [["call", "sim.getObject", ["/a"], 12], ["call", "f", [], b"\x00\x01"]]
    assert log.device == "tcp://h:1?[2J"
