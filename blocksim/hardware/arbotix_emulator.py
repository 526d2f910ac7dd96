"""An Arbotix controller (pypose sketch) with N AX-12 servos, served on a pseudo-terminal.

:class:`ArbotixEmulator` opens a pseudo-terminal pair, answers on the master side the Dynamixel
1.0 packets the Arbotix answers (PING, READ_DATA, WRITE_DATA, REG_WRITE, ACTION, RESET and
SYNC_WRITE to servos 1..N; the pypose pose and sequence instructions to id 253), and gives
the slave's device path (``/dev/pts/N``) to whoever wants to talk to it: the
:class:`~blocksim.hardware.arbotix.Arbotix` driver opens it with pyserial exactly as it opens a
USB serial adapter. Servo motion, temperature, LEDs, torque
enable and pose sequences are simulated (:mod:`blocksim.hardware.servo_model`).

The servos answer as the AX-12 manual says: an instruction packet with a wrong checksum is
answered with the checksum error bit (and not carried out); a goal outside the CW..CCW angle
limits with the angle-limit bit, a value outside its item's range (a goal of 1500) or a
read-only address with the range bit (nothing written); an unknown instruction, or ACTION with
nothing registered, with the instruction bit. Overheating and input-voltage conditions are
reported in every status packet. Status Return Level (address 16) decides which instructions
are answered: 0 PING only, 1 PING and READ_DATA, 2 all (the level in force when the
instruction arrives: the write that lowers it is still answered); broadcasts are never
answered.
REG_WRITE holds a write (Registered, address 44, reads 1) until ACTION carries it out.

Time: by default the servos move in wall-clock time. With ``packet_time`` set, the emulated time
advances by that many seconds at every packet received instead (a deterministic device: the same
packets always give the same answers, whatever the host's speed).

Faults (:meth:`ArbotixEmulator.inject`) affect the next replies: ``"drop"`` (no reply),
``"corrupt"`` (wrong checksum), ``"late"`` (the reply is sent after ``delay`` seconds),
``"garbage"`` (noise instead of the reply), ``"unplug"`` (the device disappears: the
pseudo-terminal is closed, as when a USB adapter is pulled out) and ``"garble"`` (the next
instruction packet to a servo arrives with a wrong checksum, as after noise on the line: the
servo answers with the checksum error bit and does not carry it out).

Run one from a shell with ``blocksim hw arbotix-emulator``.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import select
import threading
import time
import tty
from collections.abc import Sequence

from blocksim._messages import plain
from blocksim.hardware import dynamixel as dx
from blocksim.hardware.servo_model import Servo, WriteRefused

__all__ = ["FAULTS", "ArbotixEmulator"]

#: the faults :meth:`ArbotixEmulator.inject` knows
FAULTS = ("drop", "corrupt", "late", "garbage", "unplug", "garble")
#: how many of the last packets received are kept for inspection (``received``)
KEEP = 100_000
_GARBAGE = b"\x00\x13\x37noise\xfe\xff\x01"
_ERR_RANGE = dx.ERR_RANGE
_ERR_INSTRUCTION = dx.ERR_INSTRUCTION
_SEQ_FRAME = 1.0 / 30.0  # pypose interpolates at 30 Hz


class ArbotixEmulator:
    """An emulated Arbotix board with ``nservos`` servos on a pseudo-terminal.

    Parameters
    ----------
    nservos : int
        Number of servos, ids 1..nservos.
    positions : sequence of int, optional
        Initial positions [encoder counts 0..1023], default 512 (centre) each.
    packet_time : float, optional
        Emulated seconds per packet received (deterministic time); None (default): wall clock.
    tau : float
        Servo position-loop time constant [s].

    Use as a context manager, or call :meth:`start` and :meth:`close`. :attr:`path` is the device
    to open (valid after :meth:`start`).
    """

    def __init__(
        self,
        nservos: int = 5,
        positions: Sequence[int] | None = None,
        packet_time: float | None = None,
        tau: float = 0.03,
    ):
        if isinstance(nservos, bool) or not isinstance(nservos, int) or not 1 <= nservos <= 252:
            raise ValueError(f"ArbotixEmulator: nservos must be an int 1..252, got "
                             f"{plain(nservos)}")
        if positions is None:
            positions = [512] * nservos
        if len(positions) != nservos:
            raise ValueError(f"ArbotixEmulator: {len(positions)} positions for {nservos} servos")
        if packet_time is not None and not packet_time > 0:
            raise ValueError(f"ArbotixEmulator: packet_time must be > 0 s, got "
                             f"{plain(packet_time)}")
        self.nservos = nservos
        self.servos = {i + 1: Servo(i + 1, int(p), tau) for i, p in enumerate(positions)}
        self.packet_time = packet_time
        self.lock = threading.RLock()
        #: the packets received, in order (the last ``KEEP`` to ``2 * KEEP``: an emulator that
        #: runs for hours does not grow without bound)
        self.received: list[bytes] = []
        self.pose_size = 0
        self.poses: dict[int, list[int]] = {}
        self.sequence: list[tuple[int, int]] = []  # (pose index, duration ms)
        self._playing: tuple[float, list[float], bool] | None = None  # start, from, loop
        self._faults: list[tuple[str, float]] = []
        self._master = self._slave = -1
        self._path = ""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._t = 0.0  # emulated time of the servos' state [s]
        self._wall0 = 0.0
        self._npackets = 0

    # ---------------------------------------------------------------- lifecycle
    @property
    def path(self) -> str:
        """Device path of the emulated serial port (``/dev/pts/N``)."""
        if not self._path:
            raise RuntimeError("ArbotixEmulator: not started (call start() first)")
        return self._path

    @property
    def running(self) -> bool:
        """Whether the device is served (False after :meth:`close` or an ``unplug`` fault)."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> ArbotixEmulator:
        """Open the pseudo-terminal and serve it from a background thread; return self."""
        if self._thread is not None:
            raise RuntimeError("ArbotixEmulator: already started")
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line editing: a byte pipe like a USB adapter
        self._path = os.ttyname(self._slave)
        self._wall0 = time.monotonic()
        self._thread = threading.Thread(
            target=self._serve, name=f"arbotix-emulator {self._path}", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and close the pseudo-terminal (idempotent)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._close_fds()

    def _close_fds(self) -> None:
        for name in ("_master", "_slave"):
            fd = getattr(self, name)
            if fd >= 0:
                setattr(self, name, -1)
                try:
                    os.close(fd)
                except OSError:
                    pass

    def __enter__(self) -> ArbotixEmulator:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- faults and inspection
    def inject(self, fault: str, count: int = 1, delay: float = 0.0, after: int = 0) -> None:
        """Make ``count`` replies in a row faulty, after ``after`` good ones.

        Parameters
        ----------
        fault : {"drop", "corrupt", "late", "garbage", "unplug", "garble"}
            What happens to the reply (see the module docstring).
        count : int
            How many replies in a row.
        delay : float
            For ``"late"``: how long the reply is held back [s].
        after : int
            Replies answered normally first (a fault mid-run, at a known exchange).
        """
        if fault not in FAULTS:
            raise ValueError(
                f"ArbotixEmulator.inject: unknown fault {fault!r}; choose one of "
                f"{', '.join(FAULTS)}"
            )
        with self.lock:
            self._faults.extend([("ok", 0.0)] * int(after) + [(fault, float(delay))] * int(count))

    def positions(self) -> list[int]:
        """Present positions of servos 1..N [counts], brought up to the current time."""
        with self.lock:
            if self.packet_time is None:
                self._advance_to(time.monotonic() - self._wall0)
            return [s.word(dx.ADDR_POS) for s in self.servos.values()]

    @property
    def time(self) -> float:
        """The emulated time [s] of the servos' state."""
        return self._t

    # ---------------------------------------------------------------- serving
    def _serve(self) -> None:
        parser = dx.StreamParser(strict=False)  # a bad checksum is answered, not skipped
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._master], [], [], 0.02)
            except (OSError, ValueError):
                break
            if not ready:
                continue
            try:
                data = os.read(self._master, 4096)
            except OSError as exc:
                if exc.errno == errno.EIO:  # no one has the slave open: wait
                    time.sleep(0.01)
                    continue
                break
            for p in parser.feed(data):
                if not self._answer(p):
                    self._close_fds()
                    return
        self._close_fds()

    def _answer(self, packet: dx.Packet) -> bool:
        """Handle one instruction packet; return False when the device has been unplugged."""
        with self.lock:
            self.received.append(packet.raw)
            if len(self.received) > 2 * KEEP:
                del self.received[:-KEEP]
            self._npackets += 1
            now = (
                self._npackets * self.packet_time
                if self.packet_time is not None
                else time.monotonic() - self._wall0
            )
            self._advance_to(now)
            garble = bool(self._faults) and self._faults[0][0] == "garble"
            if garble and packet.id < dx.ID_CONTROLLER:
                self._faults.pop(0)
                packet = dataclasses.replace(packet, valid=False)
            reply = self._execute(packet)
            fault = self._faults.pop(0) if (reply and self._faults and not garble) else None
        if fault is None:
            self._write(reply)
            return True
        kind, delay = fault
        if kind == "ok":
            self._write(reply)
            return True
        if kind == "unplug":
            return False
        if kind == "drop":
            return True
        if kind == "corrupt":
            reply = reply[:-1] + bytes([reply[-1] ^ 0x5A])
        elif kind == "garbage":
            reply = _GARBAGE
        elif kind == "late":
            self._stop.wait(delay)
        self._write(reply)
        return True

    def _write(self, data: bytes) -> None:
        if data and self._master >= 0:
            try:
                os.write(self._master, data)
            except OSError:
                pass

    # ---------------------------------------------------------------- the device
    def _on_bus(self, ident: int) -> list[Servo]:
        """The servos answering to ``ident`` (their id is address 3: a host may change it)."""
        if ident == dx.ID_BROADCAST:
            return list(self.servos.values())
        return [s for s in self.servos.values() if s.ident == ident]

    def _execute(self, p: dx.Packet) -> bytes:
        """The reply to instruction packet ``p`` (b"" for none)."""
        if p.id == dx.ID_CONTROLLER:
            if not p.valid:
                return dx.status_packet(dx.ID_CONTROLLER, dx.ERR_CHECKSUM)
            return self._controller(p)
        targets = self._on_bus(p.id)
        if not targets:
            return b""  # no such servo on the bus: silence
        if not p.valid:
            err, params = dx.ERR_CHECKSUM, b""  # the packet is not carried out
        elif p.id == dx.ID_BROADCAST and p.code == dx.INS_SYNC_WRITE:
            self._sync_write(p.params)
            return b""
        servo = targets[0]
        level = servo.return_level  # the level in force when the instruction arrived
        if p.valid:
            err, params = 0, b""
            for s in targets:
                e, params = self._servo(s, p)
                err |= e
        if p.id == dx.ID_BROADCAST:
            return b""
        answers = p.code == dx.INS_PING or level >= 2 or (level == 1 and p.code == dx.INS_READ_DATA)
        if not answers:
            return b""  # Status Return Level
        return dx.status_packet(p.id, err | servo.alarms(), params)

    def _servo(self, s: Servo, p: dx.Packet) -> tuple[int, bytes]:
        """Carry out instruction ``p`` on servo ``s``: (error bits, reply parameters)."""
        ps = p.params
        if p.code == dx.INS_PING and not ps:
            return 0, b""
        if p.code == dx.INS_READ_DATA and len(ps) == 2:
            try:
                return 0, s.read(ps[0], ps[1])
            except IndexError:
                return _ERR_RANGE, b""
        if p.code == dx.INS_WRITE_DATA and len(ps) >= 2:
            try:
                s.write(ps[0], ps[1:])
            except WriteRefused as exc:
                return exc.error, b""
            self._playing = None  # a host write takes the servos back from a sequence
            return 0, b""
        if p.code == dx.INS_REG_WRITE and len(ps) >= 2:
            return s.reg_write(ps[0], ps[1:]), b""
        if p.code == dx.INS_ACTION and not ps:
            err = s.action()
            if not err:
                self._playing = None
            return err, b""
        if p.code == dx.INS_RESET and not ps:
            s.reset()
            return 0, b""
        return _ERR_INSTRUCTION, b""

    def _sync_write(self, ps: bytes) -> None:
        """SYNC_WRITE: ``addr, L, (id, L bytes)...``; unknown ids and bad sizes are ignored
        (there is no status packet to report them)."""
        if len(ps) < 2 or ps[1] == 0 or (len(ps) - 2) % (ps[1] + 1):
            return
        addr, n = ps[0], ps[1]
        self._playing = None
        for k in range(2, len(ps), n + 1):
            for servo in self._on_bus(ps[k]) if ps[k] != dx.ID_BROADCAST else []:
                try:
                    servo.write(addr, ps[k + 1 : k + 1 + n])
                except WriteRefused:
                    pass

    def _controller(self, p: dx.Packet) -> bytes:
        """pypose's instructions to the board itself (id 253)."""
        err, text = 0, b""
        ps = p.params
        if p.code == dx.INS_ARB_SIZE_POSE and len(ps) == 1:
            self.pose_size = ps[0]
        elif p.code == dx.INS_ARB_LOAD_POSE and len(ps) == 1 + 2 * self.pose_size:
            self.poses[ps[0]] = [
                ps[1 + 2 * k] | (ps[2 + 2 * k] << 8) for k in range(self.pose_size)
            ]
        elif p.code == dx.INS_ARB_LOAD_SEQ and len(ps) % 3 == 0:
            seq = []
            for k in range(0, len(ps), 3):
                if ps[k] == 255:
                    break
                seq.append((ps[k], ps[k + 1] | (ps[k + 2] << 8)))
            if any(i not in self.poses for i, _ in seq):
                err = _ERR_RANGE
            else:
                self.sequence = seq
        elif p.code in (dx.INS_ARB_PLAY_SEQ, dx.INS_ARB_LOOP_SEQ) and not ps:
            if self.sequence:
                start = [s.p for s in self.servos.values()]
                for s in self.servos.values():
                    s.table[dx.ADDR_TORQUE] = 1
                self._playing = (self._t, start, p.code == dx.INS_ARB_LOOP_SEQ)
            else:
                err = _ERR_RANGE
        elif p.code == dx.INS_SYNC_READ and len(ps) >= 3:
            try:
                data = b"".join(self._on_bus(i)[0].read(ps[0], ps[1]) for i in ps[2:])
            except IndexError:
                err = _ERR_RANGE
            else:
                return dx.status_packet(dx.ID_CONTROLLER, 0, data)
        elif p.code == dx.INS_ARB_TEST:
            text = "".join(
                f"servo {i}: {s.word(dx.ADDR_POS)}\r\n" for i, s in self.servos.items()
            ).encode("ascii")
        elif p.code == dx.INS_PING:
            pass
        else:
            err = _ERR_INSTRUCTION
        return text + dx.status_packet(dx.ID_CONTROLLER, err)

    def _sequence_goal(self, t: float) -> list[float] | None:
        """Goals [counts] of the playing sequence at time t (linear interpolation between
        poses, from the positions at play), or None when no sequence plays."""
        if self._playing is None:
            return None
        t0, start, loop = self._playing
        total = sum(ms for _, ms in self.sequence) / 1000.0
        tau = t - t0
        if loop and total > 0:
            tau %= total
        prev = start
        for idx, ms in self.sequence:
            pose = self.poses[idx]
            d = ms / 1000.0
            if tau < d:
                f = tau / d
                return [a + (b - a) * f for a, b in zip(prev, pose)]
            tau -= d
            prev = pose
        self._playing = None
        last = [float(v) for v in prev]
        for s, g in zip(self.servos.values(), last):
            s.set_word(dx.ADDR_GOAL, round(g))
        return None

    def _advance_to(self, t: float) -> None:
        """Bring every servo to time ``t``."""
        while t > self._t:
            dt = min(t - self._t, _SEQ_FRAME) if self._playing is not None else t - self._t
            goals = self._sequence_goal(self._t + dt)
            for k, s in enumerate(self.servos.values()):
                if goals is not None and k < len(goals):
                    s.set_word(dx.ADDR_GOAL, min(1023, max(0, round(goals[k]))))
                s.advance(dt)
            self._t += dt
