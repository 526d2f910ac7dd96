"""Every code block of docs/getting-started.md runs, in order, in an empty folder.

The python blocks run as one module (as docs/writing-blocks.md's: tests/test_docs.py); the
json block is the ``loop.json`` the page tells the reader to save; each line of the bash
blocks runs as the reader would run it, except the ``pip install`` lines (the extras they
name must be in pyproject.toml) and ``blocksim
edit``, a server that runs until Ctrl-C (its command line is parsed by the CLI's parser).
"""

from __future__ import annotations

import importlib
import re
import shlex
import sys
from pathlib import Path

from blocksim.cli import main as cli_main
from blocksim.cli import parser

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "getting-started.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def fences(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(DOC.read_text()) if lang == kind]


def test_the_page_covers_the_six_steps():
    text = DOC.read_text()
    for head in ("Install", "in Python", "JSON file", "command line", "compiled back-end",
                 "editor"):
        assert re.search(rf"^## \d\. .*{head}", text, re.MULTILINE | re.IGNORECASE), head
    assert len(fences("json")) == 1 and len(fences("python")) >= 4


def test_the_code_blocks_of_getting_started_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.json").write_text(fences("json")[0])
    source = "\n\n".join(fences("python"))
    name = "getting_started_guide"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module(name)
    finally:
        sys.modules.pop(name, None)
    assert module.f.diagram.name == "loop"
    assert "is not connected" in capsys.readouterr().out

    optional = (ROOT / "pyproject.toml").read_text().split(
        "[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = set(re.findall(r"^([\w-]+) = \[", optional, re.MULTILINE))
    assert {"test", "editor", "analysis", "docs"} <= extras
    ran = 0
    for block in fences("bash"):
        for line in block.strip().splitlines():
            words = shlex.split(line)
            if words[:4] == ["python", "-m", "pip", "install"]:
                asked = re.findall(r"\[([\w,-]+)\]", line)
                assert all(e in extras for a in asked for e in a.split(",")), line
                continue
            assert words[0] == "blocksim", line
            if words[1] == "edit":
                parser().parse_args(words[1:])
                continue
            # in-process, as the command line's own tests run it (one import, not seven)
            with monkeypatch.context() as m:
                m.chdir(tmp_path)
                status = cli_main(words[1:])
            assert status == 0, (line, capsys.readouterr())
            ran += 1
    assert ran >= 6
    assert (tmp_path / "run.npz").is_file() and (tmp_path / "loop.png").is_file()
    assert (tmp_path / "loop.svg").is_file()


def test_the_examples_of_the_readme_and_the_home_page_run():
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        (source,) = [body for lang, body in FENCE.findall(page.read_text()) if lang == "python"]
        assert len(source.strip().splitlines()) <= 12, page
        scope: dict = {}
        exec(compile(source, str(page), "exec"), scope)  # our own documentation
        assert abs(scope["result"]["x.y"][-1] - 0.99995) < 1e-4, page
