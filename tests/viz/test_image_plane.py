"""Tests of the image-plane animation (blocksim.viz.image_plane) and the ImagePlane post-run
sink (blocksim.blocks.sinks.animations)."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from blocksim.blocks import Constant, Ramp
from blocksim.blocks.sinks.animations import ImagePlane
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError
from blocksim.engine.simulate import simulate
from blocksim.robotics.camera import CentralCamera
from blocksim.viz.image_plane import (
    ImagePlanePlotter,
    ImageStyle,
    animate_image_plane,
    check_resolution,
    uv_columns,
    uv_series,
    visible,
)

RES = (640, 480)
SMALL = dict(figsize=(3.0, 2.6), dpi=50)
# four points, flat [u0, v0, u1, v1, ...]: start (initial) and velocity (slope) [pixel/s]
UV0 = np.array([100.0, 100.0, 500.0, 100.0, 500.0, 400.0, 100.0, 400.0])
VEL = np.array([200.0, 0.0, 0.0, 300.0, 400.0, 0.0, -100.0, -100.0])
STAR = np.array([[220.0, 420.0, 420.0, 220.0], [140.0, 140.0, 340.0, 340.0]])


def gif_frames(path) -> list[np.ndarray]:
    with Image.open(path) as im:
        out = []
        for k in range(im.n_frames):
            im.seek(k)
            out.append(np.asarray(im.convert("RGB")).astype(int))
    return out


def line(fig, gid):
    found = [a for ax in fig.axes for a in ax.get_lines() if a.get_gid() == gid]
    assert len(found) == 1, f"{gid}: {found}"
    return found[0]


def xy(ln) -> np.ndarray:
    return np.vstack([np.asarray(v, dtype=float) for v in ln.get_data()])


# ---------------------------------------------------------------------------- shapes
def test_uv_layouts():
    cols = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    flat = np.array([1.0, 4.0, 2.0, 5.0, 3.0, 6.0])  # the Camera block's flat=True order
    np.testing.assert_array_equal(uv_columns(cols), cols)
    np.testing.assert_array_equal(uv_columns(flat), cols)
    np.testing.assert_array_equal(uv_columns([7.0, 8.0]), [[7.0], [8.0]])
    series = np.stack([cols, cols + 10.0])
    np.testing.assert_array_equal(uv_series(series, 2), series)
    np.testing.assert_array_equal(uv_series(np.stack([flat, flat + 10.0]), 2), series)
    for bad in (np.zeros(3), np.zeros((3, 2)), np.zeros(0)):
        with pytest.raises(ValueError, match=r"\(2, N\) or \(2N,\)"):
            uv_columns(bad)
    with pytest.raises(ValueError, match="T = 3"):
        uv_series(series, 3)


def test_visible_is_the_camera_rule():
    uv = np.array([[0.0, 639.9, 640.0, -0.1, 320.0, np.nan, 10.0],
                   [0.0, 479.9, 10.0, 10.0, 480.0, 5.0, np.inf]])
    # CentralCamera.visible: in front (finite) and 0 <= u < width, 0 <= v < height
    assert visible(uv, RES).tolist() == [True, True, False, False, False, False, False]


def test_resolution_and_style_validation():
    assert check_resolution([640, 480]) == (640, 480)
    for bad in ((640,), (640.5, 480), (0, 480), "640x480", None):
        with pytest.raises(ValueError, match="resolution"):
            check_resolution(bad)
    with pytest.raises(ValueError, match="uv_star must be finite"):
        ImageStyle(uv_star=[[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(ValueError, match="trail must be True or False"):
        ImageStyle(trail="yes")


# ---------------------------------------------------------------------------- the artists
def test_points_outside_the_image_are_not_drawn():
    fig = Figure()
    p = ImagePlanePlotter(fig.add_subplot(), 4, ImageStyle(RES, uv_star=STAR))
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 640.0) and ax.get_ylim() == (480.0, 0.0)  # v down
    uv = np.array([[10.0, 700.0, 320.0, 320.0], [20.0, 100.0, -5.0, 240.0]])
    trail = np.stack([uv - 5.0, uv])
    p.draw(uv, 1.25, trail)
    pts = xy(line(fig, "points"))
    np.testing.assert_array_equal(pts[:, [0, 3]], uv[:, [0, 3]])
    assert np.isnan(pts[:, [1, 2]]).all()
    assert p.title.get_text() == "t = 1.250 s   2 points outside the image"
    np.testing.assert_array_equal(xy(line(fig, "targets")), STAR)
    assert [ln.get_marker() for ln in (line(fig, "targets"), line(fig, "points"))] == ["x", "o"]
    trails = [a for a in ax.get_lines() if a.get_gid() == "trail"]
    assert len(trails) == 4
    np.testing.assert_array_equal(xy(trails[1]), [[695.0, 700.0], [95.0, 100.0]])  # clipped
    assert trails[1].get_clip_on()
    p.draw(uv[:, [0, 3, 3, 0]], 2.0)
    assert p.title.get_text() == "t = 2.000 s"
    with pytest.raises(ValueError, match="uv_star has 4 points but the image has 3"):
        ImagePlanePlotter(Figure().add_subplot(), 3, ImageStyle(RES, uv_star=STAR))


# ---------------------------------------------------------------------------- function API
def test_animate_image_plane_frames_at_the_grid_times(tmp_path):
    t = np.array([0.0, 0.07, 0.2, 0.26, 0.4])
    uv = UV0 + np.outer(t, VEL)  # (T, 2N) flat rows
    anim = animate_image_plane(t, uv, RES, uv_star=STAR.T.ravel(), fps=10, **SMALL)
    np.testing.assert_allclose(anim.times, [0.0, 0.1, 0.2, 0.3, 0.4], atol=1e-15)
    fig = anim.figure
    for k, tk in enumerate(anim.times):
        anim.show_frame(k)
        expect = uv_columns(UV0 + tk * VEL)
        got = xy(line(fig, "points"))
        seen = visible(expect, RES)
        np.testing.assert_allclose(got[:, seen], expect[:, seen], rtol=1e-13)
        assert np.isnan(got[:, ~seen]).all()
        assert f"t = {tk:.3f} s" in fig.axes[0].get_title()
    # at t = 0.4 point 2 is at v = 220 ... inside; point 3 at u = 660: outside
    assert "1 point outside the image" in fig.axes[0].get_title()
    trails = [a for a in fig.axes[0].get_lines() if a.get_gid() == "trail"]
    anim.show_frame(2)  # t = 0.2 is a recorded sample: trail = samples 0, 1 then the frame
    np.testing.assert_allclose(xy(trails[0])[0], [100.0, 114.0, 140.0])
    np.testing.assert_array_equal(xy(line(fig, "targets")), STAR)
    out = anim.write(tmp_path / "ip.gif", dpi=50)
    assert len(gif_frames(out)) == 5
    out = animate_image_plane(t, uv.reshape(5, 4, 2).transpose(0, 2, 1), RES,
                              tmp_path / "ip2.gif", frames=3, trail=False, **SMALL)
    assert len(gif_frames(out)) == 3
    with pytest.raises(ValueError, match="T = 5"):
        animate_image_plane(t, uv[:4], RES)


# ---------------------------------------------------------------------------- the block
def _image_diagram(source, **kw):
    d = Diagram("d")
    src = d.add(source, name="src")
    ip = d.add(ImagePlane(RES, **kw), name="ip")
    d.connect(src, ip)
    return d


def test_imageplane_block_through_simulate(tmp_path):
    d = _image_diagram(Ramp(slope=VEL, initial=UV0), filename=tmp_path / "m.gif", fps=20,
                       uv_star=STAR, **SMALL)
    res = simulate(d, T=0.5)
    fig = res.figures["ip"]
    frames = gif_frames(tmp_path / "m.gif")
    assert len(frames) == 11
    np.testing.assert_allclose(fig.animation.times, np.arange(11) / 20, atol=1e-15)
    # pixels change where the points move
    assert (np.abs(frames[0] - frames[-1]).max(axis=-1) > 60).sum() > 50
    # the last frame (t = 0.5, a recorded sample): points at the recorded uv, except point 2
    # (u = 700), which has left the image and is not drawn
    last = uv_columns(res["ip.uv"][-1])
    np.testing.assert_allclose(last, uv_columns(UV0 + 0.5 * VEL), rtol=1e-14)
    pts = xy(line(fig, "points"))
    np.testing.assert_array_equal(pts[:, [0, 1, 3]], last[:, [0, 1, 3]])
    assert np.isnan(pts[:, 2]).all()
    k = int(np.flatnonzero(np.isclose(res.t, 0.3))[0])
    fig.animation.show_frame(6)  # t = 0.3, every point inside
    np.testing.assert_allclose(xy(line(fig, "points")), uv_columns(res["ip.uv"][k]),
                               rtol=1e-13)


def test_point_leaving_the_image_through_simulate(tmp_path):
    vel = VEL.copy()
    vel[4] = 800.0  # point 2 leaves through the right border at t = 0.175 s
    d = _image_diagram(Ramp(slope=vel, initial=UV0), filename=tmp_path / "o.gif", fps=10,
                       **SMALL)
    res = simulate(d, T=0.3)
    fig = res.figures["ip"]
    fig.animation.show_frame(1)  # t = 0.1: u = 580, in the image
    assert np.isfinite(xy(line(fig, "points"))).all()
    fig.animation.show_frame(3)  # t = 0.3: u = 740, outside: not drawn
    pts = xy(line(fig, "points"))
    assert np.isnan(pts[:, 2]).all() and np.isfinite(pts[:, [0, 1, 3]]).all()
    assert "1 point outside the image" in fig.axes[0].get_title()


def test_imageplane_columns_input(tmp_path):
    cols = uv_columns(UV0)  # a constant (2, N) input: nothing moves
    d = _image_diagram(Constant(cols), filename=tmp_path / "c.gif", fps=10, **SMALL)
    res = simulate(d, T=0.3, solver="euler", dt=0.05)
    frames = gif_frames(tmp_path / "c.gif")
    assert len(frames) == 4
    fig = res.figures["ip"]
    np.testing.assert_array_equal(xy(line(fig, "points")), cols)
    # rows of the title band: the time stamp changes, the image does not
    title = fig.axes[0].title.get_window_extent(fig.canvas.get_renderer())
    band = int(np.ceil(frames[0].shape[0] - title.y0 * 50 / fig.dpi)) + 1
    assert (np.abs(frames[0] - frames[-1]).max(axis=-1)[band:] > 60).sum() < 10
    assert (np.abs(frames[0] - frames[-1]).max(axis=-1)[:band] > 60).sum() > 0


def test_imageplane_shape_errors_before_the_run(tmp_path):
    for source, kw, match in [
            (Constant(np.zeros(3)), {}, r"input 'uv' must have shape \(2, N\) or \(2N,\).*"
                                        r"found \(3,\)"),
            (Constant(np.zeros((3, 2))), {}, r"found \(3, 2\)"),
            (Constant(UV0), {"uv_star": STAR[:, :3]}, "'uv_star' has 3 points but input 'uv' "
                                                      "carries 4")]:
        d = _image_diagram(source, filename=tmp_path / "e.gif", **kw)
        with pytest.raises(BlockParameterError, match=match), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            simulate(d, T=0.1)
        assert not (tmp_path / "e.gif").exists()


def test_imageplane_parameters():
    blk = ImagePlane((640, 480), "ip.gif", uv_star=STAR)
    assert [p.name for p in blk.inputs] == ["uv"] and blk.inputs[0].unit == "pixel"
    assert blk.outputs == () and blk.nx == 0
    assert blk.params["resolution"] == (640, 480) and blk.style.resolution == (640, 480)
    cam = CentralCamera(resolution=(800, 600))
    assert ImagePlane.from_camera(cam, None, fps=5).style.resolution == (800, 600)
    for kw, match in [({"resolution": (640,)}, "resolution must be two positive integers"),
                      ({"filename": "ip.avi"}, r"\.gif"),
                      ({"uv_star": np.zeros(3)}, "uv_star must have shape"),
                      ({"fps": 0}, "positive number"),
                      ({"figsize": "big"}, "figsize"),
                      ({"trail": None}, "trail must be True or False")]:
        with pytest.raises(BlockParameterError, match=match):
            ImagePlane(**kw)
