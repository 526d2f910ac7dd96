"""Generate the source of one numba module per compiled plan.

The module holds, for one plan:

* ``evaluate(t, x, xd, P, sig, mode, fired)`` — every output in evaluation order, each signal in
  a local variable and stored in the flat signal buffer ``sig``. ``mode`` selects what runs:
  0 inside solver steps (only blocks that feed derivatives), 1 every continuous-rate block
  (recording), 2 continuous-rate blocks and the blocks on ``fired`` clocks (a sample hit),
  3 every block (t = 0). Discrete and constant signals not recomputed are read back from
  ``sig`` (held);
* ``rhs(t, x, xd, P, sig, dx)`` — mode-0 evaluation then every continuous block's derivative;
* ``update(t, x, xd, P, sig, fired, xd_new)`` — discrete updates of the blocks on fired clocks;
* the integration loop (:mod:`blocksim.engine.compiled.loops`), pasted in so that the whole
  module is compiled and cached together.

Kernels are imported by module and attribute name, parameters travel in the tuple ``P`` (one
entry per block), so a parameter sweep reuses the compiled code.
"""

from __future__ import annotations

import hashlib
import importlib
import math
from dataclasses import dataclass
from typing import Any

from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.compiled.loops import LOOPS_SOURCE
from blocksim.engine.plan import Plan


@dataclass(frozen=True)
class Layout:
    """Where each signal lives in the flat buffer ``sig``: ``(start, size, shape)``."""

    slots: tuple[tuple[int, int, tuple[int, ...]], ...]
    size: int


def signal_layout(plan: Plan) -> Layout:
    """Flat positions of every signal (a scalar takes one element)."""
    slots, start = [], 0
    for shape in plan.signal_shapes:
        n = int(math.prod(shape)) if shape else 1
        slots.append((start, n, tuple(shape)))
        start += n
    return Layout(tuple(slots), start)


def _kernel_ref(fn: Any) -> tuple[str, str]:
    """(module, attribute) under which the numba dispatcher ``fn`` can be imported."""
    module_name = getattr(fn, "__module__", None) or fn.py_func.__module__
    module = importlib.import_module(module_name)
    for attr, value in vars(module).items():
        if value is fn:
            return module_name, attr
    raise ValueError(f"kernel {fn!r} is not a module-level attribute of {module_name}; "
                     f"kernels must be defined at module level to be imported and cached")


def generate(plan: Plan, kernels: list[Kernels | None], layout: Layout) -> str:
    """The module source for ``plan`` (kernels[k] belongs to plan.entries[k])."""
    imports: dict[tuple[str, str], str] = {}

    def ref(fn: Any) -> str:
        key = _kernel_ref(fn)
        if key not in imports:
            imports[key] = f"_k{len(imports)}"
        return imports[key]

    clock_index = {c: i for i, c in enumerate(plan.clocks)}
    needed = _minor_steps(plan)
    lines_eval: list[str] = []
    for si, step in enumerate(plan.order):
        k = step.entry
        e = plan.entries[k]
        kern = kernels[k]
        if kern is None or kern.output is None or not e.out_slots:
            continue
        outs = [f"s{e.out_slots[p]}" for p in range(len(e.out_slots))]
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"P[{k}]"])
        call = f"{ref(kern.output)}({args})"
        if len(outs) == 1:
            assign = f"{outs[0]} = {call}"
        else:
            assign = f"{', '.join(outs)} = {call}"
        if e.rate == "continuous":
            cond = None if si in needed else "mode >= 1"
        elif isinstance(e.rate, Clock):
            cond = f"mode == 3 or (mode == 2 and fired[{clock_index[e.rate]}])"
        else:  # constant
            cond = "mode == 3"
        stores = [_store(e.out_slots[p], layout) for p in step.ports]
        if cond is None:
            lines_eval.append(f"    {assign}")
            lines_eval += [f"    {s}" for s in stores]
        else:
            lines_eval += [f"    {_load(e.out_slots[p], layout)}" for p in step.ports]
            lines_eval.append(f"    if {cond}:")
            lines_eval.append(f"        {assign}")
            lines_eval += [f"        {s}" for s in stores]
    body_eval = lines_eval or ["    pass"]

    lines_rhs = []
    for k, e in enumerate(plan.entries):
        n = e.states.stop - e.states.start
        if e.discrete or n == 0:
            continue
        kern = kernels[k]
        assert kern is not None and kern.deriv is not None
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"P[{k}]"])
        lines_rhs.append(f"    d = {ref(kern.deriv)}({args})")
        lines_rhs.append(f"    for i in range({n}):")
        lines_rhs.append(f"        dx[{e.states.start} + i] = d[i]")

    lines_upd = []
    for k, e in enumerate(plan.entries):
        n = e.states.stop - e.states.start
        if not (e.discrete and isinstance(e.rate, Clock)) or n == 0:
            continue
        kern = kernels[k]
        assert kern is not None and kern.update is not None
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"P[{k}]"])
        lines_upd.append(f"    if fired[{clock_index[e.rate]}]:")
        lines_upd.append(f"        d = {ref(kern.update)}({args})")
        lines_upd.append(f"        for i in range({n}):")
        lines_upd.append(f"            xd_new[{e.states.start} + i] = d[i]")

    loads_all = [f"    {_load(s, layout)}" for s in range(len(plan.signal_names))]
    head = [f"# generated by blocksim for diagram {plan.name!r}; do not edit",
            "import math", "import numpy as np", "from numba import njit"]
    head += [f"from {m} import {a} as {alias}" for (m, a), alias in imports.items()]
    src = "\n".join(head) + "\n\n\n"
    src += "@njit(cache=True)\ndef evaluate(t, x, xd, P, sig, mode, fired):\n"
    src += "\n".join(body_eval) + "\n\n\n"
    src += "@njit(cache=True)\ndef rhs(t, x, xd, P, sig, dx):\n    mode = 0\n    fired = None\n"
    src += "\n".join(_inline_eval(body_eval, needed_only=True)) + "\n"
    src += "\n".join(lines_rhs or ["    pass"]) + "\n\n\n"
    src += "@njit(cache=True)\ndef update(t, x, xd, P, sig, fired, xd_new):\n"
    src += "\n".join(loads_all or ["    pass"]) + "\n"
    src += "\n".join(lines_upd or ["    pass"]) + "\n\n\n"
    src += LOOPS_SOURCE
    return src


def _inline_eval(body: list[str], needed_only: bool) -> list[str]:
    """The mode-0 part of the evaluation body (conditional blocks become loads)."""
    out, skip = [], False
    for line in body:
        if line.startswith("    if "):
            skip = True
            continue
        if skip and line.startswith("        "):
            continue
        skip = False
        out.append(line)
    return out


def _minor_steps(plan: Plan) -> set[int]:
    """Indices into plan.order of the continuous-rate steps that feed derivatives."""
    needed: set[int] = set()
    for e in plan.entries:
        if not e.discrete and e.states.stop > e.states.start:
            needed.update(e.in_slots)
    steps: set[int] = set()
    for si in range(len(plan.order) - 1, -1, -1):
        e = plan.entries[plan.order[si].entry]
        if e.rate != "continuous":
            continue
        if any(e.out_slots[p] in needed for p in plan.order[si].ports):
            steps.add(si)
            needed.update(e.in_slots)
    return steps


def _state_arg(e: Any) -> str:
    a, b = e.states.start, e.states.stop
    return f"{'xd' if e.discrete else 'x'}[{a}:{b}]"


def _store(slot: int, layout: Layout) -> str:
    start, n, shape = layout.slots[slot]
    if not shape:
        return f"sig[{start}] = s{slot}"
    return f"sig[{start}:{start + n}] = np.ravel(s{slot})"


def _load(slot: int, layout: Layout) -> str:
    start, n, shape = layout.slots[slot]
    if not shape:
        return f"s{slot} = sig[{start}]"
    return f"s{slot} = sig[{start}:{start + n}].reshape({shape!r})"


def source_hash(src: str) -> str:
    """A short stable name for a generated module."""
    return hashlib.sha256(src.encode()).hexdigest()[:20]
