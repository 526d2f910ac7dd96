"""The generated fixed-step loop (``specialize=True``) gives the shared loop's results.

Both loops take the same steps with the same diagram functions, so their traces agree to
rounding (the generated one fuses the recording evaluation with the next derivative; the
floating-point operations are the same, so 1e-12 is ample).
"""

import math
from pathlib import Path

import numpy as np
import pytest

from blocksim import Diagram, compile_diagram, grid, simulate, simulate_batch
from blocksim.blocks import Constant, Gain, Integrator, Product, Sum
from blocksim.engine.compiled.backend import CompileError, load_module
from blocksim.engine.compiled.backend import _kernels_for as kernels_for
from blocksim.engine.errors import NonFiniteError

from ...examples_loader import load_example


def _same(a, b):
    np.testing.assert_allclose(b.t, a.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.x, a.x, rtol=1e-12, atol=1e-12)
    for name in a.signals:
        np.testing.assert_allclose(b[name], a[name], rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name, solver, T", [
    ("pid_mass_spring_damper", "rk4", 2.0),       # continuous, a Step breakpoint at 0
    ("discrete_pid_mass_spring_damper", "euler", 0.2),  # 1 kHz clock hits and updates
])
def test_generated_loop_matches_shared_loop(name, solver, T):
    plan = compile_diagram(load_example(name).build(with_scope=False))
    shared = simulate(plan, T, solver, dt=1e-3, backend="compiled")
    fast = simulate(plan, T, solver, dt=1e-3, backend="compiled", specialize=True)
    assert fast.stats["nsteps"] == shared.stats["nsteps"]
    assert fast.stats["nfev"] == shared.stats["nfev"]
    _same(shared, fast)
    on_grid = simulate(plan, T, solver, dt=1e-3, backend="compiled", specialize=True,
                       record_dt=0.05)
    np.testing.assert_allclose(on_grid.t, np.arange(0, T + 1e-9, 0.05), atol=1e-12)


def test_generated_loop_is_cached_and_used():
    plan = compile_diagram(load_example("pid_mass_spring_damper").build(with_scope=False))
    module, src, _ = load_module(plan, kernels_for(plan, "rk4"), specialized=True, inline=True)
    assert "def run_fixed" in src and "NX = 4" in src
    assert "pv[" not in src.split("def rhs(")[1].split("def update(")[0]  # inlined scalars
    simulate(plan, 0.1, "rk4", dt=1e-3, backend="compiled", specialize=True)
    assert module.run_fixed.signatures, "the generated loop did not run"
    # numba cached it (it refuses to cache a loop that gets dispatchers as arguments)
    where = Path(module.run_fixed._cache._cache_path)  # numba's choice (NUMBA_CACHE_DIR...)
    index = list(where.glob(f"{module.__name__}.run_fixed-*.nbi"))
    assert index, "no numba cache index was written for run_fixed"


def test_generated_loop_stops_at_the_first_nan_with_the_partial_result():
    d = Diagram("blowup")  # x' = x^2, x(0) = 1: escapes to infinity at t = 1
    x = d.add(Integrator(x0=1.0), name="x")
    sq = d.add(Product("**"), name="sq")
    d.connect(x, "sq.u0", "sq.u1")
    d.connect(sq, x)
    with pytest.raises(NonFiniteError) as err:
        simulate(d, 3.0, "rk4", dt=0.01, backend="compiled", specialize=True)
    with pytest.raises(NonFiniteError) as shared:
        simulate(d, 3.0, "rk4", dt=0.01, backend="compiled")
    assert err.value.block == shared.value.block
    part = err.value.result
    assert 1.0 < part.t[-1] < 3.0
    np.testing.assert_array_equal(part.t, shared.value.result.t)


def test_generated_batch_matches_single_runs():
    d = Diagram("lag")
    u = d.add(Constant(1.0), name="u")
    e = d.add(Sum("+-"), name="e")
    k = d.add(Gain(3.0), name="k")
    x = d.add(Integrator(x0=0.0), name="x")
    d.connect(u, "e.u0")
    d.connect(x, "e.u1")
    d.connect(e, k)
    d.connect(k, x)
    members = grid({"k.K": [1.0, 2.0, 4.0]})
    batch = simulate_batch(d, members, 1.0, "rk4", dt=1e-3, backend="compiled",
                           specialize=True, record_dt=0.25)
    for m, K in enumerate([1.0, 2.0, 4.0]):
        # rk4 at h = 1 ms: 1 - exp(-K t) to ~1e-12
        np.testing.assert_allclose(batch["x.y"][m], 1 - np.exp(-K * batch.t), atol=1e-11)


def _lag():
    d = Diagram("lag")
    d.add(Constant(1.0), name="u")
    d.add(Sum("+-"), name="e")
    d.add(Gain(3.0), name="k")
    d.add(Integrator(x0=0.0), name="x")
    d.connect("u.y", "e.u0")
    d.connect("x.y", "e.u1")
    d.connect("e.y", "k.u")
    d.connect("k.y", "x.u")
    return d


@pytest.mark.parametrize("specialize", [False, True])
def test_members_overriding_different_blocks_get_their_own_values(specialize):
    members = [{"k.K": 2.0}, {"u.value": 3.0}, {"x.x0": 1.0}]
    batch = simulate_batch(_lag(), members, 1.0, "rk4", dt=1e-3, backend="compiled",
                           specialize=specialize, record_dt=0.5)
    t = batch.t
    expected = [1 - np.exp(-2 * t), 3 * (1 - np.exp(-3 * t)), np.ones_like(t)]
    for m, ref in enumerate(expected):
        np.testing.assert_allclose(batch["x.y"][m], ref, atol=1e-10, err_msg=str(members[m]))


def test_a_member_that_changes_a_blocks_kernel_is_refused():
    members = [{"x.upper": math.inf}, {"x.upper": 0.5}]  # limits select another kernel
    with pytest.raises(CompileError, match="member 1 changes how block 'x' compiles"):
        simulate_batch(_lag(), members, 1.0, "rk4", dt=1e-3, backend="compiled")
