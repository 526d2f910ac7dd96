"""URDF read as untrusted input: every document no robot has is refused with a URDFError that
names the file, the line and the element; only regular files, at most MAX_URDF_BYTES; parsing
time linear in the number of links."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from blocksim.robotics.urdf import (
    MAX_URDF_BYTES,
    URDFError,
    loads_urdf,
    read_urdf,
    serial_to_tree,
    tree_to_serial,
)
from blocksim.robotics.urdf import parse as urdf_parse
from blocksim.robotics.urdf.write import dumps_urdf

INERTIAL = ('<inertial><mass value="{m}"/><inertia ixx="{a}" ixy="0" ixz="0" iyy="{b}" iyz="0" '
            'izz="{c}"/></inertial>')


def robot(link_a: str = "", joint: str = "", name: str = 'name="j"') -> str:
    """A two-link robot, one element per line (line 3: link a, line 4: joint j)."""
    return (
        '<robot name="r">\n'
        '<link name="base"/>\n'
        f'<link name="a">{link_a}</link>\n'
        f'<joint {name} type="revolute"><parent link="base"/><child link="a"/>{joint}</joint>\n'
        "</robot>\n"
    )


def good_inertial(m=1.0, a=1.0, b=1.0, c=1.0) -> str:
    return INERTIAL.format(m=m, a=a, b=b, c=c)


@pytest.mark.parametrize(
    "text, where, what",
    [
        # duplicate joint names (the second joint is on line 5)
        (robot().replace("</robot>", '<link name="b"/>\n<joint name="j" type="fixed">'
                                     '<parent link="a"/><child link="b"/></joint>\n</robot>'),
         "line 6: joint 'j'", "is defined twice (first at line 4)"),
        (robot(name=""), "line 4", "a <joint> has no name"),
        (robot(name='name=""'), "line 4", "a <joint> has no name"),
        (robot(link_a='<inertial><mass/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" '
                      'izz="1"/></inertial>'),
         "line 3: link 'a' <inertial> <mass>", "attribute 'value' is missing"),
        (robot(link_a='<inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
                      "</inertial>"),
         "line 3: link 'a' <inertial>", "<mass value=...> is missing"),
        (robot(link_a='<inertial><mass value="1"/></inertial>'),
         "line 3: link 'a' <inertial>", "<inertia ixx ixy ixz iyy iyz izz> is missing"),
        (robot(link_a='<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/>'
                      "</inertial>"),
         "line 3: link 'a' <inertial> <inertia>", "attribute 'ixy' is missing"),
        (robot(link_a=good_inertial(m=-1)),
         "line 3: link 'a' <inertial> <mass>", "value='-1' must be >= 0 kg"),
        (robot(joint='<limit lower="1" upper="-1"/>'),
         "line 4: joint 'j' <limit>", "lower=1 is above upper=-1"),
        (robot(link_a=good_inertial(a=1, b=1, c=3)),
         "line 3: link 'a' <inertial> <inertia>",
         "principal moments 1, 1, 3 kg m^2 break the triangle inequality"),
        (robot(link_a=good_inertial(a=-1, b=1, c=1)),
         "line 3: link 'a' <inertial> <inertia>", "not positive semi-definite"),
        (robot(joint='<axis xyz="0 0 nan"/>'),
         "line 4: joint 'j' <axis>", "xyz='0 0 nan' must be 3 finite numbers"),
    ],
)
def test_each_bad_document_names_file_line_and_element(text, where, what):
    with pytest.raises(URDFError) as info:
        loads_urdf(text, source="robot.urdf")
    msg = str(info.value)
    assert msg.startswith("robot.urdf: "), msg
    assert where in msg and what in msg, msg


def test_the_same_robot_without_the_defect_is_read():
    tree = loads_urdf(robot(link_a=good_inertial(a=1, b=1, c=2),
                            joint='<limit lower="-1" upper="1"/>'))  # fmt: skip
    assert tree.joint_names == ["j"] and tree.bodies[0].mass == 1.0
    np.testing.assert_array_equal(tree.qlim, [[-1.0, 1.0]])
    # a body at the triangle's limit (a thin plate: A + B = C) is a rigid body
    loads_urdf(robot(link_a=good_inertial(a=0.25, b=0.75, c=1.0)))


def test_check_inertia_false_accepts_the_classic_puma_inertias():
    text = robot(link_a=good_inertial(a=0, b=0, c=0.35))
    with pytest.raises(URDFError, match="triangle inequality"):
        loads_urdf(text)
    assert loads_urdf(text, check_inertia=False).bodies[0].inertia[2, 2] == 0.35


def test_negative_mass_was_a_plain_value_error_and_is_now_a_urdf_error(tmp_path):
    path = tmp_path / "neg.urdf"
    path.write_text(robot(link_a=good_inertial(m=-2)))
    with pytest.raises(URDFError, match=r"neg\.urdf: line 3: link 'a' <inertial> <mass>"):
        read_urdf(path)


def test_only_regular_files_are_read():
    t = time.perf_counter()
    with pytest.raises(URDFError, match="not a regular file"):
        read_urdf("/dev/zero")
    assert time.perf_counter() - t < 1.0


def test_a_fifo_does_not_hang(tmp_path):
    fifo = tmp_path / "robot.urdf"
    os.mkfifo(fifo)
    with pytest.raises(URDFError, match="not a regular file"):
        read_urdf(fifo)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(URDFError, match="cannot read URDF file"):
        read_urdf(tmp_path)


def test_size_cap_on_files_and_text(tmp_path, monkeypatch):
    assert MAX_URDF_BYTES == 16 * 1024 * 1024
    monkeypatch.setattr(urdf_parse, "MAX_URDF_BYTES", 1000)
    text = robot(link_a=good_inertial())
    big = text.replace('name="r"', 'name="' + "x" * 2000 + '"')
    path = tmp_path / "big.urdf"
    path.write_text(big)
    with pytest.raises(URDFError, match=r"big\.urdf.*more than MAX_URDF_BYTES = 1000 bytes"):
        read_urdf(path)
    with pytest.raises(URDFError, match="more than MAX_URDF_BYTES = 1000"):
        loads_urdf(big)
    path.write_text(text)
    assert read_urdf(path).n == 1  # under the cap: read


def test_a_huge_attribute_is_refused_fast_and_never_quoted_whole():
    text = robot(link_a=good_inertial()).replace('<link name="base"/>',
                                                 '<link name="base"><inertial><mass value="'
                                                 + "1 " * 2_000_000 + '"/></inertial></link>')
    t = time.perf_counter()
    with pytest.raises(URDFError) as info:
        loads_urdf(text)
    assert time.perf_counter() - t < 5.0
    assert len(str(info.value)) < 400 and "characters" in str(info.value)


def _chain(n: int) -> str:
    rows = ['<robot name="chain">', '<link name="l0"/>']
    for i in range(1, n + 1):
        rows.append(f'<link name="l{i}">{good_inertial(a=0.1, b=0.1, c=0.1)}</link>')
        rows.append(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                    f'<child link="l{i}"/><axis xyz="0 0 1"/></joint>')
    rows.append("</robot>")
    return "\n".join(rows)


def _best(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def test_parsing_and_conversion_are_linear_in_the_links():
    small, large = _chain(250), _chain(2000)
    ratio = _best(lambda: loads_urdf(large)) / _best(lambda: loads_urdf(small))
    assert ratio < 8 * 2.0, ratio  # 8x the links: ~8x the time (quadratic: ~64x)
    t_small, t_large = loads_urdf(small), loads_urdf(large)
    ratio = _best(lambda: tree_to_serial(t_large), 1) / _best(lambda: tree_to_serial(t_small), 1)
    assert ratio < 8 * 2.0, ratio


def test_children_are_indexed_once():
    tree = loads_urdf(_chain(5))
    assert [tree.children(k) for k in range(-1, 5)] == [[0], [1], [2], [3], [4], []]
    assert tree.children(99) == []


def test_written_urdf_reads_back():
    from blocksim.robotics.models import panda

    tree = serial_to_tree(panda())
    again = loads_urdf(dumps_urdf(tree))
    assert again.link_names == tree.link_names
