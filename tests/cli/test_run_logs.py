"""What `blocksim run` prints for a person and for a log: overrun warnings as one clean line,
the overrun count even with --quiet, the hardware blocks' statistics, and progress bars only
on a terminal."""

import io
import json
import re

from blocksim.cli import main
from blocksim.cli import run as run_cmd
from blocksim.cli.common import format_warning
from blocksim.hardware import ArbotixEmulator

#: a 1 ms clock paced 1000 times faster than the wall clock: a 1 us period, every hit overruns
LATE = {
    "blocksim": 1,
    "name": "late",
    "blocks": {
        "one": {"type": "Constant", "params": {"value": 1.0}},
        "n": {"type": "DiscreteIntegrator", "params": {"clock": 0.001}},
    },
    "wires": [{"from": "one", "to": "n"}],
    "simulation": {"T": 0.05, "realtime": 1000},
}


def _file(tmp_path, doc, **simulation):
    path = tmp_path / f"{doc['name']}.json"
    path.write_text(json.dumps({**doc, "simulation": {**doc.get("simulation", {}),
                                                       **simulation}}))
    return str(path)


def test_an_overrun_warning_is_one_line_without_python_source(tmp_path, capsys):
    path = _file(tmp_path, LATE)
    assert main(["run", path]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [line for line in err if "real-time overrun" in line]
    assert len(warned) == 1 and warned[0].startswith("blocksim: warning: real-time overrun on "
                                                     "clock 0.001 s at t=0 s")
    assert not any("RuntimeWarning" in line or "run_config(" in line or ".py:" in line
                   for line in err), err
    assert len(err) == 1, err  # nothing else: no bar (not a terminal), no source line


def test_quiet_still_says_how_many_overruns_in_one_line(tmp_path, capsys):
    path = _file(tmp_path, LATE, overrun="skip")  # no warning: the count is all there is
    assert main(["run", path, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    assert re.fullmatch(rf"{re.escape(path)}: \d+ real-time overruns \(max lateness .* ms, "
                        r"overrun='skip'\)", lines[0]), lines
    # a run on time stays silent with --quiet
    on_time = _file(tmp_path, {**LATE, "name": "on_time", "simulation": {"T": 0.05}})
    assert main(["run", on_time, "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_the_summary_reports_each_hardware_blocks_statistics(tmp_path, capsys):
    with ArbotixEmulator(nservos=2, packet_time=0.002) as emu:
        doc = {
            "blocksim": 1,
            "name": "hil",
            "blocks": {
                "cmd": {"type": "Constant", "params": {"value": [0.1, -0.1]}},
                "arm": {"type": "ArbotixArm",
                        "params": {"port": emu.path, "nservos": 2, "clock": 0.02,
                                   "timeout": 0.5}},
            },
            "wires": [{"from": "cmd", "to": "arm"}],
        }
        path = _file(tmp_path, doc, T=0.1)
        assert main(["run", path]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("hardware arm"))
    assert f"({emu.path}): 12 exchanges, median " in line
    assert "99th percentile" in line and "max " in line and "0 overruns, 0 skipped" in line


def test_no_progress_bar_in_a_log_but_one_on_a_terminal(tmp_path, capsys, monkeypatch):
    # 1.2 s of wall time: longer than the bar's 1 s delay
    slow = {**LATE, "name": "slow", "blocks": {**LATE["blocks"], "n": {
        "type": "DiscreteIntegrator", "params": {"clock": 0.1}}}}
    path = _file(tmp_path, slow, T=1.2, realtime=1.0, overrun="skip")
    assert main(["run", path]) == 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal here
    monkeypatch.setattr(run_cmd, "on_terminal", lambda *a: True)
    assert main(["run", path, "--quiet"]) == 0
    assert capsys.readouterr().err == ""  # --quiet: no bar either
    assert main(["run", path]) == 0
    assert "simulating: 100%" in capsys.readouterr().err


def test_compile_announcements_in_a_log_are_plain_lines_once():
    buf = io.StringIO()
    status = run_cmd.CompileStatus(file=buf)
    for message in ("blocksim: compiling diagram 'x' (fused tier), seconds to a minute...",
                    "blocksim: compiling diagram 'x' (fused tier), seconds to a minute...",
                    "blocksim: compiling blocksim kernels, once per installation..."):
        status(message)
    status.close()
    assert buf.getvalue() == ("blocksim: compiling diagram 'x' (fused tier), seconds to a "
                              "minute...\nblocksim: compiling blocksim kernels, once per "
                              "installation...\n")


def test_another_librarys_warning_is_one_line_naming_its_file():
    text = format_warning(UserWarning("careful\n  now"), UserWarning, "/x/lib/thing.py", 12)
    assert text == "warning: careful now (UserWarning, thing.py:12)"


def test_the_progress_bar_is_drawn_on_a_terminal_that_reports_no_width():
    """A pseudo-terminal nobody sized reports 0 columns; tqdm would draw nothing there."""
    import os
    import pty
    import select

    from blocksim.cli.run import Progress

    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as term:
        bar = Progress(10.0, enabled=True, delay=0.0, file=term)
        bar(5.0)
        bar.close()
    drawn = ""
    while select.select([master], [], [], 1.0)[0]:  # everything the bar wrote, in chunks
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other end is closed
            break
        if not chunk:
            break
        drawn += chunk.decode(errors="replace")
    os.close(master)
    assert "50%|" in drawn, drawn
