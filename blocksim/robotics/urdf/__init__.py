"""Robot models as kinematic trees, read from URDF or converted from serial-link arms.

Public API
----------
* :class:`TreeModel`, :class:`Body` (:mod:`.model`): links joined by fixed, revolute and
  prismatic joints (URDF's and SPART's model); ``fkine``/``fkine_all`` of any link.
* :func:`read_urdf`, :func:`loads_urdf` (:mod:`.parse`): URDF parsed with ``defusedxml``.
* :func:`tree_to_serial`, :func:`tree_to_arrays`, :func:`serial_to_tree` (:mod:`.convert`):
  the chain to a tip as a :class:`~blocksim.robotics.arm.SerialLink` (fkine, jacob0, rne, the
  arm blocks), and a DH/any SerialLink as a tree (SPART's ``DH_Serial2robot``).
* :func:`serial_from_urdf`: both steps at once.
"""

from __future__ import annotations

import os

from .convert import lumped_inertia, serial_to_tree, tree_to_arrays, tree_to_serial
from .model import FIXED, PRISMATIC, REVOLUTE, Body, TreeModel, rpy_to_matrix, transform
from .parse import MAX_URDF_BYTES, URDFError, loads_urdf, read_urdf

__all__ = [
    "FIXED",
    "MAX_URDF_BYTES",
    "PRISMATIC",
    "REVOLUTE",
    "Body",
    "TreeModel",
    "URDFError",
    "loads_urdf",
    "lumped_inertia",
    "read_urdf",
    "rpy_to_matrix",
    "serial_from_urdf",
    "serial_to_tree",
    "transform",
    "tree_to_arrays",
    "tree_to_serial",
]


def serial_from_urdf(path: str | os.PathLike, tip: str | None = None, *, gravity=None,
                     check_inertia: bool = True):
    """A :class:`~blocksim.robotics.arm.SerialLink` of the chain base -> ``tip`` of a URDF file.

    Parameters
    ----------
    path : str or path
        URDF file.
    tip : str, optional
        Name of the chain's last link (default: the last link of the tree).
    gravity : array (3,), optional
        RTB convention, default [0, 0, 9.81].
    check_inertia : bool
        As :func:`read_urdf` (False accepts inertias that break the triangle inequality,
        e.g. the classic Puma 560 parameters).
    """
    return tree_to_serial(read_urdf(path, check_inertia=check_inertia), tip, gravity=gravity)
