"""Writing diagrams as diagram files: :class:`~blocksim.engine.diagram.Diagram` -> JSON.

Every block is written as its registered type and the constructor keywords it was built with
(:attr:`Block.params`), leaving out those equal to the constructor's default. Values become
JSON: numbers (non-finite ones as ``"=inf"``, ``"=-inf"``, ``"=nan"``), strings, lists (tuples
and numpy arrays too), ``{"slice": [...]}``; every :class:`~blocksim.engine.clock.Clock` goes
once into the ``"clocks"`` section and blocks refer to it by ``"$name"``; models and shared
parameters of a loaded file stay references. A parameter still holding the value it was loaded
from is written as it was written (``"pi/2"`` stays ``"pi/2"``). A value that JSON cannot hold
(a Python function, an unregistered object) is refused by :class:`SaveError`, naming the block
and the parameter.

Reading back what is written here gives blocks of the same types with equal ``params``
(tuples and arrays come back as lists; numbers keep int/float).
"""

from __future__ import annotations

import inspect
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.block import Block, PortRef
from blocksim.engine.clock import Clock
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlocksimError
from blocksim.engine.subsystem import Subsystem
from blocksim.io.context import FileContext, context_of
from blocksim.io.registry import accepts_str, parameters, type_name
from blocksim.io.schema import FORMAT_VERSION


class SaveError(BlocksimError, ValueError):
    """A diagram holds something a diagram file cannot represent; ``problems`` lists each
    block and parameter at fault."""

    def __init__(self, diagram: str, problems: list[str]):
        self.problems = problems
        super().__init__(f"diagram '{diagram}' cannot be written as a diagram file:\n" +
                         "\n".join(f"  - {p}" for p in problems))


class _Unrepresentable(Exception):
    pass


def same_value(a: Any, b: Any) -> bool:
    """Whether two parameter values are equal as a diagram file sees them: numbers equal (NaN
    equal to NaN) and of the same kind (int or float), strings and booleans equal, sequences
    (list, tuple, numpy array) equal element by element with the same shape, clocks equal,
    other objects identical."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not isinstance(a, (list, tuple, np.ndarray)) or \
                not isinstance(b, (list, tuple, np.ndarray)):
            return False
        try:
            x, y = np.asarray(a), np.asarray(b)
        except ValueError:
            return False
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fiub" and y.dtype.kind in "fiub":
            return bool(np.array_equal(x, y, equal_nan=x.dtype.kind == "f" or
                                       y.dtype.kind == "f"))
        return all(same_value(p, q) for p, q in zip(x.tolist(), y.tolist()))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
                and len(a) == len(b) and all(same_value(p, q) for p, q in zip(a, b)))
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return isinstance(a, (bool, np.bool_)) and isinstance(b, (bool, np.bool_)) and \
            bool(a) == bool(b)
    num = (int, float, np.integer, np.floating)
    if isinstance(a, num) and isinstance(b, num):
        if isinstance(a, (int, np.integer)) != isinstance(b, (int, np.integer)):
            return False
        return bool(a == b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (str, os.PathLike)) and isinstance(b, (str, os.PathLike)):
        return os.fspath(a) == os.fspath(b)
    if isinstance(a, (Clock, slice)) and type(a) is type(b):
        return bool(a == b)
    return False


class _Writer:
    def __init__(self, path: Path | None):
        self.dir = path.resolve().parent if path is not None else None
        self.problems: list[str] = []
        self.clocks: dict[str, Clock] = {}   # auto-named clocks of the whole tree
        self.taken: set[str] = set()

    def clock_name(self, clock: Clock, ctx: FileContext | None) -> str:
        if ctx is not None:
            for name, c in ctx.clocks.items():
                if c == clock:
                    return name
        for name, c in self.clocks.items():
            if c == clock:
                return name
        k = len(self.clocks) + 1
        while f"clock{k}" in self.taken or f"clock{k}" in self.clocks:
            k += 1
        self.clocks[f"clock{k}"] = clock
        return f"clock{k}"

    def encode(self, v: Any, strings: bool, ctx: FileContext | None) -> Any:
        if v is None or isinstance(v, bool):
            return v
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, (int, np.integer)):
            return int(v)
        if isinstance(v, (float, np.floating)):
            f = float(v)
            if math.isfinite(f):
                return f
            return "=nan" if math.isnan(f) else ("=inf" if f > 0 else "=-inf")
        if isinstance(v, os.PathLike):
            v = os.fspath(v)
        if isinstance(v, str):
            return v if strings and not v.startswith(("$", "=")) else {"str": v}
        if isinstance(v, np.ndarray):
            if v.dtype.kind not in "fiub":
                raise _Unrepresentable(f"a numpy array of dtype {v.dtype}")
            return [self.encode(x, strings, ctx) for x in v.tolist()] if v.ndim else \
                self.encode(v.item(), strings, ctx)
        if isinstance(v, (list, tuple)):
            return [self.encode(x, strings, ctx) for x in v]
        if isinstance(v, Clock):
            return "$" + self.clock_name(v, ctx)
        if isinstance(v, slice):
            return {"slice": [v.start, v.stop, v.step]}
        if ctx is not None:
            for name, obj in ctx.models.items():
                if obj is v:
                    return "$" + name
        what = "a Python function" if callable(v) else f"a {type(v).__name__}"
        raise _Unrepresentable(what)

    # ---------------------------------------------------------------- diagram body
    def body(self, d: Diagram, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """The document body of ``d``; ``given`` replaces shared parameters (those an including
        Subsystem block set, when an included file is written inline)."""
        ctx = context_of(d)
        out: dict[str, Any] = {}
        if ctx is not None:
            if ctx.description:
                out["description"] = ctx.description
            if ctx.parameters:
                out["parameters"] = {**ctx.parameters, **(given or {})}
            if ctx.clocks_raw:
                out["clocks"] = ctx.clocks_raw
            if ctx.models_raw:
                out["models"] = ctx.models_raw
            self.taken |= set(ctx.parameters) | set(ctx.clocks_raw) | set(ctx.models_raw)
        out["blocks"] = {name: self.block(d, name, b, ctx) for name, b in d.blocks.items()}
        wires = self.wires(d)
        if wires:
            out["wires"] = wires
        return out

    def block(self, d: Diagram, name: str, b: Block, ctx: FileContext | None) -> dict[str, Any]:
        where = f"block '{name}' ({type(b).__name__})"
        out: dict[str, Any] = {}
        try:
            out["type"] = type_name(b)
        except KeyError as exc:
            self.problems.append(f"{where}: {exc.args[0]}")
            return out
        if ctx is not None and name in ctx.block_descriptions:
            out["description"] = ctx.block_descriptions[name]
        if isinstance(b, Subsystem):
            inc = ctx.includes.get(name) if ctx is not None else None
            if inc is not None and self.dir is not None:
                out["file"] = Path(os.path.relpath(inc[0], self.dir)).as_posix()
                if inc[1]:
                    out["parameters"] = inc[1]
            else:
                inner = self.body(b.diagram, inc[1] if inc is not None else None)
                if b.diagram.name != name:
                    inner = {"name": b.diagram.name, **inner}
                out["diagram"] = inner
            return out
        loaded = ctx.block_params.get(name, {}) if ctx is not None else {}
        defaults = {p.name: p.default for p in parameters(type(b))}
        params: dict[str, Any] = {}
        for key, value in b.params.items():
            if key in loaded and same_value(value, loaded[key][1]):
                params[key] = loaded[key][0]
                continue
            default = defaults.get(key, inspect.Parameter.empty)
            if default is not inspect.Parameter.empty and same_value(value, default):
                continue
            try:
                params[key] = self.encode(value, accepts_str(type(b), key), ctx)
            except _Unrepresentable as exc:
                self.problems.append(f"{where}: parameter '{key}' holds {exc.args[0]}, which "
                                     f"a diagram file cannot represent")
        if params:
            out["params"] = params
        return out

    def wires(self, d: Diagram) -> list[dict[str, Any]]:
        grouped: dict[str, list[str]] = {}
        for w in d.wires:
            src = self.end(d, w.src, "outputs")
            dst = self.end(d, w.dst, "inputs")
            if src is not None and dst is not None:
                grouped.setdefault(src, []).append(dst)
        return [{"from": s, "to": t[0] if len(t) == 1 else t} for s, t in grouped.items()]

    def end(self, d: Diagram, end: Any, side: str) -> str | None:
        if isinstance(end, str):
            return end
        block, key = (end, None) if isinstance(end, Block) else (
            (end.block, end.key) if isinstance(end, PortRef) else (None, None))
        if block is None or block.name is None or d.blocks.get(block.name) is not block:
            self.problems.append(f"wire end {end!r} is not a block of diagram '{d.name}'")
            return None
        if isinstance(key, int) and not isinstance(key, bool):
            ports = getattr(block, side)
            if not 0 <= key < len(ports):
                self.problems.append(f"wire end {end!r}: block '{block.name}' has no "
                                     f"{side[:-1]} number {key}")
                return None
            key = ports[key].name
        return block.name if key is None else f"{block.name}.{key}"


def encode_value(value: Any, strings: bool = False) -> Any:
    """The JSON form of one parameter value (a clock as ``{"period": ..., "offset": ...}``).

    Raises
    ------
    ValueError
        When a diagram file cannot represent ``value``.
    """
    if isinstance(value, Clock):
        return {"period": value.period, "offset": value.offset}
    try:
        return _Writer(None).encode(value, strings, None)
    except _Unrepresentable as exc:
        raise ValueError(f"a diagram file cannot represent {exc.args[0]}") from None


def to_document(diagram: Diagram, *, simulation: dict[str, Any] | None = None,
                layout: dict[str, Any] | None = None,
                path: str | Path | None = None) -> dict[str, Any]:
    """The diagram file document of ``diagram`` as a JSON-ready dict.

    Parameters
    ----------
    diagram : Diagram
        The diagram (built in Python, or loaded from a file).
    simulation : dict, optional
        Simulation settings to write (default: those of the file it was loaded from, if any).
    layout : dict, optional
        Layout section to write (default: the loaded file's, if any).
    path : str or Path, optional
        Where the document will be written: subsystems loaded from files are then written as
        paths relative to it (inline otherwise).

    Raises
    ------
    SaveError
        Naming every block parameter that a file cannot represent.
    """
    w = _Writer(Path(path) if path is not None else None)
    ctx = context_of(diagram)
    body = w.body(diagram)
    doc: dict[str, Any] = {"blocksim": FORMAT_VERSION, "name": diagram.name}
    if "description" in body:
        doc["description"] = body.pop("description")
    for key in ("parameters", "clocks", "models"):
        if key in body:
            doc[key] = body.pop(key)
    if w.clocks:
        doc["clocks"] = {**doc.get("clocks", {}), **{
            n: {"period": c.period, "offset": c.offset} for n, c in w.clocks.items()}}
    doc.update(body)
    sim = simulation if simulation is not None else (ctx.simulation if ctx else None)
    if sim:
        doc["simulation"] = {k: (v if isinstance(v, str) else w.encode(v, False, ctx))
                             for k, v in sim.items()}
    lay = layout if layout is not None else (ctx.layout if ctx else None)
    if lay is not None:
        doc["layout"] = lay
    if w.problems:
        raise SaveError(diagram.name, w.problems)
    return doc


def dumps(diagram: Diagram, *, simulation: dict[str, Any] | None = None,
          layout: dict[str, Any] | None = None, path: str | Path | None = None) -> str:
    """The diagram file text of ``diagram`` (see :func:`to_document`)."""
    return pretty(to_document(diagram, simulation=simulation, layout=layout, path=path)) + "\n"


def save(diagram: Diagram, path: str | Path, *, simulation: dict[str, Any] | None = None,
         layout: dict[str, Any] | None = None) -> Path:
    """Write ``diagram`` to the file ``path`` (see :func:`to_document`); return the path."""
    p = Path(path)
    text = dumps(diagram, simulation=simulation, layout=layout, path=p)
    p.write_text(text, encoding="utf-8")
    return p


def _scalar(v: Any) -> bool:
    return not isinstance(v, (dict, list))


def pretty(value: Any, indent: int = 0, width: int = 96) -> str:
    """JSON text with objects indented and short lists and small objects on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    if _scalar(value):
        return flat
    pad = "  " * (indent + 1)
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(_scalar(v) for v in value) and len(flat) + 2 * indent <= width:
            return flat
        if all(_scalar(v) for v in value):
            return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
        items = [pad + pretty(v, indent + 1, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    if not value:
        return "{}"
    if _depth(value) <= 2 and len(flat) + 2 * indent <= width - 10:
        return flat
    items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, indent + 1, width)}"
             for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_depth(v) for v in value), default=0)
    return 0
