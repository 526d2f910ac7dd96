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
import struct
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
    explicit: int = 0  # vision sensors: explicit-handling flags (1: only on handleVisionSensor)
    picture: tuple[bytes, bytes] | None = None  # (RGB, grey) taken by the last explicit handling
    parent: int = -1  # handle of the parent object (-1: the scene's root)
    model: bool = False  # the base of a model
    int_params: dict[int, int] = field(default_factory=dict)  # other object parameters
    float_params: dict[int, float] = field(default_factory=dict)
    laser: tuple[float, int, float, str] | None = None  # (scan angle, points, range, signal)
    mecanum: tuple[float, float, tuple[int, ...]] | None = None  # (r, k, wheels fl rl rr fr)


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

    def __init__(
        self, arm: str = "IRB140", njoints: int = 6, dt: float = 0.05, populate: bool = True
    ):
        self.objects: dict[int, SceneObject] = {}
        self.dt = float(dt)
        self.t = 0.0
        self.nsteps = 0
        self.state = "stopped"  # "stopped", "running", "paused"
        self.stepping = False
        self.signals: dict[str, object] = {}
        self._saved: dict[int, SceneObject] | None = None
        self._next = 10
        if not populate:
            return
        base = self.add(SceneObject(arm, "dummy", model=True))
        for j in range(1, njoints + 1):
            self.add(SceneObject(f"{arm}_joint{j}", "joint"), base)
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

    def add(self, obj: SceneObject, parent: int = -1) -> int:
        """Add ``obj`` (child of ``parent``); its handle (handles are never reused)."""
        h = self._next
        self._next += 1
        obj.parent = int(parent)
        self.objects[h] = obj
        return h

    def ancestors(self, h: int) -> list[int]:
        """Handles of the parents of ``h``, nearest first."""
        out = []
        p = self.get(h).parent
        while p != -1 and p in self.objects:
            out.append(p)
            p = self.objects[p].parent
        return out

    def children(self, h: int) -> list[int]:
        """Handles of the direct children of ``h``, in the order they were added."""
        return [c for c, o in self.objects.items() if o.parent == h]

    def descendants(self, h: int) -> list[int]:
        """``h`` and every object below it."""
        out, todo = [], [h]
        while todo:
            k = todo.pop()
            out.append(k)
            todo.extend(self.children(k))
        return out

    def handle(self, path: str) -> int:
        """Handle of the object at ``path``: ``"name"``, ``"/name"`` or ``"/a/b/name"`` (the
        object ``name`` below ``b`` below ``a``, levels in between allowed); the first such
        object added."""
        parts = [p for p in path.split("/") if p]
        if not parts:
            raise KeyError(f"object does not exist: {path!r}")
        for h, o in self.objects.items():
            if o.name != parts[-1]:
                continue
            names = [self.objects[a].name for a in self.ancestors(h)]
            ok = True
            for want in reversed(parts[:-1]):  # outermost first
                while names and names[-1] != want:
                    names.pop()
                if not names:
                    ok = False
                    break
                names.pop()
            if ok:
                return h
        raise KeyError(f"object does not exist: {path!r}")

    def remove(self, h: int) -> int:
        """Remove ``h`` and everything below it; the number of objects removed."""
        self.get(h)
        gone = self.descendants(h)
        for k in gone:
            del self.objects[k]
        return len(gone)

    def move_tree(self, h: int, T: np.ndarray) -> None:
        """Give ``h`` the world pose ``T``, carrying every object below it along."""
        delta = T @ np.linalg.inv(self.get(h).pose)
        for k in self.descendants(h):
            self.objects[k].pose = delta @ self.objects[k].pose

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
        dt = self.dt
        bases, lasers = [], []
        for h, o in self.objects.items():
            if o.kind == "joint":
                if o.mode == "velocity":
                    o.q += max(-o.vmax, min(o.vmax, o.velocity)) * dt
                else:
                    q0 = o.q
                    o.q = move(q0, o.target, o.vmax, o.tau, dt)
                    o.velocity = (o.q - q0) / dt
            if o.mecanum is not None:
                bases.append((h, o))
            if o.laser is not None:
                lasers.append((h, o))
        for h, o in bases:  # after every joint moved: the wheels' speeds of this step
            self._drive(h, o)
        self.nsteps += 1
        self.t = self.nsteps * dt
        for h, o in lasers:  # after the bases moved
            self.signals[o.laser[3]] = self.scan(h)

    def _drive(self, h: int, base: SceneObject) -> None:
        """Move a mecanum base by its wheels' speeds over one step (exact for a constant
        body twist: an arc)."""
        r, k, wheels = base.mecanum  # type: ignore[misc]
        if not all(w in self.objects for w in wheels):
            return
        fl, rl, rr, fr = (
            max(-o.vmax, min(o.vmax, o.velocity)) for o in (self.objects[w] for w in wheels)
        )
        vx = r * (fl + rl + rr + fr) / 4.0
        vy = r * (-fl + rl - rr + fr) / 4.0
        wz = r * (-fl - rl + rr + fr) / (4.0 * k)
        dt, th = self.dt, wz * self.dt
        if abs(th) < 1e-12:
            dx, dy = vx * dt, vy * dt
        else:
            s_, c_ = math.sin(th), math.cos(th)
            dx = (vx * s_ - vy * (1.0 - c_)) / wz
            dy = (vx * (1.0 - c_) + vy * s_) / wz
        step = np.eye(4)
        step[:3, :3] = rot_xyz(0.0, 0.0, th)
        step[:3, 3] = [dx, dy, 0.0]
        self.move_tree(h, base.pose @ step)

    def scan(self, h: int) -> bytes:
        """One scan of laser ``h``: the points (sensor frame, float32 x y z triples) where
        its rays, in its x-y plane, first meet a shape (a sphere of the shape's radius)."""
        o = self.get(h)
        angle, n, rmax, _ = o.laser  # type: ignore[misc]
        R, p = o.pose[:3, :3], o.pose[:3, 3]
        out: list[float] = []
        for th in np.linspace(-angle / 2.0, angle / 2.0, int(n)):
            d_local = np.array([math.cos(th), math.sin(th), 0.0])
            d = R @ d_local
            best = rmax
            for s in self.objects.values():
                if s.kind != "shape" or s.radius <= 0:
                    continue
                m = p - s.pose[:3, 3]
                b = float(m @ d)
                disc = b * b - (float(m @ m) - s.radius**2)
                if disc < 0:
                    continue
                t0 = -b - math.sqrt(disc)
                if 0.0 < t0 < best:
                    best = t0
            if best < rmax:
                out.extend(float(v) for v in best * d_local)
        return struct.pack(f"<{len(out)}f", *out)

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
