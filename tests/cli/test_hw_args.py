"""``blocksim hw``: every option of the emulators (and of ``arbotix-info``) is checked before
anything starts; a refusal is one line on stderr naming the option, status 2."""

import subprocess
import sys

import pytest

from blocksim.cli import main

REFUSED = [
    ("vrep-emulator", "--port", "70000"),
    ("vrep-emulator", "--port", "-1"),
    ("vrep-emulator", "--port", "65536"),
    ("vrep-emulator", "--port", "80.5"),
    ("vrep-emulator", "--port", "9" * 5000),
    ("vrep-emulator", "--njoints", "-1"),
    ("vrep-emulator", "--njoints", "0"),
    ("vrep-emulator", "--njoints", "1e7"),
    ("vrep-emulator", "--njoints", "10000000"),
    ("vrep-emulator", "--dt", "0"),
    ("vrep-emulator", "--dt", "nan"),
    ("vrep-emulator", "--dt", "-0.05"),
    ("vrep-emulator", "--dt", "inf"),
    ("vrep-emulator", "--dt", "1e-320"),
    ("vrep-emulator", "--dt", "1e400"),
    ("vrep-emulator", "--dt", "fast"),
    ("vrep-emulator", "--duration", "nan"),
    ("vrep-emulator", "--duration", "0"),
    ("vrep-emulator", "--arm", "../../etc"),
    ("vrep-emulator", "--arm", "arm\x1b[31m"),
    ("vrep-emulator", "--host", "a host"),
    ("arbotix-emulator", "--nservos", "0"),
    ("arbotix-emulator", "--nservos", "253"),
    ("arbotix-emulator", "--nservos", "1e7"),
    ("arbotix-emulator", "--packet-time", "0"),
    ("arbotix-emulator", "--packet-time", "nan"),
    ("arbotix-emulator", "--packet-time", "inf"),
    ("arbotix-emulator", "--duration", "-1"),
    ("arbotix-info", "--nservos", "-3"),
    ("arbotix-info", "--baud", "0"),
    ("arbotix-info", "--timeout", "nan"),
    ("arbotix-info", "--timeout", "1e999"),
]


@pytest.mark.parametrize("verb, option, value", REFUSED)
def test_a_bad_option_is_one_line_naming_it_and_status_2(capsys, verb, option, value):
    argv = ["hw", verb, option, value]
    if verb == "arbotix-info":
        argv.insert(2, "/dev/nonexistent-tty")
    elif option != "--duration":
        argv += ["--duration", "0.01"]  # an emulator that started anyway stops soon
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"blocksim hw {verb}: {option} must be ")
    assert "\x1b" not in err and len(err) < 200


def test_the_port_printed_is_the_port_served_and_0_picks_one():
    """``--port 70000`` used to print that port and listen elsewhere."""
    p = subprocess.run(
        [sys.executable, "-m", "blocksim.cli", "hw", "vrep-emulator", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip() == (
        "blocksim hw vrep-emulator: --port must be a whole number 0..65535 "
        "(0 picks a free one), got '70000'"
    )
    p = subprocess.run(
        [sys.executable, "-m", "blocksim.cli", "hw", "vrep-emulator", "--port", "0",
         "--duration", "0.2", "--njoints", "64", "--dt", "1e-6"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    address, closed = p.stdout.splitlines()
    assert address.startswith("tcp://127.0.0.1:") and int(address.rsplit(":", 1)[1]) > 0
    assert closed == "vrep emulator closed"
