"""The mobile-robot examples show what they exist to show (behaviour asserted).

Driving: arrival at a point (0.1 m) and a pose (0.1 m, 0.1 rad), convergence onto a line,
bounded pursuit lag on a circle and an mstraj path, the lane change against the exact arcs,
the Braitenberg vehicle reaching the light. Estimation: dead reckoning's growing covariance,
localisation and SLAM errors inside their covariances, map building, the particle filter
collapsing from a uniform prior.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2

from blocksim.robotics.mobile import LandmarkMap, bicycle_step, wrap_angle

from .examples_loader import load_example


def test_drive_to_point_arrives_within_a_tenth_of_a_metre():
    m = load_example("drive_to_point")
    res = m.main()
    assert np.hypot(*(res["car.pose"][-1][:2] - m.GOAL)) < 0.1
    assert res["driver.v"][-1] < 0.1  # slowed down on arrival


def test_drive_along_line_converges_onto_it_and_follows_it():
    m = load_example("drive_along_line")
    res = m.main()
    d = m.distance(res["car.pose"])
    assert abs(d[0]) > 0.5 and np.all(np.abs(d[res.t > 20]) < 0.01)
    a, b, _ = m.LINE
    assert abs(wrap_angle(res["car.theta"][-1] - math.atan2(-a, b))) < 0.01


def test_drive_to_pose_reaches_position_and_heading():
    m = load_example("drive_to_pose")
    res = m.main()
    p = res["car.pose"][-1]
    assert np.hypot(p[0] - m.GOAL[0], p[1] - m.GOAL[1]) < 0.1
    assert abs(wrap_angle(p[2] - m.GOAL[2])) < 0.1


def test_pursuit_of_a_point_on_a_circle_has_a_bounded_steady_lag():
    m = load_example("pursuit_circle")
    res = m.main()
    err = np.hypot(*(res["goal.p"][:, :2] - res["car.pose"][:, :2]).T) - m.DSTAR
    assert np.abs(err[res.t > 25]).max() < 0.05
    # riding the circle: radius of the vehicle's path close to the goal's
    r = np.hypot(res["car.x"], res["car.y"])[res.t > 25]
    assert np.all(np.abs(r - m.RADIUS) < 0.2)


def test_lane_change_matches_the_exact_arcs():
    m = load_example("lane_change")
    res = m.main(rtol=1e-10, atol=1e-12)
    x = np.zeros(3)
    for (t0, t1), g in zip(zip(m.TIMES, (*m.TIMES[1:], 5.0)), m.STEERS):
        x = bicycle_step(x, m.SPEED, g, 1.0, t1 - t0)
    np.testing.assert_allclose(res["car.pose"][-1], x, atol=1e-7)
    R = 1.0 / math.tan(m.STEER)
    assert res["car.y"][-1] == pytest.approx(2 * R * (1 - math.cos(m.SPEED / R)), abs=1e-7)
    assert abs(res["car.theta"][-1]) < 1e-9


def test_braitenberg_vehicle_reaches_the_light():
    m = load_example("braitenberg")
    res = m.main()
    dist = np.hypot(res["car.x"] - m.SOURCE[0], res["car.y"] - m.SOURCE[1])
    assert dist[0] > 20 and dist.min() < 1.0


def test_pursuit_of_an_mstraj_path_tracks_it():
    m = load_example("pursuit_mstraj")
    res = m.main()
    err = np.hypot(*(res["goal.q"] - res["car.pose"][:, :2]).T) - m.DSTAR
    assert np.abs(err[res.t > 3]).max() < 0.8
    assert np.hypot(*(res["car.pose"][-1][:2] - m.WAYPOINTS[-1])) < 1.5


@pytest.fixture(scope="module")
def runs():
    """The estimation examples, each run once (interpreted, 1000 steps; PF 600)."""
    return {
        name: load_example(name).main()
        for name in ("ekf_dead_reckoning", "ekf_localisation", "ekf_mapping", "ekf_slam",
                     "pf_localisation")
    }  # fmt: skip


def _pose_error(res, est="ekf.x"):
    e = res[est][:, :3] - res["veh.pose"]
    e[:, 2] = wrap_angle(e[:, 2])
    return e


def test_dead_reckoning_covariance_grows(runs):
    res = runs["ekf_dead_reckoning"]
    size = np.sqrt(np.linalg.det(res["ekf.P"]))
    assert np.all(np.diff(size[10:]) > 0) and size[-1] > 100 * size[1]
    e = _pose_error(res)[-1]
    assert e @ np.linalg.solve(res["ekf.P"][-1], e) < chi2.ppf(0.999, 3)


def test_localisation_error_bounded_and_inside_3_sigma(runs):
    res = runs["ekf_localisation"]
    e = _pose_error(res)
    sig = np.sqrt(np.diagonal(res["ekf.P"], axis1=1, axis2=2))
    assert np.mean(np.abs(e) < 3 * sig) > 0.97
    assert sig[-1, 0] < 0.2 and sig[-1, 2] < 0.05  # bounded, unlike dead reckoning


def _landmark_nees(res, n_vehicle):
    lm = LandmarkMap(20, 10.0, seed=0).landmarks
    x, P = res["ekf.x"][-1], res["ekf.P"][-1]
    out = []
    for k in range(20):
        j = n_vehicle + 2 * k
        if P[j, j] > 0:
            e = x[j : j + 2] - lm[k]
            out.append(e @ np.linalg.solve(P[j : j + 2, j : j + 2], e))
    return np.array(out)


def test_mapping_estimates_every_landmark_within_its_covariance(runs):
    res = runs["ekf_mapping"]
    nees = _landmark_nees(res, 0)
    assert len(nees) == 20 and nees.max() < chi2.ppf(0.9999, 2)


def test_slam_landmarks_inside_3_sigma_and_shrinking(runs):
    res = runs["ekf_slam"]
    nees = _landmark_nees(res, 3)
    assert len(nees) == 20 and nees.max() < chi2.ppf(0.9999, 2)
    P = res["ekf.P"]
    j = 3  # landmark 0: its variance shrinks from first sighting to the end
    first = np.flatnonzero(P[:, j, j] > 0)[0]
    assert np.trace(P[-1, j : j + 2, j : j + 2]) < 0.5 * np.trace(P[first, j : j + 2, j : j + 2])
    e = _pose_error(res)[-1]
    assert e @ np.linalg.solve(P[-1][:3, :3], e) < chi2.ppf(0.999, 3)


def test_particle_filter_converges_from_uniform_prior(runs):
    res = runs["pf_localisation"]
    assert np.all(res["pf.std"][0][:2] > 4.0)  # spread over the 10 m square
    e = _pose_error(res, "pf.x")
    assert np.all(np.hypot(e[-100:, 0], e[-100:, 1]) < 0.5) and np.all(np.abs(e[-100:, 2]) < 0.1)
    assert np.all(res["pf.std"][-1][:2] < 0.5)


def _lines(ax):
    return {str(ln.get_label()): ln for ln in ax.lines}


@pytest.mark.parametrize("name", ["ekf_dead_reckoning", "ekf_localisation", "ekf_slam",
                                  "pf_localisation"])
def test_estimation_examples_plot_the_error_inside_its_3_sigma_bounds(runs, name):
    res = runs[name]
    est = "pf" if name.startswith("pf") else "ekf"
    fig = res.figures["estimate"]
    map_ax, *err_axes = fig.axes
    e = _pose_error(res, f"{est}.x")
    sig = (res["pf.std"] if est == "pf" else
           np.sqrt(np.diagonal(res["ekf.P"], axis1=1, axis2=2))[:, :3])
    for k, ax in enumerate(err_axes):
        np.testing.assert_allclose(_lines(ax)["error"].get_ydata(), e[:, k], atol=1e-12)
        np.testing.assert_allclose(_lines(ax)["±3σ"].get_ydata(), 3 * sig[:, k])
    assert [ax.get_ylabel() for ax in err_axes] == ["x error [m]", "y error [m]",
                                                    "θ error [rad]"]
    paths = _lines(map_ax)
    np.testing.assert_allclose(np.column_stack(paths["true path"].get_data()),
                               res["veh.pose"][:, :2])
    assert "estimated path" in paths and "pose 3σ" in paths


@pytest.mark.parametrize("name", ["ekf_mapping", "ekf_slam"])
def test_mapping_and_slam_examples_draw_the_map(runs, name):
    res = runs[name]
    ax = res.figures["estimate"].axes[0]
    lines = _lines(ax)
    truth = LandmarkMap(20, 10.0, seed=0).landmarks
    np.testing.assert_allclose(np.column_stack(lines["landmarks"].get_data()), truth)
    n = 3 if name == "ekf_slam" else 0
    est = np.column_stack(lines["estimated landmarks"].get_data())
    np.testing.assert_allclose(est, res["ekf.x"][-1][n:].reshape(-1, 2))  # all 20 seen
    ex, _ = lines["landmark 3σ"].get_data()
    assert np.count_nonzero(np.isnan(ex)) == 20  # one ellipse each
    np.testing.assert_allclose(np.column_stack(lines["true path"].get_data()),
                               res["veh.pose"][:, :2])


def test_mapping_scope_title_and_legend_fit_the_figure(runs):
    fig = runs["ekf_mapping"].figures["scope"]
    fig.draw_without_rendering()  # the constrained layout places title and legends
    box = fig.bbox
    title = fig._suptitle if fig._suptitle is not None else fig.axes[0].title
    tb = title.get_window_extent()
    assert title.get_text() and box.x0 <= tb.x0 and tb.x1 <= box.x1 and tb.y1 <= box.y1
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None:
            assert len(leg.get_texts()) <= 10  # not one entry per landmark coordinate
            lb = leg.get_window_extent()
            assert box.x0 <= lb.x0 and lb.x1 <= box.x1 and box.y0 <= lb.y0 and lb.y1 <= box.y1
