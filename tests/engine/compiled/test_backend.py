"""The compiled back-end on small diagrams of test blocks with kernels."""

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.engine.compiled.backend import CompileError

from ..helpers import KConst, KCounter, KLag, Lag


def lag_diagram():
    d = Diagram("klag")
    c = d.add(KConst(1.0), name="c")
    a = d.add(KLag(tau=0.5), name="lag")
    d.connect(c, a)
    return d


@pytest.mark.parametrize("solver, opts, tol", [
    ("RK45", dict(rtol=1e-9, atol=1e-12), 1e-8),
    ("rk4", dict(dt=1e-3), 1e-11),
    ("euler", dict(dt=1e-4), 1e-4),  # first order: error about dt / (2 tau) * t exp(-t/tau)
])
def test_compiled_lag_matches_the_closed_form(solver, opts, tol):
    res = simulate(lag_diagram(), 2.0, solver, backend="compiled", **opts)
    assert res.stats["backend"] == "compiled"
    np.testing.assert_allclose(res["lag.y"], 1 - np.exp(-res.t / 0.5), atol=tol)


def test_compiled_and_interpreted_agree_step_for_step_with_rk4():
    a = simulate(lag_diagram(), 1.0, "rk4", dt=0.01, backend="compiled")
    b = simulate(lag_diagram(), 1.0, "rk4", dt=0.01)
    np.testing.assert_allclose(a.t, b.t, atol=1e-12)
    np.testing.assert_allclose(a["lag.y"], b["lag.y"], rtol=1e-12, atol=1e-14)


def test_compiled_rk45_takes_the_same_steps_as_scipy():
    a = simulate(lag_diagram(), 3.0, backend="compiled")
    b = simulate(lag_diagram(), 3.0)
    assert a.stats["nsteps"] == b.stats["nsteps"]
    # same tableau, error norm and step control; only the summation order of the stages
    # differs from scipy's, so step times agree to rounding amplified by the controller
    np.testing.assert_allclose(a.t, b.t, rtol=1e-7)
    np.testing.assert_allclose(a["lag.y"], b["lag.y"], rtol=1e-7)


def test_compiled_discrete_clock_hits_and_held_outputs():
    d = Diagram("kcount")
    d.add(KCounter(period=0.1), name="n")
    res = simulate(d, 1.0, backend="compiled")
    np.testing.assert_allclose(res.t, np.arange(11) * 0.1, atol=1e-12)
    np.testing.assert_array_equal(res["n.y"], np.arange(11))


def test_compiled_refuses_blocks_without_kernels_and_auto_falls_back():
    d = Diagram("mixed")
    c = d.add(KConst(1.0), name="c")
    a = d.add(Lag(), name="plain")
    d.connect(c, a)
    with pytest.raises(CompileError, match=r"plain \(Lag\): has no compiled kernels"):
        simulate(d, 1.0, backend="compiled")
    res = simulate(d, 1.0, backend="auto")
    assert res.stats["backend"] == "interpreted"
    assert simulate(lag_diagram(), 1.0, backend="auto").stats["backend"] == "compiled"


def test_compile_time_is_reported_separately():
    res = simulate(lag_diagram(), 1.0, backend="compiled")
    assert res.stats["compile_time"] >= 0 and res.stats["wall_time"] >= 0
