"""fkine, jacob0, jacobe, jacob_dot: seed values, independent products, finite differences."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from blocksim.robotics import mr
from blocksim.robotics.arm import (
    Link,
    Revolute,
    RevoluteMDH,
    SerialLink,
    from_dh_matrix,
    from_poe,
    kinematics,
    to_poe,
)

pi = np.pi
RNG = np.random.default_rng(7)


# --------------------------------------------------------------------------- test arms (seeds)

def puma() -> SerialLink:
    """Puma 560 kinematics, standard DH (seed 000 trchain; Appendix B.1)."""
    return SerialLink([Revolute(alpha=pi / 2), Revolute(a=0.4318),
                       Revolute(d=0.15005, a=0.0203, alpha=-pi / 2),
                       Revolute(d=0.4318, alpha=pi / 2), Revolute(alpha=-pi / 2), Revolute()],
                      name="Puma 560")


def puma_akb() -> SerialLink:
    """Puma 560 AKB, modified DH, seed 004 rt_link rows [alpha A theta D sigma]."""
    return from_dh_matrix([[0, 0, 0, 0, 0], [-pi / 2, 0, 0, 0.2435, 0],
                           [0, 0.4318, 0, -0.0934, 0], [pi / 2, -0.0203, 0, 0.4331, 0],
                           [-pi / 2, 0, 0, 0, 0], [pi / 2, 0, 0, 0, 0]], "P560M",
                          convention="modified")


def stanford() -> SerialLink:
    """Stanford arm (prismatic joint 3, theta3 = -pi/2), RTB rows [theta d a alpha sigma]."""
    return SerialLink([Link([0, 0.412, 0, -pi / 2, 0]), Link([0, 0.154, 0, pi / 2, 0]),
                       Link([-pi / 2, 0, 0, 0, 1]), Link([0, 0, 0, -pi / 2, 0]),
                       Link([0, 0, 0, pi / 2, 0]), Link([0, 0.263, 0, 0, 0])], name="Stanford")


def trans(x, y, z):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def rot(axis, a):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec(a * np.eye(3)["xyz".index(axis)]).as_matrix()
    return T


def dressed(robot: SerialLink) -> SerialLink:
    """A copy with a non-trivial base, tool and offsets."""
    r = robot.copy()
    r.base = trans(0.1, -0.2, 0.3) @ rot("z", 0.4) @ rot("x", -0.3)
    r.tool = trans(0.02, 0.03, 0.1) @ rot("y", 0.5)
    r.offset = RNG.uniform(-0.3, 0.3, r.n) * (r.arrays.sigma == 0)
    return r


ARMS = {"puma": puma, "akb": puma_akb, "stanford": stanford,
        "dressed_stanford": lambda: dressed(stanford()),
        "dressed_puma_poe": lambda: dressed(from_poe(*to_poe(puma())))}


def random_q(robot, rng=RNG):
    return np.where(robot.arrays.sigma == 0, rng.uniform(-pi, pi, robot.n),
                    rng.uniform(0.1, 0.8, robot.n))


# ------------------------------------------------------------------------------ seed values

def test_seed000_puma_trchain():
    """p560.trchain: Rz(q1)Rx(90)Rz(q2)Tx(0.4318)Rz(q3)Tz(0.15005)Tx(0.0203)Rx(-90)
    Rz(q4)Tz(0.4318)Rx(90)Rz(q5)Rx(-90)Rz(q6)."""
    r = puma()
    for q in RNG.uniform(-pi, pi, (5, 6)):
        T = (rot("z", q[0]) @ rot("x", pi / 2) @ rot("z", q[1]) @ trans(0.4318, 0, 0)
             @ rot("z", q[2]) @ trans(0, 0, 0.15005) @ trans(0.0203, 0, 0) @ rot("x", -pi / 2)
             @ rot("z", q[3]) @ trans(0, 0, 0.4318) @ rot("x", pi / 2) @ rot("z", q[4])
             @ rot("x", -pi / 2) @ rot("z", q[5]))
        np.testing.assert_allclose(r.fkine(q), T, atol=1e-14)


def test_seed004_derived_fkine_values():
    rr = from_dh_matrix([[0, 1, 0, 0], [0, 1, 0, 0]], "Simple RR Planar")
    np.testing.assert_allclose(rr.fkine([0, 0]), trans(2, 0, 0), atol=1e-15)
    np.testing.assert_allclose(rr.fkine([pi / 2, -pi / 2]), trans(1, 1, 0), atol=1e-15)
    p = from_dh_matrix([[pi / 2, 0, 0, 0, 0], [0, 0.4318, 0, 0, 0],
                        [-pi / 2, 0.0203, 0, 0.15005, 0], [pi / 2, 0, 0, 0.4318, 0],
                        [-pi / 2, 0, 0, 0, 0], [0, 0, 0, 0, 0]], "P560 (K)")
    np.testing.assert_allclose(p.fkine(np.zeros(6)), trans(0.4521, -0.15005, 0.4318),
                               atol=1e-15)
    np.testing.assert_allclose(p.fkine([0, pi / 2, -pi / 2, 0, 0, 0]),
                               trans(0.0203, -0.15005, 0.8636), atol=1e-15)
    np.testing.assert_allclose(puma_akb().fkine(np.zeros(6)), trans(0.4115, 0.1501, 0.4331),
                               atol=1e-15)
    s = stanford()
    T0 = np.array([[0, 1, 0, 0], [-1, 0, 0, 0.154], [0, 0, 1, 0.675], [0, 0, 0, 1]])
    np.testing.assert_allclose(s.fkine(np.zeros(6)), T0, atol=1e-15)
    T1 = T0.copy()
    T1[2, 3] = 1.175
    np.testing.assert_allclose(s.fkine([0, 0, 0.5, 0, 0, 0]), T1, atol=1e-15)


def test_twolink_analytic():
    """RTB mdl_twolink (a1 = a2 = 1, base trotx(pi/2)): tl.fkine([0.2 0.3])."""
    r = SerialLink([Revolute(a=1), Revolute(a=1)], base=rot("x", pi / 2))
    T = r.fkine([0.2, 0.3])
    x, z = np.cos(0.2) + np.cos(0.5), np.sin(0.2) + np.sin(0.5)
    np.testing.assert_allclose(T[:3, 3], [x, 0, z], atol=1e-15)
    np.testing.assert_allclose(T[:3, :3], rot("x", pi / 2)[:3, :3] @ rot("z", 0.5)[:3, :3],
                               atol=1e-15)


# ------------------------------------------------------------------ conventions and frames

def test_standard_and_modified_dh_of_the_same_arm():
    # RTB mdl_twolink vs mdl_twolink_mdh (Craig): same end-effector pose
    std = SerialLink([Revolute(a=1), Revolute(a=1)])
    mdh = SerialLink([RevoluteMDH(), RevoluteMDH(a=1)], tool=trans(1, 0, 0))
    # Puma: modified row i = (alpha_{i-1}, a_{i-1}, d_i); the last a, alpha go to the tool
    p = puma()
    alpha, a, d = np.r_[0, p.alpha[:-1]], np.r_[0, p.a[:-1]], p.d
    pm = SerialLink([RevoluteMDH(d=d[i], a=a[i], alpha=alpha[i]) for i in range(6)],
                    tool=trans(p.a[-1], 0, 0) @ rot("x", p.alpha[-1]))
    assert pm.mdh and not p.mdh
    for _ in range(5):
        q2 = RNG.uniform(-pi, pi, 2)
        np.testing.assert_allclose(mdh.fkine(q2), std.fkine(q2), atol=1e-14)
        q = RNG.uniform(-pi, pi, 6)
        np.testing.assert_allclose(pm.fkine(q), p.fkine(q), atol=1e-14)


@pytest.mark.parametrize("arm", ["puma", "akb", "stanford", "dressed_stanford"])
def test_fkine_all_frames_are_the_link_products(arm):
    r = ARMS[arm]()
    q = random_q(r)
    frames = r.fkine(q, all=True)
    assert frames.shape == (r.n + 1, 4, 4)
    np.testing.assert_allclose(frames[0], r.base, atol=0)
    links = r.links
    for i in range(r.n):
        np.testing.assert_allclose(frames[i + 1], frames[i] @ links[i].A(q[i]), atol=1e-14)
    np.testing.assert_allclose(frames[-1] @ r.tool, r.fkine(q), atol=1e-14)


def test_trajectory_shapes_and_kernel_use():
    r = stanford()
    qs = np.array([random_q(r) for _ in range(4)])
    T = r.fkine(qs)
    assert T.shape == (4, 4, 4)
    for k in range(4):
        np.testing.assert_allclose(T[k], r.fkine(qs[k]), atol=0)
    assert r.fkine(qs, all=True).shape == (4, 7, 4, 4)
    assert r.fkine(qs.tolist()).shape == (4, 4, 4)
    kin = r.kin
    assert kin.shape == (kinematics.kin_size(6),) and kin.dtype == np.float64
    np.testing.assert_array_equal(kinematics.fkine(kin, qs[0]), r.fkine(qs[0]))
    with pytest.raises(ValueError, match="one element per joint"):
        kinematics.fkine(kin, np.zeros(5))
    with pytest.raises(ValueError, match="shape"):
        r.fkine(np.zeros((2, 5)))


@pytest.mark.parametrize("arm", ["puma", "akb", "stanford", "dressed_stanford"])
def test_dh_equals_poe(arm):
    r = ARMS[arm]()
    M, S = to_poe(r)
    back = from_poe(M, S)
    assert back.convention == "transforms"
    for _ in range(4):
        q = random_q(r)
        np.testing.assert_allclose(mr.FKinSpace(M, S, q), r.fkine(q), atol=1e-13)
        np.testing.assert_allclose(back.fkine(q), r.fkine(q), atol=1e-13)


# --------------------------------------------------------------------------------- Jacobians

def numeric_jacobian(robot, q, h=1e-6):
    J = np.empty((6, robot.n))
    for i in range(robot.n):
        dq = np.zeros(robot.n)
        dq[i] = h
        Tp, Tm = robot.fkine(q + dq), robot.fkine(q - dq)
        J[:3, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        J[3:, i] = Rotation.from_matrix(Tp[:3, :3] @ Tm[:3, :3].T).as_rotvec() / (2 * h)
    return J


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


@pytest.mark.parametrize("arm", list(ARMS))
def test_jacob0_matches_finite_differences(arm):
    r = ARMS[arm]()
    for _ in range(3):
        q = random_q(r)
        np.testing.assert_allclose(r.jacob0(q), numeric_jacobian(r, q), atol=2e-8)


@pytest.mark.parametrize("arm", list(ARMS))
def test_jacobe_relations(arm):
    r = ARMS[arm]()
    q = random_q(r)
    T, J0, Je = r.fkine(q), r.jacob0(q), r.jacobe(q)
    R, p = T[:3, :3], T[:3, 3]
    Z = np.zeros((3, 3))
    np.testing.assert_allclose(Je, np.block([[R.T, Z], [Z, R.T]]) @ J0, atol=1e-14)
    # spatial Jacobian (velocity of the point at the world origin), then Je = Ad(T^-1) Js
    Js = np.block([[np.eye(3), skew(p)], [Z, np.eye(3)]]) @ J0
    Ti = np.linalg.inv(T)
    Ad = np.block([[Ti[:3, :3], skew(Ti[:3, 3]) @ Ti[:3, :3]], [Z, Ti[:3, :3]]])
    np.testing.assert_allclose(Je, Ad @ Js, atol=1e-13)
    np.testing.assert_array_equal(r.jacobn(q), Je)
    # Modern Robotics (w, v) Jacobians of the PoE form (seeds 001-004 section 5.3)
    M, S = to_poe(r)
    JsMR = mr.JacobianSpace(S, q)
    np.testing.assert_allclose(J0, np.block([[-skew(p), np.eye(3)], [np.eye(3), Z]]) @ JsMR,
                               atol=1e-13)
    Blist = mr.Adjoint(mr.TransInv(M)) @ S
    JbMR = mr.JacobianBody(Blist, q)
    np.testing.assert_allclose(Je, np.block([[Z, np.eye(3)], [np.eye(3), Z]]) @ JbMR,
                               atol=1e-13)


@pytest.mark.parametrize("arm", ["puma", "stanford", "dressed_stanford", "dressed_puma_poe"])
def test_jacob_dot_matches_finite_differences(arm):
    r = ARMS[arm]()
    h = 1e-6
    for _ in range(3):
        q, qd = random_q(r), RNG.uniform(-1, 1, r.n)
        fd = (r.jacob0(q + h * qd) - r.jacob0(q - h * qd)) @ qd / (2 * h)
        np.testing.assert_allclose(r.jacob_dot(q, qd), fd, atol=1e-7)
    np.testing.assert_array_equal(r.jacob_dot(q, np.zeros(r.n)), np.zeros(6))
    with pytest.raises(ValueError, match="shape"):
        r.jacob_dot(q, np.zeros(r.n + 1))


def test_jacobian_of_planar_arm_analytic():
    r = SerialLink([Revolute(a=1.0), Revolute(a=0.5)])
    q1, q2 = 0.3, -0.8
    J = r.jacob0([q1, q2])
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    expected = np.array([[-s1 - 0.5 * s12, -0.5 * s12], [c1 + 0.5 * c12, 0.5 * c12], [0, 0],
                         [0, 0], [0, 0], [1, 1]])
    np.testing.assert_allclose(J, expected, atol=1e-15)
