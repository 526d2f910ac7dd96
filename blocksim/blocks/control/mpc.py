r"""Discrete linear model predictive control as a block: :class:`MPC`.

Numerics: :mod:`blocksim.robotics.control.mpc` (condensing) and
:mod:`blocksim.robotics.control.qp` (the interior-point QP solver, in the kernel); kernels:
:mod:`blocksim.blocks.control.mpc_kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE, as_input
from blocksim.blocks.control import mpc_kernels as mk
from blocksim.blocks.control._checks import (
    bounds,
    covariance,
    horizon,
    matrix,
    ordered,
    port_shape,
    positive,
    sample_clock,
    square,
    vector,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.robotics.control.mpc import condense

__all__ = ["MPC"]

#: most unknowns (N m) of the condensed QP
MAX_UNKNOWNS = 400


class MPC(Block):
    r"""Discrete linear MPC with box constraints on inputs and states, clocked at ``dt``.

    At each hit, from the measured state ``x_0``, it solves

    .. math::

        \min_{u_0..u_{N-1}} \sum_{k=0}^{N-1} \left[(x_k - x_r)^T Q (x_k - x_r)
        + u_k^T R u_k\right] + (x_N - x_r)^T Q_f (x_N - x_r)

    subject to ``x[k+1] = A x[k] + B u[k]``, ``u_min <= u_k <= u_max`` and
    ``x_min <= x_k <= x_max`` (k = 1..N), as a condensed QP (``N m`` unknowns) by a
    primal-dual interior-point method inside the kernel, and outputs ``u_0`` (receding
    horizon), held until the next hit. Without constraints ``u_0 = -K_0 (x_0 - x_r)``, the
    first gain of the finite-horizon LQR. The solver's status is an output: 0 solved to
    ``tol``; 1 iteration limit (an infeasible problem ends so too: the state bounds cannot
    be met); 2 numerical failure, when ``u`` is the last iterate's first move. ``u`` is
    always clipped to the input bounds (the interior-point solution meets them to ``tol``).

    Parameters
    ----------
    A : array_like (n, n)
        State matrix of the discrete model (period ``dt``).
    B : array_like (n, m)
        Input matrix.
    Q : array_like (n, n) or (n,)
        Stage state weight, positive semi-definite.
    R : array_like (m, m) or (m,)
        Stage input weight, positive definite.
    N : int
        Prediction horizon [steps], >= 1.
    dt : Clock, float or (float, float)
        Sample clock: a period [s], a (period, offset) pair [s] or a Clock. Required.
    Qf : array_like (n, n) or (n,), optional
        Terminal weight (default ``Q``).
    u_min, u_max : float or array_like (m,), optional
        Input bounds [input units] (None or +-inf: none).
    x_min, x_max : float or array_like (n,), optional
        State bounds [state units] on the predicted states (None or +-inf: none).
    x_ref : array_like (n,), optional
        State reference (default zeros); an equilibrium with u = 0 for offset-free
        regulation.
    tol : float
        Solver tolerance on the KKT residuals (default 1e-9).
    max_iter : int
        Solver iteration limit per hit (default 100).

    Inputs
    ------
    x : ndarray (n,) (float when n = 1)
        Measured state.

    Outputs
    -------
    u : ndarray (m,) (float when m = 1)
        Control input, the first move of the optimal sequence.
    status : float
        0 solved, 1 iteration limit, 2 numerical failure.
    """

    inputs = (Port("x", doc="measured state"),)
    outputs = (Port("u", doc="control input"), Port("status", doc="solver status"))
    feedthrough = True

    def __init__(self, A: Any, B: Any, Q: Any, R: Any, N: int, dt: Any = None,
                 Qf: Any = None, u_min: Any = None, u_max: Any = None, x_min: Any = None,
                 x_max: Any = None, x_ref: Any = None, tol: float = 1e-9,
                 max_iter: int = 100) -> None:
        super().__init__()
        o = type(self).__name__
        self.clock = sample_clock(o, dt)
        Am = square(o, "A", A)
        n = Am.shape[0]
        Bm = matrix(o, "B", B, n, None if np.ndim(B) == 2 or n == 1 else 1)
        m = Bm.shape[1]
        Qm = covariance(o, "Q", Q, n)
        Rm = covariance(o, "R", R, m, definite=True)
        Qfm = Qm if Qf is None else covariance(o, "Qf", Qf, n)
        steps = horizon(o, "N", N)
        lo_u, hi_u = bounds(o, "u_min", u_min, m, -np.inf), bounds(o, "u_max", u_max, m, np.inf)
        lo_x, hi_x = bounds(o, "x_min", x_min, n, -np.inf), bounds(o, "x_max", x_max, n, np.inf)
        ordered(o, "u_min", lo_u, "u_max", hi_u)
        ordered(o, "x_min", lo_x, "x_max", hi_x)
        xr = np.zeros(n) if x_ref is None else vector(o, "x_ref", x_ref, n)
        iters = horizon(o, "max_iter", max_iter)
        if steps * m > MAX_UNKNOWNS:
            raise BlockParameterError(
                f"{o}: N * m = {steps * m} unknowns is more than this dense solver is for "
                f"({MAX_UNKNOWNS}); shorten the horizon N={plain(N)}")
        c = condense(Am, Bm, Qm, Rm, steps, Qfm, xr, lo_u, hi_u, lo_x, hi_x)
        self.A, self.B, self.Q, self.R, self.Qf, self.N = Am, Bm, Qm, Rm, Qfm, steps
        self.qp = c
        self._p = (c.H, c.F, c.f_r, c.G, c.h0, c.E, m, positive(o, "tol", tol), iters, lo_u,
                   hi_u)
        self.set_ports(inputs=[Port("x", shape=port_shape(n), doc="measured state")],
                       outputs=[Port("u", shape=port_shape(m), doc="control input"),
                                Port("status", doc="solver status")])
        self._k = mk.mpc_scalar if m == 1 else mk.mpc_vector

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """``(u, status)``: the first optimal move and the solver's status."""
        return self._k(t, NO_STATE, as_input(u[0]), self._p)

    def kernels(self) -> Kernels:
        """Params ``(H, F, f_r, G, h0, E, m, tol, max_iter, u_min, u_max)``
        (:mod:`~blocksim.blocks.control.mpc_kernels`)."""
        return Kernels(self._p, output=self._k)
