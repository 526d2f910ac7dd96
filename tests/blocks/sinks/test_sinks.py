"""Tests of the sink blocks: Scope, XYGraph, Record (driven through hand-made SimResults)."""

from __future__ import annotations

import csv
import types
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.figure import Figure

from blocksim.blocks.sinks.recorders import Record, Scope, XYGraph
from blocksim.engine.block import Block
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError, BlocksimError
from blocksim.engine.record import SimResult


def place(block: Block, name: str) -> Block:
    """Name the block as a diagram does."""
    return Diagram("d").add(block, name=name)


def result_for(t, drive: dict[str, np.ndarray], status: str = "success",
               message: str = "") -> SimResult:
    """A SimResult in which input ``"blk.port"`` is driven by a source signal ``"src_k.y"``."""
    signals = {f"src{k}.y": np.asarray(v) for k, v in enumerate(drive.values())}
    aliases = {dst: f"src{k}.y" for k, dst in enumerate(drive)}
    return SimResult(np.asarray(t, dtype=float), np.zeros((len(t), 0)), signals, [], {},
                     aliases, status=status, message=message)


class EmptyResult:
    """Stand-in for the result of a run that failed before recording any point.

    (``SimResult`` itself cannot be built with zero points at the moment: its constructor
    reshapes ``x`` with ``reshape(0, -1)``, which numpy rejects.)
    """

    def __init__(self, names: list[str]):
        self.t = np.zeros(0)
        self.names = names
        self.status = "failed"
        self.message = "failed at start"
        self.figures: dict = {}

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.names:
            raise KeyError(name)
        return np.zeros(0)


def stop(block: Block, res) -> None:
    block.stop(types.SimpleNamespace(result=res))


T = np.linspace(0.0, 2.0, 41)


# ---------------------------------------------------------------------------- ports and contract
def test_port_names_follow_conventions():
    assert [p.name for p in Scope().inputs] == ["u"]
    assert [p.name for p in Scope(3).inputs] == ["u0", "u1", "u2"]
    assert [p.name for p in Record(nin=2).inputs] == ["u0", "u1"]
    assert [p.name for p in XYGraph().inputs] == ["x", "y"]
    assert [p.shape for p in XYGraph().inputs] == [(), ()]
    for blk in (Scope(2), XYGraph(), Record()):
        assert blk.outputs == ()
        assert blk.nx == 0
        assert blk.output(0.0, np.zeros(0), [1.0] * len(blk.inputs)) == ()


def test_units_go_to_ports_and_params_are_kept():
    s = Scope(2, labels=["q", "qd"], units=["rad", "rad/s"])
    assert [p.unit for p in s.inputs] == ["rad", "rad/s"]
    assert s.params["labels"] == ["q", "qd"]
    assert Scope(**s.params).labels == ["q", "qd"]


def test_stop_without_result_does_nothing():
    blk = place(Scope(), "scope")
    blk.stop(types.SimpleNamespace(result=None))


# ---------------------------------------------------------------------------- Scope
def test_scope_scalar_figure_and_png(tmp_path):
    f = tmp_path / "s.png"
    blk = place(Scope(file=f, title="sine"), "scope")
    y = np.sin(T)
    res = result_for(T, {"scope.u": y})
    blk.start(types.SimpleNamespace())
    stop(blk, res)
    fig = res.figures["scope"]
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    (line,) = fig.axes[0].get_lines()
    np.testing.assert_array_equal(line.get_xdata(), T)
    np.testing.assert_array_equal(line.get_ydata(), y)
    assert fig.axes[0].get_title() == "sine"
    assert fig.axes[0].get_xlabel() == "t [s]"
    assert f.stat().st_size > 0
    img = mpimg.imread(f)
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100


def test_scope_vector_and_multiple_inputs():
    blk = place(Scope(2, labels=["q", "tau"], units=["rad", "N.m"]), "sc")
    q = np.column_stack([np.sin(T), np.cos(T), T])
    tau = 2.0 * T
    res = result_for(T, {"sc.u0": q, "sc.u1": tau})
    stop(blk, res)
    fig = res.figures["sc"]
    assert len(fig.axes) == 2
    ax0, ax1 = fig.axes
    lines = ax0.get_lines()
    assert len(lines) == 3
    for j, line in enumerate(lines):
        np.testing.assert_array_equal(line.get_ydata(), q[:, j])
    assert [text.get_text() for text in ax0.get_legend().get_texts()] == ["q[0]", "q[1]", "q[2]"]
    assert ax0.get_ylabel() == "q [rad]"
    assert ax1.get_ylabel() == "tau [N.m]"
    assert ax1.get_legend() is None
    np.testing.assert_array_equal(ax1.get_lines()[0].get_ydata(), tau)
    assert ax0.get_shared_x_axes().joined(ax0, ax1)


def test_scope_matrix_input_one_line_per_element():
    blk = place(Scope(labels="T"), "scope")
    m = np.arange(len(T) * 4, dtype=float).reshape(len(T), 2, 2)
    res = result_for(T, {"scope.u": m})
    stop(blk, res)
    ax = res.figures["scope"].axes[0]
    assert len(ax.get_lines()) == 4
    texts = [text.get_text() for text in ax.get_legend().get_texts()]
    assert texts == ["T[0,0]", "T[0,1]", "T[1,0]", "T[1,1]"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), m[:, 0, 1])


def test_scope_stairs():
    blk = place(Scope(2, stairs=[True, False]), "scope")
    res = result_for(T, {"scope.u0": np.round(T), "scope.u1": T})
    stop(blk, res)
    a0, a1 = res.figures["scope"].axes
    assert a0.get_lines()[0].get_drawstyle() == "steps-post"
    assert a1.get_lines()[0].get_drawstyle() == "default"


def test_scope_partial_result_of_failed_run_still_plots(tmp_path):
    f = tmp_path / "partial.png"
    blk = place(Scope(file=f, title="run"), "scope")
    t = T[:5]
    res = result_for(t, {"scope.u": t ** 2}, status="failed", message="boom")
    stop(blk, res)
    ax = res.figures["scope"].axes[0]
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), t ** 2)
    assert "failed" in ax.get_title() and "0.2" in ax.get_title()
    assert f.stat().st_size > 0


def test_scope_empty_result():
    blk = place(Scope(), "scope")
    res = EmptyResult(["scope.u"])
    stop(blk, res)
    assert len(res.figures["scope"].axes[0].get_lines()) == 1


def test_scope_single_point():
    blk = place(Scope(), "scope")
    res = result_for(np.zeros(1), {"scope.u": np.ones(1)})
    stop(blk, res)
    assert res.figures["scope"].axes[0].get_lines()[0].get_ydata().tolist() == [1.0]


def test_scope_missing_directory_fails_at_start(tmp_path):
    blk = place(Scope(file=tmp_path / "nope" / "s.png"), "myscope")
    with pytest.raises(BlockParameterError, match=r"Scope 'myscope'.*'file'.*does not exist"):
        blk.start(types.SimpleNamespace())


def test_scope_write_error_after_success_raises_naming_block(tmp_path):
    blk = place(Scope(file=tmp_path / "gone" / "s.png"), "sc")
    res = result_for(T, {"sc.u": T})
    with pytest.raises(BlocksimError, match=r"Scope 'sc': cannot write"):
        stop(blk, res)
    assert "sc" in res.figures  # the figure is kept even though saving failed


def test_scope_write_error_after_failed_run_only_warns(tmp_path):
    blk = place(Scope(file=tmp_path / "gone" / "s.png"), "sc")
    res = result_for(T[:3], {"sc.u": T[:3]}, status="failed")
    with pytest.warns(RuntimeWarning, match=r"Scope 'sc'.*failed"):
        stop(blk, res)


def test_scope_missing_signal_after_failed_run_only_warns():
    blk = place(Scope(), "sc")
    res = result_for(T, {}, status="failed")
    with pytest.warns(RuntimeWarning, match="no recorded signal"):
        stop(blk, res)
    with pytest.raises(KeyError):
        stop(blk, result_for(T, {}))


def test_scope_show_does_not_hang_under_agg():
    import matplotlib.pyplot as plt

    blk = place(Scope(show=True), "scope")
    res = result_for(T, {"scope.u": T})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stop(blk, res)
    fig = res.figures["scope"]
    assert plt.fignum_exists(fig.number)
    plt.close(fig)


def test_headless_figure_not_registered_with_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    blk = place(Scope(), "scope")
    stop(blk, result_for(T, {"scope.u": T}))
    assert plt.get_fignums() == before


def test_scope_other_formats(tmp_path):
    for name in ("s.pdf", "s.svg"):
        blk = place(Scope(file=tmp_path / name, dpi=50), "scope")
        stop(blk, result_for(T, {"scope.u": T}))
        assert (tmp_path / name).stat().st_size > 0


@pytest.mark.parametrize(("kwargs", "pattern"), [
    ({"nin": 0}, r"Scope: parameter 'nin' must be a positive int.*found 0"),
    ({"nin": 1.5}, r"Scope: parameter 'nin'.*found 1.5"),
    ({"nin": True}, r"Scope: parameter 'nin'.*found True"),
    ({"nin": 2, "labels": ["a"]}, r"Scope: parameter 'labels' must be a sequence of 2 str"),
    ({"nin": 2, "labels": "a"}, r"Scope: parameter 'labels'.*found 'a'"),
    ({"labels": [3]}, r"Scope: parameter 'labels'.*found \[3\]"),
    ({"nin": 2, "units": ["m"]}, r"Scope: parameter 'units'"),
    ({"file": "out.txt"}, r"Scope: parameter 'file' must be a figure file name ending in one "
                          r"of \.png.*found 'out\.txt'"),
    ({"file": 3}, r"Scope: parameter 'file' must be a path"),
    ({"show": "yes"}, r"Scope: parameter 'show' must be True or False, found 'yes'"),
    ({"grid": 1}, r"Scope: parameter 'grid'"),
    ({"stairs": [True, False]}, r"Scope: parameter 'stairs' must be True, False or a sequence "
                                r"of 1 bools"),
    ({"stairs": "yes"}, r"Scope: parameter 'stairs'"),
    ({"title": 5}, r"Scope: parameter 'title' must be a str or None, found 5"),
    ({"figsize": (0, 3)}, r"Scope: parameter 'figsize'"),
    ({"figsize": "big"}, r"Scope: parameter 'figsize'"),
    ({"dpi": -1}, r"Scope: parameter 'dpi'"),
    ({"colour": "red"}, r"Scope: unknown parameter 'colour'"),
])
def test_scope_bad_parameters(kwargs, pattern):
    with pytest.raises(BlockParameterError, match=pattern):
        Scope(**kwargs)


# ---------------------------------------------------------------------------- XYGraph
def test_xygraph_plots_y_against_x(tmp_path):
    f = tmp_path / "xy.png"
    blk = place(XYGraph(file=f, labels=["x [m]", "y [m]"], title="circle", equal=True), "xy")
    x, y = np.cos(T), np.sin(T)
    res = result_for(T, {"xy.x": x, "xy.y": y})
    stop(blk, res)
    fig = res.figures["xy"]
    assert len(fig.axes) == 1
    line, start = fig.axes[0].get_lines()  # the path, and its start marked
    assert start.get_label() == "start" and start.get_xydata().tolist() == [[x[0], y[0]]]
    np.testing.assert_array_equal(line.get_xdata(), x)
    np.testing.assert_array_equal(line.get_ydata(), y)
    assert fig.axes[0].get_xlabel() == "x [m]" and fig.axes[0].get_ylabel() == "y [m]"
    assert mpimg.imread(f).shape[0] > 100


def test_xygraph_partial_result():
    blk = place(XYGraph(), "xy")
    res = result_for(T[:2], {"xy.x": T[:2], "xy.y": -T[:2]}, status="stopped")
    stop(blk, res)
    np.testing.assert_array_equal(res.figures["xy"].axes[0].get_lines()[0].get_ydata(), -T[:2])


@pytest.mark.parametrize(("kwargs", "pattern"), [
    ({"labels": ["x"]}, r"XYGraph: parameter 'labels' must be a sequence of 2 str"),
    ({"file": "a.npz"}, r"XYGraph: parameter 'file'.*found 'a\.npz'"),
    ({"equal": None}, r"XYGraph: parameter 'equal' must be True or False"),
    ({"nin": 2}, r"XYGraph: unknown parameter 'nin'"),
])
def test_xygraph_bad_parameters(kwargs, pattern):
    with pytest.raises(BlockParameterError, match=pattern):
        XYGraph(**kwargs)


# ---------------------------------------------------------------------------- Record
def signals_for_record():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(len(T)) * 1e-3 + np.pi
    b = rng.standard_normal((len(T), 3))
    b[3, 1] = np.nan
    b[4, 2] = -np.inf
    return a, b


def test_record_npz_round_trip(tmp_path):
    f = tmp_path / "rec.npz"
    blk = place(Record(2, file=f, labels=["a", "b"]), "rec")
    a, b = signals_for_record()
    stop(blk, result_for(T, {"rec.u0": a, "rec.u1": b}))
    with np.load(f, allow_pickle=False) as data:
        assert data.files == ["t", "a", "b"]
        np.testing.assert_array_equal(data["t"], T)
        np.testing.assert_array_equal(data["a"], a)
        np.testing.assert_array_equal(data["b"], b)


def test_record_npz_matrix_keeps_shape(tmp_path):
    f = tmp_path / "rec.npz"
    blk = place(Record(file=str(f)), "rec")
    m = np.arange(len(T) * 16, dtype=float).reshape(len(T), 4, 4) / 7
    stop(blk, result_for(T, {"rec.u": m}))
    with np.load(f) as data:
        assert data["u"].shape == (len(T), 4, 4)
        np.testing.assert_array_equal(data["u"], m)


def test_record_csv_round_trip(tmp_path):
    f = tmp_path / "rec.csv"
    blk = place(Record(2, file=f), "rec")
    a, b = signals_for_record()
    stop(blk, result_for(T, {"rec.u0": a, "rec.u1": b}))
    with open(f, newline="") as fh:
        header = next(csv.reader(fh))
    assert header == ["t", "u0", "u1[0]", "u1[1]", "u1[2]"]
    table = np.loadtxt(f, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table, np.column_stack([T, a, b]))


def test_record_csv_matrix_header_is_quoted(tmp_path):
    f = tmp_path / "rec.csv"
    blk = place(Record(file=f, labels="T"), "rec")
    m = np.arange(len(T) * 4, dtype=float).reshape(len(T), 2, 2)
    stop(blk, result_for(T, {"rec.u": m}))
    with open(f, newline="") as fh:
        header = next(csv.reader(fh))
    assert header == ["t", "T[0,0]", "T[0,1]", "T[1,0]", "T[1,1]"]
    table = np.loadtxt(f, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table[:, 1:], m.reshape(len(T), 4))


def test_record_partial_and_empty(tmp_path):
    f = tmp_path / "rec.csv"
    blk = place(Record(file=f), "rec")
    stop(blk, result_for(T[:3], {"rec.u": T[:3]}, status="failed"))
    np.testing.assert_array_equal(np.loadtxt(f, delimiter=",", skiprows=1), np.c_[T[:3], T[:3]])
    stop(blk, EmptyResult(["rec.u"]))
    assert f.read_text() == "t,u\n"


def test_record_without_file_does_nothing(tmp_path):
    blk = place(Record(), "rec")
    res = result_for(T, {"rec.u": T})
    blk.start(types.SimpleNamespace())
    stop(blk, res)
    assert res.figures == {}
    assert list(tmp_path.iterdir()) == []


def test_record_missing_directory(tmp_path):
    blk = place(Record(file=tmp_path / "no" / "r.csv"), "rec")
    with pytest.raises(BlockParameterError, match=r"Record 'rec'.*does not exist"):
        blk.start(types.SimpleNamespace())
    with pytest.raises(BlocksimError, match=r"Record 'rec': cannot write"):
        stop(blk, result_for(T, {"rec.u": T}))


@pytest.mark.parametrize(("kwargs", "pattern"), [
    ({"file": "r.mat"}, r"Record: parameter 'file' must be a data file name ending in one of "
                        r"\.npz, \.csv, found 'r\.mat'"),
    ({"file": "r"}, r"Record: parameter 'file'.*found 'r'"),
    ({"nin": -1}, r"Record: parameter 'nin'"),
    ({"nin": 2, "labels": ["a", "a"]}, r"Record: parameter 'labels' must be unique names"),
    ({"labels": "t"}, r"Record: parameter 'labels'.*other than 't'"),
    ({"labels": [""]}, r"Record: parameter 'labels'"),
])
def test_record_bad_parameters(kwargs, pattern):
    with pytest.raises(BlockParameterError, match=pattern):
        Record(**kwargs)


def test_record_suffix_is_case_insensitive(tmp_path):
    f = tmp_path / "R.NPZ"
    blk = place(Record(file=f), "rec")
    stop(blk, result_for(T, {"rec.u": T}))
    with np.load(f) as data:
        np.testing.assert_array_equal(data["u"], T)


# ---------------------------------------------------------------------------- through simulate()
def test_sine_to_scope_through_simulate(tmp_path):
    from blocksim import simulate
    from blocksim.blocks import Sine

    d = Diagram("d")
    src = d.add(Sine(frequency=1.0), name="src")
    scope = d.add(Scope(file=tmp_path / "s.png"), name="scope")
    d.connect(src, scope)
    res = simulate(d, T=1.0)
    assert (tmp_path / "s.png").stat().st_size > 0
    line = res.figures["scope"].axes[0].get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), res.t)
    np.testing.assert_array_equal(line.get_ydata(), res["scope.u"])


def test_failed_run_still_plots_and_records_through_simulate(tmp_path):
    from blocksim import SimulationError, simulate
    from blocksim.blocks import Function, Time

    def blow_up(t: float) -> float:
        if t > 0.5:
            raise RuntimeError("boom")
        return t

    d = Diagram("d")
    clock = d.add(Time(), name="clock")
    f = d.add(Function(blow_up), name="f")
    scope = d.add(Scope(file=tmp_path / "s.png"), name="scope")
    rec = d.add(Record(file=tmp_path / "r.csv"), name="rec")
    d.connect(clock, f)
    d.connect(f, scope, rec)
    with pytest.raises(SimulationError) as info:
        simulate(d, T=1.0, solver="euler", dt=0.1)
    res = info.value.result
    assert res.status == "failed" and res.t[-1] <= 0.5 + 1e-12
    assert "failed" in res.figures["scope"].axes[0].get_title()
    assert (tmp_path / "s.png").stat().st_size > 0
    table = np.loadtxt(tmp_path / "r.csv", delimiter=",", skiprows=1, ndmin=2)
    np.testing.assert_array_equal(table[:, 1], res["rec.u"])


def test_missing_directory_fails_before_the_run_through_simulate(tmp_path):
    from blocksim import simulate
    from blocksim.blocks import Sine

    d = Diagram("d")
    src = d.add(Sine(), name="src")
    scope = d.add(Scope(file=tmp_path / "missing" / "s.png"), name="scope")
    d.connect(src, scope)
    with pytest.raises(BlockParameterError, match=r"Scope 'scope'.*does not exist"), \
            pytest.warns(RuntimeWarning, match="could not complete after the run was failed"):
        simulate(d, T=1.0)


def test_scope_names_the_elements_of_a_vector_input_and_keeps_legends_off_the_curves():
    import matplotlib

    matplotlib.use("Agg")
    from blocksim import Diagram, simulate
    from blocksim.blocks import Constant, Scope

    d = Diagram("named")
    c = d.add(Constant([1.0, 2.0, 3.0]), name="p")
    many = d.add(Constant(list(range(40))), name="m")
    d.add(Scope(2, labels=["position", "map"], elements=[["x", "y", "z"], None]),
              name="s")
    d.connect(c, "s.u0")
    d.connect(many, "s.u1")
    fig = simulate(d, 0.1).figures["s"]
    ax0, ax1 = fig.axes
    assert [t.get_text() for t in ax0.get_legend().get_texts()] == ["x", "y", "z"]
    assert ax0.get_legend().get_bbox_to_anchor().x0 > 0  # outside the axes, on the right
    assert ax1.get_legend() is None and "(40 elements)" in ax1.get_ylabel()
    with pytest.raises(BlockParameterError, match="elements"):
        Scope(1, elements=[["x", "y"], ["z"]])


def test_xygraph_marks_the_start_the_goal_and_a_reference_line():
    from pathlib import Path

    from blocksim import simulate
    from blocksim.io import load

    root = Path(__file__).parents[3] / "diagrams"
    fig = simulate(load(root / "drive_to_pose.json").diagram, 5.0).figures["path"]
    ax = fig.axes[0]
    by_label = {ln.get_label(): ln for ln in ax.get_lines()}
    assert by_label["goal"].get_xydata().tolist() == [[5.0, 5.0]]
    assert by_label["start"].get_xydata()[0].tolist() == [1.0, 1.0]
    assert len(ax.texts) == 1  # the goal's heading arrow
    fig = simulate(load(root / "drive_along_line.json").diagram, 5.0).figures["path"]
    (xs, ys), = [ln.get_data() for ln in fig.axes[0].get_lines() if ln.get_label() == "line"]
    np.testing.assert_allclose(np.asarray(xs) - 2 * np.asarray(ys) + 4, 0, atol=1e-12)
    with pytest.raises(BlockParameterError, match="marks"):
        XYGraph(marks=[[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(BlockParameterError, match="line"):
        XYGraph(line=(0, 0, 1))
