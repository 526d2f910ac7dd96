"""The real-time options of a run: ``realtime`` and the ``overrun`` policy (warn, skip, abort)
in RunConfig and simulate, applied by the engine's pacer per clock."""

import gc
import time
import warnings

import pytest

from blocksim import Clock, Diagram, simulate
from blocksim.engine.block import Block
from blocksim.engine.config import OVERRUN_POLICIES, RunConfig, file_config
from blocksim.engine.realtime import OverrunError

PERIOD = 0.01  # s
SLOW_FROM = 0.05  # s: hits from here on take WORK of wall time
WORK = 0.025  # s, 2.5 periods: every slow hit overruns at realtime=1
T = 0.15  # s: 16 hits, the last 11 slow


class SlowCounter(Block):
    """Discrete counter whose update takes ``work`` seconds of wall time from ``t >= slow_from``
    on (a controller too slow for its clock); records its stop() calls in ``stopped``."""

    outputs = ("y",)

    def __init__(self, period=PERIOD, work=WORK, slow_from=SLOW_FROM):
        self.clock = Clock(period)
        self.work = work
        self.slow_from = slow_from
        self.stopped = []
        self.set_state([0.0])

    def output(self, t, x, u):
        return (float(x[0]),)

    def update(self, t, x, u):
        if t >= self.slow_from - 1e-12:
            time.sleep(self.work)
        return [x[0] + 1.0]

    def stop(self, run):
        self.stopped.append(run.t)


def _diagram(**kw):
    d = Diagram("paced")
    block = d.add(SlowCounter(**kw), name="n")
    return d, block


def _overrun_warnings(caught):
    return [
        w
        for w in caught
        if issubclass(w.category, RuntimeWarning) and "real-time overrun" in str(w.message)
    ]


def test_config_takes_the_policy_and_refuses_a_bad_one():
    assert OVERRUN_POLICIES == ("warn", "skip", "abort")
    assert RunConfig(T=1.0).overrun == "warn"
    assert RunConfig(T=1.0, realtime=1.0, overrun="abort").overrun == "abort"
    with pytest.raises(
        ValueError,
        match=r"`overrun` .* must be 'warn', 'skip' or 'abort', got "
        r"'skp' \(did you mean 'skip'\?\)",
    ):
        RunConfig(T=1.0, overrun="skp")
    with pytest.raises(ValueError, match="`overrun`"):
        RunConfig(T=1.0, overrun=None)
    # a diagram file's simulation section sets both, the command line overrides them
    c = file_config({"T": 2.0, "realtime": 0.5, "overrun": "skip"}, {"overrun": "abort"})
    assert (c.T, c.realtime, c.overrun) == (2.0, 0.5, "abort")
    with pytest.raises(
        ValueError,
        match=r"unknown run option 'overun' \(did you mean "
        r"'overrun'\?\)",
    ):
        file_config({"overun": "skip"})


def test_warn_counts_every_overrun_and_warns_once():
    d, _ = _diagram()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = simulate(d, T, realtime=1.0)  # the default policy is "warn"
    found = _overrun_warnings(caught)
    assert len(found) == 1
    assert "on clock 0.01 s at t=" in str(found[0].message)
    assert r.status == "success" and r["n.y"][-1] == 15  # no simulated work dropped
    rt = r.stats["realtime"]
    clock = rt["clocks"]["clock 0.01 s"]
    assert rt["overrun"] == "warn" and clock["hits"] == 16
    assert clock["overruns"] >= 11  # every slow hit
    assert rt["max_lateness"] >= 11 * (WORK - PERIOD)  # lateness accumulates


def test_skip_counts_silently_and_computes_every_simulated_hit():
    d, _ = _diagram()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = simulate(d, T, realtime=1.0, overrun="skip")
    assert _overrun_warnings(caught) == []
    assert r.stats["realtime"]["clocks"]["clock 0.01 s"]["overruns"] >= 11
    reference = simulate(_diagram(work=0.0)[0], T)
    assert r.t.tolist() == reference.t.tolist()
    assert r["n.y"].tolist() == reference["n.y"].tolist()  # the simulated result is unchanged


def test_abort_raises_naming_the_clock_and_keeps_the_result():
    d, block = _diagram()
    with pytest.raises(
        OverrunError,
        match=r"real-time overrun on clock 0\.01 s at t=.* ms "
        r"late .*overrun='abort' stops the run",
    ) as info:
        simulate(d, T, realtime=1.0, overrun="abort")
    err = info.value
    assert err.clock == "clock 0.01 s" and err.lateness > PERIOD
    assert err.time is not None and err.time <= SLOW_FROM + 1e-9  # the first slow hit at most
    res = err.result
    assert res.status == "failed" and len(res.t) >= 1 and res.t[-1] == pytest.approx(err.time)
    assert res["n.y"][-1] == round(err.time / PERIOD)  # the counter up to the failing hit
    assert block.stopped == [pytest.approx(err.time)]  # stop() ran on the way out


def test_an_overrun_is_a_period_of_wall_time_at_the_runs_speed():
    # 10 ms clock, 4 ms of work per slow hit: no overrun in real time, but at 8x speed the
    # wall period is 1.25 ms and every slow hit overruns
    d, _ = _diagram(work=0.004)
    r1 = simulate(d, T, realtime=1.0, overrun="skip")
    r8 = simulate(d, T, realtime=8.0, overrun="skip")
    fast = r8.stats["realtime"]["clocks"]["clock 0.01 s"]["overruns"]
    assert fast >= 11
    # in real time none should overrun; a loaded machine (5 of 11 seen at load 5 on 2 cores)
    # may delay some hits, but not most of them
    assert r1.stats["realtime"]["clocks"]["clock 0.01 s"]["overruns"] <= fast // 2


def test_without_realtime_nothing_is_paced_whatever_the_policy():
    d, _ = _diagram(work=0.0)
    r = simulate(d, T, overrun="abort")
    assert "realtime" not in r.stats and r["n.y"][-1] == 15


class Stamp(Block):
    """Records the wall time at which each of its hits is computed."""

    outputs = ("y",)

    def __init__(self, period):
        self.clock = Clock(period)
        self.log = []

    def output(self, t, x, u):
        self.log.append((t, time.perf_counter()))
        return (0.0,)


def test_the_work_of_a_hit_starts_at_its_wall_time_not_ahead_of_it():
    d = Diagram("stamped")
    b = d.add(Stamp(0.05), name="s")
    b.log.clear()  # the compiler's dry run
    simulate(d, 0.2, realtime=1.0)
    t0 = next(w for t, w in b.log if t == 0.0)
    hits = [(t, w - t0) for t, w in b.log if t > 0]
    assert [t for t, _ in hits] == pytest.approx([0.05, 0.1, 0.15, 0.2])
    for t, wall in hits:
        assert wall >= t - 1e-3  # a device would be asked at the hit's time, not a period early


class FreezeProbe(Block):
    """Records how many objects the garbage collector has frozen at each hit."""

    outputs = ("y",)

    def __init__(self):
        self.clock = Clock(0.01)
        self.seen = []

    def output(self, t, x, u):
        self.seen.append(gc.get_freeze_count())
        return (0.0,)


def test_a_real_time_run_keeps_the_old_objects_out_of_full_collections_while_it_lasts():
    d = Diagram("probe")
    b = d.add(FreezeProbe(), name="p")
    b.seen.clear()
    before = gc.get_freeze_count()
    simulate(d, 0.03, realtime=1.0)
    assert len(b.seen) == 5 and min(b.seen[1:]) > before  # frozen at the 4 hits (not the
    # compiler's dry run, before the run)
    assert gc.get_freeze_count() == before  # and given back afterwards
    b.seen.clear()
    simulate(d, 0.03)  # not real time: nothing frozen
    assert set(b.seen) == {before}
