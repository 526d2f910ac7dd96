"""Trim: the states and root inputs at which a diagram is steady and its outputs are given.

Unknowns: the free states (continuous, and discrete on a clock) and the free root inputs
(the values of ``Constant`` blocks, see :mod:`blocksim.analysis.operating_point`). Residuals:
dx/dt of every continuous state, x[k+1] - x[k] of every discrete one (but those named
``unsteady``), and the error of every target output. They are driven to zero by
``scipy.optimize.least_squares`` (trust-region reflective, three-point Jacobian) from the
starting point ``x0``/``u0``; with more unknowns than conditions it returns a solution near
the start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from blocksim.analysis.operating_point import (
    OperatingPoint,
    _jsonable,
    as_plan,
    initial_point,
    input_name,
    root_inputs,
    steady_residuals,
)
from blocksim.analysis.points import (
    AnalysisError,
    Layout,
    evaluate_signals,
    flat,
    resolve_states,
)
from blocksim.engine.diagram import Diagram
from blocksim.engine.plan import Plan

#: default tolerance on the largest residual for ``success``
TOL = 1e-8


def trim(diagram: Diagram | Plan, x0: Mapping[str, Any] | OperatingPoint | Any = None,
         u0: Mapping[str, Any] | None = None, fix_states: Iterable[str] = (),
         fix_inputs: Iterable[str] = (), targets: Mapping[str, Any] | None = None,
         t: float = 0.0, tol: float = TOL, max_nfev: int | None = None,
         unsteady: Iterable[str] = ()) -> OperatingPoint:
    """Find an operating point of ``diagram`` where the states are steady and the
    ``targets`` hold.

    Parameters
    ----------
    diagram : Diagram or Plan
        The diagram (compiled here) or its plan.
    x0 : mapping, OperatingPoint or array_like, optional
        Starting (and, for fixed states, given) state values by name (``"block.x0"``, or a
        block name for all its states; a value per state or one for all), or a vector of
        every state (continuous, then discrete, in the plan's order); default the diagram's
        initial states.
    u0 : mapping, optional
        Starting (or fixed) root-input values by name (``"torque.y"`` or ``"torque"``);
        default the blocks' own values.
    fix_states : iterable of str
        States held at their ``x0`` values (names as for ``x0``); the others are free.
    fix_inputs : iterable of str
        Root inputs held at their ``u0`` values; the others are free.
    targets : mapping, optional
        ``{"block.port": value}``: signals (output ports, or what an input port reads)
        required to take these values (a number, or an array of the signal's shape).
    t : float
        Time [s] of the operating point.
    tol : float
        Largest residual (dx/dt, x[k+1] - x[k] or target error, absolute) for ``success``.
    max_nfev : int, optional
        Most residual evaluations (default scipy's: 100 per unknown).
    unsteady : iterable of str
        States whose derivative (or update) need not vanish (Simulink's ``SteadyState``
        false): a position moving at a trimmed speed, an integrator of a non-zero signal.

    Returns
    -------
    OperatingPoint
        States, inputs, every signal, the largest residual and ``success``.

    Raises
    ------
    AnalysisError
        A name that is not a state, root input or port (with suggestions), a target of the
        wrong size, a block that fails while evaluated.
    """
    from scipy.optimize import least_squares

    plan = as_plan(diagram)
    lay = Layout(plan)
    start = initial_point(plan, x0, u0, t)
    x, xd = start.vectors(plan)
    roots = root_inputs(plan)
    base = start.overrides(plan)
    fixed_in = {input_name(roots, n, "fix_inputs") for n in fix_inputs}
    free_in = [n for n in roots if n not in fixed_in]
    fixed_x = _fixed_state_mask(plan, lay, fix_states, "fix_states")
    steady = ~_fixed_state_mask(plan, lay, unsteady, "unsteady")
    z_x = lay.state_vector(x, xd)
    free_x = np.flatnonzero(~fixed_x)
    sizes = [flat(base[roots[n]]).size for n in free_in]
    goals = _targets(lay, targets or {})

    def unpack(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[int, Any]]:
        zx = z_x.copy()
        zx[free_x] = z[:free_x.size]
        xs, xds = x.copy(), xd.copy()
        lay.split_states(zx, xs, xds)
        over = dict(base)
        at = free_x.size
        for n, size in zip(free_in, sizes):
            shape = plan.signal_shapes[roots[n]]
            v = z[at:at + size]
            over[roots[n]] = float(v[0]) if shape == () else v.reshape(shape).copy()
            at += size
        return xs, xds, over

    def residuals(z: np.ndarray) -> np.ndarray:
        xs, xds, over = unpack(z)
        sig = evaluate_signals(plan, t, xs, xds, over)
        r = [steady_residuals(plan, lay, t, xs, xds, sig)[steady]]
        r += [flat(sig[slot]) - goal for slot, goal in goals]
        return np.concatenate(r)

    z0 = np.concatenate([z_x[free_x], *[flat(base[roots[n]]) for n in free_in]])
    message = "nothing to solve: no free state or input"
    if z0.size:
        r0 = residuals(z0)
        if r0.size == 0:
            raise AnalysisError(f"trim: diagram '{plan.name}' has no state and no target: "
                                f"nothing to make steady (give targets={{'block.port': "
                                f"value}})")
        with np.errstate(all="ignore"):
            sol = least_squares(residuals, z0, jac="3-point", method="trf", xtol=1e-15,
                                ftol=1e-15, gtol=1e-15, max_nfev=max_nfev)
        z = sol.x
        message = str(sol.message)
    else:
        z = z0
    xs, xds, over = unpack(z)
    sig = evaluate_signals(plan, t, xs, xds, over)
    r = residuals(z) if z.size or goals or lay.n else np.zeros(0)
    worst = float(np.max(np.abs(r))) if r.size else 0.0
    states = dict(zip(plan.state_names, xs.tolist()))
    states.update(zip(plan.discrete_state_names, xds.tolist()))
    inputs = {n: _jsonable(over.get(roots[n], sig[roots[n]])) for n in roots}
    outputs = {n: _jsonable(v) for n, v in zip(plan.signal_names, sig)}
    ok = bool(np.isfinite(worst) and worst <= tol)
    if not ok:
        message = (f"{message} (largest residual {worst:.3g} > tol {tol:g}: no steady point "
                   f"with these targets near the start; try another x0/u0, free more inputs, "
                   f"or check the targets can be reached)")
    return OperatingPoint(states=states, inputs=inputs, outputs=outputs, residual=worst,
                          success=ok, t=float(t), message=message)


def _fixed_state_mask(plan: Plan, lay: Layout, names: Iterable[str],
                     what: str) -> np.ndarray:
    """Boolean over the linear states: True for the states named in ``names``."""
    if isinstance(names, str):
        names = [names]
    index = {n: i for i, n in enumerate(lay.state_names)}
    mask = np.zeros(lay.n, dtype=bool)
    for disc, i in resolve_states(plan, list(names), what):
        name = (plan.discrete_state_names if disc else plan.state_names)[i]
        if name in index:  # (an EVENT block's mode is never free anyway)
            mask[index[name]] = True
    return mask


def _targets(lay: Layout, targets: Mapping[str, Any]) -> list[tuple[int, np.ndarray]]:
    out, problems = [], []
    for name, value in targets.items():
        try:
            s = lay.signal(name, "target")
        except AnalysisError as exc:
            problems.append(str(exc))
            continue
        goal = flat(value)
        if goal.size != s.size:
            problems.append(f"target '{name}': {goal.size} values for a signal of shape "
                            f"{s.shape}")
            continue
        if not np.all(np.isfinite(goal)):
            problems.append(f"target '{name}': {value!r} is not finite")
            continue
        out.append((s.slot, goal))
    if problems:
        raise AnalysisError("trim: " + "; ".join(problems))
    return out
