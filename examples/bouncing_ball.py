"""A ball bouncing on the floor: a state event with a reset (coefficient of restitution).

The ball falls from ``H0`` under gravity; when its height crosses zero going down, the
``Ball`` block's ``on_event`` reverses and scales its velocity, ``v <- -e v``. Impact times
follow the analytic sequence t1 = sqrt(2 H0 / g), t_{n+1} = t_n + 2 e^n v1 / g with
v1 = sqrt(2 g H0). The bounces accumulate at a finite time (Zeno behaviour), so the example
stops before it.

What to look at: the height, a parabola between bounces that lose ``1 - RESTITUTION**2`` of
their energy each, the contacts located exactly (no step lands below the floor), and the bounces
crowding together as the ball comes to rest.

Try next: set ``RESTITUTION`` to 1 (no loss) or 0.5; drop the ball from another ``H0``; compare
``result.stats['nevents']`` with the number of bounces you count.

Run ``python examples/bouncing_ball.py`` to simulate and write ``bouncing_ball.png``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numba
import numpy as np

from blocksim import Block, Diagram, SimResult, simulate
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.engine.compiled.kernels import Kernels

G = 9.81  # m/s^2
H0 = 10.0  # m
RESTITUTION = 0.8


@numba.njit(cache=True)
def ball_output(t: float, x: np.ndarray, p: Any) -> tuple[float, float]:
    """Compiled Ball.output."""
    return x[0], x[1]


@numba.njit(cache=True)
def ball_deriv(t: float, x: np.ndarray, p: Any) -> tuple[float, float]:
    """Compiled Ball.deriv (p = (restitution, g))."""
    return x[1], -p[1]


@numba.njit(cache=True)
def ball_crossings(t: float, x: np.ndarray, p: Any) -> tuple[float]:
    """Compiled Ball.zero_crossings."""
    return (x[0],)


@numba.njit(cache=True)
def ball_on_event(t: float, x: np.ndarray, p: Any, which: int) -> tuple[float, float]:
    """Compiled Ball.on_event."""
    return 0.0, -p[0] * x[1]


class Ball(Block):
    """A point mass in free fall that bounces off the floor at height 0.

    Parameters
    ----------
    restitution : float
        Coefficient of restitution e in [0, 1]: speed after / before an impact.
    x0 : (float, float)
        Initial height [m] and vertical velocity [m/s].

    Outputs
    -------
    h : float
        Height [m].
    v : float
        Vertical velocity [m/s], up positive.

    States
    ------
    h [m], v [m/s]; h' = v, v' = -g.

    Events
    ------
    h crosses 0 going down: v <- -e v.
    """

    outputs = ("h", "v")
    crossing_directions = (-1,)

    def __init__(self, restitution: float = RESTITUTION, x0: Any = (H0, 0.0)):
        self.restitution = float(restitution)
        self.set_state(x0, ("h", "v"))

    def output(self, t: float, x: np.ndarray, u: Any) -> tuple[float, float]:
        return float(x[0]), float(x[1])

    def deriv(self, t: float, x: np.ndarray, u: Any) -> tuple[float, float]:
        return float(x[1]), -G

    def zero_crossings(self, t: float, x: np.ndarray, u: Any) -> tuple[float]:
        return (float(x[0]),)

    def on_event(self, t: float, x: np.ndarray, u: Any, which: int) -> list[float]:
        return [0.0, -self.restitution * float(x[1])]

    def kernels(self) -> Kernels:
        """The same numerics for the compiled back-end (params: restitution, g)."""
        return Kernels((self.restitution, G), output=ball_output, deriv=ball_deriv,
                       crossings=ball_crossings, on_event=ball_on_event)


def impact_times(n: int) -> np.ndarray:
    """The first ``n`` analytic impact times [s]."""
    t1 = math.sqrt(2 * H0 / G)
    v1 = math.sqrt(2 * G * H0)
    times = [t1]
    for k in range(1, n):
        times.append(times[-1] + 2 * RESTITUTION**k * v1 / G)
    return np.array(times)


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """The ball and a scope on its height."""
    d = Diagram("bouncing_ball")
    ball = d.add(Ball(), name="ball")
    add_scope(d, [ball["h"]], labels="h", units="m", title="bouncing ball", file=scope_file,
              show=show)  # fmt: skip
    return d


def main(T: float = 10.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds (before the bounces accumulate at t = 12.85 s, where the Zeno
    guard would stop the run with an error naming the ball)."""
    scope_file = Path(out_dir) / "bouncing_ball.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"{res.stats['nevents']} impacts; first analytic impact times: {impact_times(4)}")
