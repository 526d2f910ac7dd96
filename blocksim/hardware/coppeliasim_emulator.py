"""An emulated CoppeliaSim ZMQ remote-API server with a small kinematic scene.

It speaks CoppeliaSim's protocol: a ZMQ ``REP`` socket; each request is a CBOR map
``{"func": "sim.getObject", "args": [...], ...}`` and each reply a CBOR map
``{"success": true, "ret": [...]}`` or ``{"success": false, "err": "..."}``. The
``coppeliasim-zmqremoteapi-client`` package's ``RemoteAPIClient`` talks to it as to CoppeliaSim
(``client.require("sim")`` included). The functions served are the subset of CoppeliaSim's
``sim`` API the blocks use (objects, poses, joints, vision sensors, simulation control and
stepping, parameters, signals, dummies and the log); any other raises an error naming it.
The scene is :class:`~blocksim.hardware.coppeliasim_scene.Scene` (its arm the zoo's IRB 140
kinematic chain), its object paths and aliases
:mod:`~blocksim.hardware.coppeliasim_paths` (``sim.getObject`` takes the options ``index``,
``proxy`` and ``noError``, or before 4.3 the arguments ``index, proxy, options``). Arguments
are checked against each function's signature first
(:func:`~blocksim.hardware.coppeliasim_arguments.check`), and errors are worded as
CoppeliaSim's (``sim.getObject: argument 1 is not a string``), never as Python's.

Simulation time: in stepping mode (``sim.setStepping(True)``) it advances one step per
``sim.step()``; otherwise, while running, it follows the wall clock (at most
:data:`MAX_CATCH_UP` steps per request: after a long silence it falls behind instead).

It is a server for untrusted clients: each request is decoded bounded
(:func:`~blocksim.hardware.coppeliasim_wire.decode`: at most :data:`MAX_BYTES` bytes,
:data:`MAX_DEPTH` levels, :data:`MAX_ITEMS` items; ZMQ drops a longer message and its
connection), and any request that is not a well-formed map of a text ``func`` and an array
``args`` gets an error reply; the server goes on with the next.

Faults (:meth:`CoppeliaSimEmulator.inject`): ``"late"`` holds a reply back for ``delay`` seconds;
``"stop"`` stops the server without replying (a simulator that quits mid-run).

Run one from a shell with ``blocksim hw vrep-emulator``.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import numpy as np

from blocksim.hardware.coppeliasim_arguments import SimError, check, is_int
from blocksim.hardware.coppeliasim_models import SceneFunctions
from blocksim.hardware.coppeliasim_paths import alias
from blocksim.hardware.coppeliasim_poses import PoseFunctions
from blocksim.hardware.coppeliasim_scene import Scene
from blocksim.hardware.coppeliasim_wire import WireError, decode, printable

__all__ = ["CONSTANTS", "CoppeliaSimEmulator"]

#: the ``sim`` constants served (CoppeliaSim's values)
CONSTANTS = {
    "handle_world": -1,
    "simulation_stopped": 0,
    "simulation_paused": 8,
    "simulation_advancing_running": 17,
    "floatparam_simulation_time_step": 1,
    "intparam_program_version": 0,
    "visionintparam_resolution_x": 1002,
    "visionintparam_resolution_y": 1003,
    "visionfloatparam_near_clipping": 1000,
    "visionfloatparam_far_clipping": 1001,
    "visionfloatparam_perspective_angle": 1004,
    "boolparam_realtime_simulation": 25,
    "stringparam_application_path": 0,
    "handle_all": -2,
    "jointintparam_motor_enabled": 2000,
    "jointintparam_ctrl_enabled": 2001,
    "verbosity_none": 100,
    "verbosity_errors": 200,
    "verbosity_warnings": 300,
    "verbosity_loadinfos": 400,
    "verbosity_scripterrors": 420,
    "verbosity_scriptwarnings": 430,
    "verbosity_scriptinfos": 450,
    "verbosity_infos": 500,
    "verbosity_debug": 600,
}
VERSION = 40700  # CoppeliaSim 4.7.0
#: how many of the last calls (packets, for the Arbotix emulator) are kept for inspection
KEEP = 100_000
_PARAM_NAMES = {v: k for k, v in CONSTANTS.items()}
#: request limits: bytes (ZMQ drops a longer message and the client's call times out), nesting
#: depth and items of one request
MAX_BYTES, MAX_DEPTH, MAX_ITEMS = 4 * 2**20, 16, 100_000
#: the scenes the emulator builds: joints of the arm, time step [s]
NJOINTS, DT = (1, 64), (1e-6, 3600.0)
#: the most steps a request makes a freely running simulation catch up with the wall clock
MAX_CATCH_UP = 10_000
#: an arm's name (its joints are ``<arm>_joint<k>``)
ARM_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _frozen(v: Any) -> Any:
    """``v`` with every list made a tuple (what :attr:`CoppeliaSimEmulator.requests` keeps)."""
    if not isinstance(v, (list, tuple)):
        return v
    t = tuple(v)
    if list in map(type, t) or tuple in map(type, t):  # nested: the rare case
        return tuple(_frozen(x) for x in t)
    return t


def _check_arguments(port: Any, arm: Any, njoints: Any, dt: Any) -> None:
    def whole(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    def real(v: Any) -> bool:
        return whole(v) or isinstance(v, (float, np.floating))

    bad = None
    if not (whole(port) and 0 <= port <= 65535):
        bad = f"port must be an int 0..65535 (0: pick a free one), got {port!r}"
    elif not (isinstance(arm, str) and ARM_NAME.fullmatch(arm)):
        bad = f"arm must be a name of 1 to 64 letters, digits, '_' or '-', got {arm!r}"
    elif not (whole(njoints) and NJOINTS[0] <= njoints <= NJOINTS[1]):
        bad = f"njoints must be an int {NJOINTS[0]}..{NJOINTS[1]}, got {njoints!r}"
    elif not (real(dt) and DT[0] <= dt <= DT[1]):
        bad = f"dt must be a number of seconds in [{DT[0]:g}, {DT[1]:g}], got {dt!r}"
    if bad is not None:
        raise ValueError(f"CoppeliaSimEmulator: {printable(bad, 200)}")


def _error(msg: str) -> dict[str, Any]:
    """An error reply (CoppeliaSim's clients read ``err``; the protocol document ``error``)."""
    return {"success": False, "err": msg, "error": msg}


class CoppeliaSimEmulator(SceneFunctions, PoseFunctions):
    """An emulated CoppeliaSim remote-API server on ``tcp://host:port``.

    Parameters
    ----------
    port : int
        TCP port; 0 (default) picks a free one (see :attr:`address`).
    host : str
        Interface to listen on.
    arm, njoints, dt
        The scene's arm name, number of joints (:data:`NJOINTS`), and time step [s]
        (:data:`DT`).

    Raises
    ------
    ValueError
        An argument out of its range.
    """

    def __init__(
        self,
        port: int = 0,
        host: str = "127.0.0.1",
        arm: str = "IRB140",
        njoints: int = 6,
        dt: float = 0.05,
    ):
        _check_arguments(port, arm, njoints, dt)
        self.host = host
        self.port = int(port)
        self.arm, self.njoints = arm, int(njoints)
        self.scene = Scene(arm, njoints, dt)
        self.lock = threading.RLock()
        #: the calls served, in order, as (function, arguments as nested tuples) (the last
        #: :data:`KEEP` to :data:`2 * KEEP`: a server that runs for hours does not grow without
        #: bound; tuples of numbers leave the garbage collector's full passes short)
        self.requests: list[tuple[str, list[Any]]] = []
        self.connections = 0  #: clients connected now (from the socket's monitor)
        self.log: list[tuple[int, str]] = []  #: ``sim.addLog`` messages (verbosity, text)
        self._faults: list[tuple[str, float]] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._wall_start = 0.0
        self._steps_done = 0
        self._funcs = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("sim_")
        }

    # ---------------------------------------------------------------- lifecycle
    @property
    def address(self) -> str:
        """``tcp://host:port`` of the server."""
        return f"tcp://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> CoppeliaSimEmulator:
        """Bind the socket and serve from a background thread; return self."""
        if self._thread is not None:
            raise RuntimeError("CoppeliaSimEmulator: already started")
        self._thread = threading.Thread(
            target=self._serve, name="coppeliasim-emulator", daemon=True
        )
        self._thread.start()
        self._ready.wait(5.0)
        if self._error is not None:
            raise RuntimeError(
                f"CoppeliaSimEmulator: cannot listen on {self.address}: {self._error}"
            )
        return self

    def close(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)

    def __enter__(self) -> CoppeliaSimEmulator:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def inject(self, fault: str, count: int = 1, delay: float = 0.0, after: int = 0) -> None:
        """Make ``count`` replies faulty after ``after`` good ones: ``"late"`` (held back
        ``delay`` seconds) or ``"stop"`` (the server quits without replying)."""
        if fault not in ("late", "stop"):
            raise ValueError(
                f"CoppeliaSimEmulator.inject: unknown fault {fault!r}; choose 'late' or 'stop'"
            )
        with self.lock:
            self._faults.extend([("ok", 0.0)] * int(after) + [(fault, float(delay))] * int(count))

    def wait_connections(self, n: int = 0, timeout: float = 2.0) -> bool:
        """Wait until exactly ``n`` clients are connected; True if that happened in time."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.connections == n:
                return True
            time.sleep(0.01)
        return self.connections == n

    # ---------------------------------------------------------------- serving
    def _serve(self) -> None:
        import cbor2
        import zmq
        from zmq.utils.monitor import recv_monitor_message

        ctx = zmq.Context()
        sock = ctx.socket(zmq.REP)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.MAXMSGSIZE, MAX_BYTES)
        try:
            if self.port:
                sock.bind(f"tcp://{self.host}:{self.port}")
            else:
                self.port = sock.bind_to_random_port(f"tcp://{self.host}")
            monitor = sock.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        except zmq.ZMQError as exc:
            self._error = exc
            self._ready.set()
            sock.close(0)
            ctx.term()
            return
        # One blocking receive per request, giving up after 20 ms to look at the stop flag (a
        # poller over the socket and its monitor added 10-50 us of CPU per request here).
        # Connection events are read when idle, and at most every 10 ms under load.
        sock.setsockopt(zmq.RCVTIMEO, 20)
        self._ready.set()
        dumps, recv, send = cbor2.dumps, sock.recv, sock.send
        answer, stopping, clock, again = self._reply, self._stop.is_set, time.monotonic, zmq.Again
        look = 0.0
        try:
            while not stopping():
                try:
                    raw = recv()
                except again:
                    raw = None
                if raw is not None:
                    parts = 1
                    while sock.rcvmore:  # a REP socket answers only once all parts are in
                        sock.recv()
                        parts += 1
                    reply, fault = answer(raw, parts)
                    if fault is not None:
                        kind, delay = fault
                        if kind == "stop":
                            break
                        self._stop.wait(delay)
                    try:
                        out = dumps(reply)
                    except Exception as exc:  # a stored value the encoder refuses
                        out = dumps(_error(f"cannot encode the reply ({type(exc).__name__})"))
                    send(out)
                    if clock() < look:
                        continue
                while monitor.poll(0):
                    ev = recv_monitor_message(monitor)["event"]
                    self.connections += 1 if ev == zmq.EVENT_ACCEPTED else -1
                look = clock() + 0.01
        finally:
            sock.disable_monitor()
            monitor.close(0)
            sock.close(0)
            ctx.term()
            self.connections = 0

    def _reply(self, raw: bytes, parts: int = 1) -> tuple[dict[str, Any], tuple[str, float] | None]:
        """The reply to request ``raw`` (and the fault to apply): an error reply for a request
        that is not one well-formed, bounded CBOR map (:func:`~.coppeliasim_wire.decode`)."""
        if parts != 1:
            return _error(f"malformed request: {parts} message parts (one CBOR map expected)"), None
        try:
            request = decode(raw, MAX_DEPTH, MAX_ITEMS)
        except WireError as exc:
            return _error(f"malformed request: {exc}"), None
        try:
            return self._answer(request)
        except Exception as exc:  # pragma: no cover - _answer replies to every call's error
            return _error(f"internal error ({type(exc).__name__})"), None

    def _answer(self, request: Any) -> tuple[dict[str, Any], tuple[str, float] | None]:
        with self.lock:
            fault = self._faults.pop(0) if self._faults else None
            if fault is not None and fault[0] == "ok":
                fault = None
            if not isinstance(request, dict):
                return _error("malformed request: not a map"), fault
            func, args = request.get("func"), request.get("args")
            if not isinstance(func, str) or not isinstance(args, (list, type(None))):
                return _error("malformed request: 'func' must be text and 'args' an array"), fault
            args = list(args or [])
            self.requests.append((func, _frozen(args)))
            if len(self.requests) > 2 * KEEP:
                del self.requests[:-KEEP]
            try:
                ret = self._call(func, args)
            except (SimError, KeyError, ValueError, RuntimeError, OSError) as exc:
                # our own messages: worded for the client
                text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
                msg = f"{printable(text, 500)} (in function '{printable(func, 100)}')"
                return _error(msg), fault
            except Exception:  # anything else: no Python internals go back to the client
                name = printable(func, 100)
                msg = f"{name}: invalid arguments (in function '{name}')"
                return _error(msg), fault
            return {"success": True, "ret": ret}, fault

    def _call(self, func: str, args: list[Any]) -> list[Any]:
        fn = self._funcs.get(func[4:]) if func.startswith("sim.") else None
        if fn is not None:  # the common case first
            args = check(func, fn, args)
            if self.scene.state == "running" and not self.scene.stepping:
                self._follow_wall_clock()
            out = fn(*args)
            return list(out) if isinstance(out, tuple) else [] if out is None else [out]
        if func == "zmqRemoteApi.require":
            if args != ["sim"]:
                raise KeyError(f"module {args[0] if args else None!r} is not available")
            return []
        if func == "zmqRemoteApi.info":
            info: dict[str, Any] = {k: {"func": {}} for k in self._funcs}
            info.update({k: {"const": v} for k, v in CONSTANTS.items()})
            return [info]
        raise KeyError(f"function {func!r} is not served by the emulator")

    def _follow_wall_clock(self) -> None:
        """Outside stepping mode a running simulation follows the wall clock."""
        sc = self.scene
        if sc.state != "running" or sc.stepping:
            return
        due = int((time.monotonic() - self._wall_start) / sc.dt) - self._steps_done
        if due > MAX_CATCH_UP:  # a long silence: the simulation does not replay all of it
            self._steps_done += due - MAX_CATCH_UP
            due = MAX_CATCH_UP
        for _ in range(max(0, due)):
            sc.step()
            self._steps_done += 1

    # ---------------------------------------------------------------- the sim API
    def sim_getObject(self, path: str, options: Any = None, proxy: int = -1, flags: int = 0) -> int:
        """The handle of the object at ``path``: ``options`` a map of ``index`` (the n-th
        object the path designates), ``proxy`` (the object a relative path starts from) and
        ``noError`` (-1 instead of an error when there is none); or, as before 4.3, the
        arguments ``index, proxy, options`` (bit 0: no error)."""
        index, no_error = -1, bool(int(flags) & 1)
        if options is None:
            pass
        elif isinstance(options, dict):
            index = options.get("index", -1)
            proxy = options.get("proxy", -1)
            no_error = options.get("noError", False)
            for key, ok in (("index", is_int(index)), ("proxy", is_int(proxy))):
                if not ok:
                    raise SimError(f"sim.getObject: option '{key}' is not an integer")
            if not isinstance(no_error, bool):
                raise SimError("sim.getObject: option 'noError' is not a boolean")
        elif is_int(options):
            index = options
        else:
            raise SimError("sim.getObject: argument 2 is not a map")
        try:
            return self.scene.handle(path, int(index), int(proxy))
        except KeyError:
            if no_error:
                return -1
            raise

    def sim_getObjectAlias(self, h: int, options: int = -1) -> str:
        """Object ``h``'s alias or path, formatted by ``options`` -1 .. 9
        (:func:`~blocksim.hardware.coppeliasim_paths.alias`)."""
        return alias(self.scene, h, int(options))

    def _joint(self, h: int):
        j = self.scene.get(h)
        if j.kind != "joint":
            raise KeyError(f"object {j.name!r} is not a joint")
        return j

    def sim_getJointPosition(self, h: int) -> float:
        return float(self._joint(h).q)

    def sim_setJointPosition(self, h: int, q: float) -> None:
        j = self._joint(h)
        j.q = j.target = float(q)

    def sim_setJointTargetPosition(self, h: int, q: float, *motion: Any) -> None:
        j = self._joint(h)
        j.target, j.mode = float(q), "target"

    def sim_getJointTargetPosition(self, h: int) -> float:
        return float(self._joint(h).target)

    def sim_setJointTargetVelocity(self, h: int, v: float, *motion: Any) -> None:
        j = self._joint(h)
        j.velocity, j.mode = float(v), "velocity"

    def sim_getJointVelocity(self, h: int) -> float:
        return float(self._joint(h).velocity)

    def sim_startSimulation(self) -> int:
        sc = self.scene
        if sc.state == "stopped":
            self._wall_start, self._steps_done = time.monotonic(), 0
        sc.start()
        return 1

    def sim_stopSimulation(self, *args: Any) -> int:
        self.scene.stop()
        return 1

    def sim_pauseSimulation(self) -> int:
        self.scene.pause()
        return 1

    def sim_getSimulationState(self) -> int:
        return {"stopped": 0, "paused": 8, "running": 17}[self.scene.state]

    def sim_getSimulationTime(self) -> float:
        return float(self.scene.t)

    def sim_getSimulationTimeStep(self) -> float:
        return float(self.scene.dt)

    def sim_setStepping(self, enable: bool = True) -> int:
        previous, self.scene.stepping = self.scene.stepping, bool(enable)
        return int(previous)

    def sim_step(self, wait: bool = True) -> None:
        self.scene.step()

    def sim_getFloatParam(self, p: int) -> float:
        if p == CONSTANTS["floatparam_simulation_time_step"]:
            return self.scene.dt
        raise KeyError(f"float parameter {p} is not known")

    def sim_setFloatParam(self, p: int, v: float) -> None:
        if p != CONSTANTS["floatparam_simulation_time_step"]:
            raise KeyError(f"float parameter {p} is not known")
        if self.scene.state != "stopped" or not DT[0] <= float(v) <= DT[1]:
            raise ValueError(
                f"the time step can only be set to a value in [{DT[0]:g}, {DT[1]:g}] s while "
                f"the simulation is stopped"
            )
        self.scene.dt = float(v)

    def sim_getInt32Param(self, p: int) -> int:
        if p == CONSTANTS["intparam_program_version"]:
            return VERSION
        raise KeyError(f"int parameter {p} is not known")

    def sim_getBoolParam(self, p: int) -> bool:
        if p == CONSTANTS["boolparam_realtime_simulation"]:
            return not self.scene.stepping
        raise KeyError(f"bool parameter {p} is not known")

    def _sensor(self, h: int):
        s = self.scene.get(h)
        if s.kind != "vision_sensor":
            raise KeyError(f"object {s.name!r} is not a vision sensor")
        return s

    def sim_getObjectInt32Param(self, h: int, p: int) -> int:
        o = self.scene.get(h)
        if o.kind == "joint" and p in (2000, 2001):
            return int(o.int_params.get(p, 1))
        s = self._sensor(h)
        if p in (1002, 1003):
            return int(s.resolution[p - 1002])
        raise KeyError(f"object int parameter {p} is not known")

    def sim_setObjectInt32Param(self, h: int, p: int, v: int) -> None:
        o = self.scene.get(h)
        if o.kind == "joint" and p in (2000, 2001):
            o.int_params[p] = int(v)
            return
        s = self._sensor(h)
        if p not in (1002, 1003) or not 1 <= int(v) <= 2048:
            raise ValueError(f"object int parameter {p}: bad value {v!r}")
        res = list(s.resolution)
        res[p - 1002] = int(v)
        s.resolution = (res[0], res[1])

    def sim_getObjectFloatParam(self, h: int, p: int) -> float:
        s = self._sensor(h)
        values = {1000: s.clipping[0], 1001: s.clipping[1], 1004: s.fov}
        if p not in values:
            raise KeyError(f"object float parameter {p} is not known")
        return float(values[p])

    def sim_setObjectFloatParam(self, h: int, p: int, v: float) -> None:
        s = self._sensor(h)
        if p == 1004 and 0 < v < np.pi:
            s.fov = float(v)
        elif p == 1000 and 0 < v < s.clipping[1]:
            s.clipping = (float(v), s.clipping[1])
        elif p == 1001 and v > s.clipping[0]:
            s.clipping = (s.clipping[0], float(v))
        else:
            raise ValueError(f"object float parameter {p}: bad value {v!r}")

    def sim_getVisionSensorImg(
        self, h: int, options: int = 0, cutoff: float = 0.0, pos: Any = None, size: Any = None
    ) -> tuple[bytes, list[int]]:
        """The sensor's image: handled at every step, the scene as it is; explicitly
        handled, the picture its last ``sim.handleVisionSensor`` took (black before one)."""
        s = self._sensor(h)
        grey = bool(int(options) & 1)
        if s.explicit & 1:
            w, ht = s.resolution
            if s.picture is None:
                return bytes(w * ht * (1 if grey else 3)), list(s.resolution)
            return s.picture[1 if grey else 0], list(s.resolution)
        return self.scene.render(h, grey=grey), list(s.resolution)

    def sim_setExplicitHandling(self, h: int, flags: int) -> None:
        self.scene.get(h).explicit = int(flags)

    def sim_getExplicitHandling(self, h: int) -> int:
        return int(self.scene.get(h).explicit)

    def sim_handleVisionSensor(self, h: int) -> tuple[int, list[float], list[float]]:
        """Take the sensor's picture now (detection count 0, no auxiliary packets: the
        emulated sensors have no image-processing filters)."""
        s = self._sensor(h)
        s.picture = (self.scene.render(h), self.scene.render(h, grey=True))
        return 0, [], []
