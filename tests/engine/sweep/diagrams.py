"""Diagrams of the sweep tests (importable by Dask workers as ``tests.engine.sweep.diagrams``:
the crashing block must be unpickled there)."""

from __future__ import annotations

import os

from blocksim import Diagram
from blocksim.blocks import PID, Gain, Integrator, Product, Step, Sum, TransferFunction
from blocksim.engine.block import Block


def pid_loop() -> Diagram:
    """A PID on a second-order plant 1 / (s^2 + 0.5 s + 2), unit step reference."""
    d = Diagram("sweep_pid_loop")
    r = d.add(Step(time=0.0), name="ref")
    e = d.add(Sum("+-"), name="err")
    c = d.add(PID(Kp=10.0, Ki=5.0, Kd=1.0, N=100.0), name="pid")
    p = d.add(TransferFunction([1.0], [1.0, 0.5, 2.0]), name="plant")
    d.connect(r, e[0])
    d.connect(e, c)
    d.connect(c, p)
    d.connect(p, e[1])
    return d


def blowup() -> Diagram:
    """x' = K x^2 from x = 1: finite for K = 0, infinite at t = 1/K otherwise."""
    d = Diagram("sweep_blowup")
    x = d.add(Integrator(x0=1.0), name="x")
    sq = d.add(Product("**"), name="sq")
    g = d.add(Gain(0.0), name="g")
    d.connect(x, sq[0], sq[1])
    d.connect(sq, g)
    d.connect(g, x)
    return d


class Crash(Block):
    """Passes ``u`` through; when ``armed`` and the file ``marker`` exists, deletes it and
    ends the process at once (``os._exit``): a worker dying mid-sweep, once."""

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, armed: float = 0.0, marker: str = "") -> None:
        super().__init__()
        self.armed = float(armed)
        self.marker = str(marker)

    def output(self, t, x, u):
        if self.armed and self.marker and os.path.exists(self.marker):
            os.remove(self.marker)
            os._exit(3)
        return (float(u[0]),)


def crash_loop(marker: str) -> Diagram:
    """x' = K (1 - y), y = x through a :class:`Crash` block (interpreted back-end only)."""
    d = Diagram("sweep_crash_loop")
    r = d.add(Step(time=0.0), name="ref")
    e = d.add(Sum("+-"), name="err")
    k = d.add(Gain(1.0), name="k")
    x = d.add(Integrator(x0=0.0), name="x")
    c = d.add(Crash(marker=marker), name="crash")
    d.connect(r, e[0])
    d.connect(e, k)
    d.connect(k, x)
    d.connect(x, c)
    d.connect(c, e[1])
    return d
