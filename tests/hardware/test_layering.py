"""blocksim.hardware imports no block, engine, io, viz or cli module (drivers stand alone)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "blocksim" / "hardware"
FORBIDDEN = ("blocksim.blocks", "blocksim.engine", "blocksim.io", "blocksim.viz", "blocksim.cli")


def test_hardware_modules_import_no_upper_layer():
    bad = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            bad += [f"{path.name}: {n}" for n in names if n.startswith(FORBIDDEN)]
    assert not bad, bad
