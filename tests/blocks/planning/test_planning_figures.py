"""Planning diagrams plan from their parameters and draw the map and paths after a run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from blocksim import simulate
from blocksim.blocks.planning import PathCarrot
from blocksim.cli import main
from blocksim.engine.errors import BlockParameterError
from blocksim.io import load
from blocksim.robotics.planning import Lattice, load_map

DIAGRAMS = Path(__file__).resolve().parents[3] / "diagrams"


def test_lattice_pursuit_plans_from_its_parameters_and_replans_with_set():
    doc = json.loads((DIAGRAMS / "lattice_pursuit.json").read_text())
    assert "path" not in doc["blocks"]["plan"]["params"]  # no hard-coded poses
    default = load(DIAGRAMS / "lattice_pursuit.json").diagram["plan"]
    moved = load(DIAGRAMS / "lattice_pursuit.json", overrides={"goal": [8, 3, 0]}).diagram
    plan = moved["plan"]
    np.testing.assert_allclose(default.path[-1], [8, 7, 0], atol=1e-9)
    np.testing.assert_allclose(plan.path[-1], [8, 3, 0], atol=1e-9)
    # the path is the lattice planner's, planned independently here
    lp = Lattice(load_map("arena"), grid=2.0, root=(2, 1, math.pi / 2), inflate=0.3)
    lp.plan()
    lp.query((2, 1, math.pi / 2), (8, 3, 0))
    np.testing.assert_allclose(plan.path, lp.densify(n=8), atol=1e-12)
    res = simulate(moved, 30.0, max_step=0.05)
    x, y, _ = res["car.pose"][-1]
    assert math.hypot(x - 8, y - 3) < 0.2
    assert not load_map("arena").is_occupied(res["car.pose"][:, :2]).any()


def test_path_carrot_planning_parameters_are_checked():
    with pytest.raises(BlockParameterError, match="'goal' must be a pose"):
        PathCarrot(planner="lattice", map="arena", start=(2, 1, 0), goal=(8, 7))
    with pytest.raises(BlockParameterError, match="planning failed"):
        PathCarrot(planner="dxform", map="arena", start=(2, 1), goal=(5, 5))  # in the wall
    with pytest.raises(BlockParameterError, match="either 'path' or 'planner'"):
        PathCarrot(path=[[0, 0], [1, 1]], planner="dxform", start=(2, 1), goal=(3, 3))
    p = PathCarrot(planner="dxform", map="arena", start=(2, 1), goal=(8, 9), inflate=0.2)
    assert p.path.shape[1] == 2 and np.allclose(p.path[0], (2, 1)) and np.allclose(
        p.path[-1], (8, 9))  # fmt: skip


def _lines(ax):
    return {ln.get_label(): ln for ln in ax.get_lines()}


@pytest.mark.parametrize("name", ["dstar_replan", "dxform_office_unicycle", "lattice_pursuit"])
def test_the_planning_block_figure_shows_map_paths_and_goal(name):
    f = load(DIAGRAMS / f"{name}.json")
    res = simulate(f.diagram, 6.0, max_step=0.05)
    fig = res.figures["plan"]
    ax = fig.axes[0]
    assert ax.get_images(), "the map is drawn"
    lines = _lines(ax)
    driven = lines["driven path"].get_xydata()
    pose_source = "robot.pose" if "robot.pose" in res else "car.pose"
    np.testing.assert_allclose(driven, res[pose_source][:, :2])
    assert any(k.startswith("plan") for k in lines)
    goal = lines["goal"].get_xydata()[0]
    np.testing.assert_allclose(goal, np.asarray(f.diagram["plan"].goal)[:2])


def test_dstar_replan_figure_shows_both_plans_and_the_obstacle():
    f = load(DIAGRAMS / "dstar_replan.json")
    res = simulate(f.diagram, 25.0, max_step=0.05)
    ax = res.figures["plan"].axes[0]
    lines = _lines(ax)
    assert "plan 1" in lines and "plan 2" in lines  # before and after the wall gap closed
    p1, p2 = lines["plan 1"].get_xydata(), lines["plan 2"].get_xydata()
    np.testing.assert_allclose(p1[-1], (2.25, 9.0), atol=0.06)  # the goal's cell centre
    np.testing.assert_allclose(p2[-1], (2.25, 9.0), atol=0.06)
    crossing = p2[np.abs(p2[:, 1] - 5.0) < 0.3]
    assert (crossing[:, 0] > 7.0).all()  # the repaired plan takes the right gap
    assert len(ax.patches) == 1  # the obstacle that appeared at t = 2 s


def test_plot_option_draws_the_map_not_time_series(tmp_path):
    from matplotlib.image import imread

    out = tmp_path / "p.png"
    assert main(["run", str(DIAGRAMS / "dstar_replan.json"), "--T", "3", "--plot", str(out),
                 "--quiet"]) == 0  # fmt: skip
    img = imread(out)
    # the map's dark-red walls are in the picture (a time-series plot has none)
    dark_red = (img[..., 0] > 0.45) & (img[..., 0] < 0.65) & (img[..., 1] < 0.05)
    assert dark_red.sum() > 500


@pytest.mark.parametrize("name", ["drive_to_point", "drive_to_pose", "drive_along_line",
                                  "pursuit_mstraj"])
def test_xy_diagrams_record_densely_enough_to_look_smooth(name):
    """drive_to_point drew its path as a 23-point polygon over 10 s."""
    f = load(DIAGRAMS / f"{name}.json")
    res = simulate(f.diagram, **f.simulation)
    assert len(res.t) >= 10 * f.simulation["T"]
    step = np.hypot(*np.diff(res["car.pose"][:, :2], axis=0).T)
    assert step.max() <= 2.0 * 0.05 + 1e-9  # vmax 2 m/s: no chord longer than 0.05 s of it
