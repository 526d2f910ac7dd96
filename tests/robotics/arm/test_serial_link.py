"""SerialLink: construction, properties, value semantics, caching, poses, manipulability."""

import numpy as np
import pytest

from blocksim.robotics.arm import (
    ArmArrays,
    Link,
    Prismatic,
    Revolute,
    RevoluteMDH,
    SerialLink,
    from_dh,
)

from .test_kinematics import puma, stanford, trans

pi = np.pi
RNG = np.random.default_rng(11)


def test_construction_forms_and_read_only_properties():
    L = [Link([0, 0, 1.0, pi / 2]), Link([0, 0, 2.0, 0])]            # seed 000 twolink
    a = SerialLink(L, name="two link")
    b = SerialLink([Revolute(d=0, a=1.0, alpha=pi / 2), Revolute(d=0, a=2.0, alpha=0)],
                   name="two link")
    c = SerialLink([[0, 0, 1.0, pi / 2], [0, 0, 2.0, 0]], name="two link")
    for r in (a, b, c):
        assert r.n == 2 and r.config == "RR" and r.mdh is False and r.name == "two link"
        np.testing.assert_array_equal(r.a, [1.0, 2.0])
        np.testing.assert_array_equal(r.alpha, [pi / 2, 0])
        np.testing.assert_array_equal(r.d, [0, 0])
        np.testing.assert_array_equal(r.theta, [0, 0])
    q = [0.3, -0.4]
    np.testing.assert_allclose(b.fkine(q), a.fkine(q), atol=0)
    np.testing.assert_allclose(c.fkine(q), a.fkine(q), atol=0)
    s = stanford()
    assert s.config == "RRPRRR" and s.theta[2] == -pi / 2
    m = SerialLink([[0, 0, 1.0, 0, 0], [0, 0, 1.0, 0, 1]], convention="modified")
    assert m.mdh and m.config == "RP"
    empty = SerialLink(name="null")
    assert empty.n == 0 and empty.fkine(np.zeros(0)).shape == (4, 4)
    assert SerialLink(Revolute(a=1)).n == 1
    assert (a.manufacturer, a.comment) == ("", "")
    np.testing.assert_array_equal(a.gravity, [0, 0, 9.81])
    np.testing.assert_array_equal(a.base, np.eye(4))


def test_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match="one convention"):
        SerialLink([Revolute(), RevoluteMDH()])
    with pytest.raises(ValueError, match="DH-matrix form only"):
        SerialLink([Revolute()], convention="modified")
    with pytest.raises(ValueError, match=r"shape \(n, 4\) or \(n, 5\)"):
        SerialLink(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="base"):
        SerialLink([Revolute()], base=np.eye(3))
    with pytest.raises(ValueError, match="rigid-body"):
        SerialLink([Revolute()], tool=2 * np.eye(4))
    with pytest.raises(ValueError, match="gravity"):
        SerialLink([Revolute()], gravity=[0, 9.81])
    r = puma()
    with pytest.raises(ValueError, match=r"q must have shape \(6,\)"):
        r.jacob0([0, 0, 0])
    with pytest.raises(ValueError, match="qlim must have shape"):
        r.qlim = np.zeros((5, 2))
    with pytest.raises(ValueError, match="pose 'qz' must have 6"):
        r.poses = {"qz": [0, 0]}


def test_links_are_copies_and_set_link_changes_the_model():
    r = puma()
    q = RNG.uniform(-pi, pi, 6)
    T = r.fkine(q)
    links = r.links
    links[1].a = 5.0
    np.testing.assert_array_equal(r.fkine(q), T)          # editing a copy changes nothing
    assert r.a[1] == 0.4318
    r.set_link(1, links[1])
    assert r.a[1] == 5.0
    assert not np.allclose(r.fkine(q), T)
    with pytest.raises(ValueError, match="one convention"):
        r.set_link(0, RevoluteMDH())
    r.links = [L.nofriction("all") for L in r.links]
    assert r.n == 6 and r.a[1] == 5.0


def test_robot_copies_are_independent():
    plant = SerialLink([Revolute(a=1, m=1.0), Revolute(a=1, m=1.0)], poses={"qn": [0.1, 0.2]})
    model = plant.copy()
    model.set_link(0, Revolute(a=1.2, m=2.0))
    model.base = trans(0, 0, 1)
    model.gravity = [0, 0, 1.62]
    model.poses = {"qn": [0.5, 0.5]}
    assert plant.links[0].a == 1 and plant.links[0].m == 1.0
    np.testing.assert_array_equal(plant.base, np.eye(4))
    np.testing.assert_array_equal(plant.gravity, [0, 0, 9.81])
    np.testing.assert_array_equal(plant.qn, [0.1, 0.2])
    assert plant.arrays.dyn[0, 0] == 1.0 and model.arrays.dyn[0, 0] == 2.0
    # the constructor copies the caller's links too
    L = Revolute(a=1)
    r = SerialLink([L])
    L.a = 3
    assert r.a[0] == 1
    # getters hand out copies
    r.base[0, 3] = 9
    np.testing.assert_array_equal(r.base, np.eye(4))


def test_arrays_are_cached_and_invalidated_by_the_api():
    r = stanford()
    arr = r.arrays
    assert isinstance(arr, ArmArrays) and r.arrays is arr and r.kin is r.kin
    assert arr.sigma.dtype == np.int64 and arr.A.shape == (6, 4, 4) and arr.dyn.shape == (6, 15)
    assert arr.A.flags.c_contiguous and arr.dyn.flags.c_contiguous
    q = RNG.uniform(0.1, 0.5, 6)
    T = r.fkine(q)
    for change in (lambda: setattr(r, "base", trans(0, 0, 0.5)),
                   lambda: setattr(r, "tool", trans(0.1, 0, 0)),
                   lambda: setattr(r, "offset", np.full(6, 0.01)),
                   lambda: r.set_link(5, Link([0, 0.3, 0, 0, 0])),
                   lambda: setattr(r, "gravity", [0, 0, 1.0]),
                   lambda: setattr(r, "qlim", np.tile([-1.0, 1.0], (6, 1)))):
        before = r.arrays
        change()
        assert r.arrays is not before
    np.testing.assert_array_equal(r.arrays.gravity, [0, 0, 1.0])
    np.testing.assert_array_equal(r.arrays.qlim[:, 1], np.ones(6))
    assert not np.allclose(r.fkine(q), T)
    np.testing.assert_allclose(r.fkine(q), stanford_with_changes().fkine(q), atol=1e-15)


def stanford_with_changes():
    r = stanford()
    r.base = trans(0, 0, 0.5)
    r.tool = trans(0.1, 0, 0)
    r.offset = np.full(6, 0.01)
    r.set_link(5, Link([0, 0.3, 0, 0, 0]))         # offset 0: replaces the 0.01 set above
    return r


def test_offsets_and_layout_agreement():
    r = puma()
    off = RNG.uniform(-1, 1, 6)
    ro = r.copy()
    ro.offset = off
    q = RNG.uniform(-pi, pi, 6)
    np.testing.assert_allclose(ro.fkine(q), r.fkine(q + off), atol=1e-14)
    # the same arm straight from the lead's layout module
    arr = from_dh(np.column_stack([r.theta, r.d, r.a, r.alpha]), offset=off)
    np.testing.assert_allclose(SerialLink(arr).fkine(q), ro.fkine(q), atol=1e-14)


def test_non_dh_models_are_first_class():
    arr = from_dh([[0, 0.3, 0.2, 0.5], [0, 0, 0.4, -0.2]], sigma=[0, 1],
                  base=trans(0, 0, 1.0), gravity=[0, 0, 3.0])
    r = SerialLink(arr, name="generic")
    assert r.convention == "transforms" and r.config == "RP"
    np.testing.assert_array_equal(r.base, trans(0, 0, 1.0))
    np.testing.assert_array_equal(r.gravity, [0, 0, 3.0])
    for name in ("theta", "d", "a", "alpha", "mdh"):
        with pytest.raises(ValueError, match="not a DH model"):
            getattr(r, name)
    for field in ("sigma", "offset", "A", "B", "base", "tool", "dyn", "gravity", "qlim"):
        np.testing.assert_array_equal(getattr(r.arrays, field), getattr(arr, field))
    assert "fixed transforms" in repr(r)


def test_concatenation():
    r1 = SerialLink([Revolute(a=1.0), Revolute(a=0.5, alpha=pi / 2)], name="r1",
                    base=trans(0, 0, 0.2), tool=trans(0.1, 0, 0))
    r2 = SerialLink([Revolute(d=0.3), Prismatic(alpha=-pi / 2)], name="r2",
                    base=trans(5, 5, 5), tool=trans(0, 0, 0.05))
    r = r1 * r2
    assert r.n == 4 and r.config == "RRRP" and r.name == "r1*r2"
    np.testing.assert_array_equal(r.base, r1.base)
    np.testing.assert_array_equal(r.tool, r2.tool)
    q = RNG.uniform(-1, 1, 4)
    # DH concatenation drops r1's tool and r2's base (RTB / Scilab semantics)
    expected = (r1.fkine(q[:2]) @ np.linalg.inv(r1.tool) @ np.linalg.inv(r2.base)
                @ r2.fkine(q[2:]))
    np.testing.assert_allclose(r.fkine(q), expected, atol=1e-14)
    np.testing.assert_allclose(SerialLink([r1, r2]).fkine(q), r.fkine(q), atol=0)
    # non-DH links concatenate exactly, intermediate tool and base folded in
    g1, g2 = SerialLink(r1.arrays), SerialLink(r2.arrays)
    np.testing.assert_allclose((g1 * g2).fkine(q), r1.fkine(q[:2]) @ r2.fkine(q[2:]),
                               atol=1e-14)
    with pytest.raises(ValueError, match="one convention"):
        r1 * g2


def test_named_poses_and_limits():
    r = SerialLink([Revolute(a=1, qlim=[-1, 1]), Revolute(a=1, qlim=[0, 2])],
                   poses={"qz": [0, 0], "qn": [pi / 6, -pi / 6]})
    np.testing.assert_array_equal(r.qn, [pi / 6, -pi / 6])
    assert set(r.poses) == {"qz", "qn"}
    with pytest.raises(AttributeError, match="qx"):
        _ = r.qx
    SerialLink([Revolute(a=1)], poses={"q_elsewhere": [0.3]})  # a pose r does not have
    with pytest.raises(AttributeError, match=r"named poses: \['qn', 'qz'\]"):
        _ = r.q_elsewhere
    q = r.qn
    q[0] = 9.0  # a copy: the robot's pose is unchanged
    np.testing.assert_array_equal(r.qn, [pi / 6, -pi / 6])
    shadow = SerialLink([Revolute(a=1)], poses={"fkine": [0.2]})  # a method's name
    assert callable(shadow.fkine) and shadow.poses["fkine"][0] == 0.2
    assert "__getattr__" not in vars(SerialLink)  # keeps CPython's fast attribute lookups
    np.testing.assert_array_equal(r.islimit([1.5, 1.0]), [1, 0])
    np.testing.assert_array_equal(r.islimit([-1.5, -0.1]), [-1, -1])
    np.testing.assert_array_equal(r.qlim, [[-1, 1], [0, 2]])
    np.testing.assert_allclose(r.A(0, 0.3) @ r.A(1, 0.2), r.fkine([0.3, 0.2]), atol=1e-15)
    np.testing.assert_allclose(r.A([0, 1], [0.3, 0.2]), r.fkine([0.3, 0.2]), atol=1e-15)


def test_display():
    r = puma()
    r.comment = "kinematics only"
    text = repr(r)
    assert "SerialLink 'Puma 560': 6 joints (RRRRRR), standard; kinematics only" in text
    assert "0.15005" in text and "q3" in text
    r2 = SerialLink([Revolute(m=2.5, a=1)])
    assert "m    = 2.5 kg" in r2.dyn()


def test_manipulability_yoshikawa_planar():
    r = SerialLink([Revolute(a=1.0), Revolute(a=0.7)])
    for q2 in (0.0, 0.4, 1.3):
        m = r.manipulability([0.2, q2], dof=[1, 1, 0, 0, 0, 0])
        assert m == pytest.approx(0.7 * abs(np.sin(q2)), abs=1e-14)   # |det J| = a1 a2 |s2|
    qs = np.array([[0.1, 0.5], [0.2, 1.0]])
    np.testing.assert_allclose(r.manipulability(qs, dof=[1, 1, 0, 0, 0, 0]),
                               0.7 * np.abs(np.sin(qs[:, 1])), atol=1e-14)
    assert r.manipulability([0.1, 0.5]) == 0.0          # z row of the translational part is 0
    p = puma()
    q = RNG.uniform(-pi, pi, 6)
    J = p.jacob0(q)
    assert p.manipulability(q, axes="all") == pytest.approx(abs(np.linalg.det(J)), rel=1e-9)
    assert p.manipulability(q, axes="R") == pytest.approx(
        np.sqrt(np.linalg.det(J[3:] @ J[3:].T)), rel=1e-9)
    with pytest.raises(ValueError, match="axes"):
        p.manipulability(q, axes="xyz")
    with pytest.raises(ValueError, match="method"):
        p.manipulability(q, method="svd")


class UnitInertia(SerialLink):
    """A robot whose joint-space inertia is the identity (isolates the Asada formula)."""

    def inertia(self, q):
        return np.eye(self.n)


def test_manipulability_asada_with_unit_inertia():
    r = UnitInertia([Link(L) for L in puma().links])
    q = RNG.uniform(-pi, pi, 6)
    s = np.linalg.svd(r.jacob0(q), compute_uv=False)
    # Mx = J^-T J^-1, whose eigenvalue ratio is (s_min / s_max)^2
    assert r.manipulability(q, method="asada", axes="all") == pytest.approx(
        (s[-1] / s[0]) ** 2, rel=1e-9)
    assert 0 < r.manipulability(q, method="asada") <= 1


def test_ikine6s_and_arm_config_methods_round_trip_the_puma():
    from blocksim.robotics.models import puma560

    robot = puma560()
    q = np.array([0.1, 0.5, -0.8, 0.3, 0.4, 0.2])
    config = robot.arm_config(q)
    assert len(config) == 3 and set(config) <= set("lrudnf")
    np.testing.assert_allclose(robot.ikine6s(robot.fkine(q), config), q, atol=1e-9)
