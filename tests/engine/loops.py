"""A diagram of algebraic loops with closed-form solutions (one diagram: one fused compile).

With ``u = t``:

1. a gain loop ``y1 = u - k y1``: ``y1 = u / (1 + k)`` (``k = -1``: no solution);
2. a saturating loop ``y2 = sat(6u - 3 - y2)`` (limits +-1): ``y2 = clip((6u - 3) / 2, -1, 1)``;
3. a nonlinear implicit equation ``y3 = 2 + u - y3^3``, i.e. ``y3^3 + y3 = 2 + u``;
4. a loop in a dynamic system ``x' = -y4``, ``y4 = x - 0.5 y4``, ``x(0) = 1``:
   ``x = exp(-t / 1.5)``;
5. two tear variables (each signal feeds itself): ``a = 1 + u - 0.5 a - 0.2 b``,
   ``b = 0.3 a - 0.4 b``: ``a = (1 + u) / (1.5 + 0.06 / 1.4)``, ``b = 0.3 a / 1.4``.
"""

from __future__ import annotations

import numpy as np

from blocksim import Diagram
from blocksim.blocks import Constant, Gain, Integrator, Product, Saturation, Sum, Time


def loops(k: float = 2.0) -> Diagram:
    """The diagram (``k``: the gain of loop 1)."""
    d = Diagram("algebraic_loops")
    t = d.add(Time(), name="t")
    s1, k1 = d.add(Sum("+-"), name="s1"), d.add(Gain(k), name="k1")
    d.connect(t, s1[0])
    d.connect(s1, k1)
    d.connect(k1, s1[1])
    u2, c2 = d.add(Gain(6.0), name="u2"), d.add(Constant(3.0), name="c2")
    e2, sat = d.add(Sum("+--"), name="e2"), d.add(Saturation(-1.0, 1.0, size=None), name="sat")
    d.connect(t, u2)
    d.connect(u2, e2[0])
    d.connect(c2, e2[1])
    d.connect(sat, e2[2])
    d.connect(e2, sat)
    c3, s3, cube = (d.add(Constant(2.0), name="c3"), d.add(Sum("++-"), name="s3"),
                    d.add(Product("***"), name="cube"))
    d.connect(c3, s3[0])
    d.connect(t, s3[1])
    d.connect(cube, s3[2])
    for i in range(3):
        d.connect(s3, cube[i])
    x, s4 = d.add(Integrator(x0=1.0), name="x"), d.add(Sum("+-"), name="s4")
    h4, n4 = d.add(Gain(0.5), name="h4"), d.add(Gain(-1.0), name="n4")
    d.connect(x, s4[0])
    d.connect(s4, h4)
    d.connect(h4, s4[1])
    d.connect(s4, n4)
    d.connect(n4, x)
    c5, a, b = (d.add(Constant(1.0), name="c5"), d.add(Sum("++--"), name="a"),
                d.add(Sum("+-"), name="b"))
    gains = {n: d.add(Gain(v), name=n) for n, v in
             (("gaa", 0.5), ("gab", 0.2), ("gba", 0.3), ("gbb", 0.4))}
    d.connect(c5, a[0])
    d.connect(t, a[1])
    d.connect(gains["gaa"], a[2])
    d.connect(gains["gab"], a[3])
    d.connect(a, gains["gaa"])
    d.connect(b, gains["gab"])
    d.connect(a, gains["gba"])
    d.connect(b, gains["gbb"])
    d.connect(gains["gba"], b[0])
    d.connect(gains["gbb"], b[1])
    return d


def check_closed_forms(r, tol: float = 1e-9, x_tol: float = 1e-9) -> None:
    """Every loop's recorded solution against its closed form."""
    t = r.t
    np.testing.assert_allclose(r["s1.y"], t / 3, atol=tol)
    np.testing.assert_allclose(r["sat.y"], np.clip((6 * t - 3) / 2, -1, 1), atol=tol)
    y3 = r["s3.y"]
    np.testing.assert_allclose(y3 ** 3 + y3, 2 + t, atol=tol)
    np.testing.assert_allclose(r["x.y"], np.exp(-t / 1.5), atol=x_tol)
    a = (1 + t) / (1.5 + 0.06 / 1.4)
    np.testing.assert_allclose(r["a.y"], a, atol=tol)
    np.testing.assert_allclose(r["b.y"], 0.3 * a / 1.4, atol=tol)
