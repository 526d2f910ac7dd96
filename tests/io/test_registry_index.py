"""The library index: a diagram file imports only the block families it uses."""

import json
import subprocess
import sys

import pytest

from blocksim.io import registry
from blocksim.io.library_index import LIBRARY_INDEX


def test_the_index_is_up_to_date():
    fresh = registry.index_source()
    with open(registry.__file__.replace("registry.py", "library_index.py")) as f:
        assert f.read() == fresh, "run `python -m blocksim.io.registry` to rewrite the index"


def test_every_indexed_type_resolves_to_its_library_class():
    library = registry.library_types()
    assert set(LIBRARY_INDEX) == set(library)
    for name, cls in library.items():
        assert registry.block_class(name) is cls
        assert registry.block_class(registry.type_name(cls.__new__(cls))) is cls


def test_unknown_types_get_suggestions_without_importing_families():
    with pytest.raises(KeyError, match="Integrator"):
        registry.block_class("Integrater")
    with pytest.raises(KeyError):
        registry.block_class("os.system")


def test_loading_a_file_imports_only_the_families_it_uses():
    code = ("import json, sys, blocksim.io as io\n"
            "io.load('diagrams/pid_mass_spring_damper.json')\n"
            "print(json.dumps([m for m in sys.modules if m.startswith('blocksim.blocks.')"
            " and m.count('.') == 2]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=registry.__file__.rsplit("/blocksim/", 1)[0]).stdout
    families = {f.rsplit(".", 1)[1] for f in registry.FAMILIES if f.count(".") == 2}
    loaded = set(json.loads(out))
    assert not loaded & (families - {"sinks"}), loaded
