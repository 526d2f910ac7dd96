"""examples/pid_gain_sweep.py: the grid's costs are those of single runs, the cost integrators
integrate what they claim, the heat map marks the grid's minimum."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim import simulate, with_overrides

from .examples_loader import load_example


@pytest.fixture(scope="module")
def example():
    return load_example("pid_gain_sweep")


@pytest.fixture(scope="module")
def swept(example):
    return example.sweep(T=2.0, n=3)


def test_each_grid_cost_is_the_cost_of_that_member_run_alone(example, swept):
    kp, kd, J, batch = swept
    assert J.shape == (3, 3) and batch.stats["backend"] == "compiled"
    assert batch.t.shape == (1,) and batch["ise.y"].shape == (9, 1)  # keep="final"
    for i, j in [(0, 0), (1, 2), (2, 1)]:
        plan = with_overrides(example.build(with_scope=False), {"pid.Kp": kp[i], "pid.Kd": kd[j]})
        alone = simulate(plan, 2.0, "rk4", dt=1e-3, record_dt=1e-3, backend="compiled")
        cost = alone["ise.y"][-1] + example.RHO * alone["effort.y"][-1]
        assert J[i, j] == pytest.approx(cost, rel=1e-12)
        # the integrators hold the integrals of e^2 and F^2 (trapezoid on the 1 ms grid)
        e, F = alone["err.y"], alone["pid.y"]
        ise = np.trapezoid(e * e, alone.t)
        assert alone["ise.y"][-1] == pytest.approx(ise, rel=1e-5)
        # the derivative kick of the filtered D term (time constant 1/N = 10 ms) is sampled
        # coarsely by a 1 ms trapezoid: a looser check
        assert alone["effort.y"][-1] == pytest.approx(np.trapezoid(F * F, alone.t), rel=2e-2)


def test_the_cost_trades_tracking_against_effort(swept):
    batch = swept[3]
    ise = batch["ise.y"][:, 0].reshape(3, 3)
    effort = batch["effort.y"][:, 0].reshape(3, 3)
    # more derivative gain: more effort (the kick grows as Kd^2 N / 2)
    assert np.all(np.diff(effort[1], axis=0) > 0)
    # more proportional gain at the middle Kd: less tracking error
    assert np.all(np.diff(ise[:, 1]) < 0)


def test_main_plots_the_heat_map_and_runs_the_best_gains(example, tmp_path):
    result = example.main(T=2.0, n=3, out_dir=tmp_path)
    J = example.sweep(T=2.0, n=3)[2]
    i, j = np.unravel_index(np.argmin(J), J.shape)
    assert result.status == "success" and set(result.figures) == {"scope", "cost"}
    cost = result["ise.y"][-1] + example.RHO * result["effort.y"][-1]
    assert cost == pytest.approx(J[i, j], rel=1e-12)  # the best member, run alone
    assert (tmp_path / "pid_gain_sweep.png").stat().st_size > 10_000
    assert (tmp_path / "pid_gain_sweep_best.png").stat().st_size > 10_000
    assert "best Kp" in result.figures["cost"].axes[0].get_title()


def test_the_heat_map_refuses_a_cost_of_the_wrong_shape():
    from blocksim.viz.sweep import plot_grid_cost

    with pytest.raises(ValueError, match=r"cost has shape \(2, 2\); expected .* = \(3, 2\)"):
        plot_grid_cost([1, 2, 3], [1, 2], np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"log=True needs costs > 0"):
        plot_grid_cost([1, 2], [1, 2], np.zeros((2, 2)), log=True)
