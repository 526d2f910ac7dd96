"""The simulated servos of the Arbotix emulator: AX-12 control tables and motion.

Units: positions in encoder counts (0..1023 over 300 degrees, 512 = centre), speeds in the
AX-12's units (0..1023, 1 unit = 0.111 rpm, 0 = the largest speed, about 114 rpm), time in
seconds, temperature in degrees C.

Motion of a servo with torque enabled: first order toward the goal ``g`` with time constant
``tau``, its speed limited to the commanded speed ``v``::

    dp/dt = clip((g - p) / tau, -v, v)

solved exactly between two instants (a linear phase at ``v`` while ``|g - p| > v tau``, then an
exponential one). A relaxed servo (torque off) stays where it is.
"""

from __future__ import annotations

import math

from blocksim.hardware import dynamixel as dx

__all__ = [
    "COUNTS_PER_SECOND_PER_UNIT",
    "ITEMS",
    "MAX_SPEED_COUNTS",
    "Servo",
    "WriteRefused",
    "move",
]

#: encoder counts per degree (1024 counts over 300 degrees)
_COUNTS_PER_DEG = 1024.0 / 300.0
#: 1 speed unit = 0.111 rpm = 0.666 deg/s, in encoder counts per second
COUNTS_PER_SECOND_PER_UNIT = 0.111 * 6.0 * _COUNTS_PER_DEG
#: speed 0 ("largest possible") = 114 rpm, in counts per second
MAX_SPEED_COUNTS = 114.0 * 6.0 * _COUNTS_PER_DEG

_AMBIENT = 30.0  # deg C
_THERMAL_TAU = 60.0  # s
#: the items a host may write: address -> (size [bytes], lowest, highest value), from the AX-12
#: manual's control table (the rest are read-only, present values or reserved)
ITEMS: dict[int, tuple[int, int, int]] = {
    3: (1, 0, 252),  # ID
    4: (1, 0, 254),  # baud rate
    5: (1, 0, 254),  # return delay time
    dx.ADDR_CWLIMIT: (2, 0, 1023),
    dx.ADDR_CCWLIMIT: (2, 0, 1023),
    dx.ADDR_TEMP_LIMIT: (1, 0, 150),
    12: (1, 50, 250),  # lowest voltage [0.1 V]
    13: (1, 50, 250),  # highest voltage [0.1 V]
    14: (2, 0, 1023),  # max torque
    dx.ADDR_RETURN_LEVEL: (1, 0, 2),
    dx.ADDR_ALARM_LED: (1, 0, 127),
    dx.ADDR_ALARM_SHUTDOWN: (1, 0, 127),
    dx.ADDR_TORQUE: (1, 0, 1),
    dx.ADDR_LED: (1, 0, 1),
    26: (1, 0, 255),  # CW compliance margin
    27: (1, 0, 255),  # CCW compliance margin
    28: (1, 0, 254),  # CW compliance slope
    29: (1, 0, 254),  # CCW compliance slope
    dx.ADDR_GOAL: (2, 0, 1023),
    dx.ADDR_SPEED: (2, 0, 1023),  # 0..2047 in wheel mode
    34: (2, 0, 1023),  # torque limit
    47: (1, 0, 1),  # lock
    48: (2, 0, 1023),  # punch
}
#: the byte addresses covered by :data:`ITEMS` -> the item's address
_OWNER = {a + k: a for a, (n, _, _) in ITEMS.items() for k in range(n)}
#: what a locked servo (Lock, address 47, = 1) still lets a host write
_UNLOCKED = range(24, 36)


def move(p: float, g: float, vmax: float, tau: float, dt: float) -> float:
    """Position after ``dt`` seconds of ``dp/dt = clip((g - p)/tau, -vmax, vmax)``."""
    e = g - p
    if dt <= 0.0 or e == 0.0:
        return p
    s = 1.0 if e > 0 else -1.0
    a = abs(e)
    knee = vmax * tau
    if a > knee:
        t1 = (a - knee) / vmax
        if dt <= t1:
            return p + s * vmax * dt
        dt -= t1
        a = knee
    return g - s * a * math.exp(-dt / tau)


class WriteRefused(IndexError):
    """A write the servo refuses (nothing is written).

    Attributes
    ----------
    error : int
        The status packet's error bits: :data:`~blocksim.hardware.dynamixel.ERR_RANGE` (an
        address that is not writable, a value outside its item's range) or
        :data:`~blocksim.hardware.dynamixel.ERR_ANGLE_LIMIT` (a goal outside the CW..CCW angle
        limits).
    """

    def __init__(self, addr: int, error: int):
        self.error = error
        super().__init__(f"write at address {addr} refused: {', '.join(dx.error_names(error))}")


def _factory_table(ident: int) -> bytearray:
    """The AX-12's control table as it leaves the factory (id ``ident``)."""
    t = bytearray(50)
    t[0:2] = (12).to_bytes(2, "little")  # model number: AX-12
    t[dx.ADDR_VERSION] = 0x18
    t[3] = ident
    t[4] = 1  # baud 1 Mbps on the bus
    t[dx.ADDR_DELAYTIME] = 250
    t[dx.ADDR_CWLIMIT : dx.ADDR_CWLIMIT + 2] = (0).to_bytes(2, "little")
    t[dx.ADDR_CCWLIMIT : dx.ADDR_CCWLIMIT + 2] = (1023).to_bytes(2, "little")
    t[dx.ADDR_TEMP_LIMIT] = 70
    t[12], t[13] = 60, 140  # operating voltage 6.0 .. 14.0 V
    t[14:16] = (1023).to_bytes(2, "little")  # max torque
    t[dx.ADDR_RETURN_LEVEL] = 2  # answer every instruction
    t[dx.ADDR_ALARM_LED] = 36
    t[dx.ADDR_ALARM_SHUTDOWN] = 36  # overheating and overload cut the torque
    t[26] = t[27] = 1  # compliance margins
    t[28] = t[29] = 32  # compliance slopes
    t[34:36] = (1023).to_bytes(2, "little")  # torque limit
    t[42] = 120  # 12.0 V
    t[48:50] = (32).to_bytes(2, "little")  # punch
    return t


class Servo:
    """One AX-12 servo: a 50-byte control table and its motion.

    Parameters
    ----------
    ident : int
        Bus id, 1..252.
    position : int
        Initial position [counts].
    tau : float
        Time constant of the position loop [s].

    Writes follow the AX-12 manual: a value outside its item's range, or an address that is
    read-only, is refused with the range error; a goal outside the CW..CCW angle limits with
    the angle-limit error (nothing is written). A temperature above the limit (address 11) or a
    voltage outside addresses 12..13 is reported in every status packet (:meth:`alarms`), and
    cuts the torque, for as long as it lasts, when its bit is set in Alarm Shutdown (address
    18). With both angle limits 0 (wheel mode) the goal is not checked and the servo does not
    track it (wheel motion is not emulated).
    """

    def __init__(self, ident: int, position: int = 512, tau: float = 0.03):
        self.table = _factory_table(ident)
        self.tau = float(tau)
        self.p = float(position)
        self.temperature = _AMBIENT
        self.velocity = 0.0  # counts/s, signed
        #: the instruction held by REG_WRITE until ACTION: (address, data), or None
        self.registered: tuple[int, bytes] | None = None
        self.set_word(dx.ADDR_GOAL, int(position))
        self._refresh()

    # ---------------------------------------------------------------- control table
    def word(self, addr: int) -> int:
        """The little-endian word at ``addr``."""
        return self.table[addr] | (self.table[addr + 1] << 8)

    def set_word(self, addr: int, value: int) -> None:
        """Set the word at ``addr`` (no checks: the emulator's own writes)."""
        self.table[addr : addr + 2] = int(value).to_bytes(2, "little")

    @property
    def ident(self) -> int:
        """The servo's bus id (address 3: a host may change it)."""
        return self.table[3]

    @property
    def torque(self) -> bool:
        return bool(self.table[dx.ADDR_TORQUE])

    @property
    def goal(self) -> int:
        return self.word(dx.ADDR_GOAL)

    @property
    def wheel(self) -> bool:
        """Wheel mode: both angle limits 0."""
        return self.word(dx.ADDR_CWLIMIT) == 0 == self.word(dx.ADDR_CCWLIMIT)

    @property
    def return_level(self) -> int:
        """Status Return Level (address 16): 0 answers PING only, 1 PING and READ, 2 all."""
        return self.table[dx.ADDR_RETURN_LEVEL]

    @property
    def speed_counts(self) -> float:
        """The commanded speed limit [counts/s]."""
        v = self.word(dx.ADDR_SPEED) & 0x3FF
        return MAX_SPEED_COUNTS if v == 0 else min(v * COUNTS_PER_SECOND_PER_UNIT, MAX_SPEED_COUNTS)

    def alarms(self) -> int:
        """The condition bits of the status packets: overheating, input voltage."""
        t = self.table
        err = dx.ERR_OVERHEATING if t[dx.ADDR_TEMP] > t[dx.ADDR_TEMP_LIMIT] else 0
        if not t[12] <= t[42] <= t[13]:
            err |= dx.ERR_VOLTAGE
        return err

    def read(self, addr: int, n: int) -> bytes:
        """``n`` bytes of the table from ``addr``; raises IndexError past its end."""
        if addr < 0 or n < 0 or addr + n > len(self.table):
            raise IndexError(addr)
        return bytes(self.table[addr : addr + n])

    def check_write(self, addr: int, data: bytes) -> int:
        """The error bits a write of ``data`` at ``addr`` would get (0: it is accepted)."""
        span = range(addr, addr + len(data))
        if not data or addr < 0 or span.stop > len(self.table):
            return dx.ERR_RANGE
        if any(a not in _OWNER for a in span):
            return dx.ERR_RANGE
        if self.table[47] and any(a not in _UNLOCKED for a in span):
            return dx.ERR_RANGE
        new = bytearray(self.table)
        new[addr : span.stop] = data
        wheel = int.from_bytes(new[6:10], "little") == 0
        for item in sorted({_OWNER[a] for a in span}):
            size, lo, hi = ITEMS[item]
            if item == dx.ADDR_SPEED and wheel:
                hi = 2047
            if not lo <= int.from_bytes(new[item : item + size], "little") <= hi:
                return dx.ERR_RANGE
        if not wheel and (dx.ADDR_GOAL in span or dx.ADDR_GOAL + 1 in span):
            goal = int.from_bytes(new[dx.ADDR_GOAL : dx.ADDR_GOAL + 2], "little")
            cw = int.from_bytes(new[6:8], "little")
            ccw = int.from_bytes(new[8:10], "little")
            if not cw <= goal <= ccw:
                return dx.ERR_ANGLE_LIMIT
        return 0

    def write(self, addr: int, data: bytes) -> None:
        """Write ``data`` at ``addr``; raises :class:`WriteRefused` (nothing written) when
        :meth:`check_write` finds an error."""
        data = bytes(data)
        err = self.check_write(addr, data)
        if err:
            raise WriteRefused(addr, err)
        span = range(addr, addr + len(data))
        self.table[addr : span.stop] = data
        if dx.ADDR_TORQUE in span and not self.table[dx.ADDR_TORQUE]:
            self.velocity = 0.0
        if dx.ADDR_GOAL in span or dx.ADDR_GOAL + 1 in span:
            self.table[dx.ADDR_TORQUE] = 1  # writing a goal enables torque (as on an AX-12)
        if self.alarms() & self.table[dx.ADDR_ALARM_SHUTDOWN]:
            self.table[dx.ADDR_TORQUE] = 0  # shut down: no torque while the alarm lasts

    def reg_write(self, addr: int, data: bytes) -> int:
        """REG_WRITE: hold the write until :meth:`action`; return its error bits (a refused
        write is not held)."""
        err = self.check_write(addr, bytes(data))
        if not err:
            self.registered = (addr, bytes(data))
            self.table[dx.ADDR_REGISTERED] = 1
        return err

    def action(self) -> int:
        """ACTION: carry out the registered write; the instruction error when there is none."""
        if self.registered is None:
            return dx.ERR_INSTRUCTION
        (addr, data), self.registered = self.registered, None
        self.table[dx.ADDR_REGISTERED] = 0
        try:
            self.write(addr, data)
        except WriteRefused as exc:  # the limits changed since REG_WRITE
            return exc.error
        return 0

    def reset(self) -> None:
        """RESET: the factory control table (id 1, as the manual says); the servo stays where
        it is, relaxed."""
        self.table = _factory_table(1)
        self.registered = None
        self.velocity = 0.0
        self.set_word(dx.ADDR_GOAL, min(1023, max(0, round(self.p))))
        self._refresh()

    # ---------------------------------------------------------------- motion
    def advance(self, dt: float, goal: float | None = None) -> None:
        """Move for ``dt`` seconds toward ``goal`` (default the table's goal)."""
        if dt <= 0:
            return
        p0 = self.p
        if self.torque and not self.wheel:
            self.p = move(
                self.p, float(self.goal if goal is None else goal), self.speed_counts, self.tau, dt
            )
        self.velocity = (self.p - p0) / dt
        hot = (
            _AMBIENT
            + (4.0 if self.torque else 0.0)
            + 10.0 * min(1.0, abs(self.velocity) / MAX_SPEED_COUNTS)
        )
        self.temperature = hot + (self.temperature - hot) * math.exp(-dt / _THERMAL_TAU)
        self._refresh()

    def _refresh(self) -> None:
        """Write the present values (position, speed, temperature, moving) to the table."""
        t = self.table
        pos = min(1023, max(0, round(self.p)))
        self.set_word(dx.ADDR_POS, pos)
        v = round(abs(self.velocity) / COUNTS_PER_SECOND_PER_UNIT)
        self.set_word(38, min(v, 1023) | (0x400 if self.velocity < 0 else 0))
        t[dx.ADDR_TEMP] = round(self.temperature)
        if self.alarms() & t[dx.ADDR_ALARM_SHUTDOWN]:
            t[dx.ADDR_TORQUE] = 0  # Alarm Shutdown: the torque is cut
        t[46] = 1 if abs(self.goal - self.p) > 1.0 and self.torque else 0
