"""D*: fresh plans equal the exact distance transform; repairs equal fresh plans, cheaper."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.planning import Dstar, DXform, PlanningError, make_maze
from blocksim.robotics.planning.maps import random_map

from .grid_checks import assert_cell_path


@pytest.fixture(scope="module")
def planned():
    og = random_map((60, 60), density=0.2, seed=11)
    free = np.argwhere(~og.occ)
    goal = tuple(free[len(free) // 3][::-1])
    ds = Dstar(og, goal=goal)
    ds.plan()
    return og, goal, ds


def test_fresh_plan_equals_the_distance_transform(planned):
    og, goal, ds = planned
    dx = DXform(og, goal=goal)
    ref = dx.plan()
    h = ds.distancemap_get()
    reach = np.isfinite(ref)
    np.testing.assert_allclose(h[reach], ref[reach], rtol=1e-12)
    assert np.isinf(h[~reach]).all()
    assert ds.niter >= reach.sum()


def test_path_follows_back_pointers_to_the_goal(planned):
    og, goal, ds = planned
    free = np.argwhere(np.isfinite(ds.distancemap_get()))
    start = tuple(free[-1][::-1])
    path = ds.query(start)
    assert_cell_path(og.occ, path.astype(int), start, goal)
    length = np.hypot(*np.diff(path, axis=0).T).sum()
    assert length == pytest.approx(ds.distancemap_get()[start[1], start[0]], rel=1e-12)


def _block_and_compare(occ, goal, start, block):
    ds = Dstar(occ, goal=goal)
    ds.plan()
    fresh_iter = ds.niter
    before = ds.query(start)
    ds.costmap_modify(block, np.inf)
    with pytest.raises(PlanningError, match="replan"):
        ds.query(start)
    ds.plan()
    occ2 = occ.copy()
    cells = np.asarray(block, dtype=int)
    occ2[cells[:, 1], cells[:, 0]] = True
    fresh = Dstar(occ2, goal=goal)
    fresh.plan()
    h, h_fresh = ds.distancemap_get(), fresh.distancemap_get()
    np.testing.assert_allclose(h, h_fresh, rtol=1e-12)
    return before, ds, fresh, fresh_iter


def test_replanning_in_a_maze_gives_the_fresh_path_visiting_far_fewer_cells():
    occ = make_maze(n=10, seed=4, corridor=1).occ.copy()
    # corridors one cell wide: every path is unique, so "same path" is well defined
    goal, start = (1, 1), (19, 19)
    # open a dozen walls between corridors so that blocking one corridor leaves a detour
    rng = np.random.default_rng(0)
    walls = [
        (c, r)
        for r in range(2, occ.shape[0] - 2)
        for c in range(2, occ.shape[1] - 2)
        if occ[r, c]
        and (
            (not occ[r, c - 1] and not occ[r, c + 1] and occ[r - 1, c] and occ[r + 1, c])
            or (not occ[r - 1, c] and not occ[r + 1, c] and occ[r, c - 1] and occ[r, c + 1])
        )
    ]
    for k in rng.choice(len(walls), size=12, replace=False):
        c, r = walls[k]
        occ[r, c] = False
    ds1 = Dstar(occ, goal=goal)
    ds1.plan()
    path1 = ds1.query(start).astype(int)
    mid = path1[len(path1) // 2]
    before, ds, fresh, fresh_iter = _block_and_compare(occ, goal, start, [tuple(mid)])
    after = ds.query(start)
    np.testing.assert_array_equal(after, fresh.query(start))
    assert len(after) != len(before) or not np.array_equal(after, before)
    assert not any(np.array_equal(p, mid) for p in after.astype(int))
    assert ds.niter < 0.5 * fresh_iter


def test_local_change_on_an_open_map_is_repaired_cheaply(planned):
    og, goal, _ = planned
    free = np.argwhere(~og.occ)
    far = tuple(free[-1][::-1])
    ds = Dstar(og, goal=goal)
    ds.plan()
    path = ds.query(far).astype(int)
    c, r = path[len(path) // 2]
    block = [
        (c + i, r + j)
        for i in range(-2, 3)
        for j in range(-2, 3)
        if 0 <= c + i < 60 and 0 <= r + j < 60 and (c + i, r + j) != far and (c + i, r + j) != goal
    ]
    _, ds2, fresh, fresh_iter = _block_and_compare(og.occ, goal, far, block)
    assert ds2.niter < 0.5 * fresh_iter
    a, b = ds2.query(far), fresh.query(far)
    assert np.hypot(*np.diff(a, axis=0).T).sum() == pytest.approx(
        np.hypot(*np.diff(b, axis=0).T).sum(), rel=1e-12
    )


def test_costs_between_free_and_obstacle_change_the_route():
    occ = np.zeros((11, 21), dtype=bool)
    ds = Dstar(occ, goal=(20, 5))
    ds.plan()
    assert ds.query((0, 5))[:, 1].tolist() == [5.0] * 21
    band = [(10, y) for y in range(0, 11)]
    ds.costmap_modify(band, 5.0)  # expensive but passable
    ds.plan()
    assert ds.distancemap_get()[5, 0] == pytest.approx(19 + 5.0)
    assert ds.costmap_get()[3, 10] == 5.0
    with pytest.raises(ValueError, match="> 0"):
        ds.costmap_modify([(1, 1)], 0.0)
    with pytest.raises(ValueError, match="outside"):
        ds.costmap_modify([(30, 1)], 2.0)
    with pytest.raises(ValueError, match="shape"):
        ds.costmap_set(np.ones((3, 3)))


def test_a_start_in_an_obstacle_is_named_as_such():
    """It used to say the goal cannot be reached; the start is the problem."""
    occ = np.zeros((20, 20), dtype=bool)
    occ[5:10, 5:10] = True
    ds = Dstar(occ, goal=(15, 15))
    ds.plan()
    with pytest.raises(PlanningError, match=r"start \(7, 7\) is in an obstacle"):
        ds.query((7, 7))
    ds.costmap_modify([(3, 3)], np.inf)  # an obstacle added after planning
    ds.plan()
    with pytest.raises(PlanningError, match=r"start \(3, 3\) is in an obstacle"):
        ds.query((3, 3))
    occ2 = occ.copy()
    occ2[:, 12] = True  # a wall: free start, goal beyond it
    ds2 = Dstar(occ2, goal=(15, 15))
    ds2.plan()
    with pytest.raises(PlanningError, match="cannot be reached"):
        ds2.query((2, 2))
