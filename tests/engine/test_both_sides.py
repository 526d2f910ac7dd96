"""Both sides of a discontinuity are recorded (as Simulink logs them): a Step's edge is an
edge in the recording, not a ramp from the previous step, on both back-ends; a bounce's
velocity is recorded before and after its reset; sampled diagrams keep one point per hit."""

from pathlib import Path

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Integrator, Step, UnitDelay
from blocksim.io import load

BACKENDS = [
    pytest.param({"backend": "interpreted"}, id="interpreted-RK45"),
    pytest.param({"backend": "interpreted", "solver": "rk4", "dt": 0.1}, id="interpreted-rk4"),
    pytest.param({"backend": "compiled", "fuse": False}, id="compiled-RK45"),
    pytest.param({"backend": "compiled", "fuse": False, "solver": "rk4", "dt": 0.1},
                 id="compiled-rk4"),
]


def step_into_integrator():
    d = Diagram("edge")
    s = d.add(Step(time=0.55), name="step")
    d.connect(s, d.add(Integrator(), name="int"))
    return d


@pytest.mark.parametrize("options", BACKENDS)
def test_a_step_edge_is_recorded_on_both_sides(options):
    r = simulate(step_into_integrator(), 1.0, **options)
    rows = np.flatnonzero(r.t == 0.55)
    assert len(rows) == 2 and rows[1] == rows[0] + 1
    assert r["step.y"][rows].tolist() == [0.0, 1.0]
    assert r["int.y"][rows[0]] == r["int.y"][rows[1]] == 0.0  # a state does not jump
    assert np.all(np.diff(r.t) >= 0) and np.sum(np.diff(r.t) == 0) == 1
    np.testing.assert_allclose(r["int.y"][-1], 0.45, atol=1e-9)


def test_record_dt_keeps_its_grid_without_left_limits():
    r = simulate(step_into_integrator(), 1.0, record_dt=0.05)
    assert np.all(np.diff(r.t) > 0)


@pytest.mark.parametrize("backend", ["interpreted", "compiled"])
def test_a_bounce_is_recorded_before_and_after_its_reset(backend):
    df = load(Path(__file__).parents[2] / "diagrams" / "bouncing_ball.json")
    r = simulate(df.diagram, 2.0, backend=backend, fuse=False)
    same = np.flatnonzero(np.diff(r.t) == 0)
    assert len(same) >= 1
    v = r.x[:, [k for k, n in enumerate(r.state_names) if "v" in n.split(".")[-1]] or [1]]
    k = same[0]
    assert v[k, 0] < 0 < v[k + 1, 0]  # falling just before, rising just after


def test_a_sampled_diagram_keeps_one_point_per_hit():
    d = Diagram("sampled")
    s = d.add(Step(time=0.5), name="step")
    d.connect(s, d.add(UnitDelay(0.1), name="z"))
    for backend in ("interpreted", "compiled"):
        r = simulate(d, 1.0, backend=backend, fuse=False)
        assert np.all(np.diff(r.t) > 0), backend
