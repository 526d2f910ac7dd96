"""Franka Emika Panda: a 7-axis redundant arm in modified (Craig) DH, kinematics only.

The seeds have no 7-axis modified-DH arm, so this model uses the manufacturer's published table:
Franka Control Interface documentation, "Robot and interface specifications", Denavit-Hartenberg
parameters in Craig's convention and joint limits (https://frankaemika.github.io/docs/
control_parameters.html). The same numbers are in RTB (MATLAB ``mdl_panda``, Python
``models.DH.Panda``); the ready pose ``qr`` is RTB-Python's.
"""

from __future__ import annotations

from math import pi

from ..arm.layout import trans
from ..arm.links import RevoluteMDH
from ..arm.serial_link import SerialLink
from ._build import build

__all__ = ["panda"]

#: per joint (a, d, alpha) in m, m, rad -- Craig's convention, Franka's table
_MDH = ((0.0, 0.333, 0.0), (0.0, 0.0, -pi / 2), (0.0, 0.316, pi / 2), (0.0825, 0.0, pi / 2),
        (-0.0825, 0.384, -pi / 2), (0.0, 0.0, pi / 2), (0.088, 0.0, pi / 2))
#: joint limits [min, max] (rad), Franka's table
_QLIM = ((-2.8973, 2.8973), (-1.7628, 1.7628), (-2.8973, 2.8973), (-3.0718, -0.0698),
         (-2.8973, 2.8973), (-0.0175, 3.7525), (-2.8973, 2.8973))
#: the flange row of Franka's table: d = 0.107 m along the joint-7 axis
FLANGE = 0.107


def panda() -> SerialLink:
    """Franka Emika Panda, modified DH, 7 revolute joints, kinematics only.

    Kinematics (Craig's modified DH, m, rad)::

        j  a        d      alpha   theta   qlim (rad)
        1  0        0.333  0       q1      [-2.8973, 2.8973]
        2  0        0      -pi/2   q2      [-1.7628, 1.7628]
        3  0        0.316  pi/2    q3      [-2.8973, 2.8973]
        4  0.0825   0      pi/2    q4      [-3.0718, -0.0698]
        5  -0.0825  0.384  -pi/2   q5      [-2.8973, 2.8973]
        6  0        0      pi/2    q6      [-0.0175, 3.7525]
        7  0.088    0      pi/2    q7      [-2.8973, 2.8973]

    The tool is the flange, ``transl(0, 0, 0.107)`` (the table's "Flange" row); a gripper is
    added by the user (e.g. RTB-Python adds the Franka Hand as ``transl(0, 0, 0.103) @
    trotz(-pi/4)``). Source: Franka Control Interface documentation, "Robot and interface
    specifications" (the seeds give no 7-axis modified-DH arm).

    Named poses (rad): ``qz`` = 0 (joint 4 is then outside its limits: the straight-up pose
    is not reachable); ``qr`` = [0, -0.3, 0, -2.2, 0, 2.0, pi/4] (RTB-Python's ready pose).

    Returns
    -------
    SerialLink
        A new 7-joint robot named "Panda".
    """
    links = [RevoluteMDH(a=a, d=d, alpha=alpha, qlim=lim) for (a, d, alpha), lim in
             zip(_MDH, _QLIM)]
    return build(links, name="Panda", manufacturer="Franka Emika",
                 comment="Franka FCI modified-DH table; tool = flange", tool=trans(0, 0, FLANGE),
                 poses={"qz": [0] * 7, "qr": [0, -0.3, 0, -2.2, 0, 2.0, pi / 4]})
