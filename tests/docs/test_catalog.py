"""The generated block catalog's parts, without building the site: every registered type has
an example, the response plots of three representative blocks (a source, a
dynamic linear block under a step, a nonlinear block under a sine) are drawn and cached, and
the docstrings' reStructuredText becomes Markdown."""

from __future__ import annotations

import pytest

from blocksim.docs import examples, plots, rst
from blocksim.docs.catalog_pages import entries, family_of, family_page, index_page
from blocksim.engine.block import Block
from blocksim.io import register_block, unregister_block
from blocksim.io.registry import block_types


def test_every_registered_type_has_an_example():
    # that each one builds is checked by the site's build (tests/docs/test_site.py), which
    # builds them all and stops on one that does not
    for name, cls in sorted(block_types().items()):
        assert examples.example(name, cls) is not None, name
    for name in ("Subsystem", "FKine", "Function"):
        block = examples.build(name)
        assert isinstance(block, block_types()[name]) and block.name is None, name


def test_a_registered_type_without_an_example_is_reported_and_fails_the_build():
    class Needy(Block):
        """A block whose constructor needs an argument."""

        outputs = ("y",)

        def __init__(self, k: float):
            self.k = k

        def output(self, t, x, u):
            return (self.k,)

    register_block(Needy, "DocsNeedy")
    try:
        assert examples.example("DocsNeedy") is None
        with pytest.raises(LookupError, match="catalog_example"):
            examples.build("DocsNeedy")
        Needy.catalog_example = {"k": 2.0}
        assert examples.build("DocsNeedy").k == 2.0
        items = entries({"DocsNeedy"})
        assert items[0].family == "plugins" and "DocsNeedy" in family_page("plugins", items)
    finally:
        unregister_block("DocsNeedy")


@pytest.mark.parametrize("name, drive", [("Sine", "none"), ("TransferFunction", "step"),
                                         ("Saturation", "sine")])
def test_the_response_plot_is_drawn_then_read_from_the_cache(name, drive, tmp_path):
    cls = block_types()[name]
    block = examples.build(name, cls)
    p = plots.plan(family_of(cls.__module__), block)
    assert p.drive == drive and p.T > 0 and p.caption
    text = examples.example(name, cls).text
    png, hit = plots.response_png(name, text, lambda: examples.build(name, cls), p, tmp_path)
    assert png.startswith(b"\x89PNG") and len(png) > 2000 and not hit
    again, hit = plots.response_png(name, text, lambda: 1 / 0, p, tmp_path)
    assert again == png and hit
    assert len(list(tmp_path.glob(f"{name}-*.png"))) == 1


def test_blocks_without_a_meaningful_response_say_why():
    for name, family in (("Scope", "sinks"), ("VrepArm", "hardware"), ("FKine", "arm"),
                         ("StateFeedback", "control")):
        p = plots.plan(family, examples.build(name))
        assert p.drive is None and p.reason, name


def test_docstrings_become_markdown():
    doc = '''Summary line.

    .. math::

        a &= b \\\\
        c &= d

    Uses :class:`~blocksim.blocks.Gain` and ``x[0]`` [unit of u], :math:`\\dot x`::

        literal

    Parameters
    ----------
    K, L : float
        Gains [m/s].
    '''
    description, secs = rst.sections(doc)
    md = rst.markdown(description)
    assert "$$\n\\begin{aligned}" in md and "`Gain`" in md and "`x[0]`" in md
    assert "\\[unit of u\\]" in md and "$\\dot x$" in md and "```text\nliteral\n```" in md
    (item,) = rst.items(secs["Parameters"])
    assert item.names == ("K", "L") and item.kind == "float" and item.text == "Gains [m/s]."
    assert rst.described(rst.items("u0, u1, ... : float\n    Inputs."), "u3").text == "Inputs."


def test_the_index_page_names_every_type():
    items = entries()
    page = index_page(items)
    assert all(f"[{e.type}](" in page for e in items)
