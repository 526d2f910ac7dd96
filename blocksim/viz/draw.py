"""Drawing a block diagram: boxes with port labels, wires, subsystems, left to right.

The diagram is compiled first (so what is drawn is what runs: subsystems flattened, every wire
resolved) and laid out in columns by evaluation rank: a block stands to the right of every
block whose output it reads with direct feedthrough (the longest such chain decides its
column), so the drawing reads in evaluation order. Wires into inputs without feedthrough
(integrator states, delays) are then added where they create no cycle; the remaining ones are
feedback wires, routed below the blocks. Within a column blocks are ordered by subsystem and
by a barycentre pass to reduce crossings; each subsystem is a dashed frame around its blocks.

:func:`diagram_layout` computes the layout (networkx), :func:`draw_diagram` draws it
(matplotlib, Agg, headless) and saves it as PNG, SVG, PDF, ...
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from blocksim.engine.compile import compile_diagram
from blocksim.engine.diagram import Diagram
from blocksim.engine.plan import Plan
from blocksim.viz.scope import check_raster

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: horizontal distance between columns, box width and height of one port row [drawing units]
COLUMN, BOX_WIDTH, PORT_ROW = 3.2, 1.7, 0.45
#: vertical gap between boxes of one column
GAP = 0.7


@dataclass(frozen=True)
class Edge:
    """One wire of the flattened diagram."""

    src: str
    src_port: str
    dst: str
    dst_port: str
    feedthrough: bool
    feedback: bool = False


@dataclass
class Layout:
    """Where each block of the flattened diagram is drawn.

    Attributes
    ----------
    plan : Plan
        The compiled diagram.
    rank : dict
        Block path -> column (0 on the left).
    boxes : dict
        Block path -> ``(x, y, width, height)`` of its box (y grows upwards; boxes hang down
        from y = 0).
    edges : list of Edge
        The wires, ``feedback`` set for those drawn right to left.
    """

    plan: Plan
    rank: dict[str, int] = field(default_factory=dict)
    boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)


def _edges(plan: Plan) -> list[Edge]:
    owner: dict[int, tuple[str, str]] = {}
    for e in plan.entries:
        for k, slot in enumerate(e.out_slots):
            owner[slot] = (e.name, e.block.outputs[k].name)  # type: ignore[index]
    out = []
    for e in plan.entries:
        ft = e.block.output_feedthrough()
        reads = {i for ins in ft.values() for i in ins}
        sink = not e.block.outputs
        for k, slot in enumerate(e.in_slots):
            if slot < 0:
                continue
            port = e.block.inputs[k].name  # type: ignore[index]
            src, sport = owner[slot]
            out.append(Edge(src, sport, e.name, port, sink or port in reads))
    return out


def diagram_layout(diagram: Diagram | Plan) -> Layout:
    """Compile ``diagram`` (unless it is a plan already) and lay it out left to right.

    Raises
    ------
    DiagramError
        When the diagram does not compile.
    """
    plan = diagram if isinstance(diagram, Plan) else compile_diagram(diagram)
    names = [e.name for e in plan.entries]
    index = {n: k for k, n in enumerate(names)}
    edges = _edges(plan)
    dag = nx.DiGraph()
    dag.add_nodes_from(names)
    # feedthrough wires first; a wire that would close a cycle is drawn as feedback (block-level
    # cycles exist when a block's outputs read different inputs: port-level the plan is acyclic)
    for e in sorted(edges, key=lambda e: not e.feedthrough):
        if e.src != e.dst and not nx.has_path(dag, e.dst, e.src):
            dag.add_edge(e.src, e.dst)
    rank: dict[str, int] = {}
    topo = list(nx.lexicographical_topological_sort(dag, key=index.__getitem__))
    for n in topo:
        rank[n] = 1 + max((rank[p] for p in dag.predecessors(n)), default=-1)
    for n in reversed(topo):  # sources move right, next to their first reader
        succ = [rank[s] for s in dag.successors(n)]
        if succ:
            rank[n] = max(rank[n], min(succ) - 1)
    lay = Layout(plan, rank)
    lay.edges = [Edge(e.src, e.src_port, e.dst, e.dst_port, e.feedthrough,
                      feedback=rank[e.dst] <= rank[e.src]) for e in edges]
    columns: dict[int, list[str]] = {}
    for n in names:
        columns.setdefault(rank[n], []).append(n)
    order = _order_columns(columns, dag, index)
    for r, col in order.items():
        y = 0.0
        for n in col:
            e = plan.entry(n)
            rows = max(len(e.block.inputs), len(e.block.outputs), 1)
            h = max(1.0, rows * PORT_ROW + 0.5)
            lay.boxes[n] = (r * COLUMN, y - h, BOX_WIDTH, h)
            y -= h + GAP
    return lay


def _order_columns(columns: dict[int, list[str]], dag: nx.DiGraph,
                   index: dict[str, int]) -> dict[int, list[str]]:
    """Order blocks within columns: by subsystem, then by the mean row of their predecessors
    (one barycentre sweep), ties by the order the blocks were added."""
    rows: dict[str, float] = {}
    out: dict[int, list[str]] = {}
    for r in sorted(columns):
        def key(n: str) -> tuple[str, float, int]:
            preds = [rows[p] for p in dag.predecessors(n) if p in rows]
            bary = sum(preds) / len(preds) if preds else float(index[n])
            return (n.rpartition("/")[0], bary, index[n])

        col = sorted(columns[r], key=key)
        for k, n in enumerate(col):
            rows[n] = float(k)
        out[r] = col
    return out


def _port_y(box: tuple[float, float, float, float], k: int, n: int) -> float:
    _, y, _, h = box
    return y + h - (h / n) * (k + 0.5)


def draw_diagram(diagram: Diagram | Plan, file: str | os.PathLike[str] | None = None, *,
                 title: str | None = None, dpi: float | None = None) -> Figure:
    """Draw ``diagram``; save it to ``file`` (format from the suffix) when given.

    Parameters
    ----------
    diagram : Diagram or Plan
        The diagram (compiled here) or its plan.
    file : str or PathLike, optional
        Where to save the picture: ``.png``, ``.svg``, ``.pdf``, ...
    title : str, optional
        Title above the drawing; default the diagram's name.
    dpi : float, optional
        Resolution of raster output [dots per inch], at most
        :data:`blocksim.viz.scope.MAX_DPI` (the figure at most
        :data:`~blocksim.viz.scope.MAX_PIXELS`: ``ValueError`` before drawing).

    Returns
    -------
    Figure
        The matplotlib figure (not registered with pyplot).
    """
    from matplotlib.figure import Figure

    if file is not None and dpi is not None:  # before the layout's work
        check_raster((0.0, 0.0), dpi, Path(file).name)
    lay = diagram_layout(diagram)
    routes = route_wires(lay)
    pts = [(b[0], b[1]) for b in lay.boxes.values()] + [
        (b[0] + b[2], b[1] + b[3] + 0.5) for b in lay.boxes.values()] + [
        pt for _, path in routes for pt in path]
    x0, x1 = min(p[0] for p in pts) - 0.5, max(p[0] for p in pts) + 0.5
    y0, y1 = min(p[1] for p in pts) - 0.5, max(p[1] for p in pts) + 0.5
    scale = 0.6  # inch per drawing unit
    fig = Figure(figsize=(min(60.0, max(5.0, (x1 - x0) * scale)),
                          min(60.0, max(2.5, (y1 - y0) * scale + 0.5))), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title(title if title is not None else lay.plan.name)
    _draw_subsystems(ax, lay)
    _draw_boxes(ax, lay)
    for edge, path in routes:
        color = "tab:red" if edge.feedback else "black"
        ax.plot([p[0] for p in path[:-1]] + [path[-1][0] - 0.12],
                [p[1] for p in path[:-1]] + [path[-1][1]], color=color, linewidth=0.9,
                label=f"{edge.src}.{edge.src_port} -> {edge.dst}.{edge.dst_port}")
        ax.annotate("", xy=path[-1], xytext=(path[-1][0] - 0.15, path[-1][1]),
                    arrowprops={"arrowstyle": "-|>", "color": color, "lw": 0.9})
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    if file is not None:
        check_raster(fig.get_size_inches(), dpi if dpi is not None else fig.dpi,
                     Path(file).name)
        fig.savefig(Path(file), dpi=dpi if dpi is not None else "figure")
    return fig


_COLORS = ("tab:blue", "tab:green", "tab:purple", "tab:orange", "tab:cyan", "tab:olive")


def _draw_subsystems(ax: Any, lay: Layout) -> None:
    """A dashed frame around each subsystem's blocks when no other block falls inside it;
    otherwise a tint behind each of its blocks (its name is part of their labels)."""
    from matplotlib.patches import Rectangle

    groups: dict[str, list[str]] = {}
    for n in lay.boxes:
        parts = n.split("/")[:-1]
        for d in range(1, len(parts) + 1):
            groups.setdefault("/".join(parts[:d]), []).append(n)
    for k, g in enumerate(sorted(groups, key=lambda s: (s.count("/"), s))):
        color = _COLORS[k % len(_COLORS)]
        depth = g.count("/")
        boxes = [lay.boxes[n] for n in groups[g]]
        pad = 0.45 - 0.1 * depth
        x0 = min(b[0] for b in boxes) - pad
        y0 = min(b[1] for b in boxes) - pad
        x1 = max(b[0] + b[2] for b in boxes) + pad
        y1 = max(b[1] + b[3] for b in boxes) + pad + 0.25
        inside = [n for n, b in lay.boxes.items() if n not in groups[g] and
                  b[0] < x1 and b[0] + b[2] > x0 and b[1] < y1 and b[1] + b[3] > y0]
        rects = [(x0, y0, x1 - x0, y1 - y0)] if not inside else [
            (b[0] - pad, b[1] - pad, b[2] + 2 * pad, b[3] + 2 * pad + 0.25) for b in boxes]
        for rx, ry, rw, rh in rects:
            ax.add_patch(Rectangle((rx, ry), rw, rh, fill=True, alpha=0.1, facecolor=color,
                                   edgecolor=color, linestyle="--"))
            ax.text(rx + 0.08, ry + rh - 0.05, g, fontsize=7, va="top", color=color,
                    style="italic")


def _draw_boxes(ax: Any, lay: Layout) -> None:
    """Each block: a box with its name, type and port labels."""
    from matplotlib.patches import FancyBboxPatch

    for n, box in lay.boxes.items():
        x, y, w, h = box
        e = lay.plan.entry(n)
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                                    facecolor="white", edgecolor="black", linewidth=1.2))
        ax.text(x + w / 2, y + h / 2 + 0.12, n.rsplit("/", 1)[-1], ha="center", va="center",
                fontsize=9, weight="bold")
        ax.text(x + w / 2, y + h / 2 - 0.2, e.kind, ha="center", va="center", fontsize=7,
                color="0.35")
        ins, outs = e.block.inputs, e.block.outputs
        signs = _input_signs(e.block)
        for k, p in enumerate(ins):
            ax.text(x + 0.05, _port_y(box, k, len(ins)), p.name, fontsize=6, va="center",
                    ha="left", color="0.3")
            if signs is not None:
                ax.text(x + 0.3, _port_y(box, k, len(ins)), signs[k], fontsize=9,
                        va="center", ha="left", weight="bold", gid=f"sign {n}.{p.name}")
        for k, p in enumerate(outs):
            ax.text(x + w - 0.05, _port_y(box, k, len(outs)), p.name, fontsize=6,
                    va="center", ha="right", color="0.3")


#: how the sign of a Sum's input is drawn
SIGNS = {"+": "+", "-": "\u2212"}


def _input_signs(block: Any) -> list[str] | None:
    """The sign drawn at each input of a Sum (``"+"`` or ``"\u2212"``), None for other blocks."""
    from blocksim.blocks.math.arithmetic import Sum

    ops = getattr(block, "_ops", None)
    if not isinstance(block, Sum) or not isinstance(ops, str) or len(ops) != len(block.inputs):
        return None
    return [SIGNS[c] for c in ops]


class _Router:
    """Orthogonal wire paths: vertical runs only in the gaps between columns, long forward wires
    that would cross a box over the top, feedback wires under the bottom.

    Each signal (a source block's output port) has its own vertical lane in each gap it runs
    through and its own top or bottom channel, so wires of different signals never share a
    segment (the wires of one signal share their trunk). Routing is done twice: the first pass
    finds which signals need a lane in which gap; the lanes of a gap are then spread over its
    width (never wrapped onto each other) and ordered so that a wire entering a port at the
    height where another signal's wire leaves its source runs its lane to the right of that
    one (their horizontal runs would otherwise overlap); the second pass gives the paths.
    """

    def __init__(self, lay: Layout, top: float, bottom: float):
        self.lay = lay
        self.lanes: dict[int, list[tuple[str, str]]] = {}
        self.slot: dict[tuple[int, tuple[str, str]], int] = {}
        self.channels: dict[tuple[str, tuple[str, str]], float] = {}
        self.top, self.bottom = top, bottom
        self.high, self.low = top, bottom
        # per gap: (signal, y) of horizontal runs attached to its left (leaving a source)
        # and to its right (entering a port)
        self.left: dict[int, list[tuple[tuple[str, str], float]]] = {}
        self.right: dict[int, list[tuple[tuple[str, str], float]]] = {}

    def lane(self, column: int, sig: tuple[str, str]) -> float:
        """x of the vertical run of signal ``sig`` in the gap left of ``column``."""
        names = self.lanes.setdefault(column, [])
        if sig not in names:
            names.append(sig)
        k = self.slot.get((column, sig), names.index(sig))
        n = len(names)
        step = 0.14 if column == 0 or n < 2 else min(0.14, (COLUMN - BOX_WIDTH - 0.4) / (n - 1))
        return column * COLUMN - 0.25 - step * k

    def settle(self) -> None:
        """Order the lanes of each gap (after the first pass): a signal entering a port at the
        height another signal leaves at gets the lane right of it."""
        for column, names in self.lanes.items():
            order = nx.DiGraph()
            order.add_nodes_from(names)
            for sin, yin in self.right.get(column, ()):
                for sout, yout in self.left.get(column, ()):
                    if sin != sout and abs(yin - yout) < 0.05 and \
                            not nx.has_path(order, sout, sin):
                        order.add_edge(sin, sout)  # sin to the right: a smaller slot
            pos = {n: k for k, n in enumerate(names)}
            ranked = nx.lexicographical_topological_sort(order, key=pos.__getitem__)
            for k, sig in enumerate(ranked):
                self.slot[(column, sig)] = k

    def channel(self, where: str, sig: tuple[str, str]) -> float:
        key = (where, sig)
        if key not in self.channels:
            k = sum(1 for w, _ in self.channels if w == where)
            if where == "top":
                self.channels[key] = self.top + 0.5 + 0.25 * k
                self.high = max(self.high, self.channels[key])
            else:
                self.channels[key] = self.bottom - 0.5 - 0.25 * k
                self.low = min(self.low, self.channels[key])
        return self.channels[key]

    def clear(self, y: float, r0: int, r1: int) -> bool:
        """Whether the height ``y`` is free of boxes in the columns strictly between."""
        for n, (_, by, _, bh) in self.lay.boxes.items():
            if r0 < self.lay.rank[n] < r1 and by - 0.1 <= y <= by + bh + 0.1:
                return False
        return True

    def route(self, edge: Edge) -> list[tuple[float, float]]:
        lay = self.lay
        sb, db = lay.boxes[edge.src], lay.boxes[edge.dst]
        se, de = lay.plan.entry(edge.src), lay.plan.entry(edge.dst)
        souts = [p.name for p in se.block.outputs]
        dins = [p.name for p in de.block.inputs]
        x0, y0 = sb[0] + sb[2], _port_y(sb, souts.index(edge.src_port), len(souts))
        x1, y1 = db[0], _port_y(db, dins.index(edge.dst_port), len(dins))
        r0, r1 = lay.rank[edge.src], lay.rank[edge.dst]
        sig = (edge.src, edge.src_port)
        self.right.setdefault(r1, []).append((sig, y1))
        if not edge.feedback and (r1 == r0 + 1 or self.clear(y0, r0, r1)):
            self.left.setdefault(r1, []).append((sig, y0))
            xl = self.lane(r1, sig)
            return [(x0, y0), (xl, y0), (xl, y1), (x1, y1)]
        self.left.setdefault(r0 + 1, []).append((sig, y0))
        xa, xb = self.lane(r0 + 1, sig), self.lane(r1, sig)
        yc = self.channel("bottom" if edge.feedback else "top", sig)
        return [(x0, y0), (xa, y0), (xa, yc), (xb, yc), (xb, y1), (x1, y1)]


def route_wires(lay: Layout) -> list[tuple[Edge, list[tuple[float, float]]]]:
    """The path of every wire of ``lay``: ``(edge, [(x, y), ...])`` in drawing units, from the
    source port to the destination port (orthogonal; see :class:`_Router`)."""
    ys = [b[1] for b in lay.boxes.values()] + [b[1] + b[3] for b in lay.boxes.values()]
    router = _Router(lay, top=max(ys, default=0.0), bottom=min(ys, default=0.0))
    for edge in lay.edges:  # first pass: which signal needs a lane where
        router.route(edge)
    router.settle()
    router.left.clear()
    router.right.clear()
    return [(edge, router.route(edge)) for edge in lay.edges]


def describe_layout(lay: Layout) -> str:
    """The layout as text: one line per column with its blocks (for terminals and tests)."""
    cols: dict[int, list[str]] = {}
    for n, r in lay.rank.items():
        cols.setdefault(r, []).append(n)
    return "\n".join(f"{r}: {', '.join(cols[r])}" for r in sorted(cols))

