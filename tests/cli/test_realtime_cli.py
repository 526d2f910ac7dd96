"""`blocksim run FILE --realtime [FACTOR] [--overrun POLICY]` and a file's
``simulation.realtime`` / ``simulation.overrun``."""

import json

import numpy as np
import pytest

from blocksim import SimResult
from blocksim.cli import main
from blocksim.hardware import ArbotixEmulator

PACED = {
    "blocksim": 1,
    "name": "paced",
    "blocks": {
        "one": {"type": "Constant", "params": {"value": 1.0}},
        "n": {"type": "DiscreteIntegrator", "params": {"clock": 0.05}},
    },
    "wires": [{"from": "one", "to": "n"}],
}


def _file(tmp_path, doc, simulation):
    path = tmp_path / f"{doc['name']}.json"
    path.write_text(json.dumps({**doc, "simulation": simulation}))
    return str(path)


def test_realtime_paces_the_run_and_the_summary_reports_it(tmp_path, capsys):
    path = _file(tmp_path, PACED, {"T": 0.3})
    out = tmp_path / "r.npz"
    assert main(["run", path, "--realtime", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "real time x1: max lateness" in text and "(overrun='warn')" in text
    r = SimResult.load(out)
    assert r.stats["realtime"]["rate"] == 1.0 and r.stats["wall_time"] >= 0.29
    assert r.stats["realtime"]["clocks"]["clock 0.05 s"]["hits"] == 7
    # a factor: three times faster than the wall clock
    assert main(["run", path, "--realtime", "3", "--out", str(out), "--quiet"]) == 0
    r = SimResult.load(out)
    assert r.stats["realtime"]["rate"] == 3.0 and 0.095 <= r.stats["wall_time"] < 0.29
    # without the flag the run is not paced
    assert main(["run", path, "--out", str(out), "--quiet"]) == 0
    assert "realtime" not in SimResult.load(out).stats


def test_the_files_settings_apply_and_the_arguments_override_them(tmp_path, capsys):
    path = _file(tmp_path, PACED, {"T": 0.2, "realtime": 2.0, "overrun": "skip"})
    out = tmp_path / "r.npz"
    assert main(["run", path, "--out", str(out), "--quiet"]) == 0
    rt = SimResult.load(out).stats["realtime"]
    assert (rt["rate"], rt["overrun"]) == (2.0, "skip")
    assert (
        main(["run", path, "--realtime", "4", "--overrun", "abort", "--out", str(out), "--quiet"])
        == 0
    )
    rt = SimResult.load(out).stats["realtime"]
    assert (rt["rate"], rt["overrun"]) == (4.0, "abort")
    assert main(["check", path, "--realtime", "--overrun", "warn"]) == 0


@pytest.mark.parametrize(
    "argv,words",
    [
        (
            ["--realtime", "0"],
            "`realtime` must be a positive speed factor (1.0 = real time), got 0.0",
        ),
        (
            ["--realtime", "--backend", "compiled"],
            "real-time pacing (`realtime`) needs the interpreted back-end",
        ),
        (["--overrun", "panic"], "argument --overrun: invalid choice: 'panic'"),
        (["--realtime", "fast"], "argument --realtime: invalid float value: 'fast'"),
    ],
)
def test_bad_real_time_arguments_exit_2(argv, words, tmp_path, capsys):
    path = _file(tmp_path, PACED, {"T": 0.2})
    assert main(["run", path, "--quiet", *argv]) == 2
    assert words in capsys.readouterr().err


def test_a_bad_policy_in_the_file_exits_2_naming_the_setting(tmp_path, capsys):
    path = _file(tmp_path, PACED, {"T": 0.2, "overrun": "skp"})
    assert main(["run", path, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "simulation.overrun" in err and "did you mean 'skip'" in err


def test_abort_stops_a_hardware_run_that_falls_behind_and_writes_the_partial_result(
    tmp_path, capsys
):
    goal = [0.3, 0.2, 0.1, -0.1, -0.2]
    with ArbotixEmulator(nservos=5, packet_time=0.002) as emu:
        doc = {
            "blocksim": 1,
            "name": "hil",
            "blocks": {
                "cmd": {"type": "Constant", "params": {"value": goal}},
                "arm": {
                    "type": "ArbotixArm",
                    "params": {"port": emu.path, "nservos": 5, "clock": 0.02, "timeout": 0.5},
                },
            },
            "wires": [{"from": "cmd", "to": "arm"}],
        }
        # slow motion (80 ms of wall time per 20 ms hit): only the injected 135 ms overruns
        path = _file(tmp_path, doc, {"T": 0.4, "realtime": 0.25})
        emu.inject("late", count=3, delay=0.045, after=10)  # 135 ms at one hit
        out = tmp_path / "partial.npz"
        assert main(["run", path, "--overrun", "abort", "--out", str(out), "--quiet"]) == 1
        err = capsys.readouterr().err
        # the block (no policy of its own) applies the run's: its write after the slow read
        # starts more than a period late
        assert "block 'arm' (ArbotixArm): overrun at t=" in err and "overrun='abort'" in err
        partial = SimResult.load(out)
        assert partial.status == "failed" and 0.0 < partial.t[-1] < 0.4
        assert partial["arm.q"].shape == (len(partial.t), 5)
        assert np.all(np.isfinite(partial["arm.q"]))
