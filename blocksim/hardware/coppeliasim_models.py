"""The scenes and models the CoppeliaSim emulator can load (it cannot read ``.ttt``/``.ttm``
files: it knows these by their path in CoppeliaSim's folders).

The emulator's application folder is :data:`APP_PATH`; ``sim.loadScene`` takes
``<APP_PATH>/scenes/<name>.ttt`` for a name of :data:`SCENES`, ``sim.loadModel`` takes
``<APP_PATH>/models/<name>.ttm`` for a name of :data:`MODELS` (CoppeliaSim's own model paths):

* ``people/Walking Bill``: a dummy ``Walking_Bill``;
* ``components/sensors/Hokuyo URG 04LX UG01``: a laser scanner ``Hokuyo_URG_04LX_UG01``
  (240 deg, 181 rays, 5 m) whose script publishes each step's points as the string signal
  ``measuredDataAtThisTime`` (packed float32 x y z in the sensor frame);
* ``robots/mobile/KUKA YouBot``: a base ``youBot`` on four mecanum wheels ``rollingJoint_fl,
  _rl, _rr, _fr`` (r = 0.05 m, k = 0.386 m) with a 5-joint arm ``youBotArmJoint0..4``, and a
  Hokuyo on its front.

Scenes: ``blocksim_default`` (the emulator's start-up scene), ``empty`` and ``youBot`` (a
youBot among the default scene's sphere and cuboid).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from blocksim.hardware.coppeliasim_arguments import SimError
from blocksim.hardware.coppeliasim_scene import Scene, SceneObject

__all__ = ["APP_PATH", "MODELS", "SCENES", "SceneFunctions", "load_model", "load_scene"]

#: the emulated CoppeliaSim's application folder (``sim.stringparam_application_path``)
APP_PATH = "/opt/coppeliasim-emulator"
SCANNER = "Hokuyo_URG_04LX_UG01"
SIGNAL = "measuredDataAtThisTime"
#: an object's alias (``sim.setObjectAlias``)
ALIAS = re.compile(r"[A-Za-z0-9_]{1,100}")
#: the deepest object tree ``sim.setObjectParent`` builds
MAX_LEVELS = 1000
#: how many of the last ``sim.addLog`` messages are kept (up to twice as many)
LOG_KEEP = 10_000


def _at(x: float, y: float, z: float) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = [x, y, z]
    return T


def walking_bill(scene: Scene, parent: int = -1) -> int:
    return scene.add(SceneObject("Walking_Bill", "dummy", _at(1.0, 1.0, 0.0), model=True), parent)


def hokuyo(scene: Scene, parent: int = -1, pose: np.ndarray | None = None) -> int:
    laser = SceneObject(SCANNER, "dummy", _at(0.0, 0.0, 0.3) if pose is None else pose, model=True)
    laser.laser = (math.radians(240.0), 181, 5.0, SIGNAL)
    h = scene.add(laser, parent)
    scene.signals[SIGNAL] = scene.scan(h)
    return h


def youbot(scene: Scene, parent: int = -1) -> int:
    base = scene.add(SceneObject("youBot", "dummy", _at(0.0, 0.0, 0.1), model=True), parent)
    wheels = []
    for w in ("fl", "rl", "rr", "fr"):
        j = SceneObject(f"rollingJoint_{w}", "joint", _at(0.0, 0.0, 0.05), mode="velocity")
        j.vmax = 50.0
        wheels.append(scene.add(j, base))
    for k in range(5):
        scene.add(SceneObject(f"youBotArmJoint{k}", "joint", _at(0.15, 0.0, 0.15)), base)
    scene.objects[base].mecanum = (0.05, 0.386, tuple(wheels))
    hokuyo(scene, base, _at(0.3, 0.0, 0.15))
    return base


#: the models, by their path under ``<APP_PATH>/models`` without ``.ttm``
MODELS: dict[str, Callable[[Scene], int]] = {
    "people/Walking Bill": walking_bill,
    "components/sensors/Hokuyo URG 04LX UG01": hokuyo,
    "robots/mobile/KUKA YouBot": youbot,
}


def _empty(arm: str, njoints: int, dt: float) -> Scene:
    return Scene(arm, njoints, dt, populate=False)


def _youbot_scene(arm: str, njoints: int, dt: float) -> Scene:
    scene = Scene(arm, njoints, dt)
    scene.remove(scene.handle(arm))  # and its joints
    youbot(scene)
    return scene


#: the scenes, by their name under ``<APP_PATH>/scenes`` without ``.ttt``
SCENES: dict[str, Callable[[str, int, float], Scene]] = {
    "blocksim_default": Scene,
    "empty": _empty,
    "youBot": _youbot_scene,
}


def _known(path: str, folder: str, ext: str, table: dict) -> str:
    prefix = f"{APP_PATH}/{folder}/"
    name = path[len(prefix) : -len(ext)] if path.startswith(prefix) and path.endswith(ext) else None
    if name not in table:
        raise FileNotFoundError(
            f"cannot load {path!r}: the emulator knows only {prefix}<name>{ext} for the names "
            f"{', '.join(sorted(table))}"
        )
    return name


def load_scene(path: str, arm: str, njoints: int, dt: float) -> Scene:
    """The scene of file ``path`` (see :data:`SCENES`)."""
    return SCENES[_known(path, "scenes", ".ttt", SCENES)](arm, njoints, dt)


def load_model(scene: Scene, path: str) -> int:
    """Add the model of file ``path`` (see :data:`MODELS`) to ``scene``; its base's handle."""
    return MODELS[_known(path, "models", ".ttm", MODELS)](scene)


class SceneFunctions:
    """The emulator's ``sim`` functions on scenes, models, the object tree (dummies made and
    objects removed), the application path, signals and the log (a base of
    :class:`~.coppeliasim_emulator.CoppeliaSimEmulator`, which holds ``scene``, ``arm``,
    ``njoints`` and ``log``)."""

    scene: Scene
    arm: str
    njoints: int
    #: the messages of ``sim.addLog``, as (verbosity, message), oldest first
    log: list[tuple[int, str]]

    def _stopped(self, what: str) -> None:
        if self.scene.state != "stopped":
            raise RuntimeError(f"{what} needs the simulation stopped")

    def sim_loadScene(self, filename: str) -> None:
        self._stopped("loading a scene")
        self.scene = load_scene(str(filename), self.arm, self.njoints, self.scene.dt)

    def sim_closeScene(self) -> int:
        self._stopped("closing the scene")
        self.scene = Scene(self.arm, self.njoints, self.scene.dt, populate=False)
        return 1

    def sim_loadModel(self, filename: str, *options: Any) -> int:
        return load_model(self.scene, str(filename))

    def sim_removeModel(self, h: int, *options: Any) -> int:
        if not self.scene.get(h).model:
            raise KeyError(f"object handle {h} is not a model base")
        return self.scene.remove(h)

    def sim_removeObjects(self, handles: list[int], *options: Any) -> None:
        for h in handles:
            self.scene.get(int(h))
        for h in handles:
            if int(h) in self.scene.objects:  # its children go to its parent, where they are
                for c in self.scene.children(int(h)):
                    self.scene.reparent(c, self.scene.get(int(h)).parent)
                del self.scene.objects[int(h)]

    def sim_removeObject(self, h: int) -> None:
        """Remove object ``h`` (its children go to its parent; CoppeliaSim before 4.6)."""
        self.sim_removeObjects([h])

    def sim_createDummy(self, size: float = 0.01, colour: Any = None) -> int:
        """Add a dummy ``Dummy`` at the world's origin (size [m] and, before 4.5, 12
        colour components); its handle."""
        if not 0.0 < size < 1e6:
            raise ValueError(f"sim.createDummy: size {size!r} is not in (0, 1e6) m")
        if colour is not None and not (isinstance(colour, list) and len(colour) == 12):
            raise SimError("sim.createDummy: argument 2 is not a table of 12 numbers")
        return self.scene.add(SceneObject("Dummy", "dummy"))

    def sim_addLog(self, verbosity: int, message: str) -> None:
        """Keep ``(verbosity, message)`` in :attr:`log` (the last :data:`LOG_KEEP`)."""
        self.log.append((int(verbosity), message))
        if len(self.log) > 2 * LOG_KEEP:
            del self.log[:-LOG_KEEP]

    def sim_setObjectParent(self, h: int, parent: int, keep_in_place: bool = True) -> None:
        """Make ``h`` a child of ``parent`` (-1: the scene's root), keeping its pose in the
        world or, with ``keep_in_place`` false, its pose relative to its parent."""
        self.scene.get(h)
        if parent != -1:
            above = self.scene.ancestors(parent)  # raises for a parent that does not exist
            if parent == h or h in above:
                raise ValueError(f"object {h} cannot be a child of itself or of its descendant")
            if len(above) >= MAX_LEVELS - 1:
                raise ValueError(f"the scene's tree is at most {MAX_LEVELS} levels deep")
        if keep_in_place:
            self.scene.reparent(h, parent)
        else:
            self.scene.get(h).parent = int(parent)

    def sim_setObjectAlias(self, h: int, alias: str) -> None:
        """Give ``h`` the alias ``alias`` (1 to 100 letters, digits and ``_``)."""
        if not ALIAS.fullmatch(alias):
            raise ValueError(f"an alias is 1 to 100 letters, digits and '_', got {alias[:100]!r}")
        self.scene.get(h).name = alias

    def sim_getObjectChild(self, h: int, index: int) -> int:
        kids = self.scene.children(int(h))
        return kids[index] if 0 <= int(index) < len(kids) else -1

    def sim_getObjectParent(self, h: int) -> int:
        return int(self.scene.get(h).parent)

    def sim_getStringParam(self, p: int) -> str:
        if p == 0:  # sim.stringparam_application_path
            return APP_PATH
        raise KeyError(f"string parameter {p} is not known")

    def _signal(self, name: str, value: Any) -> None:
        self.scene.signals[str(name)] = value

    def sim_setInt32Signal(self, name: str, v: int) -> None:
        self._signal(name, int(v))

    def sim_setFloatSignal(self, name: str, v: float) -> None:
        self._signal(name, float(v))

    def sim_setStringSignal(self, name: str, v: Any) -> None:
        self._signal(name, v)

    def sim_getInt32Signal(self, name: str) -> Any:
        return self.scene.signals.get(str(name))

    sim_getFloatSignal = sim_getInt32Signal
    sim_getStringSignal = sim_getInt32Signal
