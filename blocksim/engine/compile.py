"""Compilation: a :class:`Diagram` becomes an immutable :class:`Plan`, or a DiagramError.

Every check runs and every problem is collected before anything is raised, so the user sees
all of them at once:

1. wire ends resolve to existing blocks and ports (with did-you-mean suggestions);
2. every input is driven exactly once;
3. the *port-level* dependency graph (output -> input along wires, input -> output through
   declared feedthrough) has no cycle: an algebraic loop is printed port by port (or, with
   ``algebraic="solve"``, torn and solved at each evaluation: :mod:`blocksim.engine.algebraic`);
4. a dry run at t = 0 with the initial states infers every signal's shape and checks it against
   declared port shapes, output counts and state-derivative sizes.

Then the evaluation order is fixed (networkx topological sort, stable in the order blocks were
added) and the continuous and discrete states are laid out in one vector each.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.engine import errors
from blocksim.engine.algebraic import (
    ALGEBRAIC,
    loop_components,
    loop_messages,
    loop_rate,
    solve_order,
    torn_seed,
)
from blocksim.engine.block import Block, Port, PortRef, as_ports
from blocksim.engine.clock import EVENT, Clock, TimeBase
from blocksim.engine.diagram import Diagram, End, Wire
from blocksim.engine.errors import LISTED_NAMES, DiagramError, listing, suggest, suggestion_budget
from blocksim.engine.plan import AlgebraicLoop, BlockEntry, Plan, Step
from blocksim.engine.subsystem import Subsystem

if TYPE_CHECKING:
    import networkx as nx


def _ports(block: Block, kind: str) -> tuple[Port, ...]:
    return as_ports(getattr(block, kind), type(block).__name__, kind[:-1])


def _fmt(ports: tuple[Port, ...]) -> str:
    return listing([p.name for p in ports[:LISTED_NAMES + 1]], len(ports))


class _Resolver:
    """Turns wire ends into ``(block name, port index)`` and collects problems."""

    def __init__(self, diagram: Diagram, problems: list[str]):
        self.d = diagram
        self.problems = problems
        self.ins = {n: _ports(b, "inputs") for n, b in diagram.blocks.items()}
        self.outs = {n: _ports(b, "outputs") for n, b in diagram.blocks.items()}
        #: port name -> index per (block, side), made on first use: O(1) per wire end
        self._index: dict[tuple[str, bool], dict[str, int]] = {}

    def port_index(self, bname: str, output: bool) -> dict[str, int]:
        """``{port name: index}`` of the outputs (``output``) or inputs of block ``bname``."""
        key = (bname, output)
        found = self._index.get(key)
        if found is None:
            table = self.outs[bname] if output else self.ins[bname]
            found = self._index[key] = {p.name: k for k, p in enumerate(table)}
        return found

    def end(self, end: End, want: str, wire: Wire) -> tuple[str, int] | None:
        """Resolve one end; ``want`` is ``"output"`` for a source, ``"input"`` for a sink."""
        where = f"wire {_show(wire.src)} -> {_show(wire.dst)} (at {wire.where})"
        if isinstance(end, Block):
            bname, key = end.name, None
            if bname is None or self.d.blocks.get(bname) is not end:
                self.problems.append(f"{where}: block {end!r} was not added to this diagram")
                return None
        elif isinstance(end, PortRef):
            bname, key = end.block.name, end.key
            if bname is None or self.d.blocks.get(bname) is not end.block:
                self.problems.append(f"{where}: block {end.block!r} was not added to this "
                                     f"diagram")
                return None
        elif isinstance(end, tuple):
            bname, key = end
            if bname not in self.d.blocks:
                self.problems.append(f"{where}: no block named '{bname}'"
                                     f"{suggest(bname, self.d.blocks)}")
                return None
        elif isinstance(end, str):
            bname, _, key_s = end.partition(".")
            key = key_s or None
            if bname not in self.d.blocks:
                self.problems.append(f"{where}: no block named '{bname}'"
                                     f"{suggest(bname, self.d.blocks)}")
                return None
        else:
            self.problems.append(f"{where}: an end must be a block, block['port'] or "
                                 f"'name.port', got {type(end).__name__}")
            return None
        table = self.outs[bname] if want == "output" else self.ins[bname]
        kind = type(self.d.blocks[bname]).__name__
        if key is None:
            if len(table) == 1:
                return bname, 0
            if not table:
                self.problems.append(f"{where}: block '{bname}' ({kind}) has no {want} port")
            else:
                self.problems.append(
                    f"{where}: block '{bname}' ({kind}) has {len(table)} {want}s "
                    f"({_fmt(table)}); name one, e.g. '{bname}.{table[0].name}'")
            return None
        if isinstance(key, int) and not isinstance(key, bool):
            if 0 <= key < len(table):
                return bname, key
            self.problems.append(f"{where}: block '{bname}' ({kind}) has no {want} number "
                                 f"{key}; it has {len(table)} ({_fmt(table)})")
            return None
        names = self.port_index(bname, want == "output")
        if key in names:
            return bname, names[key]
        if key in self.port_index(bname, want != "output"):
            self.problems.append(f"{where}: '{bname}.{key}' is an "
                                 f"{'input' if want == 'output' else 'output'}, but the wire "
                                 f"needs an {want} here (wires go from an output to an input)")
        else:
            self.problems.append(f"{where}: block '{bname}' ({kind}) has no {want} port "
                                 f"'{key}'{suggest(str(key), names)}; {want}s: {_fmt(table)}")
        return None


def _show(end: Any) -> str:
    if isinstance(end, tuple):
        return f"'{end[0]}'" if end[1] is None else f"'{end[0]}.{end[1]}'"
    if isinstance(end, str):
        return f"'{end}'"
    if isinstance(end, PortRef):
        return f"{end.block.name}[{end.key!r}]"
    if isinstance(end, Block):
        return f"'{end.name}'"
    return repr(end)


def compile_diagram(diagram: Diagram, algebraic: str = "error") -> Plan:
    """Check ``diagram`` and turn it into an immutable :class:`Plan`.

    Parameters
    ----------
    diagram : Diagram
        The diagram.
    algebraic : {"error", "solve"}
        What an algebraic loop is: a problem reported port by port (default), or an equation
        torn at a few ports and solved by Newton's method at each evaluation
        (:mod:`blocksim.engine.algebraic`, ``plan.loops``).

    Raises
    ------
    DiagramError
        Listing every problem found (unconnected or doubly driven inputs, unknown blocks or
        ports, algebraic loops, shape mismatches); did-you-mean suggestions within a
        :func:`~blocksim.engine.errors.suggestion_budget`.
    ValueError
        ``algebraic`` is neither ``"error"`` nor ``"solve"``.
    """
    if algebraic not in ALGEBRAIC:
        raise ValueError(f"`algebraic` must be 'error' (report an algebraic loop) or 'solve' "
                         f"(solve it at each evaluation), got {algebraic!r}"
                         f"{suggest(str(algebraic), ALGEBRAIC)}")
    with suggestion_budget():
        return _compile(diagram, algebraic == "solve")


def _compile(diagram: Diagram, solve: bool) -> Plan:
    problems: list[str] = []
    if not diagram.blocks:
        raise DiagramError(diagram.name, ["the diagram has no blocks; add some with d.add()"])
    diagram = _flatten(diagram, problems)  # type: ignore[assignment]
    res = _Resolver(diagram, problems)
    names = list(diagram.blocks)
    index = {n: k for k, n in enumerate(names)}

    # -- 1-2: wires and drivers
    driver: dict[tuple[str, int], tuple[tuple[str, int], Wire]] = {}
    attempted: set[tuple[str, int]] = set()
    for wire in diagram.wires:
        src = res.end(wire.src, "output", wire)
        dst = res.end(wire.dst, "input", wire)
        if dst is not None:
            attempted.add(dst)  # reported through its wire, not again as unconnected
        if src is None or dst is None:
            continue
        if dst in driver:
            (s0, w0) = driver[dst]
            problems.append(
                f"input '{dst[0]}.{res.ins[dst[0]][dst[1]].name}' is driven twice: by "
                f"'{s0[0]}.{res.outs[s0[0]][s0[1]].name}' (at {w0.where}) and by "
                f"'{src[0]}.{res.outs[src[0]][src[1]].name}' (at {wire.where}); an input "
                f"takes exactly one wire (use a Sum block to add signals)")
            continue
        driver[dst] = (src, wire)
    for n in names:
        for k, p in enumerate(res.ins[n]):
            if (n, k) not in attempted:
                hint = errors.connect_hint(n, p.name, diagram.origins)
                problems.append(f"input '{n}.{p.name}' ({type(diagram.blocks[n]).__name__}) is "
                                f"not connected; {hint}")

    # -- 3: port-level algebraic loops
    feed = {n: diagram.blocks[n].output_feedthrough() for n in names}
    # networkx is imported on the first compile, not with blocksim: its import is ~0.14 s of a
    # new process (`import blocksim` to load or save a file, `blocksim blocks`, ... never use it)
    import networkx as nx

    graph = nx.DiGraph()
    for n in names:
        innames = res.port_index(n, False)
        for k, p in enumerate(res.outs[n]):
            graph.add_node(("o", n, k))
            for iname in feed[n].get(p.name, ()):
                if iname not in innames:
                    problems.append(f"block '{n}' ({type(diagram.blocks[n]).__name__}) declares "
                                    f"output '{p.name}' feedthrough from unknown input "
                                    f"'{iname}'; inputs: {_fmt(res.ins[n])}")
                    continue
                graph.add_edge(("i", n, innames[iname]), ("o", n, k))
    for dst, (src, _) in driver.items():
        graph.add_edge(("o", *src), ("i", *dst))
    components = loop_components(graph, res)
    loops = [] if solve else loop_messages(components)
    problems.extend(loops)

    # -- order (with loops to solve: each torn and kept together)
    torn_loops: list[tuple[int, int, list[tuple[str, str, int]], str]] = []
    if loops:
        order: tuple[Step, ...] = ()
    elif components:
        order, torn_loops = solve_order(graph, index, res, components)
    else:
        order = _evaluation_order(graph, names, index, res, diagram)

    # -- slots and state layout
    signal_names: list[str] = []
    slot: dict[tuple[str, int], int] = {}
    for n in names:
        for k, p in enumerate(res.outs[n]):
            slot[(n, k)] = len(signal_names)
            signal_names.append(f"{n}.{p.name}")
    aliases = {}
    entries = []
    x0_parts, xd0_parts, state_names, dstate_names = [], [], [], []
    nx_, nxd = 0, 0
    for n in names:
        b = diagram.blocks[n]
        x0 = np.asarray(b.x0, dtype=float).reshape(-1)
        snames = b.state_names or tuple(f"x{i}" for i in range(x0.size))
        if len(snames) != x0.size:
            problems.append(f"block '{n}' ({type(b).__name__}) has {x0.size} states but "
                            f"{len(snames)} state names")
            snames = tuple(f"x{i}" for i in range(x0.size))
        if b.is_discrete:
            states = slice(nxd, nxd + x0.size)
            nxd += x0.size
            xd0_parts.append(x0)
            dstate_names += [f"{n}.{s}" for s in snames]
        else:
            states = slice(nx_, nx_ + x0.size)
            nx_ += x0.size
            x0_parts.append(x0)
            state_names += [f"{n}.{s}" for s in snames]
        in_slots = []
        for k, p in enumerate(res.ins[n]):
            src = driver.get((n, k))
            in_slots.append(slot[src[0]] if src else -1)
            if src:
                aliases[f"{n}.{p.name}"] = signal_names[slot[src[0]]]
        out_slots = tuple(slot[(n, k)] for k in range(len(res.outs[n])))
        entries.append(BlockEntry(n, b, tuple(in_slots), out_slots, states, b.is_discrete))
    if not loops:
        entries = _propagate_rates(entries, order, driver_entry=[
            [index[driver[(e.name, k)][0][0]] if (e.name, k) in driver else -1
             for k in range(len(e.in_slots))] for e in entries], problems=problems,
            groups=[({s.entry for s in order[a:b]}, text) for a, b, _, text in torn_loops])
    x0 = np.concatenate(x0_parts) if x0_parts else np.zeros(0)
    xd0 = np.concatenate(xd0_parts) if xd0_parts else np.zeros(0)

    # -- 4: dry run for shapes
    shapes: list[tuple[int, ...] | None] = [None] * len(signal_names)
    seeds = {a: torn_seed([(slot[(n, k)], res.outs[n][k].shape) for _, n, k in torn],
                          [entries[s.entry].in_slots for s in order[a:b]])
             for a, b, torn, _ in torn_loops}
    if not loops:
        _dry_run(entries, order, res, shapes, signal_names, x0, xd0, problems, seeds)
    if problems:
        raise DiagramError(diagram.name, problems)

    clocks = tuple(dict.fromkeys(b.clock for b in diagram.blocks.values()
                                 if isinstance(b.clock, Clock)))
    bp = tuple(k for k, e in enumerate(entries)
               if type(e.block).next_breakpoint is not Block.next_breakpoint)
    return Plan(
        name=diagram.name, entries=tuple(entries), signal_names=tuple(signal_names),
        signal_shapes=tuple(s if s is not None else () for s in shapes), aliases=aliases,
        order=order, x0=x0, state_names=tuple(state_names), xd0=xd0,
        discrete_state_names=tuple(dstate_names), clocks=clocks,
        timebase=TimeBase(list(clocks)), breakpoint_entries=bp,
        loops=tuple(AlgebraicLoop(a, b, tuple(slot[(n, k)] for _, n, k in torn), text)
                    for a, b, torn, text in torn_loops))


CONTINUOUS, CONSTANT, INHERITED = "continuous", "constant", "inherited"


def _declared_rate(b: Block) -> Any:
    if isinstance(b.clock, Clock):
        return b.clock
    if b.clock is EVENT:
        return CONTINUOUS
    st = b.sample_time
    if st is None:
        st = CONTINUOUS if (b.nx > 0 or not b.inputs) else INHERITED
    if st not in (CONTINUOUS, CONSTANT, INHERITED):
        raise ValueError(f"{type(b).__name__}.sample_time must be 'continuous', 'constant' or "
                         f"'inherited', got {st!r}")
    return st


def _propagate_rates(entries: list[BlockEntry], order: tuple[Step, ...],
                     driver_entry: list[list[int]], problems: list[str],
                     groups: list[tuple[set[int], str]] = ()) -> list[BlockEntry]:
    """Give every block its rate; inherited blocks take their inputs' (in evaluation order):
    all constant -> constant; one clock (plus constants) -> that clock; else continuous. The
    blocks of each of ``groups`` (an algebraic loop to solve, and its text) take one rate
    together (:func:`~blocksim.engine.algebraic.loop_rate`), or a problem is reported."""
    rates: list[Any] = []
    for e in entries:
        try:
            rates.append(_declared_rate(e.block))
        except ValueError as exc:
            problems.append(f"block '{e.name}': {exc}")
            rates.append(CONTINUOUS)
    group_of = {k: g for g in groups for k in g[0]}
    for step in order:
        k = step.entry
        if k in group_of:
            members, text = group_of.pop(k)
            for j in members:
                group_of.pop(j, None)
            rate, mixed = loop_rate([rates[j] for j in members if rates[j] != INHERITED], [
                rates[i] if i >= 0 else CONTINUOUS for j in members for i in driver_entry[j]
                if i not in members and rates[i] != INHERITED], CONSTANT, CONTINUOUS)
            if mixed:
                problems.append(f"algebraic loop: {text}: its blocks run at different rates "
                                f"(sample times); a loop is solved at one rate: give its "
                                f"blocks one clock, or break it with a delay")
            for j in members:
                rates[j] = rate if rates[j] == INHERITED else rates[j]
            continue
        if rates[k] != INHERITED:
            continue
        ins = {rates[j] if j >= 0 else CONTINUOUS for j in driver_entry[k]}
        ins.discard(CONSTANT)
        if not ins:
            rates[k] = CONSTANT
        elif len(ins) == 1 and isinstance(next(iter(ins)), Clock):
            rates[k] = next(iter(ins))
        else:
            rates[k] = CONTINUOUS
    rates = [CONTINUOUS if r == INHERITED else r for r in rates]  # sinks without order
    return [dataclasses.replace(e, rate=r) for e, r in zip(entries, rates)]


class _Flat:
    """A diagram with subsystems spliced in: blocks by path, wires between (path, key) ends."""

    def __init__(self, name: str):
        self.name = name
        self.blocks: dict[str, Block] = {}
        self.wires: list[Wire] = []
        #: block path -> (its name in its own diagram, that diagram's ``origin``)
        self.origins: dict[str, tuple[str, str | None]] = {}


def _flatten(diagram: Diagram, problems: list[str]) -> _Flat:
    """Splice every Subsystem (to any depth) into one flat diagram, naming blocks by path."""
    flat = _Flat(diagram.name)
    _splice(diagram, "", flat, problems, (id(diagram),))
    return flat


def _splice(d: Diagram, prefix: str, flat: _Flat, problems: list[str],
            stack: tuple[int, ...]) -> None:
    subs: dict[str, Subsystem] = {}
    for name, b in d.blocks.items():
        if isinstance(b, Subsystem):
            if id(b.diagram) in stack:
                problems.append(f"subsystem '{prefix}{name}' contains itself (diagram "
                                f"'{b.diagram.name}'); a diagram cannot include itself")
                continue
            subs[name] = b
            _splice(b.diagram, f"{prefix}{name}/", flat, problems, (*stack, id(b.diagram)))
        else:
            flat.blocks[prefix + name] = b
            flat.origins[prefix + name] = (name, getattr(d, "origin", None))
    for w in d.wires:
        src = _local_end(w.src, d, prefix, subs, "output", w, problems)
        dst = _local_end(w.dst, d, prefix, subs, "input", w, problems)
        if src is not None and dst is not None:
            flat.wires.append(Wire(src, dst, w.where))


def _local_end(end: End, d: Diagram, prefix: str, subs: dict[str, Subsystem], want: str,
               wire: Wire, problems: list[str]) -> Any:
    """Turn an end of diagram ``d`` into a (path, key) end of the flat diagram."""
    if isinstance(end, Block):
        if end.name is None or d.blocks.get(end.name) is not end:
            return end
        name, key = end.name, None
    elif isinstance(end, PortRef):
        if end.block.name is None or d.blocks.get(end.block.name) is not end.block:
            return end
        name, key = end.block.name, end.key
    elif isinstance(end, str):
        name, _, k = end.partition(".")
        key = k or None
    else:
        return end
    if name not in subs:
        return (prefix + name, key)
    s = subs[name]
    ports = [p.name for p in (s.inputs if want == "input" else s.outputs)]  # type: ignore
    if key is None and len(ports) == 1:
        port = ports[0]
    elif isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(ports):
        port = ports[key]
    elif key in ports:
        port = str(key)
    else:
        problems.append(
            f"wire {_show(wire.src)} -> {_show(wire.dst)} (at {wire.where}): subsystem "
            f"'{prefix}{name}' has no {want} {key!r}{suggest(str(key), ports)}; {want}s "
            f"(its {'Inport' if want == 'input' else 'Outport'} blocks): "
            f"{', '.join(ports) or '(none)'}")
        return None
    return (f"{prefix}{name}/{port}", "u" if want == "input" else "y")


def _evaluation_order(graph: nx.DiGraph, names: list[str], index: dict[str, int],
                      res: _Resolver, diagram: Diagram) -> tuple[Step, ...]:
    """Topological order of output calls; one call per block unless partial feedthrough
    forces a block's outputs to be computed in several calls."""
    import networkx as nx  # (imported on first use: see compile_diagram)

    bgraph = nx.DiGraph()
    bgraph.add_nodes_from(n for n in names if res.outs[n])
    for u, v in graph.edges:
        if u[0] == "o" and v[0] == "i" and any(
                w[0] == "o" for w in graph.successors(v)):
            if u[1] != v[1] and res.outs[v[1]]:
                bgraph.add_edge(u[1], v[1])
    steps: list[Step] = []
    if nx.is_directed_acyclic_graph(bgraph):
        for n in nx.lexicographical_topological_sort(bgraph, key=index.__getitem__):
            steps.append(Step(index[n], tuple(range(len(res.outs[n])))))
        return tuple(steps)
    port_rank = {v: r for r, v in enumerate(
        nx.lexicographical_topological_sort(graph, key=lambda v: (index[v[1]], v[0], v[2])))}
    cond = nx.condensation(bgraph)
    members = cond.graph["mapping"]
    groups: dict[int, list[str]] = {}
    for n, c in members.items():
        groups.setdefault(c, []).append(n)
    for c in nx.lexicographical_topological_sort(
            cond, key=lambda c: min(index[n] for n in groups[c])):
        grp = groups[c]
        if len(grp) == 1:
            n = grp[0]
            steps.append(Step(index[n], tuple(range(len(res.outs[n])))))
            continue
        ports = sorted((("o", n, k) for n in grp for k in range(len(res.outs[n]))),
                       key=port_rank.__getitem__)
        for _, n, k in ports:
            steps.append(Step(index[n], (k,)))
    return tuple(steps)


def _shape_of(value: Any) -> tuple[int, ...]:
    if isinstance(value, float):
        return ()
    return tuple(np.shape(value))


def _dry_run(entries: list[BlockEntry], order: tuple[Step, ...], res: _Resolver,
             shapes: list[tuple[int, ...] | None], signal_names: list[str], x0: np.ndarray,
             xd0: np.ndarray, problems: list[str], seeds: dict[int, Any]) -> None:
    """Evaluate every block once at t = 0 to infer and check signal shapes; ``seeds[i]``
    gives the torn signals of the algebraic loop that starts at step ``i`` a first value."""
    values: list[Any] = [None] * len(shapes)
    failed: set[int] = set()

    def inputs_of(e: BlockEntry, step: Step | None = None) -> list[Any] | None:
        """The block's input values; for an output step, inputs its ports do not read at the
        same instant (no feedthrough) may still be unknown (fed back from later blocks): they
        get zeros of the input's declared shape (0.0 when undeclared), as the value does not
        reach those outputs."""
        ins = res.ins[e.name]
        if step is not None and any(values[s] is None for s in e.in_slots):
            ft = e.block.output_feedthrough()
            outs = res.outs[e.name]
            read = {name for k in step.ports for name in ft.get(outs[k].name, ())}
            u = []
            for p, s in zip(ins, e.in_slots):
                if s >= 0 and values[s] is not None:
                    u.append(values[s])
                elif p.name in read or s < 0:
                    return None
                else:
                    u.append(np.zeros(tuple(p.shape)) if p.shape else 0.0)
            return u
        if any(s < 0 or values[s] is None for s in e.in_slots):
            return None
        u = [values[s] for s in e.in_slots]
        for p, v, s in zip(ins, u, e.in_slots):
            if p.shape is not None and _shape_of(v) != tuple(p.shape):
                problems.append(
                    f"shape mismatch at input '{e.name}.{p.name}' ({e.kind}): expected shape "
                    f"{tuple(p.shape)}, got {_shape_of(v)} from '{signal_names[s]}'")
                return None
        return u

    for i, step in enumerate(order):
        if i in seeds:
            seeds[i](values)
        e = entries[step.entry]
        if step.entry in failed:
            continue
        u = inputs_of(e, step)
        if u is None:
            continue
        xb = (xd0 if e.discrete else x0)[e.states]
        try:
            y = e.block.output(0.0, xb, u)
        except Exception as exc:
            failed.add(step.entry)
            problems.append(_dry_failure(e, "output", u, exc, res))
            continue
        outs = res.outs[e.name]
        if not isinstance(y, (tuple, list)) or len(y) != len(outs):
            failed.add(step.entry)
            problems.append(
                f"block '{e.name}' ({e.kind}): output() must return a tuple with one value per "
                f"output port ({_fmt(outs)}), got {type(y).__name__}"
                f"{'' if not isinstance(y, (tuple, list)) else f' of length {len(y)}'}")
            continue
        for k in step.ports:
            v = y[k]
            p = outs[k]
            shp = _shape_of(v)
            if not isinstance(v, (float, int, np.ndarray)) and not np.isscalar(v):
                problems.append(f"output '{e.name}.{p.name}' ({e.kind}) is a "
                                f"{type(v).__name__}; signals must be floats or numpy arrays")
                continue
            if p.shape is not None and shp != tuple(p.shape):
                problems.append(f"output '{e.name}.{p.name}' ({e.kind}) has shape {shp}, but "
                                f"the port declares {tuple(p.shape)}")
            values[e.out_slots[k]] = float(v) if shp == () else v
            shapes[e.out_slots[k]] = shp
    for k, e in enumerate(entries):
        n = e.states.stop - e.states.start
        if n == 0 or k in failed:
            continue
        u = inputs_of(e)
        if u is None:
            continue
        if e.discrete and not isinstance(e.block.clock, Clock):
            continue  # event modes change only in on_event
        method = "update" if e.discrete else "deriv"
        xb = (xd0 if e.discrete else x0)[e.states]
        try:
            dx = getattr(e.block, method)(0.0, xb, u)
        except Exception as exc:
            problems.append(_dry_failure(e, method, u, exc, res))
            continue
        if np.ndim(dx) != 1:
            problems.append(f"block '{e.name}' ({e.kind}): {method}() must return a sequence of "
                            f"{n} values (e.g. [dx] or an array of shape ({n},)), got "
                            f"{type(dx).__name__} of shape {np.shape(dx)}")
        elif np.size(dx) != n:
            problems.append(f"block '{e.name}' ({e.kind}): {method}() returned "
                            f"{np.size(dx)} values for {n} states")


def _dry_failure(e: BlockEntry, method: str, u: list[Any], exc: Exception,
                 res: _Resolver) -> str:
    shapes = ", ".join(f"{p.name}: {_shape_of(v)}" for p, v in zip(res.ins[e.name], u))
    return (f"block '{e.name}' ({e.kind}) failed in the dry run at t=0: {method}() raised "
            f"{type(exc).__name__}: {exc} (input shapes {shapes or 'none'}) - check the shapes "
            f"of the signals wired to it")
