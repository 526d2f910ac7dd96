"""Diagram drawings: every shipped diagram as PNG and SVG; columns follow feedthrough."""

from pathlib import Path

import networkx as nx
import pytest

from blocksim import Diagram
from blocksim.blocks import Gain, Integrator, Step, Sum
from blocksim.engine.subsystem import Inport, Outport
from blocksim.io import load
from blocksim.viz.draw import BOX_WIDTH, diagram_layout, draw_diagram

DIAGRAMS = sorted((Path(__file__).resolve().parents[2] / "diagrams").glob("*.json"))


@pytest.mark.parametrize("path", DIAGRAMS, ids=lambda p: p.stem)
def test_every_diagram_draws_as_png_and_svg(path, tmp_path):
    d = load(path).diagram
    png, svg = tmp_path / "d.png", tmp_path / "d.svg"
    fig = draw_diagram(d, png, dpi=60)
    draw_diagram(d, svg)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    text = svg.read_text()
    assert text.startswith("<?xml") and "<svg" in text
    names = {t.get_text() for t in fig.axes[0].texts}
    assert set(d.blocks) <= names  # every block is labelled


@pytest.mark.parametrize("path", DIAGRAMS, ids=lambda p: p.stem)
def test_a_block_stands_right_of_its_feedthrough_predecessors(path):
    lay = diagram_layout(load(path).diagram)
    ft = [e for e in lay.edges if e.feedthrough]
    assert ft
    # block level, feedthrough wires can form a cycle that ports do not (a motor's torque output
    # reads its command, its rate output does not; the PI's command reads the rate): one wire of
    # such a cycle has to run right to left
    blocks = nx.DiGraph((e.src, e.dst) for e in ft if e.src != e.dst)
    cyclic = {(e.src, e.dst) for e in ft if e.src != e.dst and nx.has_path(blocks, e.dst, e.src)}
    for e in ft:
        if (e.src, e.dst) in cyclic:
            continue
        assert lay.rank[e.dst] > lay.rank[e.src], e
        assert lay.boxes[e.dst][0] >= lay.boxes[e.src][0] + BOX_WIDTH
    # only wires into non-feedthrough inputs (or closing such a cycle) may run right to left
    assert all(not e.feedthrough or (e.src, e.dst) in cyclic for e in lay.edges if e.feedback)
    # boxes of one column do not overlap
    for a, ba in lay.boxes.items():
        for b, bb in lay.boxes.items():
            if a < b and ba[0] == bb[0]:
                assert ba[1] >= bb[1] + bb[3] or bb[1] >= ba[1] + ba[3]


def test_a_subsystem_is_framed_and_its_blocks_flattened(tmp_path):
    inner = Diagram("ctrl")
    e, k, u = inner.add(Inport(), name="e"), inner.add(Gain(2.0), name="k"), \
        inner.add(Outport(), name="u")
    inner.connect(e, k)
    inner.connect(k, u)
    d = Diagram("outer")
    ref, err = d.add(Step(), name="ref"), d.add(Sum("+-"), name="err")
    c, x = d.add(inner, name="c"), d.add(Integrator(), name="x")
    d.connect(ref, err["u0"])
    d.connect(err, c)
    d.connect(c, x)
    d.connect(x, err["u1"])
    lay = diagram_layout(d)
    assert [lay.rank[n] for n in ("err", "c/e", "c/k", "c/u")] == sorted(
        lay.rank[n] for n in ("err", "c/e", "c/k", "c/u"))
    fig = draw_diagram(d, tmp_path / "s.png")
    assert "c" in {t.get_text() for t in fig.axes[0].texts}  # the frame's label
    assert (tmp_path / "s.png").stat().st_size > 5000
