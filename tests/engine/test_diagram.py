"""Building diagrams: naming, connecting, reference forms."""

import pytest

from blocksim import Diagram, DiagramError, simulate
from blocksim.blocks import Constant, Gain, Sum


def test_auto_names_are_unique_and_readable():
    d = Diagram("d")
    g1, g2 = d.add(Gain(1.0)), d.add(Gain(2.0))
    assert (g1.name, g2.name) == ("gain1", "gain2")
    assert d["gain2"] is g2 and "gain1" in d


def test_duplicate_and_invalid_names_are_rejected():
    d = Diagram("d")
    d.add(Gain(1.0), name="g")
    with pytest.raises(DiagramError, match="a block named 'g' already exists"):
        d.add(Gain(2.0), name="g")
    with pytest.raises(DiagramError, match=r"block name 'a\.b' is not valid"):
        d.add(Gain(2.0), name="a.b")


def test_a_block_cannot_be_added_twice_and_only_blocks_can_be_added():
    d = Diagram("d")
    g = d.add(Gain(1.0), name="g")
    with pytest.raises(DiagramError, match="already in a diagram"):
        Diagram("other").add(g)
    with pytest.raises(DiagramError, match="expects a Block instance"):
        d.add("gain")


def test_lookup_suggests_the_nearest_name():
    d = Diagram("d")
    d.add(Gain(1.0), name="gain")
    with pytest.raises(KeyError, match="did you mean 'gain'"):
        d["gian"]


def test_every_end_form_connects_and_one_output_feeds_many():
    d = Diagram("forms")
    c = d.add(Constant(2.0), name="c")
    g1 = d.add(Gain(3.0), name="g1")
    g2 = d.add(Gain(5.0), name="g2")
    s = d.add(Sum("+++"), name="s")
    d.connect(c, g1)                   # block with one port
    d.connect(c["y"], g2["u"])         # by port name
    d.connect(g1[0], s[0])             # by index
    d.connect("g2.y", "s.u1")          # by string
    d.connect("c", "s.u2")             # string naming a one-port block
    res = simulate(d, 1.0)
    assert res["s.y"][-1] == pytest.approx(2 * 3 + 2 * 5 + 2)


def test_connect_without_destination_is_an_error():
    d = Diagram("d")
    c = d.add(Constant(1.0))
    with pytest.raises(DiagramError, match="needs at least one destination"):
        d.connect(c)
