"""Mirrors of CoppeliaSim scene objects: RTB's ``VREP_mirror`` family over the ZMQ remote API.

A mirror holds a connection (:class:`~blocksim.hardware.coppeliasim.CoppeliaSim`) and the
handle of one scene object: :class:`VrepObject` (``VREP_obj``: pose, object parameters,
removal), :class:`VrepArm` (``VREP_arm``: joints), :class:`VrepCamera` (``VREP_camera``: vision
sensor, with explicit triggering), :class:`VrepHokuyo` (a Hokuyo laser scanner) and
:class:`VrepYoubot` (a KUKA youBot: mecanum base and 5-joint arm). Units: metres, radians,
seconds; poses are 4x4 homogeneous transforms in the frame of ``rel`` (default the world, -1).

Not provided, for want of a CoppeliaSim 4 counterpart: ``VREP_arm.teach`` (an interactive
MATLAB GUI) and RTB's ``VREP_mobile`` (no class in RTB 9.10).
"""

from __future__ import annotations

import struct
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.hardware.errors import HardwareError

if TYPE_CHECKING:
    from blocksim.hardware.coppeliasim import CoppeliaSim

__all__ = ["WORLD", "VrepArm", "VrepCamera", "VrepHokuyo", "VrepObject", "VrepYoubot"]

WORLD = -1
#: the most joints an arm's joints are looked for (``n`` not given)
MAX_JOINTS = 64


def _buffer(data: Any) -> bytes | None:
    """A server's buffer reply as bytes (CoppeliaSim sends bytes; text is taken as Latin-1);
    None for anything else (a number must not become a buffer of that many bytes)."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if isinstance(data, str):
        try:
            return data.encode("latin-1")
        except UnicodeEncodeError:
            return None
    return None
#: sim.jointintparam_motor_enabled and sim.jointintparam_ctrl_enabled (RTB: 2000, 2001)
JOINT_MOTOR_ENABLED, JOINT_CTRL_ENABLED = 2000, 2001


class VrepObject:
    """Mirror of a scene object (RTB ``VREP_obj`` and its root ``VREP_mirror``).

    Parameters
    ----------
    vrep : CoppeliaSim
        The connection.
    name : str
        The object's alias or path (``"Bill"``, ``"/youBot/rollingJoint_fl"``).
    h : int, optional
        Its handle, when known (e.g. returned by ``sim.loadModel``); else looked up by name.
    model : bool
        Whether the object is the base of a model (:meth:`remove` then removes the model).
    """

    def __init__(self, vrep: CoppeliaSim, name: str, h: int | None = None, model: bool = False):
        self.vrep, self.name, self.model = vrep, name, bool(model)
        self.h = vrep.gethandle(name) if h is None else int(h)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, handle {self.h})"

    def getname(self) -> str:
        """The object's alias as the simulator has it."""
        return self.vrep.getobjname(self.h)

    # pose
    def getpose(self, rel: int = WORLD) -> np.ndarray:
        return self.vrep.getpose(self.h, rel)

    def setpose(self, T: Any, rel: int = WORLD) -> None:
        self.vrep.setpose(self.h, T, rel)

    def getpos(self, rel: int = WORLD) -> np.ndarray:
        return self.vrep.getpos(self.h, rel)

    def setpos(self, p: Any, rel: int = WORLD) -> None:
        self.vrep.setpos(self.h, p, rel)

    def getorient(self, rel: int = WORLD) -> np.ndarray:
        return self.vrep.getorient(self.h, rel)

    def setorient(self, R: Any, rel: int = WORLD) -> None:
        self.vrep.setorient(self.h, R, rel)

    # object parameters (RTB VREP_mirror.get/setparam_*; a bool is an int parameter 0/1)
    def getparam_int(self, param: int) -> int:
        return self.vrep.getobjparam_int(self.h, param)

    def setparam_int(self, param: int, value: int) -> None:
        self.vrep.setobjparam_int(self.h, param, value)

    def getparam_bool(self, param: int) -> bool:
        return bool(self.vrep.getobjparam_int(self.h, param))

    def setparam_bool(self, param: int, value: bool) -> None:
        self.vrep.setobjparam_int(self.h, param, int(bool(value)))

    def getparam_float(self, param: int) -> float:
        return self.vrep.getobjparam_float(self.h, param)

    def setparam_float(self, param: int, value: float) -> None:
        self.vrep.setobjparam_float(self.h, param, value)

    def children(self) -> list[int]:
        """Handles of the object's direct children (RTB ``VREP.getchildren``)."""
        return self.vrep.getchildren(self.h)

    def remove(self) -> None:
        """Remove the object from the scene (a model: the whole model, ``sim.removeModel``;
        else ``sim.removeObjects``). The mirror is unusable afterwards."""
        self.vrep.remove(self.h, model=self.model)
        self.h = -1


class VrepArm(VrepObject):
    """Mirror of an arm (RTB ``VREP_arm``): joints named ``fmt % (name, j)``, j = 1..n, or
    given by name.

    With ``n=None`` the joints are found as RTB does: j = 1, 2, ... until a name is missing.
    ``names`` (joint aliases or paths) replaces the naming rule, e.g. for a youBot's arm.
    """

    def __init__(
        self,
        vrep: CoppeliaSim,
        name: str,
        fmt: str = "%s_joint%d",
        n: int | None = None,
        names: Sequence[str] | None = None,
    ):
        super().__init__(vrep, name)
        self.fmt = fmt
        if names is not None:
            self.joints = [vrep.gethandle(j) for j in names]
            return
        self.joints: list[int] = []
        j = 1
        while j <= (MAX_JOINTS + 1 if n is None else n):
            try:
                self.joints.append(vrep.gethandle(fmt % (name, j)))
            except HardwareError:
                if n is not None:
                    raise
                break
            j += 1
        if len(self.joints) > MAX_JOINTS:
            raise HardwareError(
                vrep.device,
                f"arm {name!r}: the server names more than {MAX_JOINTS} joints "
                f"{fmt % (name, 1)!r}, ...; give their number n",
            )
        if not self.joints:
            raise HardwareError(vrep.device, f"arm {name!r} has no joint named {fmt % (name, 1)!r}")

    @property
    def n(self) -> int:
        return len(self.joints)

    def getq(self) -> np.ndarray:
        """Joint angles [rad], shape (n,)."""
        return np.array([self.vrep.getjoint(h) for h in self.joints])

    def _each(self, fn: Any, q: Any) -> None:
        q = np.asarray(q, dtype=float).reshape(-1)
        if q.size != self.n:
            raise ValueError(
                f"{self.vrep.device}: arm {self.name!r} has {self.n} joints, got {q.size} values"
            )
        for h, v in zip(self.joints, q):
            fn(h, v)

    def setq(self, q: Any) -> None:
        """Set the joint angles at once (kinematic)."""
        self._each(self.vrep.setjoint, q)

    def setqt(self, q: Any) -> None:
        """Set the joint controllers' target angles."""
        self._each(self.vrep.setjointtarget, q)

    def setqd(self, qd: Any) -> None:
        """Set the joint controllers' target velocities [rad/s]."""
        self._each(self.vrep.setjointvel, qd)

    def setjointmode(self) -> None:
        """Enable every joint's motor and its position control loop (RTB: object int
        parameters 2000 and 2001 set to 1)."""
        for h in self.joints:
            self.vrep.setobjparam_int(h, JOINT_MOTOR_ENABLED, 1)
            self.vrep.setobjparam_int(h, JOINT_CTRL_ENABLED, 1)

    def animate(self, qt: Any, dt: float = 0.05) -> None:
        """Play the joint trajectory ``qt`` (rows of joint angles, (m, n) rad), one row every
        ``dt`` seconds of wall time, with :meth:`setq` (RTB ``animate``)."""
        qt = np.atleast_2d(np.asarray(qt, dtype=float))
        if not dt >= 0:
            raise ValueError(f"VrepArm.animate: dt must be >= 0 s, got {dt!r}")
        t0 = time.perf_counter()
        for k, q in enumerate(qt):
            self.setq(q)
            wait = t0 + (k + 1) * dt - time.perf_counter()
            if wait > 0 and k + 1 < len(qt):
                time.sleep(wait)


class VrepCamera(VrepObject):
    """Mirror of a vision sensor (RTB ``VREP_camera``).

    Triggering: by default CoppeliaSim handles a vision sensor at every simulation step.
    :meth:`setexplicit` (``sim.setExplicitHandling``) hands that over to the client, which then
    takes a picture only when it calls :meth:`trigger` (``sim.handleVisionSensor``), e.g. once
    per synchronous step or on an event; :meth:`grab` reads the last picture taken.
    """

    def grab(self, grey: bool = False) -> np.ndarray:
        """The image, rows top to bottom: uint8 (H, W, 3), or (H, W) when ``grey``."""
        ret = self.vrep.call("sim.getVisionSensorImg", self.h, 1 if grey else 0)
        try:
            img, res = ret
            buf, w, h = _buffer(img), int(res[0]), int(res[1])
            if buf is None or w < 0 or h < 0:
                raise ValueError("not a buffer, or a negative size")
            a = np.frombuffer(buf, dtype=np.uint8).reshape((h, w) if grey else (h, w, 3))
        except (TypeError, ValueError, IndexError, OverflowError):
            raise HardwareError(
                self.vrep.device,
                f"sim.getVisionSensorImg of {self.name!r}: the reply is not an image and its "
                f"resolution",
            ) from None
        return a[::-1].copy()

    def setexplicit(self, explicit: bool = True) -> int:
        """Handle the sensor explicitly (only on :meth:`trigger`) or at every simulation step;
        returns the previous flags."""
        before = int(self.vrep.call("sim.getExplicitHandling", self.h))
        self.vrep.call("sim.setExplicitHandling", self.h, 1 if explicit else 0)
        return before

    def trigger(self) -> int:
        """Take a picture now (``sim.handleVisionSensor``); returns the detection count."""
        ret = self.vrep.call("sim.handleVisionSensor", self.h)
        return int(ret[0] if isinstance(ret, (list, tuple)) else ret)

    def getresolution(self) -> tuple[int, int]:
        return (self.getparam_int(1002), self.getparam_int(1003))

    def setresolution(self, res: Any) -> None:
        w, h = (int(res), int(res)) if np.ndim(res) == 0 else (int(res[0]), int(res[1]))
        self.setparam_int(1002, w)
        self.setparam_int(1003, h)

    def getangle(self) -> float:
        return self.getparam_float(1004)

    def setangle(self, fov: float) -> None:
        self.setparam_float(1004, float(fov))

    def getclipping(self) -> tuple[float, float]:
        return (self.getparam_float(1000), self.getparam_float(1001))

    def setclipping(self, near: float, far: float) -> None:
        self.setparam_float(1001, float(far))
        self.setparam_float(1000, float(near))


class VrepHokuyo(VrepObject):
    """Mirror of a Hokuyo URG-04LX laser scanner model (RTB ``VREP.hokuyo``).

    The seed names the factory but ships no class (its ``hokuyo`` builds a ``VREP_mobile``),
    so the data path is CoppeliaSim's: the scanner model's script measures at every
    simulation step and publishes the detected points as a string signal of packed float32
    ``x, y, z`` triples in the sensor's frame [m] (``sim.packFloatTable``), by default named
    ``measuredDataAtThisTime`` (as the stock fast-Hokuyo script does; a scene whose script
    publishes elsewhere names its signal with ``signal=``). Rays that hit nothing within the
    range give no point.
    """

    def __init__(
        self,
        vrep: CoppeliaSim,
        name: str = "Hokuyo_URG_04LX_UG01",
        signal: str = "measuredDataAtThisTime",
        h: int | None = None,
    ):
        super().__init__(vrep, name, h)
        self.signal = signal

    def points(self) -> np.ndarray:
        """The last scan's points in the sensor frame, shape (m, 3) [m] (m = 0 before the
        first scan)."""
        data = self.vrep.call("sim.getStringSignal", self.signal)
        if data is None:
            return np.zeros((0, 3))
        raw = _buffer(data)
        if raw is None:
            raise HardwareError(
                self.vrep.device, f"signal {self.signal!r} holds a {type(data).__name__}, not bytes"
            )
        if len(raw) % 12:
            raise HardwareError(
                self.vrep.device,
                f"signal {self.signal!r} holds {len(raw)} bytes, not float32 x, y, z triples",
            )
        return np.array(struct.unpack(f"<{len(raw) // 4}f", raw), dtype=float).reshape(-1, 3)

    def scan(self) -> tuple[np.ndarray, np.ndarray]:
        """The last scan as (bearing [rad], range [m]) of each point, in the sensor's x-y
        plane, sorted by bearing."""
        p = self.points()
        b = np.arctan2(p[:, 1], p[:, 0])
        r = np.hypot(p[:, 0], p[:, 1])
        order = np.argsort(b, kind="stable")
        return b[order], r[order]


class VrepYoubot(VrepObject):
    """Mirror of a KUKA youBot model (RTB ``VREP.youbot``, whose class the seed does not ship):
    a mecanum-wheel base and a 5-joint arm.

    The wheels are the joints ``rollingJoint_fl, _rl, _rr, _fr`` of the model (front/rear,
    left/right), driven in velocity mode; :meth:`setvel` turns a body twist into wheel speeds
    with the mecanum inverse kinematics

        w_fl = (vx - vy - k wz) / r      w_fr = (vx + vy + k wz) / r
        w_rl = (vx + vy - k wz) / r      w_rr = (vx - vy + k wz) / r

    (``r`` wheel radius, ``k`` half the wheelbase plus half the track), each times its entry
    of ``signs`` (a wheel joint whose axis points the other way turns the other way). The
    defaults describe the youBot (r = 0.05 m, k = 0.228 + 0.158 m) and the emulator's model;
    check the signs against a real scene before trusting them. The arm is :attr:`arm`, a
    :class:`VrepArm` over ``youBotArmJoint0..4``. The gripper is not mirrored.
    """

    WHEELS = ("rollingJoint_fl", "rollingJoint_rl", "rollingJoint_rr", "rollingJoint_fr")

    def __init__(
        self,
        vrep: CoppeliaSim,
        name: str = "youBot",
        r: float = 0.05,
        k: float = 0.386,
        signs: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
        h: int | None = None,
    ):
        super().__init__(vrep, name, h)
        base = name if name.startswith("/") else f"/{name}"
        self.wheels = [vrep.gethandle(f"{base}/{w}") for w in self.WHEELS]
        self.arm = VrepArm(vrep, name, names=[f"{base}/youBotArmJoint{j}" for j in range(5)])
        if not (r > 0 and k > 0):
            raise ValueError(f"VrepYoubot: r and k must be > 0 m, got {r!r}, {k!r}")
        self.r, self.k = float(r), float(k)
        self.signs = np.asarray(signs, dtype=float).reshape(4)

    def wheel_speeds(self, vx: float, vy: float, wz: float) -> np.ndarray:
        """Wheel speeds [rad/s] (fl, rl, rr, fr) of the body twist (vx, vy [m/s], wz
        [rad/s])."""
        k = self.k
        w = np.array([vx - vy - k * wz, vx + vy - k * wz, vx - vy + k * wz, vx + vy + k * wz])
        return self.signs * w / self.r

    def setvel(self, vx: float, vy: float = 0.0, wz: float = 0.0) -> np.ndarray:
        """Drive the base at the body twist (vx forward, vy left [m/s], wz [rad/s]); returns
        the wheel speeds sent."""
        w = self.wheel_speeds(float(vx), float(vy), float(wz))
        for h, v in zip(self.wheels, w):
            self.vrep.setjointvel(h, float(v))
        return w

    def stop(self) -> None:
        """Stop the wheels."""
        self.setvel(0.0, 0.0, 0.0)
