"""Stanford arm against the Scilab seed 004 DYN matrix and the derived kinematics values."""

import itertools
import math

import numpy as np
import pytest

from blocksim.robotics.arm.convert import from_dyn_matrix
from blocksim.robotics.arm.ikine6s import arm_config, ikine6s
from blocksim.robotics.models import stanford

pi = math.pi

# seed 004, stanford_dyn columns (verbatim)
SEED = dict(
    alpha=[-pi / 2, pi / 2, 0, -pi / 2, pi / 2, 0], A=[0, 0, 0, 0, 0, 0],
    theta=[0, 0, -pi / 2, 0, 0, 0], D=[0.412, 0.154, 0, 0, 0, 0.263], sigma=[0, 0, 1, 0, 0, 0],
    m=[9.29, 5.01, 4.25, 1.08, 0.63, 0.51], rx=[0] * 6,
    ry=[0.0175, -1.054, 0, 0.092, 0, 0], rz=[-0.1105, 0, -6.447, -0.054, 0.566, 1.554],
    Ixx=[0.276, 0.108, 2.51, 0.002, 0.003, 0.013], Iyy=[0.255, 0.018, 2.51, 0.001, 0.003, 0.013],
    Izz=[0.071, 0.100, 0.006, 0.001, 0.0004, 0.0003],
    Jm=[0.953, 2.193, 0.782, 0.106, 0.097, 0.020], G=[1] * 6)


def test_parameters_equal_the_scilab_dyn_matrix():
    robot = stanford()
    links = robot.links
    assert [L.sigma for L in links] == SEED["sigma"]
    assert robot.config == "RRPRRR"
    np.testing.assert_allclose([L.alpha for L in links], SEED["alpha"])
    np.testing.assert_allclose([L.a for L in links], SEED["A"])
    assert links[2].theta == pytest.approx(-pi / 2)
    np.testing.assert_allclose([L.d for i, L in enumerate(links) if i != 2],
                               [d for i, d in enumerate(SEED["D"]) if i != 2])
    np.testing.assert_allclose([L.m for L in links], SEED["m"])
    np.testing.assert_allclose([L.r for L in links],
                               np.column_stack([SEED["rx"], SEED["ry"], SEED["rz"]]))
    np.testing.assert_allclose([L.I for L in links],
                               [np.diag(v) for v in zip(SEED["Ixx"], SEED["Iyy"], SEED["Izz"])])
    np.testing.assert_allclose([L.Jm for L in links], SEED["Jm"])
    np.testing.assert_allclose([L.G for L in links], SEED["G"])
    assert all(L.B == 0 and not np.any(L.Tc) for L in links)   # "B and Tc are not given"


def test_model_behaves_like_the_scilab_dyn_matrix_robot():
    cols = ("alpha", "A", "theta", "D", "sigma", "m", "rx", "ry", "rz", "Ixx", "Iyy", "Izz")
    dyn = np.column_stack([SEED[c] for c in cols] + [np.zeros((6, 3))]
                          + [SEED["Jm"], SEED["G"]])
    seed_robot = from_dyn_matrix(dyn, "Stanford Arm")
    robot = stanford()
    rng = np.random.default_rng(6)
    for _ in range(3):
        q = rng.uniform(robot.qlim[:, 0], robot.qlim[:, 1])
        np.testing.assert_allclose(robot.fkine(q), seed_robot.fkine(q), atol=1e-12)
        np.testing.assert_allclose(robot.inertia(q), seed_robot.inertia(q), rtol=1e-12)
        np.testing.assert_allclose(robot.gravload(q), seed_robot.gravload(q), rtol=1e-12,
                                   atol=1e-12)


def test_every_link_inertia_is_physical():
    # principal moments satisfy the triangle inequality (RTB's link-5 values would not)
    for link in stanford().links:
        e = np.linalg.eigvalsh(link.I)
        assert e.min() >= 0 and e.sum() - 2 * e.max() >= -1e-15


def test_forward_kinematics_values():
    robot = stanford()
    # seeds001-004.md §4.7, derived from the seed-004 DH columns
    np.testing.assert_allclose(robot.fkine(robot.qz),
                               [[0, 1, 0, 0], [-1, 0, 0, 0.154], [0, 0, 1, 0.675], [0, 0, 0, 1]],
                               atol=1e-12)
    T = robot.fkine(np.array([0, 0, 0.5, 0, 0, 0]))
    np.testing.assert_allclose(T[:3, 3], [0, 0.154, 1.175], atol=1e-12)
    # the prismatic joint moves the wrist along the frame-2 z axis by exactly dq3
    q = np.array([0.4, -0.8, 0.6, 0.3, 0.2, -0.1])
    dq = np.array([0, 0, 0.25, 0, 0, 0])
    z2 = robot.fkine(q, all=True)[2][:3, 2]
    np.testing.assert_allclose(robot.fkine(q + dq)[:3, 3] - robot.fkine(q)[:3, 3], 0.25 * z2,
                               atol=1e-12)


def test_joint_limits():
    lim = stanford().qlim
    np.testing.assert_allclose(lim[2], [12 * 0.0254, 50 * 0.0254])
    np.testing.assert_allclose(np.degrees(lim[[0, 1, 3, 5]]), [[-170, 170]] * 4)
    np.testing.assert_allclose(np.degrees(lim[4]), [-90, 90])


def test_ikine6s_round_trip_with_the_prismatic_joint():
    robot = stanford()
    rng = np.random.default_rng(2)
    lo, hi = robot.qlim.T
    for _ in range(15):
        q = rng.uniform(lo, hi)
        T = robot.fkine(q)
        assert arm_config(robot, q)[1] == "u"          # positive extension
        for config in ("".join(c) for c in itertools.product("lr", "ud", "nf")):
            qs = ikine6s(robot, T, config)
            np.testing.assert_allclose(robot.fkine(qs), T, atol=1e-9)
        qs = ikine6s(robot, T, arm_config(robot, q))
        d = np.remainder(qs - q + pi, 2 * pi) - pi
        d[2] = qs[2] - q[2]
        np.testing.assert_allclose(d, 0, atol=1e-9)
