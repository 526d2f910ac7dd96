"""CoppeliaSim's object paths and aliases, for the emulator's scene.

An absolute path is ``/`` followed by elements separated by ``/``; each element is an alias
(``*`` and ``?`` are wildcards), optionally followed by ``[n]`` (the object that is the n-th,
from 0, among its siblings with that alias: "in a given hierarchy level") or ``{n}`` (the n-th
object with that alias in the whole scene, in scene-hierarchy order), or an alias with a
handle, ``alias__42__``. An element matches an object anywhere below the object the previous
element matched (levels in between may be left out: ``/IRB140/IRB140_joint3``), the first
anywhere in the scene. The objects a path designates are listed in scene-hierarchy order
(depth first, children in the order they were added); ``sim.getObject`` returns the first, or
the ``index``-th. ``./path`` and ``:/path`` are relative to a ``proxy`` object and to the model
the proxy belongs to; a name without ``/`` is a (deprecated) object name, looked up as
``/name``.

:func:`alias` formats an object's alias or path as ``sim.getObjectAlias`` does for its
``options`` -1 to 9.
"""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from blocksim.hardware.coppeliasim_scene import Scene

__all__ = ["alias", "resolve", "tree"]

_ELEMENT = re.compile(
    r"(?P<alias>[^\[\]{}/]*?)(?:__(?P<handle>\d{1,12})__)?(?:\[(?P<order>\d{1,9})\]|\{(?P<nth>\d{1,9})\})?"
)
#: the longest path looked at, in characters
MAX_PATH = 1000


class _Element:
    """One path element: an alias pattern and an optional order, scene index or handle."""

    def __init__(self, text: str):
        m = _ELEMENT.fullmatch(text)
        if m is None or not (m["alias"] or m["handle"]):
            raise KeyError(f"malformed object path element {text!r}")
        self.alias = m["alias"]
        self.wild = any(c in self.alias for c in "*?")
        self.handle = int(m["handle"]) if m["handle"] else None
        self.order = int(m["order"]) if m["order"] else None
        self.nth = int(m["nth"]) if m["nth"] else None

    def matches(self, scene: Scene, h: int, index: _Index) -> bool:
        name = scene.objects[h].name
        if self.handle is not None and h != self.handle:
            return False
        if self.wild:
            if not fnmatch.fnmatchcase(name, self.alias):
                return False
        elif self.alias and name != self.alias:
            return False
        if self.order is not None and index.order(h) != self.order:
            return False
        return self.nth is None or index.nth(h) == self.nth


class _Index:
    """Sibling order and scene index of each object, by alias (computed once per lookup)."""

    def __init__(self, scene: Scene):
        self.scene = scene
        self.sequence = tree(scene)
        self._order: dict[int, int] = {}
        self._nth: dict[int, int] = {}
        seen: dict[str, int] = {}
        for h in self.sequence:
            name = scene.objects[h].name
            self._nth[h] = seen.get(name, 0)
            seen[name] = self._nth[h] + 1
        siblings: dict[tuple[int, str], int] = {}
        for h, o in scene.objects.items():  # siblings in the order they were added
            key = (o.parent if o.parent in scene.objects else -1, o.name)
            self._order[h] = siblings.get(key, 0)
            siblings[key] = self._order[h] + 1

    def order(self, h: int) -> int:
        return self._order[h]

    def nth(self, h: int) -> int:
        return self._nth[h]


def tree(scene: Scene) -> list[int]:
    """Every object's handle in scene-hierarchy order (depth first, children in the order
    they were added)."""
    kids: dict[int, list[int]] = {}
    for h, o in scene.objects.items():
        kids.setdefault(o.parent if o.parent in scene.objects else -1, []).append(h)
    out: list[int] = []
    stack = list(reversed(kids.get(-1, [])))
    while stack:
        h = stack.pop()
        out.append(h)
        stack.extend(reversed(kids.get(h, [])))
    return out


def _anchor(scene: Scene, path: str, proxy: int) -> tuple[str, int | None]:
    """(the absolute part of ``path``, the object it is relative to or None)."""
    if path.startswith("/"):
        return path, None
    if path[:1] not in ".:":
        return "/" + path, None  # a deprecated object name
    if proxy == -1 or proxy not in scene.objects:
        raise KeyError(f"the relative path {path!r} needs a valid 'proxy' object")
    anchor = proxy
    if path[0] == ":":  # the model the proxy belongs to
        anchor = next((a for a in [proxy, *scene.ancestors(proxy)] if scene.objects[a].model), -1)
        if anchor == -1:
            raise KeyError(f"object {proxy} is not in a model (path {path!r})")
    rest = path[1:]
    if rest in ("", "/"):
        return "", anchor
    if not rest.startswith("/"):
        raise KeyError(f"malformed object path {path!r}")
    return rest, anchor


def resolve(scene: Scene, path: str, proxy: int = -1) -> list[int]:
    """Handles of the objects ``path`` designates, in scene-hierarchy order.

    Raises
    ------
    KeyError
        A malformed path, or a relative path without a valid proxy.
    """
    if not path or len(path) > MAX_PATH:
        raise KeyError(f"malformed object path {path[:100]!r}")
    rest, anchor = _anchor(scene, path, proxy)
    if rest == "":  # "." or ":": the anchor itself
        return [anchor] if anchor is not None else []
    texts = rest[1:].split("/")
    elements = [_Element(t) for t in texts]
    index = _Index(scene)
    out = []
    for h in index.sequence:
        if not elements[-1].matches(scene, h, index):
            continue
        up = scene.ancestors(h)
        k = 0
        for e in reversed(elements[:-1]):  # nearest first: a subsequence of the ancestors
            while k < len(up) and not e.matches(scene, up[k], index):
                k += 1
            if k == len(up):
                break
            k += 1
        else:
            if anchor is None or anchor in up[k:]:
                out.append(h)
    return out


def alias(scene: Scene, h: int, options: int = -1) -> str:
    """Object ``h``'s alias or path as ``sim.getObjectAlias(h, options)`` formats it.

    Raises
    ------
    KeyError
        ``h`` is not an object.
    ValueError
        ``options`` is not one of -1 .. 9.
    """
    obj = scene.get(h)
    name = obj.name
    if options not in range(-1, 10):
        raise ValueError(f"options must be an integer -1 .. 9, got {options!r}")
    if options == -1:
        return name
    if options in (3, 4):
        unique = sum(o.name == name for o in scene.objects.values()) == 1
        return name if options == 3 and unique else f"{name}__{h}__"
    index = _Index(scene)
    up = scene.ancestors(h)
    if options in (6, 7, 8, 9):
        models = [a for a in up if scene.objects[a].model]
        models = models[: {6: 0, 7: 1, 8: 2, 9: len(models)}[options]]
        parts = [f"{scene.objects[a].name}{{{index.nth(a)}}}" for a in reversed(models)]
        return "/" + "/".join([*parts, f"{name}{{{index.nth(h)}}}"])

    def ordered(k: int) -> str:
        return f"{scene.objects[k].name}[{index.order(k)}]"

    if options == 0:
        return ordered(h)
    chain = [*reversed(up), h]  # root first
    if options == 2:
        return "/" + "/".join(ordered(k) for k in chain)
    kept = [h]  # options 1 and 5: the nearest ancestors needed to tell ``h`` apart
    for a in up:
        if resolve(scene, "/" + "/".join(ordered(k) for k in kept)) == [h]:
            break
        kept.insert(0, a)
    if options == 1:
        return "/" + "/".join(ordered(k) for k in kept)
    out = ""
    for i, k in enumerate(kept):
        if i and scene.objects[k].parent != kept[i - 1]:
            out += "/ ..."
        out += "/" + scene.objects[k].name
    return out
