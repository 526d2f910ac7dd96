"""Major times (engine/schedule.py): clock hits, breakpoints and events a few ulp apart happen
at the hit, on both back-ends, and both record the same time points."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from blocksim import Block, Diagram, compile_diagram, simulate
from blocksim.blocks import Constant, HitCrossing, Integrator, Piecewise, Ramp, Step, UnitDelay
from blocksim.engine.schedule import (
    SNAP_ULPS,
    Grid,
    major_times,
    schedule,
    snap_tolerance,
    snaps_to,
)


def config(T, record_dt=None, dt=None, max_step=math.inf):
    """Any object with the four attributes the schedule reads will do."""
    return SimpleNamespace(T=T, record_dt=record_dt, dt=dt, max_step=max_step)


def ulps(t, n):
    """t moved by n units in the last place (n < 0: down)."""
    for _ in range(abs(n)):
        t = math.nextafter(t, math.inf if n > 0 else -math.inf)
    return t


def delay_of_samples(Ts, values=(1.0, 2.0, 3.0, 4.0, 5.0)):
    """Samples fed the usual way, ``Piecewise(times=np.arange(N) * Ts)``, into 1/z."""
    d = Diagram("delay")
    u = d.add(Piecewise(times=np.arange(len(values)) * Ts, values=list(values)), name="u")
    z = d.add(UnitDelay(Ts), name="z")
    d.connect(u, z)
    return d


# --- the schedule itself --------------------------------------------------------------------


def test_grid_points_are_the_floats_of_the_clock_hits():
    grid = Grid(0.1)
    assert 3 * 0.1 == 0.30000000000000004  # the product a user would write
    assert grid.time(3) == 0.3  # the correctly rounded 3/10, as the 0.1 s clock's hit
    plan = compile_diagram(delay_of_samples(0.1))
    hits = schedule(plan, config(0.4)).times
    np.testing.assert_array_equal(grid.times_upto(0.4), hits)
    assert grid.index_after(0.3) == 4 and grid.index_after(0.29999999999999993) == 3


def test_a_breakpoint_ulps_after_a_hit_is_merged_into_it():
    plan = compile_diagram(delay_of_samples(0.1))
    s = schedule(plan, config(0.4))
    np.testing.assert_array_equal(s.times, [0.0, 0.1, 0.2, 0.3, 0.4])
    assert s.eval_times[3] == 0.30000000000000004  # the breakpoint: it has taken effect
    np.testing.assert_array_equal(np.delete(s.eval_times, 3), np.delete(s.times, 3))
    np.testing.assert_array_equal(s.left_times, np.nextafter(s.times, -np.inf))
    assert s.fired.shape == (5, 1) and s.fired.all()
    assert s.record.all()
    times, fired = major_times(plan, config(0.4))
    np.testing.assert_array_equal(times, s.times)
    np.testing.assert_array_equal(fired, s.fired)


def test_a_breakpoint_ulps_before_a_hit_moves_the_segments_left_limit():
    plan = compile_diagram(delay_of_samples(0.3))
    s = schedule(plan, config(1.2))
    assert 3 * 0.3 == 0.8999999999999999  # one ulp before the hit 0.9
    np.testing.assert_array_equal(s.times, [0.0, 0.3, 0.6, 0.9, 1.2])
    np.testing.assert_array_equal(s.eval_times, s.times)
    assert s.left_times[3] == math.nextafter(0.8999999999999999, -math.inf)


def test_breakpoints_beyond_the_tolerance_stay_major_times_of_their_own():
    d = Diagram("far")
    d.add(Step(time=0.3 + 1e-9), name="late")
    d.add(Step(time=ulps(0.5, 2)), name="a")
    d.add(Step(time=ulps(0.5, 5)), name="b")
    d.add(Step(time=0.5), name="c")
    d.add(Constant(0.0), name="k")
    z = d.add(UnitDelay(0.1), name="z")
    d.connect("k.y", z)
    s = schedule(compile_diagram(d), config(0.6))
    assert 0.3 + 1e-9 in s.times.tolist()
    # 0.5 is a clock hit: the three steps within a few ulp of it are one major time there
    i = s.times.tolist().index(0.5)
    assert s.eval_times[i] == ulps(0.5, 5)
    assert len(s.times) == 8  # seven hits and the far step


def test_breakpoints_a_few_ulp_apart_without_a_hit_are_one_major_time():
    d = Diagram("free")
    d.add(Step(time=0.77), name="a")
    d.add(Step(time=ulps(0.77, 3)), name="b")
    d.connect(d.add(Constant(1.0), name="one"), d.add(Integrator(), name="x"))
    s = schedule(compile_diagram(d), config(1.0))
    np.testing.assert_array_equal(s.times, [0.0, 0.77, 1.0])
    assert s.eval_times[1] == ulps(0.77, 3)


def test_recording_grid_points_are_major_times_of_the_compiled_back_end_only():
    plan = compile_diagram(delay_of_samples(0.1))
    compiled = schedule(plan, config(0.4, record_dt=0.05))
    interpreted = schedule(plan, config(0.4, record_dt=0.05), grid_major=False)
    np.testing.assert_array_equal(compiled.times, Grid(0.05).times_upto(0.4))
    np.testing.assert_array_equal(interpreted.times, [0.0, 0.1, 0.2, 0.3, 0.4])
    assert compiled.record.all() and interpreted.record.all()
    off_grid = schedule(plan, config(0.4, record_dt=0.3), grid_major=False)
    np.testing.assert_array_equal(off_grid.record, [True, False, False, True, False])


def test_a_final_time_ulps_off_a_hit_ends_the_run_at_the_hit():
    plan = compile_diagram(delay_of_samples(0.1))
    s = schedule(plan, config(3 * 0.1))
    np.testing.assert_array_equal(s.times, [0.0, 0.1, 0.2, 0.3])
    res = simulate(plan, T=3 * 0.1)
    np.testing.assert_array_equal(res.t, [0.0, 0.1, 0.2, 0.3])


def test_a_breakpoint_that_does_not_advance_is_reported():
    class Stuck(Block):
        outputs = ("y",)

        def output(self, t, x, u):
            return (0.0,)

        def next_breakpoint(self, t):
            return 0.5

    d = Diagram("stuck")
    d.add(Stuck(), name="stuck")
    with pytest.raises(ValueError, match=r"'stuck'.*next_breakpoint\(0.5\) returned 0.5"):
        schedule(compile_diagram(d), config(1.0))


def test_events_snap_to_the_end_of_their_segment_within_the_tolerance():
    assert snap_tolerance(0.9) == SNAP_ULPS * math.ulp(0.9)
    assert snaps_to(ulps(0.9, -SNAP_ULPS), 0.9)
    assert not snaps_to(ulps(0.9, -SNAP_ULPS - 1), 0.9)
    assert snaps_to(ulps(0.9, -20), 0.9, left=ulps(0.9, -21))  # inside a merged cluster


# --- both back-ends -------------------------------------------------------------------------

BACKENDS = [
    pytest.param({}, id="interpreted-RK45"),
    pytest.param({"solver": "rk4", "dt": 0.05}, id="interpreted-rk4"),
    pytest.param({"backend": "compiled", "solver": "rk4", "dt": 0.05}, id="compiled-rk4"),
]


@pytest.mark.parametrize("options", BACKENDS)
@pytest.mark.parametrize("Ts", [0.1, 0.3])
def test_unit_delay_of_samples_matches_python_control(options, Ts):
    """1/z fed 1..5 gives 0, 1, 2, 3, 4 (python-control's answer), not 0, 1, 2, 3, 3."""
    d = delay_of_samples(Ts)
    res = simulate(d, T=4 * Ts, **options)
    hits = Grid(Ts).times_upto(4 * Ts)
    np.testing.assert_array_equal(res.t, hits)
    np.testing.assert_array_equal(res["z.y"], [0.0, 1.0, 2.0, 3.0, 4.0])
    gridded = simulate(d, T=4 * Ts, record_dt=Ts / 2, **options)
    np.testing.assert_array_equal(gridded.t, Grid(Ts / 2).times_upto(4 * Ts))
    np.testing.assert_array_equal(gridded["z.y"], np.repeat([0.0, 1.0, 2.0, 3.0, 4.0], 2)[:-1])


def test_both_back_ends_record_the_same_time_points():
    d = delay_of_samples(0.1)
    runs = [simulate(d, T=0.4, record_dt=rd, solver="rk4", dt=0.01, backend=b)
            for rd in (0.1, 0.03) for b in ("interpreted", "compiled")]
    for a, b in (runs[:2], runs[2:]):
        np.testing.assert_array_equal(a.t, b.t)
        np.testing.assert_array_equal(a["z.y"], b["z.y"])
    assert 0.30000000000000004 not in runs[1].t.tolist()


@pytest.mark.parametrize("options", [
    pytest.param({}, id="interpreted-RK45"),
    pytest.param({"solver": "rk4", "dt": 0.1}, id="interpreted-rk4"),
    pytest.param({"backend": "compiled", "solver": "rk4", "dt": 0.1}, id="compiled-rk4"),
])
def test_no_stage_straddles_a_merged_breakpoint(options):
    """Samples 0.3 s apart (breakpoints one ulp before the hits from 0.9 on) integrated next
    to a 0.3 s clock: the integral of the staircase is exact, so no solver stage sees a
    sample before its breakpoint or after the next one."""
    Ts, values = 0.3, [1.0, -2.0, 4.0, 8.0, -16.0, 32.0]
    d = Diagram("staircase")
    u = d.add(Piecewise(times=np.arange(len(values)) * Ts, values=values), name="u")
    i = d.add(Integrator(), name="i")
    z = d.add(UnitDelay(Ts), name="z")
    d.connect(u, i)
    d.connect(u, z)
    res = simulate(d, T=len(values) * Ts, **options)
    hits = [Grid(Ts).time(k) for k in range(len(values) + 1)]
    assert res.t[-1] == hits[-1]  # T = 6 * 0.3 = 1.7999999999999998 ends at the hit 1.8
    last = np.r_[res.t[1:] != res.t[:-1], True]  # a time's last row: its right limit
    at_hits = np.isin(res.t, hits) & last
    assert at_hits.sum() == len(hits)
    np.testing.assert_allclose(res["i.y"][at_hits], Ts * np.cumsum([0.0, *values]),
                               rtol=0, atol=1e-12)
    # each sample's edge recorded on both sides (left: the previous sample) and drawn as one
    for k in range(1, len(values)):
        rows = np.flatnonzero(res.t == hits[k])
        assert len(rows) == 2, (k, res.t[rows])
        assert res["u.y"][rows].tolist() == [values[k - 1], values[k]]


def hit_crossing_next_to_a_clock(level, source):
    """The time t (a Ramp, or the state of an Integrator of 1) crossing ``level`` marked by
    HitCrossing, sampled by a 0.3 s unit delay."""
    d = Diagram(f"crossing_{source}")
    if source == "ramp":
        r = d.add(Ramp(start=0.0), name="r")
    else:
        r = d.add(Integrator(), name="r")
        d.connect(d.add(Constant(1.0), name="one"), r)
    h = d.add(HitCrossing(offset=level, direction="rising"), name="h")
    z = d.add(UnitDelay(0.3), name="z")
    d.connect(r, h)
    d.connect(h, z)
    return d


@pytest.mark.parametrize("options", [
    pytest.param({}, id="interpreted-RK45"),
    pytest.param({"solver": "rk4", "dt": 0.1}, id="interpreted-rk4"),
    pytest.param({"backend": "compiled", "solver": "rk4", "dt": 0.1}, id="compiled-rk4"),
])
@pytest.mark.parametrize("source", ["ramp", "integrator"])
def test_a_crossing_ulps_before_a_hit_takes_effect_at_the_hit(options, source):
    near = simulate(hit_crossing_next_to_a_clock(ulps(0.9, -4), source), T=1.2, **options)
    np.testing.assert_array_equal(near.t[near["h.y"] == 1.0], [0.9])
    assert not np.any((near.t > 0.9 - 1e-9) & (near.t < 0.9))
    assert near["z.y"][-1] == 1.0  # the delay sampled the mark at the hit
    # a crossing clearly before the hit is an instant of its own, sampled as 0 at the hit
    far = simulate(hit_crossing_next_to_a_clock(0.9 - 1e-7, source), T=1.2, **options)
    marked = far.t[far["h.y"] == 1.0]
    assert marked.size == 1 and marked[0] == pytest.approx(0.9 - 1e-7, abs=1e-9)
    assert far["z.y"][-1] == 0.0


def test_user_blocks_breakpoints_are_merged_too():
    class Samples(Block):
        """A user source switching at k * 0.1 computed by repeated addition (drifts by a
        few ulp), the engine's only knowledge of it being next_breakpoint."""

        outputs = ("y",)
        EDGES = list(np.cumsum([0.1] * 5))

        def output(self, t, x, u):
            return (float(sum(t >= e for e in self.EDGES)),)

        def next_breakpoint(self, t):
            return next((e for e in self.EDGES if e > t), math.inf)

    assert Samples.EDGES[2] != 0.3  # 0.30000000000000004
    d = Diagram("user")
    s = d.add(Samples(), name="s")
    z = d.add(UnitDelay(0.1), name="z")
    d.connect(s, z)
    res = simulate(d, T=0.5)
    np.testing.assert_array_equal(res.t, Grid(0.1).times_upto(0.5))
    np.testing.assert_array_equal(res["z.y"], [0.0, 0.0, 1.0, 2.0, 3.0, 4.0])
