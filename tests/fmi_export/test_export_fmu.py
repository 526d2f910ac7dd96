"""blocksim export-fmu: the FMU passes fmpy's validation and fmpy.simulate_fmu runs it to the
trace of blocksim run (the same solver, inputs held over each communication step)."""

import json
import re
import threading
import zipfile

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.validation import validate_fmu

from blocksim import simulate
from blocksim.cli import main
from blocksim.fmi_export import ExportError, export_fmu
from blocksim.io import loads

#: a first-order plant y' = K (u - y) with its error as a second output
LAG = {
    "blocksim": 1, "name": "lag_plant",
    "blocks": {
        "u": {"type": "Inport"},
        "K": {"type": "Constant", "params": {"value": 2.0}},
        "gain": {"type": "Product", "params": {"ops": "**"}},
        "err": {"type": "Sum", "params": {"signs": "+-"}},
        "x": {"type": "Integrator", "params": {"x0": 0.5}},
        "w": {"type": "Inport", "params": {"shape": [2]}},
        "mix": {"type": "Gain", "params": {"K": [[1.0, 2.0], [0.0, -1.0]]}},
        "y": {"type": "Outport"},
        "e": {"type": "Outport"},
        "v": {"type": "Outport"},
    },
    "wires": [
        {"from": "u", "to": "err.u0"}, {"from": "x", "to": "err.u1"},
        {"from": "err", "to": "gain.u0"}, {"from": "K", "to": "gain.u1"},
        {"from": "gain", "to": "x"}, {"from": "x", "to": "y"}, {"from": "err", "to": "e"},
        {"from": "w", "to": "mix"}, {"from": "mix", "to": "v"},
    ],
    "simulation": {"T": 2.0, "solver": "rk4", "dt": 0.01},
}
U_SWITCH = 1.0  # u: 1 before, -1 after


@pytest.fixture(scope="module")
def fmu(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fmu")
    (folder / "lag.json").write_text(json.dumps(LAG))
    out = folder / "lag.fmu"
    assert main(["export-fmu", str(folder / "lag.json"), "-o", str(out), "--step", "0.1"]) == 0
    return out


def _reference(K):
    """The same diagram in blocksim with its inputs driven by sources."""
    doc = json.loads(json.dumps(LAG))
    doc["blocks"]["u"] = {"type": "Step", "params": {"time": U_SWITCH, "before": 1.0,
                                                     "after": -1.0}}
    doc["blocks"]["w"] = {"type": "Constant", "params": {"value": [0.5, 0.25]}}
    doc["blocks"]["K"]["params"]["value"] = K
    return simulate(loads(json.dumps(doc)).diagram, 2.0, solver="rk4", dt=0.01)


def _inputs(t_end=2.0):
    dtype = [("time", float), ("u", float), ("w[1]", float), ("w[2]", float)]
    return np.array([(0.0, 1.0, 0.5, 0.25), (U_SWITCH, 1.0, 0.5, 0.25),
                     (U_SWITCH, -1.0, 0.5, 0.25), (t_end, -1.0, 0.5, 0.25)], dtype=dtype)


def test_the_fmu_validates_and_reruns_the_blocksim_trace(fmu):
    assert validate_fmu(str(fmu)) == []
    md = read_model_description(str(fmu))
    assert md.coSimulation is not None and md.defaultExperiment.stepSize == "0.1"
    assert [(v.name, v.causality) for v in md.modelVariables] == [
        ("K", "parameter"), ("u", "input"), ("w[1]", "input"), ("w[2]", "input"),
        ("y", "output"), ("e", "output"), ("v[1]", "output"), ("v[2]", "output")]
    with zipfile.ZipFile(fmu) as z:
        assert json.loads(z.read("resources/diagram.json")) == LAG
    r = simulate_fmu(str(fmu), stop_time=2.0, output_interval=0.1, input=_inputs(),
                     start_values={"K": 3.0})
    ref = _reference(3.0)
    k = np.searchsorted(ref.t, r["time"] - 1e-12)  # the first point at each time
    np.testing.assert_allclose(r["time"], np.arange(21) * 0.1, atol=1e-12)
    # the same solver on the same grid: the same numbers (to rounding)
    np.testing.assert_allclose(r["y"], ref["y.y"][k], rtol=0, atol=1e-12)
    # an output at a communication point sees the input of the step that ends there
    u_left = np.where(r["time"] <= U_SWITCH + 1e-9, 1.0, -1.0)
    u_left[0] = 1.0
    np.testing.assert_allclose(r["e"], u_left - r["y"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r["v[1]"], 1.0, atol=0)
    np.testing.assert_allclose(r["v[2]"], -0.25, atol=0)
    assert abs(r["y"][10] - (1 - 0.5 * np.exp(-3.0))) < 1e-7  # the exact lag at t = 1
    # the FMU's own block types were loadable while it loaded its diagram, not after: the
    # host's catalog is its own (the docs' catalog test ran after this one and met them)
    from blocksim.io import block_types

    assert not {"FMUExportGate", "FMUExportInput", "FMUExportOutput"} & set(block_types())


def test_a_master_step_of_several_fmu_steps_and_an_early_end(fmu):
    before = threading.active_count()
    r = simulate_fmu(str(fmu), stop_time=1.0, output_interval=0.2, input=_inputs(1.0))
    ref = _reference(2.0)
    k = np.searchsorted(ref.t, r["time"] - 1e-12)
    np.testing.assert_allclose(r["y"], ref["y.y"][k], rtol=0, atol=1e-12)
    assert threading.active_count() == before  # terminated before T: the run ended
    with pytest.raises(Exception, match="fmi2DoStep"):
        simulate_fmu(str(fmu), stop_time=1.0, output_interval=0.15, input=_inputs(1.0))
    assert threading.active_count() == before


def test_diagrams_that_cannot_be_exported_say_why(tmp_path, capsys):
    from blocksim.fmi_export.runtime import steps

    no_out = {**LAG, "blocks": {k: v for k, v in LAG["blocks"].items()
                                if v["type"] != "Outport"},
              "wires": [w for w in LAG["wires"] if w["to"] not in ("y", "e", "v")]}
    (tmp_path / "a.json").write_text(json.dumps(no_out))
    assert main(["export-fmu", str(tmp_path / "a.json"), "-o", str(tmp_path / "a.fmu")]) == 2
    assert "has no root Outport block" in capsys.readouterr().err
    sub = {"blocksim": 1, "name": "s", "blocks": {
        "c": {"type": "Constant", "params": {"value": 1.0}},
        "inner": {"type": "Subsystem", "file": "inner.json"}, "y": {"type": "Outport"}},
        "wires": [{"from": "c", "to": "inner.u"}, {"from": "inner.y", "to": "y"}]}
    (tmp_path / "inner.json").write_text(json.dumps({
        "blocksim": 1, "name": "inner", "blocks": {"u": {"type": "Inport"},
                                                   "y": {"type": "Outport"}},
        "wires": [{"from": "u", "to": "y"}]}))
    (tmp_path / "s.json").write_text(json.dumps(sub))
    with pytest.raises(ExportError, match=re.escape("an FMU carries the diagram file only")):
        export_fmu(tmp_path / "s.json", tmp_path / "s.fmu")
    assert not (tmp_path / "s.fmu").exists()
    assert main(["export-fmu", str(tmp_path / "s.json"), "-o", str(tmp_path / "s.txt")]) == 2
    assert "use a file name ending in .fmu" in capsys.readouterr().err
    assert steps(0.3, 0.1) == 3
    with pytest.raises(ValueError, match="not a whole number"):
        steps(0.25, 0.1)


def test_a_diagram_without_outports_outputs_its_scope_signals_or_named_ones(tmp_path):
    from pathlib import Path

    from blocksim.io import load

    path = Path(__file__).resolve().parents[2] / "diagrams" / "pid_mass_spring_damper.json"
    spec = export_fmu(path, tmp_path / "pid.fmu", stop=3.0, step=0.1)
    assert [o["name"] for o in spec["outputs"]] == ["pos.y", "pid.y"]  # the scope's inputs
    assert validate_fmu(str(tmp_path / "pid.fmu")) == []
    r = simulate_fmu(str(tmp_path / "pid.fmu"), stop_time=3.0)
    # the file's RK45, restarted by the FMU at every communication point: within tolerance
    ref = simulate(load(path).diagram, 3.0, rtol=1e-6, atol=1e-9, record_dt=0.1)
    k = np.searchsorted(ref.t, r["time"] - 1e-12)
    np.testing.assert_allclose(r["pos.y"], ref["pos.y"][k], rtol=0, atol=1e-7)
    np.testing.assert_allclose(r["pid.y"], ref["pid.y"][k], rtol=0, atol=1e-4)  # 110 N at 0
    named = export_fmu(path, tmp_path / "v.fmu", outputs=("vel.y",))
    assert [o["name"] for o in named["outputs"]] == ["vel.y"]
