"""`blocksim run`: summary, overrides, outputs, exit statuses, progress bar."""

import io
import json
from pathlib import Path

import numpy as np
import pytest

from blocksim import SimResult
from blocksim.cli import main
from blocksim.cli.run import Progress

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"
PID = str(DIAGRAMS / "pid_mass_spring_damper.json")
LOOP = str(DIAGRAMS / "first_order_loop.json")


def test_the_flagship_prints_the_final_value_and_writes_the_plot(tmp_path, capsys):
    plot = tmp_path / "pid_msd.png"
    assert main(["run", PID, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "pid_mass_spring_damper: success, t = 10 of 10 s (RK45, interpreted back-end)" in out
    line = next(line for line in out.splitlines() if line.strip().startswith("pos.y"))
    assert abs(float(line.split("=")[1]) - 1.000683661) < 1e-6
    assert plot.stat().st_size > 10_000 and f"wrote {plot}" in out


def test_out_saves_a_result_and_set_overrides_a_block_and_a_shared_parameter(tmp_path, capsys):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["run", LOOP, "--T", "2", "--out", str(a), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["run", LOOP, "--T", "2", "--out", str(b), "--set", "K=4", "--rtol", "1e-9",
                 "--atol", "1e-12", "--quiet"]) == 0
    ra, rb = SimResult.load(a), SimResult.load(b)
    assert ra.t[-1] == 2.0
    np.testing.assert_allclose(rb["x.y"], 1 - np.exp(-4 * rb.t), atol=1e-8)
    c = tmp_path / "c.npz"
    assert main(["run", LOOP, "--T", "1", "--out", str(c), "--set", "gain.K=pi/2",
                 "--solver", "rk4", "--dt", "0.01", "--quiet"]) == 0
    rc = SimResult.load(c)
    np.testing.assert_allclose(rc["x.y"], 1 - np.exp(-np.pi / 2 * rc.t), atol=1e-8)
    assert np.allclose(np.diff(rc.t), 0.01)


def test_a_simulation_failure_exits_1_and_still_writes_the_partial_result(tmp_path, capsys):
    doc = {"blocksim": 1, "name": "blowup",
           "blocks": {"one": {"type": "Constant", "params": {"value": 1.0}},
                      "x": {"type": "Integrator", "params": {"x0": 1.0}},
                      "sq": {"type": "Product", "params": {"ops": "**"}},
                      "s": {"type": "Sum"}},
           "wires": [{"from": "x", "to": ["sq.u0", "sq.u1"]}, {"from": "sq", "to": "s.u0"},
                     {"from": "one", "to": "s.u1"}, {"from": "s", "to": "x"}],
           "simulation": {"T": 5.0}}  # x' = x^2 + 1 from 1: blows up at t = pi/4
    path = tmp_path / "blowup.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "partial.npz"
    assert main(["run", str(path), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "simulation failed at t = 0.78" in captured.err
    assert f"partial results written: {out}" in captured.err
    partial = SimResult.load(out)
    assert partial.status == "failed" and 0.7 < partial.t[-1] < np.pi / 4 + 1e-6


@pytest.mark.parametrize("argv,words", [
    (["run", "missing.json"], "missing.json: no such file"),
    (["run", LOOP, "--set", "oops"], "expected block.param=value"),
    (["run", LOOP, "--set", "gain.Kk=2"], "--set gain.Kk: Gain has no parameter 'Kk'"),
    (["run", LOOP, "--solver", "RK99"], "unknown solver 'RK99'"),
    (["run", LOOP, "--T", "-1"], "`T` (final time, s) must be a finite number >= 0"),
    (["run", LOOP, "--out", "x.csv"], "--out 'x.csv': use a file name ending in .npz"),
    (["run", LOOP, "--plot", "nodir/x.png"], "directory 'nodir' does not exist"),
    (["run", LOOP, "--backend", "fast"], "invalid choice: 'fast'"),
    (["run"], "the following arguments are required: file"),
    ([], "usage: blocksim"),
])
def test_bad_arguments_exit_2(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_compile_problems_point_at_the_block_line(tmp_path, capsys):
    text = ('{"blocksim": 1,\n "blocks": {\n  "a": {"type": "Gain", "params": {"K": 1}},\n'
            '  "b": {"type": "Gain", "params": {"K": 2}}\n },\n'
            ' "wires": [{"from": "a", "to": "b"},\n           {"from": "b", "to": "a"}]\n}')
    path = tmp_path / "loop.json"
    path.write_text(text)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3: blocks.a: algebraic loop: a.y -> b.u (feedthrough)" in err


def test_the_progress_bar_appears_after_its_delay_only():
    buf = io.StringIO()
    bar = Progress(10.0, delay=0.0, file=buf)
    for t in np.linspace(0, 10, 11):
        bar(float(t))
    bar.close()
    assert "simulating: 100%" in buf.getvalue() and "t = 10 of 10 s" in buf.getvalue()
    quiet = io.StringIO()
    bar = Progress(10.0, delay=60.0, file=quiet)  # a run shorter than the delay: no bar
    bar(5.0)
    bar.close()
    assert quiet.getvalue() == ""
    off = io.StringIO()
    bar = Progress(10.0, enabled=False, delay=0.0, file=off)
    bar(5.0)
    assert off.getvalue() == ""


def test_plots_every_signal_when_the_diagram_has_no_scope(tmp_path, capsys):
    doc = {"blocksim": 1, "blocks": {"s": {"type": "Sine"}, "g": {"type": "Gain",
                                                                   "params": {"K": 2}}},
           "wires": [{"from": "s", "to": "g"}], "simulation": {"T": 1.0}}
    path = tmp_path / "noscope.json"
    path.write_text(json.dumps(doc))
    assert main(["run", str(path), "--plot", str(tmp_path / "p.svg"), "--quiet"]) == 0
    assert (tmp_path / "p.svg").read_text().startswith("<?xml")


def _loop_file(tmp_path, simulation):
    doc = json.loads(Path(LOOP).read_text())
    doc["simulation"] = simulation
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("simulation,argv,words", [
    ({"T": 1.0, "solver": "rk4"}, [], "solver 'rk4' is fixed-step and needs `dt`"),
    ({"T": 1.0, "dt": 0.01}, [], "`dt` is the step of the fixed-step solvers"),
    ({"T": 1.0, "rtol": 0.0}, [], "`rtol` must be a positive number, got 0.0"),
    ({"T": 1.0, "solver": "RK54"}, [], "unknown solver 'RK54' (did you mean 'RK45'?)"),
    ({"T": 1.0, "solver": "rk4", "dt": 0.01}, ["--solver", "RK45"],
     "`dt` is the step of the fixed-step solvers"),
    ({"T": 1.0}, ["--record-dt", "-1"], "`record_dt` must be a positive number"),
])
def test_bad_options_of_the_file_or_the_arguments_exit_2_naming_the_file(
        simulation, argv, words, tmp_path, capsys):
    path = _loop_file(tmp_path, simulation)
    assert main(["run", path, "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert f"{path}: {words}" in err


def test_the_arguments_override_the_file_settings_of_the_run_config(tmp_path, capsys):
    path = _loop_file(tmp_path, {"T": 3.0, "solver": "rk4", "dt": 0.5})
    out = tmp_path / "r.npz"
    assert main(["run", path, "--dt", "0.25", "--T", "1", "--out", str(out), "--quiet"]) == 0
    np.testing.assert_allclose(SimResult.load(out).t, [0.0, 0.25, 0.5, 0.75, 1.0])


def test_a_file_that_asks_to_specialize_runs_with_a_deprecation_note(tmp_path, capsys):
    path = _loop_file(tmp_path, {"T": 1.0, "specialize": True})
    assert main(["run", path, "--quiet"]) == 0
    assert "simulation.specialize is deprecated and ignored" in capsys.readouterr().err
