"""Ensembles: grid/Monte-Carlo overrides, compiled prange and interpreted process pool,
per-member noise seeds that re-run alone."""

import numpy as np
import pytest

from blocksim import (
    Diagram,
    compile_diagram,
    grid,
    monte_carlo,
    simulate,
    simulate_batch,
    with_overrides,
)
from blocksim.blocks import PID, Gain, Integrator, RandomNumber, Step, Sum, TransferFunction
from blocksim.engine.errors import BlockParameterError


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
