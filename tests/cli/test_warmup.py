"""`blocksim warmup` as a command (a subprocess: the console entry point itself)."""

import subprocess
import sys


def test_warmup_only_gain_quiet_prints_one_summary_line_and_exits_0():
    proc = subprocess.run([sys.executable, "-m", "blocksim.cli", "warmup", "--only", "Gain",
                           "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warmup: 1 block types compiled (1 kernels)")
    assert "0 failed" in lines[0] and proc.stderr == ""
