"""Blocks for an Arbotix servo controller: :class:`ArbotixArm` and :class:`ArbotixPath`.

Both talk to the board through :class:`~blocksim.hardware.arbotix.Arbotix` (pyserial). ``port``
is the serial device (``"/dev/ttyUSB0"``) or ``"emulator"``: the block then starts an
:class:`~blocksim.hardware.arbotix_emulator.ArbotixEmulator` on a pseudo-terminal for the run
and talks to it through the same driver, pyserial and bytes (``emulator_packet_time`` makes the
emulated servos deterministic, see the emulator). Angles are in radians, servo ``j + 1`` is
element ``j`` of the vectors (see :mod:`blocksim.hardware.arbotix` for ids and units).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from blocksim.blocks.hardware.base import HardwareBlock, Session
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.hardware import dynamixel as dx
from blocksim.hardware.arbotix import COUNTS_PER_RAD, Arbotix, SerialTransport
from blocksim.hardware.arbotix_emulator import ArbotixEmulator
from blocksim.hardware.recording import RecordingTransport, ReplayTransport, SessionLog

__all__ = ["ArbotixArm", "ArbotixPath"]

ON_STOP = ("relax", "hold")


class _ArbotixBlock(HardwareBlock):
    """Parameters and session shared by the Arbotix blocks."""

    session_kind = "serial"

    def _init_arbotix(
        self,
        port: Any,
        nservos: Any,
        clock: Any,
        baud: Any,
        timeout: Any,
        retries: Any,
        on_stop: Any,
        record: Any,
        replay: Any,
        overrun: Any,
        emulator_packet_time: Any,
        q0: Any,
    ) -> None:
        cls = type(self).__name__
        if replay is None and not isinstance(port, str):
            raise BlockParameterError(
                f"{cls}: parameter 'port' must be the serial device "
                f"(e.g. '/dev/ttyUSB0') or 'emulator', found {plain(port)}"
            )
        if (
            isinstance(nservos, bool)
            or not isinstance(nservos, (int, np.integer))
            or not (1 <= nservos <= 252)
        ):
            raise BlockParameterError(
                f"{cls}: parameter 'nservos' must be an int 1..252, found {plain(nservos)}"
            )
        if not (isinstance(timeout, (int, float)) and 0 < timeout <= 10):
            raise BlockParameterError(
                f"{cls}: parameter 'timeout' must be in (0, 10] s, found {plain(timeout)}"
            )
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise BlockParameterError(
                f"{cls}: parameter 'retries' must be an int 0..10, found {plain(retries)}"
            )
        if on_stop not in ON_STOP:
            raise BlockParameterError(
                f"{cls}: parameter 'on_stop' must be 'relax' (torque "
                f"off) or 'hold' (keep the last goal), found {plain(on_stop)}"
            )
        if emulator_packet_time is not None and not (
            isinstance(emulator_packet_time, (int, float)) and emulator_packet_time > 0
        ):
            raise BlockParameterError(
                f"{cls}: parameter 'emulator_packet_time' must be a "
                f"positive number of seconds or None, found "
                f"{plain(emulator_packet_time)}"
            )
        self._init_common(clock, record, replay, overrun)
        self.port = port
        self.nservos = int(nservos)
        self.baud = int(baud)
        self.timeout = float(timeout)
        self.retries = retries
        self.on_stop = on_stop
        self.emulator_packet_time = emulator_packet_time
        q = np.zeros(self.nservos) if q0 is None else np.asarray(q0, dtype=float).reshape(-1)
        if q.shape != (self.nservos,) or not np.all(np.abs(q) <= 150 * math.pi / 180):
            raise BlockParameterError(
                f"{cls}: parameter 'q0' must be {self.nservos} angles "
                f"within +-2.618 rad, found {plain(q0)}"
            )
        self.q0 = q

    def _init_settle(self, settle: Any) -> None:
        if not (isinstance(settle, (int, float)) and 0 <= settle <= 10):
            raise BlockParameterError(
                f"{type(self).__name__}: parameter 'settle' must be 0..10 s, found {plain(settle)}"
            )
        self.settle = float(settle)

    def _open(self, run: Any) -> Session:
        if self.replay is not None:
            log = SessionLog.load(self.replay, kind="serial")
            session = Session(f"{log.device} (replay of {self.replay})")
            transport: Any = ReplayTransport(log, str(self.replay))
        else:
            emulator = None
            port = self.port
            if port == "emulator":
                positions = [round(e) for e in self.q0 * COUNTS_PER_RAD + 512.0]
                emulator = ArbotixEmulator(
                    self.nservos, positions, packet_time=self.emulator_packet_time
                ).start()
                port = emulator.path
            session = Session(port)
            if emulator is not None:
                session.closers.append(emulator.close)
            try:
                transport = SerialTransport(port, self.baud)
                if self.settle and emulator is None:
                    time.sleep(self.settle)  # a real board restarts when the port opens
            except Exception:
                session.close()
                raise
            if self.record is not None:
                session.log = SessionLog(port, "serial")
                transport = RecordingTransport(transport, session.log)
        arb = Arbotix(
            nservos=self.nservos,
            baud=self.baud,
            timeout=self.timeout,
            retries=self.retries,
            transport=transport,
            connect=False,
        )
        arb.port = session.device
        arb.label = self._what  # the servos' alarm warnings name the block
        session.closers.append(arb.disconnect)
        session.arbotix = arb  # type: ignore[attr-defined]
        try:
            arb.connect()
        except Exception:
            session.close()
            raise
        return session

    def _close(self, session: Session, run: Any) -> None:
        arb = session.arbotix  # type: ignore[attr-defined]
        if self.on_stop == "relax" and arb.connected:
            arb.relax()

    def _store_stats(self, session: Session, run: Any) -> None:
        """The base statistics, and ``alarms``: servo id -> the alarms it reported during the
        run (overheating, input voltage, overload; see :class:`~blocksim.hardware.arbotix.
        ServoAlarm`), when there were any."""
        super()._store_stats(session, run)
        arb = getattr(session, "arbotix", None)
        hardware = getattr(getattr(run, "result", None), "stats", {}).get("hardware", {})
        stats = hardware.get(self.name or type(self).__name__)
        if arb is not None and stats is not None and any(arb.alarms_seen.values()):
            stats["alarms"] = {
                i: dx.error_names(bits) for i, bits in sorted(arb.alarms_seen.items()) if bits
            }


class ArbotixArm(_ArbotixBlock):
    """Servos behind an Arbotix, sampled: joint command in, measured joint angles out.

    At each hit t_k of ``clock``: the output ``q`` is read from the servos (present positions,
    one READ_DATA per servo), then the command ``q_cmd`` [rad] of the same hit is sent (one
    SYNC_WRITE of every goal and ``speed``). ``q`` does not read ``q_cmd`` at the same instant
    (no feedthrough), so a controller can close the loop through it. The discrete state is the
    last command sent [rad], shape (nservos,).

    Ports
    -----
    q_cmd : input, shape (nservos,), rad
        Goal angles.
    q : output, shape (nservos,), rad
        Measured angles (encoder resolution 1/195.6 rad). A servo that reports an alarm
        (overheating, input voltage, overload) still gives its angle: the block warns once per
        servo and alarm (:class:`~blocksim.hardware.arbotix.ServoAlarm`, naming the block) and
        ``result.stats["hardware"][name]["alarms"]`` lists them after the run. The goals go in
        a SYNC_WRITE, which no servo answers: a goal a servo refuses (outside its angle limits)
        is not reported.
    temp : output, shape (nservos,), deg C (only with ``temperature=True``)
        Servo temperatures, read at each hit.

    Parameters
    ----------
    port : str
        Serial device, or ``"emulator"`` (an emulated board for the run).
    nservos : int
        Number of servos (ids 1..nservos).
    clock : float or Clock
        Sample period [s] (e.g. 0.02 for 50 Hz).
    baud : int
        Baud rate (38400, the pypose sketch's).
    speed : int
        Servo speed 0..1023 sent with every goal (0 = the largest).
    timeout : float
        Per-packet timeout [s]: a silent device fails within (retries + 1) * timeout.
    retries : int
        How many times an unanswered or garbled packet is sent again.
    on_stop : {"relax", "hold"}
        Torque off at the end of the run, or keep holding the last goal.
    temperature : bool
        Also output the servo temperatures.
    sync_read : bool
        Read every servo's angle in one SYNC_READ exchange with the board (the ArbotiX ROS
        firmware's extension; the emulator has it, the pypose sketch does not) instead of one
        READ_DATA per servo.
    record, replay, overrun
        See :mod:`blocksim.blocks.hardware.base`.
    emulator_packet_time : float, optional
        With ``port="emulator"``: emulated seconds per packet (deterministic servos); None:
        wall-clock time.
    settle : float
        Seconds to wait after opening a real port (an Arbotix restarts when the port opens;
        RTB waits 0.5 s).
    q0 : array_like, optional
        Initial command state and the emulator's initial angles [rad]; default zeros.
    """

    inputs = (Port("q_cmd", unit="rad", doc="goal angles"),)
    outputs = (Port("q", unit="rad", doc="measured angles"),)
    feedthrough = False

    def __init__(
        self,
        port: str | None = None,
        nservos: int = 5,
        clock: Any = 0.02,
        baud: int = 38400,
        speed: int = 0,
        timeout: float = 0.1,
        retries: int = 2,
        on_stop: str = "relax",
        temperature: bool = False,
        sync_read: bool = False,
        record: str | None = None,
        replay: str | None = None,
        overrun: str | None = None,
        emulator_packet_time: float | None = None,
        q0: Any = None,
        settle: float = 0.0,
    ) -> None:
        super().__init__()
        self._init_arbotix(
            port,
            nservos,
            clock,
            baud,
            timeout,
            retries,
            on_stop,
            record,
            replay,
            overrun,
            emulator_packet_time,
            q0,
        )
        self._init_settle(settle)
        if (
            isinstance(speed, bool)
            or not isinstance(speed, (int, np.integer))
            or not (0 <= speed <= 1023)
        ):
            raise BlockParameterError(
                f"ArbotixArm: parameter 'speed' must be an int 0..1023 "
                f"(0 = the largest), found {plain(speed)}"
            )
        self.speed = int(speed)
        self.temperature = bool(temperature)
        self.sync_read = bool(sync_read)
        n = self.nservos
        outs = [Port("q", (n,), "rad", "measured angles")]
        if self.temperature:
            outs.append(Port("temp", (n,), "degC", "servo temperatures"))
        self.set_ports(inputs=[Port("q_cmd", (n,), "rad", "goal angles")], outputs=outs)
        self.set_state(self.q0, names=[f"q_cmd{j}" for j in range(n)])

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[Any, ...]:
        def read() -> tuple[Any, ...]:
            arb = self._session.arbotix  # type: ignore[union-attr]
            q = arb.getpos(sync=self.sync_read)
            return (q, arb.gettemp()) if self.temperature else (q,)

        initial = (
            (self.q0.copy(), np.full(self.nservos, 30.0)) if self.temperature else (self.q0.copy(),)
        )
        return self._exchange(t, "y", read, initial)

    def update(self, t: float, x: np.ndarray, u: Any) -> np.ndarray:
        q = np.asarray(u[0], dtype=float).reshape(-1)

        def write() -> np.ndarray:
            self._session.arbotix.setpos(q, self.speed, sync=True)  # type: ignore[union-attr]
            return q.copy()

        return self._exchange(t, "x", write, x.copy())


class ArbotixPath(_ArbotixBlock):
    """Smooth moves played by the Arbotix itself (pypose sequences, RTB ``RobotArm.jmove``).

    At each hit: ``q`` is read from the servos; when ``go`` rises above 0.5, a quintic joint
    trajectory (jtraj, ``npoints`` points) from the present angles to ``q_goal`` is loaded into
    the board as a pose sequence lasting ``duration`` seconds and played; the board moves the
    servos on its own until the next goal. The discrete state is ``go`` at the last hit.

    Ports
    -----
    q_goal : input, shape (nservos,), rad
        Where to go.
    go : input, scalar
        Rising above 0.5 starts a move.
    q : output, shape (nservos,), rad
        Measured angles.

    Parameters
    ----------
    duration : float
        Duration of a move [s].
    npoints : int
        Points of the path, 2..30 (RTB: 20).
    port, nservos, clock, baud, timeout, retries, on_stop, record, replay, overrun,
    emulator_packet_time, q0, settle
        As for :class:`ArbotixArm`.
    """

    inputs = (Port("q_goal", unit="rad"), Port("go", ()))
    outputs = (Port("q", unit="rad"),)
    feedthrough = False

    def __init__(
        self,
        port: str | None = None,
        nservos: int = 5,
        clock: Any = 0.05,
        duration: float = 3.0,
        npoints: int = 20,
        baud: int = 38400,
        timeout: float = 0.1,
        retries: int = 2,
        on_stop: str = "relax",
        record: str | None = None,
        replay: str | None = None,
        overrun: str | None = None,
        emulator_packet_time: float | None = None,
        q0: Any = None,
        settle: float = 0.0,
    ) -> None:
        super().__init__()
        self._init_arbotix(
            port,
            nservos,
            clock,
            baud,
            timeout,
            retries,
            on_stop,
            record,
            replay,
            overrun,
            emulator_packet_time,
            q0,
        )
        self._init_settle(settle)
        if not (isinstance(duration, (int, float)) and 0 < duration <= 600):
            raise BlockParameterError(
                f"ArbotixPath: parameter 'duration' must be in (0, 600] s, found {plain(duration)}"
            )
        if isinstance(npoints, bool) or not isinstance(npoints, int) or not 2 <= npoints <= 30:
            raise BlockParameterError(
                f"ArbotixPath: parameter 'npoints' must be an int 2..30 "
                f"(a pypose sequence holds 30 poses), found {plain(npoints)}"
            )
        self.duration = float(duration)
        self.npoints = npoints
        n = self.nservos
        self.set_ports(
            inputs=[Port("q_goal", (n,), "rad", "goal angles"), Port("go", ())],
            outputs=[Port("q", (n,), "rad", "measured angles")],
        )
        self.set_state([0.0], names=["go"])

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[Any, ...]:
        return self._exchange(
            t,
            "y",
            lambda: (self._session.arbotix.getpos(),),  # type: ignore[union-attr]
            (self.q0.copy(),),
        )

    def update(self, t: float, x: np.ndarray, u: Any) -> np.ndarray:
        go = float(u[1])
        if not (go > 0.5 >= x[0]):
            return np.array([go])
        goal = np.asarray(u[0], dtype=float).reshape(-1)

        def move() -> np.ndarray:
            from blocksim.robotics.trajectory import jtraj

            arb = self._session.arbotix  # type: ignore[union-attr]
            qt = jtraj(arb.getpos(), goal, self.npoints)[0]
            arb.setpath(qt, self.duration / self.npoints)
            return np.array([go])

        return self._exchange(t, "x", move, np.array([x[0]]))
