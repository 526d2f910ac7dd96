"""The one renderer: a :class:`~blocksim.engine.compiled.ir.Program` as a Python module.

The generated module of a diagram defines, all ``@njit(cache=True)``:

* ``evaluate(t, x, xd, pv, pi, sig, mode, fired)`` — the outputs in evaluation order, each
  signal in a local named after its ``block.port`` and stored in the flat buffer ``sig``.
  ``mode`` (a :class:`~blocksim.engine.compiled.loop.Mode`) selects what runs: RECORD (1)
  every continuous-rate statement; HIT (2) those and the statements on ``fired`` clocks (a
  sample hit); INIT (3) everything (t = 0). Signals not recomputed are read back from
  ``sig`` (held);
* ``rhs(t, x, xd, pv, pi, sig, dx)`` — a solver stage: only the statements that feed
  derivatives, then every continuous block's derivative into ``dx`` (signals stay in locals:
  nothing reads the buffer after it);
* ``rhs_record`` — the same with the RECORD statements, storing every signal (one pass gives
  the derivatives and a row to record);
* ``update(t, x, xd, pv, pi, sig, fired, xd_new)`` — discrete updates of the fired clocks;
* ``crossings(t, x, xd, pv, pi, sig, g)`` and ``fire(t, x, xd, pv, pi, sig, mask, x_new,
  xd_new) -> stop`` — zero crossings and their handlers;
* ``run`` and ``run_batch`` — the loop, whose source
  (:mod:`blocksim.engine.compiled.loop_template`) is copied in so that it calls these
  functions directly;
* the constants ``NX``, ``NXD``, ``NSIG``, ``NZ`` (sizes), ``NUPDATES`` (discrete updates:
  without any the loop never compiles ``update``) and ``METHOD`` (the integration method: a
  module serves one method, so the loop compiles only that method's step).

Each of these functions that calls the kernels links them, and numba optimises and generates
their machine code once more in it: the compile time of a diagram with large kernels (an arm's
dynamics) grows with the number of such functions, so there are no more than these, each
compiled for one signature. ``rhs_record`` could be ``evaluate`` followed by the derivatives,
one function fewer, but the two calls cost the PID loop 45 % of its run time (0.93 against
0.64 ms), as LLVM no longer inlines the recording step into the loop.

Block parameters come from the flat vectors ``pv``/``pi`` (see :mod:`.params`), never from
the source: the source depends on the diagram's structure only.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from pathlib import Path

from blocksim.engine.compiled.ir import (
    Call,
    Loop,
    Program,
    Rate,
    Statement,
    held_reads,
    params_used,
)
from blocksim.engine.compiled.loop import loop_source
from blocksim.engine.compiled.loop_code import loop_lines
from blocksim.engine.compiled.params import ParamLayout
from blocksim.engine.compiled.steps import Method

#: the modules whose code is inlined into (or linked by) every generated module: their
#: fingerprints go into its source, so an edit gives another module name (numba's cache
#: does not notice edits of other modules)
LOOP_MODULES = ("blocksim.engine.compiled.loop", "blocksim.engine.compiled.loop_template",
                "blocksim.engine.compiled.steps", "blocksim.engine.crossing",
                "blocksim.engine.schedule")

_COND = {Rate.CONTINUOUS: "mode >= 1", Rate.CONSTANT: "mode == 3"}


@functools.cache
def fingerprint(module: str) -> str:
    """A short hash of ``module``'s source file."""
    source = Path(importlib.import_module(module).__file__ or "").read_bytes()
    return hashlib.sha256(source).hexdigest()[:16]


class _Writer:
    """Renders statements of one program (names of signals, kernels and parameters)."""

    def __init__(self, program: Program, layout: ParamLayout):
        self.p = program
        self.layout = layout
        self.kernel_alias = {ref: f"k_{ref[1]}" if sum(r[1] == ref[1] for r in program.kernels)
                             == 1 else f"k{i}_{ref[1]}"
                             for i, ref in enumerate(program.kernels)}

    def sig(self, slot: int) -> str:
        return self.p.signals[slot].ident

    def load(self, slot: int) -> str:
        s = self.p.signals[slot]
        if not s.shape:
            return f"{s.ident} = sig[{s.start}]"
        if len(s.shape) == 1:  # a slice is already the vector: a reshape costs 10-30 ns a call
            return f"{s.ident} = sig[{s.start}:{s.start + s.size}]"
        return f"{s.ident} = sig[{s.start}:{s.start + s.size}].reshape({s.shape!r})"

    def store(self, slot: int) -> str:
        s = self.p.signals[slot]
        if not s.shape:
            return f"sig[{s.start}] = {s.ident}"
        # np.int64: a literal offset would compile store once per offset (numba types a literal
        # argument as its own type): 156 specialisations of it in one run of the test suite
        return f"store(sig, np.int64({s.start}), {s.ident})"

    def unpack(self, entries: list[int]) -> list[str]:
        """``p_block = (...)``: each block's parameter tuple rebuilt from pv/pi."""
        lines = []
        for k in entries:
            parts = []
            for kind, start, shape in self.layout.items[k]:
                if kind == "a":
                    n = 1
                    for d in shape:
                        n *= d
                    parts.append(f"pv[{start}:{start + n}]" if len(shape) == 1
                                 else f"pv[{start}:{start + n}].reshape({shape!r})")
                elif kind == "f":
                    parts.append(f"pv[{start}]")
                elif kind == "i":
                    parts.append(f"pi[{start}]")
                elif kind == "b":
                    parts.append(f"pi[{start}] != 0")
                else:
                    parts.append(f"np.uint64(pi[{start}])")
            tup = "()" if not parts else "(" + ", ".join(parts) + ("," if len(parts) == 1
                                                                   else "") + ")"
            lines.append(f"{self.p.params[k]} = {tup}")
        return lines

    def args(self, c: Call) -> str:
        state = "_EMPTY" if c.state is None else f"{c.state.vector}[{c.state.start}:" \
                                                 f"{c.state.stop}]"
        return ", ".join(["t", state, *(self.sig(s) for s in c.ins), self.p.params[c.entry]])

    def call(self, c: Call) -> str:
        return f"{self.kernel_alias[c.kernel]}({self.args(c)})"

    def compute(self, s: Statement) -> list[str]:
        """Assign the statement's outputs (no stores; a loop stores its torn signals)."""
        if isinstance(s, Loop):
            return loop_lines(self, s)
        if isinstance(s, Call):
            return [f"{', '.join(self.sig(o) for o in s.outs)} = {self.call(s)}"]
        out = self.p.signals[s.out]
        if len(s.pieces) == 1 and s.pieces[0][1] is None:
            src = self.p.signals[s.pieces[0][0]]
            if src.shape == out.shape:
                return [f"{out.ident} = {src.ident}"]
            if not out.shape:
                return [f"{out.ident} = np.ravel({src.ident})[0]"]
            if not src.shape:
                return [f"{out.ident} = np.full({out.shape!r}, {src.ident})"]
            return [f"{out.ident} = np.ravel({src.ident}).reshape({out.shape!r})"]
        if not out.shape:  # one element of one input
            (slot, idx), = s.pieces
            src = self.p.signals[slot]
            if not src.shape:
                return [f"{out.ident} = {src.ident}"]
            return [f"{out.ident} = np.ravel({src.ident})[{idx[0] if idx else 0}]"]
        lines = [f"_y = np.empty({out.size})"]
        at = 0
        for slot, idx in s.pieces:
            src = self.p.signals[slot]
            if not src.shape:
                lines.append(f"_y[{at}] = {src.ident}")
                at += 1
                continue
            flat = f"np.ravel({src.ident})"
            if idx is None:
                lines.append(f"_y[{at}:{at + src.size}] = {flat}")
                at += src.size
            elif idx == tuple(range(idx[0], idx[0] + len(idx))):
                lines.append(f"_y[{at}:{at + len(idx)}] = {flat}[{idx[0]}:{idx[0] + len(idx)}]")
                at += len(idx)
            else:
                lines.append(f"_f = {flat}")
                lines += [f"_y[{at + j}] = _f[{i}]" for j, i in enumerate(idx)]
                at += len(idx)
        lines.append(f"{out.ident} = _y.reshape({out.shape!r})" if len(out.shape) > 1
                     else f"{out.ident} = _y")
        return lines

    def condition(self, s: Statement) -> str | None:
        if s.rate is Rate.MINOR:
            return None
        if s.rate is Rate.CLOCK:
            return f"mode == 3 or (mode == 2 and fired[{s.clock}])"
        return _COND[s.rate]


def _function(head: str, body: list[str]) -> str:
    lines = body or ["pass"]
    return f"@njit(cache=True)\ndef {head}:\n" + "\n".join("    " + ln for ln in lines) + "\n"


def _indent(lines: list[str]) -> list[str]:
    return ["    " + ln for ln in lines]


def _evaluate_body(w: _Writer, statements: tuple[Statement, ...]) -> list[str]:
    body: list[str] = []
    have: set[int] = set()
    for s in statements:
        for i in held_reads([s], have):
            body.append(w.load(i))
            have.add(i)
        cond = w.condition(s)
        stores = [w.store(o) for o in s.stores]
        if cond is None:
            body += w.compute(s) + stores
        else:  # held unless recomputed: defined on both paths
            body += [w.load(o) for o in s.outs if o not in have]
            body += [f"if {cond}:", *_indent(w.compute(s) + stores)]
        have.update(s.outs)
    return w.unpack(params_used(statements)) + body


def _straight_body(w: _Writer, statements: list[Statement],
                   store: bool) -> tuple[list[str], set[int]]:
    """Unconditional statements, reading what they do not compute from the buffer."""
    body: list[str] = []
    have: set[int] = set()
    for s in statements:
        for i in held_reads([s], have):
            body.append(w.load(i))
            have.add(i)
        body += w.compute(s) + ([w.store(o) for o in s.stores] if store else [])
        have.update(s.outs)
    return body, have


def _derivative_lines(w: _Writer, have: set[int]) -> list[str]:
    lines = [w.load(i) for i in held_reads(list(w.p.derivatives), have)]
    for c in w.p.derivatives:
        assert c.state is not None
        lines += [f"d = {w.call(c)}", f"for i in range({c.state.stop - c.state.start}):",
                  f"    dx[{c.state.start} + i] = d[i]"]
    return lines


def _rhs_body(w: _Writer, rates: tuple[Rate, ...], store: bool) -> list[str]:
    statements = [s for s in w.p.evaluation if s.rate in rates]
    body, have = _straight_body(w, statements, store)
    body += _derivative_lines(w, have)
    return w.unpack(params_used(statements + list(w.p.derivatives))) + body


def _update_body(w: _Writer) -> list[str]:
    ups = list(w.p.updates)
    body = w.unpack(params_used(ups)) + [w.load(i) for i in held_reads(ups)]
    for c in ups:
        assert c.state is not None
        n = c.state.stop - c.state.start
        body += [f"if fired[{c.clock}]:", f"    d = {w.call(c)}", f"    for i in range({n}):",
                 f"        xd_new[{c.state.start} + i] = d[i]"]
    return body


def _crossings_body(w: _Writer) -> list[str]:
    calls = [c.call for c in w.p.crossings]
    body = w.unpack(params_used(calls)) + [w.load(i) for i in held_reads(calls)]
    for c in w.p.crossings:
        body += [f"c = {w.call(c.call)}", f"for i in range({c.count}):",
                 f"    g[{c.offset} + i] = c[i]"]
    return body


def _fire_body(w: _Writer) -> list[str]:
    handlers = [c.handler for c in w.p.crossings if c.handler is not None]
    body = ["stop = False"]
    body += w.unpack(params_used(handlers)) + [w.load(i) for i in held_reads(handlers)]
    for c in w.p.crossings:
        if c.stops:
            body += [f"for i in range({c.count}):", f"    if mask[{c.offset} + i]:",
                     "        stop = True"]
        h = c.handler
        if h is not None:
            assert h.state is not None
            target = "xd_new" if h.state.vector == "xd" else "x_new"
            body += [f"for i in range({c.count}):", f"    if mask[{c.offset} + i]:",
                     f"        d = {w.call(h)[:-1]}, i)",
                     f"        for j in range({h.state.stop - h.state.start}):",
                     f"            {target}[{h.state.start} + j] = d[j]"]
    return [*body, "return stop"]


def render(program: Program, layout: ParamLayout, method: Method) -> str:
    """The source of the generated module of ``program`` integrated with ``method``."""
    w = _Writer(program, layout)
    head = ["# generated by blocksim for a diagram of this structure; do not edit",
            "import numpy as np", "from numba import njit", "",
            "from blocksim.engine.compiled.loop import store"]
    head += [f"from {m} import {a} as {w.kernel_alias[(m, a)]}" for m, a in program.kernels]
    if program.loops:  # algebraic loops: their code links lin_solve (compiled/loop_code.py)
        head.append("from blocksim.engine.compiled.loop_code import lin_solve")
    for m in sorted({m for m, _ in program.kernels} | set(LOOP_MODULES) |
                    ({"blocksim.engine.compiled.loop_code"} if program.loops else set())):
        head.append(f"# source {m}: {fingerprint(m)}")
    parts = ["\n".join(head),
             f"NX = {program.nx}\nNXD = {program.nxd}\nNSIG = {program.nsig}\n"
             f"NZ = {len(program.directions)}\nNUPDATES = {len(program.updates)}\n"
             f"METHOD = {int(method)}  # {method.name}\n"
             f"DIRECTIONS = {program.directions!r}\nSTOP_MASK = {program.stop_mask!r}\n"
             "_EMPTY = np.zeros(0)",
             _function("evaluate(t, x, xd, pv, pi, sig, mode, fired)",
                       _evaluate_body(w, program.evaluation)),
             _function("rhs(t, x, xd, pv, pi, sig, dx)", _rhs_body(w, (Rate.MINOR,), False)),
             _function("rhs_record(t, x, xd, pv, pi, sig, dx)",
                       _rhs_body(w, (Rate.MINOR, Rate.CONTINUOUS), True)),
             _function("update(t, x, xd, pv, pi, sig, fired, xd_new)", _update_body(w)),
             _function("crossings(t, x, xd, pv, pi, sig, g)", _crossings_body(w)),
             _function("fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new)", _fire_body(w)),
             "# ---- the loop: blocksim/engine/compiled/loop_template.py ----\n" + loop_source()]
    return "\n\n".join(p.rstrip("\n") + "\n" for p in parts)


def source_hash(src: str) -> str:
    """A short stable name for a generated module."""
    return hashlib.sha256(src.encode()).hexdigest()[:20]
