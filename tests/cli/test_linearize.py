"""``blocksim linearize`` and ``blocksim trim`` (in process)."""

from __future__ import annotations

import json

import control
import numpy as np
import pytest

from blocksim.cli import main
from blocksim.io import save
from tests.analysis import models


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name, d in (("msd", models.mass_spring_damper(2.0, 0.5, 3.0)),
                    ("pend", models.pendulum()), ("pi", models.pi_loop())):
        paths[name] = str(tmp_path / f"{name}.json")
        save(d, paths[name])
    return paths


def test_report_of_a_mass_spring_damper(files, capsys):
    assert main(["linearize", files["msd"], "--in", "F.y", "--out", "x.y"]) == 0
    out = capsys.readouterr().out
    assert "linearization of 'msd'" in out and "continuous, 2 states" in out
    assert "A =" in out and "B =" in out and "C =" in out and "D =" in out
    assert "v.x" in out and "F:y" in out
    poles = np.roots([2.0, 0.5, 3.0])
    assert f"poles: {poles.real.min():.6g}-{abs(poles.imag).max():.6g}j" in out
    assert "zeros: (none)" in out
    assert "DC gain: 0.333333" in out
    assert "phase margin" in out


def test_json_model_and_margins_of_an_opened_loop(files, capsys):
    assert main(["linearize", files["pi"], "--in", "ctrl.y", "--out", "ctrl.y", "--open",
                 "ctrl.y", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    sys = control.ss(r["A"], r["B"], r["C"], r["D"])
    L = control.tf([models.KP, models.KI], [1.0, 0.0]) * control.tf(*models.PLANT)
    assert models.same_tf(-sys, L)
    _, pm, sm, _, wgc, _ = control.stability_margins(L)
    m = r["margins"]
    assert m["loop"] == "-model" and m["gm"] is None  # infinite: null in strict JSON
    assert m["pm"] == pytest.approx(pm, rel=1e-6) and m["wgc"] == pytest.approx(wgc, rel=1e-6)
    assert m["sm"] == pytest.approx(sm, rel=1e-6)
    assert r["states"] == ["ctrl.integral", "ctrl.filter", "plant.x0", "plant.x1"]
    assert r["inputs"] == ["ctrl:y"] and r["dt"] == 0.0


def test_plots_are_written(files, tmp_path, capsys):
    paths = [str(tmp_path / f"{k}.png") for k in ("bode", "nyq", "step")]
    assert main(["linearize", files["pi"], "--in", "r.y", "--out", "plant.y",
                 "--bode", paths[0], "--nyquist", paths[1], "--step", paths[2]]) == 0
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert main(["linearize", files["pi"], "--in", "r.y", "--out", "plant.y", "--out",
                 "e.y", "--nyquist", paths[1]]) == 2
    assert "a Nyquist plot is of one input and one output" in capsys.readouterr().err
    assert main(["linearize", files["pi"], "--in", "r.y", "--out", "plant.y",
                 "--bode", str(tmp_path / "b.txt")]) == 2


def test_bad_file_and_bad_points_end_with_one_line(files, tmp_path, capsys):
    assert main(["linearize", str(tmp_path / "none.json"), "--in", "a.y", "--out",
                 "b.y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{tmp_path / 'none.json'}: no such file"]
    assert main(["linearize", files["msd"], "--in", "F.yy", "--out", "x.y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "input point 'F.yy': block 'F' (Constant) has no port 'yy' (did you mean 'y'?)" \
        in err[0]
    assert main(["linearize", files["msd"], "--in", "F.y", "--out", "x.y", "--at",
                 str(tmp_path / "op.json")]) == 2
    assert capsys.readouterr().err.strip() == f"--at {tmp_path / 'op.json'}: no such file"
    (tmp_path / "bad.json").write_text("{")
    assert main(["linearize", files["msd"], "--in", "F.y", "--out", "x.y", "--at",
                 str(tmp_path / "bad.json")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_trim_then_linearize_at_the_point(files, tmp_path, capsys):
    op = tmp_path / "op.json"
    assert main(["trim", files["pend"], "--target", "theta.y=pi/4", "--out", str(op)]) == 0
    out = capsys.readouterr().out
    assert "operating point found" in out and "tau.y = 2.77468" in out
    assert main(["linearize", files["pend"], "--in", "tau.y", "--out", "theta.y", "--at",
                 str(op), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    A, _ = models.pendulum_jacobian(np.pi / 4)
    np.testing.assert_allclose(r["A"], A, atol=1e-8)
    # unreachable: status 1, the closest point still written
    assert main(["trim", files["pend"], "--u0", "tau=10", "--fix-input", "tau", "--out",
                 str(op)]) == 1
    assert "operating point NOT found" in capsys.readouterr().out
    assert json.loads(op.read_text())["success"] is False
    # the angle held at 1 rad and the rate at 0, the angle not asked to be steady: w' = 0
    assert main(["trim", files["pend"], "--x0", "theta=1", "--x0", "w=0", "--fix-state",
                 "theta", "--fix-state", "w", "--unsteady", "theta", "--json"]) == 0
    point = json.loads(capsys.readouterr().out)
    assert point["inputs"]["tau.y"] == pytest.approx(0.5 * 9.81 * 0.8 * np.sin(1.0))
    assert main(["trim", files["pend"], "--target", "theta.y"]) == 2
    assert "expected NAME=VALUE" in capsys.readouterr().err
    assert main(["trim", files["pend"], "--target", "thta.y=1"]) == 2
    assert "(did you mean 'theta'?)" in capsys.readouterr().err


def test_a_mimo_model_prints_its_dc_gain_as_a_matrix_and_no_margins(tmp_path, capsys):
    from tests.analysis.models import A2, B2, K2, mimo_loop

    path = str(tmp_path / "mimo.json")
    save(mimo_loop(), path)
    assert main(["linearize", path, "--in", "r.y", "--out", "p.y"]) == 0
    out = capsys.readouterr().out
    assert "DC gain =" in out and "margins" not in out
    assert main(["linearize", path, "--in", "r.y", "--out", "p.y", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    A, B = A2 - B2 @ K2, B2 @ K2
    np.testing.assert_allclose(r["dc_gain"], -np.linalg.solve(A, B), rtol=1e-12)
    assert r["margins"] is None and r["inputs"] == ["r:y[0]", "r:y[1]"]


def test_a_diagram_file_with_an_algebraic_loop_is_linearized_with_the_loop_solved(tmp_path,
                                                                                   capsys):
    from blocksim.blocks import Gain
    from tests.analysis.test_loops import loop

    path = str(tmp_path / "loop.json")
    save(loop(Gain(0.5)), path)
    assert main(["linearize", path, "--in", "c.y", "--out", "s.y", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["D"] == [[pytest.approx(1 / 1.5, rel=1e-14)]]
    assert main(["trim", path, "--target", "s.y=0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"]["c.y"] == pytest.approx(0, abs=1e-12)
