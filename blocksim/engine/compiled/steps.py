"""The integration methods of the compiled back-end: names, Dormand–Prince tableau, and the
helpers of the steps that do not call a diagram (compiled once per installation).

The steps themselves call the diagram's right-hand side, so they live in
:mod:`blocksim.engine.compiled.loop_template`, copied into each diagram's module.
"""

from __future__ import annotations

import math
from enum import IntEnum

from numba import njit


class Method(IntEnum):
    """The compiled back-end's integration methods (``solver`` names in :data:`METHODS`)."""

    EULER = 0
    RK4 = 1
    DOPRI = 2  # Dormand-Prince 5(4), scipy's RK45


#: solver name -> method
METHODS = {"euler": Method.EULER, "rk4": Method.RK4, "RK45": Method.DOPRI}


# Dormand-Prince 5(4) (scipy's RK45): nodes C, matrix A, 5th-order weights B (B2 = 0),
# error weights E (E2 = 0); stage 7 is f at the new point (first same as last)
C2, C3, C4, C5 = 1 / 5, 3 / 10, 4 / 5, 8 / 9
A21 = 1 / 5
A31, A32 = 3 / 40, 9 / 40
A41, A42, A43 = 44 / 45, -56 / 15, 32 / 9
A51, A52, A53, A54 = 19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729
A61, A62, A63, A64, A65 = 9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656
B1, B3, B4, B5, B6 = 35 / 384, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84
E1, E3, E4, E5, E6, E7 = (-71 / 57600, 71 / 16695, -71 / 1920, 17253 / 339200, -22 / 525,
                          1 / 40)


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
def next_grid_index(t, dt):
    """The index ``k`` of the next grid point ``k * dt`` after ``t`` (not closer than
    rounding). A fixed-step loop then steps to ``min(k * dt, t_end)``, ``k + 1``, ...: one
    multiplication per step, and the grid points are the same whatever the steps before."""
    k = math.floor(t / dt * (1 + 1e-12) + 1e-9) + 1
    if k * dt - t < 1e-12 * max(1.0, abs(t)):
        k += 1
    return k


@njit(cache=True)
def next_grid_time(t, dt, t_end):
    """The end of the next fixed step from ``t``: the next grid point ``k * dt`` after ``t``
    (:func:`next_grid_index`), or ``t_end`` if sooner."""
    return min(next_grid_index(t, dt) * dt, t_end)
