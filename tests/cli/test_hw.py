"""``blocksim hw``: the emulator verbs serve real devices other processes can open, and
``arbotix-info`` reads a board."""

import signal
import subprocess
import sys

import numpy as np

from blocksim.cli import main
from blocksim.hardware import Arbotix, ArbotixEmulator
from blocksim.hardware.coppeliasim import CoppeliaSim

from ..processes import sigint_default


def _start(*args):
    p = subprocess.Popen(
        [sys.executable, "-m", "blocksim.cli", "hw", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_default,  # _interrupt stops it with SIGINT
    )
    return p, p.stdout.readline().strip()


def _interrupt(p):
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    return p.returncode, out, err


def test_arbotix_emulator_verb_prints_a_device_another_process_drives():
    p, path = _start("arbotix-emulator", "--nservos", "3", "--packet-time", "0.001")
    try:
        assert path.startswith("/dev/")
        with Arbotix(path, nservos=3, timeout=0.5) as arb:
            arb.setpos([0.2, -0.1, 0.3])
            for _ in range(50):
                q = arb.getpos()
            np.testing.assert_allclose(q, [0.2, -0.1, 0.3], atol=1 / 195.6)
    finally:
        code, out, _ = _interrupt(p)
    assert code == 0 and "arbotix emulator closed" in out


def test_vrep_emulator_verb_prints_an_address_the_client_connects_to():
    p, address = _start("vrep-emulator", "--port", "0", "--arm", "UR5", "--njoints", "6")
    try:
        assert address.startswith("tcp://127.0.0.1:")
        with CoppeliaSim(port=int(address.rsplit(":", 1)[1]), timeout=2.0) as v:
            assert v.getversion() == 40700
            assert v.arm("UR5").n == 6
    finally:
        code, out, _ = _interrupt(p)
    assert code == 0 and "vrep emulator closed" in out


def test_arbotix_info_reads_angles_and_temperatures(capsys):
    with ArbotixEmulator(nservos=2, positions=[512, 600]) as emu:
        assert main(["hw", "arbotix-info", emu.path, "--nservos", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["servo", "angle", "[rad]", "temperature", "[C]"]
    assert out[1].split() == ["1", "0.0000", "30"]
    assert out[2].split() == ["2", f"{88 / (512 / (150 * np.pi / 180)):.4f}", "30"]


def test_arbotix_info_names_a_missing_port_and_a_silent_board(capsys):
    assert main(["hw", "arbotix-info", "/dev/nonexistent-tty"]) == 1
    assert "/dev/nonexistent-tty: cannot open the serial port" in capsys.readouterr().out
    with ArbotixEmulator(nservos=1) as emu:
        assert main(["hw", "arbotix-info", emu.path, "--nservos", "2", "--timeout", "0.05"]) == 1
    assert "no valid answer from servo 2" in capsys.readouterr().out


def test_hw_without_a_verb_is_a_usage_error(capsys):
    assert main(["hw"]) == 2
    assert "arbotix-emulator" in capsys.readouterr().err
