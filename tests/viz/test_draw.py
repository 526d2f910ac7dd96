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


def _segments(line):
    xs, ys = line.get_data()
    return list(zip(zip(xs[:-1], ys[:-1]), zip(xs[1:], ys[1:])))


def _overlap(a, b, tol=1e-6):
    """Length of the collinear overlap of two axis-parallel segments (0 when none)."""
    (ax0, ay0), (ax1, ay1) = a
    (bx0, by0), (bx1, by1) = b
    if abs(ay0 - ay1) < tol and abs(by0 - by1) < tol and abs(ay0 - by0) < tol:
        lo, hi = max(min(ax0, ax1), min(bx0, bx1)), min(max(ax0, ax1), max(bx0, bx1))
        return max(0.0, hi - lo)
    if abs(ax0 - ax1) < tol and abs(bx0 - bx1) < tol and abs(ax0 - bx0) < tol:
        lo, hi = max(min(ay0, ay1), min(by0, by1)), min(max(ay0, ay1), max(by0, by1))
        return max(0.0, hi - lo)
    return 0.0


@pytest.mark.parametrize("path", DIAGRAMS, ids=lambda p: p.stem)
def test_wires_of_different_signals_never_share_a_segment(path):
    """Each wire is a line labelled "src.port -> dst.port"; wires of one signal may share
    their trunk, wires of different signals may cross but never run along each other."""
    fig = draw_diagram(load(path).diagram)
    wires = [ln for ln in fig.axes[0].lines if " -> " in str(ln.get_label())]
    assert wires
    segs = [(str(ln.get_label()).split(" -> ")[0], s) for ln in wires for s in _segments(ln)]
    shared = [(sa, sb, a, b) for i, (sa, a) in enumerate(segs) for sb, b in segs[i + 1:]
              if sa != sb and _overlap(a, b) > 1e-6]
    assert not shared, shared[:3]


def test_the_puma_drawing_gives_each_output_of_a_block_its_own_trunk():
    fig = draw_diagram(load(DIAGRAMS[0].parent / "puma_computed_torque.json").diagram)
    lines = {str(ln.get_label()): ln for ln in fig.axes[0].lines}
    q, qd = lines["plant.q -> ctrl.q"], lines["plant.qd -> ctrl.qd"]
    # both climb to a channel over the top: different lanes and channels
    assert not any(_overlap(a, b) for a in _segments(q) for b in _segments(qd))
    assert max(q.get_ydata()) != max(qd.get_ydata())


def test_each_sum_input_shows_its_sign_next_to_its_port():
    d = Diagram("signs")
    a, b, c = (d.add(Step(), name=n) for n in ("a", "b", "c"))
    s = d.add(Sum("+-+"), name="s")
    d.add(Gain(1.0), name="g")
    for k, src in enumerate((a, b, c)):
        d.connect(src, s[f"u{k}"])
    d.connect(s, "g")
    fig = draw_diagram(d)
    ax = fig.axes[0]
    texts = {t.get_gid(): t for t in ax.texts if t.get_gid()}
    signs = [texts[f"sign s.u{k}"] for k in range(3)]
    assert [t.get_text() for t in signs] == ["+", "\u2212", "+"]
    ports = {t.get_text(): t for t in ax.texts if t.get_text() in ("u0", "u1", "u2")}
    x, _, w, _ = diagram_layout(d).boxes["s"]
    for k, t in enumerate(signs):  # beside its port's label, inside the box, at its height
        assert t.get_position()[1] == pytest.approx(ports[f"u{k}"].get_position()[1])
        assert x < t.get_position()[0] < x + w / 2
    assert not any(str(t.get_gid()).startswith("sign g.") for t in ax.texts)  # a Gain: none


def test_puma_sums_show_plus_and_minus():
    fig = draw_diagram(load(DIAGRAMS[0].parent / "puma_computed_torque.json").diagram)
    signs = {t.get_gid(): t.get_text() for t in fig.axes[0].texts
             if str(t.get_gid()).startswith("sign ")}
    assert signs == {"sign e.u0": "+", "sign e.u1": "\u2212", "sign ed.u0": "+",
                     "sign ed.u1": "\u2212", "sign v.u0": "+", "sign v.u1": "+",
                     "sign v.u2": "+"}
