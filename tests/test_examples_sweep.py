"""The sweep examples. pid_gain_sweep: the grid's costs are those of single runs, the cost
integrators integrate what they claim, the heat map marks the grid's minimum. ekf_nees_sweep:
each member's NEES is that of the member run alone, the consistent filter's average is in the
chi-square band and an overconfident filter's is not. quadrotor_mass_sweep: members are the
masses flown alone, the flight changes more the larger the mismatch, 20 % heavier saturates the
rotors and loses the square."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim import simulate, with_overrides
from blocksim.robotics.aerial import mdl_quadrotor

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


# ---------------------------------------------------------------- EKF NEES over seeded runs


@pytest.fixture(scope="module")
def nees_example():
    return load_example("ekf_nees_sweep")


@pytest.fixture(scope="module")
def nees_swept(nees_example):
    m = nees_example
    t, good, batch = m.sweep(T=10.0, n=50)
    _, bad, _ = m.sweep(T=10.0, n=50, v_scale=m.OVERCONFIDENT)
    return t, good, bad, batch


def test_each_members_nees_is_that_of_the_member_run_alone(nees_example, nees_swept):
    t, good, _, batch = nees_swept
    assert good.shape == (50, 100) and batch.stats["backend"] == "compiled"
    assert sorted(batch.signals) == sorted(nees_example.SIGNALS)  # only what was asked
    np.testing.assert_allclose(t, 0.1 * np.arange(1, 101), atol=1e-12)
    i = 17
    plan = with_overrides(nees_example.build(plot=False), nees_example.members(50)[i])
    alone = simulate(plan, 10.0, backend="compiled")
    e = alone["ekf.x"][1:] - alone["veh.pose"][1:]
    e[:, 2] = (e[:, 2] + np.pi) % (2 * np.pi) - np.pi
    P = alone["ekf.P"][1:]
    want = np.array([e[k] @ np.linalg.solve(P[k], e[k]) for k in range(len(e))])
    np.testing.assert_allclose(good[i], want, rtol=1e-9)
    assert np.ptp(batch["veh.pose"][:, -1, 0]) > 1.0  # the seeds differ


def test_the_consistent_filter_is_inside_the_chi2_band_and_the_overconfident_one_is_not(
    nees_example, nees_swept
):
    t, good, bad, _ = nees_swept
    lo, hi = nees_example.band(50)
    # the average of 50 chi-square(3) values: 95 % interval about 3
    assert lo == pytest.approx(2.3597, abs=1e-3) and hi == pytest.approx(3.7160, abs=1e-3)
    late = t >= 3.0  # the estimates start exactly at the true pose: NEES starts low
    avg = good.mean(axis=0)[late]
    assert np.mean((avg >= lo) & (avg <= hi)) > 0.8
    assert lo < avg.mean() < hi and avg.max() < hi
    # a filter assuming a quarter of the odometry variance is overconfident at every hit
    assert np.all(bad.mean(axis=0) > hi)


def test_nees_main_plots_the_average_against_the_band(nees_example, tmp_path):
    result = nees_example.main(T=2.0, n=20, out_dir=tmp_path)
    assert result.status == "success" and set(result.figures) == {"scope", "nees"}
    assert (tmp_path / "ekf_nees_sweep.png").stat().st_size > 10_000
    assert (tmp_path / "ekf_nees_sweep_member.png").stat().st_size > 10_000
    ax = result.figures["nees"].axes[0]
    assert len(ax.get_lines()) == 3 and "20 members" in ax.get_title()


# ---------------------------------------------------------------- quadrotor mass mismatch


@pytest.fixture(scope="module")
def mass_example():
    return load_example("quadrotor_mass_sweep")


@pytest.fixture(scope="module")
def mass_swept(mass_example):
    return mass_example.sweep(T=10.0, n=5)


def test_the_mass_grid_spans_20_percent_and_each_member_is_that_mass_flown_alone(
    mass_example, mass_swept
):
    M, errors, batch = mass_swept
    np.testing.assert_allclose(M, [3.2, 3.6, 4.0, 4.4, 4.8], rtol=1e-12)
    assert batch.stats["backend"] == "compiled" and sorted(batch.signals) == [
        "mixer.omega",
        "quad.x",
    ]
    alone = simulate(
        mass_example.build(with_scope=False, mass=3.6),
        10.0,
        record_dt=mass_example.RECORD_DT,
        backend="compiled",
    )
    np.testing.assert_allclose(batch["quad.x"][1], alone["quad.x"], rtol=1e-12, atol=1e-12)
    want = mass_example.waypoint_errors(alone.t, alone["quad.x"][:, :3])
    np.testing.assert_array_equal(errors["waypoint"][1], want)


def test_the_flight_changes_more_the_larger_the_mismatch(mass_swept):
    _, errors, _ = mass_swept
    dev, wp = errors["deviation"], errors["waypoint"]
    assert dev[2] == 0.0  # the nominal mass is the reference
    # lighter: the further from 4 kg, the further from the nominal flight (centimetres)
    assert 0.0 < dev[1] < dev[0] < 0.1 and 0.0 < dev[3] < 0.1
    # within the rotors' reach the integral action still brings each waypoint within 2 cm
    reached = wp[:4, :2]
    assert np.all(reached < 0.02) and np.all(np.isnan(wp[:, 2:]))  # only 2 dwells in 10 s


def test_twenty_percent_heavier_touches_the_rotor_limit_and_still_flies_the_square(
    mass_example, mass_swept
):
    M, errors, _ = mass_swept
    q = mdl_quadrotor()
    hover = np.sqrt(M * 9.81 / (4 * q.b))  # rad/s, every rotor at hover
    assert np.all(hover < mass_example.WMAX)  # hovering alone is within reach ...
    assert errors["omega_max"][4] == pytest.approx(mass_example.WMAX, abs=1e-9)
    # ... the moves briefly need more, and the integral action still reaches every waypoint
    # (the vehicle starts at rest at its setpoint, the controller trimmed to its 4 kg)
    assert np.all(errors["waypoint"][3:, :2] < 0.005)
    assert errors["deviation"][4] < 0.1


def test_mass_main_plots_both_errors_against_the_mismatch(mass_example, tmp_path):
    result = mass_example.main(T=6.0, n=3, out_dir=tmp_path)
    assert result.status == "success" and set(result.figures) == {"scope", "errors"}
    assert (tmp_path / "quadrotor_mass_sweep.png").stat().st_size > 10_000
    assert (tmp_path / "quadrotor_mass_sweep_nominal.png").stat().st_size > 10_000
    ax = result.figures["errors"].axes[0]
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [-20.0, 0.0, 20.0])


def test_plot_curves_draws_the_band_and_refuses_a_curve_of_the_wrong_length():
    from blocksim.viz.sweep import plot_curves

    fig = plot_curves([0, 1, 2], {"a": [1.0, 2.0, 3.0]}, band=(1.5, 2.5), log=True)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and len(ax.patches) == 1  # the band
    with pytest.raises(ValueError, match=r"curve 'b' has shape \(2,\); expected \(3,\)"):
        plot_curves([0, 1, 2], {"b": [1.0, 2.0]})


def test_both_sweeps_on_a_dask_cluster_equal_the_local_ones(nees_example, mass_example):
    import distributed
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        _, nees, batch = nees_example.sweep(T=2.0, n=8, client=client, chunk=3)
        errors = mass_example.sweep(T=3.0, n=3, client=client, chunk=1)[1]
    assert batch.stats["scheduler"] == "dask" and batch.stats["chunks"] == 3
    np.testing.assert_array_equal(nees, nees_example.sweep(T=2.0, n=8)[1])
    local = mass_example.sweep(T=3.0, n=3)[1]
    for key in ("waypoint", "deviation", "omega_max"):
        np.testing.assert_array_equal(errors[key], local[key])
