"""keep= of simulate_batch on one machine: chunked batches keep only what is asked, member for
member equal to what the full traces hold, and hold far less memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from blocksim import compile_diagram, grid, simulate_batch
from blocksim.engine.errors import BlockParameterError
from blocksim.engine.limits import RunLimitError
from blocksim.engine.record import BatchResult, MemberError
from blocksim.engine.sweep import STATS, Summaries, SweepResult

from .diagrams import blowup, pid_loop

OPTS = dict(T=2.0, solver="rk4", dt=1e-3, record_dt=0.05, backend="compiled")
GAINS = grid({"pid.Kp": list(np.linspace(2.0, 20.0, 6)), "pid.Kd": [0.5, 1.0, 2.0]})


@pytest.fixture(scope="module")
def plan():
    return compile_diagram(pid_loop())


@pytest.fixture(scope="module")
def traces(plan):
    """The reference: one unchunked batch with every trace (18 members)."""
    return simulate_batch(plan, GAINS, **OPTS)


def test_chunked_traces_equal_the_one_call_batch_member_for_member(plan, traces):
    res = simulate_batch(plan, GAINS, **OPTS, chunk=4)
    assert isinstance(res, SweepResult) and res.stats["chunks"] == 5
    assert res.stats["chunk"] == 4 and res.stats["scheduler"] == "local"
    np.testing.assert_array_equal(res.t, traces.t)
    np.testing.assert_array_equal(res.x, traces.x)
    assert list(res.signals) == list(traces.signals)
    for name in traces.signals:
        np.testing.assert_array_equal(res[name], traces[name])
    assert res.overrides == traces.overrides and list(res.status) == ["success"] * 18
    # members differ: the sweep really swept
    assert len(set(np.round(res["plant.y"][:, -1], 12))) == 18


def test_keep_final_holds_the_last_row_of_every_trace(plan, traces):
    res = simulate_batch(plan, GAINS, **OPTS, keep="final", chunk=5)
    assert res.t.shape == (1,) and res.t[0] == traces.t[-1] == 2.0
    assert res.x.shape == (18, 1, traces.x.shape[2])
    np.testing.assert_array_equal(res.x[:, 0], traces.x[:, -1])
    for name in traces.signals:
        assert res[name].shape == (18, 1)
        np.testing.assert_array_equal(res[name][:, -1], traces[name][:, -1])


def test_keep_a_list_of_signals_keeps_only_their_traces(plan, traces):
    res = simulate_batch(plan, GAINS, **OPTS, keep=["plant.y", "err.y"], chunk=7)
    assert list(res.signals) == ["plant.y", "err.y"] and res.x.shape == (18, 41, 0)
    np.testing.assert_array_equal(res["plant.y"], traces["plant.y"])
    np.testing.assert_array_equal(res["err.y"], traces["err.y"])
    with pytest.raises(KeyError, match=r"no signal or summary 'pid\.y'"):
        res["pid.y"]


def test_summaries_are_the_statistics_of_the_traces(plan, traces):
    res = simulate_batch(plan, GAINS, **OPTS, keep=Summaries(STATS, ["err.y", "plant.y"]), chunk=4)
    assert res.signals == {} and res.t.shape == (0,)
    e = traces["err.y"]
    expected = {
        "final": e[:, -1],
        "max_abs": np.abs(e).max(1),
        "max": e.max(1),
        "min": e.min(1),
        "mean": e.mean(1),
        "rms": np.sqrt((e**2).mean(1)),
    }
    assert set(res.summary) == {f"{s}({n})" for s in STATS for n in ("err.y", "plant.y")}
    for stat, value in expected.items():
        np.testing.assert_allclose(res[f"{stat}(err.y)"], value, rtol=1e-14, atol=1e-15)
    # the step error starts at 1 (the plant at rest): its max_abs is exactly 1
    np.testing.assert_array_equal(res["max_abs(err.y)"], np.ones(18))


def test_a_reduction_callable_gives_a_cost_per_member(plan, traces):
    def ise(chunk: BatchResult) -> dict[str, np.ndarray]:
        e = chunk["err.y"]
        return {
            "ise": np.trapezoid(e * e, chunk.t, axis=1),
            "gains": np.array([[o["pid.Kp"], o["pid.Kd"]] for o in chunk.overrides]),
        }

    res = simulate_batch(plan, GAINS, **OPTS, keep=ise, chunk=5)
    e = traces["err.y"]
    np.testing.assert_allclose(res["ise"], np.trapezoid(e * e, traces.t, axis=1), rtol=1e-14)
    np.testing.assert_array_equal(res["gains"], [[g["pid.Kp"], g["pid.Kd"]] for g in GAINS])
    # a higher proportional gain with a fixed derivative gain tracks the step faster
    assert res["ise"][15] < res["ise"][0]


def test_failed_members_keep_their_error_in_a_chunked_batch():
    ks = grid({"g.K": [0.0, 1.0, 0.0, 2.0, 0.0]})
    res = simulate_batch(
        blowup(), ks, 2.0, "rk4", dt=1e-3, backend="compiled", keep="final", chunk=2
    )
    assert list(res.status) == ["success", "failed", "success", "failed", "success"]
    assert res.errors[0] is None and res.errors[2] is None
    for m in (1, 3):
        assert isinstance(res.errors[m], MemberError)
        assert res.errors[m].type == "NonFiniteError"
        assert np.isnan(res["x.y"][m, 0])
    np.testing.assert_array_equal(res["x.y"][[0, 2, 4], 0], [1.0, 1.0, 1.0])
    assert res.failures().startswith("2 of 5 members failed: 2 x NonFiniteError")


def test_interpreted_chunks_equal_the_interpreted_pool():
    ks = grid({"g.K": [0.0, 0.1, 0.2, 0.3]})
    opts = dict(T=1.0, solver="rk4", dt=1e-2, record_dt=0.1, backend="interpreted")
    ref = simulate_batch(blowup(), ks, **opts, workers=1)
    res = simulate_batch(blowup(), ks, **opts, workers=1, keep=["x.y"], chunk=3)
    assert res.stats["backend"] == "interpreted" and res.stats["chunks"] == 2
    np.testing.assert_array_equal(res["x.y"], ref["x.y"])
    # x' = K x^2, x(0) = 1: x(t) = 1 / (1 - K t)
    np.testing.assert_allclose(res["x.y"][:, -1], 1 / (1 - np.array([0, 0.1, 0.2, 0.3])), rtol=1e-7)


def test_keep_final_holds_far_less_memory_than_traces(plan):
    members = grid({"pid.Kp": list(np.linspace(1.0, 20.0, 800))})
    opts = dict(T=0.5, solver="rk4", dt=1e-3, record_dt=0.005, backend="compiled")
    simulate_batch(plan, members[:2], **opts)  # loaded: no compile inside the measurement

    def peak(**kw):
        tracemalloc.start()
        try:
            res = simulate_batch(plan, members, **opts, **kw)
            return tracemalloc.get_traced_memory()[1], res
        finally:
            tracemalloc.stop()

    full_peak, full = peak()
    final_peak, final = peak(keep="final", chunk=100)
    np.testing.assert_array_equal(final["plant.y"][:, 0], full["plant.y"][:, -1])
    traces_bytes = full.x.nbytes + sum(a.nbytes for a in full.signals.values())
    assert full_peak > traces_bytes  # the full batch holds every trace at once
    assert final_peak < full_peak / 4, (final_peak, full_peak)


@pytest.mark.parametrize(
    "keep, error, match",
    [
        ("finals", ValueError, r"keep='finals': expected 'traces', 'final'.*did you mean 'final'"),
        (["plant.y", "plnt.u"], ValueError, r"keep names no signal 'plnt.u' \(did you mean"),
        ([], ValueError, r"name at least one signal"),
        (3, TypeError, r"keep=3: expected 'traces', 'final', a list"),
        (
            lambda chunk: {"bad": np.zeros(2)},
            ValueError,
            r"summary 'bad' has shape \(2,\); expected one row per member of the chunk \(3, ...\)",
        ),
        (lambda chunk: [1, 2, 3], TypeError, r"returned list; expected a dict"),
    ],
)
def test_a_bad_keep_is_refused_naming_it(plan, keep, error, match):
    with pytest.raises(error, match=match):
        simulate_batch(plan, GAINS[:3], **OPTS, keep=keep)


def test_bad_chunking_options_are_refused(plan):
    with pytest.raises(ValueError, match=r"chunk=0: expected a positive number"):
        simulate_batch(plan, GAINS[:3], **OPTS, chunk=0)
    with pytest.raises(ValueError, match=r"resume=True needs the results folder `out`"):
        simulate_batch(plan, GAINS[:3], **OPTS, resume=True)
    with pytest.raises(BlockParameterError, match=r"member 4: .*'pid.Kq'"):
        simulate_batch(plan, [*GAINS[:4], {"pid.Kq": 1.0}], **OPTS, keep="final", chunk=2)
    # 41 points x (4 states + 4 signals + t) x 8 bytes = 2952 bytes per member
    with pytest.raises(RunLimitError, match=r"a chunk of 10 members .* about 0.0295 MB"):
        simulate_batch(plan, GAINS, **OPTS, keep="final", chunk=10, max_memory=25_000)
    assert len(simulate_batch(plan, GAINS, **OPTS, keep="final", chunk=8, max_memory=25_000)) == 18
    with pytest.raises(ValueError, match=r"unknown statistic 'rsm' \(did you mean 'rms'\?\)"):
        Summaries(["rsm"])
