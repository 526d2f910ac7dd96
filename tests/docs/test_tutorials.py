"""The tutorials (``docs/tutorials/``) show the examples the test suite runs, never a copy.

Each tutorial page includes at least one file of ``examples/`` with the ``pymdownx.snippets``
line ``--8<-- "examples/NAME.py"`` inside a fenced Python block, so the site shows the file as
it is when it is built; every snippet path resolves from the repository's root (the
``base_path`` of ``mkdocs.yml``; ``check_paths`` makes the strict build fail too, this test
says which page). The examples themselves are run by ``tests/test_examples.py`` (every file of
``examples/``). Cheap: nothing here runs an example or builds the site.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
PAGES = sorted(p for p in TUTORIALS.glob("*.md") if p.name != "index.md")
SNIPPET = re.compile(r'^-{1,3}8<-{1,2}\s+"([^"]+)"\s*$', re.MULTILINE)


def _snippets(text: str) -> list[str]:
    return SNIPPET.findall(text)


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's tags (``!relative``, ``!ENV``, ``!!python/name:``) read as plain values."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)


def _nav_pages(nav) -> set[str]:
    out: set[str] = set()
    for item in nav:
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                out |= _nav_pages(value) if isinstance(value, list) else {value}
    return out


def test_there_are_tutorials():
    assert len(PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_each_tutorial_includes_an_example_file_that_exists(page):
    text = page.read_text()
    paths = _snippets(text)
    examples = [p for p in paths if re.fullmatch(r"examples/[a-z0-9_]+\.py", p)]
    assert examples, f"{page.name}: includes no examples/*.py"
    for path in examples:
        assert (ROOT / path).is_file(), f"{page.name}: {path} does not exist"
        # inside a fenced Python block, on a line of its own
        assert f'```python\n--8<-- "{path}"\n```' in text, f"{page.name}: {path} not fenced"


@pytest.mark.parametrize("page", sorted(TUTORIALS.glob("*.md")), ids=lambda p: p.stem)
def test_every_snippet_path_and_every_named_file_resolves(page):
    text = page.read_text()
    missing = [p for p in _snippets(text) if not (ROOT / p).is_file()]
    # the commands and files the page names: `python examples/X.py`, `diagrams/X.json`
    named = re.findall(r"\b((?:examples|diagrams)/[a-z0-9_/.-]+\.(?:py|json|urdf))", text)
    missing += [p for p in named if not (ROOT / p).is_file()]
    assert missing == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_each_tutorial_is_short_and_says_how_to_run_and_what_to_look_at(page):
    text = page.read_text()
    assert 30 <= len(text.splitlines()) <= 80, f"{page.name}: {len(text.splitlines())} lines"
    for section in ("## Run", "## What to look at", "## Try next"):
        assert section in text, f"{page.name}: no {section!r}"
    assert re.search(r"^python examples/\w+\.py", text, re.MULTILINE), page.name


def test_the_tutorials_are_in_the_nav_the_layout_and_snippets_is_configured():
    config = _config()
    nav = _nav_pages(config["nav"])
    pages = {f"tutorials/{p.name}" for p in TUTORIALS.glob("*.md")}
    assert pages - nav == set()
    layout = (ROOT / "docs" / "layout.md").read_text()
    assert [p.name for p in TUTORIALS.glob("*.md") if f"`{p.name}`" not in layout] == []
    extensions = config["markdown_extensions"]
    snippets = [e for e in extensions if isinstance(e, dict) and "pymdownx.snippets" in e]
    assert snippets and snippets[0]["pymdownx.snippets"].get("check_paths") is True
