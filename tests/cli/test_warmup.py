"""`blocksim warmup` as a command (a subprocess: the console entry point itself)."""

import os
import re
import subprocess
import sys

#: a row of the compile report: seconds, signatures, kind, module.function
ROW = re.compile(r"^\s+(\d+\.\d\d)\s+(\d+)\s+(kernels|entries|loop|diagram)\s+(\S+)$")


def _warmup(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "blocksim.cli", "warmup", *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def test_warmup_only_gain_quiet_prints_one_summary_line_and_exits_0():
    proc = _warmup("--only", "Gain", "--quiet")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("warmup: 1 block types compiled (1 kernels, 2 entries)")
    assert "0 failed" in lines[0] and proc.stderr == ""


def test_report_lists_compiled_functions_with_seconds_and_signature_counts(tmp_path):
    # empty caches: everything compiles. Gain's sample feeds it a scalar Constant, Demux's a
    # vector one: the Constant kernel is compiled for two signatures
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "BLOCKSIM_CACHE_DIR": str(tmp_path / "blocksim")}
    proc = _warmup("--only", "Gain", "Demux", "--quiet", "--report", "100", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("warmup: 2 block types compiled")
    head = next(ln for ln in lines if ln.startswith("compile report: "))
    assert re.search(r"compile report: \d+\.\d s compiling \d+ functions \(\d+ signatures\): "
                     r"kernels \d+\.\d s, entries \d+\.\d s, loops 0\.0 s$", head), head
    rows = {m[4]: (float(m[1]), int(m[2]), m[3]) for ln in lines if (m := ROW.match(ln))}
    assert rows["blocksim.blocks.math.kernels.gain_kernel"][1:] == (1, "kernels")
    assert rows["blocksim.blocks.sources.signals.constant_kernel"][1:] == (2, "kernels")
    entries = [name for name, (_, _, kind) in rows.items() if kind == "entries"]
    assert any(name.startswith("blocksim_entry_gain_kernel_") for name in entries), entries
    seconds = [s for s, _, _ in rows.values()]
    assert seconds == sorted(seconds, reverse=True) and seconds[0] > 0.0


def test_report_of_a_cached_warmup_says_nothing_compiled(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "BLOCKSIM_CACHE_DIR": str(tmp_path / "blocksim")}
    assert _warmup("--only", "Gain", "--quiet", env=env).returncode == 0
    proc = _warmup("--only", "Gain", "--quiet", "--report", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == ("compile report: nothing compiled (everything came "
                                           "from numba's cache)")


def test_a_parallel_warmup_reports_every_type_and_merges_the_compile_report():
    from blocksim.cli.warmup import warmup

    report = warmup(["Gain", "Sum", "Terminator"], jobs=2)
    assert [b.type for b in report.blocks] == ["Gain", "Sum", "Terminator"]
    assert [b.status for b in report.blocks] == ["compiled", "compiled", "skipped"]
    assert report.ok and report.compile_report(5)[0].startswith("compile report")
