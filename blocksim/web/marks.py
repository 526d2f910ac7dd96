"""What the editor's page draws on the diagram: the ports of each block and where each problem is.

:func:`document_ports` gives the input and output port names of every block of a document (the
inline subsystems' blocks included, named ``"sub/inner"`` as their signals are): those of the
block built from its parameters (a Sum with signs ``"+-+"`` has three inputs, a subsystem the
names of its Inport/Outport blocks), or, for a block whose parameters do not build, those of the
catalog (``blocksim blocks``). A block of an unknown type has no entry.

:func:`problem_marks` attributes each problem message (as loading, ``PUT /api/diagram``, or
``blocksim check``, ``POST /api/check``, word them) to what it is about:
``{"message", "block", "param", "wire", "port"}``, each ``None`` when the message names none:

* ``block``: the block's name (``"sub/inner"`` inside an inline subsystem; a problem inside a
  subsystem's file marks the subsystem block);
* ``param``: the parameter (of ``block``, or with ``block`` ``None`` of the diagram's
  ``parameters`` section);
* ``wire``: ``"a.y->b.u"`` (``block.port`` ends as the page's ``data-wire``; one end of a wire
  whose ``to`` is a list; a missing port stays as written);
* ``port``: the port of ``block`` the problem is at (an unconnected or doubly driven input, a
  shape mismatch), ``None`` otherwise.

Loading messages carry the JSON path of what they are about (``x.json:24: blocks.gain.params.K:
...``, ``wires[3].to: ...``); compile messages carry the block's path (``blocks.err: input
'err.u1' (Sum) is not connected``), or for a doubly driven input none (``input 'x.u' is driven
twice: by 'gain.y' and by 'ref.y'``).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

#: the sections a problem's JSON path may start with
_SECTIONS = ("blocks", "wires", "parameters", "simulation", "clocks", "models", "layout",
             "name", "blocksim")
_LOCATION = re.compile(r"^(?P<file>[^:'\"\s][^:'\"]*?)(?::(?P<line>\d+))?: ")
_PATH = re.compile(r"^(?P<path>(?:" + "|".join(_SECTIONS) + r")(?:\.[^.:\[\]]+|\[\d+\])*|\$): ")
_STEP = re.compile(r"\.([^.:\[\]]+)|\[(\d+)\]")
_NAME = r"[A-Za-z_][\w\-/]*"
_INPUT = re.compile(rf"input '(?P<block>{_NAME})\.(?P<port>\w+)'")
_DRIVEN = re.compile(rf"input '(?P<block>{_NAME})\.(?P<port>\w+)' is driven twice: by "
                     rf"'(?P<first>{_NAME}\.\w+)' and by '(?P<second>{_NAME}\.\w+)'")
_SHAPE = re.compile(rf"shape mismatch at input '(?P<block>{_NAME})\.(?P<port>\w+)' .*? from "
                    rf"'(?P<src>{_NAME}\.\w+)'")
_LOOP = re.compile(rf"algebraic loop: (?P<chain>{_NAME}\.\w+ -> .*?);")
_PARAM = re.compile(r"refused its parameters: .*?parameter '(\w+)'")
_HOP = re.compile(rf"({_NAME}\.\w+) -> ({_NAME}\.\w+)")

Ports = dict[str, dict[str, list[str]]]


def _mark(message: str, block: str | None = None, param: str | None = None,
          wire: str | None = None, port: str | None = None) -> dict[str, Any]:
    return {"message": message, "block": block, "param": param, "wire": wire, "port": port}


# -- the blocks of a document ---------------------------------------------------------------
def _levels(doc: Any, prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """(name prefix, diagram body) of the document and of each inline subsystem in it."""
    if not isinstance(doc, dict):
        return []
    out = [(prefix, doc)]
    blocks = doc.get("blocks")
    if isinstance(blocks, dict):
        for name, spec in blocks.items():
            if isinstance(spec, dict) and isinstance(spec.get("diagram"), dict):
                out += _levels(spec["diagram"], f"{prefix}{name}/")
    return out


def _specs(doc: Any, prefix: str = "") -> dict[str, dict[str, Any]]:
    """Full block name -> its spec, every level of inline subsystems (each subsystem's blocks
    right after it)."""
    out: dict[str, dict[str, Any]] = {}
    blocks = doc.get("blocks") if isinstance(doc, dict) else None
    if isinstance(blocks, dict):
        for name, spec in blocks.items():
            if isinstance(spec, dict):
                out[prefix + name] = spec
                if isinstance(spec.get("diagram"), dict):
                    out.update(_specs(spec["diagram"], f"{prefix}{name}/"))
    return out


# -- ports ----------------------------------------------------------------------------------
def catalog_ports(catalog: list[dict[str, Any]]) -> Ports:
    """Block type -> the port names its catalog entry gives."""
    return {e["type"]: {"inputs": [p["name"] for p in e["inputs"]],
                        "outputs": [p["name"] for p in e["outputs"]]} for e in catalog}


def _loaded_ports(diagram: Any, doc: dict[str, Any], prefix: str, out: Ports) -> None:
    blocks = doc.get("blocks") if isinstance(doc, dict) else None
    for name, block in diagram.blocks.items():
        out[prefix + name] = {"inputs": [p.name for p in block.inputs],
                              "outputs": [p.name for p in block.outputs]}
        spec = blocks.get(name) if isinstance(blocks, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("diagram"), dict):
            _loaded_ports(block.diagram, spec["diagram"], f"{prefix}{name}/", out)


def _fallback(full: str, spec: dict[str, Any], by_type: Ports) -> dict[str, list[str]] | None:
    kind = spec.get("type")
    inner = spec.get("diagram")
    if kind == "Subsystem" and isinstance(inner, dict) and isinstance(inner.get("blocks"), dict):
        items = [(n, s.get("type")) for n, s in inner["blocks"].items() if isinstance(s, dict)]
        return {"inputs": [n for n, t in items if t == "Inport"],
                "outputs": [n for n, t in items if t == "Outport"]}
    if isinstance(kind, str) and kind in by_type:
        return copy.deepcopy(by_type[kind])
    return None


def _remove(doc: dict[str, Any], full: str) -> bool:
    """Remove block ``full`` from ``doc`` (or, inside a subsystem's file, the subsystem)."""
    parts = full.split("/")
    body: Any = doc
    for i, part in enumerate(parts):
        blocks = body.get("blocks") if isinstance(body, dict) else None
        if not isinstance(blocks, dict) or part not in blocks:
            return False
        spec = blocks[part]
        if i == len(parts) - 1 or not isinstance(spec, dict) or \
                not isinstance(spec.get("diagram"), dict):
            del blocks[part]
            return True
        body = spec["diagram"]
    return False


def document_ports(doc: Any, load: Any, catalog: Any, loaded: Any = None, name: str = "",
                   base_dir: Path | None = None) -> Ports:
    """Port names of every block of ``doc`` (see the module's description).

    Parameters
    ----------
    doc : dict
        The document.
    load : callable
        ``load(text)`` -> :class:`~blocksim.io.load.DiagramFile` (raises
        :class:`~blocksim.io.DiagramFileError`): the session's own loading, so subsystem files
        are found where the document's file is.
    catalog : list or callable
        The block catalog (:func:`blocksim.io.catalog.catalog`), or a function giving it
        (called only when a block's ports come from it).
    loaded : DiagramFile, optional
        ``doc`` already loaded.
    name, base_dir : str, Path
        The document's file name and folder, as :func:`problem_marks` takes them.
    """
    from blocksim.io.errors import DiagramFileError
    from blocksim.web.session import format_document

    if not isinstance(doc, dict):
        return {}
    specs = _specs(doc)
    out: Ports = {}
    if loaded is None:
        # without its wires (their problems do not change a block's ports), then without the
        # blocks whose parameters do not build, until what is left loads
        work = copy.deepcopy(doc)
        for _, body in _levels(work):
            body["wires"] = []
        for _ in range(4):
            try:
                loaded = load(format_document(work))
                break
            except DiagramFileError as exc:
                named = {m["block"] for m in problem_marks(list(exc.problems), work, name,
                                                            {}, base_dir) if m["block"]}
                if not any([_remove(work, b) for b in sorted(named)]):
                    break
    if loaded is not None:
        _loaded_ports(loaded.diagram, doc, "", out)
    missing = [full for full in specs if full not in out]
    by_type = catalog_ports(catalog() if callable(catalog) else catalog) if missing else {}
    for full, spec in specs.items():
        if full in missing:
            found = _fallback(full, spec, by_type)
            if found is not None:
                out[full] = found
    return {k: out[k] for k in specs if k in out}


# -- problems -------------------------------------------------------------------------------
def _end(text: Any, prefix: str, side: str, ports: Ports) -> str | None:
    """A wire end as written -> ``"block.port"`` (full names; the port of a block with one
    port on that side filled in)."""
    if not isinstance(text, str) or not text:
        return None
    if "." in text:
        return prefix + text
    names = ports.get(prefix + text, {}).get(side, [])
    return f"{prefix}{text}.{names[0]}" if len(names) == 1 else prefix + text


def _wire(spec: Any, prefix: str, index: int | None, ports: Ports) -> str | None:
    if not isinstance(spec, dict):
        return None
    to = spec.get("to")
    if isinstance(to, list):
        to = to[index if index is not None and 0 <= index < len(to) else 0] if to else None
    a = _end(spec.get("from"), prefix, "outputs", ports)
    b = _end(to, prefix, "inputs", ports)
    return f"{a}->{b}" if a and b else None


def _path_mark(message: str, steps: list[str | int], doc: Any, ports: Ports
               ) -> dict[str, Any]:
    """The mark of a problem at JSON path ``steps`` of ``doc``."""
    prefix, body, i = "", doc, 0
    while i < len(steps):
        head = steps[i]
        if head == "blocks" and i + 1 < len(steps):
            name = str(steps[i + 1])
            rest = steps[i + 2:]
            spec = body.get("blocks", {}).get(name) if isinstance(body, dict) else None
            if rest[:1] == ["diagram"] and isinstance(spec, dict) and \
                    isinstance(spec.get("diagram"), dict) and len(rest) > 2:
                prefix, body, i = f"{prefix}{name}/", spec["diagram"], i + 3
                continue
            param = str(rest[1]) if rest[:1] == ["params"] and len(rest) > 1 else None
            if rest[:1] == ["parameters"] and len(rest) > 1:
                param = str(rest[1])  # a file subsystem's parameters
            return _mark(message, prefix + name, param)
        if head == "wires" and i + 1 < len(steps) and isinstance(steps[i + 1], int):
            wires = body.get("wires") if isinstance(body, dict) else None
            spec = wires[steps[i + 1]] if isinstance(wires, list) and \
                steps[i + 1] < len(wires) else None
            rest = steps[i + 2:]
            index = rest[1] if rest[:1] == ["to"] and len(rest) > 1 and \
                isinstance(rest[1], int) else None
            wire = _wire(spec, prefix, index, ports)
            block = None
            if isinstance(spec, dict) and rest[:1] in (["from"], ["to"]):
                end = spec.get(rest[0])
                if isinstance(end, list):
                    end = end[index] if index is not None and index < len(end) else None
                if isinstance(end, str):
                    name = prefix + end.split(".", 1)[0]
                    block = name if name in _specs(doc) else None
            return _mark(message, block, None, wire)
        if head == "parameters" and i + 1 < len(steps):
            owner = prefix[:-1] or None
            return _mark(message, owner, str(steps[i + 1]))
        break
    return _mark(message, prefix[:-1] or None)


def _hop_wire(chain: str) -> str | None:
    """The first wire of a loop's chain whose ends are at one level (``a.y -> b.u``)."""
    for a, b in _HOP.findall(chain.replace(" (feedthrough)", "")):
        if a.rpartition("/")[0] == b.rpartition("/")[0]:
            return f"{a}->{b}"
    return None


def _message_mark(message: str, base: dict[str, Any]) -> dict[str, Any]:
    """Refine ``base`` with what a compile message's text names."""
    if m := _DRIVEN.search(message):
        return {**base, "block": m["block"], "port": m["port"],
                "wire": f"{m['second']}->{m['block']}.{m['port']}"}
    if m := _SHAPE.search(message):
        return {**base, "block": m["block"], "port": m["port"],
                "wire": f"{m['src']}->{m['block']}.{m['port']}"}
    if m := _LOOP.search(message):
        first = m["chain"].split(" -> ", 1)[0].rpartition(".")[0]
        return {**base, "block": base["block"] or first, "wire": _hop_wire(m["chain"])}
    if "is not connected" in message and (m := _INPUT.search(message)):
        return {**base, "block": m["block"], "port": m["port"]}
    if base["block"] and base["param"] is None and (m := _PARAM.search(message)):
        return {**base, "param": m[1]}  # a block that refused one of its parameters
    return base


def _subsystem_of_file(file: str, doc: Any, base_dir: Path | None) -> str | None:
    """The block whose ``file`` is ``file`` (a problem inside an included file)."""
    target = Path(file)
    for full, spec in _specs(doc).items():
        name = spec.get("file")
        if not isinstance(name, str):
            continue
        if base_dir is not None:
            folder = base_dir / full.rpartition("/")[0] if "/" in full else base_dir
            try:
                if (folder / name).resolve() == (Path.cwd() / target).resolve():
                    return full
            except OSError:
                continue
        if Path(name).name == target.name:
            return full
    return None


def problem_marks(problems: list[str], doc: Any, name: str, ports: Ports,
                  base_dir: Path | None = None) -> list[dict[str, Any]]:
    """One mark per problem of ``problems`` (messages about the document ``doc`` of the file
    ``name``; ``ports`` from :func:`document_ports` completes wire ends written without a
    port; ``base_dir`` the folder of the file, to find included files)."""
    out = []
    for message in problems:
        text = message.strip()
        rest, file = text, None
        if m := _LOCATION.match(text):
            file, rest = m["file"], text[m.end():]
        base = _mark(message)
        if file is not None and name and file != name:
            inside = _subsystem_of_file(file, doc, base_dir)
            if inside is not None:
                out.append({**base, "block": inside})
                continue
        if m := _PATH.match(rest):
            steps: list[str | int] = [m["path"].split(".", 1)[0].split("[", 1)[0]]
            for key, index in _STEP.findall(m["path"][len(str(steps[0])):]):
                steps.append(int(index) if index else key)
            if m["path"] != "$":
                base = _path_mark(message, steps, doc, ports)
            rest = rest[m.end():]
        out.append(_message_mark(rest, base))
    return out


def annotate(session: Any, catalog: Any, problems: list[str], loaded: Any = None
             ) -> dict[str, Any]:
    """``{"marks", "ports"}`` of the :class:`~blocksim.web.session.EditorSession`'s document
    and its ``problems`` (``catalog`` as :func:`document_ports` takes it; ``loaded``: the
    document already loaded, when it loads)."""
    doc = session.document()
    ports = document_ports(doc, session.load, catalog, loaded, session.name,
                           session.base_dir)
    return {"marks": problem_marks(problems, doc, session.name, ports, session.base_dir),
            "ports": ports}
