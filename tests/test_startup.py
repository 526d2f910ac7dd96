"""A new process imports only what it uses, and exits without collecting the whole heap.

Import state is what is under test, so the import checks run in one child process each
(``sys.modules`` of this test process holds whatever the other tests imported).
"""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import blocksim.blocks
from blocksim.engine.block import Block

ROOT = Path(__file__).resolve().parents[1]

#: the general families, one subpackage each of blocksim.blocks
GENERAL = set(blocksim.blocks._FAMILIES)
#: the families of the registry kept out of blocksim.blocks (robotics core, hardware, viz)
OTHER = {"arm", "vision", "quadrotor", "hardware", "floating", "vehicle", "planning"}


def _child(code: str, **env: str) -> str:
    import os

    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_diagram_file_imports_only_the_families_and_libraries_it_uses():
    code = (
        "import json, sys\n"
        "import blocksim\n"
        "first = sorted(sys.modules)\n"
        "import blocksim.cli\n"
        "blocksim.cli.parser()\n"
        "cli = sorted(sys.modules)\n"
        "f = blocksim.io.load('diagrams/pid_mass_spring_damper.json')\n"
        "types = sorted({type(b).__name__ for b in f.diagram.blocks.values()})\n"
        "load = sorted(sys.modules)\n"
        "import blocksim.blocks.planning\n"
        "print(json.dumps({'import': first, 'cli': cli, 'load': load, 'types': types,\n"
        "                  'planning': sorted(sys.modules)}))"
    )
    out = json.loads(_child(code))
    assert out["types"] == ["Gain", "Integrator", "PID", "Scope", "Step", "Sum"]

    def families(mods: list[str]) -> set[str]:
        return {
            m.split(".")[2]
            for m in mods
            if m.startswith("blocksim.blocks.") and not m.split(".")[2].startswith("_")
        }

    # import blocksim: the engine and numpy, no block, no numba, no graph or plotting library
    heavy = ("networkx", "numba", "matplotlib", "scipy", "jsonschema", "multiprocessing")
    assert families(out["import"]) == set()
    assert [m for m in heavy if m in out["import"]] == []
    # loading the PID file: exactly the families of its blocks (Step; Sum, Gain; PID,
    # Integrator; Scope), nothing of the robotics core, no graph library until it compiles
    assert families(out["load"]) == {"sources", "math", "continuous", "sinks"}
    assert not families(out["load"]) & OTHER
    assert not any(m.startswith("blocksim.robotics") for m in out["load"])
    assert [m for m in ("networkx", "matplotlib") if m in out["load"]] == []
    # the command's parser (every command line builds it): no numba
    assert "numba" not in out["cli"]
    # the planning family: scipy's image and spatial modules only when a map is inflated or
    # a PRM planned
    assert [m for m in ("scipy.ndimage", "scipy.spatial") if m in out["planning"]] == []


@pytest.mark.parametrize("name", sorted(blocksim.blocks.__all__))
def test_every_block_is_re_exported_by_blocksim_blocks(name):
    value = getattr(blocksim.blocks, name)
    module = importlib.import_module(blocksim.blocks._EXPORTS[name])
    assert value is getattr(module, name)
    assert name in dir(blocksim.blocks)


def test_blocksim_blocks_lists_every_general_block_and_its_families():
    exported = set(blocksim.blocks.__all__)
    assert exported == set(blocksim.blocks._EXPORTS)
    for family in GENERAL:
        module = importlib.import_module(f"blocksim.blocks.{family}")
        assert getattr(blocksim.blocks, family) is module
        assert family in dir(blocksim.blocks)
        blocks = {
            n
            for n in module.__all__
            if isinstance(getattr(module, n), type) and issubclass(getattr(module, n), Block)
        }
        # the animation sinks are registered from their own module (they load the viz layer)
        missing = blocks - exported - {"ArmPlot", "ImagePlane"}
        assert not missing, f"blocksim.blocks does not re-export {sorted(missing)}: add to _EXPORTS"
    namespace: dict[str, object] = {}
    exec("from blocksim.blocks import *", namespace)
    assert exported <= set(namespace)
    with pytest.raises(AttributeError, match="no attribute 'Gian'"):
        blocksim.blocks.Gian  # noqa: B018
    from blocksim.blocks import Gain, discretize  # noqa: F401  (the usual import still works)


EXIT_CHILD = """
import atexit, gc, os, sys
import blocksim

class Cycle:
    def __del__(self, write=os.write):
        write(1, b"collected at exit\\n")

gc.disable()  # no collection before the exit: only the shutdown's collections can find it
c = Cycle()
c.self = c
del c
atexit.register(lambda: print("a handler registered after import ran", flush=True))
print("last line", flush=True)
"""


def test_the_exit_skips_collecting_the_heap_unless_asked():
    quick = _child(EXIT_CHILD, BLOCKSIM_EXIT_GC="")
    assert quick.splitlines() == ["last line", "a handler registered after import ran"]
    full = _child(EXIT_CHILD, BLOCKSIM_EXIT_GC="1")
    assert full.splitlines() == [
        "last line",
        "a handler registered after import ran",
        "collected at exit",
    ]
