"""Run one diagram on both back-ends and compare every recorded signal and the state."""

from __future__ import annotations

import numpy as np

from blocksim import Diagram, simulate


def assert_backends_agree(d: Diagram, T: float = 0.5, dt: float = 0.05,
                          close: dict[str, float] | None = None, state_rtol: float = 0.0,
                          solver: str = "rk4") -> None:
    """``simulate(d, T, solver=solver, dt=dt)`` (a fixed-step solver) on the compiled and the
    interpreted back-ends gives the same times, states and signals: bitwise, except the signals
    named in ``close``, equal to that relative tolerance (BLAS/LAPACK against loops), and the
    states to ``state_rtol``."""
    close = close or {}
    a = simulate(d, T, solver=solver, dt=dt, backend="compiled")
    b = simulate(d, T, solver=solver, dt=dt, backend="interpreted")
    np.testing.assert_array_equal(a.t, b.t)
    assert sorted(a.signals) == sorted(b.signals)
    for name in b.signals:
        tol = close.get(name, 0.0)
        np.testing.assert_allclose(a[name], b[name], rtol=tol, atol=tol, err_msg=name)
    np.testing.assert_allclose(a.x, b.x, rtol=state_rtol, atol=state_rtol)
