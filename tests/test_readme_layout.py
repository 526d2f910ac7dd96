"""The project's layout table (``docs/layout.md``, moved there from the README, which links to
it) stays true to the tree: it names every package folder (each subpackage in its parent's
row), every command of the ``blocksim`` CLI and every document of ``docs/``, and every path it
names exists."""

import argparse
import re
from pathlib import Path

from blocksim.cli import parser

ROOT = Path(__file__).resolve().parents[1]


def _layout() -> dict[str, str]:
    """``{path: what}`` of the "Layout" table of docs/layout.md."""
    text = (ROOT / "docs" / "layout.md").read_text()
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\| `([^`]+)` \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def _named(text: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", text))


def test_every_package_folder_is_in_the_layout():
    rows = _layout()
    missing = []
    for init in sorted((ROOT / "blocksim").rglob("__init__.py")):
        parts = init.parent.relative_to(ROOT).parts
        if len(parts) == 2:  # blocksim/x: a row of its own
            if f"{parts[0]}/{parts[1]}/" not in rows:
                missing.append(f"{parts[0]}/{parts[1]}/ (a row)")
        elif len(parts) == 3:  # blocksim/x/y: named in blocksim/x's row
            row = rows.get(f"{parts[0]}/{parts[1]}/", "")
            if f"{parts[2]}/" not in _named(row):
                missing.append(f"{'/'.join(parts)}/ (in the row of {parts[0]}/{parts[1]}/)")
    assert missing == []


def test_every_cli_command_is_in_the_layout():
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    commands = set(sub.choices)
    assert {"run", "sweep", "hw"} <= commands
    assert commands - _named(_layout()["blocksim/cli/"]) == set()


def test_every_document_is_in_the_layout_and_every_path_exists():
    rows = _layout()
    docs = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert docs - _named(rows["docs/"]) == set()
    assert [p for p in rows if not (ROOT / p).exists()] == []


def test_the_readme_links_the_layout_page():
    assert "docs/layout.md" in (ROOT / "README.md").read_text()
