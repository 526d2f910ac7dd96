"""Planar arms with unit-length links: the gravity-loaded two-link arm and the kinematic
planar 2- and 3-link arms.

Sources: RTB 9.10 ``mdl_twolink``, ``mdl_planar2`` and ``mdl_planar3`` (the scripts,
their poses and numbers).
"""

from __future__ import annotations

from math import pi

from ..arm.layout import rotx
from ..arm.links import Revolute
from ..arm.serial_link import SerialLink
from ._build import build

__all__ = ["planar2", "planar3", "twolink"]


def twolink() -> SerialLink:
    """Two-link planar arm with point masses, moving in a vertical plane (RTB ``mdl_twolink``).

    Standard DH, two revolute joints with ``a1 = a2 = 1`` m, ``d = alpha = 0``. Each link is a
    1 kg point mass at its middle (``r = [-0.5, 0, 0]`` m in the link frame, ``I = 0``), with no
    motor inertia or friction (``Jm = B = 0``; RTB writes ``G = 0`` as well, which with
    ``Jm = B = 0`` has the same dynamics as the ``G = 1`` used here). The base is
    ``rotx(pi/2)``, so the arm moves in the world xz plane and is loaded by gravity (RTB 9.10;
    its documentation still says "XY (horizontal) plane, not affected by gravity", which is the
    older script). Based on Spong, Hutchinson and Vidyasagar, Fig 3-6.

    Named poses (rad): ``qz`` = [0, 0]; ``qn`` = [pi/6, -pi/6].

    Returns
    -------
    SerialLink
        A new 2-joint robot named "two link".
    """
    links = [Revolute(d=0, a=1.0, alpha=0, m=1.0, r=[-0.5, 0, 0], I=[0, 0, 0], Jm=0, B=0)
             for _ in range(2)]
    return build(links, name="two link", comment="from Spong, Hutchinson, Vidyasagar",
                 base=rotx(pi / 2), poses={"qz": [0, 0], "qn": [pi / 6, -pi / 6]})


def planar2() -> SerialLink:
    """Planar 2-link arm in the xy plane, kinematics only (RTB ``mdl_planar2``).

    Standard DH, ``a1 = a2 = 1`` m, ``d = alpha = 0``; no dynamics. Named pose ``qz`` = [0, 0].

    Returns
    -------
    SerialLink
        A new 2-joint robot named "planar 2 link".
    """
    links = [Revolute(d=0, a=1.0, alpha=0) for _ in range(2)]
    return build(links, name="planar 2 link", comment="generic planar arm, kinematics only",
                 poses={"qz": [0, 0]})


def planar3() -> SerialLink:
    """Redundant planar 3-link arm in the xy plane, kinematics only (RTB ``mdl_planar3``).

    Standard DH, ``a1 = a2 = a3 = 1`` m, ``d = alpha = 0``; no dynamics. Named pose ``qz``.

    Returns
    -------
    SerialLink
        A new 3-joint robot named "planar 3 link".
    """
    links = [Revolute(d=0, a=1.0, alpha=0) for _ in range(3)]
    return build(links, name="planar 3 link",
                 comment="generic redundant planar arm, kinematics only",
                 poses={"qz": [0, 0, 0]})
