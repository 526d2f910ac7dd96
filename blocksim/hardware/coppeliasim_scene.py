"""The kinematic scene of the CoppeliaSim emulator: objects with poses, joints, a camera.

No physics: joints follow their controller exactly (``setJointPosition``: at once;
``setJointTargetPosition``: first order toward the target with time constant ``tau``, speed
limited to ``vmax``; ``setJointTargetVelocity``: the target velocity, limited to ``vmax``), and
only while the simulation runs. Stopping the simulation restores the scene as it was when it
started, as CoppeliaSim does.

Vision sensors look along their +z axis (x to the right of the image, y down) and see the
scene's shapes as flat discs of their colour (pinhole projection, far ones drawn first) on a
grey background; the image is RGB, 8 bits, **rows from the bottom up** (CoppeliaSim's order).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np

from blocksim.hardware.servo_model import move

__all__ = ["Scene", "SceneObject", "euler_xyz", "rot_xyz"]


def rot_xyz(a: float, b: float, g: float) -> np.ndarray:
    """CoppeliaSim's Euler angles: R = Rx(a) Ry(b) Rz(g)."""
    ca, sa, cb, sb, cg, sg = (
        math.cos(a),
        math.sin(a),
        math.cos(b),
        math.sin(b),
        math.cos(g),
        math.sin(g),
    )
    rx = np.array([[1, 0, 0], [0, ca, -sa], [0, sa, ca]])
    ry = np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    rz = np.array([[cg, -sg, 0], [sg, cg, 0], [0, 0, 1]])
    return rx @ ry @ rz


def euler_xyz(R: np.ndarray) -> list[float]:
    """Inverse of :func:`rot_xyz` (b in [-pi/2, pi/2])."""
    b = math.asin(max(-1.0, min(1.0, R[0, 2])))
    a = math.atan2(-R[1, 2], R[2, 2])
    g = math.atan2(-R[0, 1], R[0, 0])
    return [a, b, g]


@dataclass
class SceneObject:
    """One object: its alias, kind, pose in the world and kind-specific state."""

    name: str
    kind: str  # "dummy", "shape", "joint", "vision_sensor"
    pose: np.ndarray = field(default_factory=lambda: np.eye(4))
    colour: tuple[int, int, int] = (200, 200, 200)
    radius: float = 0.0  # shapes: drawn as a sphere of this radius [m]
    q: float = 0.0  # joints [rad]
    target: float = 0.0
    velocity: float = 0.0
    mode: str = "target"  # "target" or "velocity"
    vmax: float = 3.0  # rad/s
    tau: float = 0.02  # s
    resolution: tuple[int, int] = (32, 32)  # vision sensors: (width, height)
    fov: float = math.radians(60.0)
    clipping: tuple[float, float] = (0.01, 10.0)


class Scene:
    """A small scene: an arm (base ``arm`` and joints ``<arm>_joint1..n``), a red sphere, a
    green cuboid, a person-sized dummy ``Bill`` and a vision sensor looking at the sphere.

    Parameters
    ----------
    arm : str
        Name of the arm's base object.
    njoints : int
        Number of joints.
    dt : float
        Simulation time step [s].
    """

    def __init__(self, arm: str = "IRB140", njoints: int = 6, dt: float = 0.05):
        self.objects: dict[int, SceneObject] = {}
        self.names: dict[str, int] = {}
        self.dt = float(dt)
        self.t = 0.0
        self.nsteps = 0
        self.state = "stopped"  # "stopped", "running", "paused"
        self.stepping = False
        self.signals: dict[str, object] = {}
        self._saved: dict[int, SceneObject] | None = None
        self.add(SceneObject(arm, "dummy"))
        for j in range(1, njoints + 1):
            self.add(SceneObject(f"{arm}_joint{j}", "joint"))
        sphere = np.eye(4)
        sphere[:3, 3] = [0.5, 0.0, 0.3]
        self.add(SceneObject("Sphere", "shape", sphere, (230, 20, 20), 0.05))
        cuboid = np.eye(4)
        cuboid[:3, 3] = [0.4, 0.3, 0.1]
        self.add(SceneObject("Cuboid", "shape", cuboid, (20, 200, 20), 0.1))
        self.add(SceneObject("Bill", "dummy"))
        cam = np.eye(4)
        cam[:3, :3] = rot_xyz(math.pi, 0.0, 0.0)  # looking down: +z toward -z world
        cam[:3, 3] = [0.5, 0.0, 1.3]
        self.add(SceneObject("Vision_sensor", "vision_sensor", cam))

    def add(self, obj: SceneObject) -> int:
        h = 10 + len(self.objects)
        self.objects[h] = obj
        self.names[obj.name] = h
        return h

    def handle(self, path: str) -> int:
        """Handle of the object at ``path`` (``"/name"`` or ``"name"``)."""
        name = path[1:] if path.startswith("/") else path
        if name not in self.names:
            raise KeyError(f"object does not exist: {path!r}")
        return self.names[name]

    def get(self, h: int) -> SceneObject:
        if h not in self.objects:
            raise KeyError(f"object handle {h} does not exist")
        return self.objects[h]

    def world(self, h: int) -> np.ndarray:
        """4x4 pose of object ``h`` in the world (``-1`` is the world itself)."""
        return np.eye(4) if h == -1 else self.get(h).pose

    # ---------------------------------------------------------------- simulation
    def start(self) -> None:
        if self.state == "stopped":
            self._saved = copy.deepcopy(self.objects)
            self.t, self.nsteps = 0.0, 0
        self.state = "running"

    def pause(self) -> None:
        if self.state == "running":
            self.state = "paused"

    def stop(self) -> None:
        if self.state != "stopped" and self._saved is not None:
            self.objects = self._saved
            self._saved = None
        self.state = "stopped"
        self.t, self.nsteps = 0.0, 0

    def step(self) -> None:
        """Advance one time step (when running)."""
        if self.state != "running":
            return
        for o in self.objects.values():
            if o.kind != "joint":
                continue
            if o.mode == "velocity":
                v = max(-o.vmax, min(o.vmax, o.velocity))
                o.q += v * self.dt
            else:
                q0 = o.q
                o.q = move(o.q, o.target, o.vmax, o.tau, self.dt)
                o.velocity = (o.q - q0) / self.dt
        self.nsteps += 1
        self.t = self.nsteps * self.dt

    # ---------------------------------------------------------------- vision
    def render(self, h: int, grey: bool = False) -> bytes:
        """The image of vision sensor ``h``: RGB (or grey) bytes, rows from the bottom up."""
        cam = self.get(h)
        if cam.kind != "vision_sensor":
            raise KeyError(f"object {cam.name!r} is not a vision sensor")
        w, ht = cam.resolution
        img = np.full((ht, w, 3), 128, dtype=np.uint8)
        f = (w / 2.0) / math.tan(cam.fov / 2.0)
        R, p = cam.pose[:3, :3], cam.pose[:3, 3]
        shapes = []
        for o in self.objects.values():
            if o.kind == "shape":
                c = R.T @ (o.pose[:3, 3] - p)
                if cam.clipping[0] < c[2] < cam.clipping[1]:
                    shapes.append((c[2], c, o))
        vv, uu = np.mgrid[0:ht, 0:w]
        for z, c, o in sorted(shapes, key=lambda s: -s[0]):
            u = f * c[0] / z + w / 2.0
            v = f * c[1] / z + ht / 2.0
            r = f * o.radius / z
            img[(uu + 0.5 - u) ** 2 + (vv + 0.5 - v) ** 2 <= r * r] = o.colour
        img = img[::-1]  # bottom row first
        if grey:
            g = np.round(img.astype(float) @ [0.299, 0.587, 0.114]).astype(np.uint8)
            return g.tobytes()
        return img.tobytes()
