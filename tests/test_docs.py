"""The python code blocks of docs/writing-blocks.md run, in order, as one module.

They are our own documentation, not user input: the test writes them to a module file in a
temporary directory and imports it (a real module, so that the numba kernels it defines are
module-level functions numba can cache and the compiled back-end can import by name).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "writing-blocks.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def code_blocks(text: str) -> list[str]:
    """The bodies of the ```python fences of a markdown text, in order."""
    return FENCE.findall(text)


def test_the_guide_has_code_blocks():
    blocks = code_blocks(DOC.read_text())
    assert len(blocks) >= 6
    joined = "\n".join(blocks)
    for needed in ("def kernels", '@njit(cache=True, error_model="numpy")', "*args", "routes=",
                   "register_block", 'backend="compiled"'):
        assert needed in joined, needed


def test_the_code_blocks_of_writing_blocks_run(tmp_path, monkeypatch):
    source = "\n\n".join(code_blocks(DOC.read_text()))
    name = "writing_blocks_guide"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module(name)
    finally:
        sys.modules.pop(name, None)
    assert module.CompiledLag(T=2.0).kernels().params == (2.0,)
