r"""Static state feedback: :class:`StateFeedback`, ``u = -K (x - x_ref) + N r``.

Design the gain with python-control (``control.lqr``, ``control.dlqr``, ``control.place``)
and give it to the block. Kernels: :mod:`blocksim.blocks.control.feedback_kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.control import feedback_kernels as fk
from blocksim.blocks.control._checks import matrix, port_shape, vector
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.control.lqr import state_feedback

__all__ = ["StateFeedback"]


class StateFeedback(Block):
    r"""Static state feedback with a state reference and a reference feedforward.

    .. math:: u = -K (x - x_{ref}) + N r

    Stateless, with direct feedthrough from every input (a continuous-time controller; put a
    :class:`~blocksim.blocks.ZOH` before it for a sampled one). With ``K`` from
    ``control.lqr(A, B, Q, R)`` the loop ``x' = A x + B u`` has the poles ``eig(A - B K)``.

    Parameters
    ----------
    K : array_like (m, n)
        Feedback gain [input units per state unit]; a 1-D array is one row (m = 1).
    N : array_like (m, q), optional
        Reference feedforward gain; when given, the block has the input ``r`` (q,). A scalar
        or a 1-D array of m elements is a column (q = 1). None: no reference input.
    x_ref : array_like (n,), optional
        Constant state reference (default zeros); a scalar is broadcast.

    Inputs
    ------
    x : ndarray (n,) (float when n = 1)
        State (measured or estimated).
    r : ndarray (q,) (float when q = 1)
        Reference; only with ``N``.

    Outputs
    -------
    u : ndarray (m,) (float when m = 1)
        Control input.
    """

    inputs = (Port("x", doc="state"),)
    outputs = (Port("u", doc="control input"),)
    feedthrough = True

    def __init__(self, K: Any, N: Any = None, x_ref: Any = None) -> None:
        super().__init__()
        o = type(self).__name__
        Km = matrix(o, "K", K)
        m, n = Km.shape
        if N is None:
            Nm = np.zeros((m, 0))
        else:
            Nm = matrix(o, "N", N, m, None if np.ndim(N) == 2 or m == 1 else 1)
        q = Nm.shape[1]
        xr = np.zeros(n) if x_ref is None else vector(o, "x_ref", x_ref, n)
        self.K, self.N, self.x_ref = Km, Nm, xr
        ins = [Port("x", shape=port_shape(n), doc="state")]
        if q:
            ins.append(Port("r", shape=port_shape(q), doc="reference"))
        self.set_ports(inputs=ins, outputs=[Port("u", shape=port_shape(m), doc="control")])
        self._p = (Km, Nm, xr)
        self._k = fk.sf_scalar if m == 1 else fk.sf_vector

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """``(u,)``: ``-K (x - x_ref) + N r``."""
        xv = np.array(u[0], dtype=np.float64, ndmin=1)
        r = np.array(u[1], dtype=np.float64, ndmin=1) if len(u) > 1 else np.zeros(0)
        y = state_feedback(self.K, xv, self.x_ref, self.N, r)  # what the kernels compute
        return (float(y[0]),) if self._k is fk.sf_scalar else (y,)

    def kernels(self) -> Kernels:
        """Params ``(K (m, n), N (m, q), x_ref (n,))``."""
        return Kernels(self._p, output=self._k)
