"""The python code blocks of docs/analysis.md run, in order, as one module (as the guide's
of docs/writing-blocks.md: tests/test_docs.py)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from tests.test_docs import code_blocks

DOC = Path(__file__).resolve().parents[2] / "docs" / "analysis.md"


def test_the_analysis_guide_covers_trim_linearize_margins_and_lqr():
    joined = "\n".join(code_blocks(DOC.read_text()))
    for needed in ("trim(", "linearize(", "open=", "margins(", "lqr(", "dlqr(", "x0=op"):
        assert needed in joined, needed


def test_the_code_blocks_of_the_analysis_guide_run(tmp_path, monkeypatch, capsys):
    source = "\n\n".join(code_blocks(DOC.read_text()))
    name = "analysis_guide"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module(name)
    finally:
        sys.modules.pop(name, None)
    assert module.op.success
    assert abs(module.res["theta.y"][-1] - module.np.pi) < 1e-3
    assert "gain margin 4" in capsys.readouterr().out
