"""The multirotor animation: geometry of the drawing, files written headless, the sink."""

import numpy as np
import pytest
from PIL import Image

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.quadrotor import MultiRotor, MultiRotorPlot
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.aerial import mdl_hexarotor, mdl_quadrotor, rpy_to_rotation_nb
from blocksim.viz.multirotor_plot import (
    animate_multirotor,
    build_multirotor_animation,
    multirotor_outline,
)


def flight(n=30):
    t = np.linspace(0.0, 3.0, n)
    x = np.zeros((n, 12))
    x[:, 0] = np.cos(t)
    x[:, 1] = np.sin(t)
    x[:, 2] = -1.0 - 0.2 * t
    x[:, 5] = 0.5 * t  # yaw
    x[:, 3] = 0.1
    return t, x


def test_outline_puts_hubs_and_discs_where_the_pose_says():
    m = mdl_hexarotor()
    x = np.array([1.0, 2.0, -3.0, 0.2, -0.1, 0.7, 0, 0, 0, 0, 0, 0])
    hubs, discs = multirotor_outline(m, x)
    R = rpy_to_rotation_nb(0.2, -0.1, 0.7)
    np.testing.assert_allclose(hubs, (R @ m.D).T + x[:3], atol=1e-15)
    assert discs.shape[0] == 6
    # each disc is a circle of the rotor radius around its hub, in the rotor plane
    for i in range(6):
        np.testing.assert_allclose(np.linalg.norm(discs[i] - hubs[i], axis=1), m.r, rtol=1e-12)
        np.testing.assert_allclose((discs[i] - hubs[i]) @ R[:, 2], 0.0, atol=1e-15)


@pytest.mark.parametrize("model", [mdl_quadrotor(), mdl_hexarotor()], ids=lambda m: m.name)
def test_figure_draws_one_arm_and_one_disc_per_rotor_altitude_up(model):
    t, x = flight()
    anim = build_multirotor_animation(model, t, x, frames=4)
    artists = anim.show_frame(3)
    n = model.nrotors
    arms, discs, path = artists[:n], artists[n : 2 * n], artists[2 * n]
    assert len(artists) == 2 * n + 2
    hubs, rings = multirotor_outline(model, x[-1])
    for i in range(n):
        xs, ys, zs = arms[i].get_data_3d()
        np.testing.assert_allclose([xs[1], ys[1], zs[1]], hubs[i] * [1, -1, -1], atol=1e-12)
        dx, dy, dz = discs[i].get_data_3d()
        np.testing.assert_allclose(np.c_[dx, dy, dz], rings[i] * [1, -1, -1], atol=1e-12)
    colours = {d.get_color() for d in discs}
    assert colours == {"tab:red", "tab:blue"}  # the two spin directions
    px, py, pz = path.get_data_3d()
    # the trail ends at the vehicle, altitude up
    np.testing.assert_allclose([px[-1], py[-1], pz[-1]], x[-1, :3] * [1, -1, -1], atol=1e-12)
    assert "t = 3.000 s" in anim.figure.axes[0].get_title()


def test_gif_and_mp4_are_written_headless(tmp_path):
    t, x = flight()
    gif = animate_multirotor("quadrotor", t, x, tmp_path / "q.gif", frames=3, dpi=40)
    with Image.open(gif) as im:
        assert im.n_frames == 3
    mp4 = animate_multirotor("hexarotor", t, x, tmp_path / "h.mp4", frames=3, dpi=40)
    assert mp4.stat().st_size > 0


def test_bad_input_is_named():
    t, x = flight()
    with pytest.raises(ValueError, match=r"x must have shape \(30, 12\)"):
        build_multirotor_animation("quadrotor", t, x[:, :6])
    with pytest.raises(ValueError, match="workspace must be"):
        build_multirotor_animation("quadrotor", t, x, workspace=[0, 1, 0, 1, 1, 0])
    with pytest.raises(BlockParameterError, match="MultiRotorPlot: parameter 'filename'"):
        MultiRotorPlot(filename="q.png")
    with pytest.raises(BlockParameterError, match="MultiRotorPlot: parameter 'scale'"):
        MultiRotorPlot(scale=0)


def test_sink_animates_a_run_after_it(tmp_path):
    q = mdl_quadrotor()
    d = Diagram("plot")
    quad = d.add(MultiRotor(x0=[0.0, 0.0, -1.0]), name="quad")
    w = d.add(Constant(list(q.spin * q.hover_speed() * 1.01)), name="w")
    plot = d.add(MultiRotorPlot(filename=tmp_path / "climb.gif", frames=2, dpi=40), name="plot")
    d.connect(w, quad)
    d.connect(quad["x"], plot)
    res = simulate(d, 0.5)
    assert (tmp_path / "climb.gif").stat().st_size > 0
    fig = res.figures["plot"]
    assert len(fig.animation.times) == 2
