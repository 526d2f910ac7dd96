"""The integration methods of the compiled back-end: names, Dormand–Prince tableau, and the
helpers of the steps that do not call a diagram (compiled once per installation).

The steps themselves call the diagram's right-hand side, so they live in
:mod:`blocksim.engine.compiled.loop_template`, copied into each diagram's module.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit


class Method(IntEnum):
    """The compiled back-end's integration methods (``solver`` names in :data:`METHODS`)."""

    EULER = 0
    RK4 = 1
    DOPRI = 2  # Dormand-Prince 5(4), scipy's RK45


#: solver name -> method
METHODS = {"euler": Method.EULER, "rk4": Method.RK4, "RK45": Method.DOPRI}


# Butcher tableaus, stage by stage: stage s (>= 1) is evaluated at t + C[s] * h and
# x + h * sum(A[s, q] * K[q] for q < s).
#: classical RK4 (its weights 1/6, 1/3, 1/3, 1/6 are applied as ``h/6 * (k1 + 2 (k2 + k3) + k4)``)
RK4_C = np.array([0.0, 0.5, 0.5, 1.0])
RK4_A = np.array([
    [0.0, 0.0, 0.0],
    [0.5, 0.0, 0.0],
    [0.0, 0.5, 0.0],
    [0.0, 0.0, 1.0],
])
#: Dormand-Prince 5(4) (scipy's RK45) with its first-same-as-last stage: the last row of DP_A
#: is the 5th-order weights, so the 7th stage is f at the new point; DP_E gives the error
DP_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
DP_A = np.array([
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1 / 5, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3 / 40, 9 / 40, 0.0, 0.0, 0.0, 0.0],
    [44 / 45, -56 / 15, 32 / 9, 0.0, 0.0, 0.0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0.0, 0.0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0.0],
    [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
])
DP_E = np.array([-71 / 57600, 0.0, 71 / 16695, -71 / 1920, 17253 / 339200, -22 / 525, 1 / 40])


@njit(cache=True)
def rms(v, scale):
    """Root mean square of ``v / scale`` (scipy's error norm); 0.0 for an empty vector."""
    s = 0.0
    n = v.size
    for i in range(n):
        r = v[i] / scale[i]
        s += r * r
    return math.sqrt(s / n) if n > 0 else 0.0


@njit(cache=True)
def next_grid_time(t, dt, t_end):
    """The end of the next fixed step from ``t``: the next grid point ``k * dt`` after ``t``
    (not closer than rounding), or ``t_end`` if sooner."""
    k = math.floor(t / dt * (1 + 1e-12) + 1e-9) + 1
    t_new = min(k * dt, t_end)
    if t_new - t < 1e-12 * max(1.0, abs(t)):
        t_new = min((k + 1) * dt, t_end)
    return t_new
