"""Ensembles: grid/Monte-Carlo overrides, compiled prange and interpreted process pool,
per-member noise seeds that re-run alone, options validated up front, failed members that keep
their error."""

from types import SimpleNamespace

import numpy as np
import pytest

import blocksim.engine.batch as batch_module
from blocksim import (
    Diagram,
    compile_diagram,
    grid,
    monte_carlo,
    simulate,
    simulate_batch,
    with_overrides,
)
from blocksim.blocks import (
    PID,
    Constant,
    Gain,
    Integrator,
    Product,
    RandomNumber,
    Step,
    Sum,
    TransferFunction,
)
from blocksim.engine.config import RunConfig
from blocksim.engine.errors import BlockParameterError, NonFiniteError, ZenoError
from blocksim.engine.record import BatchResult, MemberError

from .helpers import Lifecycle


def pid_loop():
    d = Diagram("pid_loop")
    r = d.add(Step(time=0.0), name="ref")
    e = d.add(Sum("+-"), name="err")
    c = d.add(PID(Kp=10.0, Ki=5.0, Kd=1.0, N=100.0), name="pid")
    p = d.add(TransferFunction([1.0], [1.0, 0.5, 2.0]), name="plant")
    d.connect(r, e[0])
    d.connect(e, c)
    d.connect(c, p)
    d.connect(p, e[1])
    return d


def test_grid_and_monte_carlo_build_override_lists():
    g = grid({"pid.Kp": [1, 2], "pid.Ki": [0, 5, 6]})
    assert len(g) == 6 and g[0] == {"pid.Kp": 1, "pid.Ki": 0}
    mc = monte_carlo({"pid.Kp": lambda rng: rng.uniform(5, 15)}, 4, seed=3)
    assert mc == monte_carlo({"pid.Kp": lambda rng: rng.uniform(5, 15)}, 4, seed=3)
    assert all(5 <= m["pid.Kp"] <= 15 for m in mc)


def test_compiled_sweep_members_equal_single_runs():
    plan = compile_diagram(pid_loop())
    overrides = grid({"pid.Kp": [5.0, 10.0, 15.0]})
    batch = simulate_batch(plan, overrides, 5.0, "rk4", dt=1e-3, backend="compiled")
    assert batch.stats["backend"] == "compiled" and len(batch) == 3
    assert list(batch.status) == ["success"] * 3
    for m, ov in enumerate(overrides):
        alone = simulate(with_overrides(plan, ov), 5.0, "rk4", dt=1e-3, backend="compiled")
        assert batch["plant.y"][m, -1] == pytest.approx(alone["plant.y"][-1], abs=1e-12)
    # different gains give different responses
    assert len(set(np.round(batch["plant.y"][:, -1], 9))) == 3


def test_interpreted_pool_matches_compiled_batch():
    plan = compile_diagram(pid_loop())
    overrides = grid({"pid.Kp": [6.0, 12.0]})
    a = simulate_batch(plan, overrides, 3.0, "rk4", dt=1e-3, backend="interpreted", workers=2)
    b = simulate_batch(plan, overrides, 3.0, "rk4", dt=1e-3, backend="compiled")
    np.testing.assert_allclose(a["plant.y"], b["plant.y"], atol=1e-9)
    np.testing.assert_allclose(a.t, [0.0, 3.0])


def test_a_breakpoint_off_the_record_grid_leaves_no_gap_in_a_compiled_batch():
    # the Step at 0.3 s is a major time that record_dt = 0.25 does not record: the compiled
    # batch used to stop matching rows there (NaN from then on, status "success")
    plan = compile_diagram(pid_loop())
    overrides = grid({"pid.Kp": [6.0, 12.0], "ref.time": [0.3]})
    a = simulate_batch(plan, overrides, 1.0, "rk4", dt=1e-3, record_dt=0.25,
                       backend="interpreted", workers=1)
    b = simulate_batch(plan, overrides, 1.0, "rk4", dt=1e-3, record_dt=0.25,
                       backend="compiled")
    np.testing.assert_allclose(b.t, [0.0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(a.t, b.t)
    assert np.all(np.isfinite(b["plant.y"]))
    np.testing.assert_allclose(a["plant.y"], b["plant.y"], atol=1e-9)


def test_noise_is_seeded_per_member_and_a_member_reruns_alone():
    d = Diagram("noisy")
    n = d.add(RandomNumber(clock=0.01), name="noise")
    i = d.add(Integrator(), name="int")
    g = d.add(Gain(1.0), name="g")
    d.connect(n, i)
    d.connect(i, g)
    batch = simulate_batch(d, [{}, {}, {}], 1.0, "rk4", dt=0.01, backend="compiled")
    finals = batch["int.y"][:, -1]
    assert len(set(np.round(finals, 12))) == 3           # independent members
    assert all("noise.seed" in ov for ov in batch.overrides)
    alone = simulate(with_overrides(d, batch.overrides[1]), 1.0, "rk4", dt=0.01)
    assert alone["int.y"][-1] == pytest.approx(finals[1], abs=1e-12)


def test_bad_overrides_name_the_problem():
    plan = compile_diagram(pid_loop())
    with pytest.raises(BlockParameterError, match=r"no block 'pdi' \(did you mean 'pid'\?\)"):
        with_overrides(plan, {"pdi.Kp": 1.0})
    with pytest.raises(BlockParameterError, match=r"PID has no parameter 'kp' \(did you mean "
                                                  r"'Kp'\?\)"):
        with_overrides(plan, {"pid.kp": 1.0})


def blowup():
    """x' = K x^2 from x = 1: finite for K = 0, infinite at t = 1/K otherwise."""
    d = Diagram("blowup")
    x = d.add(Integrator(x0=1.0), name="x")
    sq = d.add(Product("**"), name="sq")
    g = d.add(Gain(0.0), name="g")
    d.connect(x, sq[0], sq[1])
    d.connect(sq, g)
    d.connect(g, x)
    return d


@pytest.mark.parametrize("kwargs, match", [
    (dict(solver="RK54"), r"unknown solver 'RK54' \(did you mean 'RK45'\?\)"),
    (dict(solver="rk4", backend="compiled"), r"solver 'rk4' is fixed-step and needs `dt`"),
    (dict(solver="rk4", dt=-1.0), r"`dt` must be a positive number"),
    (dict(backend="fast"), r"`backend` must be 'interpreted', 'compiled' or 'auto'"),
])
def test_options_are_validated_before_any_member_runs(kwargs, match):
    log: list = []
    d = Diagram("logged")
    d.connect(d.add(Constant(1.0), name="c"), d.add(Lifecycle(log), name="life"))
    with pytest.raises(ValueError, match=match):
        simulate_batch(d, [{}, {}], 1.0, workers=1, **{"backend": "interpreted", **kwargs})
    assert log == []


def test_a_run_config_replaces_the_keywords_and_specialize_is_deprecated():
    plan = compile_diagram(pid_loop())
    overrides = grid({"pid.Kp": [5.0, 10.0]})
    config = RunConfig(T=1.0, solver="rk4", dt=1e-2, backend="interpreted")
    a = simulate_batch(plan, overrides, config=config, workers=1)
    with pytest.warns(DeprecationWarning, match="always specialises"):
        b = simulate_batch(plan, overrides, 1.0, "rk4", dt=1e-2, backend="interpreted",
                           workers=1, specialize=True)
    np.testing.assert_array_equal(a["plant.y"], b["plant.y"])
    with pytest.raises(ValueError, match=r"not both; got `config` and `T`"):
        simulate_batch(plan, overrides, 1.0, config=config)
    with pytest.raises(ValueError, match=r"real-time pacing .* is for single runs"):
        simulate_batch(plan, overrides, config=RunConfig(T=1.0, realtime=1.0))


@pytest.mark.parametrize("workers", [1, 2])
def test_failed_members_of_the_interpreted_pool_keep_their_error(workers):
    batch = simulate_batch(blowup(), grid({"g.K": [0.0, 1.0, 2.0]}), 2.0, "rk4", dt=1e-3,
                           backend="interpreted", workers=workers)
    assert list(batch.status) == ["success", "failed", "failed"]
    assert list(batch.failed) == [1, 2] and batch.stats["nfailed"] == 2
    assert batch.errors[0] is None
    for m, t_blowup in ((1, 1.0), (2, 0.5)):
        err = batch.errors[m]
        assert isinstance(err, MemberError) and err.type == "NonFiniteError"
        assert "signal 'sq.y' (Product) is inf" in err.message
        assert t_blowup - 0.05 < err.time < t_blowup + 0.01
    assert batch["x.y"][0, -1] == 1.0 and np.isnan(batch["x.y"][1:, -1]).all()
    summary = batch.failures()
    assert summary.startswith("2 of 3 members failed: 2 x NonFiniteError: signal 'sq.y' "
                              "(Product) is inf at t=1.002 s")
    assert summary.endswith("(members 1, 2)") and "\n" not in summary
    assert repr(batch).startswith("<BatchResult 3 members, 2 points, 3 signals, interpreted "
                                  "back-end; 2 of 3 members failed: 2 x NonFiniteError")


def test_failed_members_of_the_compiled_batch_keep_their_error():
    batch = simulate_batch(blowup(), grid({"g.K": [0.0, 1.0, 2.0]}), 2.0, "rk4", dt=1e-3,
                           backend="compiled")
    assert batch.stats["backend"] == "compiled"
    assert list(batch.status) == ["success", "failed", "failed"]
    assert batch.errors[0] is None
    for m, t_blowup in ((1, 1.0), (2, 0.5)):
        err = batch.errors[m]
        assert isinstance(err, MemberError) and err.type == "NonFiniteError"
        assert "NaN or Inf" in err.message
        assert t_blowup - 0.05 < err.time < t_blowup + 0.01
    assert batch.failures().startswith("2 of 3 members failed: 2 x NonFiniteError")


def test_only_simulation_errors_are_kept_per_member(monkeypatch):
    plan = compile_diagram(pid_loop())

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the run loop")

    monkeypatch.setattr(batch_module, "run_config", broken)
    with pytest.raises(RuntimeError, match="a bug in the run loop"):
        simulate_batch(plan, [{}, {}], 1.0, backend="interpreted", workers=1)
    with pytest.raises(BlockParameterError, match=r"no block 'pdi'"):
        simulate_batch(plan, [{"pdi.Kp": 1.0}], 1.0, backend="interpreted", workers=1)


def test_failures_group_members_by_error_type_and_message_numbers_aside():
    status = np.array(["failed", "success", "failed", "failed", "stopped", "failed"])
    errors = [MemberError("SolverError", "step size too small at t=0.25 s", 0.25), None,
              MemberError("SolverError", "step size too small at t=0.5 s", 0.5),
              MemberError("BlockRuntimeError", "block 'b1' (Thing): output() raised", 0.1),
              None, None]
    batch = BatchResult(np.zeros(2), np.zeros((6, 2, 0)), {}, [{}] * 6, status, {}, errors)
    assert batch.failures() == (
        "4 of 6 members failed: 2 x SolverError: step size too small at t=0.25 s "
        "(t = 0.25 s) (members 0, 2); 1 x BlockRuntimeError: block 'b1' (Thing): output() "
        "raised (t = 0.1 s) (member 3); 1 x cause not reported by the back-end (member 5)")
    ok = BatchResult(np.zeros(2), np.zeros((1, 2, 0)), {}, [{}], np.array(["success"]), {},
                     [None])
    assert ok.failures() == "no member failed" and "no member failed>" in repr(ok)
    assert str(MemberError("ZenoError", "chattering")) == "ZenoError: chattering"
    err = MemberError.from_exception(ValueError("bad"))
    assert err == MemberError("ValueError", "bad", None)


def test_the_compiled_back_ends_member_exceptions_become_member_errors():
    """The contract with ``run_batch_compiled``: it returns times, x, signals, status, stats
    and per member None or the exception a single run would raise."""
    run = SimpleNamespace(
        times=np.array([0.0, 1.0]), x=np.zeros((3, 2, 1)), signals={"x.y": np.zeros((3, 2))},
        status=["success", "failed", "failed"], stats={"compile_time": 0.5},
        errors=[None, NonFiniteError("signal 'x.y' is inf at t=0.5 s", time=0.5),
                ZenoError("block 'b' is chattering", time=0.25)])
    batch = batch_module._from_compiled(run)
    assert isinstance(batch, BatchResult) and list(batch.failed) == [1, 2]
    assert batch.errors == [None, MemberError("NonFiniteError", "signal 'x.y' is inf at "
                                              "t=0.5 s", 0.5),
                            MemberError("ZenoError", "block 'b' is chattering", 0.25)]
    assert batch.stats == {"compile_time": 0.5} and batch["x.y"].shape == (3, 2)
