"""DXform: distance map and steepest-descent paths."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from blocksim.robotics.planning import DXform, PlanningError, load_map
from blocksim.robotics.planning.maps import random_map

from .grid_checks import assert_cell_path, grid_graph


@pytest.mark.parametrize("metric", ["euclidean", "cityblock"])
def test_paths_on_random_maps_are_free_connected_and_shortest(metric):
    eight = metric == "euclidean"
    for seed in range(3):
        og = random_map((40, 50), density=0.25, seed=seed)
        free = np.argwhere(~og.occ)
        rng = np.random.default_rng(seed)
        G = grid_graph(og.occ, eight)
        (gr, gc), (sr, sc) = free[rng.integers(len(free), size=2)]
        if not nx.has_path(G, (sc, sr), (gc, gr)):
            continue
        dx = DXform(og, goal=(gc, gr), metric=metric)
        dx.plan()
        path = dx.query((sc, sr))
        assert_cell_path(og.occ, path.astype(int), (sc, sr), (gc, gr), eight)
        length = np.hypot(*np.diff(path, axis=0).T).sum()
        ref = nx.shortest_path_length(G, (sc, sr), (gc, gr), weight="weight")
        assert length == pytest.approx(ref, rel=1e-12)
        assert dx.distancemap[sr, sc] == pytest.approx(ref, rel=1e-12)


def test_office_map_in_metres_with_inflation():
    og = load_map("office")
    dx = DXform(og, goal=(10.5, 1.5), inflate=0.2)
    d = dx.plan()
    path = dx.query((1.0, 6.5))
    assert path[0] == pytest.approx([1.0, 6.5]) and path[-1] == pytest.approx([10.5, 1.5])
    # every point keeps the inflation radius from the walls of the original map
    cells = og.world_to_cell(path)
    from scipy import ndimage

    clearance = ndimage.distance_transform_edt(~og.occ) * og.cellsize
    assert clearance[cells[:, 1], cells[:, 0]].min() > 0.2
    steps = np.hypot(*np.diff(path, axis=0).T)
    assert steps.max() <= math.sqrt(2) * 0.1 + 1e-12
    assert steps.sum() == pytest.approx(d[cells[0, 1], cells[0, 0]], rel=1e-12)


def test_errors_name_the_problem():
    occ = np.zeros((10, 10), dtype=bool)
    occ[:, 5] = True
    dx = DXform(occ, goal=(1, 1))
    with pytest.raises(PlanningError, match="plan"):
        dx.query((2, 2))
    dx.plan()
    with pytest.raises(PlanningError, match="cannot be reached"):
        dx.query((8, 8))
    with pytest.raises(ValueError, match=r"start .* occupied"):
        dx.query((5, 2))
    with pytest.raises(ValueError, match="outside the map"):
        dx.query((20, 2))
    with pytest.raises(ValueError, match="no goal"):
        DXform(occ).plan()
    with pytest.raises(ValueError, match="metric"):
        DXform(occ, metric="chessboard")
