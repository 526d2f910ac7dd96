"""`blocksim sweep` as a new user meets it: the rate over the run only (compile time apart),
members named by their swept values, standard JSON in the results folder, clean paths, and
the commands the sweep diagrams quote print a table of values, not array shapes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from blocksim.cli import main
from blocksim.cli.common import compile_file, load_file
from blocksim.engine.config import RunConfig
from blocksim.engine.sweep import Summaries, run_sweep
from blocksim.engine.sweep.folder import VERSION

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"
FAST = ["--T", "1", "--solver", "rk4", "--dt", "1e-2"]


@pytest.fixture(scope="module")
def loop(tmp_path_factory) -> str:
    """diagrams/first_order_loop.json without its Scope: x' = K (1 - x)."""
    doc = json.loads((DIAGRAMS / "first_order_loop.json").read_text())
    del doc["blocks"]["scope"], doc["layout"]
    for wire in doc["wires"]:
        if isinstance(wire["to"], list):
            wire["to"] = [t for t in wire["to"] if t != "scope"]
    path = tmp_path_factory.mktemp("diagrams") / "first_order_loop.json"
    path.write_text(json.dumps(doc))
    return str(path)


def strict(text: str):
    """JSON text parsed as standard JSON only (NaN/Infinity refused)."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


# ------------------------------------------------------------------ the rate: run time only
def test_the_rate_counts_the_run_only_and_the_compile_time_is_apart(loop):
    df = load_file(loop, None)
    plan = compile_file(df)
    members = [{"gain.K": k} for k in (1.0, 2.0, 3.0, 4.0)]
    config = RunConfig(T=1.0, solver="rk4", dt=1e-2, backend="compiled")
    res = run_sweep(plan, members, config, keep=Summaries(), chunk=2)
    s = res.stats
    assert s["compile_cache"] in ("cold", "cached") and s["compile_time"] > 0
    assert 0 < s["run_time"] < s["wall_time"] - s["compile_time"] + 1e-9
    assert s["members_run"] == 4
    assert s["members_per_second"] == pytest.approx(4 / s["run_time"])
    assert s["chunks_compiled"] == 0  # the chunks loaded what the warm-up compiled


def test_the_printed_rate_is_members_over_the_run_time(loop, capsys):
    argv = ["sweep", loop, "--grid", "gain.K=1:4:8", *FAST, "--backend", "compiled",
            "--quiet"]
    assert main(argv[:-1]) == 0
    text = capsys.readouterr().out
    m = re.search(r"compile (\S+) s \((compiled once, before the run|loaded from the "
                  r"cache)\), run (\S+) s: (\S+) members/s \(total (\S+) s\)", text)
    assert m, text
    compile_s, run_s, rate, total = (float(m[i]) for i in (1, 3, 4, 5))
    assert run_s + compile_s <= total + 0.011
    if run_s >= 0.05:  # the run time is printed to 0.01 s: a shorter one says little
        assert rate == pytest.approx(8 / run_s, rel=0.2)
    else:
        assert rate >= 8 / 0.015


# ------------------------------------------------------------------ members by swept values
def test_the_table_and_ranges_name_members_by_their_swept_values(loop, capsys):
    argv = ["sweep", loop, "--grid", "gain.K=1:4:4", "--grid", "x.x0=0,0.5", *FAST,
            "--backend", "interpreted", "--signals", "x.y"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    header = next(ln for ln in lines if "status" in ln)
    assert header.split() == ["gain.K", "x.x0", "status", "final(x.y)"]
    rows = lines[lines.index(header) + 1:lines.index(header) + 9]
    exact = [1 - (1 - x0) * np.exp(-K) for K in (1, 2, 3, 4) for x0 in (0, 0.5)]
    for row, (K, x0), value in zip(rows, [(K, x0) for K in (1, 2, 3, 4) for x0 in (0, 0.5)],
                                   exact):
        k, x, status, final = row.split()
        assert (float(k), float(x), status) == (K, x0, "success")
        assert float(final) == pytest.approx(value, rel=1e-3)
    assert "min 0.6321 at gain.K=1, x.x0=0 [0]" in text
    assert "max 0.9908 at gain.K=4, x.x0=0.5 [7]" in text
    assert "(member " not in text and "shape (" not in text


def test_failures_name_the_members_by_their_swept_values(loop, capsys):
    argv = ["sweep", loop, "--grid", "gain.K=1,1e6,2", *FAST, "--backend", "interpreted"]
    assert main(argv) == 1
    text = capsys.readouterr().out
    assert "1 of 3 members failed: 1 x NonFiniteError" in text
    assert "(gain.K=1e+06 [1])" in text and "(member 1)" not in text
    assert re.search(r"^  1e\+06 +failed", text, re.M)


def test_labels_prefer_the_swept_parameters_to_the_seeds():
    from blocksim.engine.sweep.table import member_label, swept_keys

    members = [{"a.k": 1.0, "n.seed": 11}, {"a.k": 2.5, "n.seed": 12}]
    assert swept_keys(members) == ["a.k"]
    assert swept_keys([{"n.seed": 1}, {"n.seed": 2}]) == []  # seeds only: by number
    assert member_label(members, 1, ["a.k"]) == "a.k=2.5 [1]"
    assert member_label(members, 1, []) == "member 1"


def test_the_failure_line_groups_by_error_and_names_values():
    from blocksim.engine.record import BatchResult, MemberError
    from blocksim.engine.sweep.table import failures

    err = MemberError("NonFiniteError", "x is inf at t = 0.5", 0.5)
    res = BatchResult(np.zeros(1), np.zeros((3, 1, 1)), {}, [{"g.K": v} for v in (1, 2, 3)],
                      np.array(["failed", "success", "failed"]), {}, [err, None, err])
    assert failures(res, ["g.K"]) == ("2 of 3 members failed: 2 x NonFiniteError: x is inf "
                                      "at t = 0.5 (t = 0.5 s) (g.K=1 [0]; g.K=3 [2])")


def test_a_monte_carlo_of_seeds_is_numbered_and_says_so(capsys):
    f = str(DIAGRAMS / "ekf_nees_sweep.json")
    assert main(["sweep", f, "--monte-carlo", "3", "--T", "1", "--signals", "ekf.x"]) == 0
    text = capsys.readouterr().out
    assert "differ in their noise seeds only" in text
    assert "member  status   final(ekf.x)" in text


# ------------------------------------------------------------------ standard JSON, clean paths
def test_sweep_json_is_standard_json_and_reads_back(loop, tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = ["sweep", loop, "--grid", "gain.K=1,2", "--solver", "RK45", "--T", "1",
            "--backend", "interpreted", "--out", f"{out}/"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert f"wrote {out} (index.json" in text and "//" not in text
    for name in ("sweep.json", "index.json", "overrides.json"):
        strict((out / name).read_text())  # no NaN / Infinity
    meta = strict((out / "sweep.json").read_text())
    assert meta["version"] == VERSION == 3
    assert meta["config"]["max_step"] == "inf" and "inf" in meta["notes"]
    assert main([*argv, "--resume"]) == 0  # read back the same way: the fingerprint holds
    assert "resumed: 1 chunks read from " + str(out) + ", 0 run" in capsys.readouterr().out


def test_a_folder_with_infinity_is_refused(loop, tmp_path, capsys):
    out = tmp_path / "s"
    argv = ["sweep", loop, "--grid", "gain.K=1,2", "--solver", "RK45", "--T", "1",
            "--backend", "interpreted", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    meta = out / "sweep.json"
    meta.write_text(meta.read_text().replace('"inf"', "Infinity"))
    assert main([*argv, "--resume"]) == 2
    assert "not valid JSON (the non-standard constant Infinity" in capsys.readouterr().err
    meta.write_text(meta.read_text().replace('"version": 3', '"version": 2'))
    assert main([*argv, "--resume"]) == 2  # an older folder: named by its version
    assert "format version 2, this blocksim reads version 3" in capsys.readouterr().err


def test_non_finite_overrides_and_error_times_are_written_as_json(loop, tmp_path):
    from blocksim.engine.record import MemberError
    from blocksim.engine.sweep.folder import _error_json, dumps

    assert strict(dumps({"a": float("inf"), "b": [np.float64("nan"), -np.inf]})) == {
        "a": "inf", "b": ["nan", "-inf"]}
    assert strict(_error_json(MemberError("E", "m", float("inf"))))["time"] is None


# ------------------------------------------------------------------ the diagrams' commands
def quoted(name: str) -> list[str]:
    desc = json.loads((DIAGRAMS / f"{name}.json").read_text())["description"]
    [cmd] = re.findall(r"`(blocksim sweep [^`]*)`", desc)
    assert "..." not in cmd, cmd
    return shlex.split(cmd)[1:]


@pytest.mark.parametrize("name, rows", [
    ("quadrotor_mass_sweep", 9), ("pid_gain_sweep", 24), ("ekf_nees_sweep", 24)])
def test_the_commands_the_sweep_diagrams_quote_print_a_table_of_values(name, rows, capsys,
                                                                       monkeypatch):
    monkeypatch.chdir(DIAGRAMS.parent)
    argv = quoted(name)
    assert main([*argv, "--T", "0.5"]) == 0
    text = capsys.readouterr().out
    assert "shape (" not in text and "float64" not in text
    lines = text.splitlines()
    header = next(i for i, ln in enumerate(lines) if " status " in ln)
    table = lines[header + 1:header + 1 + rows]
    assert len(table) == rows and all("success" in ln for ln in table)
    # every row: its swept values (or number), then numbers: values, not shapes
    assert all(re.search(r"success +\[?-?\d", ln) for ln in table), table
    if name == "quadrotor_mass_sweep":
        assert lines[header].split()[:2] == ["quad.M", "status"]
        assert [float(ln.split()[0]) for ln in table] == pytest.approx(
            np.linspace(3.2, 4.8, 9))
