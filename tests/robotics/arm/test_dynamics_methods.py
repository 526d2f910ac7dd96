"""The dynamics methods through SerialLink: the model zoo, the converters and Modern Robotics.

``blocksim.robotics.mr`` (MR's own Newton-Euler, written independently) is the reference for
arms converted with ``convert.to_mr_dynamics`` / ``from_mr_dynamics`` (seeds001-004 §5.4: the
RTB torque is the MR torque plus ``G^2 Jm qdd`` and minus the friction).
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics import mr
from blocksim.robotics.arm import SerialLink, from_mr_dynamics, to_mr_dynamics
from blocksim.robotics.arm.dynamics_methods import DynamicsMethods
from blocksim.robotics.models import puma560, stanford, twolink

RNG = np.random.default_rng(7)
Q = np.array([0.1, 0.7, -1.2, 0.3, 0.4, 0.5])
QD = np.array([0.2, -0.1, 0.3, 0.4, -0.5, 0.6])
QDD = np.array([0.5, 0.4, -0.3, 0.2, 0.1, -0.2])


def test_seriallink_has_the_dynamics_methods_and_the_zoo_puma_the_rtb_numbers():
    r = puma560()
    assert isinstance(r, DynamicsMethods)
    np.testing.assert_allclose(r.rne(Q, QD, QDD), [27.516860961, 25.232485037, 12.662901118,
                                                   1.05353242, -1.237030004, 0.394380077],
                               atol=2e-9)
    np.testing.assert_allclose(r.gravload(r.poses["qn"]), [0, 31.6399, 6.0351, 0, 0.0283, 0],
                               atol=1e-4)
    np.testing.assert_allclose(r.nofriction().accel(Q, QD, np.zeros(6)),
                               [-1.327401788, -6.006469629, -1.525787742, -0.851673609,
                                1.329644258, -0.666540002], atol=2e-9)


def test_nofriction_returns_a_new_robot_and_leaves_the_original():
    r = puma560()
    tau = r.rne(Q, QD, QDD)
    nf = r.nofriction()
    assert type(nf) is SerialLink and nf is not r and nf.name == "NF/" + r.name
    np.testing.assert_array_equal(r.rne(Q, QD, QDD), tau)
    # Coulomb gone, viscous kept; 'all' removes both; 'viscous' only the viscous part
    G = np.array([link.G for link in r.links])
    B = np.array([link.B for link in r.links])
    np.testing.assert_allclose(nf.friction(QD), -G**2 * B * QD, rtol=1e-12)
    np.testing.assert_array_equal(r.nofriction("all").friction(QD), 0.0)
    np.testing.assert_allclose(r.nofriction("viscous").friction(QD) - r.friction(QD),
                               G**2 * B * QD, rtol=1e-12)
    np.testing.assert_allclose(r.rne(Q, QD, QDD) - r.nofriction("all").rne(Q, QD, QDD),
                               -r.friction(QD), rtol=1e-12)


def test_methods_follow_changes_to_the_robot():
    r = puma560()
    g = r.gravload(Q)
    r.gravity = [0, 0, 2 * 9.81]
    np.testing.assert_allclose(r.gravload(Q), 2 * g, rtol=1e-12)
    link = r.links[2]
    link.m = 2 * link.m
    r.set_link(2, link)
    assert not np.allclose(r.gravload(Q), 2 * g)


def test_cinertia_maps_end_effector_acceleration_to_wrench():
    r = puma560()
    q = r.poses["qn"]
    Lam = r.cinertia(q)
    J = r.jacob0(q)
    np.testing.assert_allclose(Lam, Lam.T, atol=0)
    assert np.linalg.eigvalsh(Lam).min() > 0
    np.testing.assert_allclose(J.T @ Lam @ J, r.inertia(q), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="square"):
        twolink().cinertia([0.1, 0.2])


def test_converted_arms_agree_with_modern_robotics_newton_euler():
    for r in (stanford(), puma560()):
        Mlist, Glist, Slist = to_mr_dynamics(r)
        G = np.array([link.G for link in r.links])
        Jm = np.array([link.Jm for link in r.links])
        nf = r.nofriction("all")
        g = -r.gravity
        for _ in range(2):
            q, qd, qdd = RNG.uniform(-1, 1, (3, 6))
            ftip = RNG.uniform(-3, 3, 6)                        # MR (m, f)
            fext = np.concatenate((ftip[3:], ftip[:3]))         # RTB [f; m]
            tau = mr.InverseDynamics(q, qd, qdd, g, ftip, Mlist, Glist, Slist)
            # RTB = MR + rotor inertia - friction
            np.testing.assert_allclose(r.rne(q, qd, qdd, fext=fext),
                                       tau + G**2 * Jm * qdd - r.friction(qd), rtol=1e-9,
                                       atol=1e-9)
            np.testing.assert_allclose(nf.inertia(q) - np.diag(G**2 * Jm),
                                       mr.MassMatrix(q, Mlist, Glist, Slist), rtol=1e-9,
                                       atol=1e-10)
            np.testing.assert_allclose(r.coriolis(q, qd) @ qd,
                                       mr.VelQuadraticForces(q, qd, Mlist, Glist, Slist),
                                       rtol=1e-9, atol=1e-10)
            np.testing.assert_allclose(r.gravload(q), mr.GravityForces(q, g, Mlist, Glist, Slist),
                                       rtol=1e-9, atol=1e-10)
            z = np.zeros(6)
            np.testing.assert_allclose(r.rne(q, z, z, gravity=[0, 0, 0], fext=fext),
                                       mr.EndEffectorForces(q, ftip, Mlist, Glist, Slist),
                                       rtol=1e-9, atol=1e-10)
        # without rotors both forward dynamics agree
        back = from_mr_dynamics(Mlist, Glist, Slist, g=g)
        taus = RNG.uniform(-5, 5, 6)
        np.testing.assert_allclose(back.accel(q, qd, taus, fext=fext),
                                   mr.ForwardDynamics(q, qd, taus, g, ftip, Mlist, Glist, Slist),
                                   rtol=1e-8, atol=1e-8)


def test_modern_robotics_example_through_the_converter():
    """MR's 3-link example (seeds001-004 §1.6). Its first screw axis (1,0,1,0,1,0) has
    |omega| = sqrt(2): the converted robot takes q = k theta and tau_MR = k tau."""
    Mlist = [[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]],
             [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]],
             [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]],
             [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]]]
    Glist = [np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7]),
             np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393]),
             np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275])]
    Slist = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, -0.089, 0, 0],
                      [0, 1, 0, -0.089, 0, 0.425]], dtype=float).T
    k = np.linalg.norm(Slist[:3], axis=0)
    r = from_mr_dynamics(Mlist, Glist, Slist / k, g=[0, 0, -9.8])
    th, dth, ddth = np.array([0.1, 0.1, 0.1]), np.array([0.1, 0.2, 0.3]), np.array([2, 1.5, 1])
    fext = np.ones(6)                                   # Ftip = ones: the same in both orders
    np.testing.assert_allclose(k * r.rne(k * th, k * dth, k * ddth, fext=fext),
                               [74.69616155, -33.06766016, -3.23057314], atol=1e-7)
    np.testing.assert_allclose(k[:, None] * r.inertia(k * th) * k,
                               mr.MassMatrix(th, Mlist, Glist, Slist), atol=1e-12)
    qdd = r.accel(k * th, k * dth, np.array([0.5, 0.6, 0.7]) / k, fext=fext)
    np.testing.assert_allclose(qdd / k, [-0.97392907, 25.58466784, -32.91499212], atol=1e-7)


def test_fdyn_through_seriallink_under_computed_torque_control():
    """tau = rne(q, qd, Kp e - Kd qd) makes e'' + Kd e' + Kp e = 0 exactly: critically damped
    for Kp = 25, Kd = 10, so e(t) = e0 (1 + 5 t) exp(-5 t) from rest."""
    r = puma560()
    target = np.array([0.3, -0.2, 0.4, 0.1, -0.3, 0.2])

    def torque(t, q, qd):                       # RTB torqfun without the robot argument
        return r.rne(q, qd, 25 * (target - q) - 10 * qd)

    t_eval = np.linspace(0, 1, 6)
    t, q, qd = r.fdyn(1.0, None, None, torque, t_eval=t_eval, rtol=1e-9, atol=1e-11)
    assert q.shape == (6, 6) and qd.shape == (6, 6)
    np.testing.assert_allclose(t, t_eval)
    decay = (1 + 5 * t) * np.exp(-5 * t)
    np.testing.assert_allclose(q, target * (1 - decay[:, None]), atol=1e-7)
    np.testing.assert_allclose(qd, target * (25 * t * np.exp(-5 * t))[:, None], atol=1e-6)
