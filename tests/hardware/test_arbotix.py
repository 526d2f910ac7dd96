"""The Arbotix driver, every method, against the emulator on a pseudo-terminal (pyserial)."""

import math
import time

import numpy as np
import pytest
import serial

from blocksim.hardware import Arbotix, HardwareError
from blocksim.hardware import dynamixel as dx
from blocksim.hardware.arbotix import COUNTS_PER_RAD
from blocksim.hardware.servo_model import MAX_SPEED_COUNTS, move


def test_a2e_and_e2a_are_rtbs_conversion_and_the_scale_is_a_parameter():
    a = Arbotix(transport=object(), nservos=1, connect=False)
    assert a.a2e(0.0) == 512.0
    assert a.a2e(150 * math.pi / 180) == pytest.approx(1024.0)  # e = a/pi*180/150*512 + 512
    assert a.e2a(0) == pytest.approx(-150 * math.pi / 180)
    np.testing.assert_allclose(a.e2a(a.a2e(np.array([-1.0, 0.3, 2.0]))), [-1.0, 0.3, 2.0])
    b = Arbotix(
        transport=object(),
        nservos=1,
        connect=False,
        counts_per_rad=4096 / (2 * math.pi),
        centre=2048,
    )
    assert b.a2e(math.pi) == pytest.approx(4096.0)
    assert COUNTS_PER_RAD == pytest.approx(512 * 180 / (150 * math.pi))


def test_getpos_reads_present_position_of_one_or_every_servo(arb, emulator):
    q = arb.getpos()
    assert q.shape == (5,) and np.all(q == 0.0)
    assert arb.getpos(3) == 0.0
    # servo 3's read: FF FF 03 04 02 24 02 cs (READ_DATA, address 36, 2 bytes)
    assert emulator.received[-1] == dx.instruction_packet(3, dx.INS_READ_DATA, [36, 2])
    assert arb.getpos_counts(2) == 512


def test_setpos_writes_goals_and_the_servos_follow_the_servo_model(arb, emulator):
    q = np.array([0.1, -0.2, 0.3, -0.4, 0.5])
    arb.setpos(q)
    goals = [round(arb.a2e(a)) for a in q]
    for i, g in enumerate(goals, start=1):
        assert (
            dx.instruction_packet(i, dx.INS_WRITE_DATA, [30, g & 0xFF, g >> 8]) in emulator.received
        )
    n0 = len(emulator.received)
    e = arb.getpos_counts()  # 5 more packets; emulated time advances 2 ms per packet
    # servo k is read at packet n0 + k; it has moved from packet k (its write) on
    for k in range(5):
        dt = (n0 + 1 + k - (k + 1)) * 0.002
        assert e[k] == round(move(512.0, goals[k], MAX_SPEED_COUNTS, 0.03, dt))
    arb.setpos(0.25, id=2)
    assert emulator.servos[2].goal == round(arb.a2e(0.25))


def test_setpos_with_speed_and_range_checks(arb, emulator):
    arb.setpos([0.0] * 5, speed=100)
    assert all(s.word(dx.ADDR_SPEED) == 100 for s in emulator.servos.values())
    arb.setpos(0.5, 7, id=4)
    assert emulator.servos[4].word(dx.ADDR_SPEED) == 7
    with pytest.raises(ValueError, match=r"servo id must be 1\.\.5"):
        arb.setpos(0.0, id=0)
    with pytest.raises(ValueError, match="servo id must be"):
        arb.getpos(6)
    with pytest.raises(ValueError, match=r"angle of servo 1 = 3 rad is outside"):
        arb.setpos([3.0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="needs 5 angles"):
        arb.setpos([0.0, 0.0])
    with pytest.raises(ValueError, match=r"speed must be 0\.\.1023"):
        arb.setpos([0.0] * 5, speed=2000)


def test_relax_setled_gettemp(arb, emulator):
    arb.relax(status=False)
    assert all(s.torque for s in emulator.servos.values())
    arb.relax(2)
    assert not emulator.servos[2].torque and emulator.servos[1].torque
    arb.relax()
    assert not any(s.torque for s in emulator.servos.values())
    arb.setled(4, True)
    assert emulator.servos[4].table[dx.ADDR_LED] == 1
    arb.setled(status=False)
    assert not any(s.table[dx.ADDR_LED] for s in emulator.servos.values())
    t = arb.gettemp()
    assert t.shape == (5,) and np.all(t == 30.0)
    assert arb.gettemp(1) == 30.0


def test_readdata_writedata1_writedata2(arb, emulator):
    r = arb.readdata(1, dx.ADDR_VERSION, 1)
    assert r.id == 1 and r.error == 0 and r.params == b"\x18"
    arb.writedata1(5, dx.ADDR_ALARM_LED, [4, 4])
    assert arb.readdata(5, dx.ADDR_ALARM_LED, 2).params == b"\x04\x04"
    arb.writedata2(5, dx.ADDR_CWLIMIT, [100, 900])
    assert arb.readdata(5, dx.ADDR_CWLIMIT, 4).params == bytes([100, 0, 0x84, 0x03])
    with pytest.raises(ValueError, match=r"0\.\.65535"):
        arb.writedata2(1, dx.ADDR_GOAL, 70000)


def test_a_servo_error_raises_naming_the_error_and_the_exchange(arb):
    with pytest.raises(HardwareError, match=r"servo 1 reports error 0x08 \(range\)") as info:
        arb.writedata1(1, dx.ADDR_POS, 0)  # present position is read-only
    assert "sent FF FF 01 04 03 24 00" in str(info.value)
    assert info.value.device == arb.device


def test_command_receive_text_and_parse(arb, emulator):
    status = arb.command(dx.ID_CONTROLLER, dx.INS_ARB_TEST)
    assert status.id == dx.ID_CONTROLLER and status.error == 0
    assert arb.text.splitlines()[:2] == ["servo 1: 512", "servo 2: 512"]
    packets, text = arb.parse(b"hello\n" + dx.status_packet(2, 0, [7]))
    assert text == "hello\n" and packets[0].params == b"\x07"
    # command without waiting, then receive() by hand
    assert arb.command(1, dx.INS_PING, reply=False) is None
    assert arb.receive(1).params == b""
    # a broadcast is never answered
    assert arb.command(dx.ID_BROADCAST, dx.INS_WRITE_DATA, [dx.ADDR_LED, 1]) is None
    arb.command(1, dx.INS_PING)  # answered after the broadcast was handled
    assert all(s.table[dx.ADDR_LED] == 1 for s in emulator.servos.values())


def test_flush_returns_and_discards_waiting_bytes(arb):
    arb.command(1, dx.INS_PING, reply=False)
    for _ in range(200):
        got = arb.flush()
        if got:
            break
        time.sleep(0.005)
    assert got == dx.status_packet(1)
    assert arb.flush() == b""


def test_setpath_loads_a_pypose_sequence_and_plays_it(arb, emulator):
    jt = np.array([[0.1, 0.2, 0.3, 0.4, 0.5], [-0.1, -0.2, -0.3, -0.4, -0.5]])
    arb.setpath(jt, 0.1)
    assert emulator.pose_size == 5
    assert emulator.poses[0] == [round(arb.a2e(a)) for a in jt[0]]
    assert emulator.poses[1] == [round(arb.a2e(a)) for a in jt[1]]
    assert emulator.sequence == [(0, 100), (1, 100)]
    # the LOAD_SEQ packet: (pose, ms LE) pairs, terminated by 255 0 0
    assert (
        dx.instruction_packet(253, dx.INS_ARB_LOAD_SEQ, [0, 100, 0, 1, 100, 0, 255, 0, 0])
        in emulator.received
    )
    for _ in range(200):  # 2 ms per packet: 0.2 s of sequence + settling
        q = arb.getpos()
    np.testing.assert_allclose(q, arb.e2a(np.array(emulator.poses[1])), atol=0)
    with pytest.raises(ValueError, match="30 at most"):
        arb.setpath(np.zeros((31, 5)))
    with pytest.raises(ValueError, match="5 columns"):
        arb.setpath(np.zeros((3, 4)))


def test_the_port_is_exclusive_and_released_by_disconnect(emulator):
    a = Arbotix(emulator.path, nservos=5, timeout=0.05)
    with pytest.raises(serial.SerialException):
        serial.Serial(emulator.path, exclusive=True)
    assert "connected" in repr(a)
    a.disconnect()
    assert "closed" in repr(a)
    serial.Serial(emulator.path, exclusive=True).close()
    with Arbotix(emulator.path, nservos=5) as b:
        assert b.getpos(1) == 0.0
    assert not b.connected


def test_bad_constructor_arguments_are_named():
    with pytest.raises(ValueError, match="nservos"):
        Arbotix("/dev/null", nservos=0, connect=False)
    with pytest.raises(ValueError, match="`port`"):
        Arbotix(nservos=5)
    with pytest.raises(ValueError, match="timeout"):
        Arbotix("/dev/x", nservos=5, timeout=0, connect=False)
    with pytest.raises(HardwareError, match="/dev/does-not-exist: cannot open the serial port"):
        Arbotix("/dev/does-not-exist", nservos=5)


def test_setpos_in_one_sync_write_packet(arb, emulator):
    q = np.array([0.1, -0.2, 0.3, -0.4, 0.5])
    arb.setpos(q, speed=300, sync=True)
    arb.command(1, dx.INS_PING)  # answered once the (unanswered) sync write was handled
    payload = [dx.ADDR_GOAL, 4]
    for i, a in enumerate(q, start=1):
        e = round(arb.a2e(a))
        payload += [i, e & 0xFF, e >> 8, 300 & 0xFF, 300 >> 8]
        assert emulator.servos[i].goal == e
        assert emulator.servos[i].word(dx.ADDR_SPEED) == 300
    assert emulator.received[-2] == dx.instruction_packet(254, dx.INS_SYNC_WRITE, payload)
    with pytest.raises(ValueError, match="same non-zero number of bytes"):
        arb.syncwrite(dx.ADDR_LED, {1: [1], 2: [1, 0]})


def test_sync_read_gets_every_servo_in_one_exchange(arb, emulator):
    arb.setpos([0.1, -0.2, 0.3, -0.4, 0.5])
    for _ in range(30):
        arb.getpos()
    n0 = len(emulator.received)
    q = arb.getpos(sync=True)
    assert len(emulator.received) == n0 + 1  # one packet to the board, one answer
    assert emulator.received[-1] == dx.instruction_packet(
        253, dx.INS_SYNC_READ, [dx.ADDR_POS, 2, 1, 2, 3, 4, 5]
    )
    np.testing.assert_array_equal(q, arb.getpos())  # the same counts (no motion left)
    assert arb.syncread([2, 4], dx.ADDR_TEMP, 1) == [b"\x1e", b"\x1e"]
    with pytest.raises(ValueError, match="servo id must be"):
        arb.syncread([9], dx.ADDR_POS, 2)
