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

__all__ = ["COUNTS_PER_SECOND_PER_UNIT", "MAX_SPEED_COUNTS", "Servo", "move"]

#: encoder counts per degree (1024 counts over 300 degrees)
_COUNTS_PER_DEG = 1024.0 / 300.0
#: 1 speed unit = 0.111 rpm = 0.666 deg/s, in encoder counts per second
COUNTS_PER_SECOND_PER_UNIT = 0.111 * 6.0 * _COUNTS_PER_DEG
#: speed 0 ("largest possible") = 114 rpm, in counts per second
MAX_SPEED_COUNTS = 114.0 * 6.0 * _COUNTS_PER_DEG

_AMBIENT = 30.0  # deg C
_THERMAL_TAU = 60.0  # s
#: control-table addresses a host may write (the rest are read-only or present values)
_WRITABLE = frozenset([*range(3, 36), 44, 47, 48, 49])


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
    """

    def __init__(self, ident: int, position: int = 512, tau: float = 0.03):
        self.table = bytearray(50)
        t = self.table
        t[0:2] = (12).to_bytes(2, "little")  # model number: AX-12
        t[dx.ADDR_VERSION] = 0x18
        t[3] = ident
        t[4] = 1  # baud 1 Mbps on the bus
        t[dx.ADDR_DELAYTIME] = 250
        t[dx.ADDR_CWLIMIT : dx.ADDR_CWLIMIT + 2] = (0).to_bytes(2, "little")
        t[dx.ADDR_CCWLIMIT : dx.ADDR_CCWLIMIT + 2] = (1023).to_bytes(2, "little")
        t[11] = 70  # highest temperature limit
        t[14:16] = (1023).to_bytes(2, "little")  # max torque
        t[dx.ADDR_ALARM_LED] = 36
        t[dx.ADDR_ALARM_SHUTDOWN] = 36
        t[34:36] = (1023).to_bytes(2, "little")  # torque limit
        t[42] = 120  # 12.0 V
        self.tau = float(tau)
        self.p = float(position)
        self.temperature = _AMBIENT
        self.velocity = 0.0  # counts/s, signed
        self.set_word(dx.ADDR_GOAL, int(position))
        self._refresh()

    # ---------------------------------------------------------------- control table
    def word(self, addr: int) -> int:
        return self.table[addr] | (self.table[addr + 1] << 8)

    def set_word(self, addr: int, value: int) -> None:
        self.table[addr : addr + 2] = int(value).to_bytes(2, "little")

    @property
    def torque(self) -> bool:
        return bool(self.table[dx.ADDR_TORQUE])

    @property
    def goal(self) -> int:
        return self.word(dx.ADDR_GOAL)

    @property
    def speed_counts(self) -> float:
        """The commanded speed limit [counts/s]."""
        v = self.word(dx.ADDR_SPEED) & 0x3FF
        return MAX_SPEED_COUNTS if v == 0 else min(v * COUNTS_PER_SECOND_PER_UNIT, MAX_SPEED_COUNTS)

    def read(self, addr: int, n: int) -> bytes:
        """``n`` bytes of the table from ``addr``; raises IndexError past its end."""
        if addr < 0 or n < 0 or addr + n > len(self.table):
            raise IndexError(addr)
        return bytes(self.table[addr : addr + n])

    def write(self, addr: int, data: bytes) -> None:
        """Write ``data`` at ``addr`` (read-only and present-value bytes are refused)."""
        span = range(addr, addr + len(data))
        if addr < 0 or addr + len(data) > len(self.table) or not set(span) <= _WRITABLE:
            raise IndexError(addr)
        self.table[addr : addr + len(data)] = data
        if self.word(dx.ADDR_GOAL) > 1023:
            self.set_word(dx.ADDR_GOAL, 1023)
        if dx.ADDR_TORQUE in range(addr, addr + len(data)) and not self.table[dx.ADDR_TORQUE]:
            self.velocity = 0.0
        if any(a in range(addr, addr + len(data)) for a in (dx.ADDR_GOAL, dx.ADDR_GOAL + 1)):
            self.table[dx.ADDR_TORQUE] = 1  # writing a goal enables torque (as on an AX-12)

    # ---------------------------------------------------------------- motion
    def advance(self, dt: float, goal: float | None = None) -> None:
        """Move for ``dt`` seconds toward ``goal`` (default the table's goal)."""
        if dt <= 0:
            return
        p0 = self.p
        if self.torque:
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
        t[46] = 1 if abs(self.goal - self.p) > 1.0 and self.torque else 0
