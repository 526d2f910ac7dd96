"""Blocks for CoppeliaSim / V-REP: :class:`VrepSimulation`, :class:`VrepArm`,
:class:`VrepObjectPose`, :class:`VrepCamera`.

Each block opens its own connection to CoppeliaSim's ZMQ remote-API server
(:class:`~blocksim.hardware.coppeliasim.CoppeliaSim`, the ``hil`` extra) at ``host``:``port``;
``host="emulator"`` runs an emulated server with a small kinematic scene
(:class:`~blocksim.hardware.coppeliasim_emulator.CoppeliaSimEmulator`) for the run, shared by
every V-REP block of that run.

Synchronous mode: :class:`VrepSimulation` (with ``synchronous=True``) puts the simulator in
stepping mode, sets its time step to the block's period and starts it; at each later hit it
advances the simulator to the hit's time (one ``sim.step`` per simulator time step) *before*
the other V-REP blocks read, so the diagram and the simulator advance together: at hit t_k the
readings are the scene at t_k, and the commands written at t_k act over [t_k, t_k+1]. Add it to
the diagram before the other V-REP blocks (unconnected blocks are evaluated in the order they
were added; the block checks this when the run starts). At the end of the run it stops the
simulation (CoppeliaSim then restores the scene).

Remote calls per hit (each one ZMQ request and reply; CoppeliaSim's remote API has no call that
batches others): :class:`VrepSimulation` in synchronous mode, one ``sim.step`` per simulator
step due and nothing else (the simulator's time is counted, see its ``t`` port); asynchronously,
one ``sim.getSimulationTime``. :class:`VrepArm`, one ``sim.getJointPosition`` per joint, then in
target or velocity mode one ``sim.setJointTarget...`` per joint whose command differs from the
last one sent (a joint controller holds its setpoint until it is changed), in position mode one
``sim.setJointPosition`` per joint. Handles are looked up once, when the run starts.
"""

from __future__ import annotations

import math
import threading
import warnings
from typing import Any

import numpy as np

from blocksim.blocks.hardware.base import HardwareBlock, Session
from blocksim.engine.block import Port
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.hardware.recording import SessionLog

__all__ = ["VrepArm", "VrepCamera", "VrepObjectPose", "VrepSimulation"]

_ARM_MODES = ("target", "position", "velocity")
_LOCK = threading.Lock()
_EMULATORS: dict[int, list[Any]] = {}  # id(run) -> [emulator, number of blocks using it]


def _shared_emulator(run: Any) -> Any:
    """The emulated server of ``run`` (started by the first V-REP block that asks)."""
    from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator

    with _LOCK:
        entry = _EMULATORS.get(id(run))
        if entry is None:
            entry = _EMULATORS[id(run)] = [CoppeliaSimEmulator().start(), 0]
        entry[1] += 1
        return entry[0]


def _release_emulator(run: Any) -> None:
    with _LOCK:
        entry = _EMULATORS.get(id(run))
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del _EMULATORS[id(run)]
            entry[0].close()


class _VrepBlock(HardwareBlock):
    """Connection parameters and session of the V-REP blocks."""

    session_kind = "coppeliasim"

    def _init_vrep(
        self, host: Any, port: Any, clock: Any, timeout: Any, record: Any, replay: Any, overrun: Any
    ) -> None:
        cls = type(self).__name__
        if replay is None and not (isinstance(host, str) and host):
            raise BlockParameterError(
                f"{cls}: parameter 'host' must be the server's address "
                f"(e.g. '127.0.0.1') or 'emulator', found {host!r}"
            )
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise BlockParameterError(
                f"{cls}: parameter 'port' must be a TCP port 1..65535, found {plain(port)}"
            )
        if not (isinstance(timeout, (int, float)) and 0 < timeout <= 60):
            raise BlockParameterError(
                f"{cls}: parameter 'timeout' must be in (0, 60] s, found {plain(timeout)}"
            )
        self._init_common(clock, record, replay, overrun)
        self.host, self.port, self.timeout = host, port, float(timeout)

    def _open(self, run: Any) -> Session:
        from blocksim.hardware.coppeliasim import CoppeliaSim, ReplayClient

        if self.replay is not None:
            log = SessionLog.load(self.replay, kind="coppeliasim")
            client = ReplayClient(log, str(self.replay))
            session = Session(client.name)
            vrep = CoppeliaSim(client=client, timeout=self.timeout)
        else:
            host, port = self.host, self.port
            session = Session(f"tcp://{host}:{port}")
            if host == "emulator":
                emulator = _shared_emulator(run)
                session.closers.append(lambda: _release_emulator(run))
                host, port = emulator.host, emulator.port
                session.device = emulator.address
            if self.record is not None:
                session.log = SessionLog(session.device, "coppeliasim")
            try:
                vrep = CoppeliaSim(host, port, self.timeout, log=session.log)
            except Exception:
                session.close()
                raise
        session.closers.append(vrep.close)
        session.vrep = vrep  # type: ignore[attr-defined]
        try:
            self._setup(session, run)
        except Exception:
            session.close()
            raise
        return session

    def _setup(self, session: Session, run: Any) -> None:
        """Find handles, configure the object (block-specific)."""

    def _store_stats(self, session: Session, run: Any) -> None:
        """The base's statistics, plus ``calls``: the remote calls the connection made (start
        and end of the run included)."""
        super()._store_stats(session, run)
        result = getattr(run, "result", None)
        vrep = getattr(session, "vrep", None)
        if result is not None and vrep is not None:
            result.stats["hardware"][self.name or type(self).__name__]["calls"] = vrep.ncalls


class VrepSimulation(_VrepBlock):
    """Starts, steps and stops the CoppeliaSim simulation with the run (RTB ``VREP.simstart``
    / ``simstop``, plus synchronous stepping).

    Ports
    -----
    t : output, scalar, s
        The simulator's simulation time at each hit. In synchronous mode it is counted, not
        asked for: ``t0 + k dt`` after k steps, with the simulator's start time ``t0`` and its
        own time step ``dt`` read once when the run starts (equal to
        ``sim.getSimulationTime()`` up to the simulator's rounding: a stepped simulator
        advances exactly ``dt`` per step); when the run ends the block compares the count with
        ``sim.getSimulationTime()`` and warns (``RuntimeWarning``) if something else advanced
        the simulation. Asynchronously it is ``sim.getSimulationTime()`` at each hit.

    Parameters
    ----------
    host, port : str, int
        Server address (``"emulator"``: an emulated server for the run) and port.
    clock : float or Clock
        Sample period [s]; in synchronous mode also the simulator's time step.
    synchronous : bool
        Stepping mode: the simulator advances only when the diagram steps it (default). Else
        it runs freely in real time and the diagram samples it (run with ``realtime=1.0``).
    timeout : float
        Longest wait for one reply [s].
    record, replay, overrun
        See :mod:`blocksim.blocks.hardware.base`.
    """

    outputs = (Port("t", (), "s", "simulator time"),)

    def __init__(
        self,
        host: str | None = "emulator",
        port: int = 23000,
        clock: Any = 0.05,
        synchronous: bool = True,
        timeout: float = 2.0,
        record: str | None = None,
        replay: str | None = None,
        overrun: str | None = None,
    ) -> None:
        super().__init__()
        self._init_vrep(host, port, clock, timeout, record, replay, overrun)
        self.synchronous = bool(synchronous)

    def _setup(self, session: Session, run: Any) -> None:
        self._check_order(run)
        vrep = session.vrep  # type: ignore[attr-defined]
        vrep.simstop()
        vrep.setstepping(self.synchronous)
        if self.synchronous:
            vrep.settimestep(self.clock.period)
        vrep.simstart()
        session.steps = 0  # type: ignore[attr-defined]
        session.dt = vrep.gettimestep()  # type: ignore[attr-defined]
        session.t0 = vrep.simtime() if self.synchronous else 0.0  # type: ignore[attr-defined]

    def _check_order(self, run: Any) -> None:
        plan = getattr(run, "plan", None)
        if plan is None:
            return
        first = {}
        for k, s in enumerate(plan.order):
            first.setdefault(s.entry, k)
        mine = next((i for i, e in enumerate(plan.entries) if e.block is self), None)
        if mine is None:
            return
        early = [
            e.name
            for i, e in enumerate(plan.entries)
            if isinstance(e.block, _VrepBlock)
            and e.block is not self
            and first.get(i, math.inf) < first.get(mine, math.inf)
        ]
        if early:
            raise BlockParameterError(
                f"{self._what}: it must read the simulator before the other V-REP blocks, but "
                f"{', '.join(repr(n) for n in early)} come first in the evaluation order; add "
                f"the VrepSimulation block to the diagram before them"
            )

    def _close(self, session: Session, run: Any) -> None:
        vrep = session.vrep  # type: ignore[attr-defined]
        if not vrep.connected:
            return
        if self.synchronous:
            self._check_time(session, vrep.simtime())
        vrep.simstop()
        vrep.setstepping(False)

    def _check_time(self, session: Any, now: float) -> None:
        """Warn when the simulator's time ``now`` is not the stepped count (another client or
        script advanced the simulation: the run was not synchronous)."""
        counted = session.t0 + session.steps * session.dt
        if abs(now - counted) > 1e-9 * max(1.0, abs(counted)) + 0.5e-6:
            warnings.warn(
                f"{self._what}: the simulator's time is {plain(now)} s at the end of the run but "
                f"the diagram stepped it to {plain(counted)} s ({session.steps} steps of "
                f"{plain(session.dt)} s): something else advanced the simulation, so the output "
                f"'t' and the readings were not those of the diagram's steps",
                RuntimeWarning,
                stacklevel=2,
            )

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[Any, ...]:
        def advance() -> tuple[float]:
            s: Any = self._session
            vrep = s.vrep
            if not self.synchronous:
                return (vrep.simtime(),)
            for _ in range(round(t / s.dt) - s.steps):
                vrep.step()
                s.steps += 1
            return (s.t0 + s.steps * s.dt,)

        return self._exchange(t, "y", advance, (0.0,))


class VrepArm(_VrepBlock):
    """A robot arm in CoppeliaSim (RTB ``VREP_arm``): joint command in, joint angles out.

    At each hit the joint angles ``q`` are read, then the command of the same hit is written:
    target angles (``mode="target"``, RTB ``setqt``: the joints' controllers move there),
    angles (``"position"``, RTB ``setq``: set at once) or target velocities (``"velocity"``,
    rad/s). ``q`` does not read the command at the same instant (no feedthrough). The
    discrete state is the last command sent.

    In target and velocity mode a joint's command is sent only when it differs from the last
    one this block sent in the run (the first hit sends every joint's): a CoppeliaSim joint
    controller keeps its setpoint until it is changed, so a held command costs no remote call.
    This assumes nothing else writes the joints' setpoints while the run lasts, and that the
    simulation is not stopped and restarted in between (that restores the scene's setpoints;
    :class:`VrepSimulation` starts it once per run). Position mode sends every joint at every
    hit (``sim.setJointPosition`` also puts back a joint that something else moved).

    Ports
    -----
    q_cmd : input, shape (njoints,), rad (rad/s in velocity mode)
    q : output, shape (njoints,), rad

    Parameters
    ----------
    name : str
        The arm's base object; its joints are ``fmt % (name, j)``, j = 1..njoints.
    njoints : int
        Number of joints.
    mode : {"target", "position", "velocity"}
        How the command is applied.
    fmt : str
        Joint-name format (RTB: ``'%s_joint%d'``).
    host, port, clock, timeout, record, replay, overrun
        As for :class:`VrepSimulation`.
    q0 : array_like, optional
        Initial command state; default zeros.

    At the end of the run a velocity-mode arm is sent zero velocities.
    """

    inputs = (Port("q_cmd", unit="rad"),)
    outputs = (Port("q", unit="rad"),)
    feedthrough = False

    def __init__(
        self,
        name: str = "IRB140",
        njoints: int = 6,
        mode: str = "target",
        fmt: str = "%s_joint%d",
        host: str | None = "emulator",
        port: int = 23000,
        clock: Any = 0.05,
        timeout: float = 2.0,
        record: str | None = None,
        replay: str | None = None,
        overrun: str | None = None,
        q0: Any = None,
    ) -> None:
        super().__init__()
        self._init_vrep(host, port, clock, timeout, record, replay, overrun)
        if not isinstance(name, str) or not name:
            raise BlockParameterError(
                f"VrepArm: parameter 'name' must be the arm's object name, found {name!r}"
            )
        if isinstance(njoints, bool) or not isinstance(njoints, int) or not 1 <= njoints <= 64:
            raise BlockParameterError(
                f"VrepArm: parameter 'njoints' must be an int 1..64, found {plain(njoints)}"
            )
        if mode not in _ARM_MODES:
            raise BlockParameterError(
                f"VrepArm: parameter 'mode' must be one of {', '.join(_ARM_MODES)}, found "
                f"{plain(mode)}"
            )
        try:
            fmt % (name, 1)
        except (TypeError, ValueError):
            raise BlockParameterError(
                f"VrepArm: parameter 'fmt' must format (name, joint "
                f"number), e.g. '%s_joint%d', found {plain(fmt)}"
            ) from None
        self.arm_name, self.njoints, self.mode, self.fmt = name, njoints, mode, fmt
        q = np.zeros(njoints) if q0 is None else np.asarray(q0, dtype=float).reshape(-1)
        if q.shape != (njoints,):
            raise BlockParameterError(
                f"VrepArm: parameter 'q0' must have {njoints} values, found {plain(q0)}"
            )
        self.q0 = q
        self.set_ports(
            inputs=[Port("q_cmd", (njoints,), "rad", "joint command")],
            outputs=[Port("q", (njoints,), "rad", "joint angles")],
        )
        self.set_state(q, names=[f"q_cmd{j}" for j in range(njoints)])

    def _setup(self, session: Any, run: Any) -> None:
        vrep = session.vrep
        session.arm = vrep.arm(self.arm_name, self.fmt, self.njoints)
        session.joints = list(session.arm.joints)  # handles, looked up once
        session.setter = {
            "target": vrep.setjointtarget,
            "position": vrep.setjoint,
            "velocity": vrep.setjointvel,
        }[self.mode]
        session.sent = [math.nan] * self.njoints  # the last command sent to each joint

    def _close(self, session: Session, run: Any) -> None:
        if self.mode == "velocity" and session.vrep.connected:  # type: ignore[attr-defined]
            session.arm.setqd(np.zeros(self.njoints))  # type: ignore[attr-defined]

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[Any, ...]:
        return self._exchange(
            t,
            "y",
            lambda: (self._session.arm.getq(),),  # type: ignore[union-attr]
            (self.q0.copy(),),
        )

    def update(self, t: float, x: np.ndarray, u: Any) -> np.ndarray:
        q = np.asarray(u[0], dtype=float).reshape(-1)

        def write() -> np.ndarray:
            s: Any = self._session
            if q.size != len(s.joints):
                raise ValueError(
                    f"{self._what}: input 'q_cmd' has {q.size} values for {len(s.joints)} joints"
                )
            setter, joints, sent = s.setter, s.joints, s.sent
            every = self.mode == "position"
            for j, v in enumerate(q.tolist()):
                if every or v != sent[j]:  # nothing sent yet: NaN differs from every value
                    setter(joints[j], v)
                    sent[j] = v
            return q.copy()

        return self._exchange(t, "x", write, x.copy())


class VrepObjectPose(_VrepBlock):
    """Pose of a scene object (RTB ``VREP_obj``): read it (``mode="get"``, output ``T``) or
    set it (``mode="set"``, input ``T``), as a 4x4 homogeneous transform [m] in the frame of
    ``relative_to`` (an object name; None = the world).

    Parameters
    ----------
    name : str
        Object name (e.g. ``"Sphere"``).
    mode : {"get", "set"}
        Read or write the pose. A setter's discrete state is the last pose sent (16 values).
    relative_to : str, optional
        Reference object; None for the world frame.
    host, port, clock, timeout, record, replay, overrun
        As for :class:`VrepSimulation`.
    """

    def __init__(
        self,
        name: str = "Sphere",
        mode: str = "get",
        relative_to: str | None = None,
        host: str | None = "emulator",
        port: int = 23000,
        clock: Any = 0.05,
        timeout: float = 2.0,
        record: str | None = None,
        replay: str | None = None,
        overrun: str | None = None,
    ) -> None:
        super().__init__()
        self._init_vrep(host, port, clock, timeout, record, replay, overrun)
        if not isinstance(name, str) or not name:
            raise BlockParameterError(
                f"VrepObjectPose: parameter 'name' must be an object name, found {name!r}"
            )
        if mode not in ("get", "set"):
            raise BlockParameterError(
                f"VrepObjectPose: parameter 'mode' must be 'get' or 'set', found {plain(mode)}"
            )
        if relative_to is not None and not isinstance(relative_to, str):
            raise BlockParameterError(
                f"VrepObjectPose: parameter 'relative_to' must be an "
                f"object name or None, found {relative_to!r}"
            )
        self.object_name, self.mode, self.relative_to = name, mode, relative_to
        pose = Port("T", (4, 4), "m", "pose")
        if mode == "get":
            self.set_ports(inputs=[], outputs=[pose])
        else:
            self.set_ports(inputs=[pose], outputs=[])
            self.set_state(np.eye(4).reshape(-1))

    def _setup(self, session: Session, run: Any) -> None:
        vrep = session.vrep  # type: ignore[attr-defined]
        session.obj = vrep.object(self.object_name)  # type: ignore[attr-defined]
        session.rel = (
            -1
            if self.relative_to is None  # type: ignore[attr-defined]
            else vrep.gethandle(self.relative_to)
        )

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[Any, ...]:
        if self.mode == "set":
            return ()
        s = self._session
        return self._exchange(
            t,
            "y",
            lambda: (s.obj.getpose(s.rel),),  # type: ignore[union-attr]
            (np.eye(4),),
        )

    def update(self, t: float, x: np.ndarray, u: Any) -> np.ndarray:
        T = np.asarray(u[0], dtype=float)
        s = self._session

        def write() -> np.ndarray:
            s.obj.setpose(T, s.rel)  # type: ignore[union-attr]
            return T.reshape(-1).copy()

        return self._exchange(t, "x", write, x.copy())


class VrepCamera(_VrepBlock):
    """A vision sensor (RTB ``VREP_camera``): its image at each hit.

    Every image is recorded in the result (H x W x 3 floats per hit): give the camera a clock
    slower than the control loop's when the images are large.

    With ``trigger=True`` the sensor is handled explicitly (``sim.setExplicitHandling``, the
    previous flags restored when the run ends): it takes a picture only when the block
    triggers it (``sim.handleVisionSensor``), at a hit where the ``trigger`` input is > 0.5,
    and ``image`` is that picture (read at the same hit); at other hits the block does not
    talk to the simulator and ``image`` holds. In synchronous mode a picture then shows the
    scene of the step the diagram has reached, however the simulator schedules its sensors.

    Ports
    -----
    trigger : input, scalar (only with ``trigger=True``)
        Take a picture at this hit when > 0.5.
    image : output, shape (H, W, 3) (or (H, W) when ``grey``), values 0..1
        Rows top to bottom.

    Parameters
    ----------
    name : str
        The vision sensor's name.
    resolution : int or (int, int)
        Image width and height [pixels] (N: N x N), set when the run starts.
    fov : float
        Field of view [deg] (RTB default 60), set when the run starts.
    clipping : (float, float)
        Near and far clipping distances [m].
    grey : bool
        Grey-level image instead of RGB.
    trigger : bool
        Explicit triggering through the ``trigger`` input (see above).
    host, port, clock, timeout, record, replay, overrun
        As for :class:`VrepSimulation`.
    """

    def __init__(
        self,
        name: str = "Vision_sensor",
        resolution: Any = 32,
        fov: float = 60.0,
        clipping: Any = (0.01, 10.0),
        grey: bool = False,
        trigger: bool = False,
        host: str | None = "emulator",
        port: int = 23000,
        clock: Any = 0.05,
        timeout: float = 2.0,
        record: str | None = None,
        replay: str | None = None,
        overrun: str | None = None,
    ) -> None:
        super().__init__()
        self._init_vrep(host, port, clock, timeout, record, replay, overrun)
        res = (resolution, resolution) if np.ndim(resolution) == 0 else tuple(resolution)
        if len(res) != 2 or not all(
            isinstance(r, (int, np.integer)) and 1 <= r <= 2048 for r in res
        ):
            raise BlockParameterError(
                f"VrepCamera: parameter 'resolution' must be N or (W, "
                f"H), integers 1..2048, found {plain(resolution)}"
            )
        if not (isinstance(fov, (int, float)) and 0 < fov < 180):
            raise BlockParameterError(
                f"VrepCamera: parameter 'fov' must be in (0, 180) deg, found {plain(fov)}"
            )
        clip = tuple(float(c) for c in clipping)
        if len(clip) != 2 or not 0 < clip[0] < clip[1]:
            raise BlockParameterError(
                f"VrepCamera: parameter 'clipping' must be (near, far) "
                f"with 0 < near < far [m], found {plain(clipping)}"
            )
        self.camera_name, self.resolution = name, (int(res[0]), int(res[1]))
        self.fov, self.clipping, self.grey = float(fov), clip, bool(grey)
        if not isinstance(trigger, (bool, np.bool_)):
            raise BlockParameterError(
                f"VrepCamera: parameter 'trigger' must be True or False, found {plain(trigger)}"
            )
        self.trigger = bool(trigger)
        w, h = self.resolution
        self.set_ports(
            inputs=[Port("trigger", (), "", "take a picture when > 0.5")] if self.trigger else [],
            outputs=[Port("image", (h, w) if self.grey else (h, w, 3), "", "image, 0..1")],
        )

    def _setup(self, session: Session, run: Any) -> None:
        cam = session.vrep.camera(self.camera_name)  # type: ignore[attr-defined]
        cam.setresolution(self.resolution)
        cam.setangle(math.radians(self.fov))
        cam.setclipping(*self.clipping)
        if self.trigger:
            session.explicit_before = cam.setexplicit(True)  # type: ignore[attr-defined]
        session.camera = cam  # type: ignore[attr-defined]

    def _close(self, session: Session, run: Any) -> None:
        before = getattr(session, "explicit_before", None)
        if before is not None and session.vrep.connected:  # type: ignore[attr-defined]
            session.vrep.call("sim.setExplicitHandling", session.camera.h, before)  # type: ignore[attr-defined]

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[Any, ...]:
        w, h = self.resolution
        blank = np.zeros((h, w) if self.grey else (h, w, 3))
        session = self._session
        if self.trigger and not float(u[0]) > 0.5:
            held = (blank,) if session is None else session.hold.get("y", (blank,))
            return held

        def take() -> tuple[np.ndarray]:
            cam = self._session.camera  # type: ignore[union-attr]
            if self.trigger:
                cam.trigger()
            return (cam.grab(self.grey) / 255.0,)

        return self._exchange(t, "y", take, (blank,))
