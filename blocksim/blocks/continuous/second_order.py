"""A second-order integrator with hard stops: position and velocity of a mass, with impacts.

The bouncing ball, a mechanism against its end stops, a joint at its limit: ``x'' = u`` with
``lower <= x <= upper``; reaching a stop reverses and scales the velocity (coefficient of
restitution), as located state events.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["SecondOrderIntegrator"]


@_njit
def second_order_output(t, x, u, p):
    """(x, v); params (lower, upper, restitution)."""
    return x[0], x[1]


@_njit
def second_order_deriv(t, x, u, p):
    """(v, u), or (0, 0) while resting on a stop with u pushing into it."""
    lo, hi, _ = p
    if x[1] == 0.0 and ((x[0] <= lo and u <= 0.0) or (x[0] >= hi and u >= 0.0)):
        return 0.0, 0.0
    return x[1], u


@_njit
def second_order_crossings(t, x, u, p):
    """(x - lower, upper - x), 1.0 for an infinite stop (never crosses)."""
    lo, hi, _ = p
    g0 = x[0] - lo if lo > -np.inf else 1.0
    g1 = hi - x[0] if hi < np.inf else 1.0
    return g0, g1


@_njit
def second_order_on_event(t, x, u, p, which):
    """At the stop: x on it, v <- -restitution * v."""
    lo, hi, e = p
    return (lo if which == 0 else hi), -e * x[1]


class SecondOrderIntegrator(Block):
    r"""Double integrator with hard stops and impacts (Simulink *Second-Order Integrator*).

    .. math::

        \dot x = v, \qquad \dot v = u, \qquad \text{lower} \le x \le \text{upper}

    When ``x`` reaches a stop moving towards it (a located zero crossing) it is placed on the
    stop and its velocity reversed and scaled, :math:`v \leftarrow -e\,v` (``e`` the
    coefficient of restitution). With :math:`v = 0` on a stop and ``u`` pushing into it the
    mass rests there (:math:`\dot x = \dot v = 0`) until ``u`` pulls it away; so ``e = 0``
    gives a plastic stop. With ``0 < e < 1`` under a constant push the impacts accumulate
    (a Zeno point), where the run stops with a ``ZenoError`` naming the block.

    Parameters
    ----------
    x0 : float
        Initial position [unit of x], within the stops.
    v0 : float
        Initial velocity [unit of x / s].
    lower, upper : float
        Stops [unit of x]; ``-inf``/``inf`` (default) for none.
    restitution : float
        Coefficient of restitution e in [0, 1]: speed after / before an impact [-].

    Inputs
    ------
    u : float
        Acceleration [unit of x / s^2].

    Outputs
    -------
    x : float
        Position [unit of x]; no feedthrough.
    v : float
        Velocity [unit of x / s]; no feedthrough.

    States
    ------
    x, v : float
        Position and velocity (continuous, reset at impacts).
    """

    inputs = (Port("u", ()),)
    outputs = (Port("x", ()), Port("v", ()))
    feedthrough = False
    crossing_directions = (-1, -1)

    def __init__(self, x0: float = 0.0, v0: float = 0.0, lower: float = -math.inf,
                 upper: float = math.inf, restitution: float = 0.0) -> None:
        owner = type(self).__name__
        try:
            x0f, v0f, lo, hi, e = (float(v) for v in (x0, v0, lower, upper, restitution))
        except (TypeError, ValueError):
            raise BlockParameterError(f"{owner}: x0, v0, lower, upper and restitution must be "
                                      f"numbers") from None
        if math.isnan(lo) or math.isnan(hi) or not lo < hi:
            raise BlockParameterError(f"{owner}: need lower < upper, got lower={plain(lower)}, "
                                      f"upper={plain(upper)}")
        if not lo <= x0f <= hi or not math.isfinite(x0f) or not math.isfinite(v0f):
            raise BlockParameterError(f"{owner}: x0 must be finite and within [lower, upper] = "
                                      f"[{lo:g}, {hi:g}], got {plain(x0)} (v0={plain(v0)})")
        if not 0.0 <= e <= 1.0:
            raise BlockParameterError(f"{owner}: restitution must be in [0, 1], got "
                                      f"{plain(restitution)}")
        self.lower, self.upper, self.restitution = lo, hi, e
        self.set_state([x0f, v0f], ("x", "v"))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return float(x[0]), float(x[1])

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        p, v, a = float(x[0]), float(x[1]), float(u[0])
        if v == 0.0 and ((p <= self.lower and a <= 0.0) or (p >= self.upper and a >= 0.0)):
            return 0.0, 0.0
        return v, a

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        p = float(x[0])
        return (p - self.lower if self.lower > -math.inf else 1.0,
                self.upper - p if self.upper < math.inf else 1.0)

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> list[float]:
        return [self.lower if which == 0 else self.upper, -self.restitution * float(x[1])]

    def kernels(self) -> Kernels:
        """Kernels with params ``(lower, upper, restitution)`` floats."""
        return Kernels((self.lower, self.upper, self.restitution), output=second_order_output,
                       deriv=second_order_deriv, crossings=second_order_crossings,
                       on_event=second_order_on_event)
