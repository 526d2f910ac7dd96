"""The driver reads a status packet's error byte as the AX-12 manual defines it.

Refused instructions (angle limit, range, instruction) raise a ServoError naming the servo and
the bits; a garbled instruction (the servo's checksum bit) is sent again; alarms (overheating,
input voltage, overload) come with valid data: the reading is returned, the bits kept, and a
ServoAlarm warned once per servo and alarm. Driver and blocks against the emulator on its
pseudo-terminal.
"""

import warnings

import numpy as np
import pytest
import serial

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.hardware import ArbotixArm
from blocksim.hardware import Arbotix, ArbotixEmulator, DeviceTimeout
from blocksim.hardware import dynamixel as dx
from blocksim.hardware.arbotix import ServoAlarm, ServoError

RES = 150 * np.pi / 180 / 512  # one encoder count [rad]


def _heat(arb, servo, limit=25):
    """Lower servo's temperature limit below its temperature (30 deg C): overheating."""
    with pytest.warns(ServoAlarm):
        arb.writedata1(servo, dx.ADDR_TEMP_LIMIT, limit)


def test_a_read_with_the_overheating_bit_returns_its_data_and_warns_once(arb, emulator):
    with pytest.warns(ServoAlarm) as record:
        arb.writedata1(2, dx.ADDR_TEMP_LIMIT, 25)
        q = arb.getpos()
        t = arb.gettemp()
        arb.getpos()
    assert len(record) == 1  # once per servo and alarm
    msg = str(record[0].message)
    assert msg.startswith(f"{arb.device}: servo 2 reports error 0x04 (overheating)")
    assert "above its limit (address 11)" in msg
    np.testing.assert_array_equal(q, np.zeros(5))
    np.testing.assert_array_equal(t, np.full(5, 30.0))
    assert arb.alarms == {1: 0, 2: dx.ERR_OVERHEATING, 3: 0, 4: 0, 5: 0}
    assert arb.alarms_seen[2] == dx.ERR_OVERHEATING
    assert arb.gettemp(2) == 30.0
    # a new alarm of the same servo warns again; cleared bits are no longer current
    with pytest.warns(ServoAlarm, match=r"servo 2 .*input voltage"):
        arb.writedata1(2, 13, 110)  # highest voltage 11.0 V < 12.0 V
    arb.writedata1(2, dx.ADDR_TEMP_LIMIT, 70)
    assert arb.alarms[2] == dx.ERR_VOLTAGE
    assert arb.alarms_seen[2] == dx.ERR_VOLTAGE | dx.ERR_OVERHEATING


def test_an_overheated_servo_is_shut_down_and_still_read(arb, emulator):
    _heat(arb, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # already warned: no second warning
        arb.setpos(np.full(5, 0.3))
        for _ in range(100):
            arb.getpos_counts(1)
        e = arb.getpos_counts()
    assert e[2] == 512 and np.all(np.delete(e, 2) == round(512 + 0.3 * arb.counts_per_rad))
    assert not emulator.servos[3].torque  # Alarm Shutdown (36) includes overheating


def test_refused_instructions_raise_a_servo_error_naming_the_bits(arb, emulator):
    arb.writedata2(1, dx.ADDR_CWLIMIT, [400, 600])
    with pytest.raises(ServoError, match=r"servo 1 reports error 0x02 \(angle limit\)") as info:
        arb.setpos(1.0, id=1)
    assert info.value.servo == 1 and info.value.error == dx.ERR_ANGLE_LIMIT
    assert "CW..CCW angle limits (addresses 6..9); nothing was written" in str(info.value)
    assert "last exchange: sent FF FF 01 05 03 1E" in str(info.value)
    assert emulator.servos[1].goal == 512
    with pytest.raises(ServoError, match=r"error 0x08 \(range\): a value outside") as info:
        arb.writedata2(2, dx.ADDR_GOAL, 1500)
    assert info.value.error == dx.ERR_RANGE and emulator.servos[2].goal == 512
    with pytest.raises(ServoError, match=r"error 0x40 \(instruction\)"):
        arb.command(2, dx.INS_ACTION)
    # a refusal by an overheating servo names both
    _heat(arb, 4)
    with pytest.raises(ServoError, match=r"error 0x0C \(overheating, range\)"):
        arb.writedata2(4, dx.ADDR_GOAL, 1500)


def test_reg_write_and_action_through_the_driver(arb, emulator):
    arb.command(1, dx.INS_REG_WRITE, [dx.ADDR_GOAL, 0, 3])
    assert arb.readdata(1, dx.ADDR_REGISTERED).params == b"\x01"
    assert emulator.servos[1].goal == 512
    arb.command(dx.ID_BROADCAST, dx.INS_ACTION)
    assert arb.readdata(1, dx.ADDR_REGISTERED).params == b"\x00"
    assert emulator.servos[1].goal == 768


def test_a_garbled_instruction_is_sent_again(arb, emulator):
    emulator.inject("garble")
    assert arb.readdata(1, dx.ADDR_POS, 2).word(0) == 512
    sent = [p for p in emulator.received if p[2] == 1]
    assert len(sent) == 2 and sent[0] == sent[1]  # the same READ, twice
    emulator.inject("garble", count=3)
    with pytest.raises(DeviceTimeout, match=r"servo 2 reports error 0x10 \(checksum\)"):
        arb.writedata2(2, dx.ADDR_GOAL, 600)
    assert emulator.servos[2].goal == 512  # never carried out


def test_status_return_level_1_reads_still_work_and_writes_time_out(arb, emulator):
    arb.writedata1(5, dx.ADDR_RETURN_LEVEL, 1)
    assert arb.getpos_counts(5) == 512
    with pytest.raises(DeviceTimeout, match="no status packet"):
        arb.command(5, dx.INS_WRITE_DATA, [dx.ADDR_LED, 1])
    assert emulator.servos[5].table[dx.ADDR_LED] == 1  # carried out, not answered


def _released(path):
    serial.Serial(path, exclusive=True).close()
    return True


def test_a_block_keeps_its_readings_and_reports_an_alarm_once():
    goal = np.array([0.3, 0.2, 0.1, -0.1, -0.2])
    with ArbotixEmulator(nservos=5, packet_time=0.002) as emu:
        setup = Arbotix(emu.path, nservos=5)
        try:
            _heat(setup, 2)
        finally:
            setup.disconnect()
        d = Diagram("hot")
        c = d.add(Constant(goal), name="cmd")
        a = d.add(ArbotixArm(port=emu.path, nservos=5, clock=0.02, timeout=0.5), name="arm")
        d.connect(c, a)
        with pytest.warns(ServoAlarm) as record:
            r = simulate(d, 0.4)
        alarms = [w for w in record if issubclass(w.category, ServoAlarm)]
        assert len(alarms) == 1
        msg = str(alarms[0].message)
        assert msg.startswith(f"block 'arm' (ArbotixArm) on {emu.path}: servo 2 reports")
        assert "overheating" in msg
        q = r["arm.q"]
        assert q.shape == (len(r.t), 5) and not np.isnan(q).any()
        expected = goal.copy()
        expected[1] = 0.0  # shut down: it stays where it was
        np.testing.assert_allclose(q[-1], expected, atol=RES / 2 + 1e-12)
        st = r.stats["hardware"]["arm"]
        assert st["alarms"] == {2: ["overheating"]}
        assert _released(emu.path)


def test_a_run_without_alarms_has_no_alarm_stats():
    with ArbotixEmulator(nservos=2, packet_time=0.002) as emu:
        d = Diagram("cool")
        c = d.add(Constant(np.zeros(2)), name="cmd")
        a = d.add(ArbotixArm(port=emu.path, nservos=2, clock=0.02, timeout=0.5), name="arm")
        d.connect(c, a)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ServoAlarm)
            r = simulate(d, 0.1)
        assert "alarms" not in r.stats["hardware"]["arm"]
