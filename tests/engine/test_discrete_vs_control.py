"""Random stable discrete systems fed sampled inputs agree with python-control's
``forced_response``, sample for sample, on both back-ends.

The input samples reach the system through ``Piecewise(times=np.arange(N) * Ts, ...)``: their
switching times are the usual float products (0.30000000000000004 for 3 * 0.1, 0.8999999999999999
for 3 * 0.3), a few ulp off the clock hits; every sample must still be read at its own hit.
"""

from __future__ import annotations

import control
import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import DiscreteStateSpace, DiscreteTransferFunction, Piecewise
from blocksim.engine.schedule import Grid

N = 40  # input samples


def stable_ss(rng, n, feedthrough):
    """A random SISO (A, B, C, D) with spectral radius 0.5..0.95."""
    M = rng.normal(size=(n, n))
    A = rng.uniform(0.5, 0.95) * M / np.max(np.abs(np.linalg.eigvals(M)))
    B = rng.normal(size=(n, 1))
    C = rng.normal(size=(1, n))
    D = rng.normal(size=(1, 1)) if feedthrough else np.zeros((1, 1))
    return A, B, C, D


def stable_tf(rng, n, feedthrough):
    """A random SISO num/den of order n with poles (real, or conjugate pairs) inside |z| < 0.95."""
    poles = []
    while len(poles) < n:
        r, phi = rng.uniform(0.0, 0.95), rng.uniform(0.0, np.pi)
        if n - len(poles) >= 2 and rng.random() < 0.5:
            poles += [r * np.exp(1j * phi), r * np.exp(-1j * phi)]
        else:
            poles.append(rng.uniform(-0.95, 0.95))
    den = np.real(np.poly(poles))
    num = rng.normal(size=n + 1 if feedthrough else n)
    return num, den


def case(seed, kind, n, Ts, feedthrough):
    rng = np.random.default_rng(seed)
    u = rng.normal(size=N)
    if kind == "ss":
        A, B, C, D = stable_ss(rng, n, feedthrough)
        block = DiscreteStateSpace(A, B, C, D, clock=Ts)
        reference = control.ss(A, B, C, D, Ts)
    else:
        num, den = stable_tf(rng, n, feedthrough)
        block = DiscreteTransferFunction(num, den, clock=Ts)
        reference = control.tf(num, den, Ts)
    d = Diagram(f"{kind}{n}")
    src = d.add(Piecewise(times=np.arange(N) * Ts, values=u), name="u")
    sys_ = d.add(block, name="sys")
    d.connect(src, sys_)
    y = control.forced_response(reference, T=np.arange(N) * Ts, U=u).outputs
    return d, np.asarray(y).reshape(-1)


CASES = [
    (seed, kind, n, Ts, feedthrough)
    for seed, (kind, n, Ts, feedthrough) in enumerate(
        [("ss", 1, 0.1, False), ("ss", 2, 0.05, True), ("ss", 3, 0.3, False),
         ("ss", 4, 0.1, True), ("tf", 1, 0.3, True), ("tf", 2, 0.1, False),
         ("tf", 3, 0.05, True), ("tf", 4, 0.3, False), ("ss", 2, 0.3, True),
         ("tf", 2, 0.05, False), ("ss", 4, 0.05, False), ("tf", 4, 0.1, True)])
]


def ids(c):
    seed, kind, n, Ts, feedthrough = c
    return f"{kind}{n}-Ts{Ts}-{'D' if feedthrough else 'noD'}-seed{seed}"


def check(d, y, Ts, **options):
    hits = Grid(Ts).times_upto((N - 1) * Ts)
    res = simulate(d, T=(N - 1) * Ts, **options)
    np.testing.assert_array_equal(res.t, hits)  # one recorded point per sample, on the hits
    np.testing.assert_allclose(res["sys.y"], y, rtol=1e-10, atol=1e-12)
    gridded = simulate(d, T=(N - 1) * Ts, record_dt=Ts / 2, **options)
    np.testing.assert_array_equal(gridded.t, Grid(Ts / 2).times_upto((N - 1) * Ts))
    np.testing.assert_allclose(gridded["sys.y"][::2], y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gridded["sys.y"][1::2], y[:-1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("c", CASES, ids=ids)
def test_interpreted_back_end_matches_forced_response(c):
    seed, kind, n, Ts, feedthrough = c
    d, y = case(seed, kind, n, Ts, feedthrough)
    check(d, y, Ts)


@pytest.mark.parametrize("c", [CASES[1], CASES[2], CASES[7]], ids=ids)
def test_compiled_back_end_matches_forced_response(c):
    seed, kind, n, Ts, feedthrough = c
    d, y = case(seed, kind, n, Ts, feedthrough)
    check(d, y, Ts, backend="compiled", solver="rk4", dt=Ts)
