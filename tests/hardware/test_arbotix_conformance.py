"""The emulated AX-12 servos against the AX-12 manual (Dynamixel protocol 1.0).

The emulator is driven through its real pseudo-terminal with pyserial, with packets built here
from the manual (header FF FF, id, length = N + 2, instruction, N parameters, checksum = the
complement of the low byte of the sum from id on), independently of ``blocksim``'s own packet
code. "No reply" is checked without waiting for a timeout: the device answers in order, so
when a PING to the Arbotix board itself (id 253), sent right after an instruction, is the first
thing answered, that instruction was not.
"""

import pytest
import serial

from blocksim.hardware import ArbotixEmulator

# instructions, control-table addresses and error bits, from the manual
PING, READ, WRITE, REG_WRITE, ACTION, RESET = 1, 2, 3, 4, 5, 6
SYNC_WRITE = 0x83
BROADCAST, BOARD = 0xFE, 0xFD
ID, CW_LIMIT, CCW_LIMIT, TEMP_LIMIT, RETURN_LEVEL = 3, 6, 8, 11, 16
SHUTDOWN, TORQUE, GOAL, PRESENT_POS, PRESENT_TEMP, REGISTERED, LOCK = 18, 24, 30, 36, 43, 44, 47
E_VOLTAGE, E_ANGLE, E_HEAT, E_RANGE, E_CHECKSUM, E_INSTRUCTION = 1, 2, 4, 8, 16, 64


def packet(ident, instruction, *params, checksum=None):
    """An instruction packet, built from the manual."""
    body = [ident, len(params) + 2, instruction, *params]
    cs = (~sum(body)) & 0xFF if checksum is None else checksum
    return bytes([0xFF, 0xFF, *body, cs])


def lo_hi(word):
    return [word & 0xFF, word >> 8]


class Bus:
    """The host end of the emulator's pseudo-terminal (pyserial)."""

    def __init__(self, path):
        self.port = serial.Serial(path, 1_000_000, timeout=2.0, exclusive=True)

    def send(self, raw):
        self.port.write(raw)

    def status(self):
        """The next status packet: (id, error, params); fails on a timeout or bad checksum."""
        head = b""
        while head != b"\xff\xff":
            byte = self.port.read(1)
            assert byte, "no status packet"
            head = (head + byte)[-2:]
        ident, length = self.port.read(2)
        rest = self.port.read(length)
        assert len(rest) == length, "a truncated status packet"
        error, params, cs = rest[0], rest[1:-1], rest[-1]
        assert cs == (~(ident + length + error + sum(params))) & 0xFF, "bad status checksum"
        return ident, error, bytes(params)

    def ask(self, raw):
        self.send(raw)
        return self.status()

    def unanswered(self, raw):
        """Send ``raw``, then a PING to the board: True when the board's is the first reply."""
        self.send(raw + packet(BOARD, PING))
        if self.status()[0] == BOARD:
            return True
        assert self.status()[0] == BOARD  # the board's reply follows: read it too
        return False

    def read_word(self, ident, addr):
        i, err, ps = self.ask(packet(ident, READ, addr, 2))
        assert i == ident and err & ~(E_HEAT | E_VOLTAGE) == 0
        return ps[0] | (ps[1] << 8)

    def close(self):
        self.port.close()


@pytest.fixture
def emu():
    with ArbotixEmulator(nservos=3, packet_time=0.002) as e:
        yield e


@pytest.fixture
def bus(emu):
    b = Bus(emu.path)
    try:
        yield b
    finally:
        b.close()


def test_factory_control_table(bus):
    assert bus.ask(packet(1, PING)) == (1, 0, b"")
    _, err, table = bus.ask(packet(2, READ, 0, 50))
    assert err == 0 and len(table) == 50
    assert table[0] | table[1] << 8 == 12  # model number: AX-12
    assert table[ID] == 2 and table[RETURN_LEVEL] == 2
    assert table[CW_LIMIT : CW_LIMIT + 4] == bytes([0, 0, 0xFF, 0x03])
    assert table[TEMP_LIMIT] == 70 and table[SHUTDOWN] == 36 and table[REGISTERED] == 0


def test_a_bad_checksum_is_answered_with_the_checksum_bit_and_not_carried_out(bus, emu):
    good = packet(1, PING)
    assert bus.ask(packet(1, PING, checksum=good[-1] ^ 0xFF)) == (1, E_CHECKSUM, b"")
    write = packet(2, WRITE, GOAL, *lo_hi(700))
    assert bus.ask(write[:-1] + bytes([write[-1] ^ 1])) == (2, E_CHECKSUM, b"")
    assert emu.servos[2].goal == 512 and bus.read_word(2, GOAL) == 512
    read = packet(3, READ, PRESENT_POS, 2)
    assert bus.ask(read[:-1] + b"\x00") == (3, E_CHECKSUM, b"")  # no data either
    # a broadcast, or an id no servo has, is never answered
    assert bus.unanswered(packet(BROADCAST, PING, checksum=0))
    assert bus.unanswered(packet(9, PING, checksum=0))


def test_a_goal_outside_the_angle_limits_is_refused_and_the_servo_does_not_move(bus, emu):
    assert bus.ask(packet(1, WRITE, CW_LIMIT, *lo_hi(200), *lo_hi(800))) == (1, 0, b"")
    for goal in (900, 100, 801, 199):
        assert bus.ask(packet(1, WRITE, GOAL, *lo_hi(goal))) == (1, E_ANGLE, b"")
    assert bus.read_word(1, GOAL) == 512
    for _ in range(50):  # 0.1 s of emulated time: nothing moves
        bus.ask(packet(1, PING))
    assert bus.read_word(1, PRESENT_POS) == 512
    # within the limits (the limits themselves included) the goal is taken, and reached
    assert bus.ask(packet(1, WRITE, GOAL, *lo_hi(800))) == (1, 0, b"")
    for _ in range(200):
        bus.ask(packet(1, PING))
    assert bus.read_word(1, PRESENT_POS) == 800
    # both limits 0 is wheel mode: the goal is not checked
    assert bus.ask(packet(2, WRITE, CW_LIMIT, 0, 0, 0, 0)) == (2, 0, b"")
    assert bus.ask(packet(2, WRITE, GOAL, *lo_hi(1000))) == (2, 0, b"")


def test_out_of_range_values_get_the_range_bit_and_nothing_is_written(bus, emu):
    assert bus.ask(packet(1, WRITE, GOAL, *lo_hi(1500))) == (1, E_RANGE, b"")
    assert bus.read_word(1, GOAL) == 512 and emu.servos[1].goal == 512  # not clamped
    assert bus.ask(packet(1, WRITE, GOAL + 1, 0x05)) == (1, E_RANGE, b"")  # high byte alone
    assert bus.ask(packet(1, WRITE, TORQUE, 2)) == (1, E_RANGE, b"")
    assert bus.ask(packet(1, WRITE, RETURN_LEVEL, 3)) == (1, E_RANGE, b"")
    assert bus.ask(packet(1, WRITE, PRESENT_POS, 0, 0)) == (1, E_RANGE, b"")  # read-only
    assert bus.ask(packet(1, WRITE, REGISTERED, 1)) == (1, E_RANGE, b"")  # read-only
    assert bus.ask(packet(1, READ, 49, 2)) == (1, E_RANGE, b"")  # past the table's end
    # one bad item refuses the whole write: goal and speed together
    assert bus.ask(packet(1, WRITE, GOAL, *lo_hi(600), *lo_hi(1024))) == (1, E_RANGE, b"")
    assert bus.read_word(1, GOAL) == 512 and bus.read_word(1, GOAL + 2) == 0
    assert bus.ask(packet(1, 0x42)) == (1, E_INSTRUCTION, b"")  # no such instruction
    # a locked servo only lets addresses 24..35 be written
    assert bus.ask(packet(3, WRITE, LOCK, 1)) == (3, 0, b"")
    assert bus.ask(packet(3, WRITE, TEMP_LIMIT, 60)) == (3, E_RANGE, b"")
    assert bus.ask(packet(3, WRITE, GOAL, *lo_hi(600))) == (3, 0, b"")


@pytest.mark.parametrize("level", [0, 1, 2])
def test_status_return_level(bus, emu, level):
    # the write that sets the level is answered by the level in force when it arrived (2)
    assert bus.ask(packet(2, WRITE, RETURN_LEVEL, level)) == (2, 0, b"")
    assert emu.servos[2].return_level == level
    assert bus.ask(packet(2, PING)) == (2, 0, b"")  # PING: always
    write = packet(2, WRITE, GOAL, *lo_hi(600))
    assert bus.unanswered(write) == (level < 2)
    assert emu.servos[2].goal == 600  # carried out, answered or not
    read = packet(2, READ, GOAL, 2)
    if level == 0:
        assert bus.unanswered(read)
    else:
        assert bus.ask(read) == (2, 0, bytes(lo_hi(600)))
    assert bus.unanswered(packet(2, REG_WRITE, GOAL, *lo_hi(700))) == (level < 2)
    assert bus.unanswered(packet(2, ACTION)) == (level < 2)
    assert emu.servos[2].goal == 700
    # errors too follow the level: a refused write at level 1 is not answered
    assert bus.unanswered(packet(2, WRITE, GOAL, *lo_hi(1500))) == (level < 2)
    assert emu.servos[2].goal == 700
    # the other servos keep their own level
    assert bus.ask(packet(1, WRITE, GOAL, *lo_hi(520))) == (1, 0, b"")


def test_reg_write_holds_the_write_until_action(bus, emu):
    assert bus.ask(packet(1, REG_WRITE, GOAL, *lo_hi(800))) == (1, 0, b"")
    assert bus.ask(packet(1, READ, REGISTERED, 1)) == (1, 0, b"\x01")
    assert bus.read_word(1, GOAL) == 512
    for _ in range(50):
        bus.ask(packet(1, PING))
    assert bus.read_word(1, PRESENT_POS) == 512  # registered, not carried out
    assert bus.ask(packet(1, ACTION)) == (1, 0, b"")
    assert bus.ask(packet(1, READ, REGISTERED, 1)) == (1, 0, b"\x00")
    assert bus.read_word(1, GOAL) == 800
    for _ in range(200):
        bus.ask(packet(1, PING))
    assert bus.read_word(1, PRESENT_POS) == 800
    # ACTION with nothing registered: the instruction error
    assert bus.ask(packet(1, ACTION)) == (1, E_INSTRUCTION, b"")
    # a REG_WRITE out of range is refused, not registered
    assert bus.ask(packet(2, REG_WRITE, GOAL, *lo_hi(1500))) == (2, E_RANGE, b"")
    assert bus.ask(packet(2, READ, REGISTERED, 1)) == (2, 0, b"\x00")


def test_a_broadcast_action_starts_every_registered_servo_at_once(bus, emu):
    for i, goal in ((1, 300), (2, 700)):
        assert bus.ask(packet(i, REG_WRITE, GOAL, *lo_hi(goal))) == (i, 0, b"")
    assert bus.unanswered(packet(BROADCAST, ACTION))  # a broadcast is never answered
    assert [s.goal for s in emu.servos.values()] == [300, 700, 512]
    assert all(s.table[REGISTERED] == 0 for s in emu.servos.values())


def test_overheating_is_reported_in_every_status_with_its_data(bus, emu):
    assert bus.ask(packet(3, WRITE, GOAL, *lo_hi(600))) == (3, 0, b"")
    assert bus.ask(packet(3, WRITE, TEMP_LIMIT, 25)) == (3, E_HEAT, b"")  # 30 deg C > 25
    i, err, data = bus.ask(packet(3, READ, PRESENT_TEMP, 1))
    assert (i, err) == (3, E_HEAT) and data[0] >= 30  # the reading comes with the alarm
    assert bus.ask(packet(3, PING)) == (3, E_HEAT, b"")
    # Alarm Shutdown (36 = overheating | overload) cut the torque
    assert bus.ask(packet(3, READ, TORQUE, 1)) == (3, E_HEAT, b"\x00")
    # a refused write reports both its own bit and the alarm
    assert bus.ask(packet(3, WRITE, GOAL, *lo_hi(1500))) == (3, E_HEAT | E_RANGE, b"")
    assert bus.ask(packet(1, PING)) == (1, 0, b"")  # the other servos are fine
    # the limit back above the temperature: the alarm clears
    assert bus.ask(packet(3, WRITE, TEMP_LIMIT, 70)) == (3, 0, b"")


def test_an_input_voltage_outside_its_limits_is_reported(bus):
    assert bus.ask(packet(2, WRITE, 13, 110)) == (2, E_VOLTAGE, b"")  # 12.0 V > 11.0 V


def test_id_change_and_reset(bus, emu):
    assert bus.ask(packet(3, WRITE, ID, 7)) == (3, 0, b"")
    assert bus.ask(packet(7, PING)) == (7, 0, b"")
    assert bus.unanswered(packet(3, PING))
    assert bus.ask(packet(7, WRITE, RETURN_LEVEL, 1)) == (7, 0, b"")
    assert bus.unanswered(packet(7, WRITE, TORQUE, 0))
    assert bus.unanswered(packet(7, RESET))  # not answered at level 1
    # factory values: id 1 (as the manual says), level 2, torque off
    s = emu.servos[3]
    assert (s.ident, s.return_level, s.torque, s.table[TEMP_LIMIT]) == (1, 2, False, 70)
    assert bus.unanswered(packet(7, PING))


def test_sync_write_writes_each_servo_and_skips_refused_values(bus, emu):
    params = [GOAL, 2, 1, *lo_hi(600), 2, *lo_hi(1500), 3, *lo_hi(400)]
    assert bus.unanswered(packet(BROADCAST, SYNC_WRITE, *params))
    assert [s.goal for s in emu.servos.values()] == [600, 512, 400]
