"""Vehicle animation: geometry of the drawings, and the VehiclePlot sink writing a GIF headless
with trail, landmarks, sensor rays, covariance ellipses and particles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from blocksim import Diagram, simulate
from blocksim.blocks.vehicle import (
    EKF,
    ParticleFilter,
    RandomPath,
    RangeBearingSensor,
    Vehicle,
    VehiclePlot,
)
from blocksim.engine.errors import BlockParameterError
from blocksim.viz.vehicle_plot import animate_vehicle, ellipse_points, vehicle_outline


def test_outline_points_forward_and_is_placed_at_the_pose():
    tri = vehicle_outline((2.0, 1.0, math.pi / 2), "triangle", size=2.0)
    np.testing.assert_allclose(tri[0], [2.0, 2.0], atol=1e-12)  # the point, 1 m ahead
    car = vehicle_outline((0.0, 0.0, 0.0), "car", size=1.0)
    assert car[:, 0].max() == pytest.approx(0.5) and car[:, 0].min() == pytest.approx(-0.5)


def test_ellipse_is_the_nsigma_contour():
    P = np.array([[0.5, 0.2], [0.2, 0.3]])
    pts = ellipse_points(P, (1.0, -1.0), nsigma=3.0)
    d = pts - [1.0, -1.0]
    np.testing.assert_allclose(np.einsum("ni,ij,nj->n", d, np.linalg.inv(P), d), 9.0, rtol=1e-9)


def test_function_api_returns_an_animation_of_the_frames():
    t = np.linspace(0, 2, 21)
    pose = np.stack((t, np.sin(t), np.cos(t)), axis=1)
    anim = animate_vehicle(t, pose, fps=5)
    assert len(anim.times) == 11
    with pytest.raises(ValueError, match="pose"):
        animate_vehicle(t, pose[:, :2])


def test_sink_writes_a_gif_with_everything_drawn(tmp_path):
    W = (0.01, 3e-4)
    d = Diagram("plot")
    d.add(Vehicle(V=(4e-4, 7e-5), seed=1), name="veh")
    d.add(RandomPath(dim=5.0, seed=2), name="drv")
    d.add(RangeBearingSensor(landmarks=5, dim=5.0, W=W, seed=3), name="s")
    d.add(EKF(mode="slam", W_est=W, landmarks=5, dim=5.0), name="ekf")
    d.add(ParticleFilter(nparticles=50, landmarks=5, dim=5.0, particles=True), name="pf")
    out = tmp_path / "veh.gif"
    d.add(VehiclePlot(out, landmarks=5, dim=5.0, covariance=True, slam=True, rays=True,
                      shape="triangle", fps=5), name="anim")  # fmt: skip
    d.add(VehiclePlot(None, landmarks=5, dim=5.0, particles=True), name="cloud")
    d.connect("veh.pose", "drv.pose")
    d.connect("drv.v", "veh.speed")
    d.connect("drv.gamma", "veh.steer")
    d.connect("veh.pose", "s.pose")
    for f in ("ekf", "pf"):
        d.connect("veh.odo", f"{f}.odo")
        for p in ("z", "k", "valid"):
            d.connect(f"s.{p}", f"{f}.{p}")
    d.connect("ekf.x", "anim.pose")
    d.connect("ekf.P", "anim.P")
    d.connect("s.k", "anim.k")
    d.connect("s.valid", "anim.valid")
    d.connect("pf.x", "cloud.pose")
    d.connect("pf.particles", "cloud.particles")
    res = simulate(d, 2.0, backend="interpreted")
    assert out.stat().st_size > 0
    with Image.open(out) as im:
        assert im.n_frames >= 5
    assert {"anim", "cloud"} <= set(res.figures)
    assert res["pf.particles"].shape == (21, 50, 3)


def test_bad_parameters():
    with pytest.raises(BlockParameterError, match="shape"):
        VehiclePlot(None, shape="boat")
    with pytest.raises(BlockParameterError, match="'rays'"):
        VehiclePlot(None, rays=True)
    with pytest.raises(BlockParameterError, match="filename"):
        VehiclePlot("out.png")
