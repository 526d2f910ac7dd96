"""The emulated servo's motion: exact first order with a rate limit, and its control table."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from blocksim.hardware import dynamixel as dx
from blocksim.hardware.servo_model import (
    COUNTS_PER_SECOND_PER_UNIT,
    MAX_SPEED_COUNTS,
    Servo,
    move,
)


@pytest.mark.parametrize("dt", [0.001, 0.05, 0.3, 2.0])
def test_move_is_the_exact_solution_of_the_rate_limited_first_order(dt):
    vmax, tau, p0, g = 200.0, 0.05, 100.0, 400.0
    ref = solve_ivp(
        lambda t, p: np.clip((g - p) / tau, -vmax, vmax),
        (0, dt),
        [p0],
        rtol=1e-10,
        atol=1e-10,
        max_step=1e-3,
    ).y[0, -1]
    assert move(p0, g, vmax, tau, dt) == pytest.approx(ref, abs=1e-6)
    # composition: two half steps are one step
    half = move(move(p0, g, vmax, tau, dt / 2), g, vmax, tau, dt / 2)
    assert half == pytest.approx(move(p0, g, vmax, tau, dt), abs=1e-9)


def test_speed_units_and_the_largest_speed():
    assert COUNTS_PER_SECOND_PER_UNIT == pytest.approx(0.111 * 6 * 1024 / 300)
    s = Servo(1)
    assert s.speed_counts == MAX_SPEED_COUNTS  # speed 0 means as fast as possible
    s.write(dx.ADDR_SPEED, bytes([100, 0]))
    assert s.speed_counts == pytest.approx(100 * COUNTS_PER_SECOND_PER_UNIT)


def test_a_servo_moves_at_the_commanded_speed_then_settles():
    s = Servo(1, position=512)
    s.write(dx.ADDR_GOAL, bytes([0x00, 0x03, 50, 0]))  # goal 768, speed 50 units
    v = 50 * COUNTS_PER_SECOND_PER_UNIT
    s.advance(0.5)
    assert s.word(dx.ADDR_POS) == round(512 + v * 0.5)
    assert s.table[46] == 1  # moving
    s.advance(5.0)
    assert s.word(dx.ADDR_POS) == 768 and s.table[46] == 0


def test_a_relaxed_servo_does_not_move_and_read_only_bytes_are_refused():
    s = Servo(1)
    s.write(dx.ADDR_TORQUE, b"\x00")
    s.set_word(dx.ADDR_GOAL, 900)
    s.advance(1.0)
    assert s.word(dx.ADDR_POS) == 512
    with pytest.raises(IndexError):
        s.write(dx.ADDR_POS, b"\x00\x00")
    with pytest.raises(IndexError):
        s.read(49, 2)


def test_temperature_rises_under_torque_toward_its_equilibrium():
    s = Servo(1)
    s.write(dx.ADDR_TORQUE, b"\x01")
    s.advance(60.0)
    assert s.table[dx.ADDR_TEMP] == round(34 - 4 * math.exp(-1))
