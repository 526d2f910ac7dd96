"""The planning examples show what they exist to show (full horizons, headless)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from blocksim import simulate
from blocksim.io import load
from blocksim.robotics.planning import load_map

from .examples_loader import load_example

DIAGRAMS = Path(__file__).resolve().parents[1] / "diagrams"


def test_lattice_plan_followed_by_a_bicycle_ends_at_the_goal_pose(tmp_path):
    m = load_example("lattice_pursuit")
    r = m.main(out_dir=tmp_path)
    x, y, th = r["car.pose"][-1]
    assert math.hypot(x - m.GOAL[0], y - m.GOAL[1]) < 0.2
    assert abs(math.remainder(th - m.GOAL[2], 2 * math.pi)) < 0.2
    assert not load_map("arena").is_occupied(r["car.pose"][:, :2]).any()
    assert (tmp_path / "lattice_pursuit.png").stat().st_size > 0


def test_dxform_path_on_the_office_followed_by_a_unicycle(tmp_path):
    m = load_example("dxform_office_unicycle")
    r = m.main(out_dir=tmp_path)
    xy = r["robot.pose"][:, :2]
    assert math.hypot(*(xy[-1] - m.GOAL)) < 0.1
    office = load_map("office")
    assert not office.is_occupied(xy).any()
    # it keeps most of the inflation margin from the walls
    from scipy import ndimage

    clearance = ndimage.distance_transform_edt(~office.occ) * office.cellsize
    cells = office.world_to_cell(xy)
    assert clearance[cells[:, 1], cells[:, 0]].min() > 0.15


def test_dstar_replans_round_the_obstacle_that_appears_mid_run():
    m = load_example("dstar_replan")
    r = m.main()
    t, xy, niter = r.t, r["robot.pose"][:, :2], r["plan.niter"]
    stage = r["plan.stage"]
    assert stage[t < 2.0].max() == 0 and stage[-1] == 1
    fresh, repair = niter[0], niter[-1]
    assert fresh == 10000 and 0 < repair < fresh  # the repair touches part of the map
    assert xy[t < 2.0, 0].max() < 2.6  # heading for the left gap until it closed
    crossing = np.abs(xy[:, 1] - 5.0) < 0.2
    assert crossing.any() and (xy[crossing, 0] > 7.0).all() and (xy[crossing, 0] < 8.5).all()
    assert math.hypot(*(xy[-1] - m.GOAL)) < 0.1
    assert not load_map("arena").is_occupied(xy).any()


@pytest.mark.parametrize("name", ["lattice_pursuit", "dstar_replan"])
def test_the_diagram_files_behave_like_the_examples(name):
    # (both back-ends on every example: tests/engine/compiled/test_equivalence.py)
    m = load_example(name)
    f = load(DIAGRAMS / f"{name}.json")
    a = simulate(f.diagram, 6.0, max_step=0.05)
    b = simulate(m.build(), 6.0, max_step=0.05)
    for s in b.signals:
        np.testing.assert_allclose(a[s], b[s], rtol=1e-12, atol=1e-12, err_msg=s)
