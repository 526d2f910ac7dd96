"""Algebraic loops at compile time: found, reported port by port, or torn and ordered.

A direct-feedthrough cycle of the port graph (output -> input along wires, input -> output
through declared feedthrough) is an *algebraic loop*: the outputs on it depend on themselves
at the same instant. By default (``algebraic="error"``) each strongly connected component that
holds one is reported, port by port (:func:`loop_messages`). With ``algebraic="solve"``
:func:`solve_order` makes it an equation instead:

1. each component is *torn*: a few of its output ports (the tear variables ``z``) are taken
   as known, so that the rest of the component is acyclic. The tear set is a feedback vertex
   set of the component's output-to-output graph, chosen greedily: while a cycle remains,
   cut the port of the largest (in-degree x out-degree) inside its component (a self-loop
   first; ties to the larger in-degree, a summing junction, then in the order the blocks were
   added), then drop every cut port that is not needed after all. A single cycle is torn at
   one port; the result is minimal (no port can be left out), not always minimum (the
   minimum feedback vertex set is NP-hard);
2. the component's ports are ordered topologically with the torn ports last: running them
   from ``z`` in the torn slots computes ``g(z)`` there, and the loop is solved for
   ``z = g(z)`` by Newton's method at each evaluation (:mod:`blocksim.engine.loops`, and the
   fused tier's generated code: :mod:`blocksim.engine.compiled.loop_code`);
3. the components stay together in the evaluation order (a loop is solved as one unit), the
   other ports in topological order, consecutive ports of one block merged into one call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.engine.errors import listing
from blocksim.engine.plan import Step

if TYPE_CHECKING:
    import networkx as nx

#: the ``algebraic`` run option's values: report a loop as a diagram error, or solve it
ALGEBRAIC = ("error", "solve")
#: most ports of an algebraic loop its message shows (then the count and the first again)
LOOP_PORTS = 24

Node = tuple[str, str, int]  # ("o" | "i", block path, port index)


def port_label(node: Node, res: Any) -> str:
    """``"block.port"`` of a port node (``res``: the compiler's resolver of port names)."""
    kind, n, k = node
    table = res.outs[n] if kind == "o" else res.ins[n]
    return f"{n}.{table[k].name}"


def _a_cycle(graph: nx.DiGraph, comp: set[Any], start: Any) -> list[Any]:
    """A cycle (its nodes in order) of the strongly connected component ``comp``: a walk from
    ``start`` inside ``comp`` until a node comes back, linear in the component's edges."""
    seen: dict[Any, int] = {}
    path: list[Any] = []
    v = start
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = next(w for w in graph.successors(v) if w in comp)
    return path[seen[v]:]


def loop_components(graph: nx.DiGraph, res: Any) -> list[tuple[set[Node], str, list[str]]]:
    """Every strongly connected component of the port graph that holds a cycle (found once,
    in linear time), in the order the blocks were added: ``(its nodes, one of its cycles
    port by port, the blocks on that cycle)``; at most :data:`LOOP_PORTS` ports shown."""
    import networkx as nx  # (imported on first use: see compile_diagram)

    out = []
    order = {n: k for k, n in enumerate(res.outs)}
    for comp in sorted(nx.strongly_connected_components(graph),
                       key=lambda c: min((order[v[1]], v[2]) for v in c)):
        if len(comp) < 2:
            continue
        start = min((v for v in comp if v[0] == "o"), key=lambda v: (order[v[1]], v[2]))
        nodes = _a_cycle(graph, comp, start)
        first = min((v for v in nodes if v[0] == "o"), key=lambda v: (order[v[1]], v[2]))
        k0 = nodes.index(first)
        nodes = nodes[k0:] + nodes[:k0]
        parts = []
        for v in nodes[:LOOP_PORTS]:
            label = port_label(v, res)
            parts.append(f"{label} (feedthrough)" if v[0] == "i" else label)
        if len(nodes) > LOOP_PORTS:
            parts.append(f"... ({len(nodes)} ports in all) -> {port_label(nodes[0], res)}")
        blocks = sorted({v[1] for v in nodes}, key=order.__getitem__)
        out.append((comp, " -> ".join(parts), blocks))
    return out


def loop_messages(components: list[tuple[set[Node], str, list[str]]]) -> list[str]:
    """One diagram problem per loop component (the ``algebraic="error"`` report)."""
    return [f"algebraic loop: {text}; every block on it ({listing(blocks)}) passes its input "
            f"to its output at the same instant. Break it with a block that has state "
            f"(Integrator, TransferFunction with more poles than zeros, a UnitDelay/Memory), "
            f"or, if an output really depends only on the block's state, declare it without "
            f"feedthrough; or solve it at each evaluation with algebraic='solve' (a run "
            f"option, also in a file's \"simulation\" section)"
            for _, text, blocks in components]


def tear(graph: nx.DiGraph, comp: set[Node], rank: dict[Node, Any]) -> list[Node]:
    """The output ports of the loop component ``comp`` to tear (see the module docstring):
    a minimal feedback vertex set of its output-to-output graph, in ``rank`` order."""
    import networkx as nx

    h = nx.DiGraph()
    outs = [v for v in comp if v[0] == "o"]
    h.add_nodes_from(outs)
    for o in outs:
        for i in graph.successors(o):
            if i in comp:
                h.add_edges_from((o, o2) for o2 in graph.successors(i) if o2 in comp)
    chosen: list[Node] = []
    rest = h.copy()
    while True:
        cyclic = [c for c in nx.strongly_connected_components(rest)
                  if len(c) > 1 or rest.has_edge(next(iter(c)), next(iter(c)))]
        if not cyclic:
            break
        for c in cyclic:
            sub = rest.subgraph(c)
            best = min(c, key=lambda v: (not sub.has_edge(v, v),
                                         -sub.in_degree(v) * sub.out_degree(v),
                                         -sub.in_degree(v), rank[v]))
            chosen.append(best)
        rest.remove_nodes_from(chosen)
    for v in reversed(list(chosen)):  # drop the cuts that are not needed after all
        others = [w for w in chosen if w != v]
        if nx.is_directed_acyclic_graph(h.subgraph(set(outs) - set(others))):
            chosen = others
    return sorted(chosen, key=rank.__getitem__)


def solve_order(graph: nx.DiGraph, index: dict[str, int], res: Any,
                components: list[tuple[set[Node], str, list[str]]]
                ) -> tuple[tuple[Step, ...], list[tuple[int, int, list[Node], str]]]:
    """The evaluation order of a port graph with loop ``components``, each torn and kept
    together: the steps, and per loop ``(first step, stop step, torn ports, its text)``."""
    import networkx as nx

    rank = {v: (index[v[1]], v[0] == "i", v[2]) for v in graph}
    text_of = {min(comp, key=rank.__getitem__): text for comp, text, _ in components}
    cond = nx.condensation(graph)
    members = {c: cond.nodes[c]["members"] for c in cond}
    steps: list[Step] = []
    loops: list[tuple[int, int, list[Node], str]] = []
    for c in nx.lexicographical_topological_sort(
            cond, key=lambda c: min(rank[v] for v in members[c])):
        comp = members[c]
        if len(comp) == 1:
            (v,) = comp
            if v[0] == "o":
                steps.append(Step(index[v[1]], (v[2],)))
            continue
        torn = tear(graph, comp, rank)
        cut = graph.subgraph(comp).copy()
        cut.remove_edges_from([(v, w) for v in torn for w in graph.successors(v)])
        cut_rank = {v: (v in torn, *rank[v]) for v in comp}
        first = len(steps)
        for v in nx.lexicographical_topological_sort(cut, key=cut_rank.__getitem__):
            if v[0] == "o":
                steps.append(Step(index[v[1]], (v[2],)))
        loops.append((first, len(steps), torn, text_of[min(comp, key=rank.__getitem__)]))
    return _merged(steps, loops, graph, index), loops


def _merged(steps: list[Step], loops: list[tuple[int, int, list[Node], str]],
            graph: nx.DiGraph, index: dict[str, int]) -> tuple[Step, ...]:
    """``steps`` with consecutive ports of one block in one call, where the later port does
    not read the earlier one through a wire back into the block (and never across the start
    or end of a loop); the loops' step ranges are renumbered in place."""
    names = {k: n for n, k in index.items()}
    bounds = {b for first, stop, _, _ in loops for b in (first, stop)}
    out: list[Step] = []
    new_index: list[int] = []
    for k, s in enumerate(steps):
        prev = out[-1] if out else None
        if prev is not None and prev.entry == s.entry and k not in bounds:
            n = names[s.entry]
            reads = {w for i in graph.predecessors(("o", n, s.ports[0]))
                     for w in graph.predecessors(i)}
            if not any(("o", n, p) in reads for p in prev.ports):
                out[-1] = Step(s.entry, (*prev.ports, *s.ports))
                new_index.append(len(out) - 1)
                continue
        out.append(s)
        new_index.append(len(out) - 1)
    new_index.append(len(out))
    for j, (first, stop, torn, text) in enumerate(loops):
        loops[j] = (new_index[first], new_index[stop - 1] + 1, torn, text)
    return tuple(out)


def torn_seed(torn: list[tuple[int, Any]], reads: list[tuple[int, ...]]
              ) -> Callable[[list[Any]], None]:
    """What gives a loop's torn signals a value in the compiler's dry run (``values``: the
    signals by slot, None where not yet computed): zeros of each torn port's declared shape,
    else of the shape of the largest signal that enters the loop (``reads``: the slots its
    steps read; ``u - K y`` has the shape of ``u``), else a scalar."""
    inside = {s for s, _ in torn}

    def seed(values: list[Any]) -> None:
        known = [values[s] for r in reads for s in r
                 if s >= 0 and s not in inside and values[s] is not None]
        guess = np.shape(max(known, key=np.size)) if known else ()
        for s, shape in torn:
            shape = tuple(shape) if shape is not None else guess
            values[s] = np.zeros(shape) if shape else 0.0

    return seed


def loop_rate(declared: list[Any], outside: list[Any], constant: str,
              continuous: str) -> tuple[Any, bool]:
    """The one rate of a loop's blocks: from the rates the loop's blocks declare and those of
    the blocks outside it that drive them (inherited ones left out), by the rule of inherited
    blocks (all constant: constant; one clock: that clock; else continuous). Also whether
    the rates are mixed (a clock with continuous blocks, or two clocks: not solvable)."""
    rates = {r for r in (*declared, *outside) if r != constant}
    if not rates:
        return constant, False
    if len(rates) == 1:
        return next(iter(rates)), False
    return continuous, any(r != continuous for r in rates)


__all__ = ["ALGEBRAIC", "LOOP_PORTS", "loop_components", "loop_messages", "loop_rate",
           "port_label", "solve_order", "tear", "torn_seed"]
