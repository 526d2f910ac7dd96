"""The model zoo: ready-made serial-link arms (RTB's ``mdl_*`` scripts as functions).

Each constructor returns a NEW :class:`~blocksim.robotics.arm.serial_link.SerialLink` (models
are values: changing one robot never changes another) with its name, manufacturer, comment and
named poses (``robot.poses``). :func:`models` lists and searches the zoo like RTB's ``models``;
:func:`model` builds one by name (for diagrams and the command line).

>>> from blocksim.robotics.models import models, puma560
>>> [m.name for m in models("modified_dh")]
['panda', 'puma560akb']
>>> p560 = puma560()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..arm.serial_link import SerialLink
from .industrial import irb140, kr5
from .panda import panda
from .phantomx import phantomx
from .planar import planar2, planar3, twolink
from .puma import puma560, puma560akb
from .stanford import stanford

__all__ = ["ModelInfo", "irb140", "kr5", "model", "models", "panda", "phantomx", "planar2",
           "planar3", "puma560", "puma560akb", "stanford", "twolink"]


@dataclass(frozen=True)
class ModelInfo:
    """One entry of the zoo.

    Attributes
    ----------
    name : str
        The constructor's name (``puma560``); :func:`model` accepts it.
    joints : int
        Number of joints.
    dh : str
        ``"standard"`` or ``"modified"`` Denavit-Hartenberg parameters.
    keywords : tuple of str
        RTB's ``MODEL:`` keywords: manufacturer, robot, features (``dynamics``, ``planar``,
        ``prismatic``, ``redundant``), ``<n>DOF`` and ``standard_DH`` / ``modified_DH``.
    description : str
        One line.
    constructor : callable
        Returns a new SerialLink.
    """

    name: str
    joints: int
    dh: str
    keywords: tuple[str, ...]
    description: str
    constructor: Callable[[], SerialLink]

    def matches(self, keyword: str) -> bool:
        """Case-insensitive substring match against the name and the keywords (RTB's rule)."""
        k = keyword.lower()
        return k in self.name.lower() or any(k in w.lower() for w in self.keywords)

    def __str__(self) -> str:
        return f"{', '.join(self.keywords)} ({self.name}): {self.description}"


def _info(constructor: Callable[[], SerialLink], joints: int, dh: str, keywords: str,
          description: str) -> ModelInfo:
    words = tuple(w.strip() for w in keywords.split(","))
    return ModelInfo(constructor.__name__, joints, dh, words, description, constructor)


_ZOO = (
    _info(irb140, 6, "standard", "ABB, IRB140, 6DOF, standard_DH",
          "ABB IRB 140 industrial arm, spherical wrist, kinematics"),
    _info(kr5, 6, "standard", "Kuka, KR5, 6DOF, standard_DH",
          "Kuka KR5 industrial arm, spherical wrist, 11.5 cm tool, kinematics"),
    _info(panda, 7, "modified", "Franka-Emika, Panda, redundant, 7DOF, modified_DH",
          "Franka Emika Panda 7-axis arm, kinematics and joint limits"),
    _info(phantomx, 4, "standard", "Trossen Robotics, PhantomX Pincher, 4DOF, standard_DH",
          "PhantomX Pincher 4-joint hobby arm, kinematics"),
    _info(planar2, 2, "standard", "generic, planar, 2DOF, standard_DH",
          "planar 2-link arm in the xy plane, unit links, kinematics"),
    _info(planar3, 3, "standard", "generic, planar, redundant, 3DOF, standard_DH",
          "redundant planar 3-link arm in the xy plane, unit links, kinematics"),
    _info(puma560, 6, "standard", "Unimation, Puma560, dynamics, 6DOF, standard_DH",
          "Puma 560, kinematics, dynamics, motors and friction (Corke & Armstrong-Helouvry)"),
    _info(puma560akb, 6, "modified", "Unimation, Puma560, dynamics, 6DOF, modified_DH",
          "Puma 560, Armstrong-Khatib-Burdick parameters, kinematics and dynamics"),
    _info(stanford, 6, "standard", "Stanford, Stanford Arm, prismatic, dynamics, 6DOF, "
          "standard_DH", "Stanford arm, prismatic third joint, kinematics and dynamics"),
    _info(twolink, 2, "standard", "generic, planar, dynamics, 2DOF, standard_DH",
          "two-link arm in a vertical plane, 1 m links, 1 kg point masses (gravity loaded)"),
)


def models(keyword: str | None = None) -> list[ModelInfo]:
    """The models of the zoo, sorted by name, optionally those matching ``keyword``.

    Parameters
    ----------
    keyword : str, optional
        Case-insensitive text searched in each model's name and keywords, e.g.
        ``"modified_DH"``, ``"dynamics"``, ``"6dof"``, ``"prismatic"``, ``"kuka"``.

    Returns
    -------
    list of ModelInfo
        ``str(info)`` prints like RTB's ``models``; ``info.constructor()`` builds the robot.
    """
    if keyword is not None and not isinstance(keyword, str):
        raise TypeError(f"models: keyword must be a string, got {keyword!r}")
    return [m for m in _ZOO if keyword is None or m.matches(keyword)]


def model(name: str) -> SerialLink:
    """A new robot of the zoo by constructor name (case-insensitive), e.g. ``"puma560"``.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid names.
    """
    for m in _ZOO:
        if m.name == str(name).lower():
            return m.constructor()
    raise ValueError(f"model: unknown robot model {name!r}; valid names are "
                     f"{', '.join(m.name for m in _ZOO)}")
