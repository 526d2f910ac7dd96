"""Compiling block kernels ahead of any run (what ``blocksim warmup`` does).

A compiled run compiles (or loads from numba's disk cache) every kernel its diagram calls, with
the argument types the generated code passes. :func:`precompile` does that for the blocks of a
compiled :class:`~blocksim.engine.plan.Plan` without generating, compiling or running a diagram
module: it derives each kernel's signature from the plan (:func:`kernel_signatures`) and calls
the numba dispatcher's ``compile`` with it, so that a later run of any diagram that passes the
same types to that kernel compiles nothing of it.

The types are those of :mod:`blocksim.engine.compiled.render`'s generated code:

* ``t``: float64;
* the state: ``x[a:b]`` / ``xd[a:b]``, a slice of a C-contiguous float64 vector (a C-contiguous
  1-D array), or, for a block without state, the module constant ``_EMPTY = np.zeros(0)`` (numba
  types a global array as a read-only C array);
* the inputs as read from the signal buffer: float64 for a scalar signal,
  ``sig[a:b].reshape(shape)`` (a C-contiguous float64 array of the signal's rank) otherwise;
* the parameter tuple as rebuilt from the flat vectors (:class:`~.params.ParamLayout`): float64,
  int64, boolean (``pi[k] != 0``), uint64 and C-contiguous float64 arrays;
* ``on_event``'s crossing number: int64.

An input computed in the same function by an upstream kernel that returns another array type
(e.g. a non-contiguous view) gives another signature, compiled at the first run that needs it.

The data-wired tier also needs each block *form*'s entry (:mod:`.adapters`) and the loop of
each integration method (:mod:`.wiring`): the command line loads the entries of each sample
plan (:func:`~blocksim.engine.compiled.backend.prepare` on the wired tier) and runs a few tiny
diagrams through every loop function.

The block library and its sample diagrams live above the engine: the command line
(:mod:`blocksim.cli.warmup`) builds them and reports with :class:`WarmupReport`; its
``compiles`` (a :class:`~.compile_watch.CompileWatch` over the whole warmup) give the
compile-cost report.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from numba import types

from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels, kernels_of
from blocksim.engine.compiled.params import param_layout
from blocksim.engine.plan import Plan

#: the kernels of a block, in the order they are compiled
KINDS = ("output", "deriv", "update", "crossings", "on_event")

_F64 = types.float64
_EMPTY_TYPE = types.Array(_F64, 1, "C", readonly=True)
_STATE_TYPE = types.Array(_F64, 1, "C")


_SCALAR_PARAM = {"f": _F64, "i": types.int64, "b": types.boolean, "u": types.uint64}


def state_type(has_state: bool) -> types.Type:
    """How the generated code types a block's state: a C-contiguous slice of the state
    vector, or the read-only empty state of a block without one."""
    return _STATE_TYPE if has_state else _EMPTY_TYPE


def rank_type(rank: int) -> types.Type:
    """float64 for rank 0, a C-contiguous float64 array of that rank otherwise."""
    return _F64 if rank == 0 else types.Array(_F64, rank, "C")


def signal_type(shape: tuple[int, ...]) -> types.Type:
    """How the generated code types a signal read from the buffer: float64 for a scalar,
    a C-contiguous float64 array of the signal's rank otherwise."""
    return rank_type(len(shape))


def param_item_type(kind: str, rank: int) -> types.Type:
    """The type of one parameter of layout ``kind`` (:class:`~.params.ParamLayout`) and
    ``rank`` as rebuilt from ``pv``/``pi``."""
    return rank_type(rank) if kind == "a" else _SCALAR_PARAM[kind]


def params_type(params: tuple[Any, ...]) -> types.Type:
    """The numba type of a block's parameter tuple as the generated code rebuilds it from the
    flat vectors ``pv``/``pi`` (see ``render._Writer.unpack``); a UniTuple when the parts
    are all of one type."""
    return types.Tuple(tuple(param_item_type(kind, len(shape))
                             for kind, _start, shape in param_layout([params]).items[0]))


def _entry(plan: Plan, name: str) -> tuple[int, Any]:
    for k, e in enumerate(plan.entries):
        if e.name == name:
            return k, e
    raise KeyError(f"no block '{name}' in diagram '{plan.name}'")


def kernel_signatures(plan: Plan, name: str, kernels: Kernels | None = None
                      ) -> dict[str, tuple[types.Type, ...]]:
    """The signature with which a compiled run of ``plan`` compiles each kernel of block
    ``name``: ``{"output": (float64, state, *inputs, params), ...}`` (the arguments a variadic
    kernel takes in ``*args`` folded into one tuple, see :func:`fold_star_args`), as numba
    lists them in ``dispatcher.signatures``; only the kernels the run calls (an output kernel
    when the block has outputs, ``deriv``/``update`` for continuous / clocked discrete state,
    ``crossings`` and ``on_event`` for zero crossings)."""
    _, e = _entry(plan, name)
    k = kernels if kernels is not None else kernels_of(e.block)
    if k is None:
        return {}
    has_state = e.states.stop > e.states.start
    state = state_type(has_state)
    ins = tuple(signal_type(tuple(plan.signal_shapes[s])) for s in e.in_slots)
    args = (_F64, state, *ins, params_type(k.params))
    crosses = bool(e.block.crossing_directions)
    wanted = {"output": bool(e.out_slots),
              "deriv": has_state and not e.discrete,
              "update": has_state and e.discrete and isinstance(e.rate, Clock),
              "crossings": crosses,
              "on_event": crosses and has_state}
    out = {}
    for kind in KINDS:
        fn = getattr(k, kind)
        if wanted[kind] and fn is not None:
            out[kind] = fold_star_args(fn, (*args, types.int64) if kind == "on_event" else args)
    return out


def kernel_name(fn: Any) -> str:
    """``module.function`` of a kernel (its Python function's)."""
    py = getattr(fn, "py_func", fn)
    return f"{py.__module__}.{py.__name__}"


def fold_star_args(fn: Any, sig: tuple[types.Type, ...]) -> tuple[types.Type, ...]:
    """The signature numba compiles for a call of ``fn`` with argument types ``sig``: the
    arguments that a variadic kernel (``def k(t, x, *args)``) receives in ``*args`` become one
    ``StarArgTuple`` type, as numba types them at a call from compiled code."""
    params = list(inspect.signature(getattr(fn, "py_func", fn)).parameters.values())
    for i, p in enumerate(params):
        if p.kind is p.VAR_POSITIONAL:
            return (*sig[:i], types.StarArgTuple.from_types(tuple(sig[i:])))
    return sig


def precompile(plan: Plan, name: str) -> list[str]:
    """Compile (or load from numba's cache) every kernel of block ``name`` of ``plan`` with the
    types a compiled run passes; returns the kernels' names (``module.function [kind]``).
    Raises what numba raises when a kernel does not compile for those types."""
    _, e = _entry(plan, name)
    k = kernels_of(e.block)
    done = []
    for kind, sig in kernel_signatures(plan, name, k).items():
        fn = getattr(k, kind)
        fn.compile(sig)
        done.append(f"{kernel_name(fn)} [{kind}]")
    return done


@dataclass
class BlockWarmup:
    """What warming up one block type did.

    ``status`` is "compiled" (every kernel compiled, or loaded from the cache), "skipped" (the
    type has nothing to compile: no kernels, or it takes no part in a compiled run) or "failed"
    (``reason`` says why). ``via`` is "signatures" (kernels compiled directly) or "run" (a tiny
    compiled simulation of the sample diagram compiled them, with its own loop: slower).
    ``entries`` are the modules of the data-wired tier's block entries its sample diagram uses
    (the block's and its ``Constant`` sources'), compiled or loaded.
    """

    type: str
    status: str
    seconds: float = 0.0
    kernels: list[str] = field(default_factory=list)
    reason: str = ""
    via: str = "signatures"
    entries: list[str] = field(default_factory=list)


@dataclass
class WarmupReport:
    """Per block type what was compiled, skipped or failed, and the time it took; the loops
    run (``loops``: one line each, e.g. ``"rk4 run_batch_fixed"``), their time and error; the
    compile watch over the whole warmup (``compiles``, for :meth:`compile_report`)."""

    blocks: list[BlockWarmup]
    seconds: float = 0.0
    loop_seconds: float = 0.0
    loop_error: str = ""
    loops: list[str] = field(default_factory=list)
    compiles: Any = None

    def _with(self, status: str) -> list[BlockWarmup]:
        return [b for b in self.blocks if b.status == status]

    @property
    def compiled(self) -> list[BlockWarmup]:
        return self._with("compiled")

    @property
    def skipped(self) -> list[BlockWarmup]:
        return self._with("skipped")

    @property
    def failed(self) -> list[BlockWarmup]:
        return self._with("failed")

    @property
    def ok(self) -> bool:
        """No kernel or entry failed to compile (and every loop run compiled)."""
        return not self.failed and not self.loop_error

    def summary(self, verbose: bool = False) -> list[str]:
        """Lines for a person: totals, failures with their reasons, skipped types, blocks
        that needed a run; every block type with its time when ``verbose``."""
        nk = sum(len(b.kernels) for b in self.compiled)
        ne = len({m for b in self.blocks for m in b.entries})
        loop = (f" (loops: {len(self.loops)} runs, {self.loop_seconds:.1f} s)"
                if self.loop_seconds else "")
        lines = [f"warmup: {len(self.compiled)} block types compiled ({nk} kernels, {ne} "
                 f"entries), {len(self.skipped)} skipped, {len(self.failed)} failed in "
                 f"{self.seconds:.1f} s{loop}"]
        if verbose:
            lines += [f"  {b.type:<26} {b.status:<8} {b.seconds:6.2f} s  "
                      f"{len(b.kernels)} kernel(s), {len(b.entries)} entries"
                      + (" (via a run)" if b.via == "run" else "") for b in self.compiled]
        ran = [b.type for b in self.compiled if b.via == "run"]
        if ran:
            lines.append(f"  compiled by running a tiny diagram: {', '.join(ran)}")
        if self.skipped:
            lines.append("  skipped (nothing to compile):")
            lines += [f"    {b.type}: {b.reason}" for b in self.skipped]
        return lines + self.failures()

    def compile_report(self, n: int = 25) -> list[str]:
        """The compile-cost report: total and per category (kernels, entries, loops), then the
        ``n`` slowest functions with exclusive seconds, signature count and
        ``module.function`` (:meth:`~.compile_watch.CompileWatch.report`)."""
        if self.compiles is None:
            return ["compile report: not recorded"]
        return self.compiles.report(n)

    def failures(self) -> list[str]:
        """Lines naming each failure and its reason (none when :attr:`ok`)."""
        lines = []
        if self.failed:
            lines.append("  FAILED:")
            lines += [f"    {b.type}: {b.reason}" for b in self.failed]
        if self.loop_error:
            lines.append(f"  FAILED loops: {self.loop_error}")
        return lines


__all__ = ["KINDS", "BlockWarmup", "WarmupReport", "fold_star_args", "kernel_name",
           "kernel_signatures", "params_type", "precompile", "signal_type"]
