"""Bug2: reaches the goal through free cells, follows walls, reports traps."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.planning import Bug2, PlanningError, load_map

from .grid_checks import assert_cell_path


def _two_blocks():
    occ = np.zeros((40, 60), dtype=bool)
    occ[10:30, 20:30] = True
    occ[5:15, 40:45] = True
    return occ


@pytest.mark.parametrize("turn", ["left", "right"])
def test_reaches_the_goal_around_obstacles(turn):
    occ = _two_blocks()
    bug = Bug2(occ, goal=(50, 30), turn=turn)
    path = bug.query((5, 5))
    assert_cell_path(occ, path.astype(int), (5, 5), (50, 30))
    assert len(bug.hits) >= 1
    # walking round the block, the robot stays next to it
    on_wall = [
        p
        for p in path.astype(int)
        if occ[max(p[1] - 1, 0) : p[1] + 2, max(p[0] - 1, 0) : p[0] + 2].any()
    ]
    assert len(on_wall) >= 10
    # it leaves the wall on the m-line closer to the goal than where it hit
    line = bug.mline
    for h in bug.hits:
        assert abs(line @ [h[0], h[1], 1.0]) <= 0.5 + 1e-9


def test_free_space_is_the_straight_digital_line():
    occ = np.zeros((20, 20), dtype=bool)
    path = Bug2(occ).query((2, 3), goal=(17, 9))
    assert len(path) == 16  # one cell per step along the major axis
    assert Bug2(occ).query((4, 4), goal=(4, 4)).tolist() == [[4.0, 4.0]]


def test_office_map_in_metres():
    og = load_map("office")
    bug = Bug2(og, goal=(10.0, 1.5), inflate=0.15)
    path = bug.query((2.0, 6.5))
    assert path[0] == pytest.approx([2.0, 6.5]) and path[-1] == pytest.approx([10.0, 1.5])
    assert not bug.occgrid.is_occupied(path).any()


def test_trapped_goal_is_reported():
    occ = _two_blocks()
    occ[25:35, 45:55] = True
    occ[27:33, 47:53] = False  # a closed room round the goal
    with pytest.raises(PlanningError, match="trapped"):
        Bug2(occ, goal=(50, 30)).query((5, 5))
    with pytest.raises(TypeError, match="no plan"):
        Bug2(occ).plan()
    with pytest.raises(ValueError, match="turn"):
        Bug2(occ, turn="up")


def test_a_diagonal_step_across_the_m_line_is_a_leave_point():
    """Issue 28 repro: the robot crosses the m-line diagonally beside the block (never within
    half a cell of it) and used to go round for ever, reported as trapped."""
    occ = np.zeros((30, 30))
    occ[4:11, 9:13] = 1
    for turn in ("left", "right"):
        path = Bug2(occ, turn=turn).query((7, 5), (13, 11))
        assert_cell_path(occ.astype(bool), path.astype(int), (7, 5), (13, 11))


def _random_map(rng):
    ny, nx = (int(v) for v in rng.integers(8, 36, 2))
    if rng.random() < 0.5:  # scattered cells: diagonal gaps between touching obstacles
        return rng.random((ny, nx)) < rng.uniform(0.0, 0.4)
    occ = np.zeros((ny, nx), dtype=bool)
    for _ in range(int(rng.integers(1, 8))):
        r, c = rng.integers(0, max(ny, nx), 2)
        h, w = rng.integers(1, 12, 2)
        occ[r : r + h, c : c + w] = True
    return occ


def test_every_goal_a_grid_search_reaches_is_reached_on_random_maps():
    """Oracle: scipy.ndimage.label (8-connected free cells, the moves Bug2 makes) and a
    networkx shortest path. Reachable goals are reached by a free unit-step path ending at
    the goal, with both turn directions; unreachable ones raise "trapped"/"walled in"."""
    from scipy import ndimage

    from .grid_checks import grid_graph

    rng = np.random.default_rng(2028)
    reached = refused = 0
    for _ in range(300):
        occ = _random_map(rng)
        free = np.argwhere(~occ)
        if len(free) < 2:
            continue
        s = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        g = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
        label, _ = ndimage.label(~occ, structure=np.ones((3, 3)))
        reachable = label[s[1], s[0]] == label[g[1], g[0]]
        if reachable and rng.random() < 0.1:  # the labels agree with a graph search
            import networkx as nx

            assert nx.has_path(grid_graph(occ), s, g)
        for turn in ("left", "right"):
            bug = Bug2(occ, turn=turn)
            if reachable:
                path = bug.query(s, g)
                assert_cell_path(occ, path.astype(int), s, g)
                reached += 1
            else:
                with pytest.raises(PlanningError, match=r"trapped|walled"):
                    bug.query(s, g)
                refused += 1
    assert reached > 300 and refused > 0  # both kinds were exercised


def test_corner_touching_obstacles_the_m_line_passes_between():
    """The m-line runs through the corner where two obstacles touch diagonally: the robot
    circling the first one crosses the line there and must take the second one as a new hit
    (the 8-connected free space passes the corner)."""
    occ = np.zeros((12, 12), dtype=bool)
    occ[5, 5] = True  # on the diagonal m-line (1,1)-(10,10)
    occ[6, 6] = True  # touches it at a corner, also on the m-line
    for turn in ("left", "right"):
        bug = Bug2(occ, turn=turn)
        path = bug.query((1, 1), (10, 10))
        assert_cell_path(occ, path.astype(int), (1, 1), (10, 10))
        assert len(bug.hits) == 2
