"""The block catalog's pages, generated from the block registry (never written by hand).

:func:`entries` describes every registered block type (:func:`blocksim.io.catalog.describe`
plus what its minimal example shows: port shapes, sample time, feedthrough, back-ends);
:func:`family_page` writes one Markdown page per family, one section per block (what it
computes, from its docstring; ports; parameters with defaults and units; sample time;
feedthrough; back-ends; the example; its response plot or why it has none); :func:`index_page`
the catalog's front page.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any

from blocksim.docs import examples, rst
from blocksim.engine.block import Block
from blocksim.io.catalog import describe
from blocksim.io.plugins import load_plugins
from blocksim.io.registry import block_types

#: family -> page title, in the catalog's order
TITLES = {
    "sources": "Sources", "sinks": "Sinks", "continuous": "Continuous",
    "discrete": "Discrete", "math": "Math", "routing": "Signal routing",
    "nonlinear": "Nonlinear", "lookup": "Lookup tables", "events": "Events",
    "subsystems": "Subsystems", "control": "Control design", "arm": "Robot arms",
    "vision": "Vision", "vehicle": "Mobile robots", "quadrotor": "Multirotors",
    "floating": "Floating-base robots", "planning": "Path planning",
    "hardware": "Hardware in the loop", "fmi": "FMUs", "plugins": "Registered and plugin blocks",
}


def family_of(module: str) -> str:
    """The catalog family of a block class's module: ``blocksim.blocks.<family>...``,
    ``subsystems`` (Inport, Outport, Subsystem), ``plugins`` (anything else)."""
    parts = module.split(".")
    if parts[:2] == ["blocksim", "blocks"] and len(parts) > 2:
        return parts[2]
    if module == "blocksim.engine.subsystem":
        return "subsystems"
    return "plugins"


@dataclass
class Entry:
    """A block type as its catalog section shows it."""

    type: str
    family: str
    cls: type[Block]
    info: dict[str, Any]
    example: examples.Example | None
    block: Block | None = None
    problem: str = ""
    plot: str = ""  # the image's path relative to the family page, or ""
    no_plot: str = ""  # why there is no plot
    caption: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def entries(only: set[str] | None = None) -> list[Entry]:
    """Every registered type (the installed plugins' included; or the types named in
    ``only``), with its example built."""
    load_plugins()
    out = []
    for name, cls in sorted(block_types().items()):
        if only is not None and name not in only:
            continue
        info = describe(name, cls)
        ex = examples.example(name, cls)
        e = Entry(name, family_of(cls.__module__), cls, info, ex)
        if ex is not None:
            try:
                e.block = examples.build(name, cls)
            except ImportError as exc:  # an optional dependency this build has not
                e.problem = f"not built here ({exc}): ports and defaults of the class"
        out.append(e)
    return out


def families(items: list[Entry]) -> list[str]:
    """The families present, in :data:`TITLES` order (unknown ones last)."""
    present = {e.family for e in items}
    order = [f for f in TITLES if f in present]
    return order + sorted(present - set(order))


def title(family: str) -> str:
    return TITLES.get(family, family.capitalize())


def _intro(family: str) -> str:
    if family in ("subsystems", "plugins"):
        return {"subsystems": "Diagrams inside diagrams: a `Subsystem` holds a diagram whose "
                              "`Inport` and `Outport` blocks are its ports.",
                "plugins": "Block types registered from Python (`blocksim.io.register_block`) "
                           "or by installed plugin packages."}[family]
    try:
        doc = importlib.import_module(f"blocksim.blocks.{family}").__doc__ or ""
    except ImportError:
        return ""
    return rst.markdown(doc.strip().split("\n\n")[0])


def _shape(port: Any, described: rst.Item | None) -> str:
    shape = getattr(port, "shape", None)
    if shape is not None:
        return "scalar" if tuple(shape) == () else str(tuple(shape))
    if described is not None and described.kind:
        return rst.one_line(described.kind)
    return "any"


def _ports_table(e: Entry, secs: dict[str, str]) -> list[str]:
    owner: Any = e.block if e.block is not None else e.cls
    rows = ["| port | shape | unit | description |", "|---|---|---|---|"]
    for side, title_ in (("inputs", "Inputs"), ("outputs", "Outputs")):
        documented = rst.items(secs.get(title_, ""))
        for port in getattr(owner, side):
            d = rst.described(documented, port.name)
            text = rst.one_line(d.text) if d is not None else rst.one_line(port.doc or "")
            unit = port.unit or "-"
            arrow = "in" if side == "inputs" else "out"
            rows.append(f"| {arrow} `{port.name}` | {_shape(port, d)} | {unit} | {text} |")
    if len(rows) == 2:
        return ["No ports."]
    return rows


def _value(value: Any) -> str:
    if isinstance(value, str) and value.startswith("="):  # a tagged expression: -inf, nan
        value = value[1:]
    text = value if isinstance(value, str) and value in ("inf", "-inf", "nan") else \
        json.dumps(value)
    return f"`{text}`" if len(text) <= 48 else f"`{text[:45]}...`"


def _params_table(e: Entry, secs: dict[str, str]) -> list[str]:
    params = e.info["parameters"]
    if not params:
        return ["No parameters."]
    documented = rst.items(secs.get("Parameters", ""))
    rows = ["| parameter | default | unit | description |", "|---|---|---|---|"]
    for p in params:
        d = rst.described(documented, p["name"])
        default = "**required**" if p["required"] else _value(p.get("default"))
        text = rst.one_line(d.text) if d is not None else ""
        kind = f"*{rst.one_line(d.kind)}*. " if d is not None and d.kind else ""
        rows.append(f"| `{p['name']}` | {default} | {p['unit']} | {kind}{text} |")
    return rows


def sample_time(block: Block | None, cls: type[Block]) -> str:
    """The sample time of the example's block, in words."""
    from blocksim.engine.clock import EVENT

    b: Any = block if block is not None else cls
    clock = getattr(b, "clock", None)
    if clock is EVENT:
        return "event-driven: its mode changes only at its zero crossings"
    if clock is not None:
        offset = getattr(clock, "offset", 0.0)
        return (f"discrete, period {clock.period:g} s" + (f", offset {offset:g} s" if offset
                                                           else "") + " (its `clock`)")
    kind = getattr(cls, "sample_time", None)
    if kind is None and block is not None:
        kind = "continuous" if block.nx or not block.inputs else "inherited"
    return {"continuous": "continuous", "inherited": "inherited from its inputs",
            "constant": "constant (evaluated once)"}.get(kind or "", "continuous or inherited")


def feedthrough(block: Block | None) -> str:
    """Which inputs each output reads at the same instant, in words."""
    if block is None:
        return "as declared by the class (no example block built here)"
    if not block.outputs:
        return "none (no outputs)"
    ft = block.output_feedthrough()
    if not block.inputs:
        return "none (no inputs)"
    if all(not v for v in ft.values()):
        return "none: the outputs depend on the state only (breaks algebraic loops)"
    if all(set(v) == {p.name for p in block.inputs} for v in ft.values()):
        return "every output reads every input directly"
    return "; ".join(f"`{o}` ← " + (", ".join(f"`{i}`" for i in v) if v else "none")
                     for o, v in ft.items())


def backends(block: Block | None, cls: type[Block]) -> str:
    """Both back-ends, or the interpreted one only (the compiled back-end runs a block
    through its ``kernels()``)."""
    from blocksim.engine.compiled.kernels import kernels_of

    if cls.__name__ == "Subsystem":
        return "both: a subsystem is flattened, its blocks run as themselves"
    if getattr(cls, "kernels", None) is None:
        if block is not None and not block.outputs and not block.nx \
                and not block.crossing_directions:
            return ("both: a sink that takes no part in the compiled loop (it works from the "
                    "recorded result)")
        return "interpreted only (no compiled kernels)"
    if block is None:
        return "both (it has compiled kernels)"
    try:
        has = kernels_of(block) is not None
    except Exception as exc:  # kernels refused for these parameters
        return f"interpreted only with these parameters ({type(exc).__name__})"
    return "both: interpreted and compiled (numba kernels)" if has else \
        "interpreted only with these parameters"


def section(e: Entry) -> str:
    """The Markdown section of one block type."""
    description, secs = rst.sections(e.cls.__doc__)
    out = [f"## {e.type}", ""]
    origin = e.info.get("source", "blocksim")
    where = f"`{e.cls.__module__}.{e.cls.__qualname__}`"
    if origin == "plugin":
        where += f" (plugin `{e.info.get('distribution')}`)"
    out += [where, "", rst.markdown(description) or e.info.get("summary", ""), ""]
    if e.info.get("note"):
        out += [f"!!! note\n    {e.info['note'].capitalize()}.", ""]
    suffix = " (of the example below)" if e.block is not None else ""
    out += [f"**Ports**{suffix}", "", *_ports_table(e, secs), ""]
    out += ["**Parameters**", "", *_params_table(e, secs), ""]
    states = e.block.nx if e.block is not None else None
    out += [f"**Sample time**: {sample_time(e.block, e.cls)}.  ",
            f"**Feedthrough**: {feedthrough(e.block)}.  ",
            f"**States**: {states if states is not None else 'see the class'}.  ",
            f"**Back-ends**: {backends(e.block, e.cls)}.", ""]
    if e.problem:
        out += [f"*Example {e.problem}.*", ""]
    out += ["**Example**", ""]
    if e.example is None:
        out += ["No example.", ""]
    else:
        out += [f"```{e.example.language}", e.example.text.rstrip(), "```", ""]
    out += ["**Response**", ""]
    if e.plot:
        out += [f"![Response of {e.type}]({e.plot})", "", f"*{e.caption}*", ""]
    else:
        out += [f"No plot: {e.no_plot}.", ""]
    return "\n".join(out)


def family_page(family: str, items: list[Entry]) -> str:
    """The Markdown page of one family."""
    mine = [e for e in items if e.family == family]
    head = [f"# {title(family)}", "", _intro(family), "",
            "| block | what it does |", "|---|---|"]
    head += [f"| [{e.type}](#{e.type.lower()}) | {rst.one_line(e.info['summary'])} |"
             for e in mine]
    head += ["", "Generated from the block registry when the site is built "
                 "(`blocksim blocks --json` gives the same ports and parameters).", ""]
    return "\n".join(head) + "\n" + "\n".join(section(e) for e in mine)


def index_page(items: list[Entry]) -> str:
    """The catalog's front page: the families and how many blocks each holds."""
    lines = ["# Block catalog", "",
             f"Every block type blocksim knows — {len(items)} of them — one page per family, "
             "one section per block: what it computes, its ports with shapes and units, its "
             "parameters with defaults and units, sample time, feedthrough, the back-ends "
             "that run it, a minimal example (a diagram file that constructs it) and the plot "
             "of its response. These pages are generated from the block registry each time "
             "the site is built; `blocksim blocks NAME` prints the same in a terminal and "
             "`blocksim blocks --json` as JSON.", "",
             "| family | blocks |", "|---|---|"]
    for fam in families(items):
        names = ", ".join(f"[{e.type}]({fam}.md#{e.type.lower()})"
                          for e in items if e.family == fam)
        lines.append(f"| [{title(fam)}]({fam}.md) | {names} |")
    return "\n".join(lines) + "\n"
