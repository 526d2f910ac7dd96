"""The block catalog: every loadable block type with its ports and parameters.

For each type of :func:`blocksim.io.registry.block_types` (the installed plugins' included):
where it comes from (blocksim's library, a plugin's distribution, Python code), a one-line
summary, the input and
output ports (names, shapes; those of a default instance when the constructor needs no
argument, since many blocks size their ports from parameters), and the constructor parameters
with their defaults (from :func:`inspect.signature`) and units (the first ``[unit]`` in the
parameter's description in the numpy-style docstring, ``"-"`` when none is given). Types whose
parameters a diagram file cannot hold (a Python callable) are marked.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from blocksim.engine.block import Block, Port
from blocksim.io.plugins import load_plugins, plugin_of
from blocksim.io.registry import (
    accepts_str,
    block_types,
    library_types,
    parameters,
    takes_callable,
)
from blocksim.io.save import encode_value

_PARAM_LINE = re.compile(r"^(\s*)([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*)\s*:\s*(.*)$")
_UNIT = re.compile(r"\[([^\[\]]*[A-Za-z°][^\[\]]*)\]")


def units_from_docstring(doc: str | None) -> dict[str, str]:
    """``{parameter: unit}`` from the ``Parameters`` section of a numpy-style docstring (the
    first bracketed text with a letter in each parameter's description, e.g. ``[rad/s]``)."""
    if not doc:
        return {}
    lines = inspect.cleandoc(doc).splitlines()
    try:
        start = next(i for i, line in enumerate(lines[:-1])
                     if line.strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"})
    except StopIteration:
        return {}
    out: dict[str, str] = {}
    current: list[str] = []
    text: list[str] = []

    def flush() -> None:
        m = _UNIT.search(re.sub(r"``.*?``", "", " ".join(text)))
        for name in current:
            out.setdefault(name, m.group(1).strip() if m else "-")

    body = lines[start + 2:]
    for i, line in enumerate(body):
        if i + 1 < len(body) and line.strip() and set(body[i + 1].strip()) == {"-"}:
            break  # the next section's header
        m = _PARAM_LINE.match(line)
        if m and not m.group(1):
            flush()
            current = [n.strip() for n in m.group(2).split(",")]
            text = [m.group(3)]
        else:
            text.append(line)
    flush()
    return out


def _ports(ports: Any) -> list[dict[str, Any]]:
    out = []
    for p in ports:
        p = p if isinstance(p, Port) else Port(str(p))
        out.append({"name": p.name, "shape": None if p.shape is None else list(p.shape),
                    "unit": p.unit or "-"})
    return out


def describe(name: str, cls: type[Block]) -> dict[str, Any]:
    """The catalog entry of block type ``name`` (a JSON-ready dict)."""
    doc = inspect.getdoc(cls) or ""
    units = units_from_docstring(cls.__doc__)
    params = parameters(cls)
    entry: dict[str, Any] = {
        "type": name, "module": cls.__module__, **source_of(name, cls),
        "summary": " ".join(doc.split("\n\n")[0].split()) if doc else "",
    }
    sample: Block | None = None
    if all(p.default is not p.empty for p in params):
        try:
            sample = cls()
        except Exception:
            sample = None
    entry["ports_from"] = "default parameters" if sample is not None else "class"
    owner = sample if sample is not None else cls
    entry["inputs"] = _ports(owner.inputs)
    entry["outputs"] = _ports(owner.outputs)
    plist = []
    for p in params:
        item: dict[str, Any] = {"name": p.name, "required": p.default is p.empty,
                                "unit": units.get(p.name, "-"),
                                "strings": accepts_str(cls, p.name)}
        if p.default is not p.empty:
            try:
                item["default"] = encode_value(p.default, item["strings"])
            except ValueError:
                item["default"] = repr(p.default)
        ann = p.annotation
        item["annotation"] = "" if ann is p.empty else (ann if isinstance(ann, str) else
                                                        inspect.formatannotation(ann))
        plist.append(item)
    entry["parameters"] = plist
    callables = [p.name for p in params if takes_callable(cls, p.name)]
    entry["in_files"] = not callables
    if callables:
        entry["note"] = (f"not available in diagram files: parameter '{callables[0]}' takes a "
                         f"Python callable")
    elif name == "Subsystem":
        entry["note"] = ("ports are the inner diagram's Inport/Outport blocks; in files give "
                         "\"diagram\" (inline) or \"file\" instead of params")
    return entry


def source_of(name: str, cls: type[Block]) -> dict[str, Any]:
    """Where block type ``name`` comes from: ``{"source": "blocksim"}`` (the library),
    ``{"source": "plugin", "distribution": ...}`` (an installed plugin package) or
    ``{"source": "python"}`` (registered by Python code with ``register_block``)."""
    if library_types().get(name) is cls:
        return {"source": "blocksim"}
    dist = plugin_of(name)
    if dist is not None:
        return {"source": "plugin", "distribution": dist}
    return {"source": "python"}


def catalog() -> list[dict[str, Any]]:
    """Catalog entries of every known block type, the installed plugins' included (loaded
    first, :func:`blocksim.io.plugins.load_plugins`), sorted by type name."""
    load_plugins()
    return [describe(n, c) for n, c in sorted(block_types().items())]


def format_entry(entry: dict[str, Any]) -> str:
    """A catalog entry as a few lines of text."""

    def ports(items: list[dict[str, Any]]) -> str:
        if not items:
            return "(none)"
        return ", ".join(p["name"] + (f" {tuple(p['shape'])}" if p["shape"] is not None else "")
                         + (f" [{p['unit']}]" if p["unit"] != "-" else "") for p in items)

    short = entry["module"].rsplit(".", 1)[-1]
    origin = {"blocksim": f"blocksim: {short}", "python": f"registered: {entry['module']}"
              }.get(entry.get("source", "blocksim"), f"plugin {entry.get('distribution')}")
    lines = [f"{entry['type']}  ({origin})  {entry['summary']}"]
    suffix = " (with default parameters)" if entry["ports_from"] != "class" else ""
    lines.append(f"    inputs:  {ports(entry['inputs'])}{suffix}")
    lines.append(f"    outputs: {ports(entry['outputs'])}{suffix}")
    parts = []
    for p in entry["parameters"]:
        text = p["name"] + (" (required)" if p["required"] else
                            f" = {_short(p['default'])}")
        if p["unit"] != "-":
            text += f" [{p['unit']}]"
        parts.append(text)
    lines.append(f"    parameters: {'; '.join(parts) or '(none)'}")
    if entry.get("note"):
        lines.append(f"    note: {entry['note']}")
    return "\n".join(lines)


def _short(value: Any) -> str:
    import json

    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
