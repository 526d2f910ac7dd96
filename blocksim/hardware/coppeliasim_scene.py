"""The kinematic scene of the CoppeliaSim emulator: objects with poses, joints, a camera.

No physics: joints follow their controller exactly (``setJointPosition``: at once;
``setJointTargetPosition``: first order toward the target with time constant ``tau``, speed
limited to ``vmax``; ``setJointTargetVelocity``: the target velocity, limited to ``vmax``), and
only while the simulation runs. Stopping the simulation restores the scene as it was when it
started, as CoppeliaSim does.

Poses are kept relative to the parent, as in CoppeliaSim: an object's world pose is its
parent's world pose, times the parent's rotation ``Rz(q)`` about its z axis when the parent is
a (revolute) joint, times the object's own pose; moving an object carries everything below it
along. A joint's own frame does not turn with it (``sim.getObjectMatrix`` of a joint does not
depend on its position); its children do. The arm of the start-up scene is the zoo's IRB 140
(:func:`blocksim.robotics.models.irb140`): base ``<arm>``, then for each joint ``j`` the joint
``<arm>_joint<j>`` and the link ``<arm>_link<j>`` (the DH frame ``j``), each a child of the one
before, and the tool frame ``<arm>_tip`` below the last link, so that the world pose of link
``j`` is the model's ``fkine`` up to joint ``j`` (the tip's: ``fkine(q)``). Object paths and
aliases: :mod:`~blocksim.hardware.coppeliasim_paths`.

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

from blocksim.hardware.coppeliasim_paths import resolve
from blocksim.hardware.servo_model import move

__all__ = ["MAX_OBJECTS", "Scene", "SceneObject", "arm_links", "euler_xyz", "rot_xyz"]

#: the most objects a scene holds (``sim.createDummy`` and ``sim.loadModel`` refuse more)
MAX_OBJECTS = 100_000
#: the link added past the IRB 140's sixth joint for a longer emulated arm: d = 5 cm
EXTRA_LINK_D = 0.05


def _rz(q: float) -> np.ndarray:
    c, s = math.cos(q), math.sin(q)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    return T


def arm_links(njoints: int) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    """The emulated arm's kinematics: for each joint, (its pose in the previous link's frame,
    the next link's pose in the joint's turned frame), and the base and tool transforms.

    The first six joints are the zoo's IRB 140, with ``A_j(q) = pre Rz(q + offset) post``
    (:meth:`~blocksim.robotics.arm.links.Link.fixed_transforms`): the joint sits at ``pre`` in
    the previous link's frame and the link at ``Rz(offset) post`` in the joint's turned frame;
    joints past the sixth add links ``d`` = :data:`EXTRA_LINK_D` along z.

    Returns
    -------
    list of (ndarray, ndarray), ndarray, ndarray
        The joints' and links' local poses (4x4), the robot's base and its tool (4x4).
    """
    from blocksim.robotics.models import irb140

    robot = irb140()
    out = []
    for j in range(njoints):
        if j < robot.n:  # A_j(q) = pre Rz(q + offset) post
            link = robot.links[j]
            pre, post = link.fixed_transforms()
            out.append((pre, _rz(link.offset) @ post))
        else:
            out.append((np.eye(4), _trans_z(EXTRA_LINK_D)))
    return out, np.asarray(robot.base, dtype=float), np.asarray(robot.tool, dtype=float)


def _trans_z(d: float) -> np.ndarray:
    T = np.eye(4)
    T[2, 3] = d
    return T


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
    """One object: its alias, kind, pose relative to its parent (see :class:`Scene`) and
    kind-specific state."""

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
    """A small scene: an arm (base ``arm``, joints ``<arm>_joint1..n``, links
    ``<arm>_link1..n`` and tool frame ``<arm>_tip``: the IRB 140's kinematic chain, see the
    module's description), a red sphere, a green cuboid, a person-sized dummy ``Bill`` and a
    vision sensor looking at the sphere.

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
        links, base_pose, tool = arm_links(njoints)
        parent = self.add(SceneObject(arm, "dummy", base_pose, model=True))
        for j, (joint, link) in enumerate(links, start=1):
            parent = self.add(SceneObject(f"{arm}_joint{j}", "joint", joint), parent, local=True)
            parent = self.add(SceneObject(f"{arm}_link{j}", "dummy", link), parent, local=True)
        self.add(SceneObject(f"{arm}_tip", "dummy", tool), parent, local=True)
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

    def add(self, obj: SceneObject, parent: int = -1, local: bool = False) -> int:
        """Add ``obj`` as a child of ``parent``; its handle (handles are never reused).

        ``obj.pose`` is its pose in the world, or relative to the parent with ``local``.

        Raises
        ------
        RuntimeError
            The scene holds :data:`MAX_OBJECTS` objects already.
        """
        if len(self.objects) >= MAX_OBJECTS:
            raise RuntimeError(f"the scene holds {MAX_OBJECTS} objects: no more can be added")
        if not local:
            obj.pose = np.linalg.inv(self.frame(parent)) @ obj.pose
        h = self._next
        self._next += 1
        obj.parent = int(parent)
        self.objects[h] = obj
        return h

    def frame(self, h: int) -> np.ndarray:
        """The world frame the children of ``h`` are placed in: its world pose, turned by
        ``Rz(q)`` for a joint (``-1``: the world)."""
        if h == -1:
            return np.eye(4)
        o = self.get(h)
        T = self.world(h)
        return T @ _rz(o.q) if o.kind == "joint" else T

    def set_world(self, h: int, T: np.ndarray) -> None:
        """Give ``h`` the world pose ``T`` (everything below it moves along)."""
        o = self.get(h)
        o.pose = np.linalg.inv(self.frame(o.parent if o.parent in self.objects else -1)) @ T

    def reparent(self, h: int, parent: int) -> None:
        """Make ``h`` a child of ``parent``, keeping its world pose."""
        T = self.world(h)
        self.get(h).parent = int(parent)
        self.set_world(h, T)

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

    def handle(self, path: str, index: int = -1, proxy: int = -1) -> int:
        """Handle of the object at ``path`` (:func:`~.coppeliasim_paths.resolve`): the first
        the path designates, or the ``index``-th (from 0).

        Raises
        ------
        KeyError
            No such object, or a malformed path.
        """
        found = resolve(self, path, proxy)
        k = max(0, int(index))
        if k >= len(found):
            raise KeyError(f"object does not exist: {path[:200]!r}")
        return found[k]

    def remove(self, h: int) -> int:
        """Remove ``h`` and everything below it; the number of objects removed."""
        self.get(h)
        gone = self.descendants(h)
        for k in gone:
            del self.objects[k]
        return len(gone)

    def move_tree(self, h: int, T: np.ndarray) -> None:
        """Give ``h`` the world pose ``T``, carrying every object below it along."""
        self.set_world(h, T)

    def get(self, h: int) -> SceneObject:
        if h not in self.objects:
            raise KeyError(f"object handle {h} does not exist")
        return self.objects[h]

    def world(self, h: int) -> np.ndarray:
        """4x4 pose of object ``h`` in the world (``-1`` is the world itself)."""
        if h == -1:
            return np.eye(4)
        T = self.get(h).pose
        p = self.objects[h].parent
        seen = 0
        while p in self.objects and seen < len(self.objects):
            o = self.objects[p]
            T = (o.pose @ _rz(o.q) if o.kind == "joint" else o.pose) @ T
            p = o.parent
            seen += 1
        return T

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
        self.move_tree(h, self.world(h) @ step)

    def scan(self, h: int) -> bytes:
        """One scan of laser ``h``: the points (sensor frame, float32 x y z triples) where
        its rays, in its x-y plane, first meet a shape (a sphere of the shape's radius)."""
        o = self.get(h)
        angle, n, rmax, _ = o.laser  # type: ignore[misc]
        W = self.world(h)
        R, p = W[:3, :3], W[:3, 3]
        centres = {k: self.world(k)[:3, 3] for k, s in self.objects.items() if s.kind == "shape"}
        out: list[float] = []
        for th in np.linspace(-angle / 2.0, angle / 2.0, int(n)):
            d_local = np.array([math.cos(th), math.sin(th), 0.0])
            d = R @ d_local
            best = rmax
            for k, c in centres.items():
                s = self.objects[k]
                if s.radius <= 0:
                    continue
                m = p - c
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
        W = self.world(h)
        R, p = W[:3, :3], W[:3, 3]
        shapes = []
        for k, o in self.objects.items():
            if o.kind == "shape":
                c = R.T @ (self.world(k)[:3, 3] - p)
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
