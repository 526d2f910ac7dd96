"""Continuous solvers behind one small stepping interface.

A *stepper* integrates ``dx/dt = f(t, x)`` from ``t0`` towards ``t_bound`` one step at a time:

* ``stepper.step()`` advances ``stepper.t`` and ``stepper.y`` by one accepted step and raises
  :class:`SolverError` on failure;
* ``stepper.interpolate(t)`` gives the state at ``t`` inside the last step (dense output).

Steppers know nothing about blocks. scipy's ``RK45``, ``RK23``, ``DOP853``, ``Radau``, ``BDF``
and ``LSODA`` are driven through their ``OdeSolver`` classes (not ``solve_ivp``), so the run loop
decides where segments end; ``euler`` and ``rk4`` are fixed-step methods on the global grid
``k * dt``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from blocksim.engine.errors import SolverError
from blocksim.engine.schedule import Grid

RHS = Callable[[float, np.ndarray], Any]

#: scipy's solver classes by name (``scipy.integrate`` is imported when a run first needs one:
#: compiled runs never load it, which keeps their start-up short)
SCIPY_SOLVERS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")

#: scipy's explicit Runge-Kutta solvers, restarted in place at each major time
#: (:meth:`ScipyStepper.restart`) by writing their public ``t``, ``y``, ``t_bound``, ``status``,
#: ``t_old``, ``nfev`` and the private attributes below. A rebuilt solver would use the public
#: API only but costs ~70 us per segment against ~2 us (35 % of a 1 kHz hybrid run), so the
#: scipy range is pinned in pyproject.toml and tests/engine/test_hybrid.py checks that a
#: restarted solver steps exactly as a fresh one; without these attributes (a scipy release
#: that renamed them) the solver is rebuilt instead.
RK_RESTARTABLE = ("RK45", "RK23", "DOP853")
#: the derivative at the current point (FSAL: the last stage of the previous step) and the
#: proposed size of the next step
RK_PRIVATE_ATTRIBUTES = ("f", "h_abs")
FIXED_STEP_SOLVERS = ("euler", "rk4")
SOLVERS = tuple(SCIPY_SOLVERS) + FIXED_STEP_SOLVERS


class ScipyStepper:
    """Adapter of one scipy ``OdeSolver`` over one integration segment.

    Parameters
    ----------
    method : str
        One of ``SCIPY_SOLVERS``.
    fun : callable
        ``fun(t, y) -> dy/dt``, y of shape (n,).
    t0, y0, t_bound :
        Segment start [s], initial state (n,), segment end [s].
    rtol, atol, max_step, first_step :
        As for :func:`scipy.integrate.solve_ivp`.
    """

    def __init__(self, method: str, fun: RHS, t0: float, y0: np.ndarray, t_bound: float,
                 rtol: float, atol: float, max_step: float, first_step: float | None):
        if first_step is not None:
            first_step = min(first_step, t_bound - t0)
            if not first_step > 0:
                first_step = None
        from scipy import integrate

        self.solver = getattr(integrate, method)(fun, t0, y0, t_bound, rtol=rtol, atol=atol,
                                            max_step=max_step, first_step=first_step)
        self.method = method
        self.t_old = t0
        self._options = (rtol, atol, max_step)
        self._fun = fun

    def restart(self, t0: float, y0: np.ndarray, t_bound: float) -> None:
        """Continue from (t0, y0) to a new ``t_bound`` after a discontinuity of the right-hand
        side (sample hit, breakpoint, event). Explicit Runge-Kutta solvers keep their step size
        and only re-evaluate f(t0, y0) (one evaluation); the others are rebuilt with the last
        step size as their first step."""
        s = self.solver
        if self.method in RK_RESTARTABLE and t_bound > t0 and \
                all(hasattr(s, a) for a in RK_PRIVATE_ATTRIBUTES):
            s.t = t0
            s.y = np.array(y0, dtype=float)
            s.t_bound = t_bound
            s.f = np.asarray(self._fun(t0, s.y), dtype=float)
            s.nfev += 1
            s.status = "running"
            s.t_old = None
            self.t_old = t0
            return
        h = s.step_size or getattr(s, "h_abs", None)
        rtol, atol, max_step = self._options
        self.__init__(self.method, self._fun, t0, y0, t_bound, rtol, atol,  # type: ignore[misc]
                      max_step, h)

    @property
    def t(self) -> float:
        return float(self.solver.t)

    @property
    def y(self) -> np.ndarray:
        return self.solver.y

    @property
    def step_size(self) -> float | None:
        return self.solver.step_size

    def step(self) -> None:
        self.t_old = self.solver.t
        message = self.solver.step()
        if self.solver.status == "failed":
            raise SolverError(f"solver {self.method} failed at t={self.solver.t:.9g} s: "
                              f"{message}; try a smaller max_step, looser tolerances or a "
                              f"stiff solver (Radau, BDF, LSODA)", time=float(self.solver.t))

    def interpolate(self, t: float) -> np.ndarray:
        return self.solver.dense_output()(t)

    @property
    def njev(self) -> int:
        return int(getattr(self.solver, "njev", 0))


class FixedStepper:
    """Fixed-step explicit Euler or classical Runge-Kutta 4 on the grid ``k * dt``.

    Steps end on multiples of ``dt`` (counted from t = 0) or at ``t_bound``, whichever comes
    first, so restarting a segment at a sample hit or breakpoint does not shift the grid.
    """

    #: below this many states the stages are combined in Python floats (numpy's per-call cost
    #: dominates small vectors)
    SMALL = 16

    def __init__(self, method: str, fun: RHS, t0: float, y0: np.ndarray, t_bound: float,
                 dt: float):
        self.method = method
        self.fun = fun
        self.dt = dt
        self.step_size: float | None = None
        self.restart(t0, y0, t_bound)

    def restart(self, t0: float, y0: np.ndarray, t_bound: float) -> None:
        """Continue from (t0, y0) to a new ``t_bound`` (no state to rebuild)."""
        self.t = self.t_old = t0
        self.y = self.y_old = np.asarray(y0, dtype=float)
        self.t_bound = t_bound

    def step(self) -> None:
        t, y, dt = self.t, self.y, self.dt
        k = math.floor(t / dt * (1 + 1e-12) + 1e-9) + 1
        t_new = min(k * dt, self.t_bound)
        if t_new - t < 1e-12 * max(1.0, abs(t)):
            t_new = min((k + 1) * dt, self.t_bound)
        h = t_new - t
        f = self.fun
        n = y.size
        if n <= self.SMALL:
            yl = y.tolist()
            if self.method == "euler":
                y_new = np.array([a + h * b for a, b in zip(yl, f(t, y))])
            else:
                # stages written element by element into scratch arrays (blocks never keep x)
                h2 = 0.5 * h
                idx = range(n)
                s1, s2, s3 = np.empty(n), np.empty(n), np.empty(n)
                k1 = f(t, y)
                for i in idx:
                    s1[i] = yl[i] + h2 * k1[i]
                k2 = f(t + h2, s1)
                for i in idx:
                    s2[i] = yl[i] + h2 * k2[i]
                k3 = f(t + h2, s2)
                for i in idx:
                    s3[i] = yl[i] + h * k3[i]
                k4 = f(t_new, s3)
                h6 = h / 6.0
                y_new = np.array([yl[i] + h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i])
                                  for i in idx])
        elif self.method == "euler":
            y_new = y + h * np.asarray(f(t, y))
        else:
            k1 = np.asarray(f(t, y))
            k2 = np.asarray(f(t + 0.5 * h, y + 0.5 * h * k1))
            k3 = np.asarray(f(t + 0.5 * h, y + 0.5 * h * k2))
            k4 = np.asarray(f(t_new, y + h * k3))
            y_new = y + (h / 6.0) * (k1 + 2.0 * (k2 + k3) + k4)  # the compiled step's order
        self.t_old, self.y_old = t, y
        self.t, self.y = t_new, y_new
        self.step_size = h

    def interpolate(self, t: float) -> np.ndarray:
        """Linear interpolation inside the last step."""
        h = self.t - self.t_old
        if h <= 0:
            return self.y
        a = (t - self.t_old) / h
        return (1 - a) * self.y_old + a * self.y

    njev = 0


class NullStepper:
    """Time advance for a diagram without continuous state: steps to the next point of
    ``grid`` (a :class:`~blocksim.engine.schedule.Grid`; None: straight to t_bound)."""

    def __init__(self, t0: float, t_bound: float, grid: Grid | None):
        self.y = np.zeros(0)
        self.grid = grid
        self.step_size: float | None = grid.step if grid is not None else None
        self.restart(t0, self.y, t_bound)

    def restart(self, t0: float, y0: np.ndarray, t_bound: float) -> None:
        """Continue from t0 to a new ``t_bound``."""
        self.t = self.t_old = t0
        self.t_bound = t_bound

    def step(self) -> None:
        self.t_old = self.t
        grid = self.grid
        if grid is None:
            self.t = self.t_bound
        else:
            self.t = min(grid.time(grid.index_after(self.t)), self.t_bound)

    def interpolate(self, t: float) -> np.ndarray:
        return self.y

    njev = 0
