"""URDF trees: parsing published files, forward kinematics against independent models, and the
SerialLink <-> tree conversions."""

from pathlib import Path

import numpy as np
import pytest

from blocksim.robotics.arm import Link, SerialLink
from blocksim.robotics.arm.layout import rotz, trans
from blocksim.robotics.models import panda, puma560, puma560akb, stanford
from blocksim.robotics.urdf import (
    FIXED,
    PRISMATIC,
    REVOLUTE,
    URDFError,
    loads_urdf,
    lumped_inertia,
    read_urdf,
    rpy_to_matrix,
    serial_from_urdf,
    serial_to_tree,
    tree_to_serial,
)
from blocksim.robotics.urdf.write import dumps_urdf, matrix_to_rpy

DATA = Path(__file__).resolve().parents[2] / "data" / "urdf"
RNG = np.random.default_rng(18)


@pytest.fixture(scope="module")
def ur5():
    return read_urdf(DATA / "ur5_robot.urdf")


@pytest.fixture(scope="module")
def panda_tree():
    return read_urdf(DATA / "panda.urdf")


def ur5_dh() -> SerialLink:
    """Universal Robots' published UR5 DH table (standard DH), independent of the URDF."""
    d = [0.089159, 0, 0, 0.10915, 0.09465, 0.0823]
    a = [0, -0.425, -0.39225, 0, 0, 0]
    alpha = [np.pi / 2, 0, 0, np.pi / 2, -np.pi / 2, 0]
    return SerialLink([Link(d=d[i], a=a[i], alpha=alpha[i]) for i in range(6)])


def test_ur5_structure_and_known_pose(ur5):
    assert ur5.name == "ur5" and ur5.nq == 6 and ur5.base.name == "world"
    assert ur5.joint_names[0] == "shoulder_pan_joint"
    assert ur5.mass == pytest.approx(4.0 + 3.7 + 8.393 + 2.275 + 1.219 * 2 + 0.1879)
    # the UR5 at zero: ee at (a2 + a3, d4 + d6 offsets, d1 - d5), as in UR's documentation
    T = ur5.fkine(np.zeros(6), "ee_link")
    np.testing.assert_allclose(T[:3, 3], [0.81725, 0.19145, -0.005491], atol=1e-12)
    upper = ur5.bodies[ur5.index("upper_arm_link")]
    np.testing.assert_allclose(upper.com, [0, 0, 0.28])
    assert upper.jtype == REVOLUTE and upper.qlim[1] == pytest.approx(6.28318530718)


def test_ur5_matches_published_dh_table(ur5):
    """URDF base_link is the DH base turned by pi about z; positions agree for every q and
    the orientation differs by one constant rotation."""
    dh = ur5_dh()
    Rc = None
    for _ in range(5):
        q = RNG.uniform(-np.pi, np.pi, 6)
        Tu = ur5.fkine(q, "ee_link")
        Td = rotz(np.pi) @ dh.fkine(q)
        np.testing.assert_allclose(Tu[:3, 3], Td[:3, 3], atol=1e-5)  # URDF rounds pi/2
        R = Td[:3, :3].T @ Tu[:3, :3]
        if Rc is None:
            Rc = R
        np.testing.assert_allclose(R, Rc, atol=1e-9)


def test_panda_chain_matches_franka_mdh_table(panda_tree):
    arm = panda_tree.chain("panda_link8")
    assert arm.nq == 7 and "panda_hand" in arm.link_names  # fixed hand kept, fingers dropped
    assert "panda_leftfinger" not in arm.link_names
    zoo = panda()
    serial = tree_to_serial(panda_tree, "panda_link8")
    assert serial.n == 7 and serial.convention == "transforms"
    for _ in range(5):
        q = RNG.uniform(-2, 2, 7)
        np.testing.assert_allclose(arm.fkine(q, "panda_link8"), zoo.fkine(q), atol=1e-12)
        np.testing.assert_allclose(serial.fkine(q), zoo.fkine(q), atol=1e-12)
        np.testing.assert_allclose(serial.jacob0(q), zoo.jacob0(q), atol=1e-12)


def test_panda_tree_branches(panda_tree):
    assert panda_tree.nq == 9
    hand = panda_tree.index("panda_hand")
    left, right = panda_tree.index("panda_leftfinger"), panda_tree.index("panda_rightfinger")
    assert panda_tree.bodies[left].parent == hand == panda_tree.bodies[right].parent
    assert panda_tree.bodies[left].jtype == PRISMATIC
    q = np.concatenate([RNG.uniform(-1, 1, 7), [0.01, 0.03]])
    Th = panda_tree.fkine(q, hand)
    np.testing.assert_allclose(panda_tree.fkine(q, left), Th @ trans(0, 0.01, 0.0584), atol=1e-15)
    np.testing.assert_allclose(
        panda_tree.fkine(q, right)[:3, 3], (Th @ trans(0, -0.03, 0.0584))[:3, 3], atol=1e-15
    )


def test_puma_urdf_reproduces_dh_fkine_and_rne():
    # the classic Puma 560 inertias break the triangle inequality (link 1 keeps Izz only)
    serial = serial_from_urdf(DATA / "puma560.urdf", "tool", check_inertia=False)
    p560 = puma560()
    bare = p560.nofriction("all")
    Jm = p560.arrays.dyn[:, 11] ** 2 * p560.arrays.dyn[:, 10]  # URDF has no motor inertia
    for _ in range(4):
        q, qd, qdd = RNG.uniform(-2, 2, 6), RNG.normal(size=6), RNG.normal(size=6)
        np.testing.assert_allclose(serial.fkine(q), p560.fkine(q), atol=1e-12)
        np.testing.assert_allclose(
            serial.rne(q, qd, qdd), bare.rne(q, qd, qdd) - Jm * qdd, atol=1e-10
        )


@pytest.mark.parametrize("make", [puma560, puma560akb, stanford])
def test_serial_to_tree_keeps_fkine_and_dynamics(make):
    robot = make()
    robot.base = trans(0.1, -0.2, 0.3) @ rotz(0.4)
    tree = serial_to_tree(robot)
    assert tree.nq == robot.n and tree.bodies[-1].name == "tool"
    back = tree_to_serial(tree)
    bare = robot.nofriction("all")
    for _ in range(3):
        q = RNG.uniform(-1, 1, robot.n)
        np.testing.assert_allclose(tree.fkine(q), robot.fkine(q), atol=1e-12)
        np.testing.assert_allclose(back.fkine(q), robot.fkine(q), atol=1e-12)
        qd, qdd = RNG.normal(size=robot.n), RNG.normal(size=robot.n)
        np.testing.assert_allclose(back.rne(q, qd, qdd), bare.rne(q, qd, qdd), atol=1e-10)


def test_offsets_move_into_origins():
    robot = SerialLink(
        [Link(d=0.3, a=0.2, alpha=0.5, offset=0.7), Link(theta=0.4, a=0.1, sigma=1, offset=0.05)]
    )
    tree = serial_to_tree(robot)
    q = np.array([0.3, 0.2])
    np.testing.assert_allclose(tree.fkine(q), robot.fkine(q), atol=1e-15)


HAND = """<?xml version="1.0"?>
<robot name="hand_made">
  <link name="base"/>
  <link name="a">
    <inertial>
      <origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/>
      <mass value="2"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="3" iyz="0" izz="3.5"/>
    </inertial>
  </link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.5" ixy="0" ixz="0"
    iyy="0.5" iyz="0" izz="0.5"/></inertial></link>
  <link name="c"/>
  <joint name="j1" type="continuous">
    <parent link="base"/><child link="a"/>
    <origin xyz="0 0 1" rpy="0.1 0.2 0.3"/><axis xyz="0 0 2"/>
  </joint>
  <joint name="j2" type="fixed">
    <parent link="a"/><child link="b"/><origin xyz="0 0.5 0"/>
  </joint>
  <joint name="j3" type="prismatic">
    <parent link="base"/><child link="c"/><axis xyz="1 0 0"/>
    <limit lower="-0.1" upper="0.2"/>
  </joint>
</robot>
"""


def test_hand_written_tree():
    tree = loads_urdf(HAND)
    assert tree.link_names == ["base", "a", "b", "c"] and tree.joint_names == ["j1", "j3"]
    a = tree.bodies[0]
    np.testing.assert_allclose(a.axis, [0, 0, 1])  # normalised
    np.testing.assert_allclose(np.diag(a.inertia), [3, 1, 3.5], atol=1e-12)  # turned by yaw 90
    assert np.isinf(a.qlim).all() and tree.bodies[2].qlim.tolist() == [-0.1, 0.2]
    assert [b.jtype for b in tree.bodies] == [REVOLUTE, FIXED, PRISMATIC]
    q = np.array([0.5, 0.15])
    R = rpy_to_matrix([0.1, 0.2, 0.3])
    Rz = rotz(0.5)[:3, :3]
    np.testing.assert_allclose(tree.fkine(q, "a")[:3, :3], R @ Rz, atol=1e-15)
    np.testing.assert_allclose(
        tree.fkine(q, "b")[:3, 3], [0, 0, 1] + R @ Rz @ [0, 0.5, 0], atol=1e-15
    )
    np.testing.assert_allclose(tree.fkine(q, "c")[:3, 3], [0.15, 0, 0])
    # serial chain to b: a and b are lumped (parallel-axis theorem, by hand)
    serial = tree_to_serial(tree, "b")
    m, r = serial.arrays.dyn[0, 0], serial.arrays.dyn[0, 1:4]
    assert m == 3.0
    com_a = np.array([0.1, 0, 0])
    com_b = np.array([0, 0.5, 0])
    com = (2 * com_a + 1 * com_b) / 3
    # link frame = URDF frame of a, expressed through B = Ra^T (axis z already): same frame
    np.testing.assert_allclose(r, com, atol=1e-15)
    da, db = com_a - com, com_b - com
    Iexp = (
        np.diag([3, 1, 3.5])
        + 2 * (da @ da * np.eye(3) - np.outer(da, da))
        + np.eye(3) * 0.5
        + 1 * (db @ db * np.eye(3) - np.outer(db, db))
    )
    _, _, Il = lumped_inertia(
        [
            (2.0, com_a, np.diag([3, 1, 3.5]), np.eye(4)),
            (1.0, np.zeros(3), 0.5 * np.eye(3), trans(0, 0.5, 0)),
        ]
    )
    np.testing.assert_allclose(Il, Iexp, atol=1e-14)
    np.testing.assert_allclose(serial.fkine(q[:1]), tree.fkine(q, "b"), atol=1e-15)


def test_write_read_round_trip(panda_tree):
    again = loads_urdf(dumps_urdf(panda_tree))
    assert again.link_names == panda_tree.link_names
    q = RNG.uniform(-1, 1, 9)
    np.testing.assert_allclose(again.fkine_all(q), panda_tree.fkine_all(q), atol=1e-15)
    for b1, b2 in zip(again.bodies, panda_tree.bodies):
        assert b1.mass == b2.mass and b1.jtype == b2.jtype
        np.testing.assert_allclose(b1.inertia, b2.inertia, atol=1e-15)


def test_matrix_to_rpy_inverts_rpy():
    for rpy in ([0.1, -0.2, 0.3], [2.0, 1.2, -2.5], [0.3, np.pi / 2, 0.0]):
        R = rpy_to_matrix(rpy)
        np.testing.assert_allclose(rpy_to_matrix(matrix_to_rpy(R)), R, atol=1e-12)


def _joint(body: str) -> str:
    return f"""<robot name="r"><link name="base"/><link name="a"/>
    <joint name="j" type="revolute"><parent link="base"/><child link="a"/>{body}</joint>
    </robot>"""


@pytest.mark.parametrize(
    "text, message",
    [
        ("<robot name='r'><link name='a'/><link name='a'/></robot>", "defined twice"),
        (
            "<robot name='r'><link name='a'><inertial><mass value='2*3'/></inertial>"
            "</link></robot>",
            "value='2*3' must be a finite number",
        ),
        (
            "<robot name='r'><link name='a'><inertial><mass value='__import__(\"os\")'/></inertial>"
            "</link></robot>",
            "must be a finite number",
        ),
        (_joint("<origin xyz='0 0'/>"), "xyz='0 0' must be 3 finite numbers"),
        (_joint("<axis xyz='0 0 0'/>"), "must not be zero"),
        (_joint("").replace("revolute", "floating"), "type 'floating' is not supported"),
        (_joint("").replace('child link="a"', 'child link="zz"'), "names no <link>"),
        ("<robot name='r'><link name='a'/><link name='b'/></robot>", "exactly one root"),
        ("<robot><link name='a'></robot>", "not a readable XML"),
        ("<model name='x'/>", "root element must be <robot>"),
        (
            """<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">
       <!ENTITY lol2 "&lol;&lol;&lol;">]><robot name="&lol2;"><link name="a"/></robot>""",
            "not a readable XML",
        ),
    ],
)
def test_bad_urdf_is_refused_with_a_clear_message(text, message):
    with pytest.raises(
        URDFError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")
    ):
        loads_urdf(text)


def test_read_urdf_missing_file(tmp_path):
    with pytest.raises(URDFError, match="cannot read URDF file"):
        read_urdf(tmp_path / "nope.urdf")


def test_unknown_link_names_the_choices(ur5):
    with pytest.raises(ValueError, match=r"no link 'hand'.*links: world, base_link"):
        ur5.fkine(np.zeros(6), "hand")
    with pytest.raises(ValueError, match="q must have 6 elements"):
        ur5.fkine(np.zeros(5))
