"""Writing a :class:`~.model.TreeModel` as URDF text (the inverse of :mod:`.parse`).

Numbers are written with ``repr`` (round-trip exact); each link's ``<inertial>`` has its centre
of mass as ``xyz`` and ``rpy = 0`` (the tensor is in link axes). Joint armature has no URDF
element and is not written.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

import numpy as np

from .model import FIXED, Body, TreeModel

__all__ = ["dumps_urdf", "matrix_to_rpy"]


def matrix_to_rpy(R) -> np.ndarray:
    """URDF roll, pitch, yaw (rad) of a rotation matrix ``Rz(yaw) Ry(pitch) Rx(roll)``, (3,)."""
    R = np.asarray(R, dtype=float)
    sp = -R[2, 0]
    pitch = np.arcsin(np.clip(sp, -1.0, 1.0))
    if abs(sp) < 1.0 - 1e-12:
        roll = np.arctan2(R[2, 1], R[2, 2])
        yaw = np.arctan2(R[1, 0], R[0, 0])
    else:  # gimbal lock: yaw absorbs the rotation about the common axis
        roll = 0.0
        yaw = np.arctan2(-R[0, 1], R[1, 1])
    return np.array([roll, pitch, yaw])


def _f(x) -> str:
    return repr(float(x))


def _v(x) -> str:
    return " ".join(repr(float(a)) for a in x)


def _origin(T: np.ndarray, indent: str) -> str:
    return f'{indent}<origin xyz="{_v(T[:3, 3])}" rpy="{_v(matrix_to_rpy(T[:3, :3]))}"/>\n'


def _link(b: Body) -> str:
    I = b.inertia  # noqa: E741
    return (
        f"  <link name={quoteattr(b.name)}>\n    <inertial>\n"
        f'      <origin xyz="{_v(b.com)}" rpy="0 0 0"/>\n'
        f'      <mass value="{_f(b.mass)}"/>\n'
        f'      <inertia ixx="{_f(I[0, 0])}" ixy="{_f(I[0, 1])}" ixz="{_f(I[0, 2])}" '
        f'iyy="{_f(I[1, 1])}" iyz="{_f(I[1, 2])}" izz="{_f(I[2, 2])}"/>\n'
        f"    </inertial>\n  </link>\n"
    )


def dumps_urdf(tree: TreeModel) -> str:
    """URDF text of ``tree`` (links, inertials, fixed/revolute/prismatic joints, limits)."""
    names = tree.link_names
    out = [f'<?xml version="1.0"?>\n<robot name={quoteattr(tree.name)}>\n', _link(tree.base)]
    for b in tree.bodies:
        out.append(_link(b))
        jt = {FIXED: "fixed", 1: "revolute", 2: "prismatic"}[b.jtype]
        if b.jtype == 1 and not np.all(np.isfinite(b.qlim)):
            jt = "continuous"
        out.append(
            f"  <joint name={quoteattr(b.joint)} type={quoteattr(jt)}>\n"
            f"    <parent link={quoteattr(names[b.parent + 1])}/>\n"
            f"    <child link={quoteattr(b.name)}/>\n" + _origin(b.origin, "    ")
        )
        if b.jtype != FIXED:
            out.append(f'    <axis xyz="{_v(b.axis)}"/>\n')
            if jt != "continuous":
                lo, hi = b.qlim
                out.append(
                    f'    <limit lower="{_f(lo)}" upper="{_f(hi)}" effort="0" velocity="0"/>\n'
                )
        out.append("  </joint>\n")
    out.append("</robot>\n")
    return "".join(out)
