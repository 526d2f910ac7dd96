"""EstimationPlot: the estimator's figure in result.figures (and a file) after a run."""

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks.vehicle import EstimationPlot, add_ekf_rig
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.mobile import LandmarkMap, wrap_angle

V = (0.02**2, np.deg2rad(0.5) ** 2)
W = (0.1**2, np.deg2rad(1.0) ** 2)
P0 = (0.005**2, 0.005**2, np.deg2rad(0.1) ** 2)


def _run(mode, tmp_path=None, T=5.0):
    d = Diagram(f"ekf_{mode}")
    add_ekf_rig(d, mode, V, W, P0, 6)
    file = None if tmp_path is None else tmp_path / "est.png"
    d.add(EstimationPlot(6, title="run", file=file, every=10), name="est")
    d.connect("veh.pose", "est.pose")
    d.connect("ekf.x", "est.x")
    d.connect("ekf.P", "est.P")
    return simulate(d, T)


def _lines(ax):
    return {str(ln.get_label()): ln for ln in ax.lines}


def test_slam_figure_has_the_error_bounds_and_the_map(tmp_path):
    res = _run("slam", tmp_path)
    assert (tmp_path / "est.png").stat().st_size > 5000
    fig = res.figures["est"]
    map_ax, *err_axes = fig.axes
    assert len(err_axes) == 3
    e = res["ekf.x"][:, :3] - res["veh.pose"]
    e[:, 2] = wrap_angle(e[:, 2])
    sig = np.sqrt(np.diagonal(res["ekf.P"], axis1=1, axis2=2))[:, :3]
    for k, ax in enumerate(err_axes):
        np.testing.assert_allclose(_lines(ax)["error"].get_ydata(), e[:, k])
        np.testing.assert_allclose(_lines(ax)["\u00b13\u03c3"].get_ydata(), 3 * sig[:, k])
    lines = _lines(map_ax)
    np.testing.assert_allclose(np.column_stack(lines["landmarks"].get_data()),
                               LandmarkMap(6, 10.0, seed=0).landmarks)
    seen = np.diagonal(res["ekf.P"][-1])[3::2] > 0
    assert seen.any()
    est = np.column_stack(lines["estimated landmarks"].get_data())
    np.testing.assert_allclose(est, res["ekf.x"][-1][3:].reshape(-1, 2)[seen])
    assert "landmark 3\u03c3" in lines and "true path" in lines and "estimated path" in lines
    assert fig.get_suptitle() == "run"


def test_mapping_figure_is_the_map():
    res = _run("mapping")
    (ax,) = res.figures["est"].axes
    assert "estimated landmarks" in _lines(ax) and "estimated path" not in _lines(ax)


def test_bad_parameters_and_inputs_name_the_block():
    with pytest.raises(BlockParameterError, match="EstimationPlot: parameter 'nsigma'"):
        EstimationPlot(nsigma=0)
    with pytest.raises(BlockParameterError, match="parameter 'every'"):
        EstimationPlot(every=-1)
    with pytest.raises(BlockParameterError, match="parameter 'file'"):
        EstimationPlot(file="a.gif")
    d = Diagram("bad")
    add_ekf_rig(d, "localisation", V, W, P0, 6)
    d.add(EstimationPlot(), name="est")
    d.connect("veh.pose", "est.pose")
    d.connect("ekf.x", "est.x")
    d.connect("veh.odo", "est.P")  # (2,) for a 3-state estimate
    with pytest.raises(BlockParameterError,
                       match=r"'est': inputs must be .*found \(3,\), \(3,\) and \(2,\)"):
        simulate(d, 0.3)  # refused before the run
