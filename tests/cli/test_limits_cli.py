"""The command line's limits and folders: --max-steps and --max-memory raise what a run may
take (check and run agree, with the same options), --allow-dir lets subsystem files come
from another folder, and a run over its limits is a bad file (exit 2) naming the estimate."""

import json

import numpy as np

from blocksim.cli import main
from blocksim.engine.record import SimResult

LOOP = {
    "blocksim": 1,
    "blocks": {
        "x": {"type": "Integrator", "params": {"x0": 1.0}},
        "g": {"type": "Gain", "params": {"K": -1.0}},
    },
    "wires": [{"from": "x", "to": "g"}, {"from": "g", "to": "x"}],
    "simulation": {"T": 1.0, "solver": "rk4", "dt": 1e-3},
}


def test_max_steps_on_the_command_line_for_check_and_run(tmp_path, capsys):
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(LOOP))
    assert main(["check", str(path), "--max-steps", "500"]) == 1
    out = capsys.readouterr().out
    assert "simulation: a run of T = 1 s of 'loop' would take 1000 solver steps" in out
    assert "the limit is max_steps = 500" in out and "--max-steps (blocksim run)" in out
    assert main(["run", str(path), "--quiet", "--max-steps", "500"]) == 2
    assert "would take 1000 solver steps" in capsys.readouterr().err
    out_file = tmp_path / "r.npz"
    assert main(["check", str(path), "--max-steps", "2000"]) == 0
    assert main(["run", str(path), "--quiet", "--max-steps", "2000", "--out", str(out_file)]) == 0
    np.testing.assert_allclose(SimResult.load(out_file)["x.y"][-1], np.exp(-1.0), rtol=1e-9)


def test_max_memory_accepts_sizes(tmp_path, capsys):
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(LOOP))
    assert main(["check", str(path), "--max-memory", "100k"]) == 1
    assert "the limit is max_memory = 100 kB" in capsys.readouterr().out
    assert main(["check", str(path), "--max-memory", "10M"]) == 0
    assert main(["run", str(path), "--max-memory", "lots"]) == 2
    assert "is not a size" in capsys.readouterr().err


def test_allow_dir_lets_included_files_come_from_another_folder(tmp_path, capsys):
    lib, work = tmp_path / "lib", tmp_path / "work"
    lib.mkdir()
    work.mkdir()
    inner = {"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": 4.0}}}}
    (lib / "inner.json").write_text(json.dumps(inner))
    top = {
        "blocksim": 1,
        "blocks": {"s": {"type": "Subsystem", "file": "../lib/inner.json"}},
        "simulation": {"T": 1.0},
    }
    (work / "top.json").write_text(json.dumps(top))
    assert main(["check", str(work / "top.json")]) == 1
    assert "is outside this file's folder" in capsys.readouterr().out
    assert main(["check", str(work / "top.json"), "--allow-dir", str(lib)]) == 0
    assert main(["run", str(work / "top.json"), "--allow-dir", str(lib)]) == 0
    assert "s/c.y = 4" in capsys.readouterr().out


def test_check_and_run_report_the_same_settings_problem(tmp_path, capsys):
    doc = dict(LOOP, simulation={"T": 1.0, "solver": "RK99"})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "simulation: unknown solver 'RK99'" in out
    assert main(["run", str(path), "--quiet"]) == 2
    assert "unknown solver 'RK99'" in capsys.readouterr().err
    # an option of the command line fixes it for both
    assert main(["check", str(path), "--solver", "RK45"]) == 0
