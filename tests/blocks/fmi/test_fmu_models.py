"""The test FMUs run by blocksim equal fmpy's own simulation of the same FMU and the same
model built from blocksim's blocks (bouncing ball: events and resets; Van der Pol: time
events; a linear MIMO plant: model exchange FMI 3.0 and co-simulation FMI 2.0/3.0)."""

from __future__ import annotations

import math

import fmpy
import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import (
    Constant,
    Function,
    Integrator,
    Piecewise,
    SecondOrderIntegrator,
    Sine,
    StateSpace,
    Step,
)
from blocksim.blocks.fmi import FMU

G, E, H0 = 9.81, 0.7, 1.0
TIGHT = dict(rtol=1e-10, atol=1e-12)


def _at(t_ref, t, y):
    """``y(t)`` at the times ``t_ref`` (a record has both limits at an event: the right one)."""
    keep = np.append(np.diff(t) > 0, True)
    return np.interp(t_ref, t[keep], y[keep])


def _alone(block, name="f"):
    d = Diagram("fmu")
    d.add(block, name=name)
    return d


# ------------------------------------------------------------------ bouncing ball (FMI 2.0)
def impact_times(n: int) -> np.ndarray:
    """The first ``n`` analytic impacts of a ball dropped from H0: t1 = sqrt(2 H0 / g), then
    each flight lasts 2 e^k v1 / g."""
    v1 = math.sqrt(2 * G * H0)
    out = [math.sqrt(2 * H0 / G)]
    for k in range(1, n):
        out.append(out[-1] + 2 * E**k * v1 / G)
    return np.array(out)


def test_bouncing_ball_bounces_at_the_analytic_times_and_matches_fmpy_and_blocks(fmus):
    ball = FMU(fmus["ball"])
    assert [p.name for p in ball.outputs] == ["h", "v"]
    assert [p.unit for p in ball.outputs] == ["m", "m/s"]
    assert ball.state_names == ("h", "v") and ball.crossing_directions == (0, 1)
    r = simulate(_alone(ball, "ball"), 2.0, **TIGHT)  # records both limits at each event
    assert r.status == "success"
    t, v = r.t, r["ball.v"]
    jumps = np.flatnonzero((v[:-1] < 0) & (v[1:] > 0))
    np.testing.assert_allclose(t[jumps], impact_times(4), atol=1e-8)
    np.testing.assert_allclose(t[jumps + 1], t[jumps], atol=1e-9)
    assert r.stats["nevents"] == 4  # no spurious event when h leaves the floor
    # each impact: speed after = e * speed before
    np.testing.assert_allclose(v[jumps + 1], -E * v[jumps], rtol=1e-7)
    assert np.all(r["ball.h"] > -1e-9)

    r = simulate(_alone(FMU(fmus["ball"]), "ball"), 2.0, record_dt=0.01, **TIGHT)
    t = r.t

    ref = fmpy.simulate_fmu(str(fmus["ball"]), stop_time=2.0, relative_tolerance=1e-10,
                            output_interval=0.01, output=["h", "v"], record_events=False)
    grid, href = ref["time"], ref["h"]
    np.testing.assert_allclose(grid, t, atol=1e-12)
    np.testing.assert_allclose(_at(grid, t, r["ball.h"]), href, atol=2e-6)

    d = Diagram("ball")  # the same ball from blocksim's blocks
    gravity = d.add(Constant(-G), name="g")
    sb = d.add(SecondOrderIntegrator(x0=H0, v0=0.0, lower=0.0, restitution=E), name="b")
    d.connect(gravity, sb)
    rb = simulate(d, 2.0, record_dt=0.01, **TIGHT)
    np.testing.assert_allclose(_at(grid, t, r["ball.h"]), _at(grid, rb.t, rb["b.x"]),
                               atol=1e-7)


def test_the_balls_parameters_are_set_by_name(fmus):
    r = simulate(_alone(FMU(fmus["ball"], parameters={"e": 0.5, "h": 2.0}), "ball"), 1.0,
                 **TIGHT)
    t1 = math.sqrt(2 * 2.0 / G)
    jumps = np.flatnonzero(np.diff(np.sign(r["ball.v"])) > 0)
    np.testing.assert_allclose(r.t[jumps[0]], t1, atol=1e-8)
    np.testing.assert_allclose(r["ball.v"][jumps[0] + 1], 0.5 * math.sqrt(2 * G * 2.0),
                               rtol=1e-7)


# ------------------------------------------------------------------ Van der Pol: time events
def _vdp_blocks(T: float) -> Diagram:
    """x0' = x1, x1' = mu(t) (1 - x0^2) x1 - x0 with mu 1 on [0, 2), 3 on [2, 4), 1 after."""
    d = Diagram("vdp")
    mu = d.add(Piecewise(times=[0.0, 2.0, 4.0], values=[1.0, 3.0, 1.0]), name="mu")
    x0 = d.add(Integrator(x0=2.0), name="x0")
    x1 = d.add(Integrator(x0=0.0), name="x1")
    acc = d.add(Function(lambda a, b, m: m * (1 - a * a) * b - a, nin=3), name="acc")
    d.connect(x1, x0)
    d.connect(x0, acc["u0"])
    d.connect(x1, acc["u1"])
    d.connect(mu, acc["u2"])
    d.connect(acc, x1)
    return d


@pytest.mark.parametrize("name", ["vdp", "vdp3"])
def test_van_der_pol_time_events_switch_its_damping_as_blocks_and_fmpy_do(fmus, name):
    T = 5.0
    vdp = FMU(fmus[name])
    r = simulate(_alone(vdp, "vdp"), T, record_dt=0.02, **TIGHT)
    assert r.stats["nevents"] == 2  # the time events at 2 s and 4 s
    assert 2.0 in r.t  # the first, announced at initialisation: a breakpoint
    assert np.min(np.abs(r.t - 4.0)) < 1e-9  # the next, announced at 2 s: located
    rb = simulate(_vdp_blocks(T), T, record_dt=0.02, **TIGHT)
    grid = np.linspace(0.0, T, 251)
    for port, ref in (("x0", "x0.y"), ("x1", "x1.y")):
        np.testing.assert_allclose(_at(grid, r.t, r[f"vdp.{port}"]), _at(grid, rb.t, rb[ref]),
                                   atol=1e-7, err_msg=port)
    ref = fmpy.simulate_fmu(str(fmus[name]), stop_time=T, relative_tolerance=1e-10,
                            output_interval=0.02, output=["x0", "x1"])
    keep = np.append(np.diff(ref["time"]) > 0, True)
    np.testing.assert_allclose(_at(ref["time"][keep], r.t, r["vdp.x0"]), ref["x0"][keep],
                               atol=1e-5)


# ------------------------------------------------------------------ linear MIMO plant
A = [[0.0, 1.0], [-4.0, -0.8]]
B = [[0.0, 0.0], [1.0, 0.5]]
C = [[1.0, 0.0], [0.0, 1.0]]
D = [[0.0, 0.0], [0.0, 0.2]]


def _plant_loop(plant, sine: bool = True) -> Diagram:
    d = Diagram("plant")
    p = d.add(plant, name="p")
    u1 = d.add(Sine(amplitude=1.0, frequency=0.3) if sine else Constant(1.0), name="u1")
    u2 = d.add(Step(time=0.5, before=0.0, after=0.5), name="u2")
    d.connect(u1, p["u1"])
    d.connect(u2, p["u2"])
    return d


def test_linear_plant_fmi3_equals_a_state_space_block(fmus):
    plant = FMU(fmus["plant3"], parameters={"x1": 0.5})
    assert plant.feedthrough == {"y1": (), "y2": ("u1", "u2")}
    assert [p.unit for p in plant.inputs] == ["N", "N"]
    r = simulate(_plant_loop(plant), 4.0, record_dt=0.02, **TIGHT)
    d = Diagram("ss")
    ss = d.add(StateSpace(A=A, B=B, C=C, D=D, x0=[0.5, 0.0]), name="p")
    mux_u = d.add(Function(lambda a, b: np.array([a, b]), nin=2), name="u")
    u1 = d.add(Sine(amplitude=1.0, frequency=0.3), name="u1")
    u2 = d.add(Step(time=0.5, before=0.0, after=0.5), name="u2")
    d.connect(u1, mux_u["u0"])
    d.connect(u2, mux_u["u1"])
    d.connect(mux_u, ss)
    rs = simulate(d, 4.0, record_dt=0.02, **TIGHT)
    grid = np.linspace(0.0, 4.0, 201)
    y = _at(grid, rs.t, rs["p.y"][:, 0]), _at(grid, rs.t, rs["p.y"][:, 1])
    np.testing.assert_allclose(_at(grid, r.t, r["p.y1"]), y[0], atol=1e-8)
    np.testing.assert_allclose(_at(grid, r.t, r["p.y2"]), y[1], atol=1e-8)


def test_linear_plant_fmi3_equals_fmpy_with_the_same_inputs(fmus):
    r = simulate(_plant_loop(FMU(fmus["plant3"], parameters={"x1": 0.5}), sine=False), 3.0,
                 record_dt=0.01, **TIGHT)
    u = np.array([(0.0, 1.0, 0.0), (0.5, 1.0, 0.0), (0.5, 1.0, 0.5), (3.0, 1.0, 0.5)],
                 dtype=[("time", float), ("u1", float), ("u2", float)])
    ref = fmpy.simulate_fmu(str(fmus["plant3"]), stop_time=3.0, relative_tolerance=1e-10,
                            output_interval=0.01, start_values={"x1": 0.5}, input=u,
                            output=["y1", "y2"])
    keep = np.append(np.diff(ref["time"]) > 0, True)
    tr = ref["time"][keep]
    np.testing.assert_allclose(_at(tr, r.t, r["p.y1"]), ref["y1"][keep], atol=1e-6)
    away = np.abs(tr - 0.5) > 1e-9  # y2 has feedthrough of the step in u2 at 0.5 s
    np.testing.assert_allclose(_at(tr, r.t, r["p.y2"])[away], ref["y2"][keep][away], atol=1e-6)


@pytest.mark.parametrize("name", ["plant_cs2", "plant_cs3"])
def test_co_simulation_plant_is_stepped_at_its_sample_time_like_fmpy(fmus, name):
    h = 0.05
    plant = FMU(fmus[name], parameters=[["x1", 0.5]], sample_time=h)
    assert plant.kind == "CS" and plant.clock.period == h and plant.nx == 1
    r = simulate(_plant_loop(plant, sine=False), 2.0)
    np.testing.assert_allclose(r.t, np.arange(41) * h, atol=1e-12)  # one major time per step
    u = np.array([(0.0, 1.0, 0.0), (0.5, 1.0, 0.0), (0.5, 1.0, 0.5), (2.0, 1.0, 0.5)],
                 dtype=[("time", float), ("u1", float), ("u2", float)])
    ref = fmpy.simulate_fmu(str(fmus[name]), stop_time=2.0, step_size=h, output_interval=h,
                            start_values={"x1": 0.5}, input=u, output=["y1", "y2"])
    assert len(ref) == len(r.t)
    np.testing.assert_allclose(r["p.y1"], ref["y1"], atol=1e-12)
    # the continuous plant under the same held inputs (RK4 sub-steps of 1 ms inside the FMU)
    d = Diagram("ss")
    ss = d.add(StateSpace(A=A, B=B, C=C, D=D, x0=[0.5, 0.0]), name="p")
    uu = d.add(Piecewise(times=[0.0, 0.5], values=[[1.0, 0.0], [1.0, 0.5]]), name="u")
    d.connect(uu, ss)
    rs = simulate(d, 2.0, record_dt=h, **TIGHT)
    np.testing.assert_allclose(r["p.y1"], _at(r.t, rs.t, rs["p.y"][:, 0]), atol=1e-9)
    assert r.stats["solver"] == "discrete"
