"""Puma 560 models against the seeds: the trchain of seed 000, the Scilab seed 004 tables and
the forward kinematics values derived from them (seeds001-004.md §4.7), and ikine6s."""

import itertools
import math
import re

import numpy as np
import pytest

from blocksim.robotics.arm.ikine6s import arm_config, ikine6s
from blocksim.robotics.arm.layout import from_dh, rotx, rotz, trans
from blocksim.robotics.models import puma560, puma560akb

pi = math.pi
DEG = pi / 180

# seed 000, SerialLink.trchain example (verbatim)
TRCHAIN = ("Rz(q1)Rx(90)Rz(q2)Tx(0.431800)Rz(q3)Tz(0.150050)Tx(0.020300)Rx(-90)"
           "Rz(q4)Tz(0.431800)Rx(90)Rz(q5)Rx(-90)Rz(q6)")


def chain(text, q):
    """Compose an RTB elementary-transform string (angles in degrees) at joint values q."""
    T = np.eye(4)
    for op, arg in re.findall(r"([TR][xyz])\(([^)]*)\)", text):
        v = q[int(arg[1:]) - 1] if arg.startswith("q") else float(arg)
        if op[0] == "R" and not arg.startswith("q"):
            v *= DEG
        T = T @ {"Rx": lambda a: rotx(a), "Rz": lambda a: rotz(a),
                 "Tx": lambda a: trans(a, 0, 0), "Tz": lambda a: trans(0, 0, a)}[op](v)
    return T


def test_puma560_matches_the_seed_trchain():
    robot = puma560()
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = rng.uniform(-pi, pi, 6)
        np.testing.assert_allclose(robot.fkine(q), chain(TRCHAIN, q), atol=1e-12)


def test_puma560_matches_the_scilab_seed_kinematics():
    # seed 004: rt_link([alpha A theta D sigma], "standard") rows of p560_kinem
    rows = [[pi / 2, 0, 0, 0, 0], [0, 0.4318, 0, 0, 0], [-pi / 2, 0.0203, 0, 0.15005, 0],
            [pi / 2, 0, 0, 0.4318, 0], [-pi / 2, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    dh = [[theta, D, A, alpha] for alpha, A, theta, D, _ in rows]
    arr = from_dh(dh)
    robot = puma560()
    q = np.array([0.3, -0.7, 1.1, 0.2, -0.5, 2.0])
    T = np.eye(4)
    for i in range(6):
        T = T @ arr.A[i] @ rotz(q[i]) @ arr.B[i]
    np.testing.assert_allclose(robot.fkine(q), T, atol=1e-12)


def test_puma560_named_poses_and_their_poses():
    robot = puma560()
    np.testing.assert_array_equal(robot.qz, np.zeros(6))
    np.testing.assert_allclose(robot.qr, [0, pi / 2, -pi / 2, 0, 0, 0])
    np.testing.assert_allclose(robot.qs, [0, 0, -pi / 2, 0, 0, 0])
    np.testing.assert_allclose(robot.qstretch, robot.qs)
    np.testing.assert_allclose(robot.qn, [0, pi / 4, pi, 0, pi / 4, 0])
    # seeds001-004.md §4.7: zero pose R = I, p = (a2 + a3, -d3, d4); ready pose arm up
    T = robot.fkine(robot.qz)
    np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [0.4521, -0.15005, 0.4318], atol=1e-12)
    T = robot.fkine(robot.qr)
    np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [0.0203, -0.15005, 0.8636], atol=1e-12)
    # stretched along x: the tool z axis points along world x, reach d4 + a2
    T = robot.fkine(robot.qs)
    np.testing.assert_allclose(T[:3, 2], [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [0.8636, -0.15005, -0.0203], atol=1e-12)


def test_puma560_parameters():
    robot = puma560()
    assert (robot.name, robot.manufacturer) == ("Puma 560", "Unimation")
    assert robot.n == 6 and robot.config == "RRRRRR" and not robot.mdh
    links = robot.links
    np.testing.assert_allclose([L.m for L in links], [0, 17.4, 4.8, 0.82, 0.34, 0.09])
    np.testing.assert_allclose([L.G for L in links],
                               [-62.6111, 107.815, -53.7063, 76.0364, 71.923, 76.686])
    np.testing.assert_allclose([L.Jm for L in links], [200e-6] * 3 + [33e-6] * 3)
    np.testing.assert_allclose([L.B for L in links],
                               [1.48e-3, 0.817e-3, 1.38e-3, 71.2e-6, 82.6e-6, 36.7e-6])
    np.testing.assert_allclose(links[2].Tc, [0.132, -0.105])
    np.testing.assert_allclose(links[1].r, [-0.3638, 0.006, 0.2275])
    np.testing.assert_allclose(np.diag(links[1].I), [0.13, 0.524, 0.539])
    np.testing.assert_allclose(robot.qlim / DEG, [[-160, 160], [-45, 225], [-225, 45],
                                                  [-110, 170], [-100, 100], [-266, 266]])


def test_puma560akb_against_the_scilab_seed():
    robot = puma560akb()
    assert robot.mdh and robot.n == 6 and robot.name == "Puma560-AKB"
    # seed 004, p560m_kmr: rt_link([alpha A theta D sigma], "mod"), masses and COGs
    rows = [[0, 0, 0, 0, 0], [-pi / 2, 0, 0, 0.2435, 0], [0, 0.4318, 0, -0.0934, 0],
            [pi / 2, -0.0203, 0, 0.4331, 0], [-pi / 2, 0, 0, 0, 0], [pi / 2, 0, 0, 0, 0]]
    for link, (alpha, A, _, D, _) in zip(robot.links, rows):
        assert (link.alpha, link.a, link.d) == pytest.approx((alpha, A, D))
    np.testing.assert_allclose([L.m for L in robot.links], [0, 17.4, 4.8, 0.82, 0.34, 0.09])
    np.testing.assert_allclose([L.r for L in robot.links],
                               [[0, 0, 0], [0.068, 0.006, -0.016], [0, -0.070, 0.014],
                                [0, 0, -0.019], [0, 0, 0], [0, 0, 0.032]])
    # seeds001-004.md §4.7: zero pose R = I, p = (0.4115, 0.1501, 0.4331)
    T = robot.fkine(robot.qz)
    np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [0.4318 - 0.0203, 0.2435 - 0.0934, 0.4331],
                               atol=1e-12)
    # ready pose: arm up, R = I
    T = robot.fkine(robot.qr)
    np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [-0.0203, 0.1501, 0.4318 + 0.4331], atol=1e-12)


def test_ikine6s_on_the_puma560_model():
    robot = puma560()
    rng = np.random.default_rng(5)
    lo, hi = robot.qlim.T
    for _ in range(15):
        q = rng.uniform(np.maximum(lo, -pi), np.minimum(hi, pi))
        T = robot.fkine(q)
        own = arm_config(robot, q)
        for config in ("".join(c) for c in itertools.product("lr", "ud", "nf")):
            qs = ikine6s(robot, T, config)
            np.testing.assert_allclose(robot.fkine(qs), T, atol=1e-9)
            if config == own:
                np.testing.assert_allclose(np.remainder(qs - q + pi, 2 * pi) - pi, 0,
                                           atol=1e-8)
    # the nominal pose is the default configuration 'lun'; q3 = pi comes back as -pi, the
    # representative inside joint 3's limits [-225, 45] deg
    q = ikine6s(robot, robot.fkine(robot.qn))
    np.testing.assert_allclose(q, [0, pi / 4, -pi, 0, pi / 4, 0], atol=1e-12)


def test_ikine6s_rejects_the_modified_dh_model():
    robot = puma560akb()
    with pytest.raises(ValueError, match="standard DH"):
        ikine6s(robot, robot.fkine(robot.qz))
