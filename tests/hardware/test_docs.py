"""The python code block of docs/hardware.md runs (against the emulator)."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "hardware.md"


def test_the_hardware_page_code_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert blocks
    namespace: dict = {}
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), namespace)
    assert namespace["q"].shape == (5,)
