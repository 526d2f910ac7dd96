"""CoppeliaSim (V-REP's successor) through its ZMQ remote API: RTB's ``VREP`` and its mirrors.

:class:`CoppeliaSim` holds one connection (a
:class:`~blocksim.hardware.coppeliasim_wire.Client` on pyzmq and cbor2, the ``hil`` extra) and
offers RTB's ``VREP``
methods over CoppeliaSim 4's ``sim`` API; :meth:`CoppeliaSim.arm`, :meth:`~CoppeliaSim.object`
and :meth:`~CoppeliaSim.camera` return the mirrors :class:`VrepArm`, :class:`VrepObject` and
:class:`VrepCamera`. Units: metres, radians, seconds; poses are 4x4 homogeneous transforms of
the object in the frame of ``rel`` (default the world, handle -1). RTB sends Euler angles in
degrees to ``setpose``; here poses go as matrices (``sim.setObjectMatrix``), so there is no
angle convention to get wrong.

Every call waits at most ``timeout`` seconds in all: a server that does not answer (or has quit,
or keeps answering the protocol's ``_*wait*_``) gives a
:class:`~blocksim.hardware.errors.DeviceTimeout` naming the address and the last call, and the
connection is closed (a ZMQ REQ socket cannot be used again after a lost reply). A call that the
server refuses gives a :class:`~blocksim.hardware.errors.HardwareError` with its message (on one
line). A server is not trusted: a reply asking this process to run a function (the stock
``RemoteAPIClient`` would call it from ``__main__``), or one that is malformed, too large or too
deep, closes the connection with a :class:`~blocksim.hardware.errors.HardwareError`.

Every call can be recorded (``log=``) and replayed without a server (:class:`ReplayClient`).

RTB ``VREP`` methods and their CoppeliaSim 4 calls: scenes ``loadscene`` / ``clearscene``
(``sim.loadScene`` / ``sim.closeScene``), models ``loadmodel`` / ``remove``
(``sim.loadModel`` / ``sim.removeModel``, ``sim.removeObjects``), ``getchildren``
(``sim.getObjectChild``), simulator parameters ``get/setparam_bool/int/float/str`` by the
constant's name (``sim.get/setBoolParam``, ...), object parameters ``get/setobjparam_*``
(``sim.get/setObjectInt32Param``, ``...FloatParam``), signals, simulation control; the
factories ``arm``, ``object``, ``camera``, ``hokuyo``, ``youbot``
(:mod:`~blocksim.hardware.coppeliasim_mirrors`). ``delete(v)`` is :meth:`CoppeliaSim.close`.
Not provided, for want of a CoppeliaSim 4 counterpart: ``pausecomms``
(``simxPauseCommunication`` batched legacy-API messages; the ZMQ API sends each call at once:
use stepping mode for an atomic update between two steps), the legacy ``reconnect``,
``cycle`` and ``path`` options, and ``mobile`` (no ``VREP_mobile`` class in the seed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from blocksim.hardware.coppeliasim_mirrors import (
    WORLD,
    VrepArm,
    VrepCamera,
    VrepHokuyo,
    VrepObject,
    VrepYoubot,
)
from blocksim.hardware.errors import DeviceTimeout, HardwareError, ReplayError
from blocksim.hardware.recording import SessionLog, from_json, to_json

__all__ = [
    "DEFAULT_PORT",
    "CoppeliaSim",
    "ReplayClient",
    "VrepArm",
    "VrepCamera",
    "VrepHokuyo",
    "VrepObject",
    "VrepYoubot",
]

#: the port CoppeliaSim's ZMQ remote-API server listens on by default
DEFAULT_PORT = 23000
_TIME_STEP = 1  # sim.floatparam_simulation_time_step
#: the most children :meth:`CoppeliaSim.getchildren` lists (a server cannot make it loop forever)
MAX_CHILDREN = 10_000


_SCALARS = frozenset((int, float, str, bool, type(None)))


def _plain(v: Any) -> Any:
    """Arguments as plain Python values (lists of floats), as they are sent and recorded."""
    if type(v) in _SCALARS:
        return v
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


class ReplayClient:
    """Plays a recorded session back: each call must be the recorded one (same function and
    arguments); its recorded reply is returned."""

    def __init__(self, log: SessionLog, source: str = "replay"):
        self.log = log
        self.name = f"{log.device} (replay of {source})"
        self.k = 0

    def call(self, func: str, args: list[Any]) -> Any:
        entries = self.log.entries
        if self.k >= len(entries):
            raise ReplayError(
                self.name,
                f"the recording ends after {len(entries)} calls but the diagram calls {func}",
            )
        kind, rfunc, rargs, ret = entries[self.k]
        if kind != "call" or rfunc != func or from_json(to_json(args)) != rargs:
            raise ReplayError(
                self.name,
                f"call {self.k}: the diagram calls {func}{tuple(args)} "
                f"where the recording has {rfunc}{tuple(rargs)}",
            )
        self.k += 1
        return tuple(ret) if isinstance(ret, list) and func in _TUPLE_RETURNS else ret

    def close(self) -> None:
        pass


_TUPLE_RETURNS = {"sim.getVisionSensorImg", "sim.handleVisionSensor"}


class CoppeliaSim:
    """A connection to CoppeliaSim's ZMQ remote-API server (RTB ``VREP``).

    Parameters
    ----------
    host : str
        Server address (RTB: 127.0.0.1).
    port : int
        Server port (CoppeliaSim's default 23000; the legacy API's was 19997).
    timeout : float
        Longest wait for one call's reply [s], every ``_*wait*_`` round included (RTB: 2000 ms).
    log : SessionLog, optional
        Record every call and reply in it.
    client : object, optional
        Something with ``call(func, args)`` to use instead of a new ``RemoteAPIClient`` (e.g.
        a :class:`ReplayClient`).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        timeout: float = 2.0,
        log: SessionLog | None = None,
        client: Any = None,
    ):
        if not (isinstance(timeout, (int, float)) and 0 < timeout <= 600):
            raise ValueError(f"CoppeliaSim: timeout must be in (0, 600] s, got {timeout!r}")
        self.host, self.port, self.timeout = host, int(port), float(timeout)
        self.log = log
        self._last: tuple[str, list[Any]] | None = None  # formatted only for a message
        self.ncalls = 0
        self._constants: dict[str, Any] | None = None
        if client is not None:
            self.client = client
            self.device = str(getattr(client, "name", self.address))
            return
        self.device = self.address
        try:
            from blocksim.hardware.coppeliasim_wire import Client
        except ImportError as exc:  # pragma: no cover - the hil extra is missing
            raise HardwareError(
                self.address,
                f"the CoppeliaSim client is not installed ({exc}); pip install 'blocksim[hil]'",
            ) from None
        try:
            self.client = Client(host, self.port, self.timeout)
        except Exception as exc:  # a malformed host: ZMQ cannot connect to it
            raise HardwareError(self.address, f"cannot connect: {exc}") from None
        log, self.log = self.log, None  # the handshake is not part of a session's record
        try:
            self.call("zmqRemoteApi.require", "sim")
        except DeviceTimeout as exc:
            if "wait rounds" in exc.problem:  # a server answers, only never finally
                self.close()
                raise
            raise DeviceTimeout(
                self.address,
                f"no CoppeliaSim server answers within "
                f"{self.timeout:g} s (is it running, with the ZMQ remote API?)",
                exc.last_exchange,
            ) from None
        except BaseException:  # refused, or Ctrl-C: the socket is not left behind
            self.close()
            raise
        finally:
            self.log = log

    @property
    def address(self) -> str:
        return f"tcp://{self.host}:{self.port}"

    @property
    def last_call(self) -> str:
        """The last call made, as text (for messages); empty before the first."""
        if self._last is None:
            return ""
        func, plain = self._last
        return f"{func}{tuple(plain)!r}"[:300]

    @property
    def connected(self) -> bool:
        """Whether the connection is open (a replay is always 'open')."""
        sock = getattr(self.client, "socket", None)
        return self.client is not None and (sock is None or not sock.closed)

    def call(self, func: str, *args: Any) -> Any:
        """Call ``func`` (e.g. ``"sim.getObject"``) with ``args`` on the server; its return
        value (None, one value, or a tuple).

        Raises
        ------
        DeviceTimeout
            No reply within ``timeout`` (the connection is then closed).
        HardwareError
            The server refused the call, or the connection is closed.
        """
        if self.client is None:
            raise HardwareError(
                self.device, f"the connection is closed (calling {func})", self.last_call
            )
        plain = [_plain(a) for a in args]
        self._last = (func, plain)
        self.ncalls += 1
        try:
            ret = self.client.call(func, plain)
        except HardwareError:
            raise
        except Exception as exc:
            self._failed(func, exc)
        if self.log is not None:
            self.log.entries.append(["call", func, plain, ret])
        return ret

    def _failed(self, func: str, exc: Exception) -> NoReturn:
        """Raise the error of call ``func`` that failed with ``exc`` (closing the connection
        when the failure leaves it unusable)."""
        from blocksim.hardware.coppeliasim_wire import ProtocolError, ServerError, WireTimeout

        called = f"called {self.last_call}"
        if isinstance(exc, ServerError):
            raise HardwareError(self.device, f"{func} failed: {exc}", called) from None
        if isinstance(exc, WireTimeout):
            self.close()
            raise DeviceTimeout(
                self.device,
                f"no reply within {self.timeout:g} s ({exc}); connection closed",
                called,
            ) from None
        if isinstance(exc, ProtocolError):
            self.close()
            raise HardwareError(self.device, f"{exc}; connection closed", called) from None
        raise HardwareError(self.device, f"{func} failed: {exc}", called) from None

    def close(self) -> None:
        """Close the connection (idempotent)."""
        client, self.client = self.client, None
        if client is not None:
            client.close()

    def __enter__(self) -> CoppeliaSim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"CoppeliaSim({self.device!r}, {'open' if self.connected else 'closed'})"

    # ---------------------------------------------------------------- RTB VREP methods
    def checkcomms(self) -> bool:
        """True when the server answers."""
        try:
            self.call("sim.getSimulationState")
        except HardwareError:
            return False
        return True

    def getversion(self) -> int:
        """The server's version, e.g. 40700 for 4.7.0."""
        return int(self.call("sim.getInt32Param", 0))

    def gethandle(self, name: str) -> int:
        """Handle of the object ``name`` (a path such as ``"/IRB140"`` or a bare alias)."""
        return int(self.call("sim.getObject", name if name.startswith("/") else f"/{name}"))

    def getobjname(self, h: int) -> str:
        return str(self.call("sim.getObjectAlias", int(h)))

    def getpose(self, h: int, rel: int = WORLD) -> np.ndarray:
        """4x4 pose of object ``h`` in the frame of ``rel``."""
        T = np.eye(4)
        T[:3, :] = np.asarray(
            self.call("sim.getObjectMatrix", int(h), int(rel)), dtype=float
        ).reshape(3, 4)
        return T

    def setpose(self, h: int, T: Any, rel: int = WORLD) -> None:
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4):
            raise ValueError(f"{self.device}: a pose is a 4x4 matrix, got shape {T.shape}")
        self.call("sim.setObjectMatrix", int(h), T[:3, :].reshape(-1), int(rel))

    def getpos(self, h: int, rel: int = WORLD) -> np.ndarray:
        return np.asarray(self.call("sim.getObjectPosition", int(h), int(rel)), dtype=float)

    def setpos(self, h: int, p: Any, rel: int = WORLD) -> None:
        self.call("sim.setObjectPosition", int(h), np.asarray(p, dtype=float).reshape(3), int(rel))

    def getorient(self, h: int, rel: int = WORLD) -> np.ndarray:
        return self.getpose(h, rel)[:3, :3]

    def setorient(self, h: int, R: Any, rel: int = WORLD) -> None:
        T = self.getpose(h, rel)
        T[:3, :3] = np.asarray(R, dtype=float)[:3, :3]
        self.setpose(h, T, rel)

    def getjoint(self, h: int) -> float:
        return float(self.call("sim.getJointPosition", int(h)))

    def setjoint(self, h: int, q: float) -> None:
        self.call("sim.setJointPosition", int(h), float(q))

    def setjointtarget(self, h: int, q: float) -> None:
        self.call("sim.setJointTargetPosition", int(h), float(q))

    def setjointvel(self, h: int, qd: float) -> None:
        self.call("sim.setJointTargetVelocity", int(h), float(qd))

    def simstart(self) -> None:
        self.call("sim.startSimulation")

    def simstop(self) -> None:
        self.call("sim.stopSimulation")

    def simpause(self) -> None:
        self.call("sim.pauseSimulation")

    def setstepping(self, enable: bool = True) -> None:
        """Synchronous mode: the simulation advances only on :meth:`step`."""
        self.call("sim.setStepping", bool(enable))

    def step(self) -> None:
        """Advance one simulation step (synchronous mode)."""
        self.call("sim.step")

    def simtime(self) -> float:
        return float(self.call("sim.getSimulationTime"))

    def gettimestep(self) -> float:
        return float(self.call("sim.getFloatParam", _TIME_STEP))

    def settimestep(self, dt: float) -> None:
        self.call("sim.setFloatParam", _TIME_STEP, float(dt))

    def signal_int(self, name: str, v: int) -> None:
        self.call("sim.setInt32Signal", name, int(v))

    def signal_float(self, name: str, v: float) -> None:
        self.call("sim.setFloatSignal", name, float(v))

    def signal_str(self, name: str, v: str) -> None:
        self.call("sim.setStringSignal", name, v)

    # ---------------------------------------------------------------- hierarchy, parameters
    def getchildren(self, h: int) -> list[int]:
        """Handles of the direct children of object ``h`` (``sim.getObjectChild`` by index
        until it answers -1)."""
        out: list[int] = []
        while len(out) < MAX_CHILDREN:
            c = int(self.call("sim.getObjectChild", int(h), len(out)))
            if c < 0:
                return out
            out.append(c)
        raise HardwareError(self.device, f"object {h} has more than {MAX_CHILDREN} children")

    def getobjparam_int(self, h: int, param: int) -> int:
        return int(self.call("sim.getObjectInt32Param", int(h), int(param)))

    def setobjparam_int(self, h: int, param: int, value: int) -> None:
        self.call("sim.setObjectInt32Param", int(h), int(param), int(value))

    def getobjparam_bool(self, h: int, param: int) -> bool:
        """A bool object parameter (CoppeliaSim 4 has none of its own: an int 0/1)."""
        return bool(self.getobjparam_int(h, param))

    def setobjparam_bool(self, h: int, param: int, value: bool) -> None:
        self.setobjparam_int(h, param, int(bool(value)))

    def getobjparam_float(self, h: int, param: int) -> float:
        return float(self.call("sim.getObjectFloatParam", int(h), int(param)))

    def setobjparam_float(self, h: int, param: int, value: float) -> None:
        self.call("sim.setObjectFloatParam", int(h), int(param), float(value))

    def constant(self, name: str) -> Any:
        """The value of the ``sim`` constant ``name`` (``"boolparam_realtime_simulation"``;
        RTB's ``"sim_boolparam_..."`` spelling is accepted), as the server defines it."""
        if self._constants is None:
            info = self.call("zmqRemoteApi.info", "sim")
            info = info[0] if isinstance(info, list) and len(info) == 1 else info
            self._constants = {
                k: v["const"] for k, v in dict(info).items() if isinstance(v, dict) and "const" in v
            }
        key = name.removeprefix("sim.").removeprefix("sim_")
        if key not in self._constants:
            raise HardwareError(self.device, f"the server defines no constant sim.{key}")
        return self._constants[key]

    def _param(self, kind: str, name: str | int) -> int:
        return int(name) if isinstance(name, int) else int(self.constant(name))

    def getparam_bool(self, name: str | int) -> bool:
        """A simulator parameter by constant name or number (RTB ``getparam_bool``)."""
        return bool(self.call("sim.getBoolParam", self._param("bool", name)))

    def setparam_bool(self, name: str | int, value: bool) -> None:
        self.call("sim.setBoolParam", self._param("bool", name), bool(value))

    def getparam_int(self, name: str | int) -> int:
        return int(self.call("sim.getInt32Param", self._param("int", name)))

    def setparam_int(self, name: str | int, value: int) -> None:
        self.call("sim.setInt32Param", self._param("int", name), int(value))

    def getparam_float(self, name: str | int) -> float:
        return float(self.call("sim.getFloatParam", self._param("float", name)))

    def setparam_float(self, name: str | int, value: float) -> None:
        self.call("sim.setFloatParam", self._param("float", name), float(value))

    def getparam_str(self, name: str | int) -> str:
        return str(self.call("sim.getStringParam", self._param("str", name)))

    def setparam_str(self, name: str | int, value: str) -> None:
        self.call("sim.setStringParam", self._param("str", name), str(value))

    # ---------------------------------------------------------------- scenes and models
    def _file(self, name: str, folder: str, ext: str, local: bool) -> str:
        if local:
            return str(Path(name).with_suffix(ext).resolve())
        app = self.getparam_str("stringparam_application_path")
        return f"{app.rstrip('/')}/{folder}/{name}{ext}"

    def loadscene(self, name: str, local: bool = False) -> None:
        """Load the scene ``name`` (RTB ``loadscene``): ``<CoppeliaSim>/scenes/<name>.ttt``, or
        with ``local`` the file ``name`` (.ttt) relative to this process's folder (the
        server must see the same file system). The simulation must be stopped."""
        self.call("sim.loadScene", self._file(name, "scenes", ".ttt", local))

    def clearscene(self) -> None:
        """Close the current scene (RTB ``clearscene``; ``sim.closeScene``)."""
        self.call("sim.closeScene")

    closescene = clearscene

    def loadmodel(self, name: str, local: bool = False) -> VrepObject:
        """Load the model ``name`` (RTB ``loadmodel``): ``<CoppeliaSim>/models/<name>.ttm``
        (e.g. ``"people/Walking Bill"``), or with ``local`` the file ``name`` (.ttm); returns
        the mirror of its base object (``mirror.remove()`` deletes the model again)."""
        h = int(self.call("sim.loadModel", self._file(name, "models", ".ttm", local)))
        return VrepObject(self, self.getobjname(h), h=h, model=True)

    def remove(self, h: int, model: bool = False) -> None:
        """Remove object ``h`` from the scene (``sim.removeObjects``), or with ``model`` the
        model whose base it is, every object of it (``sim.removeModel``)."""
        if model:
            self.call("sim.removeModel", int(h))
        else:
            self.call("sim.removeObjects", [int(h)])

    # ---------------------------------------------------------------- mirrors
    def arm(self, name: str, fmt: str = "%s_joint%d", n: int | None = None) -> VrepArm:
        return VrepArm(self, name, fmt, n)

    def object(self, name: str) -> VrepObject:
        return VrepObject(self, name)

    def camera(self, name: str) -> VrepCamera:
        return VrepCamera(self, name)

    def hokuyo(self, name: str = "Hokuyo_URG_04LX_UG01", **kw: Any) -> VrepHokuyo:
        """Mirror of a Hokuyo laser scanner (:class:`VrepHokuyo`)."""
        return VrepHokuyo(self, name, **kw)

    def youbot(self, name: str = "youBot", **kw: Any) -> VrepYoubot:
        """Mirror of a KUKA youBot (:class:`VrepYoubot`)."""
        return VrepYoubot(self, name, **kw)
