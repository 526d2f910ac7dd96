"""Distance transforms against scipy.ndimage and networkx; Bresenham lines."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from scipy import ndimage

from blocksim.robotics.planning import bresenham, distancexform, geodesic_distance
from blocksim.robotics.planning.maps import random_map

from .grid_checks import dda_cells, grid_graph


@pytest.mark.parametrize("seed", range(6))
def test_obstacle_distance_equals_scipy_edt_and_cdt_on_random_maps(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(5, 60, size=2))
    occ = rng.random(shape) < rng.uniform(0.01, 0.4)
    occ[rng.integers(shape[0]), rng.integers(shape[1])] = True
    free = ~occ
    np.testing.assert_allclose(
        distancexform(occ), ndimage.distance_transform_edt(free), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_array_equal(
        distancexform(occ, metric="cityblock"),
        ndimage.distance_transform_cdt(free, metric="taxicab"),
    )
    np.testing.assert_array_equal(
        distancexform(occ, metric="chessboard"),
        ndimage.distance_transform_cdt(free, metric="chessboard"),
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("metric", ["euclidean", "cityblock"])
def test_goal_distance_equals_networkx_dijkstra_on_random_maps(seed, metric):
    og = random_map((30, 40), density=0.3, seed=seed)
    occ = og.occ
    rng = np.random.default_rng(seed)
    free = np.argwhere(~occ)
    row, col = free[rng.integers(len(free))]
    d = distancexform(occ, (col, row), metric)
    ref = nx.single_source_dijkstra_path_length(grid_graph(occ, metric == "euclidean"), (col, row))
    expected = np.full(occ.shape, np.inf)
    for (c, r), v in ref.items():
        expected[r, c] = v
    expected[occ] = np.nan
    np.testing.assert_allclose(d, expected, rtol=1e-12, atol=1e-12)


def test_goal_distance_in_free_space_has_closed_forms():
    occ = np.zeros((25, 31), dtype=bool)
    goal = (9, 14)
    rows, cols = np.mgrid[0:25, 0:31]
    dx, dy = np.abs(cols - goal[0]), np.abs(rows - goal[1])
    # city-block: |dx| + |dy| (= scipy's taxicab cdt to the one zero cell)
    only_goal = np.ones_like(occ)
    only_goal[goal[1], goal[0]] = False
    city = distancexform(occ, goal, "cityblock")
    np.testing.assert_array_equal(city, dx + dy)
    np.testing.assert_array_equal(city, ndimage.distance_transform_cdt(only_goal, "taxicab"))
    # 8-connected with diagonal sqrt(2): max + (sqrt(2) - 1) min
    np.testing.assert_allclose(
        distancexform(occ, goal),
        np.maximum(dx, dy) + (math.sqrt(2) - 1) * np.minimum(dx, dy),
        rtol=1e-12,
    )


def test_unreachable_cells_are_inf_and_obstacles_nan():
    occ = np.zeros((9, 9), dtype=bool)
    occ[:, 4] = True
    d, sweeps = geodesic_distance(occ, (1, 1))
    assert np.isinf(d[:, 5:]).all() and np.isnan(d[:, 4]).all() and np.isfinite(d[:, :4]).all()
    assert sweeps >= 2
    with pytest.raises(ValueError, match="occupied"):
        geodesic_distance(occ, (4, 0))
    with pytest.raises(ValueError, match="outside"):
        geodesic_distance(occ, (9, 0))
    with pytest.raises(ValueError, match="metric"):
        distancexform(occ, metric="manhattan")


def test_bresenham_visits_one_cell_per_major_step_next_to_the_true_line():
    rng = np.random.default_rng(7)
    for _ in range(200):
        x1, y1, x2, y2 = (int(v) for v in rng.integers(-20, 20, size=4))
        cells = bresenham(x1, y1, x2, y2)
        n = max(abs(x2 - x1), abs(y2 - y1))
        assert cells.shape == (n + 1, 2)
        assert tuple(cells[0]) == (x1, y1) and tuple(cells[-1]) == (x2, y2)
        for cell, cands in zip(cells, dda_cells((x1, y1), (x2, y2))):
            assert tuple(cell) in cands
    np.testing.assert_array_equal(bresenham(0, 0, 4, 0), [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]])
    with pytest.raises(ValueError, match="integer"):
        bresenham(0, 0, 1.5, 2)
