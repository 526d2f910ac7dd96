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
