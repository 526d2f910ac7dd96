"""Legacy DH/DYN matrices (seed 004), product of exponentials and MR dynamics (seed 001)."""

import numpy as np
import pytest

from blocksim.robotics import mr
from blocksim.robotics.arm import (
    Link,
    Revolute,
    SerialLink,
    from_dh_matrix,
    from_dyn_matrix,
    from_mr_dynamics,
    from_poe,
    to_mr_dynamics,
    to_poe,
)

from .test_kinematics import puma, random_q, stanford, trans

pi = np.pi
RNG = np.random.default_rng(3)

PUMA_DH = np.array([[pi / 2, 0, 0, 0, 0], [0, 0.4318, 0, 0, 0], [-pi / 2, 0.0203, 0, 0.15005, 0],
                    [pi / 2, 0, 0, 0.4318, 0], [-pi / 2, 0, 0, 0, 0], [0, 0, 0, 0, 0]])


def stanford_dyn(columns: int = 17) -> np.ndarray:
    """The seed 004 Stanford DYN matrix (17 columns), optionally padded with B, Tc+, Tc-."""
    alpha = [-pi / 2, pi / 2, 0, -pi / 2, pi / 2, 0]
    A = [0] * 6
    theta = [0, 0, -pi / 2, 0, 0, 0]
    D = [0.412, 0.154, 0, 0, 0, 0.263]
    sigma = [0, 0, 1, 0, 0, 0]
    m = [9.29, 5.01, 4.25, 1.08, 0.63, 0.51]
    rx = [0] * 6
    ry = [0.0175, -1.054, 0, 0.092, 0, 0]
    rz = [-0.1105, 0, -6.447, -0.054, 0.566, 1.554]
    Ixx = [0.276, 0.108, 2.51, 0.002, 0.003, 0.013]
    Iyy = [0.255, 0.018, 2.51, 0.001, 0.003, 0.013]
    Izz = [0.071, 0.100, 0.006, 0.001, 0.0004, 0.0003]
    zero = [0] * 6
    Jm = [0.953, 2.193, 0.782, 0.106, 0.097, 0.020]
    G = [1] * 6
    dyn = np.column_stack([alpha, A, theta, D, sigma, m, rx, ry, rz, Ixx, Iyy, Izz, zero, zero,
                           zero, Jm, G])
    extra = np.column_stack([np.full(6, 1e-3), np.full(6, 0.2), np.full(6, -0.3)])
    return np.hstack([dyn, extra[:, :columns - 17]])


# ------------------------------------------------------------------------- legacy matrices

def test_scilab_dh_matrix_is_the_rtb_puma():
    p = from_dh_matrix(PUMA_DH, "P560 (K)", "Unimation", "Kinematic data only")
    ref = puma()
    assert (p.name, p.manufacturer, p.comment) == ("P560 (K)", "Unimation", "Kinematic data only")
    for attr in ("theta", "d", "a", "alpha"):
        np.testing.assert_array_equal(getattr(p, attr), getattr(ref, attr))
    # legacy row [alpha A theta D sigma] -> RTB vector [theta D A alpha sigma] (section 5.2)
    for row, link in zip(PUMA_DH, p.links):
        assert Link(row[[2, 3, 1, 0, 4]]) == link
    q = RNG.uniform(-pi, pi, 6)
    np.testing.assert_allclose(p.fkine(q), ref.fkine(q), atol=0)
    mod = from_dh_matrix(PUMA_DH, convention="modified")
    assert mod.mdh and not p.mdh
    with pytest.raises(ValueError, match=r"4\.\.5 columns"):
        from_dh_matrix(np.zeros((2, 6)))


def test_scilab_stanford_dyn_matrix():
    s = from_dyn_matrix(stanford_dyn(), "Stanford Arm")
    assert s.name == "Stanford Arm" and s.config == "RRPRRR"
    np.testing.assert_array_equal(s.theta, [0, 0, -pi / 2, 0, 0, 0])
    q = random_q(s)
    np.testing.assert_allclose(s.fkine(q), stanford().fkine(q), atol=1e-15)
    L3 = s.links[2]
    assert L3.m == 4.25 and L3.Jm == 0.782 and L3.G == 1 and L3.B == 0
    np.testing.assert_array_equal(L3.r, [0, 0, -6.447])
    np.testing.assert_array_equal(L3.I, np.diag([2.51, 2.51, 0.006]))
    np.testing.assert_array_equal(L3.Tc, [0, 0])
    np.testing.assert_array_equal(s.arrays.dyn[:, 0], [9.29, 5.01, 4.25, 1.08, 0.63, 0.51])


def test_dyn_optional_columns_and_inertia_products():
    d = stanford_dyn(20)
    d[1, 12:15] = [0.01, 0.02, 0.03]          # Ixy, Iyz, Ixz of link 2
    s = from_dyn_matrix(d)
    L2 = s.links[1]
    np.testing.assert_array_equal(L2.I, [[0.108, 0.01, 0.03], [0.01, 0.018, 0.02],
                                         [0.03, 0.02, 0.100]])
    assert L2.B == 1e-3
    np.testing.assert_array_equal(L2.Tc, [0.2, -0.3])
    np.testing.assert_array_equal(from_dyn_matrix(stanford_dyn(19)).links[0].Tc, [0.2, -0.2])
    np.testing.assert_array_equal(from_dyn_matrix(stanford_dyn(16)).links[0].G, 1.0)
    assert from_dyn_matrix(stanford_dyn(18)).links[0].B == 1e-3
    for bad in (stanford_dyn(17)[:, :15], np.zeros((2, 21))):
        with pytest.raises(ValueError, match=r"16\.\.20 columns"):
            from_dyn_matrix(bad)
    bad = stanford_dyn(20)
    bad[0, 18:20] = [-0.1, 0.1]
    with pytest.raises(ValueError, match="Tc"):
        from_dyn_matrix(bad)


# ------------------------------------------------------------------ product of exponentials

def test_to_poe_puma_derived_values():
    M, S = to_poe(puma())
    np.testing.assert_allclose(M, trans(0.4521, -0.15005, 0.4318), atol=1e-15)
    expected = np.array([[0, 0, 1, 0, 0, 0], [0, -1, 0, 0, 0, 0], [0, -1, 0, 0, 0, -0.4318],
                         [0, 0, 1, -0.15005, -0.4521, 0], [0, -1, 0, 0.4318, 0, -0.4521],
                         [0, 0, 1, -0.15005, -0.4521, 0]]).T
    np.testing.assert_allclose(S, expected, atol=1e-15)


def test_from_poe_planar_arm_analytic():
    S = np.array([[0, 0, 1, 0, 0, 0], [0, 0, 1, 0, -1, 0], [0, 0, 0, 1, 0, 0]]).T  # R R P(x)
    r = from_poe(trans(2, 0, 0), S, name="RRP")
    assert r.config == "RRP" and r.convention == "transforms"
    q1, q2, d = 0.3, -0.7, 0.25
    T = r.fkine([q1, q2, d])
    c12, s12 = np.cos(q1 + q2), np.sin(q1 + q2)
    # the prismatic axis is world x at home, rotated with both links
    np.testing.assert_allclose(T[:3, 3], [np.cos(q1) + c12 * (1 + d), np.sin(q1) + s12 * (1 + d),
                                          0], atol=1e-15)
    np.testing.assert_allclose(T[:2, :2], [[c12, -s12], [s12, c12]], atol=1e-15)
    np.testing.assert_allclose(T, mr.FKinSpace(trans(2, 0, 0), S, [q1, q2, d]), atol=1e-15)


def test_from_poe_body_axes_and_errors():
    M, S = to_poe(stanford())
    Blist = mr.Adjoint(mr.TransInv(M)) @ S
    rs, rb = from_poe(M, S), from_poe(M, Blist=Blist)
    q = random_q(rs)
    np.testing.assert_allclose(rb.fkine(q), rs.fkine(q), atol=1e-14)
    np.testing.assert_allclose(rb.fkine(q), mr.FKinBody(M, Blist, q), atol=1e-14)
    # seed 001 chapter 4 example: its third joint has pitch 0.1 (a screw joint)
    Mx = np.array([[-1, 0, 0, 0], [0, 1, 0, 6], [0, 0, -1, 2], [0, 0, 0, 1]])
    Sx = np.array([[0, 0, 1, 4, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, -1, -6, 0, -0.1]]).T
    with pytest.raises(ValueError, match=r"axis 2 has pitch 0\.1"):
        from_poe(Mx, Sx)
    with pytest.raises(ValueError, match="not normalised"):
        from_poe(np.eye(4), [1, 0, 1, 0, 1, 0])              # seed 001 chapter 8 axis 1
    with pytest.raises(ValueError, match="exactly one"):
        from_poe(np.eye(4))
    with pytest.raises(ValueError, match="6 x n"):
        from_poe(np.eye(4), np.zeros((3, 2)))


# --------------------------------------------------------------------------- MR dynamics

def dynamic_arm() -> SerialLink:
    """Stanford arm with its DYN data plus products of inertia, base and tool (no motors)."""
    d = stanford_dyn()
    d[:, 12:15] = RNG.uniform(-0.01, 0.01, (6, 3))
    d[:, 15] = 0.0                                  # MR has no motor inertia
    r = from_dyn_matrix(d)
    r.base = trans(0.1, 0.2, 0.3)
    r.tool = trans(0, 0, 0.1)
    return r


def com_and_inertia_world(robot, q):
    """Centre-of-mass positions and world-axes inertias of all links at q."""
    frames = robot.fkine(q, all=True)[1:]
    out = []
    for T, L in zip(frames, robot.links):
        R = T[:3, :3]
        out.append((L.m, T[:3, :3] @ L.r + T[:3, 3], R @ L.I @ R.T))
    return out


def test_mr_dynamics_round_trip_is_the_same_physical_arm():
    r = dynamic_arm()
    Mlist, Glist, Slist = to_mr_dynamics(r)
    assert Mlist.shape == (7, 4, 4) and Glist.shape == (6, 6, 6) and Slist.shape == (6, 6)
    back = from_mr_dynamics(Mlist, Glist, Slist, g=[0, 0, -9.81])
    assert back.convention == "transforms"
    np.testing.assert_allclose(back.gravity, [0, 0, 9.81], atol=0)
    for _ in range(3):
        q = random_q(r)
        np.testing.assert_allclose(back.fkine(q), r.fkine(q), atol=1e-13)
        for (m1, c1, I1), (m2, c2, I2) in zip(com_and_inertia_world(r, q),
                                               com_and_inertia_world(back, q)):
            assert m1 == m2
            np.testing.assert_allclose(c2, c1, atol=1e-13)
            np.testing.assert_allclose(I2, I1, atol=1e-15)
        # MR's own Newton-Euler agrees on both descriptions
        qd, qdd = RNG.uniform(-1, 1, 6), RNG.uniform(-1, 1, 6)
        tau = mr.InverseDynamics(q, qd, qdd, [0, 0, -9.81], np.zeros(6), Mlist, Glist, Slist)
        tau2 = mr.InverseDynamics(q, qd, qdd, [0, 0, -9.81], np.zeros(6),
                                  *to_mr_dynamics(back))
        np.testing.assert_allclose(tau2, tau, rtol=1e-11, atol=1e-11)


def test_rtb_rne_equals_mr_inverse_dynamics():
    """Seeds section 6.3 C: rne(q, qd, qdd) == InverseDynamics(..., g = -gravity, to_mr(robot))."""
    r = dynamic_arm()
    Mlist, Glist, Slist = to_mr_dynamics(r)
    q, qd, qdd = random_q(r), RNG.uniform(-1, 1, 6), RNG.uniform(-1, 1, 6)
    tau = mr.InverseDynamics(q, qd, qdd, -r.gravity, np.zeros(6), Mlist, Glist, Slist)
    np.testing.assert_allclose(r.rne(q, qd, qdd), tau, rtol=1e-10, atol=1e-10)


def test_from_mr_dynamics_checks_its_inputs():
    Mlist, Glist, Slist = to_mr_dynamics(SerialLink([Revolute(a=1, m=1.0, I=[0.1, 0.1, 0.1])]))
    with pytest.raises(ValueError, match="n \\+ 1 = 2"):
        from_mr_dynamics(Mlist[:1], Glist, Slist)
    with pytest.raises(ValueError, match="6x6 spatial inertias"):
        from_mr_dynamics(Mlist, Glist[:, :3, :3], Slist)
    G = Glist.copy()
    G[0, 0, 3] = G[0, 3, 0] = 0.5
    with pytest.raises(ValueError, match="blkdiag"):
        from_mr_dynamics(Mlist, G, Slist)
    one = from_mr_dynamics(Mlist, Glist, Slist)
    assert one.links[0].m == 1.0
    np.testing.assert_allclose(one.fkine([0.4]), trans(np.cos(0.4), np.sin(0.4), 0)
                               @ np.array([[np.cos(0.4), -np.sin(0.4), 0, 0],
                                           [np.sin(0.4), np.cos(0.4), 0, 0],
                                           [0, 0, 1, 0], [0, 0, 0, 1]]), atol=1e-15)
