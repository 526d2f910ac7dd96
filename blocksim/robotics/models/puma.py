"""Unimation Puma 560: standard-DH model with full dynamics and the Armstrong-Khatib-Burdick
modified-DH model.

Sources: RTB 9.10 ``mdl_puma560`` and ``mdl_puma560akb`` (the scripts, their
poses, references and numbers). Cross-checks: the kinematics of ``puma560`` equal RTB's
``p560.trchain`` output, and the Scilab Robotics Toolbox lists the same DH rows for the
standard model and the same DH rows, masses and centres of mass for the AKB model.
"""

from __future__ import annotations

from math import pi

from ..arm.links import Revolute, RevoluteMDH
from ..arm.serial_link import SerialLink
from ._build import DEG, build

__all__ = ["puma560", "puma560akb"]


def puma560() -> SerialLink:
    """Unimation Puma 560, standard DH, kinematics and dynamics (RTB ``mdl_puma560``).

    Kinematics (m, rad)::

        j  theta  d        a       alpha
        1  q1     0        0       pi/2
        2  q2     0        0.4318  0
        3  q3     0.15005  0.0203  -pi/2
        4  q4     0.4318   0       pi/2
        5  q5     0        0       -pi/2
        6  q6     0        0       0

    Dynamics: the "consensus" parameters of Corke & Armstrong-Helouvry (ICRA 1994, pp.
    1608-1613, "params of 8/95"): link mass m (kg), centre of mass r (m, link frame), inertia
    about the centre of mass [Ixx, Iyy, Izz] (kg m^2, products zero), motor inertia Jm
    (kg m^2), gear ratio G (negative for joints 1 and 3), viscous friction B (N m s/rad) and
    Coulomb friction Tc = [Tc+, Tc-] (N m), the last three motor referred. m1 = 0:
    Armstrong found no value and it does not enter the dynamics. Joint limits from Wang & Chen
    (IEEE T-RA 7(4), 1991). Base and tool are identity; gravity is the SerialLink default.

    Named poses (rad): ``qz`` = 0 (L-shaped); ``qr`` = [0, pi/2, -pi/2, 0, 0, 0] (ready, arm
    up); ``qs`` = [0, 0, -pi/2, 0, 0, 0] (stretched along x; RTB's ``qstretch``, also
    defined); ``qn`` = [0, pi/4, pi, 0, pi/4, 0] (nominal, non-singular).

    Returns
    -------
    SerialLink
        A new 6-joint robot named "Puma 560".
    """
    links = [
        Revolute(d=0, a=0, alpha=pi / 2, m=0, r=[0, 0, 0], I=[0, 0.35, 0, 0, 0, 0],
                 Jm=200e-6, G=-62.6111, B=1.48e-3, Tc=[0.395, -0.435],
                 qlim=[-160 * DEG, 160 * DEG]),
        Revolute(d=0, a=0.4318, alpha=0, m=17.4, r=[-0.3638, 0.006, 0.2275],
                 I=[0.13, 0.524, 0.539, 0, 0, 0], Jm=200e-6, G=107.815, B=0.817e-3,
                 Tc=[0.126, -0.071], qlim=[-45 * DEG, 225 * DEG]),
        Revolute(d=0.15005, a=0.0203, alpha=-pi / 2, m=4.8, r=[-0.0203, -0.0141, 0.070],
                 I=[0.066, 0.086, 0.0125, 0, 0, 0], Jm=200e-6, G=-53.7063, B=1.38e-3,
                 Tc=[0.132, -0.105], qlim=[-225 * DEG, 45 * DEG]),
        Revolute(d=0.4318, a=0, alpha=pi / 2, m=0.82, r=[0, 0.019, 0],
                 I=[1.8e-3, 1.3e-3, 1.8e-3, 0, 0, 0], Jm=33e-6, G=76.0364, B=71.2e-6,
                 Tc=[11.2e-3, -16.9e-3], qlim=[-110 * DEG, 170 * DEG]),
        Revolute(d=0, a=0, alpha=-pi / 2, m=0.34, r=[0, 0, 0],
                 I=[0.3e-3, 0.4e-3, 0.3e-3, 0, 0, 0], Jm=33e-6, G=71.923, B=82.6e-6,
                 Tc=[9.26e-3, -14.5e-3], qlim=[-100 * DEG, 100 * DEG]),
        Revolute(d=0, a=0, alpha=0, m=0.09, r=[0, 0, 0.032],
                 I=[0.15e-3, 0.15e-3, 0.04e-3, 0, 0, 0], Jm=33e-6, G=76.686, B=36.7e-6,
                 Tc=[3.96e-3, -10.5e-3], qlim=[-266 * DEG, 266 * DEG]),
    ]
    qs = [0, 0, -pi / 2, 0, 0, 0]
    return build(links, name="Puma 560", manufacturer="Unimation",
                 comment="viscous friction; params of 8/95",
                 poses={"qz": [0] * 6, "qr": [0, pi / 2, -pi / 2, 0, 0, 0], "qs": qs,
                        "qstretch": qs, "qn": [0, pi / 4, pi, 0, pi / 4, 0]})


def puma560akb() -> SerialLink:
    """Unimation Puma 560, modified DH, Armstrong-Khatib-Burdick parameters (RTB
    ``mdl_puma560akb``).

    Kinematics (Craig's modified DH, m, rad)::

        j  theta  d        a        alpha
        1  q1     0        0        0
        2  q2     0.2435   0        -pi/2
        3  q3     -0.0934  0.4318   0
        4  q4     0.4331   -0.0203  pi/2
        5  q5     0        0        -pi/2
        6  q6     0        0        pi/2

    Dynamics from "The Explicit Dynamic Model and Inertial Parameters of the Puma 560 Arm"
    (Armstrong, Khatib and Burdick, 1986): m (kg), r (m), diagonal inertia (kg m^2), motor
    inertia Jm (kg m^2) and the gear ratios of :func:`puma560`. Viscous and Coulomb friction
    are unknown in the source and left at zero; no joint limits are given. The zero pose and
    joint senses differ from :func:`puma560` (these are not the same parametrisation).

    Named poses (rad): ``qz`` = 0; ``qr`` = [0, -pi/2, pi/2, 0, 0, 0] (ready, arm up);
    ``qstretch`` = [0, 0, pi/2, 0, 0, 0] (horizontal along x).

    Returns
    -------
    SerialLink
        A new 6-joint robot named "Puma560-AKB".
    """
    links = [
        RevoluteMDH(d=0, a=0, alpha=0, m=0, r=[0, 0, 0], I=[0, 0, 0.35],
                    Jm=291e-6, G=-62.6111),
        RevoluteMDH(d=0.2435, a=0, alpha=-pi / 2, m=17.4, r=[0.068, 0.006, -0.016],
                    I=[0.13, 0.524, 0.539], Jm=409e-6, G=107.815),
        RevoluteMDH(d=-0.0934, a=0.4318, alpha=0, m=4.8, r=[0, -0.070, 0.014],
                    I=[0.066, 0.0125, 0.066], Jm=299e-6, G=-53.7063),
        RevoluteMDH(d=0.4331, a=-0.0203, alpha=pi / 2, m=0.82, r=[0, 0, -0.019],
                    I=[1.8e-3, 1.8e-3, 1.3e-3], Jm=35e-6, G=76.0364),
        RevoluteMDH(d=0, a=0, alpha=-pi / 2, m=0.34, r=[0, 0, 0],
                    I=[0.3e-3, 0.3e-3, 0.4e-3], Jm=35e-6, G=71.923),
        RevoluteMDH(d=0, a=0, alpha=pi / 2, m=0.09, r=[0, 0, 0.032],
                    I=[0.15e-3, 0.15e-3, 0.04e-3], Jm=35e-6, G=76.686),
    ]
    return build(links, name="Puma560-AKB", manufacturer="Unimation", comment="AK&B",
                 poses={"qz": [0] * 6, "qr": [0, -pi / 2, pi / 2, 0, 0, 0],
                        "qstretch": [0, 0, pi / 2, 0, 0, 0]})
