"""Estimator figures: pose error inside its ±3σ bounds, the map with landmark ellipses and the
paths (checked by their artists' data and labels, not pixels)."""

import numpy as np
import pytest

from blocksim.viz.estimation_plot import (
    plot_estimate_map,
    plot_estimation,
    plot_pose_error,
    pose_error,
    split_estimate,
)


def _lines(ax):
    return {str(ln.get_label()): ln for ln in ax.lines}


@pytest.fixture
def slam_run():
    """A made-up SLAM record: 5 samples, 2 landmark slots, the second never seen."""
    t = np.arange(5) * 0.1
    true = np.column_stack((t, 2 * t, np.full(5, np.pi - 0.01)))
    x = np.zeros((5, 7))
    x[:, :3] = true + np.array([0.01, -0.02, 0.0])
    x[:, 2] = -np.pi + 0.01  # across the cut: the heading error is 0.02, not 2 pi - 0.02
    x[:, 3:5] = [1.0, 2.0]
    P = np.zeros((5, 7, 7))
    P[:, 0, 0], P[:, 1, 1], P[:, 2, 2] = 0.04, 0.01, 1e-4
    P[:, 3, 3], P[:, 4, 4] = 0.09, 0.01
    return t, true, x, P


def test_split_estimate_reads_the_width():
    pose = split_estimate(np.zeros((4, 3)))
    assert pose["pose"].shape == (4, 3) and pose["landmarks"] is None
    slam = split_estimate(np.zeros((4, 7)), np.ones((4, 7, 7)))
    assert slam["offset"] == 3 and slam["landmarks"].shape == (4, 2, 2)
    mapping = split_estimate(np.zeros((4, 6)))
    assert mapping["pose"] is None and mapping["landmarks"].shape == (4, 3, 2)
    std = split_estimate(np.zeros((4, 3)), np.full((4, 3), 2.0))
    np.testing.assert_allclose(std["cov"][0], 4.0 * np.eye(3))
    with pytest.raises(ValueError, match="P must have shape"):
        split_estimate(np.zeros((4, 3)), np.zeros((4, 2, 2)))


def test_pose_error_wraps_the_heading():
    e = pose_error([[0.0, 0.0, np.pi - 0.01]], [[1.0, -1.0, -np.pi + 0.01]])
    np.testing.assert_allclose(e, [[1.0, -1.0, 0.02]], atol=1e-12)


def test_error_figure_shows_each_error_inside_its_3_sigma_bounds(slam_run):
    t, true, x, P = slam_run
    fig = plot_pose_error(t, true, x, P, title="err")
    assert len(fig.axes) == 3
    sig = np.sqrt([0.04, 0.01, 1e-4])
    err = [0.01, -0.02, 0.02]
    for k, ax in enumerate(fig.axes):
        lines = _lines(ax)
        np.testing.assert_allclose(lines["error"].get_ydata(), err[k], atol=1e-12)
        np.testing.assert_allclose(lines["error"].get_xdata(), t)
        np.testing.assert_allclose(lines["\u00b13\u03c3"].get_ydata(), 3 * sig[k])
        lower = [ln for ln in ax.lines if np.allclose(ln.get_ydata(), -3 * sig[k])]
        assert lower, "no lower bound"
        assert ax.get_ylabel() == f"{'xyθ'[k]} error [{'m' if k < 2 else 'rad'}]"
        assert ax.collections  # the shaded band
    assert fig.axes[-1].get_xlabel() == "t [s]"
    assert fig.get_suptitle() == "err"
    with pytest.raises(ValueError, match="no pose"):
        plot_pose_error(t, true, np.zeros((5, 4)))


def test_map_draws_true_and_estimated_landmarks_ellipses_and_paths(slam_run):
    _, true, x, P = slam_run
    fig = plot_estimate_map(true, x, P, [[1.1, 2.0], [5.0, 5.0]], every=2)
    ax = fig.axes[0]
    lines = _lines(ax)
    assert {"landmarks", "true path", "estimated path", "pose 3\u03c3", "estimated landmarks",
            "landmark 3\u03c3"} <= set(lines)
    np.testing.assert_allclose(np.column_stack(lines["landmarks"].get_data()),
                               [[1.1, 2.0], [5.0, 5.0]])
    np.testing.assert_allclose(np.column_stack(lines["true path"].get_data()), true[:, :2])
    np.testing.assert_allclose(np.column_stack(lines["estimated path"].get_data()),
                               x[:, :2])
    # the unseen slot (zero variance) is not drawn
    np.testing.assert_allclose(np.column_stack(lines["estimated landmarks"].get_data()),
                               [[1.0, 2.0]])
    ex, ey = lines["landmark 3\u03c3"].get_data()
    assert np.nanmax(ex) - np.nanmin(ex) == pytest.approx(2 * 3 * 0.3, rel=5e-3)
    assert np.nanmax(ey) - np.nanmin(ey) == pytest.approx(2 * 3 * 0.1, rel=5e-3)
    # pose ellipses at samples 0, 2, 4
    px, _ = lines["pose 3\u03c3"].get_data()
    assert np.count_nonzero(np.isnan(px)) == 3
    assert ax.get_legend() is not None and ax.get_aspect() == 1.0


def test_mapping_figure_is_the_map_alone_and_localisation_has_both():
    t = np.arange(3.0)
    true = np.zeros((3, 3))
    fig = plot_estimation(t, true, np.ones((3, 4)), np.ones((3, 4, 4)), [[1.0, 1.0]])
    assert len(fig.axes) == 1
    assert "estimated landmarks" in _lines(fig.axes[0])
    assert "estimated path" not in _lines(fig.axes[0])  # mapping: the pose is known
    fig = plot_estimation(t, true, np.zeros((3, 3)), np.full((3, 3), 0.1), title="pf")
    assert len(fig.axes) == 4 and fig.get_suptitle() == "pf"
    np.testing.assert_allclose(_lines(fig.axes[1])["\u00b13\u03c3"].get_ydata(), 0.3)
