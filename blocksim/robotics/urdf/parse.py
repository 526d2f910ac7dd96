"""Reading URDF robot descriptions into a :class:`~.model.TreeModel`, safely.

The XML is parsed with ``defusedxml`` (no entity expansion, no external entities, no DTD
retrieval) and every number is read with ``float`` (never ``eval``, unlike SPART's
``urdf2robot``). A document is read as untrusted input: only regular files, at most
:data:`MAX_URDF_BYTES`, and every refusal is a :class:`URDFError` that names the file, the
line and the element (link or joint name) and attribute.

What is read
------------
* ``<link>``: name (unique); ``<inertial>`` with ``<mass value>`` (required, finite, >= 0),
  ``<origin xyz rpy>`` (the centre of mass and the axes of the inertia tensor) and
  ``<inertia ixx ixy ixz iyy iyz izz>`` (required, all six: a symmetric positive
  semi-definite tensor whose principal moments satisfy the triangle inequality
  ``A + B >= C``, as every rigid body's do; ``check_inertia=False`` accepts the others). The
  tensor is rotated into the link-frame axes; a link without ``<inertial>`` has zero mass.
* ``<joint>``: name (required, unique), type (``fixed``, ``revolute``, ``continuous`` =
  revolute, ``prismatic``; ``floating`` and ``planar`` are refused), ``<parent link>``,
  ``<child link>``, ``<origin xyz rpy>`` (rpy: ``R = Rz(yaw) Ry(pitch) Rx(roll)``),
  ``<axis xyz>`` (default ``1 0 0``, normalised), ``<limit lower upper>`` (``lower <=
  upper``; ``continuous``: none).
* Visual, collision, transmission, gazebo and ``<mimic>`` elements are ignored (a mimic joint
  becomes an independent coordinate).

Parsing is linear in the size of the document (one pass over the elements, dictionaries for
the names; about 50 us per link and joint).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import FileTooLarge, NotRegularFile, read_regular

from .model import FIXED, PRISMATIC, REVOLUTE, Body, TreeModel, transform

__all__ = ["MAX_URDF_BYTES", "URDFError", "loads_urdf", "read_urdf"]

#: largest URDF document read [bytes] (a file, or the text given to :func:`loads_urdf`); raise
#: it in Python (``blocksim.robotics.urdf.parse.MAX_URDF_BYTES = n``) for a larger robot
MAX_URDF_BYTES = 16 * 1024 * 1024

_TYPES = {"fixed": FIXED, "revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC}
_INERTIA = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
#: relative tolerance of the inertia checks (of the largest principal moment): rounding in
#: exported files, and bodies at the limit (a thin plate has A + B = C)
_INERTIA_TOL = 1e-6


class URDFError(ValueError):
    """A URDF document that cannot be read (the message names the file, the line, the
    element and the attribute)."""


def _parser():
    try:
        from defusedxml import ElementTree
    except ImportError as exc:  # pragma: no cover - defusedxml is a declared dependency
        raise ImportError(
            "reading URDF needs the 'defusedxml' package: pip install 'blocksim[urdf]'"
        ) from exc
    return ElementTree


def _show(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a refusal never quotes megabytes)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(str(value))} characters)"


def _parse_xml(text: str | bytes, source: str) -> tuple[Any, dict[int, int]]:
    """The root element of ``text`` and the line of every element (by ``id``)."""
    ET = _parser()
    import xml.etree.ElementTree as _std

    lines: dict[int, int] = {}

    class _Builder(_std.TreeBuilder):
        def start(self, tag, attrs):
            el = super().start(tag, attrs)
            lines[id(el)] = expat.CurrentLineNumber
            return el

    xml_parser = ET.DefusedXMLParser(target=_Builder(), forbid_dtd=False,
                                     forbid_entities=True, forbid_external=True)  # fmt: skip
    expat = xml_parser.parser
    try:
        xml_parser.feed(text)
        root = xml_parser.close()
    except Exception as exc:  # defusedxml's refusals and XML syntax errors alike
        raise URDFError(
            f"{source}: not a readable XML document ({type(exc).__name__}: {exc})"
        ) from None
    return root, lines


class _Doc:
    """The document being read: where an element is, for the messages."""

    def __init__(self, source: str, lines: dict[int, int]) -> None:
        self.source = source
        self.lines = lines

    def at(self, el: Any, what: str) -> str:
        """``"<source>: line <n>: <what>"`` for element ``el``."""
        line = self.lines.get(id(el))
        return f"{self.source}: line {line}: {what}" if line else f"{self.source}: {what}"

    def numbers(self, el, attr: str, size: int, default, where: str) -> list[float]:
        """``size`` finite numbers of attribute ``attr`` of ``el`` (``default`` when the element
        or the attribute is absent; ``default`` None: required)."""
        raw = el.get(attr) if el is not None else None
        if raw is None:
            if default is None:
                raise URDFError(f"{where}: attribute {attr!r} is missing")
            return list(default)
        parts = raw.split()
        vals = None
        if len(parts) == size:
            try:
                vals = [float(p) for p in parts]
            except ValueError:
                vals = None
        if vals is None or not all(math.isfinite(v) for v in vals):
            what = "a finite number" if size == 1 else f"{size} finite numbers"
            raise URDFError(f"{where}: attribute {attr}={_show(raw)} must be {what}")
        return vals

    def number(self, el, attr: str, default: float | None, where: str) -> float:
        return self.numbers(el, attr, 1, None if default is None else [default], where)[0]

    def origin(self, parent, who: str) -> np.ndarray:
        """The transform of the ``<origin>`` of ``parent`` (``who``: the element, for the
        messages)."""
        el = parent.find("origin")
        w = self.at(el, f"{who} <origin>") if el is not None else who
        return transform(self.numbers(el, "xyz", 3, (0, 0, 0), w),
                         self.numbers(el, "rpy", 3, (0, 0, 0), w))  # fmt: skip

    def inertial(self, link, who: str, check: bool) -> tuple[float, np.ndarray, np.ndarray]:
        """Mass, centre of mass (link frame) and inertia (link axes) of ``link``."""
        el = link.find("inertial")
        if el is None:
            return 0.0, np.zeros(3), np.zeros((3, 3))
        w = self.at(el, f"{who} <inertial>")
        T = self.origin(el, f"{who} <inertial>")
        me = el.find("mass")
        if me is None:
            raise URDFError(f"{w}: <mass value=...> is missing")
        wm = self.at(me, f"{who} <inertial> <mass>")
        mass = self.number(me, "value", None, wm)
        if mass < 0:
            raise URDFError(f"{wm}: attribute value={_show(me.get('value'))} must be >= 0 kg")
        ie = el.find("inertia")
        if ie is None:
            raise URDFError(f"{w}: <inertia ixx ixy ixz iyy iyz izz> is missing")
        wi = self.at(ie, f"{who} <inertial> <inertia>")
        xx, xy, xz, yy, yz, zz = (self.number(ie, k, None, wi) for k in _INERTIA)
        inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        _check_inertia(inertia, wi, check)
        R = T[:3, :3]
        return mass, T[:3, 3].copy(), R @ inertia @ R.T


def _check_inertia(inertia: np.ndarray, where: str, triangle: bool) -> None:
    """Refuse a tensor that is not positive semi-definite or (``triangle``) whose principal
    moments break the triangle inequality: no rigid body has it."""
    ev = np.linalg.eigvalsh(inertia)
    tol = _INERTIA_TOL * max(abs(ev[2]), 1e-300)
    if ev[0] < -tol:
        raise URDFError(f"{where}: the inertia is not positive semi-definite (principal "
                        f"moments {', '.join(f'{v:.6g}' for v in ev)} kg m^2)")  # fmt: skip
    if triangle and ev[0] + ev[1] < ev[2] - tol:
        raise URDFError(
            f"{where}: principal moments {', '.join(f'{v:.6g}' for v in ev)} kg m^2 break the "
            f"triangle inequality (the two smaller must add up to at least the largest, as for "
            f"every rigid body); read_urdf(..., check_inertia=False) accepts them"
        )


def loads_urdf(text: str | bytes, *, source: str = "<string>",
               check_inertia: bool = True) -> TreeModel:  # fmt: skip
    """A :class:`~.model.TreeModel` from URDF text.

    Parameters
    ----------
    text : str or bytes
        The URDF document (at most :data:`MAX_URDF_BYTES`).
    source : str
        Name used in error messages (a file name).
    check_inertia : bool
        Refuse inertia tensors whose principal moments break the triangle inequality (default
        True); positive semi-definiteness is always checked.

    Raises
    ------
    URDFError
        Naming the source, the line and the element: malformed XML, a document over the size
        limit, a missing or duplicated link or joint name, an unknown joint type, a bad or
        missing number, a negative mass, an inertia no rigid body has, ``lower > upper``, a
        cycle or several root links.
    """
    if len(text) > MAX_URDF_BYTES:
        raise URDFError(f"{source}: the document has {len(text)} characters, more than "
                        f"MAX_URDF_BYTES = {MAX_URDF_BYTES} (blocksim.robotics.urdf.parse."
                        f"MAX_URDF_BYTES: raise it in Python for a larger robot)")  # fmt: skip
    root, lines = _parse_xml(text, source)
    doc = _Doc(source, lines)
    if root.tag != "robot":
        raise URDFError(f"{source}: the root element must be <robot>, got <{root.tag[:60]}>")
    name = root.get("name", "robot")
    links: dict[str, tuple] = {}
    link_el: dict[str, Any] = {}
    for el in root.findall("link"):
        lname = el.get("name")
        if not lname:
            raise URDFError(doc.at(el, "a <link> has no name"))
        if lname in links:
            raise URDFError(doc.at(el, f"link {_show(lname)} is defined twice (first at "
                                       f"line {lines.get(id(link_el[lname]))})"))  # fmt: skip
        link_el[lname] = el
        links[lname] = doc.inertial(el, f"link {_show(lname)}", check_inertia)
    if not links:
        raise URDFError(f"{source}: robot {_show(name)} has no <link>")
    joints: dict[str, dict] = {}
    joint_el: dict[str, Any] = {}
    children = defaultdict(list)
    for el in root.findall("joint"):
        jname = el.get("name")
        if not jname:
            raise URDFError(doc.at(el, "a <joint> has no name"))
        who = f"joint {_show(jname)}"
        where = doc.at(el, who)
        if jname in joint_el:
            raise URDFError(f"{where} is defined twice (first at line "
                            f"{lines.get(id(joint_el[jname]))})")  # fmt: skip
        joint_el[jname] = el
        jt = el.get("type")
        if jt not in _TYPES:
            raise URDFError(f"{where}: type {_show(jt)} is not supported (fixed, revolute, "
                            f"continuous, prismatic)")  # fmt: skip
        pe, ce = el.find("parent"), el.find("child")
        parent = pe.get("link") if pe is not None else None
        child = ce.get("link") if ce is not None else None
        for role, lk in (("parent", parent), ("child", child)):
            if lk not in links:
                raise URDFError(f"{where}: <{role} link={_show(lk)}> names no <link>")
        if child in joints:
            raise URDFError(f"{where}: link {_show(child)} already has a parent joint "
                            f"({_show(joints[child]['name'])}); URDF describes trees")  # fmt: skip
        ae = el.find("axis")
        wa = doc.at(ae, f"{who} <axis>")
        axis = np.array(doc.numbers(ae, "xyz", 3, (1, 0, 0), wa))
        if _TYPES[jt] != FIXED and not np.linalg.norm(axis) > 0:
            raise URDFError(f"{wa}: <axis xyz> must not be zero")
        lim = el.find("limit")
        qlim = (-math.inf, math.inf)
        if lim is not None and jt in ("revolute", "prismatic"):
            wl = doc.at(lim, f"{who} <limit>")
            qlim = (doc.number(lim, "lower", -math.inf, wl),
                    doc.number(lim, "upper", math.inf, wl))  # fmt: skip
            if qlim[0] > qlim[1]:
                raise URDFError(f"{wl}: lower={lim.get('lower')} is above "
                                f"upper={lim.get('upper')}")  # fmt: skip
        joints[child] = dict(name=jname, jtype=_TYPES[jt], parent=parent,
                             origin=doc.origin(el, who), axis=axis, qlim=np.array(qlim),
                             where=where)  # fmt: skip
        children[parent].append(child)
    return _tree(name, links, joints, children, doc)


def _tree(name: str, links: dict, joints: dict, children: dict, doc: _Doc) -> TreeModel:
    """The tree of the parsed links and joints, depth first, children in file order."""
    source = doc.source
    roots = [lk for lk in links if lk not in joints]
    if len(roots) != 1:
        shown = roots[:10] + (["..."] if len(roots) > 10 else [])
        raise URDFError(
            f"{source}: a URDF tree has exactly one root link (a link that is no "
            f"joint's child); found {shown or 'none (a cycle)'}"
        )
    base_name = roots[0]
    m0, c0, I0 = links[base_name]
    try:
        base = Body(base_name, -1, "", FIXED, np.zeros(3), np.eye(4), m0, c0, I0)
    except ValueError as exc:  # pragma: no cover - the reading checks come first
        raise URDFError(f"{source}: link {_show(base_name)}: {exc}") from None
    bodies: list[Body] = []
    index = {base_name: -1}
    stack = list(reversed(children[base_name]))
    while stack:  # depth first, children in file order
        child = stack.pop()
        j = joints[child]
        m, c, I = links[child]  # noqa: E741
        index[child] = len(bodies)
        try:
            bodies.append(Body(child, index[j["parent"]], j["name"], j["jtype"], j["axis"],
                               j["origin"], m, c, I, j["qlim"]))  # fmt: skip
        except ValueError as exc:  # pragma: no cover - the reading checks come first
            raise URDFError(f"{j['where']}: {exc}") from None
        stack.extend(reversed(children[child]))
    if len(bodies) != len(links) - 1:
        unreached = sorted(set(links) - set(index))
        shown = unreached[:10] + (["..."] if len(unreached) > 10 else [])
        raise URDFError(
            f"{source}: links {shown} are not connected to the root {base_name!r} (a cycle?)"
        )
    return TreeModel(name, base, tuple(bodies))


def _read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (:func:`blocksim.confine.read_regular`)."""
    try:
        return read_regular(path, limit)
    except NotRegularFile:
        raise URDFError(f"URDF file {str(path)!r} is not a regular file (a device, pipe "
                        f"or socket); only regular files are read") from None  # fmt: skip
    except FileTooLarge:
        raise URDFError(f"URDF file {str(path)!r} has more than MAX_URDF_BYTES = {limit} "
                        f"bytes (blocksim.robotics.urdf.parse.MAX_URDF_BYTES: raise it in "
                        f"Python for a larger robot)") from None  # fmt: skip


def read_urdf(path: str | os.PathLike, *, check_inertia: bool = True) -> TreeModel:
    """A :class:`~.model.TreeModel` from a URDF file (see :func:`loads_urdf`): a regular file
    of at most :data:`MAX_URDF_BYTES` bytes.

    Raises
    ------
    URDFError
        The file cannot be read, is not a regular file or is too large, or its content is
        refused (:func:`loads_urdf`).
    """
    p = Path(path)
    try:
        data = _read_regular(p, MAX_URDF_BYTES)
    except OSError as exc:
        raise URDFError(f"cannot read URDF file {str(p)!r}: {exc.strerror or exc}") from None
    return loads_urdf(data, source=str(p), check_inertia=check_inertia)
