"""Tests of the arm animation (blocksim.viz.arm_plot), the shared frame machinery
(blocksim.viz.animate) and the ArmPlot post-run sink (blocksim.blocks.sinks.animations)."""

from __future__ import annotations

import subprocess
import sys
import types
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.animation
import numpy as np
import pytest
from PIL import Image

from blocksim.blocks import Constant, Function, Ramp, Time
from blocksim.blocks.sinks.animations import ArmPlot, ImagePlane
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError, SimulationError
from blocksim.engine.simulate import simulate
from blocksim.robotics.arm import Link, SerialLink
from blocksim.robotics.models import puma560, puma560akb
from blocksim.viz.animate import (
    AnimationWriterError,
    check_animation_file,
    frame_times,
    resample,
    samples_before,
)
from blocksim.viz.arm_plot import (
    ArmPlotter,
    ArmStyle,
    animate_arm,
    arm_reach,
    arm_workspace,
    joint_origins,
)

SLOPE = np.array([1.0, 0.5, -0.5, 0.3, 0.2, 1.0])  # rad/s
SMALL = dict(figsize=(3.0, 3.0), dpi=50)


@pytest.fixture(scope="module")
def puma():
    return puma560()


def gif_frames(path) -> list[np.ndarray]:
    with Image.open(path) as im:
        out = []
        for k in range(im.n_frames):
            im.seek(k)
            out.append(np.asarray(im.convert("RGB")).astype(int))
    return out


def rendered(fig) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int).copy()


def line(fig, gid):
    found = [a for ax in fig.axes for a in ax.get_lines() if a.get_gid() == gid]
    assert len(found) == 1, f"{gid}: {found}"
    return found[0]


def data3d(ln) -> np.ndarray:
    return np.column_stack([np.asarray(v, dtype=float) for v in ln.get_data_3d()])


# ---------------------------------------------------------------------------- frame grid
def test_frame_times_uniform_grid():
    t = np.array([0.0, 0.013, 0.2, 0.37, 0.5])
    np.testing.assert_allclose(frame_times(t, fps=20), np.arange(11) / 20, rtol=0, atol=1e-15)
    np.testing.assert_allclose(frame_times(t, fps=4), [0.0, 0.25, 0.5])
    np.testing.assert_allclose(frame_times(t, fps=3), [0.0, 1 / 3])  # last frame before t[-1]
    np.testing.assert_allclose(frame_times(t + 1.0, fps=10), 1.0 + np.arange(6) / 10)
    np.testing.assert_allclose(frame_times(t, frames=6), np.linspace(0.0, 0.5, 6))
    np.testing.assert_array_equal(frame_times([2.0]), [2.0])
    # 0.1 * 30 is not exactly 3 in floating point: the last frame is still there
    assert frame_times([0.0, 0.1], fps=30).size == 4


@pytest.mark.parametrize("t, kw, match", [
    ([], {}, "no time points"),
    ([0.0, 1.0, 0.5], {}, "non-decreasing"),
    ([0.0, 1.0], {"fps": 0}, "positive"),
    ([0.0, 1.0], {"fps": True}, "positive"),
    ([0.0, 1.0], {"frames": 0}, "positive int"),
    ([0.0, 1.0], {"frames": 2.5}, "positive int"),
])
def test_frame_times_errors(t, kw, match):
    with pytest.raises(ValueError, match=match):
        frame_times(t, **kw)


def test_resample_linear_in_time_with_event_duplicates():
    t = np.array([0.0, 0.1, 0.3, 0.3, 0.6])
    y = np.column_stack([2.0 * t + 1.0, -t])
    y[3:, 0] += 10.0  # a jump at the repeated time 0.3 (left value, then right value)
    got = resample(t, y, [0.0, 0.05, 0.2, 0.3, 0.45, 0.6, 0.7, -1.0])
    expect_u = [1.0, 1.1, 1.4, 11.6, 11.9, 12.2, 12.2, 1.0]  # right value at 0.3; ends held
    np.testing.assert_allclose(got[:, 0], expect_u, rtol=1e-14)
    np.testing.assert_allclose(got[:, 1], [0, -0.05, -0.2, -0.3, -0.45, -0.6, -0.6, 0.0],
                               rtol=1e-14, atol=1e-16)
    # matrices interpolate element-wise, samples are reproduced exactly
    M = np.arange(5 * 4).reshape(5, 2, 2).astype(float) ** 2
    np.testing.assert_array_equal(resample(t, M, t[[0, 1, 2, 4]]), M[[0, 1, 3, 4]])
    assert resample([1.0], [[3.0, 4.0]], [0.0, 2.0]).tolist() == [[3.0, 4.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match="expected 5 samples"):
        resample(t, np.zeros((4, 2)), [0.0])


def test_samples_before():
    t = np.array([0.0, 0.1, 0.3, 0.3, 0.6])
    assert samples_before(t, [0.0, 0.05, 0.3, 0.31, 0.6, 1.0]).tolist() == [0, 1, 2, 4, 4, 5]


def test_writers_by_suffix(tmp_path, monkeypatch):
    assert check_animation_file(tmp_path / "a.GIF").suffix == ".GIF"
    with pytest.raises(AnimationWriterError, match=r"suffix '\.png'.*\.gif"):
        check_animation_file(tmp_path / "a.png")
    monkeypatch.setattr(matplotlib.animation.writers, "is_available", lambda name: False)
    with pytest.raises(AnimationWriterError, match=r"ffmpeg.*not found.*\.gif"):
        check_animation_file(tmp_path / "a.mp4")


# ---------------------------------------------------------------------------- geometry
def test_reach_bounds_every_frame_and_is_tight_for_a_planar_arm(puma):
    rng = np.random.default_rng(3)
    q = rng.uniform(-np.pi, np.pi, (200, 6))
    reach = arm_reach(puma)
    dist = np.linalg.norm(puma.fkine(q, all=True)[..., :3, 3], axis=-1)
    assert dist.max() <= reach + 1e-12
    assert reach == pytest.approx(0.4318 + np.hypot(0.0203, 0.15005) + 0.4318, rel=1e-12)
    two = SerialLink([Link(a=1.0), Link(a=0.5)], name="two")
    assert arm_reach(two) == pytest.approx(1.5)
    assert np.linalg.norm(two.fkine(np.zeros(2))[:3, 3]) == pytest.approx(1.5)
    np.testing.assert_allclose(arm_workspace(two), [-1.5, 1.5, -1.5, 1.5, -1.5, 1.5])


def test_reach_of_prismatic_joints():
    slide = SerialLink([Link(a=0.2), Link(sigma=1, qlim=[0.0, 0.7])], name="rp")
    assert arm_reach(slide) == pytest.approx(0.9)
    assert arm_reach(slide, q=[[0.0, 0.1], [0.0, 0.3]]) == pytest.approx(0.5)
    free = SerialLink([Link(a=0.2), Link(sigma=1)], name="free")
    with pytest.raises(ValueError, match="prismatic joint 1 has no finite limits"):
        arm_reach(free)
    assert arm_reach(free, q=[[0.0, -2.0]]) == pytest.approx(2.2)
    with pytest.raises(BlockParameterError, match="prismatic joint 1"):
        ArmPlot(free)
    ArmPlot(free, workspace=[-3, 3, -3, 3, -3, 3])


# ---------------------------------------------------------------------------- the artists
def _plotter(robot, **style):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 3))
    ax = fig.add_subplot(projection="3d")
    return fig, ArmPlotter(robot, ax, ArmStyle(**style))


def test_drawn_links_and_joints_are_fkine_frames(puma):
    q = np.array([0.3, -0.7, 0.4, 1.1, -0.5, 2.0])
    fig, p = _plotter(puma, show_frames=True)
    p.draw(q, 0.25)
    fk = puma.fkine(q, all=True)
    np.testing.assert_allclose(data3d(line(fig, "links")), fk[:, :3, 3], atol=1e-15)
    # standard DH: joint i+1 turns about z of frame i
    np.testing.assert_allclose(data3d(line(fig, "joints")), fk[:-1, :3, 3], atol=1e-15)
    shadow = data3d(line(fig, "shadow"))
    np.testing.assert_allclose(shadow[:, :2], fk[:, :2, 3], atol=1e-15)
    assert np.all(shadow[:, 2] == p.floorlevel) and p.floorlevel == pytest.approx(
        -arm_reach(puma))
    for k, axis in enumerate("xyz"):  # one segment per frame, separated by NaN
        seg = data3d(line(fig, f"frame-{axis}")).reshape(7, 3, 3)
        np.testing.assert_allclose(seg[:, 0], fk[:, :3, 3], atol=1e-15)
        np.testing.assert_allclose(seg[:, 1] - seg[:, 0], p.frame_length * fk[:, :3, k],
                                   atol=1e-14)
        assert np.isnan(seg[:, 2]).all()
    assert p.title.get_text() == "Puma 560   t = 0.250 s"
    base = data3d(line(fig, "base"))
    np.testing.assert_allclose(base, [[0, 0, p.floorlevel], [0, 0, 0]], atol=1e-15)
    ax = fig.axes[0]
    r = arm_reach(puma)
    assert ax.get_xlim() == pytest.approx((-r, r)) and ax.get_zlim() == pytest.approx((-r, r))


def test_joint_markers_of_modified_dh_and_the_tool():
    robot = puma560akb()
    robot.tool = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1], [0, 0, 0, 1.0]])
    q = np.array([0.1, 0.2, -0.3, 0.4, 0.5, -0.6])
    fig, p = _plotter(robot, shadow=False, base=False, floor=False)
    p.draw(q)
    fk = robot.fkine(q, all=True)
    expect = np.array([(fk[i] @ robot.arrays.A[i])[:3, 3] for i in range(6)])
    np.testing.assert_allclose(data3d(line(fig, "joints")), expect, atol=1e-15)
    np.testing.assert_allclose(joint_origins(robot, fk), expect, atol=1e-15)
    assert not np.allclose(expect, fk[:-1, :3, 3])  # modified DH: not the previous origins
    tool = data3d(line(fig, "tool"))
    np.testing.assert_allclose(tool[1], robot.fkine(q)[:3, 3], atol=1e-15)
    assert {a.get_gid() for a in fig.axes[0].get_lines()} == {"links", "joints", "tool"}
    assert p.title.get_text() == robot.name


def test_style_validation():
    for kw, match in [({"shadow": 1}, "shadow must be True or False"),
                      ({"workspace": (1, 0, 0, 1, 0, 1)}, "min < max"),
                      ({"workspace": (0, 1)}, "6 finite numbers"),
                      ({"view": (10,)}, "elevation, azimuth"),
                      ({"frame_length": -1.0}, "positive")]:
        with pytest.raises(ValueError, match=match):
            ArmStyle(**kw)


# ---------------------------------------------------------------------------- function API
def test_animate_arm_writes_one_gif_frame_per_grid_time(puma, tmp_path):
    t = np.linspace(0.0, 0.5, 37)
    q = np.outer(t, SLOPE)
    anim = animate_arm(puma, t, q, show_frames=True, trail=True, fps=20, **SMALL)
    np.testing.assert_allclose(anim.times, np.arange(11) / 20, atol=1e-15)
    fig = anim.figure
    # the figure is at the last frame; another frame between two samples interpolates q
    np.testing.assert_allclose(data3d(line(fig, "links")), puma.fkine(q[-1], all=True)[:, :3, 3],
                               atol=1e-14)
    anim.show_frame(3)
    q3 = 0.15 * SLOPE
    np.testing.assert_allclose(data3d(line(fig, "links")), puma.fkine(q3, all=True)[:, :3, 3],
                               atol=1e-12)
    trail = data3d(line(fig, "trail"))  # samples before t = 0.15, then the frame's tip
    assert trail.shape == (int(np.sum(t < 0.15)) + 1, 3)
    np.testing.assert_allclose(trail[-1], puma.fkine(q3)[:3, 3], atol=1e-12)
    assert "t = 0.150 s" in fig.axes[0].get_title()
    path = anim.write(tmp_path / "arm.gif", dpi=50)
    assert len(gif_frames(path)) == 11
    assert "t = 0.500 s" in fig.axes[0].get_title()
    out = animate_arm(puma, t, q, tmp_path / "arm2.gif", frames=4, **SMALL)
    assert out == tmp_path / "arm2.gif" and len(gif_frames(out)) == 4


def test_animate_arm_input_errors(puma, tmp_path):
    t = np.linspace(0.0, 1.0, 5)
    with pytest.raises(ValueError, match=r"shape \(N, n\) = \(5, 6\)"):
        animate_arm(puma, t, np.zeros((5, 5)))
    with pytest.raises(ValueError, match="SerialLink"):
        animate_arm("puma", t, np.zeros((5, 6)))
    q = np.zeros((5, 6))
    q[2, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        animate_arm(puma, t, q)
    with pytest.raises(AnimationWriterError, match="suffix"):
        animate_arm(puma, t, np.zeros((5, 6)), tmp_path / "a.avi", frames=2, **SMALL)


def test_mp4_through_ffmpeg(puma, tmp_path):
    # ffmpeg comes from PATH or from the test extra's imageio-ffmpeg (a real ffmpeg binary)
    t = np.linspace(0.0, 0.2, 5)
    out = animate_arm(puma, t, np.outer(t, SLOPE), tmp_path / "arm.mp4", fps=20, **SMALL)
    assert out.stat().st_size > 0
    assert out.read_bytes()[4:8] == b"ftyp"  # an MP4 container


# ---------------------------------------------------------------------------- the block
def _arm_diagram(robot, source, **kw):
    d = Diagram("d")
    src = d.add(source, name="src")
    arm = d.add(ArmPlot(robot, **kw), name="arm")
    d.connect(src, arm)
    return d


def _changed_outside(a: np.ndarray, b: np.ndarray, rows: int, tol: int = 60) -> int:
    """Pixels below the top ``rows`` rows (the title band) that differ by more than tol."""
    return int((np.abs(a - b).max(axis=-1)[rows:] > tol).sum())


def test_armplot_block_through_simulate(puma, tmp_path):
    moving = _arm_diagram(puma, Ramp(slope=SLOPE), filename=tmp_path / "m.gif", fps=20,
                          show_frames=True, **SMALL)
    res = simulate(moving, T=0.5)
    fig = res.figures["arm"]
    anim = fig.animation
    np.testing.assert_allclose(anim.times, np.arange(11) / 20, atol=1e-15)
    frames = gif_frames(tmp_path / "m.gif")
    assert len(frames) == 11
    # the figure was left at the last frame, a recorded sample: links = fkine(all) origins
    q = res["arm.q"]
    assert res.t[-1] == 0.5
    np.testing.assert_allclose(data3d(line(fig, "links")), puma.fkine(q[-1], all=True)[:, :3, 3],
                               atol=1e-14)
    k = int(np.flatnonzero(np.isclose(res.t, 0.2))[0])  # frame 4 falls on a recorded sample
    anim.show_frame(4)
    np.testing.assert_allclose(data3d(line(fig, "links")), puma.fkine(q[k], all=True)[:, :3, 3],
                               atol=1e-12)
    assert len(line(fig, "frame-z").get_data_3d()[0]) == 3 * 7

    still = _arm_diagram(puma, Constant(puma.qn), filename=tmp_path / "s.gif", fps=20,
                         **SMALL)
    res2 = simulate(still, T=0.5)
    fig2 = res2.figures["arm"]
    still_frames = gif_frames(tmp_path / "s.gif")
    assert len(still_frames) == 11  # the time stamp differs, so Pillow keeps every frame
    title = fig2.axes[0].title.get_window_extent(fig2.canvas.get_renderer())
    rows = int(np.ceil(still_frames[0].shape[0] - title.y0 * 50 / fig2.dpi)) + 1
    moved = _changed_outside(frames[0], frames[-1], rows)
    stayed = _changed_outside(still_frames[0], still_frames[-1], rows)
    assert moved > 300 and stayed < 10, (moved, stayed)
    # exactly, before GIF quantisation: a still arm changes only the title
    a = fig2.animation
    a.show_frame(0)
    first = rendered(fig2)
    a.show_frame(10)
    last = rendered(fig2)
    bbox = fig2.axes[0].title.get_window_extent(fig2.canvas.get_renderer())
    top = int(np.ceil(first.shape[0] - bbox.y0)) + 1
    assert np.array_equal(first[top:], last[top:]) and not np.array_equal(first, last)
    anim.show_frame(0)
    assert not np.array_equal(rendered(fig)[top:], frames[-1][top:])


def test_both_sinks_run_post_run_with_the_compiled_backend(puma, tmp_path):
    """One compiled diagram (one code generation) with an ArmPlot and an ImagePlane."""
    uv0 = np.array([100.0, 100.0, 500.0, 100.0])
    vel = np.array([200.0, 0.0, 0.0, 300.0])
    d = Diagram("d")
    src = d.add(Ramp(slope=SLOPE), name="src")
    arm = d.add(ArmPlot(puma, tmp_path / "c.gif", fps=10, **SMALL), name="arm")
    pts = d.add(Ramp(slope=vel, initial=uv0), name="pts")
    ip = d.add(ImagePlane((640, 480), tmp_path / "i.gif", fps=10, **SMALL), name="ip")
    d.connect(src, arm)
    d.connect(pts, ip)
    res = simulate(d, T=0.5, backend="compiled", solver="rk4", dt=0.01)
    assert res.stats["backend"] == "compiled"
    assert len(gif_frames(tmp_path / "c.gif")) == 6
    assert len(gif_frames(tmp_path / "i.gif")) == 6
    np.testing.assert_allclose(res.figures["arm"].animation.times, np.arange(6) / 10,
                               atol=1e-15)
    np.testing.assert_allclose(data3d(line(res.figures["arm"], "links")),
                               puma.fkine(0.5 * SLOPE, all=True)[:, :3, 3], atol=1e-12)
    res.figures["ip"].animation.show_frame(3)
    points = next(a for a in res.figures["ip"].axes[0].get_lines() if a.get_gid() == "points")
    np.testing.assert_allclose(points.get_data(), (uv0 + 0.3 * vel).reshape(2, 2).T,
                               rtol=1e-13)


def test_armplot_after_a_failed_run(puma, tmp_path):
    def angles(t: float) -> np.ndarray:
        if t > 0.3:
            raise RuntimeError("boom")
        return t * SLOPE

    d = Diagram("d")
    clock = d.add(Time(), name="clock")
    f = d.add(Function(angles), name="f")
    arm = d.add(ArmPlot(puma, tmp_path / "f.gif", frames=3, **SMALL), name="arm")
    d.connect(clock, f)
    d.connect(f, arm)
    with pytest.raises(SimulationError) as info:
        simulate(d, T=1.0, solver="euler", dt=0.1)
    res = info.value.result
    assert len(gif_frames(tmp_path / "f.gif")) == 3
    assert res.status == "failed" and 0.0 < res.t[-1] <= 0.3
    title = res.figures["arm"].axes[0].get_title()
    assert f"(run failed at t = {res.t[-1]:g} s)" in title and "t = 0.000" not in title


def test_armplot_parameters_and_early_errors(puma, tmp_path, monkeypatch):
    blk = ArmPlot(puma, tmp_path / "a.gif", fps=10, trail=True)
    assert [p.name for p in blk.inputs] == ["q"] and blk.inputs[0].shape == (6,)
    assert blk.outputs == () and blk.nx == 0 and blk.crossing_directions == ()
    assert blk.params["filename"] == tmp_path / "a.gif" and blk.params["fps"] == 10
    assert blk.filename == tmp_path / "a.gif"
    for kw, match in [({"filename": "a.png"}, r"'filename' must end in \.gif"),
                      ({"fps": -1}, "positive number of frames"),
                      ({"frames": 0}, "positive int"),
                      ({"view": "top"}, "elevation"),
                      ({"dpi": 0}, "dpi"),
                      ({"show": "yes"}, "show"),
                      ({"figsize": (3, -1)}, "figsize"),
                      ({"colour": "r"}, "unknown parameter 'colour'")]:
        with pytest.raises(BlockParameterError, match=match):
            ArmPlot(puma, **kw)
    with pytest.raises(BlockParameterError, match="SerialLink"):
        ArmPlot([1, 2])
    # missing directory or missing ffmpeg: the run fails before it starts
    run = types.SimpleNamespace(result=None)
    with pytest.raises(BlockParameterError, match="does not exist"):
        ArmPlot(puma, tmp_path / "nope" / "a.gif").start(run)
    monkeypatch.setattr(matplotlib.animation.writers, "is_available", lambda name: False)
    mp4 = _arm_diagram(puma, Constant(puma.qz), filename=tmp_path / "a.mp4")
    with pytest.raises(BlockParameterError, match=r"ArmPlot 'arm'.*ffmpeg.*\.gif"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        simulate(mp4, T=0.1)
    assert not (tmp_path / "a.mp4").exists()


def test_armplot_without_file_keeps_the_last_frame(puma):
    d = _arm_diagram(puma, Ramp(slope=SLOPE), filename=None, fps=10, **SMALL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "animation deleted without rendering" warning
        res = simulate(d, T=0.2, solver="euler", dt=0.05)
        fig = res.figures["arm"]
        assert not hasattr(fig, "animation")
        np.testing.assert_allclose(data3d(line(fig, "links")),
                                   puma.fkine(0.2 * SLOPE, all=True)[:, :3, 3], atol=1e-12)
        del res, fig
        import gc

        gc.collect()


def test_wrong_joint_count_fails_before_the_run(puma, tmp_path):
    d = _arm_diagram(puma, Constant([0.0, 0.0, 0.0]), filename=tmp_path / "w.gif")
    with pytest.raises(BlockParameterError, match=r"ArmPlot 'arm': input 'q' must have shape "
                       r"\(6,\).*found \(3,\)"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        simulate(d, T=0.1)
    assert not (tmp_path / "w.gif").exists()


def test_import_stays_lazy():
    code = ("import sys, blocksim.viz.arm_plot, blocksim.viz.image_plane, "
            "blocksim.blocks.sinks.animations as s; from blocksim.robotics.models import puma560; "
            "s.ArmPlot(puma560(), 'x.gif'); s.ImagePlane((640, 480), 'y.gif'); "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported eagerly'")
    subprocess.run([sys.executable, "-c", code], check=True)



def test_show_keeps_the_animation_on_a_pyplot_figure(puma):
    import matplotlib.pyplot as plt

    d = _arm_diagram(puma, Ramp(slope=SLOPE), filename=None, frames=2, show=True, **SMALL)
    res = simulate(d, T=0.1, solver="euler", dt=0.05)
    fig = res.figures["arm"]
    try:
        assert plt.fignum_exists(fig.number)  # made through pyplot, for a GUI backend
        assert isinstance(fig.animation, matplotlib.animation.FuncAnimation)
        np.testing.assert_allclose(fig.animation.times, [0.0, 0.1])
    finally:
        plt.close(fig)
