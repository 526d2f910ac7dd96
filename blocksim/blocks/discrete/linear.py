"""Discrete-time linear systems: :class:`DiscreteTransferFunction` and
:class:`DiscreteStateSpace`.

Discrete-time blocks with a required sample ``clock``, under the semantics described in
:mod:`blocksim.blocks.discrete.base`. Their compiled kernels are those of the continuous linear
systems (:mod:`blocksim.blocks.continuous.kernels`: ``tf_*`` and ``ss_*``, the ``A x + B u``
kernel as ``update``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from operator import mul
from typing import Any

import numpy as np

from blocksim.blocks.continuous.kernels import ss_kernels, tf_kernels
from blocksim.blocks.continuous.params import _real_array, check_state_space
from blocksim.blocks.discrete.base import _sample_clock
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["DiscreteStateSpace", "DiscreteTransferFunction"]

#: largest order whose ``update`` (A x + B u) is a pure-Python loop (numpy above)
MAX_LOOP_ORDER_UPDATE = 4
#: largest order whose ``output`` (C x + D u) is a pure-Python loop (numpy above)
MAX_LOOP_ORDER_OUTPUT = 12


# -- linear systems
class _DiscreteLinear(Block):
    """x[k+1] = A x[k] + B u[k], y[k] = C x[k] + D u[k], with kernels bound by ``_setup``."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    _has_d: bool = False
    _siso_out: bool = True

    def _setup(self, A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray,
               x0: np.ndarray) -> None:
        n, m = B.shape
        p = C.shape[0]
        self.A, self.B, self.C, self.D = A, B, C, D
        self.set_state(x0, tuple(f"x{i}" for i in range(n)))
        self.set_ports(inputs=(Port("u", shape=() if m == 1 else (m,)),),
                       outputs=(Port("y", shape=() if p == 1 else (p,)),))
        self._has_d = bool(np.any(D != 0.0))
        self._siso_out = p == 1
        self.feedthrough = {"y": ("u",) if self._has_d else ()}  # type: ignore[misc]
        if m == 1 and p == 1:
            self._d = float(D[0, 0])
            self._c = tuple(C[0].tolist())
            if n == 0:
                self.output = (self._out_gain if self._has_d  # type: ignore[method-assign]
                               else self._out_zero)
                return
            if n <= MAX_LOOP_ORDER_UPDATE:
                self._rows = tuple(tuple(r) for r in A.tolist())
                self._b = tuple(B[:, 0].tolist())
                self.update = self._update_loop  # type: ignore[method-assign]
            else:
                self._bcol = B[:, 0].copy()
                self.update = self._update_si  # type: ignore[method-assign]
            if n <= MAX_LOOP_ORDER_OUTPUT:
                self.output = (self._out_loop_ft if self._has_d  # type: ignore[method-assign]
                               else self._out_loop)
        elif m == 1:
            self._bcol = B[:, 0].copy()
            self.update = self._update_si  # type: ignore[method-assign]

    # The class-level output/update are the reference implementations; _setup binds faster
    # kernels with identical results to the instance.
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y[k] = C x[k] + D u[k]; reads ``u`` only when D is non-zero."""
        y = self.C @ x
        if self._has_d:
            y = y + self.D @ np.atleast_1d(np.asarray(u[0], dtype=float))
        return (float(y[0]),) if self._siso_out else (y,)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """x[k+1] = A x[k] + B u[k]."""
        return self.A @ x + self.B @ np.atleast_1d(np.asarray(u[0], dtype=float))

    # -- kernels
    def _out_zero(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (0.0,)

    def _out_gain(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._d * u[0],)

    def _out_loop(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())),)

    def _out_loop_ft(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())) + self._d * u[0],)

    def _update_loop(self, t: float, x: np.ndarray, u: Sequence[Any]) -> list[float]:
        xs = x.tolist()
        v = u[0]
        return [sum(map(mul, row, xs)) + b * v for row, b in zip(self._rows, self._b)]

    def _update_si(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.A @ x + self._bcol * u[0]

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`): those of the
        continuous :class:`~blocksim.blocks.continuous.linear.TransferFunction` (for a
        :class:`DiscreteTransferFunction`) or
        :class:`~blocksim.blocks.continuous.linear.StateSpace`, with the same params layouts and
        their ``A x + B u`` kernel as ``update``; a static gain (n = 0) has no update."""
        make = tf_kernels if isinstance(self, DiscreteTransferFunction) else ss_kernels
        params, output, state = make(self.A, self.B, self.C, self.D)
        return Kernels(params, output=output, update=state)


class DiscreteTransferFunction(_DiscreteLinear):
    r"""Single-input single-output discrete transfer function in z.

    .. math::

        H(z) = \frac{Y(z)}{U(z)} = \frac{b_0 z^m + b_1 z^{m-1} + \dots + b_m}
                                        {a_0 z^n + a_1 z^{n-1} + \dots + a_n},
        \qquad m \le n,\ a_0 \ne 0

    (coefficients in descending powers of z, as :class:`scipy.signal.dlti`), realised at
    construction by :func:`scipy.signal.tf2ss` (controller canonical form):

    .. math:: y[k] = C x[k] + D u[k], \qquad x[k+1] = A x[k] + B u[k]

    so ``H(z) = 1 / (z - 0.5)`` is ``y[k] = x[k], x[k+1] = 0.5 x[k] + u[k]`` and
    ``H(z) = 1 / z`` a unit delay.

    Parameters
    ----------
    num : float or array_like, shape (m + 1,)
        Numerator coefficients, highest power of z first. Leading zeros are ignored.
    den : float or array_like, shape (n + 1,)
        Denominator coefficients, highest power of z first; ``den[0]`` must be non-zero and the
        system causal (proper: ``m <= n``).
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
    x0 : array_like, shape (n,), optional
        Initial state of the canonical realisation (default zeros: the system at rest).

    Inputs
    ------
    u : float
        Input signal [any unit].

    Outputs
    -------
    y : float
        Output signal. Feedthrough from ``u`` only when D != 0 (``m == n`` with
        ``b_0 != 0``).

    States
    ------
    x : shape (n,)
        States of the canonical realisation, named ``"x0" .. "x{n-1}"``. A static gain
        (``n == 0``) has no state: it samples ``(b_0 / a_0) u`` at the hits.

    Examples
    --------
    Moving average of two samples, (z + 1) / (2 z): ``DiscreteTransferFunction([1, 1], [2, 0],
    clock=0.01)``.
    """

    inputs = (Port("u", shape=()),)
    outputs = (Port("y", shape=()),)

    def __init__(self, num: Any, den: Any, clock: Clock | float | tuple[float, float],
                 x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        num_a = _real_array(owner, "num", num)
        den_a = _real_array(owner, "den", den)
        for label, arr in (("num", num_a), ("den", den_a)):
            if arr.ndim > 1:
                raise BlockParameterError(
                    f"{owner}: parameter '{label}' must be a 1-D coefficient sequence (SISO "
                    f"only), got shape {arr.shape}; use DiscreteStateSpace for multi-input/"
                    f"multi-output systems")
        num_a = num_a.reshape(-1)
        den_a = den_a.reshape(-1)
        if den_a.size == 0:
            raise BlockParameterError(
                f"{owner}: parameter 'den' is empty; give at least one coefficient")
        if den_a[0] == 0.0:
            raise BlockParameterError(
                f"{owner}: the leading denominator coefficient den[0] must be non-zero, got "
                f"den={den_a.tolist()}; drop leading zeros")
        if num_a.size == 0:
            raise BlockParameterError(
                f"{owner}: parameter 'num' is empty; give at least one coefficient")
        nz = np.flatnonzero(num_a)
        num_a = num_a[nz[0]:] if nz.size else np.zeros(1)
        n = den_a.size - 1
        if num_a.size - 1 > n:
            raise BlockParameterError(
                f"{owner}: non-causal transfer function: numerator degree {num_a.size - 1} > "
                f"denominator degree {n} (num={num_a.tolist()}, den={den_a.tolist()}); the "
                f"output would depend on future inputs - multiply den by z (append a 0) for "
                f"each excess degree")
        if n == 0:
            A, B, C = np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0))
            D = np.array([[num_a[0] / den_a[0]]])
        else:
            with warnings.catch_warnings():
                from scipy.signal import BadCoefficients, tf2ss  # lazy: a slow import

                warnings.simplefilter("ignore", BadCoefficients)
                A, B, C, D = tf2ss(num_a, den_a)
            A, B, C, D = (np.asarray(M, dtype=float) for M in (A, B, C, D))
        if x0 is None:
            x0a = np.zeros(n)
        else:
            x0a = _real_array(owner, "x0", x0).reshape(-1)
            if x0a.size != n:
                raise BlockParameterError(
                    f"{owner}: parameter 'x0' must have {n} element(s) (the order of den), got "
                    f"{x0a.size}")
        self.num, self.den = num_a, den_a
        self._setup(A, B, C, D, x0a)


class DiscreteStateSpace(_DiscreteLinear):
    r"""Linear time-invariant discrete state-space system.

    .. math:: y[k] = C x[k] + D u[k], \qquad x[k+1] = A x[k] + B u[k], \qquad x[0] = x_0

    Parameters
    ----------
    A : array_like, shape (n, n)
        State matrix, n >= 1 (a scalar is taken as 1 x 1).
    B : array_like, shape (n, m)
        Input matrix. A 1-D array of length n is taken as a single column (m = 1).
    C : array_like, shape (p, n)
        Output matrix. A 1-D array of length n is taken as a single row (p = 1).
    D : array_like, shape (p, m), optional
        Feedthrough matrix (default zeros). A scalar or 1-D array is accepted when it has
        exactly p * m elements and p == 1 or m == 1.
    clock : Clock, float or (float, float)
        Sample clock: a :class:`Clock`, a period T [s] or a (period, offset) pair [s].
        Required (it follows the optional D only to keep the order A, B, C, D).
    x0 : array_like, shape (n,), optional
        Initial state (default zeros).

    Inputs
    ------
    u : float if m == 1, else ndarray of shape (m,)
        Input vector.

    Outputs
    -------
    y : float if p == 1, else ndarray of shape (p,)
        Output vector. Feedthrough from ``u`` only when D has a non-zero entry.

    States
    ------
    x : shape (n,)
        Named ``"x0" .. "x{n-1}"``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, A: Any, B: Any, C: Any, D: Any = None,
                 clock: Clock | float | tuple[float, float] | None = None,
                 x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = _sample_clock(owner, clock)
        Aa, Ba, Ca, Da, x0a = check_state_space(
            owner, A, B, C, D, x0, "; for a static system use a Gain block (or a ZOH and a Gain)")
        self._setup(Aa, Ba, Ca, Da, x0a)
