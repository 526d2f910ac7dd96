"""Margins of discrete loops, found on the unit circle (python-control 0.10 takes the pole of
an integrator at z = 1 for a phase crossover at w = 0)."""

from __future__ import annotations

import math
import warnings

import control
import numpy as np
import pytest

from blocksim.analysis import margins

T = 1e-3


def _pi_on_integrator(k: float):
    plant = control.c2d(control.tf([1.0], [1.0, 0.0]), T)  # T / (z - 1)
    pi = control.tf([2.0, -1.9], [1.0, -1.0], T)  # a PI: its own pole at z = 1
    return k * pi * plant


@pytest.mark.parametrize("k", [100.0, 300.0])
def test_a_loop_with_integrators_crosses_at_the_nyquist_frequency(k):
    L = _pi_on_integrator(k)
    m = margins(L)
    # L(-1) is real and negative: the phase crossover is at pi/T and the margin 1/|L(-1)|
    assert m.wpc == pytest.approx(math.pi / T, rel=1e-12)
    assert m.gm == pytest.approx(1.0 / abs(complex(L(-1.0))), rel=1e-12)
    # the gain crossover: |L| = 1 there, and the phase margin is its phase + 180 deg
    z = np.exp(1j * m.wgc * T)
    assert abs(complex(L(z))) == pytest.approx(1.0, rel=1e-10)
    assert m.pm == pytest.approx(np.angle(complex(L(z)), deg=True) + 180.0, rel=1e-9)
    assert 0 < m.sm <= abs(complex(L(-1.0)) + 1.0) + 1e-12


@pytest.mark.parametrize("L", [
    control.c2d(control.tf([10.0], [1.0, 3.0, 2.0]), 0.05)
    * control.tf([1.0, -0.5], [1.0, 0.2], 0.05),
    control.c2d(control.tf([40.0], [1.0, 6.0, 11.0, 6.0]), 0.01),
], ids=["lead-lag", "third-order"])
def test_margins_of_loops_without_poles_on_the_circle_equal_python_controls(L):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its fallback from 'poly' to 'frd' on one of them
        gm, pm, sm, wpc, wgc, _ = control.stability_margins(L)
    m = margins(L)
    assert (m.gm, m.pm, m.wpc, m.wgc) == pytest.approx((gm, pm, wpc, wgc), rel=1e-7)
    assert m.sm == pytest.approx(sm, rel=1e-7)

