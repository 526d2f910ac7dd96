"""`blocksim sweep` with a results folder or arguments from a stranger: every problem is one
line and exit 2, nothing already computed is lost, nothing hangs, nothing is built past the
limits; and the shipped sweep diagram runs on the interpreted back-end's process pool."""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from blocksim.cli import main
from blocksim.engine.sweep import load_sweep
from blocksim.engine.sweep.untrusted import UntrustedFileError

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"
FAST = ["--T", "1", "--solver", "rk4", "--dt", "1e-2", "--backend", "interpreted", "--quiet"]
GRID = ["--grid", "gain.K=1:4:6", "--chunk", "2"]


def one_line(capsys, *words: str) -> str:
    cap = capsys.readouterr()
    err = cap.err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, err
    return err


def snapshot(folder: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(folder.iterdir()):
        if p.is_file() and not p.is_symlink() and not p.name.startswith("."):
            out[p.name] = p.read_bytes()
    return out


@pytest.fixture(scope="module")
def loop(tmp_path_factory) -> str:
    """diagrams/first_order_loop.json (with its Scope: every member's result carries a
    deferred figure back from the process pool)."""
    path = tmp_path_factory.mktemp("diagrams") / "first_order_loop.json"
    shutil.copy(DIAGRAMS / "first_order_loop.json", path)
    return str(path)


@pytest.fixture(scope="module")
def finished(loop, tmp_path_factory) -> Path:
    """A finished folder of 6 members in 3 chunks (deleted chunk files are run again)."""
    out = tmp_path_factory.mktemp("sweeps") / "done"
    assert main(["sweep", loop, *GRID, *FAST, "--out", str(out)]) == 0
    return out


@pytest.fixture
def folder(finished, tmp_path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(finished, out, symlinks=True)
    return out


def resume(loop, folder, *more) -> int:
    return main(["sweep", loop, *GRID, *FAST, "--out", str(folder), "--resume", *more])


def test_the_shipped_sweep_diagram_runs_on_the_interpreted_pool(capsys):
    # its Scope's deferred figure travels back from each worker process with the result
    argv = ["sweep", str(DIAGRAMS / "pid_gain_sweep.json"), "--backend", "interpreted",
            "--grid", "pid.Kp=2:40:3", "--T", "0.2", "--signals", "ise.y"]
    assert main(argv) == 0
    assert "3 members on local (interpreted back-end" in capsys.readouterr().out


def test_an_intact_folder_resumes(loop, folder, capsys):
    (folder / "chunk-000001.npz").unlink()
    assert resume(loop, folder, "--max-memory", "4G", "--max-steps", "2e7") == 0  # limits
    assert capsys.readouterr().err == ""  # are not part of the batch's fingerprint
    full = load_sweep(folder)
    K = np.linspace(1, 4, 6)
    np.testing.assert_allclose(full["x.y"][:, -1], 1 - np.exp(-K), rtol=1e-6)


# ---------------------------------------------------------------------------- tampering
def _npy(a) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()


def _rewrite(path: Path, compress: bool = False, **arrays) -> None:
    with np.load(path) as z:
        old = {k: z[k] for k in z.files}
    old.update(arrays)
    how = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", how) as zf:
        for k, v in old.items():
            zf.writestr(f"{k}.npy", v if isinstance(v, bytes) else _npy(v))


def _claim_size(path: Path, member: str, size: int) -> None:
    """Make the zip directory of ``path`` declare ``size`` bytes for ``member``."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    k = data.find(b"PK\x01\x02")
    while k >= 0:
        n = struct.unpack_from("<H", data, k + 28)[0]
        if bytes(data[k + 46:k + 46 + n]) == name:
            struct.pack_into("<I", data, k + 24, size)
        k = data.find(b"PK\x01\x02", k + 4)
    path.write_bytes(bytes(data))


def _deep(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


CASES = {
    "deep sweep.json": (lambda f: _deep(f / "sweep.json"), ["sweep.json", "nested"]),
    "deep index.json": (lambda f: _deep(f / "index.json"), ["index.json", "nested"]),
    "deep overrides.json": (lambda f: _deep(f / "overrides.json"), ["overrides.json"]),
    "sweep.json not an object": (
        lambda f: (f / "sweep.json").write_text("[]"), ["sweep.json", "not the description"]),
    "negative members": (
        lambda f: _edit(f / "sweep.json", members=-5), ["sweep.json", "inconsistent"]),
    "huge chunk size": (
        lambda f: _edit(f / "sweep.json", chunk=10**18), ["sweep.json", "inconsistent"]),
    "index names ../": (
        lambda f: _edit_row(f, 1, file="../chunk-000001.npz"), ["index.json", "../chunk"]),
    "index moves a range": (
        lambda f: _edit_row(f, 1, start=0, stop=10**12), ["index.json", "members 2..3"]),
    "index drops a chunk": (
        lambda f: _edit(f / "index.json", chunks=[]), ["index.json", "3 chunks"]),
    "chunk claims another range": (
        lambda f: shutil.copy(f / "chunk-000000.npz", f / "chunk-000001.npz"),
        ["chunk-000001.npz", "members from 0", "refused"]),
    "chunk with the right range, wrong shapes": (
        lambda f: _rewrite(f / "chunk-000001.npz", x=np.zeros((3, 4, 1))),
        ["chunk-000001.npz", "'x'", "refused"]),
    "chunk with another batch's overrides": (
        lambda f: _rewrite(f / "chunk-000001.npz",
                           overrides=np.array(json.dumps([{"gain.K": 9.0}] * 2))),
        ["chunk-000001.npz", "overrides", "refused"]),
    "chunk with an extra member": (
        lambda f: _rewrite(f / "chunk-000001.npz", **{"../evil": np.zeros(1)}),
        ["chunk-000001.npz", "../evil"]),
    "chunk with deep errors JSON": (
        lambda f: _rewrite(f / "chunk-000001.npz",
                           errors=np.array(["[" * 5000 + "]" * 5000, ""])),
        ["chunk-000001.npz", "nested"]),
    "chunk with pickled objects": (
        lambda f: _rewrite(f / "chunk-000001.npz", status=_pickled()),
        ["chunk-000001.npz", "not accepted"]),
    "chunk that is a directory": (
        lambda f: ((f / "chunk-000001.npz").unlink(), (f / "chunk-000001.npz").mkdir()),
        ["chunk-000001.npz", "directory"]),
    "chunk that is garbage": (
        lambda f: (f / "chunk-000001.npz").write_bytes(b"\x00" * 1000),
        ["chunk-000001.npz", "not a zip"]),
    "chunk declaring 3.9 GB": (
        lambda f: _claim_size(f / "chunk-000001.npz", "x.npy", 3_900_000_000),
        ["chunk-000001.npz", "3900", "inflated"]),
}


def _pickled() -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([{}, {}], dtype=object), allow_pickle=True)
    return buf.getvalue()


def _edit(path: Path, **changes) -> None:
    doc = json.loads(path.read_text())
    doc.update(changes)
    path.write_text(json.dumps(doc))


def _edit_row(folder: Path, k: int, **changes) -> None:
    doc = json.loads((folder / "index.json").read_text())
    doc["chunks"][k].update(changes)
    (folder / "index.json").write_text(json.dumps(doc))


@pytest.mark.parametrize("case", list(CASES))
def test_a_tampered_folder_is_refused_in_one_line_and_kept(loop, folder, case, capsys):
    tamper, words = CASES[case]
    tamper(folder)
    before = snapshot(folder)
    assert resume(loop, folder) == 2
    one_line(capsys, *words)
    assert snapshot(folder) == before  # nothing rewritten, nothing lost
    if case.startswith("chunk"):
        with pytest.raises(UntrustedFileError):
            load_sweep(folder)


def test_a_chunk_bomb_is_refused_before_inflating(loop, folder, capsys):
    # 40 MB of zeros in the right names, compressed to ~40 kB; the budget is --max-memory
    _rewrite(folder / "chunk-000002.npz", compress=True, x=np.zeros((2, 5_000_000, 1)))
    assert os.path.getsize(folder / "chunk-000002.npz") < 500_000
    assert resume(loop, folder, "--max-memory", "20M") == 2
    one_line(capsys, "chunk-000002.npz", "inflated")
    # under a larger budget the shapes (read from the headers, before the data) refuse it
    assert resume(loop, folder) == 2
    one_line(capsys, "chunk-000002.npz", "'x'")


def test_a_fifo_chunk_is_refused_without_waiting(loop, folder, capsys):
    (folder / "chunk-000001.npz").unlink()
    os.mkfifo(folder / "chunk-000001.npz")
    assert resume(loop, folder) == 2
    one_line(capsys, "chunk-000001.npz", "not a regular file")


def test_a_chunk_linked_outside_the_folder_is_refused(loop, folder, tmp_path, capsys):
    outside = tmp_path / "outside.npz"
    shutil.move(folder / "chunk-000001.npz", outside)
    (folder / "chunk-000001.npz").symlink_to(outside)
    assert resume(loop, folder) == 2
    one_line(capsys, "chunk-000001.npz", "symbolic link")
    assert (folder / "chunk-000001.npz").is_symlink()


def test_another_diagram_of_the_same_name_is_another_batch(loop, folder, tmp_path, capsys):
    doc = json.loads(Path(loop).read_text())
    doc["blocks"]["x"]["params"]["x0"] = 0.5  # same name, same members, other content
    other = tmp_path / "first_order_loop.json"
    other.write_text(json.dumps(doc))
    assert resume(str(other), folder) == 2
    one_line(capsys, "another batch", "diagram_sha256")


def test_a_forged_fingerprint_does_not_pass(loop, folder, capsys):
    # a stored fingerprint is only compared with the one recomputed from the diagram
    _edit(folder / "sweep.json", fingerprint="0" * 64)
    assert resume(loop, folder) == 2
    one_line(capsys, "another batch")


# ---------------------------------------------------------------------------- --out
def test_out_naming_a_file_or_a_link_is_one_line(loop, tmp_path, capsys):
    (tmp_path / "results.txt").write_text("keep me")
    assert main(["sweep", loop, *GRID, *FAST, "--out", str(tmp_path / "results.txt")]) == 2
    one_line(capsys, "results.txt", "is a file")
    assert (tmp_path / "results.txt").read_text() == "keep me"
    assert main(["sweep", loop, *GRID, *FAST, "--out", str(tmp_path / "results.txt/x")]) == 2
    one_line(capsys, "results.txt", "is a file")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    assert main(["sweep", loop, *GRID, *FAST, "--out", str(tmp_path / "link")]) == 2
    one_line(capsys, "link", "symbolic link")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_summary_link_in_the_folder_is_replaced_not_written_through(loop, folder,
                                                                       tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (folder / "summary.npz").unlink()
    (folder / "summary.npz").symlink_to(victim)
    assert resume(loop, folder) == 0
    assert victim.read_text() == "keep me" and not (folder / "summary.npz").is_symlink()


# ---------------------------------------------------------------------------- members
@pytest.mark.parametrize(
    "args, words",
    [
        (["--grid", "gain.K=1:2:100000000"], ["100000000 members", "--max-members"]),
        (["--grid", "gain.K=1:2:1000", "--grid", "x.x0=0:1:10000"],
         ["1000 x 10000 = 10000000 members", "--max-members"]),
        (["--grid", "gain.K=1:2:3", "--max-members", "2"], ["3 members", "--max-members 2"]),
        (["--monte-carlo", "100000000"], ["--monte-carlo 100000000", "--max-members"]),
        (["--grid", "gain.K=1:2:inf"], ["finite numbers"]),
        (["--grid", "gain.K=1:2:1e9"], ["finite numbers"]),
        (["--grid", "gain.K=nan:2:3"], ["finite numbers"]),
        (["--grid", "gain.K=1,inf"], ["finite numbers"]),
        (["--grid", "gain.K=1:2:-3"], ["n >= 1"]),
        (["--grid", "gain.K=1,2", "--grid", "gain.K=3"], ["given twice"]),
        (["--monte-carlo", "2", "--vary", "gain.K=normal:1:nan"], ["finite"]),
        (["--monte-carlo", "2", "--vary", "gain.K=normal:1:-1"], ["a spread >= 0"]),
    ],
)
def test_member_counts_and_values_are_checked_before_anything_is_built(loop, args, words,
                                                                      capsys):
    assert main(["sweep", loop, *FAST, *args]) == 2
    one_line(capsys, *words)


def test_the_member_limit_is_raised_on_the_command_line(loop, capsys):
    argv = ["sweep", loop, *FAST, "--grid", "gain.K=1:2:3", "--max-members", "3"]
    assert main(argv) == 0


def test_a_bad_grid_parameter_fails_before_the_folder_is_made(loop, tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["sweep", loop, *FAST, "--grid", "gain.Q=1,2", "--out", str(out)]) == 2
    one_line(capsys, "gain.Q", "no parameter")
    assert not out.exists()
