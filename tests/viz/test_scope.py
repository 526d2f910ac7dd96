"""Tests of the pure plotting functions in blocksim.viz.scope."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.figure import Figure

from blocksim.viz import (
    element_labels,
    new_figure,
    plot_scope,
    plot_xy,
    save_figure,
)

T = np.linspace(0.0, 1.0, 11)


def test_element_labels():
    assert element_labels("q", ()) == ["q"]
    assert element_labels("q", (3,)) == ["q[0]", "q[1]", "q[2]"]
    assert element_labels("T", (2, 2)) == ["T[0,0]", "T[0,1]", "T[1,0]", "T[1,1]"]
    assert element_labels("v", (0,)) == []


def test_import_is_lazy():
    code = ("import sys, blocksim.viz, blocksim.blocks.sinks.recorders; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported eagerly'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_plot_scope_layout_and_data():
    q = np.column_stack([T, -T])
    fig = plot_scope(T, [T ** 2, q], ["a", "q"], ["m", "rad"], title="hello")
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    top, bottom = fig.axes
    assert top.get_title() == "hello"
    assert bottom.get_xlabel() == "t [s]" and top.get_xlabel() == ""
    assert top.get_ylabel() == "a [m]" and bottom.get_ylabel() == "q [rad]"
    np.testing.assert_array_equal(top.get_lines()[0].get_ydata(), T ** 2)
    assert len(bottom.get_lines()) == 2
    np.testing.assert_array_equal(bottom.get_lines()[1].get_ydata(), -T)
    assert bottom.get_xlim() == (0.0, 1.0)
    # the figure grows with the number of axes
    assert plot_scope(T, [T] * 3).get_size_inches()[1] > fig.get_size_inches()[1]


def test_plot_scope_default_labels_and_single_unit():
    fig = plot_scope(T, [T, T], units="V")
    assert [ax.get_ylabel() for ax in fig.axes] == ["u0 [V]", "u1 [V]"]
    assert plot_scope(T, [T]).axes[0].get_ylabel() == "u"


def test_plot_scope_no_grid_and_stairs():
    fig = plot_scope(T, [T], grid=False, stairs=True)
    ax = fig.axes[0]
    assert not any(line.get_visible() for line in ax.xaxis.get_gridlines())
    assert ax.get_lines()[0].get_drawstyle() == "steps-post"


def test_plot_scope_into_given_figure():
    fig = new_figure((4.0, 3.0))
    assert plot_scope(T, [T], fig=fig) is fig
    assert tuple(fig.get_size_inches()) == (4.0, 3.0)


def test_plot_scope_errors():
    with pytest.raises(ValueError, match="no signals"):
        plot_scope(T, [])
    with pytest.raises(ValueError, match=r"signal 'u'.*expected 11 samples.*found shape \(5,\)"):
        plot_scope(T, [np.zeros(5)])
    with pytest.raises(ValueError, match="labels: expected 2 values"):
        plot_scope(T, [T, T], labels=["a"])


def test_plot_xy_and_save(tmp_path):
    fig = plot_xy(np.cos(T), np.sin(T), xlabel="x [m]", ylabel="y [m]", title="arc",
                  equal=True)
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), np.cos(T))
    assert ax.get_title() == "arc"
    path = save_figure(fig, tmp_path / "xy.png", dpi=40)
    assert mpimg.imread(path).shape[:2] == (200, 240)  # 5 x 6 inch at 40 dpi


def test_plot_xy_length_mismatch():
    with pytest.raises(ValueError, match="same number of samples, found 11 and 3"):
        plot_xy(T, T[:3])


def test_save_into_missing_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        save_figure(plot_xy(T, T), tmp_path / "missing" / "f.png")
