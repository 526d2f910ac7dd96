"""Reading URDF robot descriptions into a :class:`~.model.TreeModel`, safely.

The XML is parsed with ``defusedxml`` (no entity expansion, no external entities, no DTD
retrieval) and every number is read with ``float`` (never ``eval``, unlike SPART's
``urdf2robot``); a malformed attribute is reported naming the element and the attribute.

What is read
------------
* ``<link>``: name; ``<inertial>`` ``<mass value>``, ``<origin xyz rpy>`` (the centre of mass
  and the axes of the inertia tensor) and ``<inertia ixx ixy ixz iyy iyz izz>`` (tensor
  entries). The tensor is rotated into the link-frame axes; a link without ``<inertial>`` has
  zero mass.
* ``<joint>``: name, type (``fixed``, ``revolute``, ``continuous`` = revolute, ``prismatic``;
  ``floating`` and ``planar`` are refused), ``<parent link>``, ``<child link>``,
  ``<origin xyz rpy>`` (rpy: ``R = Rz(yaw) Ry(pitch) Rx(roll)``), ``<axis xyz>`` (default
  ``1 0 0``, normalised), ``<limit lower upper>`` (``continuous``: none).
* Visual, collision, transmission, gazebo and ``<mimic>`` elements are ignored (a mimic joint
  becomes an independent coordinate).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from .model import FIXED, PRISMATIC, REVOLUTE, Body, TreeModel, transform

__all__ = ["URDFError", "loads_urdf", "read_urdf"]

_TYPES = {"fixed": FIXED, "revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC}


class URDFError(ValueError):
    """A URDF document that cannot be read (the message names the element and attribute)."""


def _parser():
    try:
        from defusedxml import ElementTree
    except ImportError as exc:  # pragma: no cover - defusedxml is a declared dependency
        raise ImportError(
            "reading URDF needs the 'defusedxml' package: pip install 'blocksim[urdf]'"
        ) from exc
    return ElementTree


def _numbers(el, attr: str, size: int, default, where: str) -> np.ndarray:
    raw = el.get(attr) if el is not None else None
    if raw is None:
        return np.array(default, dtype=float)
    parts = raw.split()
    try:
        vals = np.array([float(p) for p in parts], dtype=float)
    except ValueError:
        vals = None
    if vals is None or vals.shape != (size,) or not np.all(np.isfinite(vals)):
        what = "a finite number" if size == 1 else f"{size} finite numbers"
        raise URDFError(f"{where}: attribute {attr}={raw!r} must be {what}")
    return vals


def _number(el, attr: str, default: float, where: str) -> float:
    return float(_numbers(el, attr, 1, [default], where)[0])


def _origin(parent, where: str) -> np.ndarray:
    el = parent.find("origin")
    return transform(
        _numbers(el, "xyz", 3, (0, 0, 0), f"{where} <origin>"),
        _numbers(el, "rpy", 3, (0, 0, 0), f"{where} <origin>"),
    )


def _inertial(link, where: str) -> tuple[float, np.ndarray, np.ndarray]:
    el = link.find("inertial")
    if el is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    w = f"{where} <inertial>"
    T = _origin(el, w)
    mass = _number(el.find("mass"), "value", 0.0, f"{w} <mass>")
    ie = el.find("inertia")
    vals = {
        k: _number(ie, k, 0.0, f"{w} <inertia>") for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    }
    inertia = np.array(
        [
            [vals["ixx"], vals["ixy"], vals["ixz"]],
            [vals["ixy"], vals["iyy"], vals["iyz"]],
            [vals["ixz"], vals["iyz"], vals["izz"]],
        ]
    )
    R = T[:3, :3]
    return mass, T[:3, 3].copy(), R @ inertia @ R.T


def loads_urdf(text: str | bytes, *, source: str = "<string>") -> TreeModel:
    """A :class:`~.model.TreeModel` from URDF text.

    Parameters
    ----------
    text : str or bytes
        The URDF document.
    source : str
        Name used in error messages (a file name).

    Raises
    ------
    URDFError
        Malformed XML, a missing or duplicated link, an unknown joint type, a bad number, a
        cycle or several root links.
    """
    ET = _parser()
    try:
        root = ET.fromstring(text)
    except Exception as exc:  # defusedxml's refusals and XML syntax errors alike
        raise URDFError(
            f"{source}: not a readable XML document ({type(exc).__name__}: {exc})"
        ) from None
    if root.tag != "robot":
        raise URDFError(f"{source}: the root element must be <robot>, got <{root.tag}>")
    name = root.get("name", "robot")
    links = {}
    for el in root.findall("link"):
        lname = el.get("name")
        if not lname:
            raise URDFError(f"{source}: a <link> has no name")
        if lname in links:
            raise URDFError(f"{source}: link {lname!r} is defined twice")
        links[lname] = _inertial(el, f"{source}: link {lname!r}")
    if not links:
        raise URDFError(f"{source}: robot {name!r} has no <link>")
    joints = {}
    children = defaultdict(list)
    for el in root.findall("joint"):
        jname = el.get("name")
        where = f"{source}: joint {jname!r}"
        jt = el.get("type")
        if jt not in _TYPES:
            raise URDFError(
                f"{where}: type {jt!r} is not supported (fixed, revolute, continuous, prismatic)"
            )
        pe, ce = el.find("parent"), el.find("child")
        parent = pe.get("link") if pe is not None else None
        child = ce.get("link") if ce is not None else None
        for role, lk in (("parent", parent), ("child", child)):
            if lk not in links:
                raise URDFError(f"{where}: <{role} link={lk!r}> names no <link>")
        if child in joints:
            raise URDFError(
                f"{where}: link {child!r} already has a parent joint "
                f"({joints[child]['name']!r}); URDF describes trees"
            )
        axis = _numbers(el.find("axis"), "xyz", 3, (1, 0, 0), f"{where} <axis>")
        if _TYPES[jt] != FIXED and not np.linalg.norm(axis) > 0:
            raise URDFError(f"{where}: <axis xyz> must not be zero")
        lim = el.find("limit")
        qlim = np.array([-np.inf, np.inf])
        if lim is not None and jt in ("revolute", "prismatic"):
            qlim = np.array(
                [
                    _number(lim, "lower", -np.inf, f"{where} <limit>"),
                    _number(lim, "upper", np.inf, f"{where} <limit>"),
                ]
            )
        joints[child] = dict(
            name=jname,
            jtype=_TYPES[jt],
            parent=parent,
            origin=_origin(el, where),
            axis=axis,
            qlim=qlim,
        )
        children[parent].append(child)
    roots = [lk for lk in links if lk not in joints]
    if len(roots) != 1:
        raise URDFError(
            f"{source}: a URDF tree has exactly one root link (a link that is no "
            f"joint's child); found {roots or 'none (a cycle)'}"
        )
    base_name = roots[0]
    m0, c0, I0 = links[base_name]
    base = Body(base_name, -1, "", FIXED, np.zeros(3), np.eye(4), m0, c0, I0)
    bodies: list[Body] = []
    index = {base_name: -1}
    stack = list(reversed(children[base_name]))
    while stack:  # depth first, children in file order
        child = stack.pop()
        j = joints[child]
        m, c, I = links[child]  # noqa: E741
        index[child] = len(bodies)
        bodies.append(
            Body(
                child,
                index[j["parent"]],
                j["name"],
                j["jtype"],
                j["axis"],
                j["origin"],
                m,
                c,
                I,
                j["qlim"],
            )
        )
        stack.extend(reversed(children[child]))
    if len(bodies) != len(links) - 1:
        unreached = sorted(set(links) - set(index))
        raise URDFError(
            f"{source}: links {unreached} are not connected to the root {base_name!r} (a cycle?)"
        )
    return TreeModel(name, base, tuple(bodies))


def read_urdf(path: str | os.PathLike) -> TreeModel:
    """A :class:`~.model.TreeModel` from a URDF file (see :func:`loads_urdf`)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise URDFError(f"cannot read URDF file {str(p)!r}: {exc.strerror or exc}") from None
    return loads_urdf(data, source=str(p))
