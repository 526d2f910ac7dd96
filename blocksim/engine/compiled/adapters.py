"""Block entries of the data-wired tier: one small compiled adapter per block *form*.

An adapter is a ``numba.cfunc`` with the one entry signature of
:mod:`blocksim.engine.compiled.entry`. It reads the block's state, inputs and parameters from
memory at the offsets its wiring row gives (:func:`meta_row`), calls the block's kernels (the
same ones, with the same argument types, as the fused tier: a C-contiguous state slice or the
read-only empty state, floats for scalar signals, C-contiguous arrays otherwise, the parameter
tuple rebuilt from ``pv``/``pi``), and writes the outputs back.

Nothing in an adapter depends on where a block sits in a diagram, nor on the sizes of its
signals: only on its *form* (:class:`Form`) — its kernels, whether it has a state, the rank of
each input and output and the kinds and ranks of its parameters. A ``Gain`` on a scalar has
one adapter for every diagram that ever uses one, a ``Gain`` on vectors of any length another.
Each adapter is a generated module written once to the cache folder and compiled once per
installation (numba caches it next to it); a diagram whose blocks' forms have been seen before
compiles nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from blocksim.engine.clock import Clock
from blocksim.engine.compiled.entry import kernel_address
from blocksim.engine.compiled.ir import kernel_ref
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.compiled.modules import load_source
from blocksim.engine.compiled.render import fingerprint
from blocksim.engine.compiled.warmup import KINDS, param_item_type, rank_type, state_type

#: modules whose code every adapter inlines: their fingerprints go into its source
ADAPTER_MODULES = ("blocksim.engine.compiled.entry",)
#: the block families whose kernels are linked into their entries (small: inlined, a few ns
#: a call); the others (arms, vehicles and estimators, vision, multirotors, floating bases,
#: planners) are called through their compiled code's address, so that compiling their entry
#: does not optimise and generate their large kernels' machine code once more (an EKF entry:
#: 2-3 s linked, a fraction of a second by address)
LINKED_FAMILIES = tuple(f"blocksim.blocks.{f}." for f in (
    "math", "sources", "continuous", "discrete", "nonlinear", "routing", "lookup", "events",
    "sinks"))


@dataclass(frozen=True)
class Form:
    """What an adapter depends on: the kernels it calls (``(module, attribute)`` or None, in
    the order of :data:`KINDS`), whether the block has a state, the rank of each input and of
    each output and ``(kind, rank)`` of each parameter
    (kinds as in :class:`~blocksim.engine.compiled.params.ParamLayout`)."""

    kernels: tuple[tuple[str, str] | None, ...]
    has_state: bool
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    params: tuple[tuple[str, int], ...]
    linked: bool = True  # the kernels' code is linked into (and inlined in) the entry

    @property
    def name(self) -> str:
        text = repr((self.kernels, self.has_state, self.inputs, self.outputs, self.params,
                     self.linked))
        kern = "_".join(r[1] for r in self.kernels if r is not None)[:40]
        return f"blocksim_entry_{kern}_{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def form_of(e: Any, kern: Kernels, items: tuple[tuple[str, int, tuple[int, ...]], ...],
            shapes: list[tuple[int, ...]]) -> Form:
    """The form of plan entry ``e`` with kernels ``kern``, parameter layout ``items`` and the
    plan's signal ``shapes``: only the kernels a compiled run calls (as the fused tier)."""
    has_state = e.states.stop > e.states.start
    crosses = bool(e.block.crossing_directions)
    wanted = {"output": bool(e.out_slots) and kern.output is not None,
              "deriv": has_state and not e.discrete,
              "update": has_state and e.discrete and isinstance(e.rate, Clock),
              "crossings": crosses,
              "on_event": crosses and has_state}
    refs = tuple(kernel_ref(getattr(kern, k)) if wanted[k] and getattr(kern, k) is not None
                 else None for k in KINDS)
    outs = tuple(len(shapes[s]) for s in e.out_slots)
    linked = all(ref is None or ref[0].startswith(LINKED_FAMILIES) for ref in refs)
    return Form(refs, has_state, tuple(len(shapes[s]) for s in e.in_slots), outs,
                tuple((kind, len(shape)) for kind, _, shape in items), linked)


def kernel_argtypes(form: Form, kind: str) -> tuple[Any, ...]:
    """The numba argument types with which the entry of ``form`` calls its ``kind`` kernel
    (as the fused tier does: the state slice or the read-only empty state, floats for scalar
    signals and C-contiguous arrays otherwise, the parameter tuple; ``which`` for
    ``on_event``)."""
    from numba import types

    params = types.Tuple(tuple(param_item_type(k, r) for k, r in form.params))
    extra = (types.int64,) if kind == "on_event" else ()
    return (types.float64, state_type(form.has_state), *map(rank_type, form.inputs), params,
            *extra)


def meta_row(e: Any, items: tuple[tuple[str, int, tuple[int, ...]], ...],
             starts: list[int], shapes: list[tuple[int, ...]],
             stores: tuple[int, ...] | None) -> list[Any]:
    """The wiring row of entry ``e`` that its adapter reads: ``[nx, per input: offset in sig
    (and its dimensions when an array), per output: offset in sig or -1 (not stored here), per
    parameter: offset in pv (and its dimensions when an array) or ``("p", offset)`` among the
    block int parameters (where those start in ``pi`` is known once the program is laid
    out)]``. ``stores`` are the output slots this statement writes (None: all)."""
    row = [e.states.stop - e.states.start]
    for s in e.in_slots:
        row += [starts[s], *shapes[s]]
    for s in e.out_slots:
        row.append(starts[s] if stores is None or s in stores else -1)
    for kind, start, shape in items:
        row += [start, *shape] if kind in "af" else [("p", start)]
    return row


def _read(kind: str, rank: int, at: int, base: str) -> tuple[str, int]:
    """Code reading one value whose offset is at ``meta[at]`` (and dims after it)."""
    off = f"load_i8(meta + {8 * at})"
    if rank == 0:
        value = {"f": f"load_f8({base} + 8 * {off})", "i": f"load_i8({base} + 8 * {off})",
                 "b": f"load_i8({base} + 8 * {off}) != 0",
                 "u": f"np.uint64(load_i8({base} + 8 * {off}))"}[kind]
        return value, at + 1
    dims = ", ".join(f"load_i8(meta + {8 * (at + 1 + d)})" for d in range(rank))
    return f"carray(f8_pointer({base} + 8 * {off}), ({dims},))", at + 1 + rank


def render_adapter(form: Form) -> str:
    """The source of the adapter module of ``form``."""
    aliases = {kind: f"k_{kind}" for kind, ref in zip(KINDS, form.kernels) if ref is not None}
    head = ["# generated by blocksim: the entry of one block form; do not edit",
            "import numpy as np", "from numba import carray, cfunc", "",
            "from blocksim.engine.compiled.entry import ENTRY_SIGNATURE, call_kernel, "
            "f8_pointer, load_f8, load_i8, store_f8"]
    head += [f"from {ref[0]} import {ref[1]} as {aliases[kind]}"
             for kind, ref in zip(KINDS, form.kernels) if ref is not None]
    for m in sorted({ref[0] for ref in form.kernels if ref is not None} | set(ADAPTER_MODULES)):
        head.append(f"# source {m}: {fingerprint(m)}")
    head += ["", "_EMPTY = np.zeros(0)", ""]
    body = ["nx = load_i8(meta)",
            "x = carray(f8_pointer(state), (nx,))" if form.has_state else "x = _EMPTY"]
    at = 1
    ins = []
    for j, rank in enumerate(form.inputs):
        code, at = _read("f", rank, at, "sig")
        body.append(f"u{j} = {code}")
        ins.append(f"u{j}")
    out_at = at
    at += len(form.outputs)
    parts = []
    for j, (kind, rank) in enumerate(form.params):
        code, at = _read(kind, rank, at, "pv" if kind in "af" else "pi")
        body.append(f"p{j} = {code}")
        parts.append(f"p{j}")
    body.append("p = (" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
                if parts else "p = ()")
    args = ", ".join(["t", "x", *ins, "p"])

    def call(kind: str, extra: str = "") -> str:
        """The kernel call: direct (linked) or by the address the entry gets in ``op``."""
        if form.linked:
            return f"k_{kind}({args}{extra})"
        return f"call_kernel(k_{kind}, op, {args}{extra})"

    bodies: dict[str, list[str]] = {}
    if "output" in aliases:
        outs = ", ".join(f"y{j}" for j in range(len(form.outputs)))
        lines = [f"{outs} = {call('output')}"]
        for j, rank in enumerate(form.outputs):
            lines.append(f"o = load_i8(meta + {8 * (out_at + j)})")
            if rank == 0:
                lines += ["if o >= 0:", f"    store_f8(sig + 8 * o, y{j})"]
            else:
                lines += ["if o >= 0:", f"    v = np.ravel(y{j})", "    for i in range(v.size):",
                          "        store_f8(sig + 8 * (o + i), v[i])"]
        bodies["output"] = lines
    for kind in ("deriv", "update"):
        if kind in aliases:
            bodies[kind] = [f"d = {call(kind)}", "for i in range(nx):",
                            "    store_f8(out + 8 * i, d[i])"]
    if "crossings" in aliases:
        bodies["crossings"] = [f"c = {call('crossings')}", "for i in range(which):",
                               "    store_f8(out + 8 * i, c[i])"]
    if "on_event" in aliases:
        bodies["on_event"] = [f"d = {call('on_event', ', which')}", "for i in range(nx):",
                              "    store_f8(out + 8 * i, d[i])"]
    fns = []
    for kind, lines in bodies.items():
        fns += ["", "@cfunc(ENTRY_SIGNATURE, cache=True, error_model=\"numpy\")",
                f"def entry_{kind}(op, which, t, state, sig, pv, pi, meta, out):",
                *("    " + ln for ln in body),
                "    try:", *("        " + ln for ln in lines),
                "    except Exception:", "        return 1", "    return 0"]
    return "\n".join(head + fns) + "\n"


@dataclass(frozen=True)
class Adapter:
    """A loaded adapter: its form, its module's name and the address of the entry of each
    kernel kind it calls (``{"output": address, "deriv": ...}``)."""

    form: Form
    module: str
    addresses: dict[str, int]
    #: per kernel kind, the address of the kernel's compiled code the entry receives in
    #: ``op`` (0 for a linked form: its entries call their kernels directly)
    kernel_addresses: dict[str, int]


_ADAPTERS: dict[Form, Adapter] = {}


def adapter(form: Form) -> Adapter:
    """The adapter of ``form``, loaded (compiled on first use per installation)."""
    found = _ADAPTERS.get(form)
    if found is None:
        module = load_source(form.name, render_adapter(form))
        kinds = [kind for kind, ref in zip(KINDS, form.kernels) if ref is not None]
        found = Adapter(form, module.__name__,
                        {kind: int(getattr(module, f"entry_{kind}").address) for kind in kinds},
                        {kind: 0 if form.linked else kernel_address(
                            getattr(module, f"k_{kind}"), kernel_argtypes(form, kind))
                         for kind in kinds})
        _ADAPTERS[form] = found
    return found


__all__ = ["ADAPTER_MODULES", "KINDS", "LINKED_FAMILIES", "Adapter", "Form", "adapter",
           "form_of", "kernel_argtypes", "meta_row", "render_adapter"]
