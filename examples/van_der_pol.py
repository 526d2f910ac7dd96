"""The Van der Pol oscillator from integrators, products and sums.

``x'' - mu (1 - x^2) x' + x = 0`` with mu = 1, x(0) = 2, x'(0) = 0: a stable limit cycle of
amplitude about 2 and period about 6.66 s.

What to look at: the phase plane: from ``(X0, V0)`` the trajectory winds onto the limit cycle of
amplitude about 2.

Try next: raise ``MU`` (a relaxation oscillation: stiff, watch ``result.stats['nfev']``) or
start inside the cycle (``X0 = 0.1``).

Run ``python examples/van_der_pol.py`` to simulate and write ``van_der_pol.png`` (phase plane).
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Gain, Integrator, Product, Sum, XYGraph

MU = 1.0
X0, V0 = 2.0, 0.0


def build(plot_file: str | Path | None = None, show: bool = False) -> Diagram:
    """v' = mu (1 - x^2) v - x, x' = v."""
    d = Diagram("van_der_pol")
    v = d.add(Integrator(x0=V0), name="v")
    x = d.add(Integrator(x0=X0), name="x")
    x2 = d.add(Product("**"), name="x2")
    one = d.add(Constant(1.0), name="one")
    damping = d.add(Sum("+-"), name="damping")
    times_v = d.add(Product("**"), name="times_v")
    mu = d.add(Gain(MU), name="mu")
    accel = d.add(Sum("+-"), name="accel")
    phase = d.add(XYGraph(labels=["x", "v"], title="Van der Pol phase plane", file=plot_file,
                          show=show), name="phase")
    d.connect(v, x, times_v["u1"], phase["y"])
    d.connect(x, x2["u0"], x2["u1"], accel["u1"], phase["x"])
    d.connect(one, damping["u0"])
    d.connect(x2, damping["u1"])
    d.connect(damping, times_v["u0"])
    d.connect(times_v, mu)
    d.connect(mu, accel["u0"])
    d.connect(accel, v)
    return d


def main(T: float = 20.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate for ``T`` seconds; save the phase plot in ``out_dir`` when given."""
    plot_file = Path(out_dir) / "van_der_pol.png" if out_dir is not None else None
    return simulate(build(plot_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"x({res.t[-1]:g}) = {res['x.y'][-1]:.6f}, v = {res['v.y'][-1]:.6f}")
