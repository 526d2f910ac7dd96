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
* ``crossings`` and ``fire`` for zero crossings and their handlers.

Each is compiled with a fixed signature (:mod:`blocksim.engine.compiled.signatures`) so the
shared integration loop takes them as first-class functions. Kernels are imported by module and
attribute name. Block parameters are packed into two flat vectors, ``pv`` (float64: floats and
float arrays) and ``pi`` (int64: ints, bools, uint64 seeds by bit pattern), and each function
rebuilds a block's parameter tuple from them, so a parameter sweep reuses the compiled code.
"""

from __future__ import annotations

import hashlib
import importlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.clock import Clock
from blocksim.engine.compiled.fixed_loop import FIXED_LOOP_SOURCE
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.plan import Plan


@dataclass(frozen=True)
class ParamLayout:
    """How each block's parameter tuple is packed into ``pv``/``pi``: per block, a tuple of
    ``(kind, start, shape)`` with kind "f" (float in pv), "a" (float array in pv), "i" (int in
    pi), "b" (bool in pi) or "u" (uint64 in pi)."""

    items: tuple[tuple[tuple[str, int, tuple[int, ...]], ...], ...]
    nv: int
    ni: int


def _kind(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, np.uint64):
        return "u"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, (float, np.floating)):
        return "f"
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return "a"
    raise TypeError(f"kernel parameter {value!r} ({type(value).__name__}) is not a float, int, "
                    f"bool, numpy.uint64 or float64 array")


def param_layout(params: list[tuple[Any, ...]]) -> ParamLayout:
    """The packing of every block's parameter tuple."""
    items, nv, ni = [], 0, 0
    for tup in params:
        block_items = []
        for value in tup:
            kind = _kind(value)
            if kind == "a":
                block_items.append((kind, nv, tuple(value.shape)))
                nv += int(value.size)
            elif kind == "f":
                block_items.append((kind, nv, ()))
                nv += 1
            else:
                block_items.append((kind, ni, ()))
                ni += 1
        items.append(tuple(block_items))
    return ParamLayout(tuple(items), nv, ni)


def pack_params(params: list[tuple[Any, ...]], layout: ParamLayout) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """The flat (pv, pi) vectors of ``params`` (same structure as ``layout``)."""
    pv = np.zeros(max(layout.nv, 1))
    pi = np.zeros(max(layout.ni, 1), dtype=np.int64)
    for tup, block_items in zip(params, layout.items):
        pack_block(tup, block_items, pv, pi)
    return pv, pi


def pack_block(tup: tuple[Any, ...], block_items: tuple[tuple[str, int, tuple[int, ...]], ...],
               pv: np.ndarray, pi: np.ndarray) -> None:
    """Write one block's parameter tuple into its slots of ``pv``/``pi`` (in place)."""
    if len(tup) != len(block_items):
        raise ValueError("parameter structure differs from the compiled layout")
    for value, (kind, start, shape) in zip(tup, block_items):
        if _kind(value) != kind or (kind == "a" and tuple(value.shape) != shape):
            raise ValueError(f"parameter {value!r} does not match the compiled layout "
                             f"({kind}, shape {shape})")
        if kind == "a":
            pv[start:start + value.size] = value.ravel()
        elif kind == "f":
            pv[start] = value
        elif kind == "u":
            pi[start] = np.array([value], dtype=np.uint64).view(np.int64)[0]
        else:
            pi[start] = int(value)


@dataclass(frozen=True, eq=False)
class Inline:
    """Parameter values to write into the generated source: the packed ``pv``/``pi`` and, per
    element, whether it stays tunable (read at run time, e.g. the parameters an ensemble
    varies)."""

    pv: np.ndarray
    pi: np.ndarray
    tunable_v: np.ndarray
    tunable_i: np.ndarray


def _literal(value: float) -> str:
    """A float as exact Python source (``repr`` round-trips; non-finite values by name)."""
    if math.isfinite(value):
        return repr(float(value))
    return "math.nan" if math.isnan(value) else ("math.inf" if value > 0 else "-math.inf")


def _inline_literal(kind: str, start: int, values: tuple[np.ndarray, np.ndarray]) -> str:
    """Source of one scalar parameter of kind f/i/b/u at ``start`` in the packed values."""
    pv, pi = values
    if kind == "f":
        return _literal(pv[start])
    if kind == "i":
        return str(int(pi[start]))
    if kind == "b":
        return str(bool(pi[start] != 0))
    return f"np.uint64({int(pi[start:start + 1].view(np.uint64)[0])})"


def _unpack(k: int, layout: ParamLayout, values: Inline | None = None) -> str:
    """Source of block ``k``'s parameter tuple: read from ``pv``/``pi`` (tunable), or, given
    the packed ``values``, scalars written in as literals (inlined: numba folds them into the
    kernels) except those marked tunable there; arrays are always read from ``pv``."""
    parts = []
    for kind, start, shape in layout.items[k]:
        if kind == "a":
            n = int(math.prod(shape)) if shape else 1
            parts.append(f"pv[{start}:{start + n}].reshape({shape!r})")
        elif values is not None and not (values.tunable_v[start] if kind == "f"
                                         else values.tunable_i[start]):
            parts.append(_inline_literal(kind, start, (values.pv, values.pi)))
        elif kind == "f":
            parts.append(f"pv[{start}]")
        elif kind == "i":
            parts.append(f"pi[{start}]")
        elif kind == "b":
            parts.append(f"pi[{start}] != 0")
        else:
            parts.append(f"np.uint64(pi[{start}])")
    if not parts:
        return "()"
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


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


def generate(plan: Plan, kernels: list[Kernels | None], layout: Layout,
             params: ParamLayout, specialized: bool = False,
             inline: Inline | None = None) -> str:
    """The module source for ``plan`` (kernels[k] belongs to plan.entries[k]); ``inline``
    writes the scalar parameters it does not mark tunable into the source as literals
    (Simulink's inlined parameters: fastest, but other values need another module)."""
    imports: dict[tuple[str, str], str] = {}

    def ref(fn: Any) -> str:
        key = _kernel_ref(fn)
        if key not in imports:
            imports[key] = f"_k{len(imports)}"
        return imports[key]

    clock_index = {c: i for i, c in enumerate(plan.clocks)}
    needed = _minor_steps(plan)
    lines_eval: list[str] = []
    assigned: set[int] = set()
    for si, step in enumerate(plan.order):
        k = step.entry
        e = plan.entries[k]
        kern = kernels[k]
        if kern is None or kern.output is None or not e.out_slots:
            continue
        outs = [f"s{e.out_slots[p]}" for p in range(len(e.out_slots))]
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"p{k}"])
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
        # inputs not computed yet feed outputs without feedthrough: read their held value
        for s in e.in_slots:
            if s not in assigned:
                lines_eval.append(f"    {_load(s, layout)}")
                assigned.add(s)
        assigned.update(e.out_slots)
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
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"p{k}"])
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
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"p{k}"])
        lines_upd.append(f"    if fired[{clock_index[e.rate]}]:")
        lines_upd.append(f"        d = {ref(kern.update)}({args})")
        lines_upd.append(f"        for i in range({n}):")
        lines_upd.append(f"            xd_new[{e.states.start} + i] = d[i]")

    lines_zc, lines_fire, stop_mask, directions = [], [], [], []
    for k, e in enumerate(plan.entries):
        dirs = tuple(int(v) for v in e.block.crossing_directions)
        if not dirs:
            continue
        kern = kernels[k]
        assert kern is not None and kern.crossings is not None
        off = len(directions)
        directions += dirs
        stop_mask += [bool(e.block.stops_simulation)] * len(dirs)
        args = ", ".join(["t", _state_arg(e)] + [f"s{s}" for s in e.in_slots] + [f"p{k}"])
        lines_zc.append(f"    c = {ref(kern.crossings)}({args})")
        lines_zc.append(f"    for i in range({len(dirs)}):")
        lines_zc.append(f"        g[{off} + i] = c[i]")
        n = e.states.stop - e.states.start
        if e.block.stops_simulation:
            lines_fire.append(f"    for i in range({len(dirs)}):")
            lines_fire.append(f"        if mask[{off} + i]:")
            lines_fire.append("            stop = True")
        if kern.on_event is not None and n:
            target = "xd_new" if e.discrete else "x_new"
            lines_fire.append(f"    for i in range({len(dirs)}):")
            lines_fire.append(f"        if mask[{off} + i]:")
            lines_fire.append(f"            d = {ref(kern.on_event)}({args}, i)")
            lines_fire.append(f"            for j in range({n}):")
            lines_fire.append(f"                {target}[{e.states.start} + j] = d[j]")

    loads_all = [f"    {_load(s, layout)}" for s in range(len(plan.signal_names))]

    def unpack(lines: list[str]) -> list[str]:
        used = sorted({int(tok[1:]) for line in lines for tok in
                       line.replace("(", " ").replace(")", " ").replace(",", " ").split()
                       if tok.startswith("p") and tok[1:].isdigit()})
        return [f"    p{k} = {_unpack(k, params, inline)}" for k in used]

    # inside solver stages nothing reads the signal buffer after rhs (every reader evaluates
    # first), so rhs keeps its signals in locals and stores nothing
    rhs_eval = [line for line in _inline_eval(body_eval, needed_only=True)
                if not line.lstrip().startswith("sig[")]
    head = [f"# generated by blocksim for diagram {plan.name!r}; do not edit",
            "import math", "import numpy as np", "from numba import njit",
            "from blocksim.engine.compiled.signatures import (CROSSINGS, EVALUATE, FIRE, RHS, "
            "UPDATE)"]
    head += [f"from {m} import {a} as {alias}" for (m, a), alias in imports.items()]
    # numba's cache does not notice edits of the kernels' modules: fingerprint them here, so
    # an edited kernel gives another generated module (and a fresh compile)
    for m in sorted({m for m, _ in imports}):
        source = Path(importlib.import_module(m).__file__ or "").read_bytes()
        head.append(f"# kernels {m}: {hashlib.sha256(source).hexdigest()[:16]}")
    src = "\n".join(head) + "\n\n_EMPTY = np.zeros(0)\n\n\n"
    src += "@njit(EVALUATE, cache=True)\ndef evaluate(t, x, xd, pv, pi, sig, mode, fired):\n"
    src += "\n".join(unpack(body_eval) + body_eval) + "\n\n\n"
    src += "@njit(RHS, cache=True)\ndef rhs(t, x, xd, pv, pi, sig, dx):\n"
    src += "\n".join(unpack(rhs_eval + lines_rhs) + rhs_eval) + "\n"
    src += "\n".join(lines_rhs or ["    pass"]) + "\n\n\n"
    src += "@njit(UPDATE, cache=True)\ndef update(t, x, xd, pv, pi, sig, fired, xd_new):\n"
    src += "\n".join(unpack(lines_upd) + loads_all or ["    pass"]) + "\n"
    src += "\n".join(lines_upd or ["    pass"]) + "\n\n\n"
    src += f"STOP_MASK = np.array({stop_mask!r} or [False], dtype=np.bool_)\n"
    src += f"DIRECTIONS = np.array({directions!r}, dtype=np.int64)\n\n\n"
    src += "@njit(CROSSINGS, cache=True)\ndef crossings(t, x, xd, pv, pi, sig, g):\n"
    src += "\n".join(unpack(lines_zc) + loads_all or ["    pass"]) + "\n"
    src += "\n".join(lines_zc or ["    pass"]) + "\n\n\n"
    src += "@njit(FIRE, cache=True)\ndef fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new):\n"
    src += "    stop = False\n"
    fire_pre = unpack(lines_fire) + loads_all if lines_fire else []
    src += "\n".join(fire_pre + lines_fire) + "\n" if lines_fire else ""
    src += "    return stop\n"
    if specialized:
        src += (f"\n\nfrom numba import prange\n\nNX = {plan.nx}\nNSIG = {max(layout.size, 1)}\n"
                "_NONE_FIRED = np.zeros(1, dtype=np.bool_)\n\n\n"
                "@njit(cache=True)\ndef rhs_record(t, x, xd, pv, pi, sig, dx):\n"
                "    mode = 1  # a constant: numba drops the other modes' branches\n"
                "    fired = _NONE_FIRED\n"
                + "\n".join(unpack(body_eval + lines_rhs) + body_eval) + "\n"
                + "\n".join(lines_rhs or ["    pass"]) + "\n"
                + FIXED_LOOP_SOURCE + SPECIALIZED_SOURCE)
    return src


#: appended to a generated module when asked for speed (after FIXED_LOOP_SOURCE, which serves
#: fixed-step runs without zero crossings and is cached): the general loop specialised for this
#: diagram's functions (direct, inlinable calls; compiled per diagram and per process: numba
#: does not cache a function that receives dispatchers as arguments)
SPECIALIZED_SOURCE = """

from blocksim.engine.compiled.batch_loop import batch_impl
from blocksim.engine.compiled.loops import run_impl


@njit(cache=True)
def run_fast(pv, pi, x0, xd0, sig0, times, fired_rows, method, dt, rtol, atol, max_step, cap,
             record_steps, directions, stop_mask, event_tol, zeno_dt, zeno_count):
    return run_impl(evaluate, rhs, update, crossings, fire, pv, pi, x0, xd0, sig0, times,
                    fired_rows, method, dt, rtol, atol, max_step, cap, record_steps,
                    directions, stop_mask, event_tol, zeno_dt, zeno_count)


@njit(cache=True)
def batch_fast(PV, PI, X0, XD0, sig0, times, fired_rows, method, dt, rtol, atol, max_step,
               directions, stop_mask, event_tol, zeno_dt, zeno_count):
    return batch_impl(evaluate, rhs, update, crossings, fire, PV, PI, X0, XD0, sig0, times,
                      fired_rows, method, dt, rtol, atol, max_step, directions, stop_mask,
                      event_tol, zeno_dt, zeno_count)
"""


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
    if a == b:
        return "_EMPTY"  # a constant: no view to create (and reference-count) per call
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
