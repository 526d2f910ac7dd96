"""Link, Revolute, Prismatic, RevoluteMDH, PrismaticMDH (seed 000 §2.1, seed 002 §2.3-2.6)."""

import numpy as np
import pytest

from blocksim.robotics.arm import Link, Prismatic, PrismaticMDH, Revolute, RevoluteMDH, SerialLink

pi = np.pi
RNG = np.random.default_rng(20240501)


def std_A(theta, d, a, alpha):
    """RTB Link.A, standard DH (seed digest Appendix B.4), written out."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                     [0, sa, ca, d], [0, 0, 0, 1]])


def mdh_A(theta, d, a, alpha):
    """RTB Link.A, modified DH (Appendix B.4), written out."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st, 0, a], [st * ca, ct * ca, -sa, -sa * d],
                     [st * sa, ct * sa, ca, ca * d], [0, 0, 0, 1]])


# --------------------------------------------------------------------------- constructor forms

def test_seed002_first_example_three_forms_are_the_same_link():
    forms = [Link([0, 1.2, 0.3, pi / 2]),
             Link(jointtype="revolute", d=1.2, a=0.3, alpha=pi / 2),
             Revolute(d=1.2, a=0.3, alpha=pi / 2)]
    for L in forms:
        assert (L.d, L.a, L.alpha, L.sigma, L.mdh) == (1.2, 0.3, pi / 2, 0, False)
    for q in RNG.uniform(-pi, pi, 5):
        for L in forms[1:]:
            np.testing.assert_allclose(L.A(q), forms[0].A(q), atol=1e-15)
        np.testing.assert_allclose(forms[0].A(q), std_A(q, 1.2, 0.3, pi / 2), atol=1e-15)
    assert forms[0] == forms[1]          # both plain Link with equal parameters


def test_seed002_L3_family():
    """Puma link 3 in all of seed 002's forms (standard revolute, prismatic, modified)."""
    kw = Link(d=0.15005, a=0.0203, alpha=-pi / 2)
    v4 = Link([0, 0.15005, 0.0203, -pi / 2], "standard")
    v5 = Link([0, 0.15005, 0.0203, -pi / 2, 0], "standard")
    assert kw == v4 == v5
    assert kw.isrevolute() and not kw.isprismatic() and kw.jointtype == "R"
    p = Link([0, 0.15005, 0.0203, -pi / 2, 1], "standard")
    m = Link([0, 0.15005, 0.0203, -pi / 2, 0], "modified")
    assert p.isprismatic() and p.jointtype == "P" and m.mdh and m.convention == "modified"
    for q in RNG.uniform(-1, 1, 5):
        np.testing.assert_allclose(kw.A(q), std_A(q, 0.15005, 0.0203, -pi / 2), atol=1e-15)
        np.testing.assert_allclose(p.A(q), std_A(0.0, q, 0.0203, -pi / 2), atol=1e-15)
        np.testing.assert_allclose(m.A(q), mdh_A(q, 0.15005, 0.0203, -pi / 2), atol=1e-15)


def test_prismatic_keeps_constant_theta_and_offsets_are_added():
    # Stanford joint 3: prismatic with theta = -pi/2 (seed 004)
    L = Link(theta=-pi / 2, offset=0.1)
    assert L.isprismatic()
    np.testing.assert_allclose(L.A(0.4), std_A(-pi / 2, 0.5, 0, 0), atol=1e-15)
    R = Revolute(d=0.2, a=0.5, alpha=0.3, offset=0.25)
    np.testing.assert_allclose(R.A(0.5), std_A(0.75, 0.2, 0.5, 0.3), atol=1e-15)
    M = PrismaticMDH(theta=0.4, a=0.1, alpha=-0.7, offset=-0.05)
    np.testing.assert_allclose(M.A(0.3), mdh_A(0.4, 0.25, 0.1, -0.7), atol=1e-15)
    v6 = Link([0, 0.2, 0.5, 0.3, 0, 0.25])
    assert v6.offset == 0.25 and v6 == Link(d=0.2, a=0.5, alpha=0.3, offset=0.25)


def test_subclasses_fix_type_and_convention():
    assert (Revolute().sigma, Revolute().mdh) == (0, False)
    assert (Prismatic().sigma, Prismatic().mdh) == (1, False)
    assert (RevoluteMDH().sigma, RevoluteMDH().mdh) == (0, True)
    assert (PrismaticMDH().sigma, PrismaticMDH().mdh) == (1, True)
    np.testing.assert_allclose(RevoluteMDH(d=0.3, a=0.2, alpha=0.1).A(0.7),
                               mdh_A(0.7, 0.3, 0.2, 0.1), atol=1e-15)


def test_theta_d_rule_and_clear_errors():
    assert Link(d=0.3).isrevolute()
    assert Link(theta=0.3).isprismatic()
    assert Link().isrevolute() and Link().G == 1.0
    with pytest.raises(ValueError, match="not both"):
        Link(theta=0.1, d=0.2)
    with pytest.raises(ValueError, match="theta is the joint variable"):
        Revolute(theta=0.1)
    with pytest.raises(ValueError, match="d is the joint variable"):
        Prismatic(d=0.1)
    with pytest.raises(ValueError, match="d is the joint variable"):
        Link(d=0.1, jointtype="P")
    with pytest.raises(ValueError, match="conflicting"):
        Link(sigma=0, jointtype="prismatic")
    with pytest.raises(ValueError, match="jointtype"):
        Link(jointtype="X")
    with pytest.raises(ValueError, match="convention"):
        Link(d=0.1, convention="craig")
    with pytest.raises(ValueError, match="DH vector"):
        Link([0, 1, 2])
    with pytest.raises(ValueError, match="DH vector"):
        Link([0, 1, 2, 3, 0, 0, 1])
    with pytest.raises(ValueError, match="sigma"):
        Link([0, 1, 2, 3, 2])
    with pytest.raises(ValueError, match="sigma=1"):
        Link([0, 1, 2, 3, 1], jointtype="R")
    with pytest.raises(ValueError, match="not both"):
        Link([0, 1, 2, 3], d=1.0)
    with pytest.raises(ValueError, match="a must be a real number"):
        Link(a="x")


def test_rtb10_dynamics_row():
    row = [0.1, 0.2, 0.3, 0.4, 0, 2.5, 0.01, 0.02, 0.03, 1, 2, 3, 0.4, 0.5, 0.6, 1e-4, 50, 2e-3,
           0.3, -0.2]
    L = Link(row)
    assert (L.theta, L.d, L.a, L.alpha, L.sigma) == (0.1, 0.2, 0.3, 0.4, 0)
    assert L.m == 2.5 and L.Jm == 1e-4 and L.G == 50 and L.B == 2e-3
    np.testing.assert_array_equal(L.r, [0.01, 0.02, 0.03])
    np.testing.assert_array_equal(L.I, [[1, 0.4, 0.6], [0.4, 2, 0.5], [0.6, 0.5, 3]])
    np.testing.assert_array_equal(L.Tc, [0.3, -0.2])
    short = Link(row[:15])
    assert (short.Jm, short.G, short.B) == (0.0, 1.0, 0.0)
    np.testing.assert_array_equal(short.Tc, [0, 0])


# ------------------------------------------------------------------------------ dynamic params

def test_inertia_forms():
    np.testing.assert_array_equal(Link(I=[1, 2, 3]).I, np.diag([1, 2, 3]))
    np.testing.assert_array_equal(Link(I=[1, 2, 3, 4, 5, 6]).I,
                                  [[1, 4, 6], [4, 2, 5], [6, 5, 3]])
    M = np.array([[1, 0.1, 0.2], [0.1, 2, 0.3], [0.2, 0.3, 3]])
    np.testing.assert_array_equal(Link(I=M).I, M)
    with pytest.raises(ValueError, match="symmetric"):
        Link(I=[[1, 0.1, 0], [0, 2, 0], [0, 0, 3]])
    with pytest.raises(ValueError, match="3x3 matrix"):
        Link(I=[1, 2, 3, 4])
    L = Link()
    L.I = [0.5, 0.6, 0.7]
    np.testing.assert_array_equal(np.diag(L.I), [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match="centre of mass"):
        Link(r=[1, 2])
    with pytest.raises(ValueError, match="m must be >= 0"):
        Link(m=-1)


def test_coulomb_setter():
    np.testing.assert_array_equal(Link(Tc=0.4).Tc, [0.4, -0.4])
    np.testing.assert_array_equal(Link(Tc=[0.395, -0.435]).Tc, [0.395, -0.435])
    for bad in (-0.1, [-0.1, 0.2], [0.1, 0.2], [1, 2, 3]):
        with pytest.raises(ValueError, match="Tc"):
            Link(Tc=bad)


def test_friction_rules():
    L = Link(B=1.48e-3, Tc=[0.395, -0.435], G=-62.6111)   # Puma joint 1 (negative gear)
    g = 62.6111
    for qd in (0.7, -0.7):
        tc = 0.395 if qd > 0 else -0.435
        assert L.friction(qd) == pytest.approx(-(1.48e-3 * g * g * qd + g * tc), rel=1e-14)
        assert np.sign(L.friction(qd)) == -np.sign(qd)
    assert L.friction(0.0) == 0.0
    # viscous part scales with G^2 and Coulomb part with |G|
    v1 = Link(B=0.01, G=3.0).friction(0.5)
    v2 = Link(B=0.01, G=6.0).friction(0.5)
    c1 = Link(Tc=0.2, G=3.0).friction(-0.5)
    c2 = Link(Tc=0.2, G=-6.0).friction(-0.5)
    assert v2 == pytest.approx(4 * v1) and c2 == pytest.approx(2 * c1) and c1 > 0
    f = L.friction(np.array([-1.0, 0.0, 2.0]))
    assert f.shape == (3,) and f[1] == 0 and f[0] > 0 > f[2]


def test_nofriction():
    L = Link(B=0.1, Tc=[0.2, -0.3])
    c, v, a = L.nofriction(), L.nofriction("viscous"), L.nofriction("all")
    assert c.B == 0.1 and not c.Tc.any()
    assert v.B == 0 and v.Tc.tolist() == [0.2, -0.3]
    assert a.B == 0 and not a.Tc.any()
    assert L.B == 0.1 and L.Tc.tolist() == [0.2, -0.3]      # the original is unchanged
    with pytest.raises(ValueError, match="which"):
        L.nofriction("static")


def test_islimit_and_qlim():
    L = Link(qlim=[-1.0, 2.0])
    assert [L.islimit(q) for q in (-1.5, 0.0, 2.0, 2.5)] == [-1, 0, 0, 1]
    assert Link().islimit(1e9) == 0
    with pytest.raises(ValueError, match="qlim"):
        Link(qlim=[1, -1])


# ------------------------------------------------------------------------- value semantics etc.

def test_copies_are_independent_and_link_of_link_is_a_plain_link():
    R = Revolute(d=0.1, a=0.2, m=1.0, r=[1, 2, 3], I=[1, 2, 3])
    c = R.copy()
    assert type(c) is Revolute and c == R
    assert c != Revolute(d=0.1, a=0.2, m=1.0, r=[1, 2, 3], I=[1, 2, 3.5])
    assert Link.from_transforms(np.eye(4)) == Link.from_transforms(np.eye(4))
    assert Link.from_transforms(np.eye(4)) != Link.from_transforms(np.eye(4), sigma=1)
    c.m = 5.0
    c.r = [0, 0, 0]
    c.I = [4, 4, 4]
    assert R.m == 1.0 and R.r.tolist() == [1, 2, 3] and R.I[0, 0] == 1
    r = R.r
    r[0] = 99
    assert R.r[0] == 1                            # getters hand out copies
    plain = Link(R)
    assert type(plain) is Link and plain.d == 0.1 and plain.a == 0.2 and plain.m == 1.0
    with pytest.raises(ValueError, match="copy"):
        Link(R, m=3)


def test_fixed_transform_links():
    pre = std_A(0.3, 0.1, 0.2, 0.4)
    post = std_A(-0.2, 0.5, 0.1, -0.3)
    L = Link.from_transforms(pre, post, sigma=1, offset=0.05, m=2.0)
    assert L.convention == "transforms" and L.isprismatic()
    T = np.eye(4)
    T[2, 3] = 0.35
    np.testing.assert_allclose(L.A(0.3), pre @ T @ post, atol=1e-15)
    for name in ("theta", "d", "a", "alpha", "mdh"):
        with pytest.raises(ValueError, match="fixed transforms"):
            getattr(L, name)
    with pytest.raises(ValueError, match="rigid-body"):
        Link.from_transforms(2 * np.eye(4))
    assert "from_transforms" in repr(L)


def test_display_and_addition():
    L = Revolute(d=0.15005, a=0.0203, alpha=-pi / 2, m=4.8, qlim=[-1, 1])
    text = repr(L)
    assert text.startswith("Revolute(") and "d=0.15005" in text and "m=4.8" in text
    dyn = L.dyn()
    assert "m    = 4.8 kg" in dyn and "Tc = [0, 0]" in dyn
    robot = Revolute(a=1) + Revolute(a=1)
    assert isinstance(robot, SerialLink) and robot.n == 2
