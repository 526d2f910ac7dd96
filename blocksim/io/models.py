"""Named models of diagram files (robot arms, ...): kinds and their builders.

A file's ``"models"`` section names objects that blocks share, e.g.::

    "models": {
        "arm": {"zoo": "puma560"},
        "planar": {"dh": [[0, 0, 1, 0], [0, 0, 1, 0]], "modified": false}
    }

and block parameters refer to them as ``"$arm"``. A model's *kind* is its ``"kind"`` member
or, without one, the first member whose name is a registered kind (``"zoo"``, ``"dh"``). The
kind's builder is called with the other members as keyword arguments (read by the rules of
:mod:`blocksim.io.values`; a builder parameter annotated ``str`` takes plain strings).

Kinds are registered from Python code (:func:`register_model_kind`); the file only names them,
and a zoo model is looked up by name in the zoo's explicit list
(:func:`blocksim.robotics.models.models`), never imported by a string from the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blocksim.engine.errors import plain, suggest

_KINDS: dict[str, Callable[..., Any]] = {}


def register_model_kind(name: str, builder: Callable[..., Any]) -> None:
    """Let files build models of kind ``name`` with ``builder(**members)``.

    Parameters
    ----------
    name : str
        Kind name, an identifier (used as ``"kind": name`` or as the first member's name).
    builder : callable
        Called with the model's members (other than ``"kind"``) as keywords; returns the model.
    """
    if not (isinstance(name, str) and name.isidentifier()):
        raise ValueError(f"register_model_kind: {name!r} is not an identifier")
    if not callable(builder):
        raise TypeError(f"register_model_kind: builder of '{name}' is not callable")
    _KINDS[name] = builder


def unregister_model_kind(name: str) -> None:
    """Forget the kind ``name``."""
    _KINDS.pop(name, None)


def model_kinds() -> dict[str, Callable[..., Any]]:
    """The registered kinds by name."""
    return dict(_KINDS)


def kind_of(spec: dict[str, Any]) -> str:
    """The kind named by a model's members.

    Raises
    ------
    KeyError
        With the registered kinds, when none is named.
    """
    kind = spec.get("kind")
    if not isinstance(kind, (str, type(None))):
        kind = str(kind)
    if kind is None:
        kind = next((k for k in spec if k in _KINDS), None)
    if isinstance(kind, str) and kind in _KINDS:
        return kind
    shown = (
        f"kind {kind!r}{suggest(str(kind), _KINDS)}"
        if kind is not None
        else 'no kind (give "kind": name, or a first member such as "zoo" or "dh")'
    )
    raise KeyError(f"{shown}; registered model kinds: {', '.join(_KINDS) or '(none)'}")


def zoo_names() -> dict[str, Callable[..., Any]]:
    """The model zoo's explicit list, ``{name: constructor}`` (from
    :func:`blocksim.robotics.models.models`); empty when the zoo is not installed."""
    try:
        from blocksim.robotics import models  # a fixed module, never a name from a file
    except ImportError:
        return {}
    listing = getattr(models, "models", None)
    if callable(listing):
        return {info.name: info.constructor for info in listing()}
    return {}


def _zoo(zoo: str, nofriction: str | bool = False, mass_scale: float = 1.0) -> Any:
    """A robot from the model zoo by name, e.g. ``{"zoo": "puma560"}``; ``"nofriction"``:
    ``true``/``"coulomb"`` removes Coulomb friction, ``"all"`` also viscous (RTB's
    ``nofriction``); ``"mass_scale"`` multiplies every link's mass and inertia (a deliberately
    wrong controller model, e.g. 1.1)."""
    names = zoo_names()
    if not names:
        raise ValueError(
            "the model zoo (blocksim.robotics.models) is not available in this installation"
        )
    if zoo not in names:
        raise ValueError(
            f"no model {plain(zoo)} in the zoo{suggest(zoo, names)}; models: {', '.join(names)}"
        )
    robot = names[zoo]()
    if nofriction not in (False, True, "coulomb", "all", "viscous"):
        raise ValueError(
            f'nofriction must be true, false, "coulomb", "all" or "viscous", got '
            f'{plain(nofriction)}'
        )
    if nofriction:
        robot = robot.nofriction("coulomb" if nofriction is True else nofriction)
    if mass_scale != 1.0:
        from blocksim.robotics.arm.perturb import scale_inertial

        robot = scale_inertial(robot, mass_scale)
    return robot


def _dh(
    dh: Any,
    sigma: Any = None,
    offset: Any = None,
    modified: bool = False,
    dyn: Any = None,
    base: Any = None,
    tool: Any = None,
    gravity: Any = None,
    qlim: Any = None,
    name: str = "arm",
) -> Any:
    """A :class:`~blocksim.robotics.arm.SerialLink` of DH links: rows ``[theta, d, a, alpha]``
    [rad, m, m, rad]; ``sigma`` (0 revolute, 1 prismatic), ``offset``, ``qlim`` (n, 2) and
    ``dyn`` (n, 15) rows as :func:`blocksim.robotics.arm.layout.from_dh` takes them."""
    import numpy as np

    from blocksim.robotics.arm import Link, SerialLink
    from blocksim.robotics.arm.layout import DYN_COLUMNS, from_dh

    table = np.asarray(dh, dtype=float)
    if table.ndim != 2 or table.shape[1] != 4 or table.shape[0] < 1:
        raise ValueError(
            f"dh must be a table with one row [theta, d, a, alpha] per link, got "
            f"shape {table.shape}"
        )
    n = table.shape[0]
    checked = from_dh(
        table, sigma=sigma, offset=offset, modified=bool(modified), dyn=dyn, qlim=qlim
    )  # checks and completes the per-link arrays
    links = []
    for i in range(n):
        link = Link([*table[i], int(checked.sigma[i])], "modified" if modified else "standard")
        link.offset = float(checked.offset[i])
        link.qlim = checked.qlim[i]
        if dyn is not None:
            row = dict(zip(DYN_COLUMNS, checked.dyn[i]))
            link.m, link.r = row["m"], [row["rx"], row["ry"], row["rz"]]
            link.I = [row[k] for k in ("Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Ixz")]
            link.Jm, link.G, link.B = row["Jm"], row["G"], row["B"]
            link.Tc = [row["Tc_pos"], row["Tc_neg"]]
        links.append(link)
    return SerialLink(links, name=name, base=base, tool=tool, gravity=gravity)


register_model_kind("zoo", _zoo)
register_model_kind("dh", _dh)


def _urdf(
    urdf: str, tip: str | None = None, form: str = "tree", gravity: Any = None, base_dir: Any = None
) -> Any:
    """A robot from a URDF file, ``{"urdf": "robots/arm.urdf"}`` (a relative path starts at the
    diagram file's folder): ``form="tree"`` the :class:`~blocksim.robotics.urdf.TreeModel`
    (floating-base blocks; ``tip`` keeps the chain to that link), ``"serial"`` the SerialLink of
    the chain base -> ``tip`` (arm blocks; ``gravity`` RTB's, default [0, 0, 9.81])."""
    from pathlib import Path

    from blocksim.io.guard import current, read_limited
    from blocksim.robotics.urdf import loads_urdf, read_urdf, tree_to_serial

    guard = current()
    if guard is not None:  # from a diagram file: confined like its subsystem and data files
        path = guard.confine(Path(base_dir or "."), str(urdf), "URDF file")
        tree = loads_urdf(read_limited(path), source=str(path))
    else:
        path = Path(urdf)
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        tree = read_urdf(path)
    if form == "tree":
        return tree.chain(tip) if tip is not None else tree
    if form == "serial":
        return tree_to_serial(tree, tip, gravity=gravity)
    raise ValueError(f'form must be "tree" or "serial", got {plain(form)}')


register_model_kind("urdf", _urdf)
