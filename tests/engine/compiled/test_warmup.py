"""Warmup: kernels compiled ahead with the exact types a compiled run passes, so the run
compiles none of them."""

import numpy as np
import pytest

from blocksim import Diagram, compile_diagram, simulate
from blocksim.blocks import Constant, Gain, Integrator, Sum
from blocksim.cli.warmup import sample_diagram, warmup
from blocksim.engine.compiled.kernels import kernels_of
from blocksim.engine.compiled.warmup import kernel_signatures

TYPES = ["Gain", "Sum", "Integrator", "Relay", "Scope", "Inport"]


def _loop() -> Diagram:
    d = Diagram("warmup_test_loop")
    r = d.add(Constant(1.0), name="r")
    s = d.add(Sum("+-"), name="s")
    g = d.add(Gain(2.0), name="g")
    x = d.add(Integrator(x0=0.0), name="x")
    d.connect(r, s["u0"])
    d.connect(s, g)
    d.connect(g, x)
    d.connect(x, s["u1"])
    return d


def test_warmup_reports_each_type_and_a_compiled_run_then_compiles_none_of_their_kernels():
    report = warmup(TYPES)
    by_type = {b.type: b for b in report.blocks}
    assert [b.type for b in report.compiled] == ["Gain", "Sum", "Integrator", "Relay"]
    assert {b.type for b in report.skipped} == {"Scope", "Inport"}
    assert report.ok and not report.failed and report.loop_seconds == 0.0
    assert all(b.via == "signatures" for b in report.compiled)
    assert len(by_type["Integrator"].kernels) == 2  # output and deriv
    assert len(by_type["Relay"].kernels) == 3  # output, crossings, on_event (update: events)
    assert report.summary()[0].startswith("warmup: 4 block types compiled")

    d = _loop()
    kernels = [kernels_of(d[n]) for n in ("s", "g", "x")]
    fns = [getattr(k, w) for k in kernels for w in ("output", "deriv") if getattr(k, w)]
    before = [list(fn.signatures) for fn in fns]
    result = simulate(d, T=0.1, solver="euler", dt=0.05, backend="compiled")
    assert [list(fn.signatures) for fn in fns] == before  # nothing new compiled or loaded
    np.testing.assert_allclose(result["x.y"][-1], 2 * 0.05 * (1 + (1 - 0.1)), rtol=1e-12)


@pytest.mark.parametrize("name, n", [("Sum", 1), ("Relay", 3)])
def test_predicted_signatures_are_those_numba_lists(name, n):
    from blocksim.io.registry import block_types

    d = sample_diagram(name, block_types()[name])
    plan = compile_diagram(d)
    sigs = kernel_signatures(plan, "block")
    assert len(sigs) == n
    k = kernels_of(d["block"])
    warmup([name])
    for kind, sig in sigs.items():
        assert sig in getattr(k, kind).signatures, kind


@pytest.mark.parametrize("solver, dt", [("euler", 0.05), ("rk4", 0.05), ("RK45", None)])
def test_after_warmup_a_data_wired_run_of_a_sample_compiles_nothing(solver, dt):
    # Gain: stateless (the lean fixed-step loop); Relay: zero crossings and events (the general
    # loop); DiscreteIntegrator: a clocked state; batches run the batch loops
    from blocksim import simulate_batch
    from blocksim.io.registry import block_types

    types = ["Gain", "Relay", "DiscreteIntegrator"]
    report = warmup(types, loop=True)
    assert report.ok and [b.type for b in report.compiled] == types, report.failures()
    assert all(b.entries for b in report.compiled)
    assert len(report.loops) == 10 and not report.loop_error
    for name in types:
        d = sample_diagram(name, block_types()[name])
        result = simulate(d, 0.2, solver, dt=dt, backend="compiled", fuse=False)
        assert result.stats["tier"] == "wired"
        assert result.stats["compiled_functions"] == 0, (name, result.stats["compiled"])
    batch = simulate_batch(sample_diagram("Gain", block_types()["Gain"]),
                           [{"block.K": 1.0}, {"block.K": 2.0}], 0.2, solver, dt=dt,
                           backend="compiled", fuse=False)
    assert batch.stats["compiled_functions"] == 0, batch.stats["compiled"]


def test_the_compile_report_has_exclusive_seconds_and_signature_counts_per_function():
    from numba import njit

    from blocksim.engine.compiled.compile_watch import CompileWatch

    @njit
    def inner(x):
        return x * 2

    @njit
    def outer(x):
        return inner(x) + 1

    with CompileWatch("", "report", quiet=True) as watch:
        outer(1)
        outer(1.5)  # a second signature of both
        outer(2)  # nothing new
    (fo,), (fi,) = ([f for n, f in watch.functions.items() if n.endswith(w)]
                    for w in ("<locals>.outer", "<locals>.inner"))
    assert (fo.nsignatures, fi.nsignatures) == (2, 2)
    assert fo.kind == fi.kind == "kernels" and fo.seconds > 0 and fi.seconds > 0
    assert abs(sum(f.seconds for f in watch.functions.values())
               - sum(watch.seconds.values())) < 1e-9
    lines = watch.report(1)
    assert lines[0].startswith("compile report: ") and "(4 signatures)" in lines[0]
    assert "kernels" in lines[0] and "entries 0.0 s" in lines[0] and "loops 0.0 s" in lines[0]
    top = max((fo, fi), key=lambda f: f.seconds)
    assert lines[2] == f"  {top.seconds:8.2f}     2  kernels  {top.name}"
    assert lines[3].endswith("(1 more functions)")


def test_types_with_other_common_settings_have_more_samples_with_other_kernels():
    # the README's Puma uses ForwardDynamics(qdd=False): another output kernel, another entry
    from blocksim.cli.warmup import variants
    from blocksim.io.registry import block_types

    assert variants("ForwardDynamics") == 1 and variants("EKF") == 3 and variants("Gain") == 0
    cls = block_types()["ForwardDynamics"]
    first, other = (kernels_of(sample_diagram("ForwardDynamics", cls, k)["block"])
                    for k in (0, 1))
    assert first.output is not other.output and first.deriv is other.deriv
    assert [p.name for p in sample_diagram("ForwardDynamics", cls, 1)["block"].outputs] == [
        "q", "qd"]


def test_an_unknown_type_is_refused_with_a_suggestion():
    with pytest.raises(KeyError, match="did you mean 'Gain'"):
        warmup(["Gian"])


def test_hardware_blocks_are_skipped_not_failed():
    report = warmup(["ArbotixArm", "ArbotixPath", "VrepArm", "VrepCamera"])
    assert report.ok and not report.failed and not report.compiled
    assert {b.type for b in report.skipped} == {"ArbotixArm", "ArbotixPath", "VrepArm",
                                                 "VrepCamera"}
    assert all("no compiled kernels" in b.reason for b in report.skipped)


def _readonly(sig) -> bool:
    from numba import types

    return any(isinstance(a, types.Array) and not a.mutable for a in sig)


def _mutability(sig) -> tuple:
    from numba import types

    return tuple(a.mutable if isinstance(a, types.Array) else None for a in sig)


@pytest.mark.parametrize("name", ["IBVS", "CTraj", "FloatingBaseDynamics", "Braitenberg",
                                  "RangeBearingSensor", "ControlMixer", "Camera", "CameraMount",
                                  "AttitudeController", "DriveToPose", "PurePursuit"])
def test_the_interpreted_methods_call_kernels_with_the_compiled_types(name):
    # the engine hands interpreted methods read-only signals; a method that passed them (or a
    # writable empty state) to its kernel made numba compile the kernel a second time: every
    # signature the kernel has after both paths ran has the compiled run's (im)mutable arrays
    from blocksim.io.registry import block_types

    d = sample_diagram(name, block_types()[name])
    k = kernels_of(d["block"])
    # only what this test adds: other tests in the process may call a kernel directly
    kinds = [kind for kind in ("output", "deriv", "update", "crossings", "on_event")
             if getattr(k, kind) is not None]
    before = {kind: set(getattr(k, kind).signatures) for kind in kinds}
    plan = compile_diagram(d)  # its dry run calls the interpreted methods
    simulate(plan, 0.05, "euler", dt=0.01)
    for kind, sig in kernel_signatures(plan, "block").items():
        getattr(k, kind).compile(sig)
        for s in set(getattr(k, kind).signatures) - before[kind]:
            assert _mutability(s) == _mutability(sig), (kind, s)


def test_the_ekf_steps_with_writable_inputs_as_its_kernels_do():
    from blocksim.io.registry import block_types

    d = sample_diagram("EKF", block_types()["EKF"])
    simulate(d, 0.25, "euler", dt=0.05)
    step = d["block"]._k[0]
    assert step.signatures and not any(_readonly(s) for s in step.signatures)


def test_every_library_type_has_a_sample_or_a_reason_to_be_skipped():
    # (last in this file: its dry runs call every type's interpreted methods, which the
    # mutability test above must see itself)
    # what `blocksim warmup` does first for each type, without compiling: a type without
    # kernels is skipped before a sample is built (the Arbotix blocks cannot be built without
    # their serial port: warmup reported them as failed and exited 1)
    from blocksim.cli.warmup import NO_SAMPLE
    from blocksim.io.registry import block_types

    for name, cls in block_types().items():
        if name in NO_SAMPLE or getattr(cls, "kernels", None) is None:
            continue
        compile_diagram(sample_diagram(name, cls))  # raises, naming the type, if it cannot
