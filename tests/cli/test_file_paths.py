"""The probe's reads and writes outside a diagram's folder, end to end through the command
(in this process): each refused with exit 2 and one message, nothing written or read outside
the folder, nothing of an outside file shown."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from blocksim.cli import main

DIAGRAMS = Path(__file__).parents[2] / "diagrams"


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A diagram's folder ``d``, a scratch HOME, an outside folder with a secret file, and the
    working directory elsewhere."""
    d, home, outside, work = (tmp_path / n for n in ("d", "home", "outside", "work"))
    for f in (d, home, outside, work):
        f.mkdir()
    (outside / "secret.txt").write_text("CANARY-SECRET root:x:0:0")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    return d, home, outside, work


def write(folder, doc, name="hostile.json"):
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def into(block, name="b"):
    """A Constant into ``block``."""
    return {"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": 1.0}},
                                      name: block},
            "wires": [{"from": "c", "to": name}], "simulation": {"T": 0.1}}


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "CANARY" not in out + err
    return code, out + err


def snapshot(*folders):
    return {p: (p.read_bytes() if p.is_file() else None) for f in folders
            for p in sorted(f.rglob("*"))}


@pytest.mark.parametrize("block", [
    {"type": "Record", "params": {"file": "~/x.csv"}},
    {"type": "Record", "params": {"file": "../outside/x.csv"}},
    {"type": "Scope", "params": {"file": "/tmp/blocksim-probe.png"}},
    {"type": "XYGraph", "params": {"file": "../home/plot.svg"}, "in": 2},
])
def test_a_sink_may_not_write_outside_the_folder(place, capsys, block):
    d, home, outside, _ = place
    two = block.pop("in", 1) == 2
    doc = into(block)
    if two:
        doc["wires"] = [{"from": "c", "to": ["b.x", "b.y"]}]
    before = snapshot(home, outside)
    for command in (["check"], ["run", "--quiet"]):
        code, text = cli(capsys, command[0], str(write(d, doc)), *command[1:])
        assert code == (1 if command == ["check"] else 2), text
        assert "this file's folder" in text
    assert snapshot(home, outside) == before
    assert not Path("/tmp/blocksim-probe.png").exists()


def test_an_arm_animation_filename_is_guarded_like_every_output(place, capsys):
    d, _home, outside, _ = place
    doc = json.loads((DIAGRAMS / "puma_jtraj_path.json").read_text())
    doc["blocks"]["anim"]["params"]["filename"] = str(outside / "arm.gif")
    code, text = cli(capsys, "run", str(write(d, doc)), "--quiet", "--T", "0.1")
    assert code == 2 and "ArmPlot: parameter 'filename'" in text
    assert not (outside / "arm.gif").exists()


def test_a_hardware_recording_may_not_overwrite_a_file_outside(place, capsys):
    d, _home, outside, _ = place
    doc = json.loads((DIAGRAMS / "arbotix_phantomx.json").read_text())
    doc["blocks"]["arm"]["params"]["record"] = str(outside / "secret.txt")
    code, text = cli(capsys, "run", str(write(d, doc)), "--quiet", "--T", "0.1")
    assert code == 2 and "parameter 'record'" in text
    assert (outside / "secret.txt").read_text().startswith("CANARY")


def test_a_hardware_replay_may_not_read_a_file_outside(place, capsys):
    d, _home, outside, _ = place
    doc = json.loads((DIAGRAMS / "arbotix_replay.json").read_text())
    for bad in (str(outside / "secret.txt"), "../outside/secret.txt"):
        doc["blocks"]["arm"]["params"]["replay"] = bad
        code, text = cli(capsys, "run", str(write(d, doc)), "--quiet", "--T", "0.1")
        assert code == 2 and "parameter 'replay'" in text


def test_the_shipped_replay_runs_from_any_working_directory(place, capsys):
    code, text = cli(capsys, "run", str(DIAGRAMS / "arbotix_replay.json"), "--quiet",
                     "--T", "0.2")
    assert code == 0, text


def test_a_scope_writes_through_no_shipped_link(place, capsys):
    d, _home, outside, _ = place
    (d / "results").symlink_to(outside)
    (d / "fig.png").symlink_to(outside / "secret.txt")
    for name in ("results/report.png", "fig.png"):
        doc = into({"type": "Scope", "params": {"file": name}})
        code, text = cli(capsys, "run", str(write(d, doc)), "--quiet")
        assert code == 2 and "symbolic link" in text, text
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text().startswith("CANARY")


def test_outputs_are_written_in_the_diagrams_folder_and_allow_dir_opens_another(place, capsys):
    d, _home, outside, work = place
    (d / "results").symlink_to(outside)
    doc = into({"type": "Record", "params": {"file": "results/r.csv"}})
    path = write(d, doc)
    code, text = cli(capsys, "run", str(path), "--quiet", "--allow-dir", str(outside))
    assert code == 0, text
    assert (outside / "r.csv").read_text().startswith("t,")
    doc = into({"type": "Record", "params": {"file": "r.npz"}})
    code, text = cli(capsys, "run", str(write(d, doc)), "--quiet")
    assert code == 0 and (d / "r.npz").exists() and not (work / "r.npz").exists()


def test_out_and_plot_through_a_shipped_link_are_refused(place, capsys, monkeypatch):
    d, _home, outside, _ = place
    (d / "results").symlink_to(outside)
    (d / "run.npz").symlink_to(outside / "secret.txt")
    monkeypatch.chdir(d)  # the user works in the folder they were sent
    path = write(d, into({"type": "Gain", "params": {"K": 2.0}}))
    for option, name in (("--out", "results/run.npz"), ("--out", "run.npz"),
                         ("--plot", "results/p.png")):
        code, text = cli(capsys, "run", str(path), "--quiet", option, name)
        assert code == 2 and "symbolic link" in text, text
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_a_urdf_model_cannot_move_its_root(place, capsys):
    d, _home, outside, _ = place
    (outside / "arm.urdf").write_text('<robot name="CANARY-ROBOT"><link name="a"/></robot>')
    doc = json.loads((DIAGRAMS / "floating_arm_reach.json").read_text())
    doc["models"]["robot"] = {"urdf": "arm.urdf", "base_dir": str(outside)}
    code, text = cli(capsys, "check", str(write(d, doc)))
    assert code == 1 and "'base_dir' cannot be set in a file" in text


@pytest.mark.parametrize("make", ["absolute", "traversal", "fifo", "text_npy", "folder"])
def test_a_map_is_read_only_from_the_folder_and_only_as_a_map(place, capsys, make):
    d, _home, outside, _ = place
    name = {"absolute": str(outside / "secret.txt"), "traversal": "../outside/secret.npy",
            "fifo": "map.png", "text_npy": "map.npy", "folder": "dir.npy"}[make]
    (outside / "secret.npy").write_text("CANARY-SECRET")
    if make == "fifo":
        os.mkfifo(d / "map.png")
    if make == "text_npy":
        (d / "map.npy").write_text("CANARY-SECRET not numpy")
    if make == "folder":
        (d / "dir.npy").mkdir()
    doc = json.loads((DIAGRAMS / "dstar_replan.json").read_text())
    doc["blocks"]["plan"]["params"]["map"] = name
    code, text = cli(capsys, "check", str(write(d, doc)))
    assert code == 1 and "parameter 'map'" in text, text


def test_a_map_of_80_megapixels_is_refused_from_its_header(place, capsys):
    from PIL import Image

    d, *_ = place
    Image.new("1", (9000, 9000), 1).save(d / "huge.png")  # ~100 kB, 81 Mpx
    doc = json.loads((DIAGRAMS / "dstar_replan.json").read_text())
    doc["blocks"]["plan"]["params"]["map"] = "huge.png"
    code, text = cli(capsys, "check", str(write(d, doc)))
    assert code == 1 and "81000000 cells" in text, text


def test_a_map_file_in_the_folder_is_read(place, capsys):
    d, *_ = place
    occ = np.zeros((12, 12))
    occ[5, 2:10] = 1
    np.save(d / "wall.npy", occ)
    doc = json.loads((DIAGRAMS / "dstar_replan.json").read_text())
    doc["blocks"]["plan"]["params"].update(map="wall.npy", goal=[6, 10], obstacles=[])
    doc["blocks"]["robot"]["params"]["x0"] = [6, 1, 1.57]
    code, text = cli(capsys, "check", str(write(d, doc)))
    assert code == 0, text
