"""The data-wired tier: a diagram as tables, run by loops compiled once per installation.

:func:`build_wiring` turns a :class:`~blocksim.engine.compiled.ir.Program` (the same
statements the fused tier renders as code) into an int64 table, the *program*, that the
interpreter of :mod:`blocksim.engine.compiled.wired` walks: per evaluation statement its kind
(a block's output entry or a route), rate, clock, entry address, state and wiring row; per
derivative, update and crossing the same. The program goes in front of the block int
parameters in ``pi`` (``pi[0]`` is its length), so the loop's functions, which all receive
``pi``, find it without another argument, and a batch member's ``pi`` row carries it too.

Entries are the adapters of :mod:`blocksim.engine.compiled.adapters`, one per block form,
compiled once per installation. :func:`wired_module` is the loop of one integration method:
the source of :mod:`blocksim.engine.compiled.loop_template` with the diagram sizes read from
the arrays (not module constants), calling the interpreter, generated once into the cache
folder and compiled once per installation. A new diagram of known block forms compiles
nothing at all.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from blocksim.engine.compiled import wired
from blocksim.engine.compiled.adapters import Adapter, adapter, form_of, meta_row
from blocksim.engine.compiled.ir import Call, Program, Rate, Route
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.compiled.loop import loop_source
from blocksim.engine.compiled.modules import load_source
from blocksim.engine.compiled.params import ParamLayout
from blocksim.engine.compiled.render import LOOP_MODULES, fingerprint, source_hash
from blocksim.engine.compiled.steps import Method
from blocksim.engine.plan import Plan

_RATE = {Rate.MINOR: wired.MINOR, Rate.CONTINUOUS: wired.CONTINUOUS, Rate.CLOCK: wired.CLOCK,
         Rate.CONSTANT: wired.CONSTANT}
#: modules the wired loop is made of (their fingerprints name its module)
WIRED_MODULES = (*LOOP_MODULES, "blocksim.engine.compiled.wired",
                 "blocksim.engine.compiled.entry")


@dataclass(frozen=True)
class Wiring:
    """A diagram's program (int64, in front of the block int parameters in ``pi``), the
    adapters its blocks use, and which statement belongs to which block (for errors)."""

    table: np.ndarray
    adapters: tuple[Adapter, ...]
    eval_entries: tuple[int, ...]
    deriv_entries: tuple[int, ...]
    update_entries: tuple[int, ...]
    cross_entries: tuple[int, ...]

    def with_params(self, pi: np.ndarray) -> np.ndarray:
        """``pi`` of a run: the program, then the block int parameters ``pi`` (1-D, or 2-D
        with a row per batch member)."""
        if pi.ndim == 1:
            return np.concatenate([self.table, pi])
        return np.ascontiguousarray(np.hstack([np.tile(self.table, (pi.shape[0], 1)), pi]))

    def entry_of(self, statement: int) -> int:
        """The plan entry of the statement number an entry failure reports."""
        for base, entries in ((wired.EVENT_FAILED, self.cross_entries),
                              (wired.CROSSING_FAILED, self.cross_entries),
                              (wired.UPDATE_FAILED, self.update_entries)):
            if statement <= base:
                return entries[base - statement]
        if statement < 0:
            return self.deriv_entries[-1 - statement]
        return self.eval_entries[statement]


def build_wiring(plan: Plan, program: Program, kernels: list[Kernels | None],
                 layout: ParamLayout) -> Wiring:
    """The program of ``program`` (see the module docstring); compiles (or loads) the adapter
    of every block form it uses."""
    starts = [s.start for s in program.signals]
    shapes = [s.shape for s in program.signals]
    entries = plan.entries
    used: dict[Any, Adapter] = {}

    def entry_address(k: int, kind: str) -> tuple[int, int]:
        """The entry of block ``k``'s ``kind`` kernel, and the kernel's address it receives
        (0 when linked)."""
        e, kern = entries[k], kernels[k]
        assert kern is not None
        form = form_of(e, kern, layout.items[k], shapes)
        if form not in used:
            used[form] = adapter(form)
        return used[form].addresses[kind], used[form].kernel_addresses[kind]

    def build() -> list[int]:
        """The table; the block int parameters follow it in pi."""
        rows: list[list[Any]] = []
        meta_at: dict[Any, int] = {}
        cursor = [0]  # where the next meta row goes, relative to the end of the records

        def meta(k: int, stores: tuple[int, ...] | None = None) -> int:
            key = (k, stores)
            if key not in meta_at:
                row = meta_row(entries[k], layout.items[k], starts, shapes, stores)
                meta_at[key] = cursor[0]
                rows.append(row)
                cursor[0] += len(row)
            return meta_at[key]

        def state(c: Call) -> list[int]:
            if c.state is None:
                return [-1, 0]
            return [1 if c.state.vector == "xd" else 0, c.state.start]

        evals, derivs, updates, crosses = [], [], [], []
        for s in program.evaluation:
            if isinstance(s, Route):
                flat = []
                for slot, idx in s.pieces:
                    sg = program.signals[slot]
                    flat += [sg.start + i for i in (range(sg.size) if idx is None else idx)]
                rows.append([starts[s.out], len(flat), *flat])
                at = cursor[0]
                cursor[0] += len(rows[-1])
                evals.append([wired.ROUTE, _RATE[s.rate], s.clock, 0, -1, 0, ("m", at), 0])
            else:
                fn, kernel = entry_address(s.entry, "output")
                evals.append([wired.CALL, _RATE[s.rate], s.clock, fn, *state(s),
                              ("m", meta(s.entry, s.stores)), kernel])
        for c in program.derivatives:
            assert c.state is not None
            fn, kernel = entry_address(c.entry, "deriv")
            derivs.append([fn, c.state.start, ("m", meta(c.entry)), c.state.stop - c.state.start,
                           kernel])
        for c in program.updates:
            assert c.state is not None
            fn, kernel = entry_address(c.entry, "update")
            updates.append([fn, c.clock, c.state.start, ("m", meta(c.entry)), kernel])
        for x in program.crossings:
            c = x.call
            handler, on_event = entry_address(c.entry, "on_event") if x.handler is not None \
                else (0, 0)
            fn, kernel = entry_address(c.entry, "crossings")
            crosses.append([fn, *state(c), ("m", meta(c.entry)), x.offset, x.count, handler,
                            int(x.stops), kernel, on_event])
        records = [r for group in (evals, derivs, updates, crosses) for r in group]
        meta_base = wired.HEADER + sum(len(r) for r in records)
        header = [0, len(evals), wired.HEADER, len(derivs),
                  wired.HEADER + wired.EVAL_WIDTH * len(evals), len(updates),
                  wired.HEADER + wired.EVAL_WIDTH * len(evals) + wired.DERIV_WIDTH * len(derivs),
                  len(crosses),
                  wired.HEADER + wired.EVAL_WIDTH * len(evals) + wired.DERIV_WIDTH * len(derivs)
                  + wired.UPDATE_WIDTH * len(updates)]
        flat = [v for r in records for v in r] + [v for row in rows for v in row]
        length = len(header) + len(flat)
        base = {"m": meta_base, "p": length}  # meta rows; block int parameters (after it)
        header[wired.LENGTH] = length
        return header + [base[v[0]] + v[1] if isinstance(v, tuple) else v for v in flat]

    table = np.array(build(), dtype=np.int64)
    return Wiring(table, tuple(used.values()),
                  tuple(s.entry for s in program.evaluation),
                  tuple(c.entry for c in program.derivatives),
                  tuple(c.entry for c in program.updates),
                  tuple(x.call.entry for x in program.crossings))


#: the template's diagram sizes, read from the arrays instead of module constants
_SIZES = (("    n = NX\n    nz = NZ\n    method = METHOD\n",
           "    n = x0.size\n    nz = opts.directions.size\n    method = METHOD\n"),
          ("    n = NX\n    nf = opts.none_fired\n", "    n = x0.size\n    nf = opts.none_fired\n"),
          ("    nz = NZ\n    nup = NUPDATES\n", "    nz = opts.directions.size\n    nup = 1\n"),
          ("    n = NX\n", "    n = x.size\n"), ("range(NX)", "range(x.size)"))


@functools.cache
def wired_source(method: Method) -> str:
    """The source of the wired loop module of ``method``."""
    text = loop_source()
    for old, new in _SIZES:
        assert old in text, old
        text = text.replace(old, new)
    for name in ("NX", "NZ", "NUPDATES"):
        assert f" {name}" not in text and f"({name}" not in text, name
    head = ["# generated from loop_template.py by `python -m blocksim.engine.compiled.wiring`: "
            "the data-wired loop of one method; do not edit",
            "# ruff: noqa",
            "from blocksim.engine.compiled.wired import crossings, evaluate, fire, rhs, "
            "rhs_record, update", f"METHOD = {int(method)}  # {method.name}"]
    head += [f"# source {m}: {fingerprint(m)}" for m in sorted(WIRED_MODULES)]
    return "\n".join(head) + "\n\n" + text


#: the package modules holding the wired loops (generated from the template by
#: ``python -m blocksim.engine.compiled.wiring``; a test checks they are up to date), so
#: numba caches them beside the library, once per installation
WIRED_LOOPS = {Method.EULER: "wired_euler", Method.RK4: "wired_rk4",
               Method.DOPRI: "wired_dopri"}


def wired_module(method: Method) -> ModuleType:
    """The wired loop module of ``method`` (compiled on first use per installation)."""
    name = f"blocksim.engine.compiled.{WIRED_LOOPS[method]}"
    try:
        return importlib.import_module(name)
    except ImportError:  # not generated (a development tree): from the cache folder
        src = wired_source(method)
        return load_source(f"blocksim_wired_{source_hash(src)}", src)


def write_wired_loops() -> list[Path]:
    """(Re)write the wired loop modules of the package from the template."""
    paths = []
    for method, name in WIRED_LOOPS.items():
        path = Path(__file__).with_name(f"{name}.py")
        text = wired_source(method)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in write_wired_loops():
        print(p)


__all__ = ["WIRED_MODULES", "Wiring", "build_wiring", "wired_module", "wired_source"]
