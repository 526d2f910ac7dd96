"""Driver of an Arbotix servo controller running the pypose sketch (RTB's ``Arbotix``).

Servo ids and units, once for every method (RTB's ``Arbotix`` documentation says "0 to N-1" for some
methods and "1 to N" for others; the bus uses 1 to N, and so does this driver):

* ``id`` is the servo's id on the Dynamixel bus, **1..nservos**; ``id=None`` means every servo,
  and then values are arrays of shape (nservos,) whose element ``j`` is servo ``j + 1``;
* angles are in **radians**, 0 at the encoder centre (512), through :meth:`Arbotix.a2e` /
  :meth:`Arbotix.e2a` with the constructor's ``counts_per_rad`` and ``centre`` (defaults: the
  AX-12's 1024 counts over 300 degrees, i.e. +-150 deg <-> 0..1023);
* speeds are the servo's raw units 0..1023 (0 = the largest speed; 1 unit = 0.111 rpm);
* temperatures in degrees C; raw control-table bytes 0..255 and words 0..65535.

Every instruction to a servo or to the board elicits one status packet; :meth:`Arbotix.command`
flushes stale input, sends, waits for the status packet of the addressed id (verifying its
checksum) and retries a bounded number of times: a silent or garbled device ends in a
:class:`~blocksim.hardware.errors.DeviceTimeout` after at most ``(retries + 1) * timeout``
seconds, naming the port and the last exchange.

The status packet's error byte (the AX-12 manual's bits, :data:`~blocksim.hardware.dynamixel.
ERROR_BITS`) is read in two halves:

* the bits that mean the instruction was refused (angle limit, range, instruction) raise
  :class:`ServoError`, naming the servo, the bits and what they mean; the checksum bit (the
  servo received a garbled instruction) is retried like a garbled reply;
* the alarm bits (overheating, input voltage, overload) report the servo's condition while the
  instruction was carried out: the data that came with them is returned, the bits are kept in
  :attr:`Arbotix.alarms` (the last status of each servo) and :attr:`Arbotix.alarms_seen` (every
  alarm seen), and a :class:`ServoAlarm` warning is issued once per servo and alarm.

The bytes go through a *transport* (``write``, ``read(n)``, ``drain``, ``close``):
:class:`SerialTransport` over pyserial by default, or a recording/replay transport
(:mod:`blocksim.hardware.recording`).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim._messages import plain
from blocksim.hardware import dynamixel as dx
from blocksim.hardware.errors import DeviceTimeout, HardwareError
from blocksim.hardware.machine import Machine
from blocksim.hardware.serial_transport import POLL as _POLL
from blocksim.hardware.serial_transport import SerialTransport

__all__ = ["COUNTS_PER_RAD", "Arbotix", "SerialTransport", "ServoAlarm", "ServoError"]

#: encoder counts per radian of an AX-12: 512 counts for 150 degrees
COUNTS_PER_RAD = 512.0 / (150.0 * math.pi / 180.0)
#: most points a pypose sequence holds
MAX_PATH_POINTS = 30
_error_text = dx.error_text
_meaning = dx.error_meaning


class ServoError(HardwareError):
    """A servo refused an instruction (its status packet's angle-limit, range or instruction
    bit).

    Attributes
    ----------
    servo : int
        The servo's id.
    error : int
        The status packet's error byte.
    """

    def __init__(self, device: str, servo: int, error: int, last_exchange: str = ""):
        self.servo = servo
        self.error = error
        super().__init__(
            device, f"servo {servo} reports {_error_text(error)}: {_meaning(error)}", last_exchange
        )


class ServoAlarm(RuntimeWarning):
    """A servo reports an alarm (overheating, input voltage, overload) with its data: issued
    once per driver, servo and alarm; :attr:`Arbotix.alarms` keeps the bits."""


class Arbotix(Machine):
    """A chain of servos behind an Arbotix controller, over a serial port.

    Parameters
    ----------
    port : str, optional
        Serial device (e.g. ``/dev/ttyUSB0``); not needed when ``transport`` is given.
    nservos : int
        Number of servos, ids 1..nservos.
    baud : int
        Baud rate (default 38400, the pypose sketch's).
    debug : int
        0 silent; >= 1 prints every packet and the board's diagnostic text.
    timeout : float
        How long to wait for one status packet [s].
    retries : int
        How many times an unanswered (or garbled) instruction is sent again.
    counts_per_rad, centre : float
        Encoder scale [counts/rad] and the count at 0 rad (RTB's constant a2e/e2a, made
        parameters).
    gripper : (float, float)
        Gripper servo angles [rad] when closed and open (RTB: [0, 2.6]).
    transport : object, optional
        Anything with ``write``, ``read(n)``, ``drain`` and ``close`` (see the module
        docstring); by default a :class:`SerialTransport` opened on ``port``.
    settle : float
        Seconds to wait after opening the port before talking (RTB waits 0.5 s: an Arbotix
        restarts when the port opens and toggles DTR); 0 for the emulator.
    connect : bool
        Open the connection now (default) or wait for :meth:`connect`.
    """

    INS_READ_DATA = dx.INS_READ_DATA
    INS_WRITE_DATA = dx.INS_WRITE_DATA
    INS_ARB_SIZE_POSE = dx.INS_ARB_SIZE_POSE
    INS_ARB_LOAD_POSE = dx.INS_ARB_LOAD_POSE
    INS_ARB_LOAD_SEQ = dx.INS_ARB_LOAD_SEQ
    INS_ARB_PLAY_SEQ = dx.INS_ARB_PLAY_SEQ
    INS_ARB_LOOP_SEQ = dx.INS_ARB_LOOP_SEQ
    INS_ARB_TEST = dx.INS_ARB_TEST

    def __init__(
        self,
        port: str | None = None,
        *,
        nservos: int,
        baud: int = 38400,
        debug: int = 0,
        timeout: float = 0.2,
        retries: int = 2,
        counts_per_rad: float = COUNTS_PER_RAD,
        centre: float = 512.0,
        gripper: Sequence[float] = (0.0, 2.6),
        transport: Any = None,
        settle: float = 0.0,
        connect: bool = True,
    ):
        if (
            isinstance(nservos, bool)
            or not isinstance(nservos, (int, np.integer))
            or not (1 <= nservos <= 252)
        ):
            raise ValueError(f"Arbotix: nservos must be an int 1..252, got {plain(nservos)}")
        if port is None and transport is None:
            raise ValueError(
                "Arbotix: give the serial `port` (e.g. '/dev/ttyUSB0') or a `transport`"
            )
        if not timeout > 0 or not math.isfinite(timeout):
            raise ValueError(
                f"Arbotix: timeout must be a positive number of seconds, got {plain(timeout)}"
            )
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"Arbotix: retries must be an int >= 0, got {plain(retries)}")
        if not counts_per_rad > 0:
            raise ValueError(f"Arbotix: counts_per_rad must be > 0, got {plain(counts_per_rad)}")
        self.port = port
        self.nservos = int(nservos)
        self.baud = int(baud)
        self.debug = int(debug)
        self.timeout = float(timeout)
        self.retries = retries
        self.counts_per_rad = float(counts_per_rad)
        self.centre = float(centre)
        self.gripper = (float(gripper[0]), float(gripper[1]))
        self.transport = transport
        self._own_transport = transport is None
        self._parser = dx.StreamParser()
        self.text = ""  #: diagnostic text received from the board (last command)
        self.last_sent = b""
        self.last_received = b""
        self.nexchanges = 0
        #: servo id -> the alarm bits (overheating, input voltage, overload) of its last status
        self.alarms: dict[int, int] = {}
        #: servo id -> every alarm bit it has reported since the driver was made
        self.alarms_seen: dict[int, int] = {}
        #: who uses the driver, for the alarm warnings (a block names itself here)
        self.label = ""
        if not (isinstance(settle, (int, float)) and 0 <= settle <= 10):
            raise ValueError(f"Arbotix: settle must be 0..10 s, got {plain(settle)}")
        self.settle = float(settle)
        if connect:
            self.connect()

    # ---------------------------------------------------------------- connection
    @property
    def device(self) -> str:
        """The device's name for messages (port path, or the transport's name)."""
        return str(self.port or getattr(self.transport, "name", "arbotix"))

    @property
    def connected(self) -> bool:
        return self.transport is not None and bool(getattr(self.transport, "is_open", True))

    def connect(self) -> None:
        """Open the serial port (exclusively) and discard any stale input."""
        if self.transport is None or (self._own_transport and not self.connected):
            self.transport = SerialTransport(self.port, self.baud)  # type: ignore[arg-type]
            self._own_transport = True
            if self.settle:
                time.sleep(self.settle)
        self.flush()

    def disconnect(self) -> None:
        """Close the port (idempotent)."""
        t = self.transport
        if t is not None:
            try:
                t.close()
            except Exception:
                pass

    def __del__(self) -> None:
        if getattr(self, "_own_transport", False):
            self.disconnect()

    def __repr__(self) -> str:
        state = "connected" if self.connected else "closed"
        return f"Arbotix({plain(self.device)}, nservos={self.nservos}, baud={self.baud}, {state})"

    char = __repr__

    def display(self) -> None:
        """Print :meth:`char`."""
        print(self.char())

    # ---------------------------------------------------------------- unit conversion
    def a2e(self, a: Any) -> Any:
        """Joint angle [rad] -> encoder value [counts] (float; rounded when sent)."""
        return (
            np.asarray(a, dtype=float) * self.counts_per_rad + self.centre
            if np.ndim(a)
            else float(a) * self.counts_per_rad + self.centre
        )

    def e2a(self, e: Any) -> Any:
        """Encoder value [counts] -> joint angle [rad]."""
        return (
            (np.asarray(e, dtype=float) - self.centre) / self.counts_per_rad
            if np.ndim(e)
            else (float(e) - self.centre) / self.counts_per_rad
        )

    def _counts(self, a: float, what: str) -> int:
        e = round(self.a2e(float(a)))
        if not 0 <= e <= 1023:
            raise ValueError(
                f"{self.device}: {what} = {float(a):.4g} rad is outside the "
                f"servo's range ({self.e2a(0):.4g} .. {self.e2a(1023):.4g} rad)"
            )
        return e

    def _ids(self, id: int | None) -> list[int]:
        if id is None:
            return list(range(1, self.nservos + 1))
        if (
            isinstance(id, bool)
            or not isinstance(id, (int, np.integer))
            or not (1 <= id <= self.nservos)
        ):
            raise ValueError(
                f"{self.device}: servo id must be 1..{self.nservos} (or None for all), got "
                f"{plain(id)}"
            )
        return [int(id)]

    # ---------------------------------------------------------------- packets
    def exchange_text(self) -> str:
        """The last exchange, for messages: ``sent FF FF ..., received ...``."""
        got = dx.hexs(self.last_received) if self.last_received else "nothing"
        return f"sent {dx.hexs(self.last_sent) or 'nothing'}, received {got}"

    def flush(self) -> bytes:
        """Discard (and return) the bytes waiting in the input buffer."""
        self._parser.reset()
        return self.transport.drain() if self.transport is not None else b""

    def parse(self, s: bytes) -> tuple[list[dx.Packet], str]:
        """Split ``s`` into status packets and diagnostic text (printed when debugging)."""
        parser = dx.StreamParser()
        packets = parser.feed(bytes(s))
        text = parser.take_text()
        if text and self.debug:
            print(text, end="")
        return packets, text

    def command(
        self,
        id: int,
        instruc: int,
        data: Sequence[int] = (),
        *,
        reply: bool = True,
        nparams: int = 0,
    ) -> dx.Packet | None:
        """Send instruction ``instruc`` with ``data`` (bytes 0..255) to servo ``id`` (1..N,
        253 the board, 254 every servo) and return its status packet.

        Input is flushed first. Unanswered or garbled instructions are sent again up to
        ``retries`` times. ``nparams`` is the number of parameters the status packet should
        carry. Broadcasts (id 254) and ``reply=False`` return None without waiting.

        A status packet with alarm bits (overheating, input voltage, overload) is returned
        with its data; the bits go to :attr:`alarms` and a :class:`ServoAlarm` warning (once
        per servo and alarm). The checksum bit (the servo got a garbled packet) is retried.

        Raises
        ------
        DeviceTimeout
            No valid status packet after every retry (names the port and last exchange).
        ServoError
            The servo refused the instruction (angle-limit, range or instruction bit).
        HardwareError
            The device is gone, or the board reports an error.
        """
        packet = dx.instruction_packet(id, instruc, data)
        want = reply and id != dx.ID_BROADCAST
        problem = ""
        for _attempt in range(self.retries + 1 if want else 1):
            self.flush()
            self._send(packet)
            if not want:
                return None
            try:
                status = self.receive(id, nparams)
            except DeviceTimeout as exc:
                problem = exc.problem
                continue
            except dx.ChecksumError as exc:
                self.last_received = exc.raw
                problem = str(exc)
                continue
            if status.error & dx.ERR_CHECKSUM:  # our packet arrived garbled: send it again
                problem = f"servo {id} reports {_error_text(status.error)}"
                continue
            if id not in (dx.ID_CONTROLLER, dx.ID_BROADCAST):
                self._alarm(id, status.error & dx.ALARMS)
            if status.error & ~dx.ALARMS:
                if id == dx.ID_CONTROLLER:
                    raise HardwareError(
                        self.device,
                        f"the board reports {_error_text(status.error)}",
                        self.exchange_text(),
                    )
                raise ServoError(self.device, id, status.error, self.exchange_text())
            if len(status.params) != nparams:
                problem = (
                    f"a status packet with {len(status.params)} parameters, expected {nparams}"
                )
                continue
            return status
        raise DeviceTimeout(
            self.device,
            f"no valid answer from servo {id} after "
            f"{self.retries + 1} attempt(s) of {self.timeout:g} s ({problem})",
            self.exchange_text(),
        )

    def _alarm(self, id: int, bits: int) -> None:
        """Keep servo ``id``'s alarm bits; warn once for each alarm it has not reported yet."""
        self.alarms[id] = bits
        new = bits & ~self.alarms_seen.get(id, 0)
        self.alarms_seen[id] = self.alarms_seen.get(id, 0) | bits
        if new:
            who = f"{self.label} on {self.device}" if self.label else self.device
            warnings.warn(
                f"{who}: servo {id} reports {_error_text(bits)}: {_meaning(new)}. The data of "
                f"that status packet is used; Arbotix.alarms keeps the bits (warned once per "
                f"servo and alarm)",
                ServoAlarm,
                stacklevel=4,
            )

    def _send(self, packet: bytes) -> None:
        self.last_sent, self.last_received = packet, b""
        self.nexchanges += 1
        if self.debug:
            print(f"{self.device} >> {dx.hexs(packet)}")
        try:
            self.transport.write(packet)
        except HardwareError:
            raise
        except Exception as exc:
            raise HardwareError(
                self.device, f"cannot write: {type(exc).__name__}: {exc}", self.exchange_text()
            ) from None

    def receive(self, id: int | None = None, nparams: int | None = None) -> dx.Packet:
        """Read one status packet (from servo ``id`` when given), verifying its checksum.

        Waits at most ``timeout`` seconds (counted in reads of 10 ms without data, so that a
        replayed session takes the same path). Diagnostic text before the packet goes to
        :attr:`text` (printed when debugging); status packets of other ids are skipped.

        Raises
        ------
        DeviceTimeout
            No status packet in time.
        ChecksumError
            The packet's checksum is wrong.
        HardwareError
            The device disappeared.
        """
        expected = 6 + (nparams or 0)
        empty, budget = 0, max(1, math.ceil(self.timeout / _POLL))
        nbytes = 0
        while empty < budget and nbytes < 4096:
            need = max(1, expected - len(self._parser.buffer))
            try:
                data = self.transport.read(need)
            except HardwareError:
                raise
            except Exception as exc:
                raise HardwareError(
                    self.device,
                    f"the device disappeared ({type(exc).__name__}: {exc})",
                    self.exchange_text(),
                ) from None
            if not data:
                empty += 1
                continue
            nbytes += len(data)
            self.last_received += data
            packets = self._parser.feed(data)
            text = self._parser.take_text()
            if text:
                self.text += text
                if self.debug:
                    print(text, end="")
            for p in packets:
                if id is None or p.id == id:
                    if self.debug:
                        print(f"{self.device} << {dx.hexs(p.raw)}")
                    return p
        raise DeviceTimeout(
            self.device, f"no status packet within {self.timeout:g} s", self.exchange_text()
        )

    # ---------------------------------------------------------------- control table
    def readdata(self, id: int, addr: int, n: int = 1) -> dx.Packet:
        """Read ``n`` bytes of servo ``id``'s control table from ``addr``; the bytes are the
        returned packet's ``params``."""
        return self.command(id, dx.INS_READ_DATA, [addr, n], nparams=n)  # type: ignore[return-value]

    def writedata1(self, id: int, addr: int, data: int | Sequence[int]) -> None:
        """Write bytes (0..255 each) to servo ``id``'s control table from ``addr``."""
        values = [data] if np.ndim(data) == 0 else list(data)  # type: ignore[arg-type]
        self.command(id, dx.INS_WRITE_DATA, [addr, *values])

    def writedata2(self, id: int, addr: int, data: int | Sequence[int]) -> None:
        """Write words (0..65535 each, little-endian) to servo ``id``'s table from ``addr``."""
        words = [data] if np.ndim(data) == 0 else list(data)  # type: ignore[arg-type]
        payload: list[int] = []
        for w in words:
            w = int(w)
            if not 0 <= w <= 0xFFFF:
                raise ValueError(f"{self.device}: a word must be 0..65535, got {w}")
            payload += [w & 0xFF, w >> 8]
        self.command(id, dx.INS_WRITE_DATA, [addr, *payload])

    def syncread(self, ids: Sequence[int], addr: int, n: int) -> list[bytes]:
        """``n`` bytes from ``addr`` of each servo in ``ids``, in one exchange with the board
        (SYNC_READ, an extension of the ArbotiX ROS firmware; pypose does not have it)."""
        ids = [self._ids(i)[0] for i in ids]
        status = self.command(
            dx.ID_CONTROLLER, dx.INS_SYNC_READ, [addr, n, *ids], nparams=n * len(ids)
        )
        p = status.params  # type: ignore[union-attr]
        return [p[k * n : (k + 1) * n] for k in range(len(ids))]

    # ---------------------------------------------------------------- servos
    def getpos(self, id: int | None = None, *, sync: bool = False) -> Any:
        """Present angle [rad] of servo ``id`` (float), or of every servo (shape (N,)).

        ``sync=True`` reads every servo in one SYNC_READ exchange (:meth:`syncread`) instead
        of one READ_DATA per servo."""
        if sync and id is None:
            raw = self.syncread(self._ids(None), dx.ADDR_POS, 2)
            return np.array([self.e2a(b[0] | (b[1] << 8)) for b in raw])
        q = [self.e2a(self.readdata(i, dx.ADDR_POS, 2).word(0)) for i in self._ids(id)]
        return q[0] if id is not None else np.array(q)

    def getpos_counts(self, id: int | None = None) -> Any:
        """Present position [counts] of servo ``id`` (int) or every servo (int array (N,))."""
        e = [self.readdata(i, dx.ADDR_POS, 2).word(0) for i in self._ids(id)]
        return e[0] if id is not None else np.array(e)

    def syncwrite(self, addr: int, data: dict[int, Sequence[int]]) -> None:
        """Write the same control-table bytes ``addr..`` of several servos in one SYNC_WRITE
        packet (no status packet comes back): ``data`` maps servo id -> bytes (equal lengths)."""
        sizes = {len(v) for v in data.values()}
        if len(sizes) != 1 or 0 in sizes:
            raise ValueError(
                f"{self.device}: syncwrite needs the same non-zero number of "
                f"bytes for every servo, got {sorted(sizes)}"
            )
        payload = [addr, sizes.pop()]
        for i, values in data.items():
            self._ids(i)
            payload += [i, *values]
        self.command(dx.ID_BROADCAST, dx.INS_SYNC_WRITE, payload)

    def setpos(
        self, pos: Any, speed: Any = None, *, id: int | None = None, sync: bool = False
    ) -> None:
        """Command servo ``id`` (or every servo, ``pos`` of shape (N,)) to ``pos`` [rad], at
        ``speed`` (raw 0..1023, 0 = fastest; scalar or one per servo; None leaves it).

        ``sync=True`` sends every servo's goal in one SYNC_WRITE packet, which is not
        answered: one write instead of N round trips, without confirmation."""
        ids = self._ids(id)
        q = (
            np.broadcast_to(np.asarray(pos, dtype=float), (len(ids),))
            if id is not None
            else np.asarray(pos, dtype=float).reshape(-1)
        )
        if q.size != len(ids):
            raise ValueError(f"{self.device}: setpos needs {len(ids)} angles, got {q.size}")
        sp = None if speed is None else np.broadcast_to(np.asarray(speed), (len(ids),))
        words: dict[int, list[int]] = {}
        for k, i in enumerate(ids):
            e = self._counts(q[k], f"the angle of servo {i}")
            words[i] = [e]
            if sp is not None:
                s = int(sp[k])
                if not 0 <= s <= 1023:
                    raise ValueError(f"{self.device}: speed must be 0..1023, got {plain(sp[k])}")
                words[i].append(s)
        if sync:
            self.syncwrite(
                dx.ADDR_GOAL,
                {i: [b for w in ws for b in (w & 0xFF, w >> 8)] for i, ws in words.items()},
            )
            return
        for i, ws in words.items():
            self.writedata2(i, dx.ADDR_GOAL, ws)

    def relax(self, id: int | None = None, status: bool = True) -> None:
        """Relax servo ``id`` (or every servo): torque off; ``status=False`` holds it in
        position control (torque on)."""
        for i in self._ids(id):
            self.writedata1(i, dx.ADDR_TORQUE, 0 if status else 1)

    def setled(self, id: int | None = None, status: bool = True) -> None:
        """Turn the LED of servo ``id`` (or of every servo) on or off."""
        for i in self._ids(id):
            self.writedata1(i, dx.ADDR_LED, 1 if status else 0)

    def gettemp(self, id: int | None = None) -> Any:
        """Temperature [deg C] of servo ``id`` (float) or of every servo (shape (N,))."""
        t = [float(self.readdata(i, dx.ADDR_TEMP, 1).params[0]) for i in self._ids(id)]
        return t[0] if id is not None else np.array(t)

    def setpath(self, jt: Any, dt: float | Sequence[float] = 0.2) -> None:
        """Load the path ``jt`` (P, nservos) [rad], P <= 30, into the board as a pypose
        sequence and play it: ``dt`` seconds to reach each point (scalar or one per point)."""
        jt = np.atleast_2d(np.asarray(jt, dtype=float))
        p, n = jt.shape
        if n != self.nservos:
            raise ValueError(
                f"{self.device}: setpath needs {self.nservos} columns (one per servo), got {n}"
            )
        if not 1 <= p <= MAX_PATH_POINTS:
            raise ValueError(
                f"{self.device}: too many points on the path ({p}); {MAX_PATH_POINTS} at most"
            )
        times = np.broadcast_to(np.asarray(dt, dtype=float), (p,))
        ms = [round(x * 1000.0) for x in times]
        if any(not 0 < m <= 0xFFFF for m in ms):
            raise ValueError(f"{self.device}: each point's dt must be in (0, 65.5] s, got {dt}")
        poses = [
            [self._counts(a, f"point {k} of the path") for a in row] for k, row in enumerate(jt)
        ]
        c = dx.ID_CONTROLLER
        self.command(c, dx.INS_ARB_SIZE_POSE, [n])
        for k, pose in enumerate(poses):
            data = [k]
            for e in pose:
                data += [e & 0xFF, e >> 8]
            self.command(c, dx.INS_ARB_LOAD_POSE, data)
        seq: list[int] = []
        for k, m in enumerate(ms):
            seq += [k, m & 0xFF, m >> 8]
        self.command(c, dx.INS_ARB_LOAD_SEQ, [*seq, 255, 0, 0])
        self.command(c, dx.INS_ARB_PLAY_SEQ)
