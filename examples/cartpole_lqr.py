"""An inverted pendulum on a cart, balanced upright by LQR state feedback.

The nonlinear plant (cart M = 1 kg, point mass m = 0.1 kg on a massless rod l = 0.5 m, no
friction; angle theta from the upright, positive clockwise when the cart moves right):

    p''     = (F + m s (l w^2 - g c)) / (M + m s^2)
    theta'' = ((M + m) g s - c F - m l w^2 s c) / (l (M + m s^2))

with ``s, c = sin(theta), cos(theta)``, ``w = theta'``, built from library blocks (sin, cos,
products, sums, gains, one integrator of the state ``x = (p, theta, p', theta')``). Its
linearisation at the upright equilibrium is

    A = [[0, 0, 1, 0], [0, 0, 0, 1], [0, -m g / M, 0, 0], [0, (M + m) g / (l M), 0, 0]]
    B = [0, 0, 1 / M, -1 / (l M)]

(:func:`linearization`); :data:`K` is python-control's ``lqr(A, B, diag(1, 10, 1, 1), 0.1)``
(the tests check it), and the :class:`~blocksim.blocks.control.StateFeedback` ``F = -K x``
brings the pendulum back from 0.2 rad to the upright and the cart back to 0.

:func:`design` does the same from the diagram alone with :mod:`blocksim.analysis`: ``trim``
finds the upright equilibrium of the open plant (the pushing force, a ``Constant``, is the free
root input: 0 N), ``linearize`` gives ``(A, B)`` from that force to the state there (the blocks
differentiated numerically: equal to the matrices above to 1e-9) and ``lqr`` the gain, equal
to :data:`K` (``tests/analysis/test_examples_analysis.py`` checks both, the gain in the diagram
file and the closed loop's poles ``eig(A - B K)``). What to look at in the plot: the cart first
runs towards the tilt to get under the pole, then comes back; the force peaks at the start.
Try next: weight the cart position more (``design(Q=np.diag([10, 10, 1, 1]))``) and build the
loop with that gain, or release the pole further from upright (the linear design holds to
about 1 rad).

Run ``python examples/cartpole_lqr.py`` to write ``cartpole_lqr.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import (
    Constant,
    Gain,
    Index,
    Integrator,
    MathFunction,
    Mux,
    Product,
    Scope,
    Sum,
)
from blocksim.blocks.control import StateFeedback

CART, POLE, LENGTH, G = 1.0, 0.1, 0.5, 9.81  # kg, kg, m, m/s^2
X0 = (0.0, 0.2, 0.0, 0.0)                    # m, rad, m/s, rad/s
Q_WEIGHTS, R_WEIGHT = (1.0, 10.0, 1.0, 1.0), 0.1
#: lqr(A, B, diag(Q_WEIGHTS), R_WEIGHT) of :func:`linearization` [N/m, N/rad, N s/m, N s/rad]
K = [[-3.1622776601683955, -46.03169407043653, -5.720126663763168, -10.406622497511464]]


def linearization() -> tuple[np.ndarray, np.ndarray]:
    """``(A (4, 4), B (4, 1))`` of the cart-pole at the upright equilibrium."""
    M, m, ell, g = CART, POLE, LENGTH, G
    A = np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, -m * g / M, 0.0, 0.0],
                  [0.0, (M + m) * g / (ell * M), 0.0, 0.0]])
    return A, np.array([[0.0], [0.0], [1.0 / M], [-1.0 / (ell * M)]])


def _plant(d: Diagram) -> tuple[Integrator, Sum]:
    """The cart-pole's blocks: the state integrator and the force input (a Sum ``F + 0``)."""
    M, m, ell, g = CART, POLE, LENGTH, G
    x = d.add(Integrator(x0=list(X0)), name="x")
    force = d.add(Sum("++"), name="force")           # F, the input: u0
    d.connect(d.add(Constant(0.0), name="disturbance"), force["u1"])
    th, v, w = (d.add(Index(index=i), name=n) for i, n in ((1, "theta"), (2, "v"), (3, "w")))
    for blk in (th, v, w):
        d.connect(x, blk)
    s = d.add(MathFunction("sin"), name="s")
    c = d.add(MathFunction("cos"), name="c")
    d.connect(th, s)
    d.connect(th, c)
    w2 = d.add(Product("**"), name="w2")
    s2 = d.add(Product("**"), name="s2")
    for prod, a in ((w2, w), (s2, s)):
        d.connect(a, prod["u0"])
        d.connect(a, prod["u1"])
    den = d.add(Sum("++"), name="den")               # M + m s^2
    d.connect(d.add(Constant(M), name="cart"), den["u0"])
    d.connect(d.add(Gain(m), name="m_s2"), den["u1"])
    d.connect(s2, "m_s2")
    a = d.add(Sum("+-"), name="a")                   # l w^2 - g c
    d.connect(d.add(Gain(ell), name="l_w2"), a["u0"])
    d.connect(d.add(Gain(g), name="g_c"), a["u1"])
    d.connect(w2, "l_w2")
    d.connect(c, "g_c")
    sa = d.add(Product("**"), name="sa")
    d.connect(s, sa["u0"])
    d.connect(a, sa["u1"])
    num_p = d.add(Sum("++"), name="num_p")           # F + m s a
    d.connect(force, num_p["u0"])
    d.connect(d.add(Gain(m), name="m_sa"), num_p["u1"])
    d.connect(sa, "m_sa")
    pdd = d.add(Product("*/"), name="pdd")
    d.connect(num_p, pdd["u0"])
    d.connect(den, pdd["u1"])
    w2s = d.add(Product("**"), name="w2s")
    d.connect(w2, w2s["u0"])
    d.connect(s, w2s["u1"])
    fw = d.add(Sum("++"), name="fw")                 # F + m l w^2 s
    d.connect(force, fw["u0"])
    d.connect(d.add(Gain(m * ell), name="ml_w2s"), fw["u1"])
    d.connect(w2s, "ml_w2s")
    cfw = d.add(Product("**"), name="cfw")
    d.connect(c, cfw["u0"])
    d.connect(fw, cfw["u1"])
    num_t = d.add(Sum("-+"), name="num_t")           # (M + m) g s - c (F + m l w^2 s)
    d.connect(cfw, num_t["u0"])
    d.connect(d.add(Gain((M + m) * g), name="mg_s"), num_t["u1"])
    d.connect(s, "mg_s")
    tdd = d.add(Product("*/"), name="tdd")
    d.connect(num_t, tdd["u0"])
    d.connect(d.add(Gain(ell), name="l_den"), tdd["u1"])
    d.connect(den, "l_den")
    xdot = d.add(Mux(4), name="xdot")
    for i, src in enumerate((v, w, pdd, tdd)):
        d.connect(src, xdot[f"u{i}"])
    d.connect(xdot, x)
    return x, force


def design(Q: Any = None, R: Any = None) -> dict[str, Any]:
    """Trim, linearize and design on the diagram's own blocks (:mod:`blocksim.analysis`).

    Parameters
    ----------
    Q : array_like (4, 4), optional
        State weight for ``(p [m], theta [rad], p' [m/s], theta' [rad/s])``; default
        ``diag(Q_WEIGHTS)``.
    R : array_like (1, 1), optional
        Force weight [N^-2]; default ``R_WEIGHT``.

    Returns
    -------
    dict
        ``op`` (the upright :class:`~blocksim.analysis.OperatingPoint` of the open plant, its
        force ``op.inputs["push.y"]`` = 0 N), ``sys`` (the ``control.StateSpace`` from the force
        to the state ``x``), ``K`` (1, 4), ``E`` (the closed-loop poles [1/s]).
    """
    from blocksim.analysis import linearize, lqr, trim

    d = Diagram("cartpole")
    _x, force = _plant(d)
    d.connect(d.add(Constant(0.0), name="push"), force["u0"])
    # the state at rest upright; the plant's constants (cart mass, disturbance) stay fixed
    op = trim(d, targets={"x.y": [0.0, 0.0, 0.0, 0.0]}, fix_inputs=["cart", "disturbance"])
    if not op.success:
        raise RuntimeError(f"cart-pole trim failed: {op.message}")
    sys = linearize(d, "push.y", "x.y", op=op)
    Qm = np.diag(Q_WEIGHTS) if Q is None else Q
    K, _S, E = lqr(sys, Qm, [[R_WEIGHT]] if R is None else R)
    return {"op": op, "sys": sys, "K": K, "E": E}


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """The cart-pole with ``F = -K x``."""
    d = Diagram("cartpole_lqr")
    x, force = _plant(d)
    lqr = d.add(StateFeedback(K), name="lqr")
    d.connect(x, lqr)
    d.connect(lqr, force["u0"])
    scope = d.add(Scope(2, labels=["cart p [m], pole theta [rad]", "force"], units=["-", "N"],
                        title="cart-pole balanced by LQR", file=scope_file, show=show),
                  name="scope")
    d.connect(d.add(Index(index=[0, 1]), name="p_theta"), scope["u0"])
    d.connect(x, "p_theta")
    d.connect(lqr, scope["u1"])
    return d


def main(T: float = 8.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "cartpole_lqr.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"x({res.t[-1]:g}) = {np.round(res['x.y'][-1], 6)}; peak |F| = "
          f"{np.max(np.abs(res['lqr.u'])):.2f} N")
    des = design()
    print(f"trim upright: force {des['op'].inputs['push.y']:.1e} N; linearize + lqr: K = "
          f"{np.round(des['K'], 4)}, poles {np.round(des['E'], 3)}")
