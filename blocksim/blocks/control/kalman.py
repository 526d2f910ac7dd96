r"""The discrete linear Kalman filter as a block: :class:`KalmanFilter`.

Numerics: :mod:`blocksim.robotics.control.kalman`; kernels:
:mod:`blocksim.blocks.control.kalman_kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.control import kalman_kernels as kk
from blocksim.blocks.control._checks import (
    covariance,
    matrix,
    port_shape,
    sample_clock,
    square,
    vector,
)
from blocksim.blocks.control.feedback_kernels import input_vectors
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.control.kalman import steady_state_kalman

__all__ = ["KalmanFilter"]


class KalmanFilter(Block):
    r"""Discrete Kalman filter (time-varying or steady-state), clocked at ``dt``.

    Model::

        x[k+1] = A x[k] + B u[k] + G w[k],   w ~ N(0, Q)
        z[k]   = C x[k] + D u[k] + v[k],     v ~ N(0, R)

    The block's state is the predicted estimate ``x[k|k-1]`` (and ``P[k|k-1]``). At hit k
    it outputs the corrected estimate ``x[k|k]`` (it reads the measurement ``z[k]`` of the
    same hit: Simulink's "use the current measurement") and its covariance ``P[k|k]``; then
    it predicts ``x[k+1|k] = A x[k|k] + B u[k]``, ``P[k+1|k] = A P[k|k] A^T + G Q G^T``.
    The correction is ``M = P C^T (C P C^T + R)^-1``, ``x[k|k] = x[k|k-1] + M (z - C
    x[k|k-1] - D u)``, with the Joseph form of ``P[k|k]``.

    With ``steady_state=True`` the gain is constant, from the discrete algebraic Riccati
    equation: :attr:`L` (``A M``) equals python-control's ``dlqe(A, G, C, Q, R)[0]``,
    :attr:`P_dare` its ``P``; the output ``P`` is then the constant ``P[k|k]``.

    Parameters
    ----------
    A : array_like (n, n)
        State matrix of the discrete model.
    B : array_like (n, m) or None
        Input matrix; None for a model without input (the block then has no input ``u``).
    C : array_like (p, n)
        Measurement matrix.
    Q : array_like (g, g) or (g,)
        Process noise covariance [state units^2] (a diagonal may be given as a vector).
    R : array_like (p, p) or (p,)
        Measurement noise covariance [measurement units^2], positive definite.
    x0 : array_like (n,), optional
        Initial estimate ``x[0|-1]`` (default zeros).
    P0 : array_like (n, n) or (n,), optional
        Its covariance ``P[0|-1]`` (default the identity); not used when ``steady_state``.
    dt : Clock, float or (float, float)
        Sample clock: a period [s], a (period, offset) pair [s] or a Clock. Required.
    steady_state : bool
        Use the constant gain of the DARE (default False: predict and correct ``P`` each hit).
    D : array_like (p, m), optional
        Feedthrough of the input into the measurement (default zeros).
    G : array_like (n, g), optional
        Process noise input matrix (default the identity, g = n).

    Inputs
    ------
    u : ndarray (m,) (float when m = 1)
        Known input of the model, ``u[k]``; only when ``B`` is given.
    z : ndarray (p,) (float when p = 1)
        Measurement ``z[k]``.

    Outputs
    -------
    xhat : ndarray (n,)
        Corrected estimate ``x[k|k]``.
    P : ndarray (n, n)
        Its covariance ``P[k|k]``.

    States
    ------
    discrete: ``xhat0..`` (n, the prediction), and ``P0_0..`` (n*n) unless ``steady_state``.
    """

    inputs = (Port("u", doc="known input"), Port("z", doc="measurement"))
    outputs = (Port("xhat", doc="estimate"), Port("P", doc="covariance"))

    def __init__(self, A: Any, B: Any, C: Any, Q: Any, R: Any, x0: Any = None, P0: Any = None,
                 dt: Any = None, steady_state: bool = False, D: Any = None,
                 G: Any = None) -> None:
        super().__init__()
        o = type(self).__name__
        self.clock = sample_clock(o, dt)
        Am = square(o, "A", A)
        n = Am.shape[0]
        Bm = np.zeros((n, 0)) if B is None else matrix(o, "B", B, n, None if np.ndim(B) == 2
                                                         or n == 1 else 1)
        m = Bm.shape[1]
        Cm = matrix(o, "C", C, None, n)
        p = Cm.shape[0]
        if D is not None and m == 0:
            raise BlockParameterError(f"{o}: parameter 'D' needs an input: give 'B' too (the "
                                      f"model has no input u without B)")
        Dm = np.zeros((p, m)) if D is None else matrix(o, "D", D, p, m)
        Gm = np.eye(n) if G is None else matrix(o, "G", G, n, None)
        Qm = covariance(o, "Q", Q, Gm.shape[1])
        Rm = covariance(o, "R", R, p, definite=True)
        xe = np.zeros(n) if x0 is None else vector(o, "x0", x0, n)
        self.A, self.B, self.C, self.D, self.G, self.Q, self.R = Am, Bm, Cm, Dm, Gm, Qm, Rm
        self.steady_state = bool(steady_state)
        self._gains: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        GQG = np.ascontiguousarray(Gm @ Qm @ Gm.T)
        names = [f"xhat{i}" for i in range(n)]
        if self.steady_state:
            _L, Pd, M = self._dare()
            IMC = np.eye(n) - M @ Cm
            Pf = IMC @ Pd @ IMC.T + M @ Rm @ M.T
            self.set_state(xe, names)
        else:
            M, Pf = np.zeros((n, p)), np.zeros((n, n))
            P0m = np.eye(n) if P0 is None else covariance(o, "P0", P0, n)
            self.set_state(np.concatenate((xe, P0m.reshape(-1))),
                           names + [f"P{i}_{j}" for i in range(n) for j in range(n)])
        self._p = (Am, Bm, Cm, Dm, GQG, Rm, np.ascontiguousarray(M),
                   np.ascontiguousarray(0.5 * (Pf + Pf.T)), self.steady_state)
        z = Port("z", shape=port_shape(p), doc="measurement")
        ins = [Port("u", shape=port_shape(m), doc="known input"), z] if m else [z]
        self.set_ports(inputs=ins, outputs=[Port("xhat", shape=(n,), doc="estimate x[k|k]"),
                                            Port("P", shape=(n, n), doc="covariance P[k|k]")])
        direct = ("u", "z") if m and np.any(Dm != 0.0) else ("z",)
        self.feedthrough = {"xhat": direct, "P": ()}  # type: ignore[misc]

    def _dare(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._gains is None:
            try:
                self._gains = steady_state_kalman(self.A, self.G, self.C, self.Q, self.R)
            except ValueError as exc:
                raise BlockParameterError(f"{type(self).__name__}: {exc}") from None
        return self._gains

    @property
    def L(self) -> np.ndarray:
        """Steady-state predictor gain ``A P C^T (C P C^T + R)^-1`` (n, p): ``dlqe``'s L."""
        return self._dare()[0]

    @property
    def P_dare(self) -> np.ndarray:
        """The DARE solution, the steady-state predicted covariance (n, n): ``dlqe``'s P."""
        return self._dare()[1]

    @property
    def M(self) -> np.ndarray:
        """Steady-state innovation gain ``P C^T (C P C^T + R)^-1`` (n, p)."""
        return self._dare()[2]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """``(xhat, P)``: the corrected estimate and its covariance."""
        xf, Pf, _next = kk.kf_step(np.array(x, dtype=np.float64), *input_vectors(u), self._p)
        return xf, Pf

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """The prediction ``x[k+1|k]`` (and ``P[k+1|k]``)."""
        return kk.kf_step(np.array(x, dtype=np.float64), *input_vectors(u), self._p)[2]

    def kernels(self) -> Kernels:
        """Params ``(A, B, C, D, G Q G^T, R, M, P[k|k] steady, steady)``
        (:mod:`~blocksim.blocks.control.kalman_kernels`)."""
        return Kernels(self._p, output=kk.kf_output, update=kk.kf_update)
