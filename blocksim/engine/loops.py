"""Solving algebraic loops in the interpreted back-end (``algebraic="solve"``).

A plan compiled with ``algebraic="solve"`` lists its loops (``plan.loops``, see
:mod:`blocksim.engine.algebraic`): for each, a run of steps of the evaluation order and its
torn signals ``z``. Running the steps from ``z`` in the torn slots leaves ``g(z)`` there; at
each evaluation of the loop's rate :class:`LoopEvaluator` solves ``r(z) = z - g(z) = 0`` by
Newton's method:

* starting from the previous solution (the torn signals' values held in the signal store;
  zeros at t = 0);
* the Jacobian ``I - dg/dz`` by forward differences, step ``sqrt(eps) * max(1, |z_j|)``
  (one more evaluation of the loop per tear variable and iteration);
* converged when every ``|r_i| <= tol * (1 + |z_i|)`` (``algebraic_tol``, default 1e-10:
  absolute near 0, relative beyond 1); the loop's signals are then those computed from that
  ``z``, the torn ones set to ``z``;
* at most ``algebraic_maxiter`` (default 50) Newton steps, else (or as soon as a residual is
  NaN or Inf) :class:`~blocksim.engine.errors.AlgebraicLoopError` naming the loop port by
  port and the time; the run keeps what it recorded, as for any run error.

The fused tier of the compiled back-end generates the same iteration
(:mod:`blocksim.engine.compiled.loop_code`). A plan without loops gets the plain
:class:`~blocksim.engine.evaluate.Evaluator`: nothing here touches its hot path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim.engine.errors import AlgebraicLoopError
from blocksim.engine.evaluate import Evaluator
from blocksim.engine.plan import AlgebraicLoop, Plan

#: default tolerance of the loops' Newton iteration (relative and absolute)
LOOP_TOL = 1e-10
#: default most Newton iterations per solve
LOOP_MAXITER = 50
#: relative step of the finite-difference Jacobian (the square root of the float epsilon)
FD_STEP = 1.4901161193847656e-08


def make_evaluator(plan: Plan, tol: float = LOOP_TOL, maxiter: int = LOOP_MAXITER) -> Evaluator:
    """The evaluator of ``plan``: a :class:`LoopEvaluator` when it has loops to solve."""
    if plan.loops:
        return LoopEvaluator(plan, tol, maxiter)
    return Evaluator(plan)


def not_converged(loop: AlgebraicLoop, t: float, residual: float, iterations: int,
                  tol: float, block: str | None = None) -> AlgebraicLoopError:
    """The error of a loop that did not converge at ``t`` (both back-ends say it so):
    ``residual`` the largest ``|z - g(z)|`` (NaN or Inf when the iteration blew up),
    ``iterations`` the Newton steps taken."""
    if math.isfinite(residual):
        why = (f"Newton's method left a residual of {residual:.3g} after {iterations} "
               f"iterations (tolerance {tol:g})")
    else:
        why = (f"its values became NaN or Inf in Newton's method (iteration {iterations}): a "
               f"singular Jacobian, or no solution near the previous one")
    return AlgebraicLoopError(
        f"algebraic loop {loop.text} did not converge at t={t:.6g} s: {why}. The loop may "
        f"have no solution there (e.g. a gain of -1 around it), several, or start too far "
        f"from one: raise algebraic_maxiter, loosen algebraic_tol, or break the loop with a "
        f"delay", loop=loop.text, block=block, time=t)


class _Newton:
    """The Newton iteration of one loop over the evaluator's signal store."""

    def __init__(self, ev: LoopEvaluator, loop: AlgebraicLoop, steps: list[Any], tol: float,
                 maxiter: int):
        self.ev, self.loop, self.steps = ev, loop, steps
        self.tol, self.maxiter = tol, maxiter
        shapes = [ev.plan.signal_shapes[s] for s in loop.torn]
        self.scalar = len(shapes) == 1 and shapes[0] == ()
        self.parts = []  # (slot, start, stop, shape) of each torn signal in z
        at = 0
        for s, shape in zip(loop.torn, shapes):
            n = int(math.prod(shape)) if shape else 1
            self.parts.append((s, at, at + n, shape))
            at += n
        self.n = at
        self.block = ev.plan.entries[steps[0][6]].name
        self.t = 0.0
        self.x: Any = None
        self.xd: Any = None

    def _set(self, z: np.ndarray) -> None:
        sig = self.ev.sig
        for s, a, b, shape in self.parts:
            sig[s] = float(z[a]) if not shape else z[a:b].reshape(shape).copy()

    def _get(self) -> np.ndarray:
        sig = self.ev.sig
        z = np.empty(self.n)
        for s, a, b, shape in self.parts:
            z[a:b] = np.ravel(sig[s]) if shape else sig[s]
        return z

    def _g(self, z: np.ndarray) -> np.ndarray:
        self._set(z)
        Evaluator.outputs(self.ev, self.t, self.x, self.xd, self.steps)
        return self._get()

    def solve(self, t: float, xb: Any, u: Any) -> tuple[()]:
        """Solve the loop at ``t`` (the states set by :meth:`LoopEvaluator.outputs`); the
        signature of a block's ``output``, so that the evaluator runs it as one step."""
        self.t, self.x, self.xd = t, self.ev._x, self.ev._xd
        if self.scalar:
            self._solve_scalar(t)
            return ()
        tol, n = self.tol, self.n
        z = self._get()
        g = self._g(z)
        for it in range(self.maxiter + 1):
            r = z - g
            err = np.abs(r)
            if not np.all(np.isfinite(err)):
                raise not_converged(self.loop, t, math.inf, it, tol, self.block)
            if np.all(err <= tol * (1.0 + np.abs(z))):
                break
            if it == self.maxiter:
                raise not_converged(self.loop, t, float(err.max()), it, tol, self.block)
            jac = np.eye(n)
            for j in range(n):
                zj = z.copy()
                h = FD_STEP * max(1.0, abs(z[j]))
                zj[j] += h
                jac[:, j] -= (self._g(zj) - g) / (zj[j] - z[j])
            try:
                z = z - np.linalg.solve(jac, r)
            except np.linalg.LinAlgError:
                raise not_converged(self.loop, t, math.inf, it + 1, tol, self.block) from None
            g = self._g(z)
        self._set(z)
        return ()

    def _solve_scalar(self, t: float) -> None:
        """:meth:`solve` for one scalar tear variable, in floats."""
        sig, steps, ev, (s, *_), tol = self.ev.sig, self.steps, self.ev, self.parts[0], self.tol
        x, xd = self.x, self.xd
        run = Evaluator.outputs
        z = sig[s]
        run(ev, t, x, xd, steps)
        g = sig[s]
        for it in range(self.maxiter + 1):
            r = z - g
            if not math.isfinite(r):
                raise not_converged(self.loop, t, math.inf, it, tol, self.block)
            if abs(r) <= tol * (1.0 + abs(z)):
                break
            if it == self.maxiter:
                raise not_converged(self.loop, t, abs(r), it, tol, self.block)
            h = FD_STEP * max(1.0, abs(z))
            sig[s] = zh = z + h
            run(ev, t, x, xd, steps)
            jac = 1.0 - (sig[s] - g) / (zh - z)
            if jac == 0.0:
                raise not_converged(self.loop, t, math.inf, it + 1, tol, self.block)
            z = z - r / jac
            sig[s] = z
            run(ev, t, x, xd, steps)
            g = sig[s]
        sig[s] = z


class LoopEvaluator(Evaluator):
    """An :class:`~blocksim.engine.evaluate.Evaluator` that solves the plan's algebraic loops,
    each as one step of the evaluations (see the module docstring).

    Parameters
    ----------
    plan : Plan
        A plan compiled with ``algebraic="solve"`` that has loops.
    tol : float
        Tolerance of the Newton iteration (relative and absolute).
    maxiter : int
        Most Newton iterations per solve.
    """

    def __init__(self, plan: Plan, tol: float = LOOP_TOL, maxiter: int = LOOP_MAXITER):
        self._tol, self._maxiter = float(tol), int(maxiter)
        self._loop_io: dict[int, tuple[list[int], tuple[int, ...]]] = {}
        self._x: Any = None
        self._xd: Any = None
        super().__init__(plan)

    def _grouped(self, steps: list[Any], rates: list[Any]) -> tuple[list[Any], list[Any]]:
        """One step per loop, a :class:`_Newton` solve, in place of the loop's steps."""
        plan = self.plan
        out, out_rates = [], []
        starts = {lp.first: lp for lp in plan.loops}
        k = 0
        while k < len(steps):
            lp = starts.get(k)
            if lp is None:
                out.append(steps[k])
                out_rates.append(rates[k])
                k += 1
                continue
            members = steps[lp.first:lp.stop]
            newton = _Newton(self, lp, members, self._tol, self._maxiter)
            step = (newton.solve, None, False, lambda sig: (), -1, (), members[0][6])
            writes = [s for m in members for _, s in m[5]]
            done: set[int] = set(lp.torn)  # the previous solution is read, not an input
            reads: list[int] = []
            for m in members:
                reads += [s for s in plan.entries[m[6]].in_slots if s not in done]
                done.update(s for _, s in m[5])
            self._loop_io[id(step)] = (writes, tuple(reads))
            out.append(step)
            out_rates.append(rates[lp.first])
            k = lp.stop
        return out, out_rates

    def _writes(self, step: Any) -> list[int]:
        io = self._loop_io.get(id(step))
        return io[0] if io is not None else super()._writes(step)

    def _reads(self, step: Any) -> tuple[int, ...]:
        io = self._loop_io.get(id(step))
        return io[1] if io is not None else super()._reads(step)

    def outputs(self, t: float, x: np.ndarray, xd: np.ndarray,
                steps: list[Any] | None = None) -> None:
        """:meth:`Evaluator.outputs`, the loops solved on the way."""
        self._x, self._xd = x, xd
        super().outputs(t, x, xd, steps)


__all__ = ["LOOP_MAXITER", "LOOP_TOL", "LoopEvaluator", "make_evaluator", "not_converged"]
