"""Linearization of a diagram at an operating point, block by block, as Simulink's
``linearize`` does it.

Each block gives its own Jacobians (:mod:`blocksim.analysis.jacobians`: exact for linear
blocks, central differences for the others); the diagram's model is composed from them and the
wiring. With ``Y`` every signal (flattened), ``X`` the linear states, ``U`` every input port
(flattened) and the block Jacobians stacked block-diagonally::

    dX = Ab X + Bb U,   Y = Cb X + Db U,   U = Op P (Os Y + Es du) + Ep du

where ``P`` routes signals to the input ports that read them, ``du`` are the perturbations of
the *input points*, ``Es``/``Ep`` add them to a signal (all its readers) or to one input port,
and ``Os``/``Op`` are identities with zeros at the *loop openings* (a signal or an input port
cut there: its readers no longer see it, only the perturbation). Eliminating ``Y`` solves the
algebraic feedthrough relations at once::

    (I - Db Op P Os) Y = Cb X + Db (Op P Es + Ep) du

(a singular matrix means an algebraic loop with no unique solution at the point), which gives
``A = Ab + Bb Ux``, ``B = Bb Uu``, and the measurements of the *output points* give C and D.

An output point measures its signal including the perturbation of an input point at the same
place (a sensitivity function, Simulink's convention), or, where the loop is opened there, the
signal before the opening (an input and output point at one opening give the loop transfer of
the opened loop, -L with negative feedback).

Continuous diagrams give a continuous ``StateSpace``. A diagram whose blocks all run on one
clock (discrete states, samplers) gives a discrete one with that ``dt``, from the updates
x[k+1] = f(x, u). A diagram that mixes continuous states with discrete rates is refused unless
``method="zoh"``: the sampled-data model at the clock's period (the continuous part
discretized exactly with its inputs held between hits, as the discrete blocks' outputs are;
the input points are held too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from blocksim.analysis.jacobians import block_jacobian
from blocksim.analysis.operating_point import (
    OperatingPoint,
    as_plan,
    clock_of,
    initial_point,
)
from blocksim.analysis.points import AnalysisError, Layout, evaluate_signals, flat
from blocksim.engine.clock import Clock
from blocksim.engine.diagram import Diagram
from blocksim.engine.plan import Plan

#: the methods ``linearize`` offers for a diagram with continuous states and discrete rates
METHODS = ("zoh",)


def linearize(diagram: Diagram | Plan, inputs: str | Sequence[str],
              outputs: str | Sequence[str],
              op: OperatingPoint | Mapping[str, Any] | None = None, t: float | None = None,
              open: str | Sequence[str] = (), method: str | None = None,
              name: str | None = None, reduce: bool = True) -> Any:
    """The linear model of ``diagram`` from the ``inputs`` points to the ``outputs`` points.

    Parameters
    ----------
    diagram : Diagram or Plan
        The diagram (compiled here) or its plan.
    inputs : str or sequence of str
        Input points, ``"block.port"`` (one name alone is one point): an output port (a
        perturbation added to its signal, seen by every block that reads it) or an input
        port (added to what that one port reads).
    outputs : str or sequence of str
        Output points, ``"block.port"``: the signal of an output port, or what an input port
        reads.
    op : OperatingPoint or mapping, optional
        Where to linearize: a point (states and root inputs, e.g. from :func:`trim`) or
        ``{state name: value}`` (the other states and the inputs as in the diagram); default
        the diagram's initial state.
    t : float, optional
        Time [s] (default ``op.t``, else 0).
    open : str or sequence of str
        Loop openings, ``"block.port"``: an output port (its readers no longer see its
        signal) or an input port (that port no longer reads it); an input point there feeds
        the readers, an output point there measures the signal before the cut.
    method : {None, "zoh"}
        ``"zoh"`` for a diagram with continuous states and one discrete rate: the sampled-data
        model at the clock's period; such a diagram is refused without it. No effect on a
        purely continuous or purely discrete diagram. Only the rates of the blocks that
        matter count (those with states, or on a path from an input point or a state to an
        output point or a state): a clocked noise source is not one.
    name : str, optional
        Name of the system (default the diagram's).
    reduce : bool
        Block reduction, as Simulink's default: only the blocks on a path from an input
        point to an output point (through the wires, loops included) are linearized, so the
        model's states are theirs (a clocked noise source or a filter off the path adds
        none). ``False`` keeps every state of the diagram (the transfer functions are the
        same; the extra modes are uncontrollable or unobservable).

    Returns
    -------
    control.StateSpace
        ``dt = 0`` (continuous) or the clock's period [s]; states named as the plan's
        (``"block.x0"``), inputs and outputs as the points with ``:`` for ``.`` (python-control
        reserves the dot): ``"plant:y"``, ``"plant:y[1]"`` for an array element.

    Raises
    ------
    AnalysisError
        A bad point name (every one is checked, with suggestions), a point named twice, mixed
        or multiple rates without a method, a singular algebraic loop, a block that fails.
    """
    import control  # lazily: a slow import, only for analysis

    plan = as_plan(diagram)
    model = linear_model(plan, _names(inputs), _names(outputs), op, t, _names(open), method,
                         reduce)
    A, B, C, D, dt, states, ins, outs = model
    sysname = _label(name or plan.name).replace(":", "_") or "diagram"
    sys = control.ss(A, B, C, D, dt, states=states, inputs=[_label(n) for n in ins],
                     outputs=[_label(n) for n in outs], name=sysname)
    return sys


def _names(points: str | Sequence[str]) -> list[str]:
    """A list of point names (one name alone is a list of one)."""
    return [points] if isinstance(points, str) else list(points)


def _label(name: str) -> str:
    return name.replace(".", ":")


def linear_model(plan: Plan, inputs: list[str], outputs: list[str],
                 op: OperatingPoint | Mapping[str, Any] | None = None, t: float | None = None,
                 opened: Sequence[str] = (), method: str | None = None,
                 reduce: bool = True) -> tuple[Any, ...]:
    """``(A, B, C, D, dt, state names, input names, output names)`` of :func:`linearize`
    (numpy arrays; the names with the plan's dots)."""
    lay = Layout(plan)
    pts = _Points(lay, inputs, outputs, list(opened))
    if method is not None and method not in METHODS:
        raise AnalysisError(f"linearize: unknown method {method!r}; choose one of "
                            f"{', '.join(METHODS)} (or None)")
    keep = _relevant(lay, pts, reduce)
    # the rates of the blocks that matter (a clocked noise source feeding a continuous plant
    # does not make its model sampled)
    clock = clock_of(plan, keep)
    continuous = [plan.entries[k].name for k in lay.dynamic
                  if k in keep and not plan.entries[k].discrete]
    if clock is not None and continuous and method is None:
        names = continuous
        raise AnalysisError(
            f"linearize: diagram '{plan.name}' mixes continuous states ({', '.join(names[:5])}"
            f"{', ...' if len(names) > 5 else ''}) with a discrete rate (a clock of "
            f"{clock.period:g} s): a linear model is either continuous or discrete. Pass "
            f"method='zoh' for the sampled-data model at {clock.period:g} s (the continuous "
            f"part discretized with its inputs held between hits)")
    if not isinstance(op, OperatingPoint):  # None, or states by name
        op = initial_point(plan, op, None, 0.0 if t is None else t)
    t = op.t if t is None else float(t)
    x, xd = op.vectors(plan)
    sig = evaluate_signals(plan, t, x, xd, op.overrides(plan))
    stack = _Stack(lay, pts, keep, t, x, xd, sig)
    if clock is not None and continuous:
        A, B, C, D = stack.sampled(clock.period)
        dt: float = clock.period
    else:
        A, B, C, D = stack.compose(stack.open_s, stack.open_p)
        dt = clock.period if clock is not None else 0
    return (A, B, C, D, dt, stack.state_names, pts.in_labels, pts.out_labels)


class _Points:
    """The analysis points, resolved: which signal or input port each names."""

    def __init__(self, lay: Layout, inputs: list[str], outputs: list[str], opened: list[str]):
        self.lay = lay
        problems: list[str] = []
        for what, names in (("input point", inputs), ("output point", outputs),
                            ("opening", opened)):
            seen = set()
            for n in names:
                try:
                    key = self._canonical(n, what)
                except AnalysisError as exc:
                    problems.append(str(exc))
                    continue
                if key in seen:
                    problems.append(f"{what} '{n}' is given twice")
                seen.add(key)
        if not inputs and not problems:
            problems.append("linearize needs at least one input point (inputs=['block.port'])")
        if not outputs and not problems:
            problems.append("linearize needs at least one output point "
                            "(outputs=['block.port'])")
        if problems:
            raise AnalysisError("linearize: " + "; ".join(problems))
        # internally: an output port's signal name or an input port's name
        self.inputs = [self._canonical(n, "") for n in inputs]
        self.outputs = [self._canonical(n, "") for n in outputs]
        self.opened = [self._canonical(n, "") for n in opened]
        self.in_labels = [lab for n in inputs for lab in self._labels(n)]
        self.out_labels = [lab for n in outputs for lab in self._labels(n)]

    def _canonical(self, name: str, what: str) -> str:
        """``name`` as an output port's signal name or an input port's name."""
        if name in self.lay.by_name or name in self.lay.inport:
            return name
        return self.lay.signal(name, what).name

    def _labels(self, name: str) -> list[str]:
        s = self.lay.signal(name, "point")
        if s.shape == ():
            return [name]
        return [f"{name}[{i}]" for i in range(s.size)]

    def is_port(self, name: str) -> bool:
        """Whether ``name`` is an input port (not an output port's signal)."""
        return name in self.lay.inport and name not in self.lay.by_name


class _Stack:
    """The stacked block Jacobians of the relevant blocks and the routing matrices."""

    def __init__(self, lay: Layout, pts: _Points, keep: list[int], t: float, x: np.ndarray,
                 xd: np.ndarray, sig: list[Any]):
        plan = lay.plan
        self.lay, self.pts = lay, pts
        # signal rows: the outputs of the kept blocks and every point's signal
        slots = sorted({s for k in keep for s in plan.entries[k].out_slots}
                       | {lay.signal(n, "point").slot
                          for n in (*pts.inputs, *pts.outputs, *pts.opened)})
        self.row = {}
        at = 0
        for s in slots:
            self.row[s] = at
            at += lay.signals[s].size
        N = at
        # input-port columns: every input port of a kept block
        self.col: dict[tuple[int, int], int] = {}
        at = 0
        for k in keep:
            e = plan.entries[k]
            for p, s in enumerate(e.in_slots):
                self.col[(k, p)] = at
                at += int(np.prod(plan.signal_shapes[s], dtype=int))
        M = at
        # the linear states of the kept blocks
        kept = set(keep)
        self.dynamic = [k for k in lay.dynamic if k in kept]
        self.offset, self.state_names = {}, []
        for k in self.dynamic:
            e = plan.entries[k]
            self.offset[k] = len(self.state_names)
            self.state_names += lay.state_names[lay.state_offset[k]:
                                                lay.state_offset[k] + e.states.stop -
                                                e.states.start]
        n = self.n = len(self.state_names)
        self.Ab, self.Bb = np.zeros((n, n)), np.zeros((n, M))
        self.Cb, self.Db = np.zeros((N, n)), np.zeros((N, M))
        self.P = np.zeros((M, N))
        for k in keep:
            e = plan.entries[k]
            xb = (xd if e.discrete else x)[e.states]
            u = [sig[s] for s in e.in_slots]
            jac = block_jacobian(e, t, xb, u, [plan.signal_shapes[s] for s in e.out_slots])
            c0 = self.col[(k, 0)] if e.in_slots else 0
            cu = slice(c0, c0 + jac.D.shape[1])
            r0 = self.row[e.out_slots[0]] if e.out_slots else 0
            ry = slice(r0, r0 + jac.C.shape[0])
            self.Db[ry, cu] = jac.D
            if k in self.offset and jac.A.size:
                o = self.offset[k]
                xs = slice(o, o + jac.A.shape[0])
                self.Ab[xs, xs] = jac.A
                self.Bb[xs, cu] = jac.B
                self.Cb[ry, xs] = jac.C
            for p, s in enumerate(e.in_slots):
                if s in self.row:
                    size = lay.signals[s].size
                    c, r = self.col[(k, p)], self.row[s]
                    self.P[c:c + size, r:r + size] = np.eye(size)
        self.N, self.M = N, M
        # perturbations: where each input point adds its du (signal rows or port columns)
        nd = len(pts.in_labels)
        self.Es, self.Ep = np.zeros((N, nd)), np.zeros((M, nd))
        at = 0
        self.du_at: dict[str, slice] = {}
        for name in pts.inputs:
            size = lay.signal(name, "point").size
            self.du_at[name] = slice(at, at + size)
            if pts.is_port(name):
                k, p = lay.inport[name]
                if (k, p) in self.col:
                    c = self.col[(k, p)]
                    self.Ep[c:c + size, at:at + size] = np.eye(size)
            else:
                r = self.row[lay.by_name[name]]
                self.Es[r:r + size, at:at + size] = np.eye(size)
            at += size
        self.open_s, self.open_p = np.ones(N), np.ones(M)
        for name in pts.opened:
            size = lay.signal(name, "point").size
            if pts.is_port(name):
                if lay.inport[name] in self.col:
                    c = self.col[lay.inport[name]]
                    self.open_p[c:c + size] = 0.0
            else:
                r = self.row[lay.by_name[name]]
                self.open_s[r:r + size] = 0.0

    def compose(self, open_s: np.ndarray, open_p: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(A, B, C, D)`` of the diagram with the openings ``open_s``/``open_p`` (zeros
        where cut), as in the module docstring."""
        Os, Op = open_s[:, None], open_p[:, None]
        route = Op * (self.P * open_s[None, :])  # Op P Os
        feed = Op * (self.P @ self.Es) + self.Ep  # Op P Es + Ep
        Mmat = np.eye(self.N) - self.Db @ route
        try:
            G = np.linalg.solve(Mmat, np.hstack([self.Cb, self.Db @ feed]))
        except np.linalg.LinAlgError:
            raise AnalysisError(
                f"linearize: the algebraic loop of diagram '{self.lay.plan.name}' has no "
                f"unique solution at the operating point (its feedthrough Jacobian I - D is "
                f"singular); open the loop at a port (open=[...]) or move the operating "
                f"point") from None
        n = self.n
        Gx, Gu = G[:, :n], G[:, n:]
        Ux, Uu = route @ Gx, route @ Gu + feed
        A = self.Ab + self.Bb @ Ux
        B = self.Bb @ Uu
        rows_x, rows_u = [], []
        for name in self.pts.outputs:
            s = self.lay.signal(name, "point")
            r = self.row[s.slot]
            sl = slice(r, r + s.size)
            mx, mu = Gx[sl].copy(), Gu[sl].copy()  # the signal itself, before any cut
            if self.pts.is_port(name):
                k, p = self.lay.inport[name]
                cut_s = Os[sl, 0]  # readers of a signal cut there see none of it
                mx, mu = mx * cut_s[:, None], mu * cut_s[:, None]
                mu += self.Es[sl]
                c = self.col.get((k, p))
                port_open = c is not None and open_p[c] == 0.0
                if name in self.du_at and not port_open:
                    mu[:, self.du_at[name]] += np.eye(s.size)
            elif name in self.du_at and not np.all(Os[sl, 0] == 0.0):
                mu += self.Es[sl]
            rows_x.append(mx)
            rows_u.append(mu)
        C = np.vstack(rows_x) if rows_x else np.zeros((0, n))
        D = np.vstack(rows_u) if rows_u else np.zeros((0, B.shape[1]))
        return A, B, C, D

    def sampled(self, T: float) -> tuple[np.ndarray, ...]:
        """The sampled-data model at period ``T`` [s] (``method="zoh"``)."""
        from scipy.linalg import expm

        plan = self.lay.plan
        cont = np.array([not plan.entries[k].discrete for k in self.dynamic
                         for _ in range(plan.entries[k].states.stop -
                                        plan.entries[k].states.start)], dtype=bool)
        # at a hit: every signal from (xc, xd, du), the discrete updates, the measurements
        Ah, Bh, Ch, Dh = self.compose(self.open_s, self.open_p)
        # between hits: the continuous part with the discrete-rate signals held (cut, and fed
        # back as extra inputs w = their values at the hit)
        held = np.array([_held(plan, s) for s in sorted(self.row, key=self.row.get)
                         for _ in range(self.lay.signals[s].size)], dtype=bool)
        if held.size == 0:
            held = np.zeros(self.N, dtype=bool)
        Es, Ep = self.Es, self.Ep
        w_cols = np.eye(self.N)[:, held]
        # readers of a held signal see w, which holds the signal's perturbation already
        self.Es = np.hstack([Es * ~held[:, None], w_cols])
        self.Ep = np.hstack([Ep, np.zeros((self.M, int(held.sum())))])
        try:
            Ac, Bc, _, _ = self.compose(self.open_s * ~held, self.open_p)
        finally:
            self.Es, self.Ep = Es, Ep
        # the held signals' values at the hit, from the at-hit composition
        Gw = self._signals_at_hit(held)
        nd = Bh.shape[1]
        ic = np.flatnonzero(cont)
        Acc = Ac[np.ix_(ic, ic)]
        Bcu = Bc[ic, :nd]
        Bcw = Bc[ic, nd:]
        nc = ic.size
        m = Bc.shape[1]
        big = np.zeros((nc + m, nc + m))
        big[:nc, :nc], big[:nc, nc:] = Acc * T, np.hstack([Bcu, Bcw]) * T
        E = expm(big)
        Phi, Gam = E[:nc, :nc], E[:nc, nc:]
        Gu_, Gw_ = Gam[:, :nd], Gam[:, nd:]
        A = Ah.copy()
        B = Bh.copy()
        # x_c[k+1] = Phi x_c + Gu du + Gw w,  w = Wx x + Wu du (at the hit)
        Wx, Wu = Gw
        A[ic, :] = 0.0
        A[np.ix_(ic, ic)] = Phi
        A[ic, :] += Gw_ @ Wx
        B[ic, :] = Gu_ + Gw_ @ Wu
        return A, B, Ch, Dh

    def _signals_at_hit(self, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(Wx, Wu)``: the held signals at a hit as functions of the states and ``du``."""
        Os, Op = self.open_s, self.open_p
        route = Op[:, None] * (self.P * Os[None, :])
        feed = Op[:, None] * (self.P @ self.Es) + self.Ep
        Mmat = np.eye(self.N) - self.Db @ route
        G = np.linalg.solve(Mmat, np.hstack([self.Cb, self.Db @ feed]))
        n = self.n
        cut = Os[held, None]  # a held signal opened there: its readers see only du
        return cut * G[held, :n], cut * G[held, n:] + self.Es[held]


def _held(plan: Plan, slot: int) -> bool:
    """Whether signal ``slot`` is held between hits (computed on a clock)."""
    e = next(e for e in plan.entries if slot in e.out_slots)
    return isinstance(e.rate, Clock)


def _relevant(lay: Layout, pts: _Points, reduce: bool = True) -> list[int]:
    """Entries that matter: those both reached from an input point and reaching an output
    point by the wires (``reduce``); without ``reduce`` also every block with linear states,
    and those between states and points."""
    plan = lay.plan
    producer = {s: k for k, e in enumerate(plan.entries) for s in e.out_slots}
    succ: dict[int, set[int]] = {k: set() for k in range(len(plan.entries))}
    for k, e in enumerate(plan.entries):
        for s in e.in_slots:
            if s in producer:
                succ[producer[s]].add(k)
    pred: dict[int, set[int]] = {k: set() for k in succ}
    for a, bs in succ.items():
        for b in bs:
            pred[b].add(a)
    states = set() if reduce else set(lay.dynamic)
    start = set(states)
    end = set(states)
    for n in pts.inputs:
        s = lay.signal(n, "point")
        if pts.is_port(n):
            start.add(lay.inport[n][0])
        else:
            start |= succ[s.entry]
    for n in pts.outputs:
        end.add(lay.signal(n, "point").entry)
    fwd = _reach(start, succ)
    bwd = _reach(end, pred)
    return sorted(states | (fwd & bwd))


def _reach(start: set[int], graph: dict[int, set[int]]) -> set[int]:
    seen = set(start)
    todo = list(start)
    while todo:
        for b in graph[todo.pop()]:
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def dc_gain(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Steady-state gain ``D - C A^-1 B`` of a continuous model (NaN where A is singular)."""
    try:
        return D - C @ np.linalg.solve(A, B)
    except np.linalg.LinAlgError:
        return np.full(D.shape, np.nan)


__all__ = ["METHODS", "dc_gain", "flat", "linear_model", "linearize"]
