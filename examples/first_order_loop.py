"""A first-order loop: an integrator under proportional feedback.

``x' = K (r - x)`` with a unit step reference at t = 0 gives ``x(t) = 1 - exp(-K t)``, the
first-order lag with time constant 1/K.

What to look at: the output rising as ``1 - exp(-GAIN t)``: 63 % of the way after one time
constant ``1/GAIN``.

Try next: change ``GAIN``; add a second integrator in the loop (a second-order loop) and watch
the response ring.

Run ``python examples/first_order_loop.py`` to simulate and write ``first_order_loop.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Gain, Integrator, Step, Sum
from blocksim.blocks.sinks.wiring import add_scope

GAIN = 2.0  # 1/s: the loop's time constant is 1/GAIN


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """Step -> error sum -> gain -> integrator, with unity feedback."""
    d = Diagram("first_order_loop")
    ref = d.add(Step(time=0.0), name="ref")
    err = d.add(Sum("+-"), name="err")
    gain = d.add(Gain(GAIN), name="gain")
    x = d.add(Integrator(x0=0.0), name="x")
    d.connect(ref, err["u0"])
    d.connect(err, gain)
    d.connect(gain, x)
    d.connect(x, err["u1"])
    add_scope(d, [x], labels="x", file=scope_file, show=show, title="first-order loop")
    return d


def main(T: float = 5.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "first_order_loop.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"x({res.t[-1]:g}) = {res['x.y'][-1]:.9f} (exact {1 - 2.718281828459045 ** -10:.9f})")
