"""Reading diagram files: JSON text -> checked :class:`~blocksim.engine.diagram.Diagram`.

:func:`load` (a file) and :func:`loads` (a string) parse with positions
(:mod:`blocksim.io.locate`), validate against the schema (:mod:`blocksim.io.schema`), then
build the diagram: shared parameters, clocks, models, blocks (types from
:mod:`blocksim.io.registry` only, parameters read by :mod:`blocksim.io.values`), subsystems
inline or from files, wires. Every problem found on the way is collected, each as
``"file:line: json.path: message"``, and raised together as one :class:`DiagramFileError`.
Nothing in a file is ever evaluated, executed, unpickled or imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blocksim.confine import Confinement, confined
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlocksimError, suggest
from blocksim.engine.subsystem import Subsystem
from blocksim.io.context import FileContext, attach
from blocksim.io.errors import DiagramFileError, Problems, Source, ValueProblem
from blocksim.io.guard import MAX_FILE_BYTES, Guard, GuardError, guarded
from blocksim.io.guard import read_text as guard_read_text
from blocksim.io.locate import JsonPath, JsonSyntaxError, Located, parse
from blocksim.io.registry import accepts_str, block_class, parameters, takes_callable
from blocksim.io.schema import skeleton, validate
from blocksim.io.sections import read_shared, read_simulation, read_wire
from blocksim.io.values import Entry, Namespace, interpret

#: deepest chain of subsystem files including each other
MAX_INCLUDE_DEPTH = 16


@dataclass
class DiagramFile:
    """A loaded diagram file.

    Attributes
    ----------
    diagram : Diagram
        The diagram, ready to simulate.
    simulation : dict
        The file's ``"simulation"`` settings (keyword arguments of :func:`blocksim.simulate`,
        values evaluated: ``{"T": 10.0, "solver": "RK45", ...}``).
    layout : dict or None
        The ``"layout"`` section, untouched.
    source : Source
        The file name and positions (for mapping later errors to lines).
    origins : dict
        Block path in the flattened diagram (``"ctrl/pid"``) -> ``(Source, json path)`` of its
        definition.
    """

    diagram: Diagram
    simulation: dict[str, Any]
    layout: dict[str, Any] | None
    source: Source
    origins: dict[str, tuple[Source, JsonPath]] = field(default_factory=dict)


class _ArgSource(Source):
    """The command line (``--set``) as a source of values."""

    def where(self, path: JsonPath, key: bool = False) -> str:
        return f"--set {'.'.join(str(p) for p in path)}"


def read_text(path: Path) -> str:
    """The text of a diagram file: a regular file of at most :data:`MAX_FILE_BYTES` bytes
    (at most one byte more is read), UTF-8 (a byte-order mark is accepted).

    Raises
    ------
    DiagramFileError
        Not a regular file, too large, or not UTF-8 (the file's bytes are never quoted).
    FileNotFoundError, IsADirectoryError, PermissionError
        As ``open``.
    """
    try:
        return guard_read_text(path, MAX_FILE_BYTES)
    except GuardError as exc:
        raise DiagramFileError(str(path), [f"{path}: {exc}"]) from None


def load(path: str | Path, overrides: dict[str, Any] | None = None, *,
         allow_any_path: bool = False,
         allow_dirs: Sequence[str | Path] = ()) -> DiagramFile:
    """Load the diagram file ``path``.

    Parameters
    ----------
    path : str or Path
        The ``.json`` file.
    overrides : dict, optional
        ``{"block.param": value}`` replaces a block parameter (``"sub/inner.param"`` inside a
        subsystem), ``{"name": value}`` a shared parameter. A string value is read by the same
        rules as in the file (e.g. ``"pi/4"``).
    allow_any_path : bool
        Let output files (a Scope's ``file``, an animation's ``filename``, a hardware block's
        ``record``, ...) be anywhere; by default a diagram file may only name output files in
        its own folder (or an ``allow_dirs`` folder), see :mod:`blocksim.confine`.
    allow_dirs : sequence of path
        Folders that included subsystem files and ``.npy`` data files may come from, besides
        the including file's own folder (and its subfolders); symbolic links are resolved
        before the check (:mod:`blocksim.io.guard`).

    Raises
    ------
    DiagramFileError
        Listing every problem, each ``"file:line: json.path: message"``.
    FileNotFoundError
        When ``path`` does not exist.
    """
    p = Path(path)
    text = read_text(p)
    loader = _Loader(overrides or {}, allow_any_path, allow_dirs)
    with guarded(loader.guard):
        return loader.top(text, str(path), p.resolve())


def loads(text: str, name: str = "<string>", base_dir: str | Path | None = None,
          overrides: dict[str, Any] | None = None, *,
          allow_any_path: bool = False, allow_dirs: Sequence[str | Path] = ()) -> DiagramFile:
    """Load a diagram from the JSON ``text`` (see :func:`load`); subsystem and data files are
    looked up relative to ``base_dir`` (none can be read without it)."""
    base = Path(base_dir).resolve() / "<string>" if base_dir is not None else None
    if text.startswith("\ufeff"):
        text = text[1:]
    loader = _Loader(overrides or {}, allow_any_path, allow_dirs)
    with guarded(loader.guard):
        return loader.top(text, name, base)


class _Loader:
    def __init__(self, overrides: dict[str, Any], allow_any_path: bool,
                 allow_dirs: Sequence[str | Path] = ()):
        self.problems = Problems()
        self.guard = Guard(allow_dirs)
        #: parsed included files by path (a file included many times is read once)
        self.parsed: dict[Path, Source | None] = {}
        self.allow_any_path = allow_any_path
        self.args = _ArgSource("--set", Located(None))
        self.block_overrides: dict[str, dict[str, Any]] = {}
        self.param_overrides: dict[str, Any] = {}
        for target, value in overrides.items():
            bpath, dot, pname = str(target).rpartition(".")
            if dot:
                self.block_overrides.setdefault(bpath, {})[pname] = value
            else:
                self.param_overrides[pname] = value
        self.origins: dict[str, tuple[Source, JsonPath]] = {}

    def confinement(self, source: Source) -> Confinement:
        """Where the blocks of ``source`` may read and write files: its folder (the working
        directory for a text without one) and the allowed folders (:mod:`blocksim.confine`)."""
        base = source.base_dir if source.base_dir is not None else Path.cwd()
        return Confinement(Path(base), tuple(self.guard.allow_dirs), self.allow_any_path)

    # ---------------------------------------------------------------- files
    def parse(self, text: str, name: str, path: Path | None,
              included: bool = False) -> Source | None:
        try:
            located = parse(text)
        except JsonSyntaxError as exc:
            # an included file that is not JSON may be anything: say where, quote nothing
            why = "not a diagram file (not JSON)" if included else exc.reason
            self.problems.extend([f"{name}:{exc.line}: column {exc.column}: {why}"])
            return None
        source = Source(name, located, path.parent if path else None, path)
        blocks = located.value.get("blocks") if isinstance(located.value, dict) else None
        if isinstance(blocks, dict) and len(blocks) > self.guard.max_blocks:
            # before validating them: the count alone refuses the file, in linear time
            self.problems.add(source, ("blocks",), f"{len(blocks)} blocks; a diagram may have "
                              f"at most {self.guard.max_blocks} (blocksim.io.guard.MAX_BLOCKS, "
                              f"subsystems' blocks included; raise it in Python)", key=True)
            return None
        for dpath, _line, _col, first in located.duplicates:
            self.problems.add(source, dpath, f"duplicate name '{dpath[-1]}' (first defined at "
                                             f"line {first}); names must be unique", key=True)
        for jpath, message, on_key in validate(skeleton(located.value)):
            self.problems.add(source, jpath, message, key=on_key)
        return source

    def top(self, text: str, name: str, path: Path | None) -> DiagramFile:
        source = self.parse(text, name, path)
        if source is None:
            self.problems.raise_if_any(name)
        assert source is not None
        doc = source.located.value
        stack = (path,) if path is not None else ()
        ns = Namespace()
        given = {k: Entry(v, (k,), self.args, ns) for k, v in self.param_overrides.items()}
        diagram, ctx = self.body(doc, (), source, ns, _default_name(doc, path), "", stack,
                                 given)
        ctx.path = path
        simulation = read_simulation(doc, source, ns, self.problems)
        sim = doc.get("simulation") if isinstance(doc, dict) else None
        ctx.simulation = dict(sim) if isinstance(sim, dict) else {}
        layout = doc.get("layout") if isinstance(doc, dict) else None
        ctx.layout = layout
        for target in self.param_overrides:
            if target not in ns.params:
                self.problems.extend([f"--set {target}: the file has no shared parameter "
                                      f"'{target}'{suggest(target, ns.params)}; parameters: "
                                      f"{', '.join(ns.params) or '(none)'}"])
        for bpath in self.block_overrides:
            if bpath not in self.origins:
                self.problems.extend([f"--set {bpath}.…: no block '{bpath}' in the diagram"
                                      f"{suggest(bpath, self.origins)}"])
        self.problems.raise_if_any(name, diagram.name)
        return DiagramFile(diagram, simulation, layout, source, self.origins)

    def include(self, rel: str, spec_path: JsonPath, parent: Source,
                stack: tuple[Path, ...]) -> tuple[Source, Path] | None:
        if parent.base_dir is None:
            self.problems.add(parent, spec_path, "a diagram read from a string cannot include "
                                                 "files (give base_dir)")
            return None
        try:
            path = self.guard.confine(parent.base_dir, rel, "subsystem file")
        except GuardError as exc:
            self.problems.add(parent, spec_path, str(exc))
            return None
        try:
            self.guard.add_include()
        except GuardError as exc:
            if self.guard.includes == self.guard.max_includes + 1:  # reported once
                self.problems.add(parent, spec_path, str(exc))
            return None
        if path in stack:
            chain = " -> ".join(p.name for p in (*stack[stack.index(path):], path))
            self.problems.add(parent, spec_path, f"subsystem file {rel!r} includes itself "
                                                 f"({chain}); a diagram cannot contain itself")
            return None
        if len(stack) >= MAX_INCLUDE_DEPTH:
            self.problems.add(parent, spec_path, f"subsystem files nested deeper than "
                                                 f"{MAX_INCLUDE_DEPTH} levels")
            return None
        if path in self.parsed:
            source = self.parsed[path]
            return (source, path) if source is not None else None
        try:
            text = guard_read_text(path, MAX_FILE_BYTES)
        except GuardError as exc:
            self.problems.add(parent, spec_path, f"subsystem file {rel!r}: {exc}")
            return None
        except OSError as exc:
            self.problems.add(parent, spec_path, f"cannot read subsystem file {rel!r}: "
                                                 f"{exc.strerror}")
            return None
        source = self.parse(text, _display(path), path, included=True)
        self.parsed[path] = source
        return (source, path) if source is not None else None

    # ---------------------------------------------------------------- one diagram
    def body(self, doc: Any, path: JsonPath, source: Source, ns: Namespace, name: str,
             prefix: str, stack: tuple[Path, ...], given: dict[str, Entry] | None = None,
             ) -> tuple[Diagram, FileContext]:
        """Build one diagram (file or inline subsystem); ``given`` replaces shared
        parameters of this diagram (command line, or an including Subsystem block)."""
        d = Diagram(name)
        d.origin = source.name  # error hints speak JSON (a wire, not d.connect)
        ctx = FileContext()
        attach(d, ctx)
        if not isinstance(doc, dict):
            return d, ctx
        if isinstance(doc.get("description"), str):
            ctx.description = doc["description"]
        read_shared(doc, path, source, ns, ctx, given or {}, self.problems)
        blocks = doc.get("blocks")
        if isinstance(blocks, dict):
            for bname, spec in blocks.items():
                if isinstance(spec, dict) and isinstance(spec.get("type"), str):
                    self.block(d, ctx, bname, spec, (*path, "blocks", bname), source, ns,
                               prefix, stack)
        declared = set(blocks) if isinstance(blocks, dict) else set()
        wires = doc.get("wires")
        if isinstance(wires, list):
            for k, w in enumerate(wires):
                if isinstance(w, dict):
                    read_wire(d, w, (*path, "wires", k), source, declared, self.problems)
        return d, ctx

    # ---------------------------------------------------------------- blocks
    def block(self, d: Diagram, ctx: FileContext, bname: str, spec: dict[str, Any],
              bpath: JsonPath, source: Source, ns: Namespace, prefix: str,
              stack: tuple[Path, ...]) -> None:
        tname = spec["type"]
        full = prefix + bname
        try:
            self.guard.add_block()
        except GuardError as exc:
            if self.guard.blocks == self.guard.max_blocks + 1:  # reported once
                self.problems.add(source, bpath, str(exc))
            return
        self.origins[full] = (source, bpath)
        if isinstance(spec.get("description"), str):
            ctx.block_descriptions[bname] = spec["description"]
        try:
            cls = block_class(tname)
        except KeyError as exc:
            self.problems.add(source, (*bpath, "type"), f"block '{bname}': {exc.args[0]}")
            return
        if cls is Subsystem:
            block = self.subsystem(ctx, bname, spec, bpath, source, ns, full, stack)
        else:
            for key in ("diagram", "file", "parameters"):
                if key in spec:
                    self.problems.add(source, (*bpath, key), f"'{key}' belongs to Subsystem "
                                      f"blocks; block '{bname}' is a {tname}", key=True)
            block = self.library_block(ctx, cls, bname, spec, bpath, source, ns, full)
        if block is None:
            return
        try:
            d.add(block, name=bname)
        except BlocksimError as exc:
            self.problems.add(source, bpath, str(exc).split("\n")[-1].strip(" -"), key=True)

    def library_block(self, ctx: FileContext, cls: type[Block], bname: str,
                      spec: dict[str, Any], bpath: JsonPath, source: Source, ns: Namespace,
                      full: str) -> Block | None:
        tname = spec["type"]
        raw_params = dict(spec["params"]) if isinstance(spec.get("params"), dict) else {}
        sig = parameters(cls)
        names = [p.name for p in sig]
        callables = [n for n in names if takes_callable(cls, n)]
        if callables:
            self.problems.add(source, (*bpath, "type"), f"block '{bname}': {tname} runs Python "
                              f"code (parameter '{callables[0]}' takes a callable), which a "
                              f"diagram file cannot hold; use library blocks (Gain, Sum, "
                              f"Product, MathFunction, ...) or register a Python block class "
                              f"with blocksim.io.register_block")
            return None
        where: dict[str, tuple[Source, JsonPath]] = {
            k: (source, (*bpath, "params", k)) for k in raw_params}
        for k, v in self.block_overrides.get(full, {}).items():
            raw_params[k] = v
            where[k] = (self.args, (full, k))
        kwargs: dict[str, Any] = {}
        record: dict[str, tuple[Any, Any]] = {}
        ok = True
        for k, raw in raw_params.items():
            src, ppath = where[k]
            if k not in names:
                self.problems.add(src, ppath, f"{tname} has no parameter '{k}'"
                                  f"{suggest(k, names)}; parameters: "
                                  f"{', '.join(names) or '(none)'}", key=True)
                ok = False
                continue
            try:
                value = interpret(raw, ppath, strings=accepts_str(cls, k), ns=ns, source=src)
            except ValueProblem as exc:
                self.problems.add_error(exc)
                ok = False
                continue
            kwargs[k] = value
            if src is source:
                record[k] = (raw, value)
        missing = [p.name for p in sig if p.default is p.empty and p.name not in kwargs]
        if missing and ok:
            self.problems.add(source, bpath, f"block '{bname}' ({tname}) needs the parameter"
                              f"{'s' if len(missing) > 1 else ''} {', '.join(missing)} in "
                              f"\"params\"")
            return None
        if not ok:
            return None
        try:
            with confined(self.confinement(source)):
                block = cls(**kwargs)
        except Exception as exc:  # the constructor's own checks: a problem of the file
            msg = str(exc).split("\n")[0]
            self.problems.add(source, (*bpath, "params") if raw_params else bpath,
                              f"block '{bname}' ({tname}) refused its parameters: {msg}")
            return None
        ctx.block_params[bname] = record
        return block

    def subsystem(self, ctx: FileContext, bname: str, spec: dict[str, Any], bpath: JsonPath,
                  source: Source, ns: Namespace, full: str,
                  stack: tuple[Path, ...]) -> Block | None:
        has_inline, has_file = "diagram" in spec, "file" in spec
        if "params" in spec:
            self.problems.add(source, (*bpath, "params"), "a Subsystem has no params; give its "
                              "inner diagram as \"diagram\" (inline) or \"file\"", key=True)
        if has_file and not isinstance(spec["file"], str):
            return None  # reported by the schema
        if has_inline == has_file:
            self.problems.add(source, bpath, f"Subsystem '{bname}' needs exactly one of "
                                             f"\"diagram\" (inline) or \"file\"")
            return None
        if has_inline:
            if "parameters" in spec:
                self.problems.add(source, (*bpath, "parameters"), "\"parameters\" of a "
                                  "Subsystem set an included file's shared parameters; an "
                                  "inline diagram has its own \"parameters\"", key=True)
            body = spec["diagram"]
            name = body.get("name", bname) if isinstance(body, dict) else bname
            inner, _ = self.body(body, (*bpath, "diagram"), source, Namespace(ns), name,
                                 full + "/", stack)
        else:
            found = self.include(spec["file"], (*bpath, "file"), source, stack)
            if found is None:
                return None
            isource, ipath = found
            doc = isource.located.value
            child = Namespace()
            overrides = spec.get("parameters")
            overrides = overrides if isinstance(overrides, dict) else {}
            given = {k: Entry(v, (*bpath, "parameters", k), source, ns)
                     for k, v in overrides.items()}
            inner, ictx = self.body(doc, (), isource, child, _default_name(doc, ipath),
                                    full + "/", (*stack, ipath), given)
            ictx.path = ipath
            for pname in overrides:
                if pname not in child.params:
                    self.problems.add(source, (*bpath, "parameters", pname), f"the included "
                                      f"file has no shared parameter '{pname}'"
                                      f"{suggest(pname, child.params)}; its parameters: "
                                      f"{', '.join(child.params) or '(none)'}", key=True)
            ctx.includes[bname] = (ipath, dict(overrides))
        return Subsystem(inner)

def _default_name(doc: Any, path: Path | None) -> str:
    if isinstance(doc, dict) and isinstance(doc.get("name"), str):
        return doc["name"]
    return path.stem if path is not None and path.stem.isidentifier() else "diagram"


def _display(path: Path) -> str:
    """``path`` relative to the working directory when below it, else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
