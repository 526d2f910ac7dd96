"""Algebraic loops in the fused tier: the Newton iteration generated into a diagram's code.

A :class:`~blocksim.engine.compiled.ir.Loop` (a loop of a plan compiled with
``algebraic="solve"``) is rendered where its statements would be, in every generated function
that evaluates it (``evaluate``, ``rhs``, ``rhs_record``), as one ``while`` loop around one
copy of its body: each pass sets the torn signals from ``_z``, runs the body, and gathers
``g(z)``; a pass is either the residual of a Newton iterate or one column of the
forward-difference Jacobian. The iteration is the interpreted back-end's
(:mod:`blocksim.engine.loops`): the previous solution (the torn signals held in ``sig``) as
the first iterate, step ``sqrt(eps) * max(1, |z_j|)``, converged when every ``|r_i| <=
tol * (1 + |z_i|)``, at most ``maxiter`` Newton steps.

The run options come from ``pv``, after the blocks' parameters (``pv[at]``: tolerance,
``pv[at + 1]``: most iterations; :func:`loop_slots`), so that they are no part of the
generated source. A loop that does not converge (or whose residual is NaN or Inf) writes the
first failure in the next slots (the loop's number + 1, the time, the residual, the
iterations), and in the last elements of ``sig`` (recorded with each row: a batch member's
``pv`` is a copy, :func:`row_failure`), and leaves its signals NaN: the loop ends the run as
NONFINITE with what it recorded, and the back-end raises
:class:`~blocksim.engine.errors.AlgebraicLoopError` from the slots (:func:`loop_failure`).
The data-wired tier does not solve loops: a diagram with loops runs on the fused tier
(:func:`blocksim.engine.compiled.backend.choose_tier`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from blocksim.engine.compiled.ir import LOOP_ROW
from blocksim.engine.errors import AlgebraicLoopError
from blocksim.engine.loops import FD_STEP, not_converged
from blocksim.engine.plan import Plan

if TYPE_CHECKING:
    from blocksim.engine.compiled.ir import Loop, Program
    from blocksim.engine.compiled.render import _Writer

#: the ``pv`` slots after the parameters: tolerance, most iterations, failed loop + 1, time,
#: residual, iterations
LOOP_SLOTS = 6


@njit(cache=True)
def lin_solve(a, b):
    """``x`` with ``a @ x = b`` (Gaussian elimination with partial pivoting; ``a`` and ``b``
    are not changed). A singular ``a`` gives NaN, which the iteration reports (numba's
    division by zero would raise)."""
    n = b.size
    m = a.copy()
    x = b.copy()
    for c in range(n):
        p = c
        for i in range(c + 1, n):
            if abs(m[i, c]) > abs(m[p, c]):
                p = i
        if m[p, c] == 0.0 or not np.isfinite(m[p, c]):
            x[:] = np.nan
            return x
        if p != c:
            for j in range(n):
                m[c, j], m[p, j] = m[p, j], m[c, j]
            x[c], x[p] = x[p], x[c]
        for i in range(c + 1, n):
            f = m[i, c] / m[c, c]
            for j in range(c, n):
                m[i, j] -= f * m[c, j]
            x[i] -= f * x[c]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= m[i, j] * x[j]
        x[i] = s / m[i, i]
    return x


def _parts(w: _Writer, loop: Loop) -> list[tuple[str, int, int, tuple[int, ...]]]:
    """(identifier, start, stop, shape) of each torn signal in ``_z``."""
    out, at = [], 0
    for slot in loop.torn:
        s = w.p.signals[slot]
        out.append((s.ident, at, at + s.size, s.shape))
        at += s.size
    return out


def _unpack(parts: list[tuple[str, int, int, tuple[int, ...]]]) -> list[str]:
    lines = []
    for ident, a, b, shape in parts:
        if not shape:
            lines.append(f"{ident} = _z[{a}]")
        elif len(shape) == 1:
            lines.append(f"{ident} = _z[{a}:{b}].copy()")
        else:
            lines.append(f"{ident} = _z[{a}:{b}].copy().reshape({shape!r})")
    return lines


def _gather(parts: list[tuple[str, int, int, tuple[int, ...]]], into: str) -> list[str]:
    lines = []
    for ident, a, b, shape in parts:
        if not shape:
            lines.append(f"{into}[{a}] = {ident}")
        else:
            lines += [f"_fz = np.ravel({ident})", f"for _i in range({b - a}):",
                      f"    {into}[{a} + _i] = _fz[_i]"]
    return lines


def loop_lines(w: _Writer, loop: Loop) -> list[str]:
    """The code that solves ``loop``: its signals in locals, the torn ones stored in ``sig``
    (the next solve's first iterate); the torn signals must be loaded before."""
    at = w.layout.nv
    row = w.p.nsig - LOOP_ROW
    parts = _parts(w, loop)
    n = parts[-1][2]
    body: list[str] = []
    for s in loop.body:
        body += w.compute(s)
    torn = set(loop.torn)
    lines = [f"# algebraic loop {loop.index + 1}: Newton's method on z = g(z), {n} unknowns"]
    lines += [w.load(o) for o in loop.outs if o not in torn]  # defined on every path
    lines += [f"_z = np.empty({n})", *_gather(parts, "_z"),
              "_zb = _z.copy()", f"_gb = np.empty({n})", f"_g = np.empty({n})",
              f"_jac = np.eye({n})", "_col = -1", "_it = 0", f"_tol = pv[{at}]",
              f"_maxit = pv[{at + 1}]", "while True:"]
    inner = [*_unpack(parts), *body, *_gather(parts, "_g"),
             "if _col == -2:",  # the pass from NaN after a failure
             "    break",
             "if _col == -1:",
             "    _done = True",
             "    _bad = False",
             "    _res = 0.0",
             f"    for _i in range({n}):",
             "        _r = abs(_z[_i] - _g[_i])",
             "        if not _r <= _tol * (1.0 + abs(_z[_i])):",
             "            _done = False",
             "        if not np.isfinite(_r):",
             "            _bad = True",
             "        elif _r > _res:",
             "            _res = _r",
             "    if _done:",
             "        break",
             "    if _it >= _maxit or _bad:",
             f"        if pv[{at + 2}] == 0.0:",
             f"            pv[{at + 2}] = {loop.index + 1}.0",
             f"            pv[{at + 3}] = t",
             f"            pv[{at + 4}] = np.inf if _bad else _res",
             f"            pv[{at + 5}] = _it",
             f"        if sig[{row}] == 0.0:",
             f"            sig[{row}] = {loop.index + 1}.0",
             f"            sig[{row + 1}] = t",
             f"            sig[{row + 2}] = np.inf if _bad else _res",
             f"            sig[{row + 3}] = _it",
             f"        for _i in range({n}):",
             "            _z[_i] = np.nan",
             "        _col = -2",
             "        continue",
             "    _it += 1",
             f"    for _i in range({n}):",
             "        _zb[_i] = _z[_i]",
             "        _gb[_i] = _g[_i]",
             "    _col = 0",
             f"    _z[0] += {FD_STEP!r} * max(1.0, abs(_zb[0]))",
             "else:",
             "    _h = _z[_col] - _zb[_col]",
             f"    for _i in range({n}):",
             "        _jac[_i, _col] = (1.0 if _i == _col else 0.0) - (_g[_i] - _gb[_i]) / _h",
             "    _z[_col] = _zb[_col]",
             "    _col += 1",
             f"    if _col < {n}:",
             f"        _z[_col] += {FD_STEP!r} * max(1.0, abs(_zb[_col]))",
             "    else:",
             f"        for _i in range({n}):",
             "            _g[_i] = _zb[_i] - _gb[_i]",
             "        _dz = lin_solve(_jac, _g)",
             f"        for _i in range({n}):",
             "            _z[_i] = _zb[_i] - _dz[_i]",
             "        _col = -1"]
    lines += ["    " + ln for ln in inner]
    lines += _unpack(parts) + [w.store(o) for o in loop.torn]
    return lines


def loop_slots(pv: np.ndarray, program: Program, nv: int, tol: float,
               maxiter: int) -> np.ndarray:
    """``pv`` (one vector, or one row per member) with the loops' slots after its ``nv``
    parameters: the tolerance, the most iterations and zeros for a failure; unchanged
    without loops."""
    if not program.loops:
        return pv
    extra = np.zeros((*pv.shape[:-1], LOOP_SLOTS))
    extra[..., 0], extra[..., 1] = tol, maxiter
    return np.ascontiguousarray(np.concatenate([pv[..., :nv], extra], axis=-1))


def loop_failure(plan: Plan, pv: np.ndarray, nv: int, result: Any) -> AlgebraicLoopError | None:
    """The error of the first loop that did not converge in a run with parameters ``pv``,
    or None."""
    if pv.size < nv + LOOP_SLOTS or pv[nv + 2] == 0.0:
        return None
    loop = plan.loops[int(pv[nv + 2]) - 1]
    block = plan.entries[plan.order[loop.first].entry].name
    err = not_converged(loop, float(pv[nv + 3]), float(pv[nv + 4]), int(pv[nv + 5]),
                        float(pv[nv]), block)
    err.result = result
    return err


def row_failure(plan: Plan, program: Program, row: np.ndarray,
                tol: float) -> AlgebraicLoopError | None:
    """The error of the first loop that did not converge, from a recorded row of ``sig`` (a
    batch member's last: its ``pv`` is a copy), or None."""
    if not program.loops:
        return None
    at = program.nsig - LOOP_ROW
    loop_number, t, residual, iterations = (float(v) for v in row[at:at + LOOP_ROW])
    if not loop_number >= 1:
        return None
    loop = plan.loops[int(loop_number) - 1]
    return not_converged(loop, t, residual, int(iterations), tol,
                         plan.entries[plan.order[loop.first].entry].name)


def reset_failure(pv: np.ndarray, nv: int) -> None:
    """Forget a failure recorded in ``pv`` (before a run that reuses it)."""
    if pv.size >= nv + LOOP_SLOTS:
        pv[nv + 2:] = 0.0


__all__ = ["LOOP_SLOTS", "lin_solve", "loop_failure", "loop_lines", "loop_slots",
           "reset_failure", "row_failure"]
