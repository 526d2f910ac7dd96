"""Budgets checked before work, and one line instead of a traceback (issue 27, second probe).

Every case runs ``blocksim check`` and ``blocksim run`` in this process, the big ones under the
corpus harness's limits (:class:`tests.io.test_hostile_corpus.Limited`: 2 s of CPU, 300 MB more
address space): check exits 1, run exits 2, no traceback, a bounded report; or the file loads
and runs in linear time.
"""

import json
import math
from pathlib import Path

import pytest

from blocksim.cli import main
from blocksim.engine import block as block_module
from blocksim.engine import errors as errors_module
from blocksim.engine.clock import Clock
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import DiagramError, suggest, suggestion_budget
from blocksim.io import DiagramFileError, loads
from tests.io.test_hostile_corpus import CPU_SECONDS, Limited

LOOP = {
    "x": {"type": "Integrator", "params": {"x0": 1.0}},
    "g": {"type": "Gain", "params": {"K": -1.0}},
}
LOOP_WIRES = [{"from": "x", "to": "g"}, {"from": "g", "to": "x"}]


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Import the command and the blocks once, so that the limits measure the file."""
    main(["check", str(Path(__file__).parents[2] / "diagrams" / "van_der_pol.json")])


def _write(tmp_path, name, blocks, wires=(), simulation=None, **extra):
    doc = {"blocksim": 1, "blocks": blocks, "wires": list(wires), **extra}
    if simulation is not None:
        doc["simulation"] = simulation
    path = tmp_path / name
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


def _commands(path, capsys, monkeypatch, *run_args):
    """check and run of ``path`` under the harness's limits: (check status, run status, text,
    CPU time of the slower)."""
    monkeypatch.chdir(path.parent)
    cpu = 0.0
    codes = []
    for argv in (["check", str(path)], ["run", str(path), "--quiet", *run_args]):
        with Limited() as lim:
            codes.append(main(argv))
        cpu = max(cpu, lim.cpu)
    out, err = capsys.readouterr()
    return codes[0], codes[1], out + err, cpu


def _refused(path, capsys, monkeypatch, *run_args, expect=""):
    check, run, text, cpu = _commands(path, capsys, monkeypatch, *run_args)
    assert "Traceback" not in text, text
    assert (check, run) == (1, 2), text
    assert cpu < CPU_SECONDS, cpu
    assert expect in text, text
    return text


# ------------------------------------------------------------------ tracebacks -> one line
def test_a_denormal_dt_with_rk4_is_refused_by_the_step_limit(tmp_path, capsys, monkeypatch):
    f = _write(tmp_path, "dt.json", LOOP, LOOP_WIRES, {"T": 1.0, "solver": "rk4", "dt": 5e-324})
    text = _refused(f, capsys, monkeypatch, expect="inf solver steps")
    assert "max_steps" in text and "OverflowError" not in text


def test_a_denormal_dt_on_the_command_line_is_refused(tmp_path, capsys, monkeypatch):
    f = _write(tmp_path, "vdp.json", LOOP, LOOP_WIRES, {"T": 1.0})
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(f), "--quiet", "--solver", "rk4", "--dt", "1e-320"]) == 2
    assert main(["check", str(f), "--solver", "rk4", "--dt", "1e-320"]) == 1
    text = "".join(capsys.readouterr())
    assert "Traceback" not in text and "inf solver steps" in text


@pytest.mark.parametrize("where", ["clocks", "block"])
def test_a_denormal_clock_period_is_refused_naming_the_resolution(
    where, tmp_path, capsys, monkeypatch
):
    blocks = {
        "c0": {"type": "Constant", "params": {"value": 1.0}},
        "z": {"type": "UnitDelay", "params": {"clock": "$c" if where == "clocks" else 1e-320}},
    }
    extra = {"clocks": {"c": {"period": 1e-320}}} if where == "clocks" else {}
    f = _write(tmp_path, "clk.json", blocks, [{"from": "c0", "to": "z"}], **extra)
    _refused(f, capsys, monkeypatch, expect="resolution of the clocks' time base")


def test_a_clock_below_the_time_base_resolution_is_refused():
    Clock(1e-9)
    for period in (1e-10, 1e-320, 5e-324):
        with pytest.raises(ValueError, match="at least about 1e-09 s"):
            Clock(period)


@pytest.mark.parametrize("value", ["inf", "1e400", "-inf", "nan"])
def test_limits_that_are_not_finite_are_a_usage_error(value, tmp_path, capsys):
    f = _write(tmp_path, "vdp.json", LOOP, LOOP_WIRES, {"T": 1.0})
    assert main(["run", str(f), "--quiet", "--max-steps", value]) == 2
    assert main(["check", str(f), "--max-memory", value]) == 2
    assert main(["check", str(f), "--max-wall", value]) == 2
    text = "".join(capsys.readouterr())
    assert "Traceback" not in text and "OverflowError" not in text
    assert "--max-steps" in text and "--max-memory" in text and "--max-wall" in text


def test_run_config_refuses_an_int_too_large_for_a_float_without_overflow():
    for name in ("max_steps", "max_memory", "max_wall", "T", "dt"):
        options = {"T": 1.0, "solver": "rk4", "dt": 1e-3, name: 10**400}
        with pytest.raises(ValueError, match=f"`{name}`") as info:
            RunConfig(**options)
        assert len(str(info.value)) < 200
    assert RunConfig(T=1.0, max_step=10**400).max_step == math.inf


@pytest.mark.parametrize("value", ["\ud800", "ok \udcff", {"str": "\udfff"}])
def test_a_title_with_a_lone_surrogate_is_refused_at_load(value, tmp_path, capsys, monkeypatch):
    blocks = {**LOOP, "s": {"type": "Scope", "params": {"title": value}}}
    f = _write(tmp_path, "sur.json", blocks, [*LOOP_WIRES, {"from": "x", "to": "s"}],
               {"T": 1.0})
    text = _refused(f, capsys, monkeypatch, "--plot", "out.png", expect="lone surrogate")
    assert "blocks.s.params.title" in text
    assert not (tmp_path / "out.png").exists()


def test_a_lone_surrogate_from_set_is_refused(tmp_path, capsys, monkeypatch):
    blocks = {**LOOP, "s": {"type": "Scope", "params": {"title": "fine"}}}
    f = _write(tmp_path, "ok.json", blocks, [*LOOP_WIRES, {"from": "x", "to": "s"}],
               {"T": 1.0})
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(f), "--set", "s.title=a\udcffb"]) == 1
    text = "".join(capsys.readouterr())
    assert "Traceback" not in text and "lone surrogate" in text


# ------------------------------------------------------------------ exhaustion
def test_a_50000_character_title_is_refused_at_load(tmp_path, capsys, monkeypatch):
    blocks = {**LOOP, "s": {"type": "Scope", "params": {"title": "x" * 50_000}}}
    f = _write(tmp_path, "title.json", blocks, [*LOOP_WIRES, {"from": "x", "to": "s"}])
    text = _refused(f, capsys, monkeypatch, "--plot", "out.png", expect="at most 1000")
    assert len(text) < 2000


def test_the_text_limit_is_raisable_in_python(monkeypatch):
    from blocksim.io import guard

    doc = json.dumps({"blocksim": 1, "blocks": {"s": {"type": "Scope", "params": {
        "title": "t" * 1500}}}})
    with pytest.raises(DiagramFileError, match="MAX_STRING_CHARS"):
        loads(doc)
    monkeypatch.setattr(guard, "MAX_STRING_CHARS", 2000)
    assert loads(doc).diagram.blocks["s"].title == "t" * 1500


def test_a_6000_input_sum_loads_and_runs_in_linear_time(tmp_path, capsys, monkeypatch):
    n = 6000
    blocks = {"c": {"type": "Constant", "params": {"value": 1.0}},
              "s": {"type": "Sum", "params": {"signs": n}}}
    wires = [{"from": "c", "to": [f"s.u{i}" for i in range(n)]}]
    check, run, text, cpu = _commands(_write(tmp_path, "sum.json", blocks, wires, {"T": 1.0}),
                                      capsys, monkeypatch)
    assert (check, run) == (0, 0), text
    assert cpu < CPU_SECONDS, cpu


@pytest.mark.parametrize("block", [
    {"type": "Sum", "params": {"signs": 100_000_000}},
    {"type": "Product", "params": {"ops": 20_000}},
    {"type": "Mux", "params": {"nin": 100_000_000}},
    {"type": "Demux", "params": {"nout": 50_000}},
])
def test_a_block_with_too_many_ports_is_refused_before_they_are_made(
    block, tmp_path, capsys, monkeypatch
):
    text = _refused(_write(tmp_path, "ports.json", {"b": block}), capsys, monkeypatch,
                    expect="MAX_PORTS")
    assert len(text) < 2000


def test_the_port_limit_is_raisable_in_python(monkeypatch):
    from blocksim.blocks.math.arithmetic import Sum

    with pytest.raises(Exception, match="at most 10000 input ports"):
        Sum(signs=10_001)
    monkeypatch.setattr(block_module, "MAX_PORTS", 20_000)
    assert len(Sum(signs=10_001).inputs) == 10_001


def test_many_wires_to_unknown_ports_of_a_wide_block_are_reported_briefly(
    tmp_path, capsys, monkeypatch
):
    n = 5000
    blocks = {"c": {"type": "Constant", "params": {"value": 1.0}},
              "m": {"type": "Mux", "params": {"nin": n}}}
    wires = [{"from": "c", "to": [f"m.v{i}" for i in range(n)]}]
    text = _refused(_write(tmp_path, "wide.json", blocks, wires), capsys, monkeypatch,
                    expect="more problems")
    assert len(text) < 100_000, len(text)


def test_9000_unknown_types_are_reported_briefly_and_fast(tmp_path, capsys, monkeypatch):
    blocks = {f"b{i}": {"type": f"Frobnicator{i}"} for i in range(9_000)}
    text = _refused(_write(tmp_path, "types.json", blocks), capsys, monkeypatch,
                    expect="9000 problems")
    assert "... and 8900 more problems" in text
    assert len(text.splitlines()) < 2 * (errors_module.MAX_PROBLEMS + 5)


def test_a_6000_block_algebraic_loop_is_found_in_linear_time(tmp_path, capsys, monkeypatch):
    n = 6000
    blocks = {f"g{i}": {"type": "Gain", "params": {"K": 1.0}} for i in range(n)}
    wires = [{"from": f"g{i}", "to": f"g{(i + 1) % n}"} for i in range(n)]
    text = _refused(_write(tmp_path, "ring.json", blocks, wires), capsys, monkeypatch,
                    expect="algebraic loop")
    assert f"({2 * n} ports in all)" in text and f"({n} in all)" in text
    assert len(text) < 5000, len(text)


def test_a_35000_gain_ring_gets_its_loop_report_in_linear_time(monkeypatch):
    from blocksim.engine.compile import compile_diagram
    from blocksim.io import guard

    monkeypatch.setattr(guard, "MAX_BLOCKS", 50_000)  # a file may not have so many

    n = 35_000
    doc = {"blocksim": 1, "blocks": {f"g{i}": {"type": "Gain", "params": {"K": 1.0}}
                                     for i in range(n)},
           "wires": [{"from": f"g{i}", "to": f"g{(i + 1) % n}"} for i in range(n)]}
    d = loads(json.dumps(doc)).diagram
    with Limited() as lim, pytest.raises(DiagramError) as info:
        compile_diagram(d)
    assert lim.cpu < 2 * CPU_SECONDS, lim.cpu
    assert len(str(info.value)) < 5000


def test_realtime_runs_longer_than_max_wall_are_refused(tmp_path, capsys, monkeypatch):
    f = _write(tmp_path, "rt.json", LOOP, LOOP_WIRES, {"T": 1.0, "realtime": 1e-9})
    text = _refused(f, capsys, monkeypatch, expect="max_wall")
    assert "--max-wall" in text and "years" in text
    assert main(["check", str(f), "--max-wall", "1e10"]) == 0
    assert main(["run", str(f), "--quiet", "--T", "0", "--max-wall", "1e10"]) == 0
    with pytest.raises(ValueError, match="`max_wall`"):
        RunConfig(T=1.0, max_wall=0.5)


def test_a_file_cannot_raise_max_wall(tmp_path, capsys, monkeypatch):
    f = _write(tmp_path, "rt.json", LOOP, LOOP_WIRES, {"T": 1.0, "max_wall": 1e12})
    _refused(f, capsys, monkeypatch)


def test_dpi_and_pixels_are_bounded_before_drawing(tmp_path):
    from matplotlib.figure import Figure

    from blocksim.viz.scope import MAX_DPI, check_raster, save_figure

    fig = Figure(figsize=(8, 6))
    with pytest.raises(ValueError, match="MAX_DPI"):
        save_figure(fig, tmp_path / "a.png", dpi=9000)
    with pytest.raises(ValueError, match="MAX_PIXELS"):
        save_figure(Figure(figsize=(400, 400)), tmp_path / "b.png", dpi=MAX_DPI)
    with pytest.raises(ValueError, match="MAX_DPI"):
        check_raster((8, 6), math.nan)
    assert not list(tmp_path.iterdir())
    save_figure(fig, tmp_path / "c.png", dpi=50)
    assert (tmp_path / "c.png").exists()


def test_draw_with_a_huge_dpi_is_one_line(tmp_path, capsys):
    f = _write(tmp_path, "vdp.json", LOOP, LOOP_WIRES)
    assert main(["draw", str(f), "-o", str(tmp_path / "d.png"), "--dpi", "9000"]) == 2
    text = "".join(capsys.readouterr())
    assert "Traceback" not in text and "MAX_DPI" in text
    assert not (tmp_path / "d.png").exists()


def test_suggestions_have_a_budget():
    names = [f"name{i}" for i in range(1000)]
    assert suggest("name1x", names)
    with suggestion_budget(1500):
        assert suggest("name1x", names)  # 1000 comparisons spent
        assert suggest("name2x", names) == ""  # 500 left: not enough for 1000 names
    assert suggest("x" * 101, ["x" * 101]) == ""


def test_a_diagram_error_lists_the_first_problems_and_counts_the_rest():
    err = DiagramError("d", [f"p{i}" for i in range(250)])
    text = str(err)
    assert "has 250 problems" in text and "... and 150 more problems" in text
    assert "- p99\n" in text and "- p100\n" not in text
    assert len(err.problems) == 250
