"""The hand-written baseline of ``benchmarks/sweep.py``: the PID mass-spring-damper closed
loop flattened by hand and integrated with RK4 for every member in a numba ``prange`` loop.

Imported as ``sweep_hand`` (``benchmarks/`` on ``sys.path``) from every place, so that
numba's disk cache, which records the module's name, serves every process.
"""

from __future__ import annotations

import numba
import numpy as np

#: the example's gains and plant (Ki, Kd, N, c, k, m) of ``examples/pid_mass_spring_damper.py``
HAND_PARAMS = np.array([5.0, 1.0, 100.0, 0.5, 2.0, 1.0])


@numba.njit(cache=True)
def _rhs(y, out, kp, p):
    """The flattened closed loop (states: PID integral, derivative filter, v, x)."""
    ki, kd, nn, c, k, m = p[0], p[1], p[2], p[3], p[4], p[5]
    e = 1.0 - y[3]
    u = kp * e + ki * y[0] + kd * nn * (e - y[1])
    out[0] = e
    out[1] = nn * (e - y[1])
    out[2] = (u - c * y[2] - k * y[3]) / m
    out[3] = y[2]


@numba.njit(parallel=True, cache=True)
def hand_sweep(kps, p, h, n):
    """RK4 of every member (one per ``kps`` value) in a ``prange`` loop; returns the final
    states, shape (M, 4)."""
    M = kps.size
    final = np.empty((M, 4))
    for m in numba.prange(M):
        y = np.zeros(4)
        k1, k2, k3, k4, tmp = np.empty(4), np.empty(4), np.empty(4), np.empty(4), np.empty(4)
        kp = kps[m]
        for _ in range(n):
            _rhs(y, k1, kp, p)
            for q in range(4):
                tmp[q] = y[q] + 0.5 * h * k1[q]
            _rhs(tmp, k2, kp, p)
            for q in range(4):
                tmp[q] = y[q] + 0.5 * h * k2[q]
            _rhs(tmp, k3, kp, p)
            for q in range(4):
                tmp[q] = y[q] + h * k3[q]
            _rhs(tmp, k4, kp, p)
            for q in range(4):
                y[q] += h / 6 * (k1[q] + 2 * k2[q] + 2 * k3[q] + k4[q])
        final[m] = y
    return final
