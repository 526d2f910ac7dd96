"""ROBOTIS's own ``dynamixel-sdk`` (protocol 1.0) as the oracle of the emulated AX-12 servos.

The SDK shares no code with ``blocksim``: it opens the emulator's pseudo-terminal with its own
PortHandler (pyserial) and builds, sends and checks packets with its own Protocol1PacketHandler.
What it reports (communication result, error byte, data) must be what the AX-12 manual says.
"""

import dynamixel_sdk as sdk
import pytest
from dynamixel_sdk import port_handler

from blocksim.hardware import ArbotixEmulator

OK, TIMEOUT = sdk.COMM_SUCCESS, sdk.COMM_RX_TIMEOUT
E_ANGLE, E_HEAT, E_RANGE, E_CHECKSUM, E_INSTRUCTION = 2, 4, 8, 16, 64
CW_LIMIT, CCW_LIMIT, TEMP_LIMIT, RETURN_LEVEL = 6, 8, 11, 16
TORQUE, GOAL, PRESENT_POS, PRESENT_TEMP, REGISTERED = 24, 30, 36, 43, 44


@pytest.fixture
def emu():
    with ArbotixEmulator(nservos=3, packet_time=0.002) as e:
        yield e


#: the SDK's latency allowance [ms]: its packet timeout is 2 x this + 2 ms + bytes, 34 ms at
#: the default 16 ms, which a loaded machine (a test suite compiling on every core) misses
#: now and then; the servo's answers are checked, not the machine's speed
LATENCY_MS = 150


@pytest.fixture
def dxl(emu, monkeypatch):
    monkeypatch.setattr(port_handler, "LATENCY_TIMER", LATENCY_MS)
    port = sdk.PortHandler(emu.path)
    assert port.openPort()
    try:
        yield port, sdk.PacketHandler(1.0)
    finally:
        port.closePort()


def _wait(port, ph, n=100):
    """Let ``n`` packets of emulated time pass (2 ms each)."""
    for _ in range(n):
        assert ph.ping(port, 1)[1] == OK


def test_ping_and_read_the_model_number(dxl):
    port, ph = dxl
    assert ph.ping(port, 2) == (12, OK, 0)  # AX-12
    assert ph.read1ByteTxRx(port, 2, 3) == (2, OK, 0)  # its id
    assert ph.ping(port, 9)[1] == TIMEOUT  # no such servo


def test_a_ping_with_a_bad_checksum_gets_the_checksum_error_bit(dxl):
    port, ph = dxl
    port.clearPort()
    port.writePort([0xFF, 0xFF, 1, 2, sdk.INST_PING, 0x00])  # the right checksum is 0xFB
    port.setPacketTimeout(6)
    rx, result = ph.rxPacket(port)
    assert result == OK and rx[2] == 1 and rx[4] == E_CHECKSUM


def test_a_goal_outside_the_angle_limits_gets_the_angle_limit_bit_and_no_move(dxl, emu):
    port, ph = dxl
    assert ph.write2ByteTxRx(port, 1, CW_LIMIT, 300) == (OK, 0)
    assert ph.write2ByteTxRx(port, 1, CCW_LIMIT, 700) == (OK, 0)
    assert ph.write2ByteTxRx(port, 1, GOAL, 900) == (OK, E_ANGLE)
    _wait(port, ph)
    assert ph.read2ByteTxRx(port, 1, GOAL) == (512, OK, 0)
    assert ph.read2ByteTxRx(port, 1, PRESENT_POS) == (512, OK, 0)


def test_a_goal_above_1023_gets_the_range_bit_and_is_not_written(dxl, emu):
    port, ph = dxl
    assert ph.write2ByteTxRx(port, 2, GOAL, 1500) == (OK, E_RANGE)
    _wait(port, ph)
    assert ph.read2ByteTxRx(port, 2, GOAL) == (512, OK, 0)
    assert ph.read2ByteTxRx(port, 2, PRESENT_POS) == (512, OK, 0)


@pytest.mark.parametrize("level", [0, 1])
def test_status_return_level_0_and_1_do_not_answer_writes(dxl, emu, level):
    port, ph = dxl
    assert ph.write1ByteTxRx(port, 3, RETURN_LEVEL, level) == (OK, 0)
    assert ph.write2ByteTxRx(port, 3, GOAL, 600)[0] == TIMEOUT
    assert emu.servos[3].goal == 600  # carried out all the same
    read = ph.read2ByteTxRx(port, 3, GOAL)
    assert read == ((600, OK, 0) if level == 1 else (0, TIMEOUT, 0))
    assert ph.ping(port, 3)[1:] == ((OK, 0) if level == 1 else (TIMEOUT, 0))
    port.clearPort()
    port.writePort([0xFF, 0xFF, 3, 2, sdk.INST_PING, (~(3 + 2 + 1)) & 0xFF])
    port.setPacketTimeout(6)
    assert ph.rxPacket(port)[1] == OK  # a PING is always answered


def test_reg_write_then_action_moves_the_servo(dxl, emu):
    port, ph = dxl
    assert ph.regWriteTxRx(port, 1, GOAL, 2, [0x00, 0x03]) == (OK, 0)
    assert ph.read1ByteTxRx(port, 1, REGISTERED) == (1, OK, 0)
    _wait(port, ph, 50)
    assert ph.read2ByteTxRx(port, 1, PRESENT_POS) == (512, OK, 0)  # not yet
    assert ph.action(port, 1) == OK
    assert ph.read1ByteTxRx(port, 1, REGISTERED) == (0, OK, 0)
    _wait(port, ph, 200)
    assert ph.read2ByteTxRx(port, 1, PRESENT_POS) == (768, OK, 0)
    # ACTION without a REG_WRITE: the instruction error
    assert ph.txRxPacket(port, [0xFF, 0xFF, 1, 2, sdk.INST_ACTION, 0])[1:] == (OK, E_INSTRUCTION)


def test_an_overheating_servo_reports_the_bit_with_its_reading(dxl, emu):
    port, ph = dxl
    assert ph.write1ByteTxRx(port, 2, TEMP_LIMIT, 25) == (OK, E_HEAT)
    assert ph.read1ByteTxRx(port, 2, PRESENT_TEMP) == (30, OK, E_HEAT)
    assert ph.read2ByteTxRx(port, 2, PRESENT_POS) == (512, OK, E_HEAT)
    assert ph.read1ByteTxRx(port, 2, TORQUE) == (0, OK, E_HEAT)  # Alarm Shutdown
    assert ph.read2ByteTxRx(port, 1, PRESENT_POS) == (512, OK, 0)
