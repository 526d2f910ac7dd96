"""Independent references for the joint servo tests: the sampled-data closed loops of the
velocity and position loops as discrete linear systems built with scipy.signal, and step
response metrics.

The controller samples its inputs at t_k = k T and holds its current demand c[k] until
t_{k+1}; the motor is continuous. At the samples the loop is then exactly the motor discretised
with a zero-order hold (``scipy.signal.cont2discrete``) in feedback with the PI law
``c = Kv e + Ki I + Kff tau_ff``, ``I[k+1] = I[k] + T e[k]`` (nothing here calls blocksim).
"""

from __future__ import annotations

import numpy as np
from scipy import signal

SEED = dict(J=372e-6, B=817e-6, Km=0.228, Kv=1.0, Ki=5.0, T=0.001)


def vloop_tf(J, B, Km, Kv, Ki, T) -> signal.TransferFunction:
    """Closed-loop transfer function qd*(z) -> qd(z) of *vloop*: motor ``P(z) = Km (1 - a) /
    (B (z - a))``, ``a = exp(-B T / J)`` (ZOH), PI ``C(z) = Kv + Ki T / (z - 1)``,
    ``CL = C P / (1 + C P)``."""
    a = np.exp(-B * T / J)
    pn, pd = [Km * (1.0 - a) / B], [1.0, -a]
    cn, cd = [Kv, Ki * T - Kv], [1.0, -1.0]
    ln, ld = np.polymul(cn, pn), np.polymul(cd, pd)
    return signal.TransferFunction(ln, np.polyadd(ld, ln), dt=T)


def _zoh(A, B, T):
    C = np.eye(A.shape[0])
    Ad, Bd, *_ = signal.cont2discrete(
        (A, B, C, np.zeros((A.shape[0], B.shape[1]))), T, method="zoh"
    )
    return Ad, Bd


def vloop_ss(J, B, Km, Kv, Ki, T, Kff=0.0) -> signal.StateSpace:
    """Closed loop of *vloop*/*vloop_ff* as a discrete state space: states (qd, I), inputs
    (qd*, tau_d, tau_ff), output qd."""
    Ad, Bd = _zoh(np.array([[-B / J]]), np.array([[Km / J, -1.0 / J]]), T)  # inputs c, tau_d
    bc, bd = Bd[0, 0], Bd[0, 1]
    A = np.array([[Ad[0, 0] - bc * Kv, bc * Ki], [-T, 1.0]])
    Bm = np.array([[bc * Kv, bd, bc * Kff], [T, 0.0, 0.0]])
    return signal.StateSpace(A, Bm, np.array([[1.0, 0.0]]), np.zeros((1, 3)), dt=T)


def vloop_voltage_ss(J, B, Km, Rm, Lm, Ka, Kv, Ki, T) -> signal.StateSpace:
    """Closed loop of *vloop_voltage*: states (i, qd, I), input qd*, output qd."""
    Ac = np.array([[-Rm / Lm, -Km / Lm], [Km / J, -B / J]])
    Ad, Bd = _zoh(Ac, np.array([[Ka / Lm], [0.0]]), T)  # input c
    b = Bd[:, 0]
    A = np.zeros((3, 3))
    A[:2, :2] = Ad
    A[:2, 1] -= b * Kv  # c = Kv (qd* - qd) + Ki I
    A[:2, 2] = b * Ki
    A[2, 1], A[2, 2] = -T, 1.0
    Bm = np.array([[b[0] * Kv], [b[1] * Kv], [T]])
    return signal.StateSpace(A, Bm, np.array([[0.0, 1.0, 0.0]]), np.zeros((1, 1)), dt=T)


def ploop_ss(J, B, Km, Kv, Ki, T, G, Kp, Kff) -> signal.StateSpace:
    """Closed loop of *ploop*: states (qd_motor, q, I), inputs (q*, qd*), output q.

    Motor rate demand ``w* = G (Kp (q* - q) + Kff qd*)``, ``e = w* - qd``, link angle
    ``q' = qd / G``."""
    Ac = np.array([[-B / J, 0.0], [1.0 / G, 0.0]])
    Ad, Bd = _zoh(Ac, np.array([[Km / J], [0.0]]), T)
    b = Bd[:, 0]
    # e = G Kp q* + G Kff qd* - qd - G Kp q
    ex = np.array([-1.0, -G * Kp, 0.0])  # e as a function of the state
    eu = np.array([G * Kp, G * Kff])  # ... and of the inputs
    A = np.zeros((3, 3))
    A[:2, :2] = Ad
    A[:2, :] += np.outer(b, Kv * ex + np.array([0.0, 0.0, Ki]))
    A[2, :] = T * ex
    A[2, 2] += 1.0
    Bm = np.zeros((3, 2))
    Bm[:2, :] = np.outer(b, Kv * eu)
    Bm[2, :] = T * eu
    return signal.StateSpace(A, Bm, np.array([[0.0, 1.0, 0.0]]), np.zeros((1, 2)), dt=T)


def step_metrics(t: np.ndarray, y: np.ndarray, final: float, band: float = 0.02) -> dict:
    """Overshoot (fraction of ``final``), settling time (last time outside ``band`` of
    ``final``, from t[0]) and steady-state error ``final - y[-1]``."""
    outside = np.flatnonzero(np.abs(y - final) > band * abs(final))
    settle = t[outside[-1] + 1] - t[0] if outside.size else 0.0
    return {
        "overshoot": max(0.0, (y.max() - final) / final),
        "settling": settle,
        "error": final - y[-1],
    }
