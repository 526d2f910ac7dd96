"""Diagrams of the analysis tests, with their analytic models (the oracles)."""

from __future__ import annotations

from typing import Any

import numpy as np

from blocksim import Diagram
from blocksim.blocks import (
    PID,
    Constant,
    DiscreteStateSpace,
    Gain,
    Integrator,
    MathFunction,
    StateSpace,
    Sum,
    TransferFunction,
)

G = 9.81


def mass_spring_damper(m: float = 2.0, c: float = 0.5, k: float = 3.0) -> Diagram:
    """m x'' = F - c x' - k x from gains, a sum and two integrators; F a Constant."""
    d = Diagram("msd")
    F = d.add(Constant(0.0), name="F")
    s = d.add(Sum("+--"), name="s")
    a = d.add(Gain(1.0 / m), name="a")
    v = d.add(Integrator(), name="v")
    x = d.add(Integrator(), name="x")
    kc = d.add(Gain(c), name="kc")
    kk = d.add(Gain(k), name="kk")
    d.connect(F, s["u0"])
    d.connect(s, a)
    d.connect(a, v)
    d.connect(v, x, kc)
    d.connect(x, kk)
    d.connect(kc, s["u1"])
    d.connect(kk, s["u2"])
    return d


def pendulum(m: float = 0.5, L: float = 0.8, b: float = 0.1, tau: float = 0.0,
             theta0: float = 0.0, torque: bool = True) -> Diagram:
    """m L^2 theta'' = tau - b theta' - m g L sin(theta); tau a Constant named "tau" (left
    for the caller to wire to "s.u0" when ``torque`` is False)."""
    d = Diagram("pendulum")
    s = d.add(Sum("+--"), name="s")
    if torque:
        T = d.add(Constant(tau), name="tau")
        d.connect(T, s["u0"])
    inv = d.add(Gain(1.0 / (m * L * L)), name="inv")
    w = d.add(Integrator(), name="w")
    th = d.add(Integrator(theta0), name="theta")
    fb = d.add(Gain(b), name="fb")
    sin = d.add(MathFunction("sin"), name="sin")
    mgl = d.add(Gain(m * G * L), name="mgl")
    d.connect(s, inv)
    d.connect(inv, w)
    d.connect(w, th, fb)
    d.connect(fb, s["u1"])
    d.connect(th, sin)
    d.connect(sin, mgl)
    d.connect(mgl, s["u2"])
    return d


def pendulum_jacobian(theta: float, m: float = 0.5, L: float = 0.8, b: float = 0.1):
    """Analytic (A, B) of the pendulum in the states (w, theta), input tau."""
    J = m * L * L
    A = np.array([[-b / J, -m * G * L * np.cos(theta) / J], [1.0, 0.0]])
    B = np.array([[1.0 / J], [0.0]])
    return A, B


PLANT = ([1.0], [1.0, 3.0, 2.0])  # 1 / ((s + 1)(s + 2))
KP, KI = 4.0, 3.0


def pi_loop() -> Diagram:
    """r -> e = r - y -> PI -> plant -> y, negative feedback."""
    d = Diagram("piloop")
    r = d.add(Constant(1.0), name="r")
    e = d.add(Sum("+-"), name="e")
    c = d.add(PID(Kp=KP, Ki=KI), name="ctrl")
    p = d.add(TransferFunction(*PLANT), name="plant")
    d.connect(r, e["u0"])
    d.connect(e, c)
    d.connect(c, p)
    d.connect(p, e["u1"])
    return d


AD = np.array([[0.9, 0.2], [-0.1, 0.8]])
BD = np.array([[0.0], [0.5]])
CD = np.array([[1.0, 0.0]])
TS = 0.05


def discrete_loop(k: float = 0.3) -> Diagram:
    """A discrete plant on a 0.05 s clock under proportional feedback u = r - k y."""
    d = Diagram("dloop")
    r = d.add(Constant(0.0), name="r")
    s = d.add(Sum("+-"), name="s")
    p = d.add(DiscreteStateSpace(AD, BD, CD, clock=TS), name="plant")
    g = d.add(Gain(k), name="k")
    d.connect(r, s["u0"])
    d.connect(s, p)
    d.connect(p, g)
    d.connect(g, s["u1"])
    return d


def same_tf(sys1, sys2, tol: float = 1e-8) -> bool:
    """Whether two SISO systems have the same transfer function: minimal realizations'
    coefficients (monic denominators) equal to ``tol`` (relative to the largest)."""
    import control

    a = control.tf(sys1).minreal(1e-6)
    b = control.tf(sys2).minreal(1e-6)
    na, da = np.asarray(a.num[0][0], float), np.asarray(a.den[0][0], float)
    nb, db = np.asarray(b.num[0][0], float), np.asarray(b.den[0][0], float)
    na, nb = na / da[0], nb / db[0]
    da, db = da / da[0], db / db[0]
    na, nb = np.trim_zeros(np.where(abs(na) < 1e-12, 0, na), "f"), np.trim_zeros(
        np.where(abs(nb) < 1e-12, 0, nb), "f")
    if na.shape != nb.shape or da.shape != db.shape or a.dt != b.dt:
        return False
    scale = max(1.0, np.max(np.abs(np.r_[na, da])))
    return bool(np.allclose(na, nb, rtol=0, atol=tol * scale)
                and np.allclose(da, db, rtol=0, atol=tol * scale))


A2 = np.array([[0.0, 1.0], [-2.0, -0.3]])
B2 = np.array([[0.0, 0.5], [1.0, 0.2]])
K2 = np.array([[1.0, 0.3], [0.2, 2.0]])


def mimo_loop() -> Diagram:
    d = Diagram("mimo")
    r = d.add(Constant([0.0, 0.0]), name="r")
    e = d.add(Sum("+-"), name="e")
    k = d.add(Gain(K2), name="k")
    p = d.add(StateSpace(A2, B2, np.eye(2)), name="p")
    d.connect(r, e["u0"])
    d.connect(e, k)
    d.connect(k, p)
    d.connect(p, e["u1"])
    return d


def loop(feedback: Any, c: float = 1.0, signs: str = "+-") -> Diagram:
    """s = c -/+ f(s) with an integrator of s: i' = s."""
    d = Diagram("loop")
    cc = d.add(Constant(c), name="c")
    s = d.add(Sum(signs), name="s")
    f = d.add(feedback, name="f")
    i = d.add(Integrator(), name="i")
    d.connect(cc, s["u0"])
    d.connect(s, f, i)
    d.connect(f, s["u1"])
    return d
