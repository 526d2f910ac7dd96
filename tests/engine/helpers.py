"""Small blocks used only by the engine tests (each exercises one part of the contract)."""

from __future__ import annotations

import math

import numpy as np

from blocksim import Block, Clock, Port


class Lag(Block):
    """First-order lag tau y' = u - y, state y."""

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, tau: float = 1.0, x0: float = 0.0):
        self.tau = tau
        self.set_state([x0], ["y"])

    def output(self, t, x, u):
        return (float(x[0]),)

    def deriv(self, t, x, u):
        return [(u[0] - x[0]) / self.tau]


class SplitFeed(Block):
    """Two outputs: ``state`` reads only the state, ``echo`` passes ``u`` through."""

    inputs = ("u",)
    outputs = ("state", "echo")
    feedthrough = {"echo": ("u",)}

    def __init__(self, x0: float = 1.0):
        self.set_state([x0])

    def output(self, t, x, u):
        return (float(x[0]), float(u[0]))

    def deriv(self, t, x, u):
        return [-x[0]]


class Counter(Block):
    """Discrete counter: xd <- xd + 1 at every hit of its clock; output is the count."""

    outputs = ("y",)

    def __init__(self, period: float = 0.1, offset: float = 0.0):
        self.clock = Clock(period, offset)
        self.set_state([0.0])

    def output(self, t, x, u):
        return (float(x[0]),)

    def update(self, t, x, u):
        return [x[0] + 1.0]


class Explode(Block):
    """Outputs 1 until ``at``, then raises."""

    outputs = ("y",)

    def __init__(self, at: float = 0.5):
        self.at = at

    def output(self, t, x, u):
        if t >= self.at:
            raise ZeroDivisionError("boom")
        return (1.0,)

    def next_breakpoint(self, t):
        return self.at if t < self.at else math.inf


class NanDeriv(Block):
    """A state whose derivative becomes NaN after t = 1."""

    outputs = ("y",)

    def __init__(self):
        self.set_state([0.0])

    def output(self, t, x, u):
        return (float(x[0]),)

    def deriv(self, t, x, u):
        return [math.nan if t > 1.0 else 1.0]


class Lifecycle(Block):
    """Logs start/stop calls into a shared list given as parameter."""

    inputs = ("u",)

    def __init__(self, log: list, fail_start: bool = False):
        self.log = log
        self.fail_start = fail_start

    def start(self, run):
        self.log.append(("start", self.name))
        if self.fail_start:
            raise OSError("device busy")

    def stop(self, run):
        self.log.append(("stop", self.name, run.result.status))


class Vector3(Block):
    """A source with a declared output shape (3,)."""

    outputs = (Port("y", shape=(3,)),)

    def output(self, t, x, u):
        return (np.array([1.0, 2.0, 3.0]),)


class NumpySqrt(Block):
    """y = numpy.sqrt(u): NaN (not an exception) for u < 0."""

    inputs = ("u",)
    outputs = ("y",)

    def output(self, t, x, u):
        return (np.sqrt(u[0]),)


# ---- compiled kernels for the compiled back-end tests (module level, so numba can cache them)
import numba  # noqa: E402

from blocksim.engine.compiled.kernels import Kernels  # noqa: E402


@numba.njit(cache=True)
def _const_out(t, x, p):
    return p[0]


@numba.njit(cache=True)
def _lag_out(t, x, u, p):
    return x[0]


@numba.njit(cache=True)
def _lag_deriv(t, x, u, p):
    return ((u - x[0]) / p[0],)


@numba.njit(cache=True)
def _counter_out(t, x, p):
    return x[0]


@numba.njit(cache=True)
def _counter_update(t, x, p):
    return (x[0] + 1.0,)


class KConst(Block):
    """A constant with kernels."""

    outputs = ("y",)
    sample_time = "constant"

    def __init__(self, value: float = 1.0):
        self.value = float(value)

    def output(self, t, x, u):
        return (self.value,)

    def kernels(self):
        return Kernels((self.value,), output=_const_out)


class KLag(Lag):
    """Lag with kernels."""

    def __init__(self, tau: float = 1.0, x0: float = 0.0):
        super().__init__(tau, x0)

    def kernels(self):
        return Kernels((self.tau,), output=_lag_out, deriv=_lag_deriv)


class KCounter(Counter):
    """Counter with kernels."""

    def __init__(self, period: float = 0.1, offset: float = 0.0):
        super().__init__(period, offset)

    def kernels(self):
        return Kernels((), output=_counter_out, update=_counter_update)
