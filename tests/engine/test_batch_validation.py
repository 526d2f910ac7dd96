"""Batch hardening: every option refused as ``simulate`` refuses it on both back-ends, a
member's error keeps its block and time, an override that would change the diagram's
structure is refused naming the member and the block, and the batch's size is checked
against the run limits before any member runs."""

import numpy as np
import pytest

from blocksim import Diagram, compile_diagram, simulate, simulate_batch
from blocksim.blocks import Constant, Gain, Integrator, MathFunction, Sum, Time
from blocksim.engine.errors import BlockParameterError
from blocksim.engine.limits import RunLimitError


def growth():
    """x' = K x from x = 1."""
    d = Diagram("growth")
    x = d.add(Integrator(x0=1.0), name="x")
    g = d.add(Gain(1.0), name="g")
    d.connect(x, g)
    d.connect(g, x)
    return d


@pytest.mark.parametrize("backend", ["interpreted", "compiled"])
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(solver="RK54"), r"unknown solver 'RK54' \(did you mean 'RK45'\?\)"),
        (dict(solver="rk4"), r"solver 'rk4' is fixed-step and needs `dt`"),
        (dict(solver="rk4", dt=None), r"solver 'rk4' is fixed-step and needs `dt`"),
        (dict(solver="rk4", dt=0.0), r"`dt` must be a positive number, got 0"),
        (dict(T=-1.0), r"`T` \(final time, s\) must be a finite number >= 0, got -1.0"),
        (dict(T=float("nan")), r"`T` \(final time, s\) must be a finite number"),
    ],
)
def test_batch_options_are_refused_as_simulate_refuses_them(backend, kwargs, match):
    kw = {"T": 1.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        simulate(growth(), backend=backend, **kw)
    with pytest.raises(ValueError, match=match):
        simulate_batch(growth(), [{"g.K": 1.0}], backend=backend, workers=1, **kw)


def sqrt_of_one_minus_t():
    """y = sqrt(1 - t): block 'f' fails past t = 1 (math domain error)."""
    d = Diagram("sqrt")
    t = d.add(Time(), name="t")
    s = d.add(Sum("-+"), name="s")
    one = d.add(Constant(1.0), name="one")
    f = d.add(MathFunction("sqrt"), name="f")
    d.connect(t, s[0])
    d.connect(one, s[1])
    d.connect(s, f)
    return d


def test_a_failed_member_keeps_type_message_block_and_time():
    batch = simulate_batch(
        sqrt_of_one_minus_t(),
        [{"one.value": 2.0}, {"one.value": 1.0}],
        2.0,
        "rk4",
        dt=0.01,
        backend="interpreted",
        workers=1,
    )
    assert list(batch.status) == ["success", "failed"]
    err = batch.errors[1]
    assert err.type == "BlockRuntimeError" and err.block == "f"
    assert 1.0 < err.time <= 1.01 and "block 'f' (MathFunction)" in err.message
    assert batch.stats["nfailed"] == 1
    assert "1 of 2 members failed: 1 x BlockRuntimeError" in batch.failures()


@pytest.mark.parametrize("backend", ["interpreted", "compiled"])
def test_an_override_that_changes_a_state_size_names_the_member_and_block(backend):
    members = [{"x.x0": 1.0}, {"x.x0": 2.0}, {"x.x0": [1.0, 2.0, 3.0]}]
    with pytest.raises(
        BlockParameterError,
        match=r"member 2: override of x\.x0: block 'x' \(Integrator\) would "
        r"have 3 states instead of 1",
    ):
        simulate_batch(growth(), members, 1.0, "rk4", dt=0.1, backend=backend, workers=1)


def test_an_override_that_changes_an_output_shape_names_the_member_and_block():
    with pytest.raises(
        BlockParameterError,
        match=r"member 1: override of g\.K: output 'g\.y' \(Gain\) would have "
        r"shape \(2,\) instead of \(\)",
    ):
        simulate_batch(
            growth(),
            [{"g.K": 2.0}, {"g.K": [1.0, 2.0]}],
            1.0,
            "rk4",
            dt=0.1,
            backend="interpreted",
            workers=1,
        )


def test_a_refused_constructor_value_names_the_member_and_block():
    with pytest.raises(BlockParameterError, match=r"member 0: .*'x'"):
        simulate_batch(
            growth(), [{"x.x0": "one"}], 1.0, "rk4", dt=0.1, backend="interpreted", workers=1
        )


def test_the_batch_size_is_checked_against_the_limits_before_any_member_runs():
    plan = compile_diagram(growth())
    with pytest.raises(
        RunLimitError,
        match=r"1e\+07 solver steps \(dt = 1e-07 s\).*"
        r"max_steps = 1000000",
    ):
        simulate_batch(
            plan, [{}], 1.0, "rk4", dt=1e-7, backend="interpreted", max_steps=1_000_000, workers=1
        )
    # 1000 members x 10001 points: over 10 MB in all, though each member alone is not
    with pytest.raises(RunLimitError, match=r"for 1000 members .* max_memory = 10 MB"):
        simulate_batch(
            plan, [{}] * 1000, 1.0, "rk4", dt=1e-4, backend="interpreted", max_memory=1e7, workers=1
        )
    simulate(plan, 1.0, "rk4", dt=1e-4, max_memory=1e7)
    ok = simulate_batch(
        plan, [{}] * 2, 1.0, "rk4", dt=0.1, max_steps=20, backend="interpreted", workers=1
    )
    np.testing.assert_allclose(ok["x.y"][:, -1], np.e, rtol=1e-5)
