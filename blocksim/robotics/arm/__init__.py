"""Serial-link arms: link tables, kinematics and dynamics kernels.

Public API
----------
* Links: :class:`Link`, :class:`Revolute`, :class:`Prismatic`, :class:`RevoluteMDH`,
  :class:`PrismaticMDH` (:mod:`.links`).
* The arm model :class:`SerialLink` (:mod:`.serial_link`) with ``fkine``, ``jacob0``, ``jacobe``,
  ``jacob_dot``, ``manipulability`` and ``ikine`` (result :class:`IKResult`; the solver is
  ``blocksim.robotics.arm.ikine.ikine``, not re-exported here so that the name ``ikine`` stays
  the submodule).
* Converters (:mod:`.convert`): ``from_dh_matrix``, ``from_dyn_matrix`` (legacy Scilab/RTB
  matrices), ``from_poe``, ``from_mr_dynamics`` (Modern Robotics), ``to_poe``,
  ``to_mr_dynamics``.
* The numeric layout :class:`ArmArrays` (:mod:`.layout`) and the numba kernels of
  :mod:`.kinematics` (over the packed vector ``robot.kin``).
"""

from .convert import (
    from_dh_matrix,
    from_dyn_matrix,
    from_mr_dynamics,
    from_poe,
    to_mr_dynamics,
    to_poe,
)
from .ikine import IKResult
from .layout import DYN_COLUMNS, ArmArrays, from_dh
from .links import Link, Prismatic, PrismaticMDH, Revolute, RevoluteMDH
from .serial_link import SerialLink

__all__ = [
    "DYN_COLUMNS",
    "ArmArrays",
    "IKResult",
    "Link",
    "Prismatic",
    "PrismaticMDH",
    "Revolute",
    "RevoluteMDH",
    "SerialLink",
    "from_dh",
    "from_dh_matrix",
    "from_dyn_matrix",
    "from_mr_dynamics",
    "from_poe",
    "to_mr_dynamics",
    "to_poe",
]
