"""`blocksim check`, `draw`, `blocks`, `compare`, and the installed console script."""

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from blocksim import SimResult
from blocksim.cli import main
from blocksim.io.registry import block_types

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"
LOOP = str(DIAGRAMS / "first_order_loop.json")


def test_check_describes_a_good_file_and_lists_every_problem_of_a_bad_one(tmp_path, capsys):
    assert main(["check", str(DIAGRAMS / "multirate_sampling.json"), "-v"]) == 0
    out = capsys.readouterr().out
    assert "OK - 6 blocks, 5 signals, 0 continuous and 1 discrete states, 2 clocks" in out
    assert "clock: period 0.3 s" in out
    bad = tmp_path / "bad.json"
    bad.write_text('{"blocksim": 1,\n"blocks": {\n"g": {"type": "Gian"},\n'
                   '"s": {"type": "Sum", "params": {"signs": "+-", "x": 1}}},\n'
                   '"wires": [{"from": "s", "to": "g"}]}')
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: 2 problems:" in out
    assert f"{bad}:3: blocks.g.type: block 'g': unknown block type 'Gian'" in out
    assert f"{bad}:4: blocks.s.params.x: Sum has no parameter 'x'" in out
    assert main(["check", str(tmp_path / "none.json")]) == 2
    assert "none.json: no such file" in capsys.readouterr().err


def test_check_reports_compile_problems_too(tmp_path, capsys):
    doc = {"blocksim": 1, "blocks": {"g": {"type": "Gain", "params": {"K": 1}}}}
    (tmp_path / "open.json").write_text(json.dumps(doc, indent=1))
    assert main(["check", str(tmp_path / "open.json")]) == 1
    assert "open.json:4: blocks.g: input 'g.u' (Gain) is not connected" in \
        capsys.readouterr().out


def test_check_reports_bad_simulation_settings_with_the_other_problems(tmp_path, capsys):
    doc = {"blocksim": 1, "blocks": {"g": {"type": "Gain", "params": {"K": 1}}},
           "simulation": {"T": 1.0, "solver": "rk4"}}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(doc, indent=1))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: 2 problems:" in out and "input 'g.u' (Gain) is not connected" in out
    assert f"{path}: simulation: solver 'rk4' is fixed-step and needs `dt`" in out
    doc = json.loads(Path(LOOP).read_text())
    doc["simulation"] = {"T": 1.0, "rtol": -1}
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: 1 problem:\n  {path}: simulation: `rtol` must be a positive number, got -1" \
        in out
    doc["simulation"] = {"T": 1.0, "solver": "rk4", "dt": 0.01, "specialize": True}
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 0


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_draw_writes_the_picture(suffix, tmp_path, capsys):
    out = tmp_path / f"d{suffix}"
    assert main(["draw", LOOP, "-o", str(out)]) == 0
    assert out.stat().st_size > 1000 and f"wrote {out}" in capsys.readouterr().out
    assert main(["draw", LOOP, "-o", str(tmp_path / "d.txt")]) == 2


def test_blocks_lists_the_catalog_as_text_and_json(capsys):
    assert main(["blocks"]) == 0
    text = capsys.readouterr().out
    for name in block_types():
        assert f"\n{name}  (" in "\n" + text
    assert "N = 100.0 [rad/s]" in text  # PID's derivative filter pole, unit from the docstring
    assert main(["blocks", "--json", "PID", "Function"]) == 0
    entries = json.loads(capsys.readouterr().out)
    pid, func = entries
    assert [p["name"] for p in pid["inputs"]] == ["e"] and pid["in_files"]
    kp = next(p for p in pid["parameters"] if p["name"] == "Kp")
    assert kp == {"name": "Kp", "required": False, "unit": "unit of y / unit of e",
                  "strings": False, "default": 1.0, "annotation": "float"}
    upper = next(p for p in pid["parameters"] if p["name"] == "upper")
    assert upper["default"] == "=inf"
    assert not func["in_files"] and "takes a Python callable" in func["note"]
    assert main(["blocks", "Gian"]) == 2
    assert "did you mean 'Gain'" in capsys.readouterr().err


def _save(path, t, y, extra=None):
    signals = {"x.y": np.asarray(y, dtype=float), **(extra or {})}
    SimResult(np.asarray(t, dtype=float), np.zeros((len(t), 0)), signals, []).save(path)


def test_compare_same_grid_interpolated_grid_and_missing_signals(tmp_path, capsys):
    a, b, c, d = (tmp_path / f"{n}.npz" for n in "abcd")
    t = np.linspace(0, 1, 11)
    _save(a, t, t**2)
    _save(b, t, t**2 + 1e-9)
    assert main(["compare", str(a), str(b), "--tol", "1e-6"]) == 0
    assert "1 signals compared, 0 above tol 1e-06: the runs agree" in capsys.readouterr().out
    _save(c, np.linspace(0, 1, 21), np.linspace(0, 1, 21) ** 2)  # finer grid
    assert main(["compare", str(a), str(c), "--tol", "1e-3"]) == 1
    out = capsys.readouterr().out
    assert "21 common grid points" in out and "x.y" in out and "> tol" in out
    # linear interpolation of t^2 on a 0.1 grid is off by at most 0.1^2/4 between the nodes
    assert main(["compare", str(a), str(c), "--tol", "0.0026", "--plot",
                 str(tmp_path / "o.png")]) == 0
    assert (tmp_path / "o.png").stat().st_size > 1000
    capsys.readouterr()
    _save(d, t, t**2, {"z.y": t})
    assert main(["compare", str(a), str(d)]) == 1
    assert "signal 'z.y' only in B" in capsys.readouterr().out
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert main(["compare", str(a), str(tmp_path / "junk.npz")]) == 2
    err = capsys.readouterr().err
    assert "junk.npz: not an .npz file" in err and len(err.splitlines()) == 1


def test_the_console_script_is_installed(tmp_path):
    scripts = Path(sysconfig.get_path("scripts")) / "blocksim"
    exe = shutil.which("blocksim") or (str(scripts) if scripts.exists() else None)
    assert exe is not None, "pip install -e . should have installed the `blocksim` script"
    proc = subprocess.run([exe, "check", LOOP], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "OK - 5 blocks" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "blocksim.cli", "run", str(tmp_path / "no.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_a_listing_cut_short_by_its_reader_ends_quietly():
    """`blocksim blocks | head -1`: the pipe closes early; no BrokenPipeError traceback."""
    import subprocess
    import sys

    proc = subprocess.run(f"{sys.executable} -m blocksim.cli blocks | head -1", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() and "Traceback" not in proc.stderr, proc.stderr
    assert "BrokenPipe" not in proc.stderr
