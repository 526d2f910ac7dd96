"""What a diagram file may reach and build (blocksim.io.guard): included and data files
confined to the file's folder or allowed folders, regular files only, bounded reads, one
element budget across references, block and include limits, linear-time loading, .npy data
files, and the smaller fixes (a byte-order mark, a bad clock reported once)."""

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from blocksim import simulate
from blocksim.io import DiagramFileError, dumps, load, loads
from blocksim.io import guard as guard_module
from blocksim.io.locate import parse

PASSWD_HEAD = Path("/etc/passwd").read_text()[:12] if Path("/etc/passwd").exists() else "root:"


def write(path, doc):
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=1))
    return path


def include(rel, **extra):
    return {"blocksim": 1, "blocks": {"s": {"type": "Subsystem", "file": rel, **extra}}}


def constant(value):
    return {"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": value}}}}


INNER = {
    "blocksim": 1,
    "blocks": {
        "c": {"type": "Constant", "params": {"value": 1.0}},
        "g": {"type": "Gain", "params": {"K": 3.0}},
    },
    "wires": [{"from": "c", "to": "g"}],
}


def problems(path, **kw):
    with pytest.raises(DiagramFileError) as info:
        load(path, **kw)
    return "\n".join(info.value.problems)


@pytest.mark.parametrize(
    "target",
    [
        "../../../../../../../../etc/passwd",
        "../../../../../../../../proc/self/environ",
        "../outside.json",
        "/etc/passwd",
    ],
)
def test_an_include_outside_the_files_folder_is_refused_without_reading_it(target, tmp_path):
    (tmp_path / "outside.json").write_text("SECRET-CONTENT " * 4)
    d = tmp_path / "d"
    d.mkdir()
    msg = problems(write(d / "top.json", include(target)))
    assert "outside this file's folder" in msg or "relative to this file" in msg, msg
    assert "SECRET" not in msg and PASSWD_HEAD not in msg and "PATH=" not in msg


@pytest.mark.parametrize("target", ["../../../../../../../../etc/passwd", "../outside.urdf",
                                    "/etc/passwd", "../../../../../../../dev/zero"])
def test_a_urdf_model_outside_the_files_folder_is_refused_without_reading_it(target, tmp_path):
    (tmp_path / "outside.urdf").write_text("SECRET-CONTENT " * 4)
    d = tmp_path / "d"
    d.mkdir()
    doc = {"blocksim": 1, "models": {"robot": {"urdf": target}},
           "blocks": {"c": {"type": "Constant", "params": {"value": 1.0}}}}
    msg = problems(write(d / "top.json", doc))
    assert "URDF file" in msg and ("outside this file's folder" in msg
                                   or "relative to this file" in msg), msg
    assert "SECRET" not in msg and PASSWD_HEAD not in msg


def test_symlinks_are_resolved_before_the_folder_check(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text("SECRET-CONTENT")
    d = tmp_path / "d"
    d.mkdir()
    (d / "link.json").symlink_to(secret)
    msg = problems(write(d / "top.json", include("link.json")))
    assert "subsystem file 'link.json' is outside this file's folder" in msg
    assert "SECRET" not in msg
    # allowed explicitly: read, and as it is no diagram, reported without its bytes
    msg = problems(d / "top.json", allow_dirs=[tmp_path])
    assert "not a diagram file (not JSON)" in msg and "SECRET" not in msg


def test_allowed_folders_and_subfolders_may_hold_included_files(tmp_path):
    lib, d = tmp_path / "lib", tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    lib.mkdir()
    write(lib / "inner.json", INNER)
    write(d / "sub" / "inner.json", INNER)
    assert "s/g" in [e for e in _blocks(load(write(d / "a.json", include("sub/inner.json"))))]
    assert "outside" in problems(write(d / "b.json", include("../lib/inner.json")))
    df = load(d / "b.json", allow_dirs=[lib])
    assert "s/g" in _blocks(df)


def _blocks(df):
    from blocksim import compile_diagram

    return [e.name for e in compile_diagram(df.diagram).entries]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_even_in_an_allowed_folder(device, tmp_path):
    assert Path(device).exists()  # Linux, where the tests and CI run
    rel = os.path.relpath(device, tmp_path)
    t0 = time.perf_counter()
    msg = problems(write(tmp_path / "top.json", include(rel)), allow_dirs=["/dev"])
    assert "not a regular file" in msg and time.perf_counter() - t0 < 5


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    assert "not a regular file" in problems(write(tmp_path / "top.json", include("pipe.json")))
    with pytest.raises(DiagramFileError, match="not a regular file"):
        load(tmp_path / "pipe.json")


def test_at_most_the_limit_plus_one_byte_is_read(tmp_path, monkeypatch):
    reads = []
    real_read = os.read

    def counted(fd, n):
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    monkeypatch.setattr(guard_module.os, "read", counted)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:  # sparse: 1 GB on paper
        f.truncate(1 << 30)
    msg = problems(write(tmp_path / "top.json", include("big.json")))
    assert "more than 4000000 bytes" in msg
    # the size on record is checked first: here nothing is read; never more than limit + 1
    assert max(reads, default=0) <= 1 << 20 and sum(reads) <= guard_module.MAX_FILE_BYTES + 1


def test_a_utf8_byte_order_mark_is_accepted_and_bad_encodings_quote_no_bytes(tmp_path):
    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(constant(2.0)).encode())
    assert load(p).diagram["c"].params["value"] == 2.0
    assert loads("\ufeff" + json.dumps(constant(2.0))).diagram["c"].params["value"] == 2.0
    p.write_bytes(b'{"blocksim": 1, "description": "caf\xe9 s3cr3t"}')
    msg = problems(p)
    assert "not a UTF-8 text file (invalid byte at position 35)" in msg and "s3cr3t" not in msg


def test_syntax_errors_quote_one_character_at_most():
    with pytest.raises(Exception) as info:
        parse('{"a": root:x:0:0:secret}')
    assert "secret" not in str(info.value) and "found 'r'" in str(info.value)
    with pytest.raises(Exception) as info:
        parse('{"token-abcdef" 1}')
    assert "abcdef" not in str(info.value)


def blowup(strings):
    params = {"p0": [1.0] * 10}
    for k in range(1, 10):
        params[f"p{k}"] = (
            ("[" + ", ".join([f"p{k - 1}"] * 10) + "]") if strings else [f"$p{k - 1}"] * 10
        )
    return {
        "blocksim": 1,
        "parameters": params,
        "blocks": {"c": {"type": "Constant", "params": {"value": "$p9"}}},
    }


@pytest.mark.parametrize("strings", [True, False])
def test_one_element_budget_across_references_names_the_chain(strings):
    t0 = time.process_time()
    with pytest.raises(DiagramFileError) as info:
        loads(json.dumps(blowup(strings)))
    assert time.process_time() - t0 < 5
    msg = "\n".join(info.value.problems)
    assert "more than 1000000 list elements (through the shared parameters p9 -> p8 -> p7" in msg
    # below the budget the same chain loads: 10**5 elements through 4 levels
    small = blowup(strings)
    small["blocks"]["c"]["params"]["value"] = "$p4"
    assert np.shape(loads(json.dumps(small)).diagram["c"].params["value"]) == (10,) * 5


def test_include_fan_out_is_bounded(tmp_path, monkeypatch):
    for level in range(1, 8):
        blocks = (
            {f"s{k}": {"type": "Subsystem", "file": f"l{level + 1}.json"} for k in range(10)}
            if level < 7
            else {"g": {"type": "Gain", "params": {"K": 1.0}}}
        )
        write(tmp_path / f"l{level}.json", {"blocksim": 1, "blocks": blocks})
    t0 = time.process_time()
    msg = problems(tmp_path / "l1.json")
    assert "includes subsystem files more than 1000 times" in msg and msg.count("\n") == 0
    assert time.process_time() - t0 < 10
    monkeypatch.setattr(guard_module, "MAX_INCLUDES", 10**6)
    monkeypatch.setattr(guard_module, "MAX_BLOCKS", 5_000)
    msg = problems(tmp_path / "l1.json")
    assert "the diagram has more than 5000 blocks" in msg and msg.count("\n") == 0


def test_a_large_table_loads_in_linear_time(tmp_path):
    n = 900_000
    p = write(tmp_path / "table.json", json.dumps(constant([0.5] * n), separators=(",", ":")))
    t0 = time.process_time()
    df = load(p)
    assert time.process_time() - t0 < 2.0  # ~0.3 s on an idle core
    assert len(df.diagram["c"].params["value"]) == n
    assert "more than 1000000 list elements" in problems(
        write(tmp_path / "huge.json", json.dumps(constant([0] * 1_100_000)))
    )
    # a malformed element deep in a big table is still found, with its position
    text = json.dumps(constant([1.0] * 1000)).replace("1.0, 1.0]", "1.0, 1e999]")
    with pytest.raises(DiagramFileError) as info:
        loads(text)
    assert "number 1e999 is outside the float64 range" in "\n".join(info.value.problems)


def test_npy_data_files_beside_the_diagram(tmp_path):
    m = np.arange(12.0).reshape(3, 4)
    np.save(tmp_path / "m.npy", m)
    p = write(tmp_path / "d.json", constant({"npy": "m.npy"}))
    df = load(p)
    np.testing.assert_array_equal(df.diagram["c"].params["value"], m)
    r = simulate(df.diagram, 1.0)
    np.testing.assert_array_equal(r["c.y"][-1], m)
    assert json.loads(dumps(df.diagram))["blocks"]["c"]["params"]["value"] == {"npy": "m.npy"}
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    write(p, constant({"npy": "obj.npy"}))
    assert "not a .npy array file" in problems(p)
    write(p, constant({"npy": "../m.npy"}))
    assert "outside this file's folder" in problems(p)
    write(p, constant({"npy": "missing.npy"}))
    assert "data file 'missing.npy' not found" in problems(p)
    (tmp_path / "fake.npy").write_text("root:x:0:0")
    write(p, constant({"npy": "fake.npy"}))
    assert "not a .npy array file" in problems(p) and "root:x" not in problems(p)


def test_a_bad_clock_is_reported_once():
    text = json.dumps(
        {
            "blocksim": 1,
            "clocks": {"c": {"period": -1}},
            "blocks": {
                "c0": {"type": "Constant", "params": {"value": 1.0}},
                "z": {"type": "UnitDelay", "params": {"clock": "$c"}},
                "z2": {"type": "UnitDelay", "params": {"clock": "=c"}},
            },
            "wires": [{"from": "c0", "to": "z"}, {"from": "c0", "to": "z2"}],
        }
    )
    with pytest.raises(DiagramFileError) as info:
        loads(text)
    assert len(info.value.problems) == 1
    assert "clock 'c': Clock: period must be a positive" in info.value.problems[0]
