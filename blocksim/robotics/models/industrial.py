"""Industrial 6-axis arms with spherical wrists, kinematics only: Kuka KR5 and ABB IRB 140.

Sources: RTB 9.10 ``mdl_KR5`` and ``mdl_irb140`` (the scripts, their poses,
references and numbers). Neither script gives joint limits or
dynamics, so none are set here.
"""

from __future__ import annotations

from math import pi

from ..arm.layout import trans
from ..arm.links import Revolute
from ..arm.serial_link import SerialLink
from ._build import DEG, build

__all__ = ["irb140", "kr5"]


def kr5() -> SerialLink:
    """Kuka KR5, standard DH, kinematics only (RTB ``mdl_KR5``, by Gautam Sinha, IIT Kanpur).

    Kinematics (m, rad)::

        j  theta  d      a     alpha
        1  q1     0.4    0.18  pi/2
        2  q2     0.135  0.60  pi
        3  q3     0.135  0.12  -pi/2
        4  q4     0.62   0     pi/2
        5  q5     0      0     -pi/2
        6  q6     0      0     0

    The tool is an 11.5 cm offset along z: ``tool = transl(0, 0, 0.115)``.

    Named poses (rad), "nominal working positions": ``qk1`` = [pi/4, pi/3, pi/4, pi/6, pi/4,
    pi/6], ``qk2`` = [pi/4, pi/3, pi/6, pi/3, pi/4, pi/6], ``qk3`` = [pi/6, pi/3, pi/6, pi/3,
    pi/6, pi/3]; and ``qz`` = 0.

    Returns
    -------
    SerialLink
        A new 6-joint robot named "Kuka KR5".
    """
    links = [Revolute(d=0.4, a=0.18, alpha=pi / 2),
             Revolute(d=0.135, a=0.60, alpha=pi),
             Revolute(d=0.135, a=0.12, alpha=-pi / 2),
             Revolute(d=0.62, a=0, alpha=pi / 2),
             Revolute(d=0, a=0, alpha=-pi / 2),
             Revolute(d=0, a=0, alpha=0)]
    return build(links, name="Kuka KR5", manufacturer="KUKA",
                 comment="by Gautam Sinha, IIT Kanpur; 11.5 cm tool", tool=trans(0, 0, 0.115),
                 poses={"qz": [0] * 6,
                        "qk1": [pi / 4, pi / 3, pi / 4, pi / 6, pi / 4, pi / 6],
                        "qk2": [pi / 4, pi / 3, pi / 6, pi / 3, pi / 4, pi / 6],
                        "qk3": [pi / 6, pi / 3, pi / 6, pi / 3, pi / 6, pi / 3]})


def irb140() -> SerialLink:
    """ABB IRB 140, standard DH, kinematics only (RTB ``mdl_irb140``).

    Kinematics (m, rad), from the IRB 140 data sheet and Djuric & Urbanic::

        j  theta  d      a      alpha
        1  q1     0.352  0.070  -pi/2
        2  q2     0      0.360  0
        3  q3     0      0      pi/2
        4  q4     0.380  0      -pi/2
        5  q5     0      0      pi/2
        6  q6     0.065  0      pi/2

    Named poses (rad): ``qz`` = 0; ``qd`` = [0, -90, 180, 0, 0, -90] deg (lower arm
    horizontal, as in the data sheet); ``qr`` = [0, -90, 90, 0, 90, -90] deg (ready, arm up).

    Returns
    -------
    SerialLink
        A new 6-joint robot named "IRB 140".
    """
    links = [Revolute(d=0.352, a=0.070, alpha=-pi / 2),
             Revolute(d=0, a=0.360, alpha=0),
             Revolute(d=0, a=0, alpha=pi / 2),
             Revolute(d=0.380, a=0, alpha=-pi / 2),
             Revolute(d=0, a=0, alpha=pi / 2),
             Revolute(d=0.065, a=0, alpha=pi / 2)]
    return build(links, name="IRB 140", manufacturer="ABB",
                 comment="IRB 140 data sheet; Djuric and Urbanic",
                 poses={"qz": [0] * 6,
                        "qd": [0, -90 * DEG, 180 * DEG, 0, 0, -90 * DEG],
                        "qr": [0, -90 * DEG, 90 * DEG, 0, 90 * DEG, -90 * DEG]})
