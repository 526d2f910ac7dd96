"""Results folders and result files as untrusted input, from the API: the bounded readers, the
content fingerprint, overrides refused in the parent (and, on a Dask cluster, never as a
worker's traceback), and a deferred figure that pickles with its result."""

from __future__ import annotations

import io
import json
import logging
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from blocksim import Diagram, compile_diagram, grid, simulate, simulate_batch
from blocksim.blocks import Gain, Integrator, Scope, Step, Sum, XYGraph
from blocksim.engine.errors import BlockParameterError
from blocksim.engine.sweep import load_sweep
from blocksim.engine.sweep.digest import plan_digest
from blocksim.engine.sweep.untrusted import (
    UntrustedFileError,
    json_depth,
    parse_json,
    read_json,
    read_npz,
)

from .diagrams import pid_loop

ROOT = Path(__file__).resolve().parents[3]
OPTS = dict(T=1.0, solver="rk4", dt=1e-2, record_dt=0.1, backend="interpreted")


def test_json_depth_is_counted_without_recursion_and_ignores_strings():
    assert json_depth(b'{"a": [1, [2, {"b": "[[[[["}]]}') == 4
    assert json_depth(b"[" * 1_000_000 + b"]" * 1_000_000) == 1_000_000
    assert parse_json('{"a": [1, 2]}', "x") == {"a": [1, 2]}
    with pytest.raises(UntrustedFileError, match="x: JSON nested 65 levels"):
        parse_json("[" * 65 + "]" * 65, "x")
    with pytest.raises(UntrustedFileError, match="bytes of JSON"):
        parse_json("[1]", "x", max_bytes=2)
    with pytest.raises(UntrustedFileError, match="not UTF-8"):
        parse_json(b'"\xff"', "x")


def test_read_json_refuses_links_and_large_files(tmp_path):
    (tmp_path / "a.json").write_text("[1, 2, 3]")
    (tmp_path / "link.json").symlink_to(tmp_path / "a.json")
    assert read_json(tmp_path / "link.json") == [1, 2, 3]
    with pytest.raises(UntrustedFileError, match="symbolic link"):
        read_json(tmp_path / "link.json", follow_links=False)
    with pytest.raises(UntrustedFileError, match="more than the 4 bytes"):
        read_json(tmp_path / "a.json", max_bytes=4)


def test_read_npz_shows_the_headers_before_reading_any_array(tmp_path):
    np.savez_compressed(tmp_path / "a.npz", a=np.zeros((3, 4)), b=np.array("text"))
    seen = {}

    def check(headers):
        seen.update({k: (h.shape, h.dtype.str) for k, h in headers.items()})
        raise UntrustedFileError("refused on its headers")

    with pytest.raises(UntrustedFileError, match="refused on its headers"):
        read_npz(tmp_path / "a.npz", check=check)
    assert seen == {"a": ((3, 4), "<f8"), "b": ((), "<U4")}
    arrays = read_npz(tmp_path / "a.npz")
    assert arrays["a"].shape == (3, 4) and str(arrays["b"]) == "text"


def test_many_zero_sized_elements_are_refused(tmp_path):
    fake = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        fake, {"descr": "|S0", "fortran_order": False, "shape": (10**15,)})
    with zipfile.ZipFile(tmp_path / "z.npz", "w") as z:
        z.writestr("a.npy", fake.getvalue())
    with pytest.raises(UntrustedFileError, match=r"not accepted|elements"):
        read_npz(tmp_path / "z.npz")


def test_the_plan_digest_is_content_and_stable_across_processes():
    a, b = compile_diagram(pid_loop()), compile_diagram(pid_loop())
    assert plan_digest(a) == plan_digest(b)
    d = Diagram("sweep_pid_loop")  # the same name, other content
    d.connect(d.add(Step(time=0.0), name="ref"), d.add(Gain(2.0), name="g"))
    assert plan_digest(compile_diagram(d)) != plan_digest(a)
    # a robot model and a new process (string hashing is randomised per process)
    code = (
        "from blocksim.io.load import load; from blocksim.engine.compile import "
        "compile_diagram; from blocksim.engine.sweep.digest import plan_digest; "
        "print(plan_digest(compile_diagram(load('diagrams/puma_computed_torque.json', "
        "{}).diagram)))"
    )
    runs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout for _ in range(2)}
    assert len(runs) == 1 and len(runs.pop().strip()) == 64


def test_a_bad_override_is_refused_before_anything_runs_or_is_written(tmp_path):
    plan = compile_diagram(pid_loop())
    members = [{"pid.Kp": 1.0}] * 5 + [{"pid.N": -1.0}]
    out = tmp_path / "never"
    with pytest.raises(BlockParameterError, match=r"member 5: .*'N' must be > 0"):
        simulate_batch(plan, members, **OPTS, keep="final", chunk=2, out=out)
    assert not out.exists()
    with pytest.raises(BlockParameterError, match=r"member 0: .*no parameter 'Kq'"):
        simulate_batch(plan, [{"pid.Kq": 1.0}], **OPTS, keep="final", chunk=1)


def test_load_sweep_reads_within_a_budget(tmp_path):
    plan = compile_diagram(pid_loop())
    out = tmp_path / "s"
    simulate_batch(plan, grid({"pid.Kp": [1.0, 2.0, 3.0]}), **OPTS, keep="final", chunk=2,
                   out=out)
    assert load_sweep(out)["plant.y"].shape[0] == 3
    with pytest.raises(UntrustedFileError, match="would take"):
        load_sweep(out, max_memory=1000)
    index = json.loads((out / "index.json").read_text())
    index["failed"] = [{"member": 10**9, "error": None}]
    (out / "index.json").write_text(json.dumps(index))
    with pytest.raises(UntrustedFileError, match="failed members is malformed"):
        load_sweep(out)


def test_a_deferred_figure_pickles_with_its_result():
    d = Diagram("figs")
    r = d.add(Step(time=0.0), name="ref")
    e = d.add(Sum("+-"), name="err")
    x = d.add(Integrator(x0=0.0), name="x")
    d.connect(r, e[0])
    d.connect(e, x)
    d.connect(x, e[1])
    d.connect(x, d.add(Scope(), name="scope"))
    xy = d.add(XYGraph(), name="xy")
    d.connect(x, xy[0])
    d.connect(e, xy[1])
    res = simulate(d, 0.5, "rk4", dt=0.1)
    back = pickle.loads(pickle.dumps(res))
    assert set(back.figures) == {"scope", "xy"}
    assert back.figures["scope"].axes and back.figures["xy"].axes


# ---------------------------------------------------------------------------- Dask
class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def worker_log():
    """What the workers log (the distributed loggers need not propagate to pytest's)."""
    handler = _Records()
    logger = logging.getLogger("distributed")
    logger.addHandler(handler)
    yield handler.lines
    logger.removeHandler(handler)


@pytest.fixture(scope="module")
def cluster():
    import distributed
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as c:
        yield c


def test_a_bad_grid_on_dask_is_one_line_without_worker_tracebacks(cluster, capfd,
                                                                  worker_log):
    from blocksim.cli import main

    diagram = str(ROOT / "diagrams" / "pid_gain_sweep.json")
    argv = ["sweep", diagram, "--grid", "pid.N=-1,2", "--T", "0.1", "--quiet",
            "--scheduler", cluster.scheduler_address]
    assert main(argv) == 2
    err = capfd.readouterr().err
    assert "Compute Failed" not in err and "Traceback" not in err
    assert not [line for line in worker_log if "Compute Failed" in line]
    assert err.strip().splitlines() == [
        f"{diagram}: simulate_batch: member 0: override of block 'pid' (PID): PID: parameter "
        f"'N' must be > 0, got -1.0"
    ]


def test_an_override_refused_on_a_worker_comes_back_as_one_line(cluster, capfd, monkeypatch,
                                                                worker_log):
    # past the parent's checks (here: switched off), the task returns the refusal
    import blocksim.engine.sweep.runner as runner
    from blocksim.cli import main

    monkeypatch.setattr(runner, "check_members", lambda plan, members: None)
    diagram = str(ROOT / "diagrams" / "pid_gain_sweep.json")
    argv = ["sweep", diagram, "--grid", "pid.Kq=1,2", "--T", "0.1", "--quiet",
            "--scheduler", cluster.scheduler_address]
    assert main(argv) == 2
    err = capfd.readouterr().err
    assert "Compute Failed" not in err and "Traceback" not in err
    assert not [line for line in worker_log if "Compute Failed" in line]
    assert len(err.strip().splitlines()) == 1 and "no parameter 'Kq'" in err
