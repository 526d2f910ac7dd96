"""`blocksim compare` on saved runs from a stranger: every bad file ends with one line naming
it and exit 2, before anything large is inflated or deeply parsed."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

from blocksim.cli import main
from blocksim.engine.record import SimResult

META = "__blocksim_meta__"


def saved_run(path, n: int = 5) -> str:
    t = np.linspace(0.0, 1.0, n)
    SimResult(t, t[:, None], {"g.y": 2 * t}, ["x"]).save(path)
    return str(path)


def npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()


def npz(path, members: dict[str, bytes], compress: bool = True) -> str:
    how = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", how) as z:
        for k, data in members.items():
            z.writestr(f"{k}.npy", data)
    return str(path)


def meta(**kw) -> bytes:
    doc = {"signals": ["g.y"], "aliases": {}, "state_names": ["x"], "stats": {},
           "status": "success", "message": "", "constant": [], **kw}
    return npy(np.array(json.dumps(doc)))


def good_members(n: int = 5) -> dict[str, bytes]:
    t = np.linspace(0.0, 1.0, n)
    return {"t": npy(t), "x": npy(t[:, None]), "s0": npy(2 * t), META: meta()}


def one_line(capsys, *names: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for n in names:
        assert n in err, err
    return err


def test_two_saved_runs_still_compare(tmp_path, capsys):
    a, b = saved_run(tmp_path / "a.npz"), saved_run(tmp_path / "b.npz")
    assert main(["compare", a, b]) == 0
    assert "the runs agree" in capsys.readouterr().out


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path, capsys):
    # 40 MB of zeros in ~40 kB: refused on the declared size against --max-memory
    members = good_members()
    members["x"] = npy(np.zeros((5, 1_000_000)))
    bomb = npz(tmp_path / "bomb.npz", members)
    assert os.path.getsize(bomb) < 200_000
    good = saved_run(tmp_path / "a.npz")
    assert main(["compare", good, bomb, "--max-memory", "10M"]) == 2
    err = one_line(capsys, "bomb.npz", "inflated", "--max-memory")
    assert "MemoryError" not in err


def test_the_default_budget_holds_without_the_option(tmp_path, capsys, monkeypatch):
    import blocksim.engine.sweep.untrusted as untrusted

    monkeypatch.setattr(untrusted, "MAX_NPZ_BYTES", 1_000_000)
    members = good_members()
    members["s0"] = npy(np.zeros(2_000_000))
    bomb = npz(tmp_path / "bomb.npz", members)
    assert main(["compare", saved_run(tmp_path / "a.npz"), bomb]) == 2
    one_line(capsys, "bomb.npz", "limit of 1 MB")


def test_an_array_header_that_lies_about_its_size_is_refused(tmp_path, capsys):
    # the header promises 10^12 floats (8 TB); the member holds 16 bytes
    fake = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        fake, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)}
    )
    members = good_members()
    members["t"] = fake.getvalue() + b"\0" * 16
    f = npz(tmp_path / "liar.npz", members, compress=False)
    assert main(["compare", f, saved_run(tmp_path / "a.npz")]) == 2
    one_line(capsys, "liar.npz", "header says")


@pytest.mark.parametrize(
    "bad, words",
    [
        ({META: npy(np.array("[" * 100_000 + "]" * 100_000))}, "nested 100000 levels"),
        ({META: npy(np.array("{" * 70 + "}" * 70))}, "nested 70 levels"),
        ({META: npy(np.array("[1, 2]"))}, "not a JSON object"),
        ({META: npy(np.array("not json"))}, "not valid JSON"),
        ({META: npy(np.array([1.0, 2.0]))}, "not a text value"),
        ({META: meta(signals="g.y")}, "'signals'"),
        ({META: meta(constant=["nope"])}, "'constant'"),
        ({"x": npy(np.zeros((3, 1)))}, "'x' is not (5, 1)"),
        ({"s0": npy(np.array(["a"] * 5))}, "signal 'g.y'"),
        ({"t": npy(np.zeros((5, 2)))}, "time array"),
        ({"obj": npy(np.zeros(2, dtype=[("a", "<f8")]))}, "not accepted"),
    ],
)
def test_bad_contents_end_with_one_line(tmp_path, capsys, bad, words):
    f = npz(tmp_path / "bad.npz", {**good_members(), **bad})
    assert main(["compare", f, saved_run(tmp_path / "a.npz")]) == 2
    one_line(capsys, "bad.npz", words)


def test_pickled_objects_are_refused(tmp_path, capsys):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    f = npz(tmp_path / "pickle.npz", {**good_members(), "s0": buf.getvalue()})
    assert main(["compare", f, saved_run(tmp_path / "a.npz")]) == 2
    one_line(capsys, "pickle.npz", "not accepted")


def test_a_fifo_directory_or_garbage_is_refused_without_waiting(tmp_path, capsys):
    good = saved_run(tmp_path / "a.npz")
    os.mkfifo(tmp_path / "fifo.npz")
    assert main(["compare", good, str(tmp_path / "fifo.npz")]) == 2
    one_line(capsys, "fifo.npz", "not a regular file")
    (tmp_path / "dir.npz").mkdir()
    assert main(["compare", str(tmp_path / "dir.npz"), good]) == 2
    one_line(capsys, "dir.npz", "directory")
    (tmp_path / "junk.npz").write_bytes(b"\x00\xff" * 100)
    assert main(["compare", good, str(tmp_path / "junk.npz")]) == 2
    one_line(capsys, "junk.npz", "not a zip")
    assert main(["compare", good, str(tmp_path / "missing.npz")]) == 2
    one_line(capsys, "missing.npz", "no such file")


def test_a_saved_run_with_no_points_is_one_line(tmp_path, capsys):
    empty = tmp_path / "empty.npz"
    SimResult(np.zeros(0), np.zeros((0, 1)), {"g.y": np.zeros(0)}, ["x"]).save(empty)
    assert main(["compare", saved_run(tmp_path / "a.npz"), str(empty)]) == 2
    one_line(capsys, "empty.npz", "no recorded points")
