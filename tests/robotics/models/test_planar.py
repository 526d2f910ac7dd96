"""Planar arms: analytic kinematics, and the two-link arm's analytic dynamics."""

import math

import numpy as np

from blocksim.robotics.models import planar2, planar3, twolink

pi = math.pi


def test_planar2_and_planar3_kinematics():
    p2, p3 = planar2(), planar3()
    assert (p2.n, p3.n) == (2, 3)
    np.testing.assert_allclose(p2.fkine(p2.qz)[:3, 3], [2, 0, 0], atol=1e-12)
    # seeds001-004.md §4.7 (planar RR): q = [pi/2, -pi/2] -> p = (1, 1, 0), R = I
    T = p2.fkine(np.array([pi / 2, -pi / 2]))
    np.testing.assert_allclose(T, trans_xy(1, 1, 0), atol=1e-12)
    q = np.array([0.3, -1.1, 0.7])
    c = np.cumsum(q)
    np.testing.assert_allclose(p3.fkine(q),
                               trans_xy(np.cos(c).sum(), np.sin(c).sum(), c[-1]), atol=1e-12)
    assert all(L.m == 0 for L in p2.links + p3.links)   # "no dynamics in this model"


def trans_xy(x, y, th):
    T = np.eye(4)
    T[:2, :2] = [[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]]
    T[:2, 3] = x, y
    return T


def test_twolink_moves_in_the_vertical_xz_plane():
    tl = twolink()
    assert tl.n == 2 and tl.name == "two link"
    np.testing.assert_allclose(tl.qn, [pi / 6, -pi / 6])
    q = np.array([0.4, 0.9])
    p = tl.fkine(q)[:3, 3]
    np.testing.assert_allclose(p, [math.cos(0.4) + math.cos(1.3), 0,
                                   math.sin(0.4) + math.sin(1.3)], atol=1e-12)
    np.testing.assert_allclose(tl.fkine(tl.qn)[:3, 3], [math.cos(pi / 6) + 1, 0, 0.5],
                               atol=1e-12)


def test_twolink_dynamics_are_point_masses_at_mid_link():
    # Spong: m1 = m2 = 1 kg, l1 = 1 m, lc1 = lc2 = 0.5 m, I = 0, g = 9.81 m/s^2
    tl = twolink()
    rng = np.random.default_rng(4)
    for _ in range(5):
        q = rng.uniform(-pi, pi, 2)
        c2 = math.cos(q[1])
        M = np.array([[1.5 + c2, 0.25 + 0.5 * c2], [0.25 + 0.5 * c2, 0.25]])
        np.testing.assert_allclose(tl.inertia(q), M, atol=1e-12)
        g = 9.81
        tau_g = [g * (1.5 * math.cos(q[0]) + 0.5 * math.cos(q[0] + q[1])),
                 g * 0.5 * math.cos(q[0] + q[1])]
        np.testing.assert_allclose(tl.gravload(q), tau_g, atol=1e-12)
