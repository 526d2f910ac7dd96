"""Kinodynamic RRT on the step-9 bicycle: the path is a trajectory the bicycle drives."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from blocksim.robotics.planning import RRT, OccupancyGrid


@pytest.fixture(scope="module")
def seed_example():
    """Seed 000 §2.18: RRT([], veh('stlim', 1.2), 'goal', [0, 0, 0], 'range', 5)."""
    rrt = RRT(None, goal=(0.0, 0.0, 0.0), range=5, steermax=1.2, npoints=300, seed=1)
    rrt.plan()
    return rrt


def _simulate(x0, controls, L, dt):
    """Integrate the bicycle ODE (independent of the planner's exact arcs) piece by piece."""
    out = [np.asarray(x0, dtype=float)]
    for v, gamma, steps in controls:
        sol = solve_ivp(
            lambda t, x, v=v, g=gamma: [
                v * math.cos(x[2]),
                v * math.sin(x[2]),
                v * math.tan(g) / L,
            ],
            (0.0, steps * dt),
            out[-1],
            t_eval=np.arange(1, steps + 1) * dt,
            rtol=1e-11,
            atol=1e-12,
        )
        out.extend(sol.y.T)
    return np.array(out)


def test_path_is_driven_by_the_bicycle_from_its_first_pose(seed_example):
    rrt = seed_example
    path = rrt.path((0.0, 2.0, 0.0))
    assert path.shape[1] == 3 and len(rrt.controls) >= 1
    for v, gamma, _ in rrt.controls:
        assert abs(v) == rrt.speed and abs(gamma) <= rrt.steermax
    np.testing.assert_allclose(_simulate(path[0], rrt.controls, rrt.L, rrt.dt), path, atol=1e-8)
    np.testing.assert_allclose(path[-1, :2], [0.0, 0.0], atol=1e-9)
    assert abs(math.remainder(path[-1, 2], 2 * math.pi)) < 1e-9
    assert rrt.start_error < 1.5


def test_same_seed_same_tree(seed_example):
    again = RRT(None, goal=(0.0, 0.0, 0.0), range=5, npoints=300, seed=1)
    again.plan()
    np.testing.assert_array_equal(again.vertices, seed_example.vertices)
    other = RRT(None, goal=(0.0, 0.0, 0.0), range=5, npoints=300, seed=2)
    other.plan()
    assert not np.array_equal(other.vertices, seed_example.vertices)
    xmin, xmax, ymin, ymax = -5, 5, -5, 5
    v = seed_example.vertices
    assert len(v) == 301 and np.all(np.abs(v[:, :2]) < 5 + seed_example.time * 1.0 + 1e-9)
    assert (xmin, xmax, ymin, ymax) == tuple(seed_example.range)


def test_tree_avoids_obstacles_on_a_map():
    og = OccupancyGrid.from_shapes(
        (10.0, 10.0), rectangles=[(4.0, 0.0, 6.0, 6.0)], cellsize=0.1, border=True
    )
    rrt = RRT(
        og,
        goal=(8.0, 2.0, math.pi / 2),
        npoints=400,
        seed=4,
        speed=1.0,
        wheelbase=0.5,
        steermax=0.8,
    )
    rrt.plan()
    path = rrt.path((2.0, 2.0, math.pi / 2))
    assert not og.is_occupied(path[:, :2]).any()
    for k in range(1, len(rrt.vertices)):
        seg = np.array([rrt.vertices[rrt.parent[k]]])
        assert not og.is_occupied(seg[:, :2]).any()
    np.testing.assert_allclose(_simulate(path[0], rrt.controls, rrt.L, rrt.dt), path, atol=1e-8)


def test_seed_example_with_the_step9_vehicle():
    from blocksim.robotics.mobile.vehicle import Vehicle

    veh = Vehicle(None, L=1.0, stlim=1.2, dt=0.05)
    rrt = RRT(None, veh, goal=(0.0, 0.0, 0.0), range=5, npoints=150, seed=3)
    assert (rrt.L, rrt.steermax, rrt.dt) == (1.0, 1.2, 0.05)
    rrt.plan()
    path = rrt.path((0.0, 2.0, 0.0))
    np.testing.assert_allclose(_simulate(path[0], rrt.controls, rrt.L, rrt.dt), path, atol=1e-8)


def test_vehicle_object_and_bad_options():
    class Veh:
        L, stlim = 2.5, 0.5

    rrt = RRT(None, Veh(), goal=(0, 0, 0))
    assert rrt.L == 2.5 and rrt.steermax == 0.5
    with pytest.raises(ValueError, match="veh must have"):
        RRT(None, object())
    with pytest.raises(ValueError, match="steermax"):
        RRT(None, steermax=2.0)
    with pytest.raises(ValueError, match="range"):
        RRT(None, range=(1, 2, 3))
    with pytest.raises(ValueError, match="no goal"):
        RRT(None).plan()
    with pytest.raises(ValueError, match="npoints"):
        RRT(None, npoints=0)
