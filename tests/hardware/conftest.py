"""An emulated Arbotix on a real pseudo-terminal, for each test that asks for one."""

import pytest

from blocksim.hardware import Arbotix, ArbotixEmulator


@pytest.fixture
def emulator():
    """5 servos at the centre, deterministic time (2 ms per packet)."""
    with ArbotixEmulator(nservos=5, packet_time=0.002) as emu:
        yield emu


@pytest.fixture
def arb(emulator):
    """The driver on the emulator's pseudo-terminal, through pyserial; short timeouts."""
    a = Arbotix(emulator.path, nservos=5, timeout=0.2, retries=2)
    yield a
    a.disconnect()
