"""The content fingerprint of a batch: a SHA-256 of the canonical diagram, the members'
overrides and the run settings.

A results folder is resumed only when the batch it holds is the batch asked for. Its
``sweep.json`` stores the fingerprint of the batch that started it; on resume the
fingerprint is recomputed from what the user gives now (the compiled plan, every member's
overrides, the settings) and compared, so a folder of another diagram (even one with the
same name), other members or other settings is refused.

The canonical diagram is the compiled plan written as JSON with sorted keys: every block's
path, class, constructor arguments, wiring slots and rate, the signal names and shapes, the
initial states and the clocks. Arguments that are not JSON values are written by their
content: arrays as dtype, shape and a hash of their bytes; other objects (a robot model, a
map) as their class and attributes, recursively to :data:`MAX_DEPTH` levels; never by their
``repr`` or ``id``, which change from one process to the next.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import os
from typing import Any

import numpy as np

from blocksim.engine.plan import Plan

#: deepest object nesting written into the canonical form (deeper: the class name only)
MAX_DEPTH = 12
#: most attributes/items of one object written (more: counted, and hashed by their repr)
MAX_ITEMS = 10_000


def _number(v: float) -> Any:
    return v if math.isfinite(v) else repr(v)


def canonical(value: Any, depth: int = 0, seen: frozenset[int] = frozenset()) -> Any:
    """``value`` as stable JSON data (see the module docstring)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, np.generic):
        return canonical(value.item(), depth, seen)
    if isinstance(value, np.ndarray):
        a = np.ascontiguousarray(value)
        if a.dtype.hasobject:
            return {"array": canonical(a.tolist(), depth + 1, seen), "shape": list(a.shape)}
        return {"dtype": a.dtype.str, "shape": list(a.shape),
                "sha256": hashlib.sha256(a.tobytes()).hexdigest()}
    if isinstance(value, (os.PathLike, enum.Enum, complex, bytes)):
        return f"{type(value).__name__}:{value!s}"
    if depth >= MAX_DEPTH or id(value) in seen:
        return f"<{type(value).__module__}.{type(value).__qualname__}>"
    inner = seen | {id(value)}
    if isinstance(value, dict):
        items = sorted(((str(k), v) for k, v in value.items()), key=lambda kv: kv[0])
        return {k: canonical(v, depth + 1, inner) for k, v in items[:MAX_ITEMS]}
    if isinstance(value, (list, tuple)):
        return [canonical(v, depth + 1, inner) for v in value[:MAX_ITEMS]] + (
            [f"... {len(value)} items"] if len(value) > MAX_ITEMS else [])
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v, depth + 1, inner) for v in value), key=json.dumps)
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '?')}.{value.__qualname__}"
    name = f"{type(value).__module__}.{type(value).__qualname__}"
    if dataclasses.is_dataclass(value):
        fields = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
    else:
        fields = dict(getattr(value, "__dict__", {}))
        for slot in getattr(type(value), "__slots__", ()):
            if isinstance(slot, str) and hasattr(value, slot):
                fields[slot] = getattr(value, slot)
    return {"class": name, "state": canonical(fields, depth + 1, inner)}


def _rate(rate: Any) -> Any:
    if isinstance(rate, str):
        return rate
    return {"period": _number(float(rate.period)), "offset": _number(float(rate.offset))}


def canonical_plan(plan: Plan) -> dict[str, Any]:
    """The canonical form of a compiled diagram (see the module docstring)."""
    return {
        "name": plan.name,
        "blocks": [
            {
                "path": e.name,
                "class": f"{type(e.block).__module__}.{type(e.block).__qualname__}",
                "params": canonical(e.block.params),
                "in": list(e.in_slots),
                "out": list(e.out_slots),
                "rate": _rate(e.rate),
                "discrete": bool(e.discrete),
            }
            for e in plan.entries
        ],
        "signals": list(plan.signal_names),
        "shapes": [list(s) for s in plan.signal_shapes],
        "aliases": canonical(plan.aliases),
        "x0": canonical(np.asarray(plan.x0, dtype=float)),
        "xd0": canonical(np.asarray(plan.xd0, dtype=float)),
        "clocks": [_rate(c) for c in plan.clocks],
    }


def plan_digest(plan: Plan) -> str:
    """SHA-256 (hex) of :func:`canonical_plan`."""
    text = json.dumps(canonical_plan(plan), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def fingerprint(meta: dict[str, Any], members: list[dict[str, Any]]) -> str:
    """SHA-256 (hex) of the batch's description ``meta`` (its diagram digest, settings,
    chunks; not its ``fingerprint`` itself) and of every member's overrides, in order."""
    from blocksim.engine.sweep.folder import dumps

    h = hashlib.sha256()
    body = {k: v for k, v in meta.items() if k != "fingerprint"}
    h.update(dumps(body, sort_keys=True).encode("utf-8", "surrogatepass"))
    for m in members:
        h.update(dumps(m, sort_keys=True).encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    return h.hexdigest()
