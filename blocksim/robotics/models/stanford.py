"""The Stanford (Scheinman) arm: two revolute joints, a prismatic third joint and a spherical
wrist, with dynamics.

Sources: the kinematic rows, masses, centres of mass, inertias, armature inertias and gear
ratios are the Scilab Robotics Toolbox's Stanford DYN matrix (verbatim); they agree with RTB
9.10 ``mdl_stanford`` except for link 5, see :func:`stanford`. The joint
limits are RTB 9.10's (the Scilab toolbox gives none).
"""

from __future__ import annotations

from math import pi

from ..arm.links import Prismatic, Revolute
from ..arm.serial_link import SerialLink
from ._build import DEG, build

__all__ = ["stanford"]

INCH = 0.0254


def stanford() -> SerialLink:
    """Stanford arm, standard DH, kinematics and dynamics (RTB ``mdl_stanford``).

    Kinematics (m, rad); joint 3 is prismatic with the constant ``theta3 = -pi/2``::

        j  theta   d       a  alpha   type
        1  q1      0.412   0  -pi/2   R
        2  q2      0.154   0  pi/2    R
        3  -pi/2   q3      0  0       P
        4  q4      0       0  -pi/2   R
        5  q5      0       0  pi/2    R
        6  q6      0.263   0  0       R

    Dynamics (Paul 1981, Tables 6.5 and 6.6, as given in the Scilab Robotics Toolbox): m (kg), r (m,
    link frame), diagonal inertia (kg m^2), armature inertia Jm (kg m^2); "gear ratios not
    currently known, though reflected armature inertia is known, so gear ratios are set to 1";
    no friction. The centres of mass are kept exactly as the sources give them although some
    look like centimetres (``r2 = [0, -1.054, 0]``, ``r3 = [0, 0, -6.447]``).

    Link 5 differs between the sources: the Scilab toolbox has ``r5 = [0, 0, 0.566]`` and
    ``I5 = diag(0.003, 0.003, 0.0004)``, RTB 9.10 ``r5 = [0, 0.566, 0.003]`` and
    ``I5 = diag(0.003, 0.0004, 0)``. The Scilab values are used: RTB's inertia violates the
    triangle inequality (Iyy + Izz < Ixx), which no rigid body has.

    Joint limits (RTB 9.10, from the IJCAI 1973 paper): joints 1, 2, 4, 6 +-170 deg, joint 5
    +-90 deg, joint 3 [12, 50] inch = [0.3048, 1.27] m.

    Named pose: ``qz`` = 0.

    Returns
    -------
    SerialLink
        A new 6-joint robot named "Stanford arm".
    """
    lim = [-170 * DEG, 170 * DEG]
    links = [
        Revolute(d=0.412, a=0, alpha=-pi / 2, m=9.29, r=[0, 0.0175, -0.1105],
                 I=[0.276, 0.255, 0.071], Jm=0.953, G=1, qlim=lim),
        Revolute(d=0.154, a=0, alpha=pi / 2, m=5.01, r=[0, -1.054, 0],
                 I=[0.108, 0.018, 0.100], Jm=2.193, G=1, qlim=lim),
        Prismatic(theta=-pi / 2, a=0, alpha=0, m=4.25, r=[0, 0, -6.447],
                  I=[2.51, 2.51, 0.006], Jm=0.782, G=1, qlim=[12 * INCH, 50 * INCH]),
        Revolute(d=0, a=0, alpha=-pi / 2, m=1.08, r=[0, 0.092, -0.054],
                 I=[0.002, 0.001, 0.001], Jm=0.106, G=1, qlim=lim),
        Revolute(d=0, a=0, alpha=pi / 2, m=0.63, r=[0, 0, 0.566],
                 I=[0.003, 0.003, 0.0004], Jm=0.097, G=1, qlim=[-90 * DEG, 90 * DEG]),
        Revolute(d=0.263, a=0, alpha=0, m=0.51, r=[0, 0, 1.554],
                 I=[0.013, 0.013, 0.0003], Jm=0.020, G=1, qlim=lim),
    ]
    return build(links, name="Stanford arm", manufacturer="Victor Scheinman",
                 comment="kinematics AIM-177; dynamics Paul 1981 Tables 6.5, 6.6",
                 poses={"qz": [0] * 6})
