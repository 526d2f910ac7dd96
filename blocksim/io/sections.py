"""Reading the named sections of a diagram file: shared parameters, clocks, models, wires and
simulation settings (the blocks are read by :mod:`blocksim.io.load`).

Each function records what it reads in the diagram's :class:`Namespace` and
:class:`FileContext`, and every problem in ``problems``; none raises for a problem of the file.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

from blocksim.engine.block import Block
from blocksim.engine.clock import Clock
from blocksim.engine.diagram import Diagram, Wire
from blocksim.engine.errors import listing, suggest
from blocksim.io import models as model_kinds
from blocksim.io.context import FileContext
from blocksim.io.errors import Problems, Source, ValueProblem
from blocksim.io.locate import JsonPath
from blocksim.io.registry import accepts_str
from blocksim.io.values import Entry, Namespace, check_name, interpret

#: simulation settings that are strings; the others are numbers
SIM_STRINGS = ("solver", "backend", "overrun", "algebraic")


def read_shared(doc: dict[str, Any], path: JsonPath, source: Source, ns: Namespace,
                ctx: FileContext, given: dict[str, Entry], problems: Problems) -> None:
    """The ``parameters`` (``given`` replaces some), ``clocks`` and ``models`` of ``doc``."""
    params = doc.get("parameters")
    if isinstance(params, dict):
        ctx.parameters = dict(params)
        for pname, raw in params.items():
            ppath = (*path, "parameters", pname)
            try:
                check_name(pname, "parameter", ns, source, ppath)
            except ValueProblem as exc:
                problems.add_error(exc)
                continue
            ns.params[pname] = given.get(pname) or Entry(raw, ppath, source, ns)
    clocks = doc.get("clocks")
    if isinstance(clocks, dict):
        ctx.clocks_raw = dict(clocks)
        for cname, spec in clocks.items():
            if isinstance(spec, dict):
                _clock(cname, spec, (*path, "clocks", cname), source, ns, ctx, problems)
    specs = doc.get("models")
    if isinstance(specs, dict):
        ctx.models_raw = dict(specs)
        for mname, spec in specs.items():
            if isinstance(spec, dict):
                _model(mname, spec, (*path, "models", mname), source, ns, ctx, problems)


def _clock(cname: str, spec: dict[str, Any], cpath: JsonPath, source: Source, ns: Namespace,
           ctx: FileContext, problems: Problems) -> None:
    try:
        check_name(cname, "clock", ns, source, cpath)
    except ValueProblem as exc:
        problems.add_error(exc)
        return
    try:
        period = interpret(spec.get("period"), (*cpath, "period"), strings=False, ns=ns,
                           source=source)
        offset = interpret(spec.get("offset", 0.0), (*cpath, "offset"), strings=False, ns=ns,
                           source=source)
        clock = Clock(float(period), float(offset))
    except ValueProblem as exc:
        problems.add_error(exc)
        ns.broken.add(cname)
        return
    except (TypeError, ValueError) as exc:
        problems.add(source, cpath, f"clock '{cname}': {exc}")
        ns.broken.add(cname)
        return
    ns.define(cname, "clock", clock)
    ctx.clocks[cname] = clock


def _model(mname: str, spec: dict[str, Any], mpath: JsonPath, source: Source, ns: Namespace,
           ctx: FileContext, problems: Problems) -> None:
    try:
        check_name(mname, "model", ns, source, mpath)
    except ValueProblem as exc:
        problems.add_error(exc)
        return
    ns.broken.add(mname)  # until it is defined
    try:
        kind = model_kinds.kind_of(spec)
    except ValueProblem as exc:
        problems.add_error(exc)
        return
    except KeyError as exc:
        problems.add(source, mpath, f"model '{mname}': {exc.args[0]}")
        return
    builder = model_kinds.model_kinds()[kind]
    sig = inspect.signature(builder)
    var_kw = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    kwargs, ok = {}, True
    for key, raw in spec.items():
        if key == "kind":
            continue
        kpath = (*mpath, key)
        if key == "base_dir":  # the folder files are read from is the file's own, always
            problems.add(source, kpath, f"model kind '{kind}': 'base_dir' cannot be set in a "
                         f"file; paths start at the diagram file's folder (allow more with "
                         f"--allow-dir DIR)", key=True)
            ok = False
            continue
        if key not in sig.parameters and not var_kw:
            problems.add(source, kpath, f"model kind '{kind}' has no member '{key}'"
                         f"{suggest(key, sig.parameters)}; members: "
                         f"{', '.join(sig.parameters)}", key=True)
            ok = False
            continue
        try:
            kwargs[key] = interpret(raw, kpath, strings=accepts_str(builder, key), ns=ns,
                                    source=source)
        except ValueProblem as exc:
            problems.add_error(exc)
            ok = False
    if not ok:
        return
    if "base_dir" in sig.parameters:
        kwargs["base_dir"] = source.base_dir  # files named by a model start at the diagram's
    try:
        obj = builder(**kwargs)
    except Exception as exc:  # a builder's refusal is a problem of the file
        problems.add(source, mpath, f"model '{mname}' ({kind}): {type(exc).__name__}: {exc}")
        return
    ns.broken.discard(mname)
    ns.define(mname, "model", obj)
    ctx.models[mname] = obj


def read_wire(d: Diagram, w: dict[str, Any], wpath: JsonPath, source: Source,
              declared: set[str], problems: Problems) -> None:
    """Add the wire ``w`` to ``d`` (its ``where`` is ``file:line``). Ends naming a declared
    block that could not be built are not reported again (that block's problem is)."""
    src = w.get("from")
    dsts = w.get("to")
    if not isinstance(src, str):
        return
    targets = [(dsts, (*wpath, "to"))] if isinstance(dsts, str) else [
        (t, (*wpath, "to", k)) for k, t in enumerate(dsts if isinstance(dsts, list) else [])
        if isinstance(t, str)]
    good_src = _end(d, src, "output", (*wpath, "from"), source, declared, problems)
    line = source.located.line(wpath)
    for dst, dpath in targets:
        if _end(d, dst, "input", dpath, source, declared, problems) and good_src:
            d.wires.append(Wire(src, dst, f"{source.name}:{line}"))


def _end(d: Diagram, end: str, want: str, epath: JsonPath, source: Source, declared: set[str],
         problems: Problems) -> bool:
    bname, dot, port = end.partition(".")
    if bname not in d.blocks:
        if bname not in declared:
            problems.add(source, epath, f"no block named '{bname}' in this diagram"
                                        f"{suggest(bname, d.blocks)}")
        return False
    block = d.blocks[bname]
    table = _port_names(block, want == "output")
    kind = type(block).__name__
    if not dot:
        if len(table) == 1:
            return True
        problems.add(source, epath, f"block '{bname}' ({kind}) has no {want} port" if not table
                     else f"block '{bname}' ({kind}) has {len(table)} {want}s "
                          f"({listing(list(table))}); name one, e.g. "
                          f"'{bname}.{next(iter(table))}'")
        return False
    if port in table:
        return True
    if port in _port_names(block, want != "output"):
        problems.add(source, epath, f"'{end}' is an {'input' if want == 'output' else 'output'};"
                                    f" a wire goes from an output (\"from\") to an input "
                                    f"(\"to\")")
    else:
        problems.add(source, epath, f"block '{bname}' ({kind}) has no {want} port '{port}'"
                                    f"{suggest(port, table)}; {want}s: "
                                    f"{listing(list(table))}")
    return False


_PORT_NAMES: weakref.WeakKeyDictionary[Block, dict[bool, dict[str, None]]] = (
    weakref.WeakKeyDictionary())


def _port_names(block: Block, output: bool) -> dict[str, None]:
    """The names of ``block``'s outputs (``output``) or inputs, as a dict (ordered, O(1)
    lookups), made once per block: a wire end costs O(1), not a scan of the ports."""
    names = _PORT_NAMES.setdefault(block, {})
    if output not in names:
        names[output] = dict.fromkeys(p.name for p in (block.outputs if output
                                                       else block.inputs))
    return names[output]


def read_simulation(doc: Any, source: Source, ns: Namespace,
                    problems: Problems) -> dict[str, Any]:
    """The ``simulation`` settings of ``doc``, values evaluated."""
    sim = doc.get("simulation") if isinstance(doc, dict) else None
    out: dict[str, Any] = {}
    if not isinstance(sim, dict):
        return out
    for key, raw in sim.items():
        try:
            out[key] = interpret(raw, ("simulation", key), strings=key in SIM_STRINGS, ns=ns,
                                 source=source)
        except ValueProblem as exc:
            problems.add_error(exc)
    return out
