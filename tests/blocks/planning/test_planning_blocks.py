"""PathCarrot and Planner in diagrams, driving a point robot (library blocks only)."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Concatenate, Constant, Gain, Integrator, Step, Sum
from blocksim.blocks.planning import NavigationField, PathCarrot, Planner
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.planning import Dstar, DXform, load_map
from blocksim.robotics.planning.follow import lookahead_point, project

K = 4.0  # point robot: d(xy)/dt = K (target - xy), speed about K * lookahead


def point_robot(d: Diagram, source, xy0, target_port="target", prefix=""):
    """xy integrator driven towards the source's target; pose = (x, y, 0) back to the source."""
    err = d.add(Sum("+-"), name=f"{prefix}err")
    gain = d.add(Gain(K), name=f"{prefix}gain")
    xy = d.add(Integrator(x0=list(xy0)), name=f"{prefix}xy")
    zero = d.add(Constant([0.0]), name=f"{prefix}zero")
    pose = d.add(Concatenate(2), name=f"{prefix}pose")
    d.connect(source[target_port], err["u0"])
    d.connect(xy, err["u1"])
    d.connect(err, gain)
    d.connect(gain, xy)
    d.connect(xy, pose["u0"])
    d.connect(zero, pose["u1"])
    d.connect(pose, source["pose"])
    return xy


def test_lookahead_point_walks_along_the_polyline():
    path = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 3.0]])
    np.testing.assert_allclose(lookahead_point(path, 0.5, 0.3, 1.0), [1.5, 0.0])
    np.testing.assert_allclose(lookahead_point(path, 1.5, -0.2, 1.0), [2.0, 0.5])
    np.testing.assert_allclose(lookahead_point(path, 2.1, 2.5, 1.0), [2.0, 3.0])
    assert project(path, 3.0, 1.0)[2] == pytest.approx(3.0)


@pytest.fixture(scope="module")
def office_path():
    og = load_map("office")
    dx = DXform(og, goal=(10.5, 1.5), inflate=0.3)
    dx.plan()
    return og, dx.query((1.0, 6.5))


CLOSING = [1.0, 1.4, 4.8, 3.1, 5.2]  # the arena's left gap closes at t = 1 s


@pytest.fixture(scope="module")
def both_backends(office_path):
    """One diagram, compiled once: a robot on a DXform path through PathCarrot, another on
    the arena's D* field through NavigationField; run in both back-ends."""
    _, path = office_path
    d = Diagram("carrot_and_field")
    carrot = d.add(PathCarrot(path, lookahead=0.5), name="carrot")
    point_robot(d, carrot, path[0], prefix="a_")
    field = d.add(
        NavigationField(
            "dstar", "arena", goal=(2.25, 9.0), inflate=0.3, lookahead=0.4, obstacles=[CLOSING]
        ),
        name="field",
    )
    point_robot(d, field, (2.25, 1.0), prefix="b_")
    a = simulate(d, T=12.0, solver="rk4", dt=0.02, backend="interpreted")
    b = simulate(d, T=12.0, solver="rk4", dt=0.02, backend="compiled")
    return d, a, b


def test_both_back_ends_agree(both_backends):
    _, a, b = both_backends
    assert b.stats["backend"] == "compiled"
    for s in a.signals:
        np.testing.assert_allclose(b[s], a[s], rtol=0, atol=1e-12, err_msg=s)


def test_path_carrot_drives_to_the_goal(both_backends, office_path):
    og, path = office_path
    xy = both_backends[1]["a_xy.y"]
    assert np.hypot(*(xy[-1] - path[-1])) < 0.05
    assert not og.is_occupied(xy).any()  # corners cut by less than the inflation


def test_navigation_field_switches_to_the_repaired_d_star_field(both_backends):
    d, a, _ = both_backends
    nf = d["field"]
    # the repaired field equals a fresh D* plan on the map with the obstacle
    og = load_map("arena")
    xy = og.cell_to_world(np.stack(np.meshgrid(np.arange(100), np.arange(100)), axis=-1))
    box = (xy[..., 0] >= 1.4) & (xy[..., 0] <= 3.1) & (xy[..., 1] >= 4.8) & (xy[..., 1] <= 5.2)
    fresh = Dstar(type(og)(og.occ | box, og.cellsize), goal=(2.25, 9.0), inflate=0.3)
    fresh.plan()
    np.testing.assert_allclose(nf.fields[1], fresh.distancemap_get(), rtol=1e-12)
    assert 0 < nf.niters[1] < nf.niters[0]
    t = a.t
    assert a["field.stage"][t < 0.99].max() == 0 and a["field.stage"][-1] == 1
    assert a["field.niter"][-1] == nf.niters[1]
    robot = a["b_xy.y"]
    assert robot[t < 1.0, 0].max() < 2.5  # heading for the left gap until it closed
    at_wall = np.abs(robot[:, 1] - 5.0) < 0.2
    assert at_wall.any() and (robot[at_wall, 0] > 6.5).all()  # through the right gap
    assert np.hypot(*(robot[-1] - [2.25, 9.0])) < 0.1
    assert not load_map("arena").is_occupied(robot).any()


def test_planner_replans_when_the_goal_changes():
    d = Diagram("replan")
    goal = d.add(Step(time=10.0, before=[10.5, 1.5], after=[1.0, 1.5]), name="goal")
    pl = d.add(Planner("dxform", "office", inflate=0.3, lookahead=0.4, clock=0.1), name="plan")
    d.connect(goal, pl["goal"])
    point_robot(d, pl, (1.0, 6.5))
    r = simulate(d, T=22.0, solver="rk4", dt=0.02)
    t, xy, replans = r.t, r["xy.y"], r["plan.replans"]
    assert replans[t < 9.9].max() == 1 and replans[-1] == 2
    at10 = np.searchsorted(t, 9.99)
    assert np.hypot(*(xy[at10] - [10.5, 1.5])) < 0.1  # reached the first goal
    assert np.hypot(*(xy[-1] - [1.0, 1.5])) < 0.1  # then the second
    assert not load_map("office").is_occupied(xy).any()


def test_dstar_planner_repairs_when_an_obstacle_appears():
    # the arena's left gap (x in [1.5, 3]) closes at t = 2 s, before the robot gets there
    closing = [2.0, 1.4, 4.8, 3.1, 5.2]
    d = Diagram("dstar")
    goal = d.add(Constant([2.25, 9.0]), name="goal")
    pl = d.add(
        Planner("dstar", "arena", inflate=0.2, lookahead=0.4, obstacles=[closing], clock=0.1),
        name="plan",
    )
    d.connect(goal, pl["goal"])
    point_robot(d, pl, (2.25, 1.0))
    r = simulate(d, T=16.0, solver="rk4", dt=0.02)
    t, xy, niter = r.t, r["xy.y"], r["plan.niter"]
    assert r["plan.replans"][-1] == 2
    fresh, repair = niter[t < 1.9].max(), niter[-1]
    assert 0 < repair < fresh  # half the map routed through the closed gap: re-raised
    at_wall = np.abs(xy[:, 1] - 5.0) < 0.2
    assert at_wall.any() and (xy[at_wall, 0] > 7.0).all() and (xy[at_wall, 0] < 8.5).all()
    assert xy[t < 2.0, 0].max() < 2.5  # heading for the left gap before it closed
    assert np.hypot(*(xy[-1] - [2.25, 9.0])) < 0.1


def test_bad_parameters_name_the_parameter():
    with pytest.raises(BlockParameterError, match="'path'"):
        PathCarrot([1.0, 2.0])
    with pytest.raises(BlockParameterError, match="'lookahead'"):
        PathCarrot([[0, 0], [1, 1]], lookahead=0)
    with pytest.raises(BlockParameterError, match="'planner'"):
        Planner("astar")
    with pytest.raises(BlockParameterError, match="'map'"):
        Planner("dxform", map="no_such_map.png")
    with pytest.raises(BlockParameterError, match="'obstacles'"):
        NavigationField(obstacles=[[1.0, 2.0]])
    with pytest.raises(BlockParameterError, match="'goal'"):
        NavigationField(goal=(1.0,))
    with pytest.raises(BlockParameterError, match="occupied"):
        NavigationField(goal=(5.0, 5.0))
