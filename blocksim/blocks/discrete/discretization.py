"""Discretisation of continuous linear blocks: :func:`discretize`.

:func:`discretize` turns a continuous :class:`~blocksim.blocks.continuous.linear.TransferFunction`
or :class:`~blocksim.blocks.continuous.linear.StateSpace` into its discrete equivalent
(:func:`scipy.signal.cont2discrete`), a
:class:`~blocksim.blocks.discrete.linear.DiscreteTransferFunction` or
:class:`~blocksim.blocks.discrete.linear.DiscreteStateSpace`.
"""

from __future__ import annotations

import numpy as np

from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.continuous.params import _finite_float
from blocksim.blocks.discrete.base import _sample_clock
from blocksim.blocks.discrete.linear import DiscreteStateSpace, DiscreteTransferFunction
from blocksim.engine.clock import Clock
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = ["discretize"]


# -- discretize
_DISCRETIZE_METHODS = ("zoh", "foh", "bilinear", "tustin", "euler", "forward_diff",
                       "backward_diff", "impulse", "gbt")
#: methods whose discrete state is the continuous state at the samples (x0 carries over)
_STATE_PRESERVING = ("zoh", "euler", "forward_diff", "impulse")


def discretize(block: TransferFunction | StateSpace,
               dt: Clock | float | tuple[float, float], method: str = "zoh",
               alpha: float | None = None) -> DiscreteTransferFunction | DiscreteStateSpace:
    r"""The discrete-time equivalent of a continuous linear block, for sample period ``dt``.

    Uses :func:`scipy.signal.cont2discrete`: a :class:`TransferFunction` (its ``num``/``den``)
    gives a :class:`DiscreteTransferFunction`, a :class:`StateSpace` (its A, B, C, D) a
    :class:`DiscreteStateSpace`. The new block is not in any diagram; add it in place of the
    continuous one.

    Parameters
    ----------
    block : TransferFunction or StateSpace
        The continuous block.
    dt : Clock, float or (float, float)
        Clock of the new block: a period T [s] (the discretisation step) or a (period, offset)
        pair or a :class:`Clock`.
    method : str, default "zoh"
        ``"zoh"`` (zero-order hold: exact at the samples for a piecewise-constant input, as
        produced by a ZOH or any discrete block), ``"foh"`` (first-order hold / triangle),
        ``"bilinear"`` or ``"tustin"`` (trapezoidal), ``"euler"`` or ``"forward_diff"``,
        ``"backward_diff"``, ``"impulse"`` (impulse invariance; strictly proper systems only),
        ``"gbt"`` (generalised bilinear, with ``alpha``).
    alpha : float, optional
        Weight in [0, 1] for ``method="gbt"`` (0: forward Euler, 0.5: Tustin, 1: backward).

    Returns
    -------
    DiscreteTransferFunction or DiscreteStateSpace

    Notes
    -----
    A non-zero initial state ``x0`` of a :class:`StateSpace` is carried over only by the
    methods whose discrete state is the continuous state at the samples (``"zoh"``,
    ``"euler"``/``"forward_diff"``, ``"impulse"``); the other methods change the state
    coordinates, and a :class:`TransferFunction`'s discrete realisation differs from its
    continuous one, so a non-zero ``x0`` is refused there (discretize a :class:`StateSpace`
    with method ``"zoh"`` instead).
    """
    owner = "discretize"
    if not isinstance(block, (TransferFunction, StateSpace)):
        raise BlockParameterError(
            f"{owner}: block must be a continuous TransferFunction or StateSpace block, got "
            f"{type(block).__name__}")
    if not isinstance(method, str) or method not in _DISCRETIZE_METHODS:
        hint = suggest(method, _DISCRETIZE_METHODS) if isinstance(method, str) else ""
        raise BlockParameterError(
            f"{owner}: parameter 'method' must be one of "
            f"{', '.join(map(repr, _DISCRETIZE_METHODS))}, got {method!r}{hint}")
    if method == "gbt":
        if alpha is None:
            raise BlockParameterError(
                f"{owner}: method 'gbt' needs parameter 'alpha' in [0, 1]")
        alpha = _finite_float(owner, "alpha", alpha)
        if not 0.0 <= alpha <= 1.0:
            raise BlockParameterError(
                f"{owner}: parameter 'alpha' must be in [0, 1], got {alpha}")
    elif alpha is not None:
        raise BlockParameterError(
            f"{owner}: parameter 'alpha' applies only to method 'gbt', got method {method!r}")
    clock = _sample_clock(owner, dt)
    T = clock.period
    x0 = np.asarray(block.x0, dtype=float)
    has_x0 = bool(np.any(x0 != 0.0))
    name = block.name or type(block).__name__
    if has_x0 and (isinstance(block, TransferFunction) or method not in _STATE_PRESERVING):
        why = ("a TransferFunction's discrete realisation has other state coordinates"
               if isinstance(block, TransferFunction)
               else f"method {method!r} changes the state coordinates")
        raise BlockParameterError(
            f"{owner}: cannot carry the non-zero initial state x0={x0.tolist()} of {name}: "
            f"{why}; discretize a StateSpace with one of "
            f"{', '.join(map(repr, _STATE_PRESERVING))}, or set the discrete block's x0 "
            f"yourself")
    from scipy.signal import cont2discrete  # lazy: a slow import

    try:
        if isinstance(block, TransferFunction):
            num = np.asarray(block.params["num"], dtype=float).reshape(-1)
            den = np.asarray(block.params["den"], dtype=float).reshape(-1)
            if den.size == 1:  # static gain: the same gain, sampled
                return DiscreteTransferFunction(num / den[0], [1.0], clock=clock)
            num_d, den_d, _ = cont2discrete((num, den), T, method=method, alpha=alpha)
            return DiscreteTransferFunction(np.ravel(num_d), den_d, clock=clock)
        Ad, Bd, Cd, Dd, _ = cont2discrete((block.A, block.B, block.C, block.D), T,
                                          method=method, alpha=alpha)
    except ValueError as exc:
        raise BlockParameterError(f"{owner}: {name} with method {method!r}: {exc}") from None
    return DiscreteStateSpace(Ad, Bd, Cd, Dd, clock=clock, x0=x0 if has_x0 else None)
