"""The data-wired tier: block entries per form, the diagram as tables, nothing compiled per diagram.

A compiled run with ``fuse=False`` reaches each block through the entry of its *form* (kernels,
state, ranks of its ports and parameters) and integrates in a loop compiled once per method.
So a new diagram structure whose block forms have run before compiles nothing, the entry of a
``Gain`` serves scalars and vectors of every length, and the results are those of the fused
tier and the interpreted back-end.
"""

import numpy as np
import pytest

from blocksim import Diagram, RunConfig, compile_diagram, simulate, simulate_batch
from blocksim.blocks import (
    Constant,
    Gain,
    Integrator,
    Product,
    Saturation,
    Sine,
    Step,
    Sum,
    TransferFunction,
)
from blocksim.engine.batch import with_overrides
from blocksim.engine.compiled.adapters import form_of
from blocksim.engine.compiled.backend import kernels_for, prepare
from blocksim.engine.errors import BlockRuntimeError


def chain(n: int, seed: int) -> Diagram:
    """A random structure of ``n`` scalar library blocks: sources, gains, sums, saturations,
    products, transfer functions and integrators, each new block reading earlier signals
    (feedback only through integrators' states: no algebraic loop)."""
    rng = np.random.default_rng(seed)
    d = Diagram(f"random{seed}")
    signals = [d.add(Step(time=0.1 + rng.random(), after=1 + rng.random()), name="src0"),
               d.add(Sine(amplitude=1.0, frequency=float(rng.uniform(0.5, 3))), name="src1")]
    integrators = []
    for k in range(n):
        kind = rng.integers(6)
        pick = [signals[i] for i in rng.integers(len(signals), size=2)]
        if kind == 0:
            b = d.add(Gain(float(rng.uniform(-2, 2))), name=f"gain{k}")
            d.connect(pick[0], b)
        elif kind == 1:
            b = d.add(Sum("+-"), name=f"sum{k}")
            d.connect(pick[0], b["u0"])
            d.connect(pick[1], b["u1"])
        elif kind == 2:
            b = d.add(Saturation(lower=-0.5, upper=0.5), name=f"sat{k}")
            d.connect(pick[0], b)
        elif kind == 3:
            b = d.add(Product("**"), name=f"prod{k}")
            d.connect(pick[0], b["u0"])
            d.connect(pick[1], b["u1"])
        elif kind == 4:
            b = d.add(TransferFunction([1.0], [1.0, float(rng.uniform(0.5, 3))]), name=f"tf{k}")
            d.connect(pick[0], b)
        else:
            b = d.add(Integrator(x0=float(rng.uniform(-1, 1))), name=f"int{k}")
            integrators.append(b)
            fb = d.add(Sum("+-"), name=f"fb{k}")
            d.connect(pick[0], fb["u0"])
            d.connect(b, fb["u1"])
            d.connect(fb, b)
        signals.append(b)
    return d


def run(d, fuse, **kw):
    opts = dict(solver="rk4", dt=1e-2, backend="compiled", fuse=fuse)
    opts.update(kw)
    return simulate(d, 1.0, **opts)


def test_new_structures_of_known_block_forms_compile_nothing():
    run(chain(30, 0), False)  # every form of the generator, and the rk4 loop
    run(chain(30, 0), False, solver="RK45", dt=None)
    for seed in (1, 2, 3):
        d = chain(30, seed)
        r = run(d, False)
        assert r.stats["tier"] == "wired"
        assert r.stats["compiled_functions"] == 0, r.stats["compiled"]
        assert r.stats["compile_time"] < 2.0  # loading only (the figure is <= 0.5 s quiet)
        ref = simulate(d, 1.0, solver="rk4", dt=1e-2, record_dt=0.05)
        r = run(d, False, record_dt=0.05)
        for name in ref.signals:
            np.testing.assert_allclose(r[name], ref[name], rtol=1e-10, atol=1e-12,
                                       err_msg=name)


def test_random_structures_agree_with_the_interpreted_back_end_on_rk45():
    for seed in (4, 5):
        d = chain(25, seed)
        opts = dict(rtol=1e-9, atol=1e-12, record_dt=0.01)
        a = simulate(d, 1.0, **opts)
        b = simulate(d, 1.0, backend="compiled", fuse=False, **opts)
        for name in a.signals:
            span = max(1.0, float(np.ptp(a[name])))
            np.testing.assert_allclose(b[name], a[name], atol=1e-6 * span, rtol=0,
                                       err_msg=name)


def _forms(d):
    plan = compile_diagram(d)
    prep = prepare(plan, "rk4", "wired")
    kernels = kernels_for(plan, "rk4")
    shapes = [s.shape for s in prep.program.signals]
    return {e.name: form_of(e, kernels[k], prep.layout.items[k], shapes)
            for k, e in enumerate(plan.entries) if kernels[k] is not None}


def test_a_block_form_does_not_depend_on_sizes_or_places():
    d = Diagram("sizes")
    c3 = d.add(Constant(np.ones(3)), name="c3")
    c7 = d.add(Constant(np.arange(7.0)), name="c7")
    g3 = d.add(Gain(2.0), name="g3")
    g7 = d.add(Gain(-1.5), name="g7")
    s = d.add(Constant(1.0), name="s")
    g1 = d.add(Gain(3.0), name="g1")
    d.connect(c3, g3)
    d.connect(c7, g7)
    d.connect(s, g1)
    forms = _forms(d)
    assert forms["g3"] == forms["g7"]  # vectors of any length: one entry
    assert forms["g1"] != forms["g3"]  # a scalar is another form
    r = run(d, False)
    np.testing.assert_allclose(r["g7.y"][-1], -1.5 * np.arange(7.0))
    np.testing.assert_allclose(r["g3.y"][-1], 2.0 * np.ones(3))
    assert r["g1.y"][-1] == 3.0


def test_both_tiers_give_the_same_traces_and_auto_takes_the_fused_once_compiled():
    d = chain(12, 7)
    plan = compile_diagram(d)
    wired = run(plan, False, solver="RK45", dt=None)
    fused = run(plan, True, solver="RK45", dt=None)
    assert (wired.stats["tier"], fused.stats["tier"]) == ("wired", "fused")
    np.testing.assert_allclose(wired.t, fused.t, rtol=0, atol=0)
    for name in wired.signals:
        np.testing.assert_allclose(wired[name], fused[name], rtol=1e-13, atol=1e-15)
    assert run(plan, "auto", solver="RK45", dt=None).stats["tier"] == "fused"


def test_discrete_clocks_events_and_stop_run_on_the_wired_tier():
    # clocked blocks, zero crossings with resets and a Stop: the loop features of both tiers
    from blocksim import Clock
    from blocksim.blocks import Stop, UnitDelay

    d = Diagram("features")
    t = d.add(Sine(amplitude=1.0, frequency=2.0, bias=1.0), name="sine")
    zoh = d.add(UnitDelay(clock=Clock(0.05, 0.01)), name="zoh")
    delay = d.add(UnitDelay(clock=Clock(0.05)), name="delay")
    x = d.add(Integrator(x0=0.0), name="x")
    stop = d.add(Stop(), name="stop")
    cmp_ = d.add(Sum("+-"), name="cmp")
    lim = d.add(Constant(0.3), name="lim")
    d.connect(t, zoh)
    d.connect(zoh, delay)
    d.connect(delay, x)
    d.connect(x, cmp_["u0"])
    d.connect(lim, cmp_["u1"])
    d.connect(cmp_, stop)
    results = {}
    for fuse in (False, True):
        results[fuse] = simulate(d, 5.0, backend="compiled", fuse=fuse, rtol=1e-9, atol=1e-12)
    ref = simulate(d, 5.0, rtol=1e-9, atol=1e-12)
    assert ref.status == results[False].status == results[True].status == "stopped"
    assert results[False].t[-1] == pytest.approx(ref.t[-1], abs=1e-8)
    np.testing.assert_array_equal(results[False]["x.y"], results[True]["x.y"])


def test_a_kernel_that_raises_names_its_block():
    d = Diagram("singular")
    a = d.add(Constant(np.eye(2)), name="a")
    b = d.add(Step(time=0.05, before=np.eye(2), after=np.zeros((2, 2))), name="b")
    div = d.add(Product("*/", matrix=True), name="div")  # singular from t = 0.05
    d.connect(a, div["u0"])
    d.connect(b, div["u1"])
    with pytest.raises(BlockRuntimeError, match=r"'div'.*t=0\.05"):
        simulate(d, 0.1, solver="rk4", dt=0.05, backend="compiled", fuse=False)


def test_a_batch_runs_on_the_wired_tier_with_the_program_in_every_member():
    d = chain(10, 8)
    gains = [n for n in d.blocks if n.startswith("tf")] or ["src1"]
    overrides = [{f"{gains[0]}.num": [1.0 + m]} if gains[0].startswith("tf")
                 else {"src1.amplitude": 1.0 + m} for m in range(3)]
    batch = simulate_batch(d, overrides, 1.0, "rk4", dt=1e-2, record_dt=0.25,
                           backend="compiled", fuse=False)
    assert batch.stats["tier"] == "wired"
    for m, ov in enumerate(overrides):
        one = simulate(with_overrides(compile_diagram(d), ov), 1.0, "rk4", dt=1e-2,
                       record_dt=0.25)
        np.testing.assert_array_equal(batch.t, one.t)
        for name in one.signals:
            np.testing.assert_allclose(batch[name][m], one[name], rtol=1e-10, atol=1e-12,
                                       err_msg=name)


def test_fuse_is_validated():
    with pytest.raises(ValueError, match="fuse"):
        RunConfig(T=1.0, fuse="yes")
    assert RunConfig(T=1.0).fuse == "auto"


def test_the_wired_loop_modules_are_generated_from_the_template():
    # the package ships the loops (numba caches them beside the library, once per
    # installation); regenerate with `python -m blocksim.engine.compiled.wiring`
    from blocksim.engine.compiled.steps import Method
    from blocksim.engine.compiled.wiring import wired_module, wired_source

    for method in Method:
        module = wired_module(method)
        assert module.__name__.startswith("blocksim.engine.compiled.wired_")
        with open(module.__file__) as f:
            assert f.read() == wired_source(method), f"{module.__name__} is out of date"


def test_the_background_loop_compile_has_the_types_a_run_passes():
    # `blocksim run` compiles the wired loop in another process from loop_arguments(): its
    # types must be those of a real run, or the run would compile the loop again
    import numba

    from blocksim.engine.compiled import prewarm
    from blocksim.engine.compiled.steps import Method
    from blocksim.engine.compiled.wiring import wired_module

    wanted = tuple(numba.typeof(a) for a in prewarm.loop_arguments())
    d = Diagram("plain")  # no zero crossings: the loops that prewarm compiles
    d.connect(d.add(Constant(1.0), name="c"), d.add(Gain(2.0), name="g"))
    d.connect("g.y", d.add(Integrator(), name="x"))
    for solver, method in (("rk4", Method.RK4), ("RK45", Method.DOPRI)):
        run(d, False, solver=solver, dt=None if solver == "RK45" else 1e-2)
        dispatcher = getattr(wired_module(method), prewarm.loop_function(method))
        assert wanted in dispatcher.signatures, (solver, dispatcher.signatures)
        assert prewarm.cached(method, prewarm.loop_function(method))
        assert not prewarm.start(solver)  # cached: nothing to start


def test_large_batches_and_sweeps_take_the_fused_tier_unless_told():
    from blocksim.engine.config import FUSE_MEMBERS, batch_config

    auto = RunConfig(T=1.0)
    assert batch_config(auto, FUSE_MEMBERS).fuse is True
    assert batch_config(auto, FUSE_MEMBERS - 1).fuse == "auto"
    assert batch_config(RunConfig(T=1.0, fuse=False), 10 * FUSE_MEMBERS).fuse is False


def test_robotics_entries_call_their_kernels_by_address_and_elementary_ones_link_them():
    # a large kernel linked into its entry is optimised and compiled once more there (an EKF
    # entry took 2-3 s); called through its compiled code's address it is not
    from blocksim.blocks.vehicle import Bicycle
    from blocksim.engine.compiled.adapters import adapter, form_of

    d = Diagram("mixed")
    bike = d.add(Bicycle(), name="bike")
    d.connect(d.add(Constant(1.0), name="v"), bike["v"])
    d.connect(d.add(Constant(0.1), name="gamma"), bike["gamma"])
    d.connect(d.add(Constant(2.0), name="c"), d.add(Gain(3.0), name="g"))
    plan = compile_diagram(d)
    prep = prepare(plan, "RK45", "wired")
    kernels = kernels_for(plan, "RK45")
    shapes = [s.shape for s in prep.program.signals]
    forms = {e.name: form_of(e, kernels[k], prep.layout.items[k], shapes)
             for k, e in enumerate(plan.entries)}
    assert forms["g"].linked and not forms["bike"].linked
    assert set(adapter(forms["g"]).kernel_addresses.values()) == {0}
    assert all(a != 0 for a in adapter(forms["bike"]).kernel_addresses.values())
    r = simulate(d, 1.0, backend="compiled", fuse=False, rtol=1e-9, atol=1e-12)
    ref = simulate(d, 1.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r["bike.pose"][-1], ref["bike.pose"][-1], rtol=1e-7, atol=1e-9)
