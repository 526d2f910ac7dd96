"""Trossen Robotics PhantomX Pincher: a 4-joint hobby arm, kinematics only.

Source: RTB 9.10 ``mdl_phantomx`` (the script, its pose and
its numbers). RTB's script is in millimetres; here every length is converted to metres
(x 1e-3), nothing else changes.
"""

from __future__ import annotations

from math import pi

from ..arm.layout import rotx, rotz
from ..arm.links import Revolute
from ..arm.serial_link import SerialLink
from ._build import build

__all__ = ["phantomx"]


def phantomx() -> SerialLink:
    """PhantomX Pincher, standard DH, 4 revolute joints, kinematics only (RTB ``mdl_phantomx``).

    Kinematics (m, rad)::

        j  theta  d      a       alpha  offset
        1  q1     0.040  0       -pi/2  0
        2  q2     0      -0.105  pi     pi/2
        3  q3     0      -0.105  0      0
        4  q4     0      -0.105  0      0

    ``alpha2 = pi`` accounts for joints 3 and 4 turning in the opposite sense to joint 2 (the
    links' tilts from the vertical are q2, q2 - q3 and q2 - q3 - q4). The
    tool frame, ``rotz(-pi/2) @ rotx(pi/2)``, is at the middle of the fingertips. Reference:
    Trossen Robotics PhantomX basic robot arm assembly guide.

    Named pose: ``qz`` = 0.

    Returns
    -------
    SerialLink
        A new 4-joint robot named "PhantomX".
    """
    links = [Revolute(d=0.040, alpha=-pi / 2),
             Revolute(a=-0.105, alpha=pi, offset=pi / 2),
             Revolute(a=-0.105),
             Revolute(a=-0.105)]
    return build(links, name="PhantomX", manufacturer="Trossen Robotics",
                 comment="PhantomX Pincher; tool centre point between the fingertips",
                 tool=rotz(-pi / 2) @ rotx(pi / 2), poses={"qz": [0] * 4})
