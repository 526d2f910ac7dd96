"""One continuous signal sampled by clocks of 0.1 s and 0.3 s, and moved between the rates.

A sine wave (0.5 Hz) is sampled by a zero-order hold every 0.1 s and another every 0.3 s; the
fast samples also go through a :class:`RateTransition` to the slow clock, and a
:class:`UnitDelay` on the slow clock delays them by one slow sample. Hits are scheduled on an
integer time base, so the two clocks coincide exactly at 0.3, 0.6, ... s, and the rate
transition reads a fast sample taken at the very same instant.

What to look at: the fast samples every 0.1 s, the slow ones every 0.3 s, and the delayed signal
one slow period behind: each held between its clock's ticks.

Try next: change the clocks (``FAST``, ``SLOW``) to rates that are not multiples of each other,
or ``FREQUENCY`` towards the slow clock's Nyquist frequency (1.67 Hz) to see aliasing.

Run ``python examples/multirate_sampling.py`` to write ``multirate_sampling.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Clock, Diagram, SimResult, simulate
from blocksim.blocks import ZOH, RateTransition, Sine, UnitDelay
from blocksim.blocks.sinks.wiring import add_scope

FAST = Clock(0.1)
SLOW = Clock(0.3)
FREQUENCY = 0.5  # Hz


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """Sine -> ZOH at 0.1 s -> RateTransition to 0.3 s -> UnitDelay at 0.3 s; ZOH at 0.3 s."""
    d = Diagram("multirate_sampling")
    sine = d.add(Sine(frequency=FREQUENCY), name="sine")
    fast = d.add(ZOH(FAST), name="fast")
    slow = d.add(ZOH(SLOW), name="slow")
    to_slow = d.add(RateTransition(SLOW), name="to_slow")
    delay = d.add(UnitDelay(SLOW), name="delay")
    d.connect(sine, fast, slow)
    d.connect(fast, to_slow)
    d.connect(to_slow, delay)
    add_scope(d, [fast, slow, delay], labels=["fast", "slow", "delayed"], stairs=True,
              title="multirate sampling", file=scope_file, show=show)  # fmt: skip
    return d


def main(T: float = 3.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "multirate_sampling.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"{len(res.t)} recorded instants (the union of both clocks' hits)")
