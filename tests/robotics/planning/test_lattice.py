"""Lattice planner: primitives, A* through networkx, obstacles, the seed's example."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from blocksim.robotics.planning import Lattice, OccupancyGrid, PlanningError


def _primitive_of(p, q, d):
    """Which primitive joins pose p to pose q (independent geometry), or None."""
    th = p[2]
    c, s = math.cos(th), math.sin(th)
    ex, ey = q[0] - p[0], q[1] - p[1]
    fwd, left = c * ex + s * ey, -s * ex + c * ey
    dth = (q[2] - p[2] + math.pi) % (2 * math.pi) - math.pi
    for name, (a, b, t) in {
        "straight": (d, 0, 0),
        "left": (d, d, math.pi / 2),
        "right": (d, -d, -math.pi / 2),
    }.items():
        if abs(fwd - a) < 1e-9 and abs(left - b) < 1e-9 and abs(dth - t) < 1e-9:
            return name
    return None


def test_seed_header_example_path_is_made_of_primitives():
    lp = Lattice()
    lp.plan(iterations=8)
    path = lp.query([1, 2, math.pi / 2], [2, -2, 0])
    assert path.shape[1] == 3
    np.testing.assert_allclose(path[0], [1, 2, math.pi / 2])
    np.testing.assert_allclose(path[-1], [2, -2, 0])
    assert np.all(path[:, 2] > -math.pi) and np.all(path[:, 2] <= math.pi)
    names = [_primitive_of(p, q, 1.0) for p, q in itertools.pairwise(path)]
    assert None not in names
    # with unit costs the A* cost is the number of primitives, and it is optimal
    assert lp.pathcost == len(path) - 1
    G = lp.graph
    assert lp.pathcost == nx.shortest_path_length(
        G, tuple(lp.vpath[0]), tuple(lp.vpath[-1]), weight="weight"
    )


@pytest.mark.parametrize("cost", [(1, 1, 1), (1, 5, 5), (2, 1, 3)])
def test_astar_cost_equals_networkx_shortest_path_length(cost):
    lp = Lattice(grid=0.5, root=(1.0, -1.0, math.pi))
    lp.plan(iterations=7, cost=cost)
    rng = np.random.default_rng(sum(cost))
    nodes = list(lp.graph.nodes)
    for _ in range(5):
        u, v = (nodes[i] for i in rng.choice(len(nodes), size=2, replace=False))
        if not nx.has_path(lp.graph, u, v):
            continue
        pu, pv = lp.poses([u])[0], lp.poses([v])[0]
        path = lp.query(pu, pv)
        ref = nx.shortest_path_length(lp.graph, u, v, weight="weight")
        assert lp.pathcost == pytest.approx(ref)
        by_type = {"straight": cost[0], "left": cost[1], "right": cost[2]}
        total = sum(by_type[_primitive_of(p, q, 0.5)] for p, q in itertools.pairwise(path))
        assert total == pytest.approx(ref)


def test_turning_costs_trade_turns_for_distance():
    free = Lattice(grid=1.0)
    free.plan(iterations=10, cost=(1, 1, 1))
    dear = Lattice(grid=1.0)
    dear.plan(iterations=10, cost=(1, 10, 10))
    a = free.query((0, 0, 0), (4, 4, 0))
    b = dear.query((0, 0, 0), (4, 4, 0))
    turns = [
        sum(_primitive_of(p, q, 1.0) != "straight" for p, q in itertools.pairwise(x))
        for x in (a, b)
    ]
    assert turns[1] <= turns[0] and len(b) >= len(a)
    assert dear.pathcost == pytest.approx(len(b) - 1 + 9 * turns[1])


def test_arcs_avoid_obstacles_on_a_map():
    og = OccupancyGrid.from_shapes(
        (12.0, 10.0), rectangles=[(4.5, 0.0, 6.5, 7.0)], cellsize=0.25, border=True
    )
    lp = Lattice(og, grid=1.0, root=(1.0, 1.0, 0.0))
    lp.plan()
    path = lp.query((1.0, 1.0, 0.0), (10.0, 1.0, -math.pi / 2))
    dense = lp.densify(n=40)
    assert not og.is_occupied(dense[:, :2]).any()
    np.testing.assert_allclose(dense[0], path[0])
    np.testing.assert_allclose(dense[-1], path[-1], atol=1e-12)
    assert dense[:, 1].max() > 7.0  # goes over the wall
    # every lattice edge's whole arc is free, not just its end cell
    for u, v in list(lp.graph.edges)[::7]:
        assert not og.is_occupied(lp.edge_poses(u, v, 30)[:, :2]).any()


def test_densified_arcs_are_drivable_with_the_turning_radius():
    lp = Lattice(grid=2.0)
    lp.plan(iterations=6)
    lp.query((0, 0, 0), (4, 4, math.pi / 2))
    dense = lp.densify(n=50)
    seg = np.diff(dense[:, :2], axis=0)
    ds = np.hypot(*seg.T)
    dth = np.angle(np.exp(1j * np.diff(dense[:, 2])))
    # chord of an arc of radius R turning dth: 2 R sin(dth / 2); R >= grid = 2
    assert np.all(np.abs(dth) <= 2 * np.arcsin(ds / (2 * 2.0)) + 1e-9)
    heading = np.arctan2(seg[:, 1], seg[:, 0])  # chord direction = mid-step heading
    mid = dense[:-1, 2] + dth / 2
    assert np.abs(np.angle(np.exp(1j * (heading - mid)))).max() < 1e-9


def test_errors_are_explicit():
    with pytest.raises(ValueError, match="finite"):
        Lattice().plan()
    lp = Lattice()
    with pytest.raises(PlanningError, match="plan"):
        lp.query((0, 0, 0), (1, 0, 0))
    lp.plan(iterations=2)
    with pytest.raises(ValueError, match=r"start configuration .* not in lattice"):
        lp.query((0.3, 0.45, 0.0), (1, 0, 0))
    with pytest.raises(ValueError, match="goal configuration"):
        lp.query((0, 0, 0), (9, 9, 0))
    with pytest.raises(ValueError, match="cost"):
        Lattice(cost=(1, 1)).plan(iterations=2)
    with pytest.raises(ValueError, match="iterations"):
        Lattice().plan(iterations=0)
    blocked = np.zeros((5, 5))
    blocked[2, 2] = 1
    with pytest.raises(ValueError, match=r"root .* occupied"):
        Lattice(blocked, root=(2, 2, 0)).plan()
