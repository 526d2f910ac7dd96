"""PRM: seeded roadmaps, collision-free edges, A* equal to networkx's shortest path."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from blocksim.robotics.planning import PRM, PlanningError, load_map
from blocksim.robotics.planning.maps import random_map

from .grid_checks import assert_line_free


@pytest.fixture(scope="module")
def office_prm():
    prm = PRM(load_map("office"), npoints=400, distthresh=2.5, seed=3, inflate=0.1)
    prm.plan()
    return prm


def test_same_seed_same_roadmap_other_seed_other_roadmap():
    og = random_map((50, 50), density=0.2, seed=1)
    a, b, c = PRM(og, npoints=80, seed=5), PRM(og, npoints=80, seed=5), PRM(og, npoints=80, seed=6)
    for p in (a, b, c):
        p.plan()
    np.testing.assert_array_equal(a.vertices, b.vertices)
    assert sorted(a.graph.edges) == sorted(b.graph.edges)
    assert not np.array_equal(a.vertices, c.vertices)


def test_vertices_are_free_and_edges_short_and_free(office_prm):
    prm = office_prm
    og = prm.occgrid
    assert not og.is_occupied(prm.vertices).any()
    assert len(np.unique(prm.vertices, axis=0)) == 400
    cells = og.world_to_cell(prm.vertices)
    for u, v, w in prm.graph.edges(data="weight"):
        assert w == pytest.approx(np.hypot(*(prm.vertices[u] - prm.vertices[v])))
        assert w <= 2.5
        assert_line_free(og.occ, cells[u], cells[v])


def test_path_is_collision_free_and_astar_is_shortest(office_prm):
    prm = office_prm
    og = prm.occgrid
    path = prm.query((1.0, 1.0), (11.0, 7.0))
    assert path[0] == pytest.approx([1.0, 1.0]) and path[-1] == pytest.approx([11.0, 7.0])
    cells = og.world_to_cell(path)
    for p, q in itertools.pairwise(cells):
        assert_line_free(og.occ, p, q)
    ref = nx.shortest_path_length(prm.graph, prm.vpath[0], prm.vpath[-1], weight="weight")
    assert prm.pathcost == pytest.approx(ref, rel=1e-12)
    legs = np.hypot(*np.diff(path, axis=0).T).sum()
    assert legs >= np.hypot(10.0, 6.0)


def test_unreachable_and_bad_options():
    occ = np.zeros((30, 30), dtype=bool)
    occ[:, 15] = True
    prm = PRM(occ, npoints=60, seed=0)
    prm.plan()
    with pytest.raises(PlanningError, match="not connected"):
        prm.query((2, 2), (28, 28))
    with pytest.raises(ValueError, match="npoints"):
        PRM(occ, npoints=0).plan()
    with pytest.raises(ValueError, match="free cells"):
        PRM(np.ones((3, 3)) - np.eye(3), npoints=10).plan()
    with pytest.raises(ValueError, match="distthresh"):
        PRM(occ, distthresh=-1).plan()


def test_start_equal_to_goal_is_the_trivial_path(office_prm):
    """query(s, s) used to go to the nearest roadmap vertex and back."""
    s = (2.0, 6.5)
    path = office_prm.query(s, s)
    np.testing.assert_allclose(path, [s])
    assert office_prm.pathcost == 0.0
    # a point off the cell centre: the same cell, still no detour
    cell = office_prm.occgrid.cell_to_world(office_prm.occgrid.world_to_cell(s))
    assert office_prm.query(cell + 0.01, s).shape == (1, 2)
