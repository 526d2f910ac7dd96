"""The FMU block's contract: clear errors for files that are not usable FMUs, confinement,
the instance freed on every exit path, the compiled back-end's refusal, the file form."""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from blocksim import Block, Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.fmi import FMU
from blocksim.blocks.fmi.block import port_name
from blocksim.engine.errors import BlockParameterError, BlocksimError, SimulationError
from blocksim.io import dumps, load, loads, save


def _rezip(src: Path, dst: Path, rename=lambda n: n, drop=(), xml=None) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = zin.read(info.filename)
            if info.filename == "modelDescription.xml" and xml is not None:
                data = xml(data)
            zout.writestr(rename(info.filename), data)
    return dst


def _log(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


class FailAt(Block):
    """Raises in output() once t > t_fail (a failure of another block mid-run)."""

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, t_fail: float = 0.3) -> None:
        super().__init__()
        self.t_fail = t_fail

    def output(self, t, x, u):
        if t > self.t_fail:
            raise RuntimeError("boom")
        return (float(u[0]),)


# ------------------------------------------------------------------ unusable files
def test_a_missing_binary_for_this_platform_is_a_clear_error(fmus, tmp_path):
    other = _rezip(fmus["plant3"], tmp_path / "win.fmu",
                   rename=lambda n: n.replace("x86_64-linux", "x86_64-windows")
                   .replace(".so", ".dll"))
    with pytest.raises(BlockParameterError, match=r"no binary for this platform "
                       r"\(x86_64-linux\).*x86_64-windows"):
        FMU(other)


def test_a_zip_that_is_not_an_fmu_and_a_file_that_is_not_a_zip_are_refused(fmus, tmp_path):
    bare = _rezip(fmus["plant3"], tmp_path / "bare.fmu", drop=("modelDescription.xml",))
    with pytest.raises(BlockParameterError, match="not an FMU: it has no modelDescription"):
        FMU(bare)
    text = tmp_path / "text.fmu"
    text.write_text("hello")
    with pytest.raises(BlockParameterError, match="not an FMU: not a zip archive"):
        FMU(text)
    with pytest.raises(BlockParameterError, match="not found"):
        FMU(tmp_path / "nowhere.fmu")
    entity = _rezip(fmus["plant3"], tmp_path / "dtd.fmu", xml=lambda d: d.replace(
        b"<fmiModelDescription", b'<!DOCTYPE x [<!ENTITY e SYSTEM "/etc/passwd">]>'
        b"<fmiModelDescription", 1))
    with pytest.raises(BlockParameterError, match="DOCTYPE"):
        FMU(entity)
    wide = _rezip(fmus["plant3"], tmp_path / "utf16.fmu", xml=lambda d: d.decode().replace(
        'encoding="UTF-8"', 'encoding="UTF-16"').replace(
        "<fmiModelDescription", '<!doctype x [<!ENTITY e "e">]><fmiModelDescription', 1)
        .encode("utf-16"))
    with pytest.raises(BlockParameterError, match="DOCTYPE"):
        FMU(wide)
    bad = _rezip(fmus["plant3"], tmp_path / "bad.fmu", xml=lambda d: d.replace(
        b'causality="output"', b'causality="outptu"', 1))
    with pytest.raises(BlockParameterError, match="modelDescription"):
        FMU(bad)


def test_unknown_names_are_refused_with_a_suggestion(fmus):
    with pytest.raises(BlockParameterError, match=r"no variable 'mu_nwo'.*'mu_now'"):
        FMU(fmus["vdp"], parameters={"mu_nwo": 1.0})
    with pytest.raises(BlockParameterError, match="'x0' is not an input"):
        FMU(fmus["vdp"], inputs=["x0"])
    with pytest.raises(BlockParameterError, match="computed by the FMU"):
        FMU(fmus["plant3"], parameters={"y1": 1.0})
    with pytest.raises(BlockParameterError, match="co-simulation"):
        FMU(fmus["ball"], sample_time=0.1)
    with pytest.raises(BlockParameterError, match="provides no co-simulation"):
        FMU(fmus["ball"], kind="CS")
    with pytest.raises(BlockParameterError, match="needs 'sample_time'"):
        FMU(fmus["plant_cs2"])


def test_ports_are_named_and_chosen_by_variable():
    assert port_name("der(x)") == "der_x_" and port_name("y[1]") == "y_1_"
    assert port_name("1x") == "_1x" and port_name("speed") == "speed"


def test_outputs_may_name_local_variables(fmus):
    vdp = FMU(fmus["vdp"], outputs=["x0", "mu_now", "der(x1)"])
    assert [p.name for p in vdp.outputs] == ["x0", "mu_now", "der_x1_"]
    d = Diagram("vdp")
    d.add(vdp, name="vdp")
    r = simulate(d, 3.0, record_dt=0.5)
    np.testing.assert_array_equal(r["vdp.mu_now"], [1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0])


# ------------------------------------------------------------------ confinement
def test_a_diagram_file_may_name_only_fmus_in_its_folder(fmus, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "plant.fmu").write_bytes(fmus["plant3"].read_bytes())
    doc = {"blocksim": 1, "name": "x", "wires": [],
           "blocks": {"p": {"type": "FMU", "params": {"fmu": "../plant.fmu"}}}}
    (tmp_path / "sub" / "d.json").write_text(json.dumps(doc))
    with pytest.raises(BlocksimError, match="outside this file's folder"):
        load(tmp_path / "sub" / "d.json")
    doc["blocks"]["p"]["params"]["fmu"] = str(tmp_path / "plant.fmu")
    (tmp_path / "sub" / "d.json").write_text(json.dumps(doc))
    with pytest.raises(BlocksimError, match="relative to this file's folder"):
        load(tmp_path / "sub" / "d.json")
    (tmp_path / "sub" / "link.fmu").symlink_to(tmp_path / "plant.fmu")
    doc["blocks"]["p"]["params"]["fmu"] = "link.fmu"
    (tmp_path / "sub" / "d.json").write_text(json.dumps(doc))
    with pytest.raises(BlocksimError, match="outside this file's folder"):
        load(tmp_path / "sub" / "d.json")
    assert load(tmp_path / "sub" / "d.json", allow_dirs=[tmp_path]).diagram["p"].nx == 2


# ------------------------------------------------------------------ the instance's lifecycle
def test_a_run_initialises_terminates_and_frees_the_instance(fmus, fmu_log, tmp_path,
                                                             monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    d = Diagram("ok")
    block = d.add(FMU(fmus["ball"]), name="ball")
    simulate(d, 0.2)
    assert _log(fmu_log) == ["instantiate", "terminate", "free"]
    assert block._live is None
    assert not list(tmp_path.glob("blocksim-fmu-*"))  # the unpacked FMU is removed


def test_a_failing_fmu_is_freed_and_named(fmus, fmu_log, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    d = Diagram("fails")
    block = d.add(FMU(fmus["vdp"], parameters={"fail_time": 0.5}), name="vdp")
    with pytest.raises(SimulationError, match=r"block 'vdp' \(FMU\).*fmi2GetDerivatives") as e:
        simulate(d, 1.0)
    assert 0.4 < e.value.result.t[-1] <= 0.5
    assert _log(fmu_log) == ["instantiate", "free"]  # no fmi2Terminate after an FMI error
    assert block._live is None and not list(tmp_path.glob("blocksim-fmu-*"))
    simulate(d, 0.4)  # the block runs again
    assert _log(fmu_log) == ["instantiate", "free", "instantiate", "terminate", "free"]


def test_a_run_failing_in_another_block_frees_the_instance(fmus, fmu_log):
    d = Diagram("other")
    plant = d.add(FMU(fmus["plant3"]), name="p")
    fail = d.add(FailAt(0.3), name="fail")
    zero = d.add(Constant(0.0), name="zero")
    d.connect(plant["y1"], fail)
    d.connect(fail, plant["u1"])
    d.connect(zero, plant["u2"])
    with pytest.raises(SimulationError, match="boom"):
        simulate(d, 1.0)
    assert _log(fmu_log) == ["instantiate", "terminate", "free"]
    assert plant._live is None


def test_one_block_drives_one_run_at_a_time(fmus, fmu_log):
    block = FMU(fmus["ball"])
    block.start(None)
    try:
        with pytest.raises(BlocksimError, match="already running"):
            block.start(None)
    finally:
        block.stop(None)
    assert _log(fmu_log) == ["instantiate", "terminate", "free"]


# ------------------------------------------------------------------ back-ends and files
def test_the_compiled_back_end_refuses_an_fmu_naming_it(fmus):
    d = Diagram("c")
    d.add(FMU(fmus["ball"]), name="ball")
    with pytest.raises(BlocksimError, match=r"ball \(FMU\).*interpreted"):
        simulate(d, 0.1, backend="compiled")
    assert simulate(d, 0.1, backend="auto").stats["backend"] == "interpreted"


def test_json_round_trip_and_the_file_runs_like_python(fmus, tmp_path, monkeypatch):
    (tmp_path / "vdp.fmu").write_bytes(fmus["vdp"].read_bytes())
    monkeypatch.chdir(tmp_path)
    d = Diagram("vdp")
    d.add(FMU("vdp.fmu", parameters={"mu": 0.5, "period": 1.5}, outputs=["x0"]), name="vdp")
    text = dumps(d)
    params = json.loads(text)["blocks"]["vdp"]
    assert params == {"type": "FMU", "params": {
        "fmu": "vdp.fmu", "parameters": [["mu", 0.5], ["period", 1.5]], "outputs": ["x0"]}}
    path = save(d, tmp_path / "vdp.json")
    monkeypatch.chdir(tmp_path.parent)  # the file's paths are relative to its folder
    back = load(path).diagram
    assert back["vdp"].params == d["vdp"].params
    a, b = simulate(d, 3.0), simulate(back, 3.0)
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a["vdp.x0"], b["vdp.x0"])
    assert a.stats["nevents"] == 2  # period 1.5: time events at 1.5 s and 3 s


def test_a_shipped_fmu_is_built_on_first_use_and_named_in_files(tmp_path, monkeypatch):
    monkeypatch.setenv("BLOCKSIM_FMU_CACHE", str(tmp_path / "cache"))
    text = json.dumps({"blocksim": 1, "name": "s", "wires": [
        {"from": "u", "to": ["p.u1", "p.u2"]}], "blocks": {
        "p": {"type": "FMU", "params": {"fmu": "linear_plant_cs", "sample_time": 0.1}},
        "u": {"type": "Constant", "params": {"value": 1.0}}}})
    r = simulate(loads(text).diagram, 1.0)
    assert len(list((tmp_path / "cache").glob("linear_plant_2cs_*.fmu"))) == 1
    assert r.t.size == 11 and r["p.y1"][0] == 0.0 and r["p.y1"][-1] > 0.05
