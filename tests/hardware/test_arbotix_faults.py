"""Injected faults: each is retried or ends in a clear error, in bounded time."""

import time

import pytest

from blocksim.hardware import Arbotix, ArbotixEmulator, DeviceTimeout, HardwareError
from blocksim.hardware import dynamixel as dx

READ_POS_1 = dx.instruction_packet(1, dx.INS_READ_DATA, [dx.ADDR_POS, 2])


def _timed(fn):
    t0 = time.perf_counter()
    try:
        return fn(), time.perf_counter() - t0
    except Exception as exc:
        return exc, time.perf_counter() - t0


@pytest.mark.parametrize("fault", ["drop", "corrupt", "garbage"])
def test_one_faulty_reply_is_retried(arb, emulator, fault):
    emulator.inject(fault)
    assert arb.getpos(1) == 0.0
    assert emulator.received[-2:] == [READ_POS_1, READ_POS_1]  # sent twice


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        ("drop", "no status packet within 0.2 s"),
        ("corrupt", "bad checksum in packet FF FF 01 04 00 00 02"),
        ("garbage", "no status packet"),
    ],
)
def test_a_device_that_keeps_failing_ends_in_a_bounded_timeout(arb, emulator, fault, why):
    emulator.inject(fault, count=3)
    err, elapsed = _timed(lambda: arb.getpos(1))
    assert isinstance(err, DeviceTimeout)
    msg = str(err)
    assert msg.startswith(f"{emulator.path}: no valid answer from servo 1 after 3 attempt(s)")
    assert why in msg
    assert "last exchange: sent FF FF 01 04 02 24 02 D2" in msg
    assert elapsed < 2.0  # bounded: 3 attempts of 0.2 s (plus scheduling on a busy machine)
    assert arb.getpos(1) == 0.0  # the device answers again


def test_a_late_answer_within_the_timeout_is_just_slow(arb, emulator):
    emulator.inject("late", delay=0.02)
    value, elapsed = _timed(lambda: arb.getpos(2))
    assert value == 0.0 and elapsed >= 0.02


def test_a_late_answer_after_the_timeout_is_retried_and_does_not_shift_later_answers(arb, emulator):
    arb.setpos([0.1, 0.2, 0.3, 0.4, 0.5], speed=1)  # slow: positions stay near 512
    emulator.inject("late", delay=0.3)  # > timeout 0.2
    assert arb.gettemp(1) == 30.0
    # the stale reply of the first attempt must not be taken for the next command's answer
    assert arb.readdata(2, dx.ADDR_VERSION, 1).params == b"\x18"
    assert arb.readdata(3, dx.ADDR_GOAL, 2).word(0) == round(arb.a2e(0.3))


def test_no_retries_means_one_attempt():
    with ArbotixEmulator(nservos=2) as emu:
        a = Arbotix(emu.path, nservos=2, timeout=0.03, retries=0)
        emu.inject("drop")
        err, elapsed = _timed(lambda: a.getpos(2))
        assert isinstance(err, DeviceTimeout) and "after 1 attempt(s)" in str(err)
        assert elapsed < 2.0
        a.disconnect()


def test_an_unplugged_device_is_reported_at_once(arb, emulator):
    emulator.inject("unplug")
    err, elapsed = _timed(lambda: arb.getpos(4))
    assert isinstance(err, HardwareError)
    assert f"{emulator.path}: the device disappeared" in str(err)
    assert "sent FF FF 04 04 02 24 02 CF" in str(err)
    assert elapsed < 2.0
    emulator.close()  # joins the serving thread, which has ended
    assert not emulator.running
    arb.disconnect()
    assert not arb.connected


def test_a_missing_servo_times_out_naming_it():
    with ArbotixEmulator(nservos=2) as emu:
        a = Arbotix(emu.path, nservos=3, timeout=0.03, retries=1)
        err, elapsed = _timed(lambda: a.getpos(3))
        assert isinstance(err, DeviceTimeout) and "no valid answer from servo 3" in str(err)
        assert elapsed < 2.0
        a.disconnect()
