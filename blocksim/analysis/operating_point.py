"""Operating points: states and root inputs of a diagram, the signals there, and how far from
steady they are.

A *root input* is the output of a source block whose value is a parameter: a ``Constant`` (or
any block without inputs or states, of constant rate, with a ``value`` parameter). Its name is
its signal's, ``"block.y"``; where a name is read, the block's name alone (``"torque"``) is
accepted too.

An :class:`OperatingPoint` is what :func:`~blocksim.analysis.trim` finds and what
:func:`~blocksim.analysis.linearize` and :func:`blocksim.simulate` (``x0=op``) start from:
``simulate`` calls :meth:`OperatingPoint.as_initial_state`, which gives the states their
operating-point values and the root inputs' blocks their operating-point values (so a trimmed
torque is applied during the run, and the run stays at the equilibrium). It saves to and loads
from strict JSON (no NaN or Infinity).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.analysis.points import (
    AnalysisError,
    Layout,
    evaluate_signals,
    flat,
    resolve_states,
)
from blocksim.confine import read_regular
from blocksim.engine.batch import with_overrides
from blocksim.engine.clock import Clock
from blocksim.engine.compile import compile_diagram
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import DiagramError, listing, plain, suggest
from blocksim.engine.plan import Plan

#: the format tag and version of a saved operating point
FORMAT = "blocksim-operating-point"
VERSION = 1
#: largest operating-point file read [bytes]
MAX_FILE_BYTES = 50_000_000


class Names(dict):  # type: ignore[type-arg]
    """A dict by signal or state name that also answers to a block's name alone: ``"tau"``
    for ``"tau.y"`` (the block's only output), ``"theta"`` for ``"theta.x"`` (its only
    state)."""

    def __missing__(self, key: Any) -> Any:
        if isinstance(key, str) and "." not in key:
            mine = [k for k in self if k.rsplit(".", 1)[0] == key]
            if len(mine) == 1:
                return self[mine[0]]
        raise KeyError(key)

    def get(self, key: Any, default: Any = None) -> Any:
        """``self[key]``, or ``default`` when there is no such name."""
        try:
            return self[key]
        except KeyError:
            return default


@dataclass
class OperatingPoint:
    """States, root inputs and signals of a diagram at one instant.

    Attributes
    ----------
    states : dict of str to float
        Every state by name (``"block.x0"``, as ``plan.state_names`` and
        ``plan.discrete_state_names``), in the state's unit. The three dicts also answer to
        a block's name alone when it has one state or output (``op.inputs["tau"]``).
    inputs : dict of str to float or list
        Every root input by signal name (``"torque.y"``): a float, or a nested list for an
        array value.
    outputs : dict of str to float or list
        Every signal (``"block.port"``) at the operating point.
    residual : float
        Largest absolute value of the steady-state residuals (dx/dt of continuous states,
        x[k+1] - x[k] of discrete ones) and of the target errors of a trim.
    success : bool
        Whether the point was found (a trim converged within its tolerance).
    t : float
        Time [s] of the operating point.
    message : str
        What the trim's solver said, or how the point was made.
    """

    states: dict[str, float]
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    residual: float = 0.0
    success: bool = True
    t: float = 0.0
    message: str = ""

    def __post_init__(self) -> None:
        self.states = Names(self.states)
        self.inputs = Names(self.inputs)
        self.outputs = Names(self.outputs)

    # ------------------------------------------------------------------ use
    def vectors(self, plan: Plan) -> tuple[np.ndarray, np.ndarray]:
        """The plan's continuous and discrete state vectors ``(x, xd)`` with this point's
        states (states this point does not name keep the plan's initial values).

        Raises
        ------
        AnalysisError
            A state name of this point is not a state of the plan.
        """
        x, xd = plan.x0.astype(float).copy(), plan.xd0.astype(float).copy()
        pairs = resolve_states(plan, list(self.states), "operating point state")
        for (disc, i), v in zip(pairs, self.states.values()):
            (xd if disc else x)[i] = float(v)
        return x, xd

    def overrides(self, plan: Plan) -> dict[int, Any]:
        """``{slot: value}`` of this point's root inputs in ``plan``."""
        roots = root_inputs(plan)
        out = {}
        for name, value in self.inputs.items():
            slot = roots.get(name, roots.get(f"{name}.y"))
            if slot is None:
                raise AnalysisError(f"operating point input '{name}': not a root input "
                                    f"(Constant) of diagram '{plan.name}'"
                                    f"{suggest(name, roots)}; root inputs: "
                                    f"{listing(list(roots))}")
            shape = plan.signal_shapes[slot]
            arr = np.asarray(value, dtype=float)
            if arr.size != int(np.prod(shape, dtype=int)):
                raise AnalysisError(f"operating point input '{name}': {arr.size} values for a "
                                    f"signal of shape {shape}")
            out[slot] = float(arr.reshape(-1)[0]) if shape == () else arr.reshape(shape)
        return out

    def as_initial_state(self, plan: Plan) -> Plan:
        """``plan`` starting at this point: its root inputs' blocks rebuilt with this point's
        values (``Constant(value=...)``), its initial states replaced by this point's.

        This is what :func:`blocksim.simulate` calls for ``x0=op``.
        """
        over = {}
        owners = {s: e.name for e in plan.entries for s in e.out_slots}
        for slot, value in self.overrides(plan).items():
            over[f"{owners[slot]}.value"] = value
        if over:
            plan = with_overrides(plan, over)
        x, xd = self.vectors(plan)
        return dataclasses.replace(plan, x0=x, xd0=xd)

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (numbers and nested lists only)."""
        return {"format": FORMAT, "version": VERSION, "t": float(self.t),
                "success": bool(self.success), "residual": float(self.residual),
                "message": str(self.message),
                "states": {k: float(v) for k, v in self.states.items()},
                "inputs": {k: _jsonable(v) for k, v in self.inputs.items()},
                "outputs": {k: _jsonable(v) for k, v in self.outputs.items()}}

    def save(self, path: str | Path) -> Path:
        """Write this point to ``path`` as strict JSON; return the path.

        Raises
        ------
        ValueError
            A value is NaN or infinite (strict JSON has no such numbers).
        """
        try:
            text = json.dumps(self.to_dict(), indent=1, allow_nan=False)
        except ValueError:
            bad = [k for k, v in {**self.states, **self.inputs, **self.outputs}.items()
                   if not np.all(np.isfinite(np.asarray(v, dtype=float)))]
            raise ValueError(f"operating point not saved: {listing(bad)} "
                             f"{'is' if len(bad) == 1 else 'are'} NaN or infinite, which "
                             f"strict JSON cannot hold") from None
        p = Path(path)
        p.write_text(text + "\n")
        return p

    @classmethod
    def from_dict(cls, data: Any, where: str = "operating point") -> OperatingPoint:
        """The point of a dict as :meth:`to_dict` makes; :class:`AnalysisError` naming the
        first bad entry otherwise."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise AnalysisError(f"{where}: not an operating point (expected a JSON object "
                                f"with \"format\": \"{FORMAT}\", as OperatingPoint.save "
                                f"writes)")
        if data.get("version") != VERSION:
            raise AnalysisError(f"{where}: version {plain(data.get('version'))} is not "
                                f"supported (expected {VERSION})")
        states = _mapping(data, "states", where, scalar=True)
        inputs = _mapping(data, "inputs", where, scalar=False)
        outputs = _mapping(data, "outputs", where, scalar=False)
        t, residual = data.get("t", 0.0), data.get("residual", 0.0)
        for key, v in (("t", t), ("residual", residual)):
            if not _number(v):
                raise AnalysisError(f"{where}: \"{key}\" must be a number, got {plain(v)}")
        return cls(states=states, inputs=inputs, outputs=outputs, residual=float(residual),
                   success=bool(data.get("success", True)), t=float(t),
                   message=str(data.get("message", "")))

    @classmethod
    def load(cls, path: str | Path) -> OperatingPoint:
        """Read a point written by :meth:`save`.

        Raises
        ------
        OSError
            The file cannot be read.
        AnalysisError
            It is not valid JSON or not an operating point (the message says where).
        """
        raw = read_regular(path, MAX_FILE_BYTES)
        where = str(path)

        def refuse(token: str) -> Any:
            raise AnalysisError(f"{where}: {token} is not a number of strict JSON")

        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=refuse)
        except UnicodeDecodeError:
            raise AnalysisError(f"{where}: not a UTF-8 text file") from None
        except json.JSONDecodeError as exc:
            raise AnalysisError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from None
        return cls.from_dict(data, where)


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _jsonable(v: Any) -> Any:
    a = np.asarray(v, dtype=float)
    return float(a) if a.ndim == 0 else a.tolist()


def _mapping(data: dict[str, Any], key: str, where: str, scalar: bool) -> dict[str, Any]:
    m = data.get(key, {})
    if not isinstance(m, dict):
        raise AnalysisError(f"{where}: \"{key}\" must be an object of names to values")
    out = {}
    for name, v in m.items():
        ok = _number(v) if scalar else _numbers(v)
        if not ok:
            raise AnalysisError(f"{where}: {key}[\"{name}\"] must be a "
                                f"{'number' if scalar else 'number or list of numbers'}, got "
                                f"{plain(v)}")
        out[name] = float(v) if _number(v) else v
    return out


def _numbers(v: Any) -> bool:
    if isinstance(v, list):
        return all(_numbers(w) for w in v)
    return _number(v)


# ---------------------------------------------------------------------- computing points
def as_plan(diagram: Diagram | Plan) -> Plan:
    """The compiled plan of ``diagram`` (compiled here unless it is one already; with its
    algebraic loops solved where it has some and the engine can solve them)."""
    if isinstance(diagram, Plan):
        return diagram
    if not isinstance(diagram, Diagram):
        raise TypeError(f"expected a Diagram or a Plan, got {type(diagram).__name__}")
    try:
        return compile_diagram(diagram)
    except DiagramError as exc:
        # a diagram whose only problems are algebraic loops: compiled with them solved
        if not exc.problems or not all(p.startswith("algebraic loop") for p in exc.problems):
            raise
        return compile_diagram(diagram, algebraic="solve")


def root_inputs(plan: Plan) -> dict[str, int]:
    """Signal name -> slot of every root input of ``plan`` (see the module docstring)."""
    out = {}
    for e in plan.entries:
        b = e.block
        if (not b.inputs and e.states.stop == e.states.start and e.rate == "constant"
                and len(e.out_slots) == 1 and "value" in b.params):
            out[plan.signal_names[e.out_slots[0]]] = e.out_slots[0]
    return out


def steady_residuals(plan: Plan, layout: Layout, t: float, x: np.ndarray, xd: np.ndarray,
                     sig: list[Any]) -> np.ndarray:
    """dx/dt of the continuous states and x[k+1] - x[k] of the clocked discrete ones, in the
    order of ``layout.state_names``, given the signals ``sig`` at (t, x, xd)."""
    parts = []
    for k in layout.dynamic:
        e = plan.entries[k]
        u = [sig[s] for s in e.in_slots]
        method = "update" if e.discrete else "deriv"
        xb = (xd if e.discrete else x)[e.states]
        try:
            v = flat(getattr(e.block, method)(t, xb, u))
        except Exception as exc:
            raise AnalysisError(f"block '{e.name}' ({e.kind}): {method}() raised "
                                f"{type(exc).__name__}: {exc} at t={t:g} s") from exc
        parts.append(v - xb if e.discrete else v)
    return np.concatenate(parts) if parts else np.zeros(0)


def operating_point(diagram: Diagram | Plan, x0: Mapping[str, Any] | OperatingPoint | None = None,
                    u0: Mapping[str, Any] | None = None, t: float = 0.0) -> OperatingPoint:
    """The operating point of ``diagram`` at its initial states (or ``x0``, by state name)
    and root inputs (or ``u0``, by input name) at time ``t`` [s]: its signals there and how
    far from steady it is (``residual``), without solving anything.

    Returns
    -------
    OperatingPoint
        ``success`` is True whatever the residual (nothing was asked of it).
    """
    plan = as_plan(diagram)
    op = initial_point(plan, x0, u0, t)
    layout = Layout(plan)
    x, xd = op.vectors(plan)
    sig = evaluate_signals(plan, t, x, xd, op.overrides(plan))
    r = steady_residuals(plan, layout, t, x, xd, sig)
    op.outputs = Names({n: _jsonable(v) for n, v in zip(plan.signal_names, sig)})
    op.residual = float(np.max(np.abs(r))) if r.size else 0.0
    op.message = "the diagram's initial state" if x0 is None else "the given state"
    return op


def initial_point(plan: Plan, x0: Mapping[str, Any] | OperatingPoint | None,
                  u0: Mapping[str, Any] | None, t: float) -> OperatingPoint:
    """An operating point of the plan's initial states and root-input values, updated with
    ``x0`` (states by name, a whole point, or a vector of every state: the continuous ones,
    then the discrete ones, as ``plan.state_names`` and ``plan.discrete_state_names``) and
    ``u0`` (root inputs by name)."""
    states = dict(zip(plan.state_names, plan.x0.tolist()))
    states.update(zip(plan.discrete_state_names, plan.xd0.tolist()))
    roots = root_inputs(plan)
    sig = _root_values(plan, roots)
    inputs = {n: sig[n] for n in roots}
    if isinstance(x0, OperatingPoint):
        resolve_states(plan, list(x0.states), "x0 state")
        states.update(x0.states)
        inputs.update(x0.inputs)
    elif x0 is not None and not isinstance(x0, Mapping):
        names = [*plan.state_names, *plan.discrete_state_names]
        try:
            vec = np.asarray(x0, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            vec = None
        if vec is None or vec.size != len(names):
            raise AnalysisError(
                f"x0 must be a mapping of state names to values, an OperatingPoint or a "
                f"vector of the {len(names)} states (continuous, then discrete: "
                f"{listing(names)}), got {plain(x0)}")
        states.update(zip(names, vec.tolist()))
    elif x0 is not None:
        for name, value in x0.items():
            pairs = resolve_states(plan, [name], "x0 state")
            vals = np.broadcast_to(np.asarray(value, dtype=float).reshape(-1), (len(pairs),))
            for (disc, i), v in zip(pairs, vals):
                key = (plan.discrete_state_names if disc else plan.state_names)[i]
                states[key] = float(v)
    for name, value in (u0 or {}).items():
        inputs[input_name(roots, name, "u0 input")] = _jsonable(value)
    return OperatingPoint(states=states, inputs=inputs, t=float(t))


def input_name(roots: Mapping[str, int], name: str, what: str) -> str:
    """The root input named ``name`` (``"block.y"`` or ``"block"``), or an AnalysisError."""
    if name in roots:
        return name
    if f"{name}.y" in roots:
        return f"{name}.y"
    raise AnalysisError(f"{what} '{name}': not a root input (the output of a Constant)"
                        f"{suggest(name, roots)}; root inputs: {listing(list(roots))}")


def _root_values(plan: Plan, roots: Mapping[str, int]) -> dict[str, Any]:
    out = {}
    for name, slot in roots.items():
        e = next(e for e in plan.entries if slot in e.out_slots)
        out[name] = _jsonable(e.block.output(0.0, np.zeros(0), ())[0])
    return out


def clock_of(plan: Plan, entries: Iterable[int] | None = None) -> Clock | None:
    """The one discrete clock of the plan's blocks (or of the blocks ``entries``), None
    without; an AnalysisError for several."""
    pick = range(len(plan.entries)) if entries is None else entries
    rates = {plan.entries[k].rate for k in pick if isinstance(plan.entries[k].rate, Clock)}
    if len(rates) > 1:
        periods = sorted(f"{c.period:g} s" for c in rates)
        raise AnalysisError(f"diagram '{plan.name}' has several sample rates ({', '.join(periods)})"
                            f": a linear model has one; linearize a single-rate diagram")
    return next(iter(rates), None)
