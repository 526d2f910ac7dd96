"""Plots of planners (blocksim.viz.planning_plot): what is drawn is the planner's data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.robotics.planning import PRM, RRT, Bug2, Dstar, DXform, Lattice, OccupancyGrid
from blocksim.viz.planning_plot import plot_map, plot_path, plot_planner


@pytest.fixture(scope="module")
def grid():
    return OccupancyGrid.from_shapes(
        (6.0, 4.0), rectangles=[(2.0, 0.0, 2.5, 2.5)], cellsize=0.25, origin=(1.0, -1.0)
    )


def test_map_image_is_the_grid_with_y_up(grid):
    fig = plot_map(grid)
    ax = fig.axes[0]
    img = ax.images[0]
    rgb = np.asarray(img.get_array())
    dark = rgb[..., 1] < 0.1
    np.testing.assert_array_equal(dark, grid.occ)
    assert img.origin == "lower"
    assert tuple(img.get_extent()) == pytest.approx(grid.extent)


def test_distance_map_shades_with_distance(grid):
    dx = DXform(grid, goal=(6.0, 2.5))
    d = dx.plan()
    fig = plot_planner(dx, dx.query((1.0, -0.5)))
    rgb = np.asarray(fig.axes[0].images[0].get_array())
    fin = np.isfinite(d)
    near, far = (
        np.unravel_index(np.argmin(np.where(fin, d, np.inf)), d.shape),
        np.unravel_index(np.argmax(np.where(fin, d, -1)), d.shape),
    )
    assert rgb[near][0] < rgb[far][0]
    line = fig.axes[0].lines[0]
    np.testing.assert_allclose(np.column_stack(line.get_data()), dx.query((1.0, -0.5)))


@pytest.mark.parametrize("kind", ["dstar", "prm", "bug2", "lattice", "rrt"])
def test_every_planner_plots_and_saves(kind, grid, tmp_path):
    if kind == "dstar":
        p = Dstar(grid, goal=(6.0, 2.5))
        p.plan()
        path = p.query((1.0, -0.5))
    elif kind == "prm":
        p = PRM(grid, npoints=60, seed=1)
        p.plan()
        path = p.query((1.0, -0.5), (6.0, 2.5))
    elif kind == "bug2":
        p = Bug2(grid, goal=(6.0, 2.5))
        path = p.query((1.0, -0.5))
    elif kind == "lattice":
        p = Lattice(grid=1.0)
        p.plan(iterations=4)
        path = p.query((0, 0, 0), (2, 2, math.pi / 2))
    else:
        p = RRT(None, goal=(0, 0, 0), range=3, npoints=40, seed=2)
        p.plan()
        path = p.path((1.0, 1.0, 0.0))
    out = tmp_path / f"{kind}.png"
    fig = plot_planner(p, path, filename=out)
    assert out.stat().st_size > 1000
    drawn = [np.column_stack(ln.get_data()) for ln in fig.axes[0].lines]
    assert any(d.shape == (len(path), 2) and np.allclose(d, path[:, :2]) for d in drawn)


def test_bad_arguments():
    with pytest.raises(TypeError, match="planner"):
        plot_planner(object())
    fig = plot_map(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"\(N, 2\)"):
        plot_path(np.zeros(4), fig.axes[0])
    with pytest.raises(ValueError, match="distance"):
        plot_map(np.zeros((3, 3)), distance=np.zeros((2, 2)))
