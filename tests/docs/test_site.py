"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing page,
a block without an example or a docstring mkdocstrings cannot read fails it), and its block
catalog has every registered block type with its ports and parameters.

The build runs once per test session (a module fixture), as the command a user runs, with the
response plots switched off (``BLOCKSIM_DOCS_PLOTS=0``: the plots are tested on their own in
``test_catalog.py``) so that it takes seconds.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blocksim.docs import examples
from blocksim.docs.bench import scripts
from blocksim.docs.catalog_pages import family_of
from blocksim.io.catalog import describe
from blocksim.io.registry import block_types

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "BLOCKSIM_DOCS_PLOTS": "0", "NO_MKDOCS_2_WARNING": "1"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(ROOT / "mkdocs.yml"), "-d", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    print(f"mkdocs build --strict: {seconds:.1f} s")
    return out


def _section(page: str, type_name: str) -> str:
    """The HTML of one block's section of a family page."""
    m = re.search(rf'<h2 id="{type_name.lower()}"', page)
    assert m, f"{type_name}: no section"
    end = page.find("<h2 ", m.end())
    return page[m.start():end if end >= 0 else len(page)]


def test_every_block_type_is_in_the_catalog_with_its_ports_parameters_and_example(site):
    pages: dict[str, str] = {}
    missing = []
    for name, cls in sorted(block_types().items()):
        family = family_of(cls.__module__)
        if family not in pages:
            pages[family] = html.unescape((site / "catalog" / family / "index.html").read_text())
        section = _section(pages[family], name)
        block = examples.build(name, cls)
        ports = [p.name for p in (*block.inputs, *block.outputs)]
        params = [p["name"] for p in describe(name, cls)["parameters"]]
        for word in ports + params:
            if f"<code>{word}</code>" not in section:
                missing.append(f"{name}: {word}")
        for needed in ("Example", "Sample time", "Feedthrough", "Back-ends", "Response"):
            if needed not in section:
                missing.append(f"{name}: {needed}")
        text = re.sub(r"<[^>]+>", "", section)
        if f'"type": "{name}"' not in text and f"block = {name}(" not in text:
            missing.append(f"{name}: its example")
    assert missing == []


def test_the_catalog_index_links_every_family_and_the_api_pages_are_built(site):
    index = (site / "catalog" / "index.html").read_text()
    for cls in block_types().values():
        assert f"{family_of(cls.__module__)}/" in index
    core = html.unescape((site / "api" / "core" / "index.html").read_text())
    for name in ("Diagram", "simulate", "SimResult", "RunConfig"):
        assert f'id="blocksim.{name}"' in core, name
    io = (site / "api" / "io" / "index.html").read_text()
    assert 'id="blocksim.io.load.load"' in io and 'id="blocksim.io.save.save"' in io
    assert 'id="blocksim.analysis.linearize.linearize"' in \
        (site / "api" / "analysis" / "index.html").read_text()
    assert 'id="blocksim.Block"' in (site / "api" / "block" / "index.html").read_text()


def test_the_benchmarks_page_has_every_script(site):
    page = (site / "benchmarks" / "index.html").read_text()
    for path in scripts():
        assert f'id="{path.stem}"' in page, path.stem
