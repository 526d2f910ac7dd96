"""Plugin packages: block types from installed distributions' ``blocksim.blocks`` entry points,
usable from ``blocksim run`` and listed by ``blocksim blocks`` with their distribution.

Each test installs real (tiny) distributions: a package and its ``*.dist-info`` folder (with
``entry_points.txt``) in a temporary folder put on ``sys.path``, where importlib.metadata
finds them.
"""

import json
import sys
import textwrap

import pytest

from blocksim.cli import main
from blocksim.io import block_types, loads
from blocksim.io.plugins import load_plugins, plugin_of, unload_plugins

DOUBLER = '''
from blocksim.engine.block import Block
from blocksim.io import register_block


class Doubler(Block):
    """Multiply the input by k (a plugin's block).

    Parameters
    ----------
    k : float
        Factor.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, k: float = 2.0):
        super().__init__()
        self.k = k

    def output(self, t, x, u):
        return (self.k * u[0],)


def register():
    register_block(Doubler)
'''

DIAGRAM = {
    "blocksim": 1,
    "name": "plugged",
    "blocks": {"c": {"type": "Constant", "params": {"value": 3.0}},
               "dbl": {"type": "Doubler", "params": {"k": 4.0}}},
    "wires": [{"from": "c", "to": "dbl"}],
    "simulation": {"T": 0.1},
}


def _install(site, dist, package, source, entry_points):
    """A distribution ``dist`` holding the module ``package`` (``source``) with the entry
    points ``{name: value}`` in the group blocksim.blocks."""
    (site / f"{package}.py").write_text(textwrap.dedent(source))
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    info.joinpath("entry_points.txt").write_text(f"[blocksim.blocks]\n{lines}")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path for distributions; the plugins are read afresh, and forgotten
    (types unregistered, modules unimported) afterwards."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    unload_plugins()
    before = set(sys.modules)
    yield folder
    unload_plugins()
    for name in set(sys.modules) - before:
        if name.startswith("plug_"):
            del sys.modules[name]


def test_blocksim_run_uses_a_plugins_block_type(site, tmp_path, capsys):
    _install(site, "blocksim-doubler", "plug_doubler", DOUBLER,
             {"doubler": "plug_doubler:register"})
    path = tmp_path / "plugged.json"
    path.write_text(json.dumps(DIAGRAM))
    assert main(["run", str(path)]) == 0
    captured = capsys.readouterr()
    assert "dbl.y = 12" in captured.out and captured.err == ""
    assert plugin_of("Doubler") == "blocksim-doubler"
    # the catalog says where the type comes from; the library's types say blocksim
    assert main(["blocks", "Doubler", "Gain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Doubler  (plugin blocksim-doubler)  Multiply the input by k")
    assert "\nGain  (blocksim: arithmetic)  " in out
    assert main(["blocks", "--json", "Doubler", "Gain"]) == 0
    doubler, gain = json.loads(capsys.readouterr().out)
    assert (doubler["source"], doubler["distribution"]) == ("plugin", "blocksim-doubler")
    assert gain["source"] == "blocksim" and "distribution" not in gain


def test_an_entry_point_may_name_a_class_or_a_module(site):
    _install(site, "blocksim-forms", "plug_forms", DOUBLER + '''

class Halver(Doubler):
    """Half the input."""

    def __init__(self):
        super().__init__(0.5)
''', {"Twice": "plug_forms:Doubler", "Halver": "plug_forms:Halver"})
    _install(site, "blocksim-mod", "plug_mod", DOUBLER.replace("Doubler", "Tripler")
             + "\nregister()\n", {"mod": "plug_mod"})
    loaded = load_plugins()
    assert loaded == {"Twice": "blocksim-forms", "Halver": "blocksim-forms",
                      "Tripler": "blocksim-mod"}
    assert {"Twice", "Halver", "Tripler"} <= set(block_types())
    doc = {**DIAGRAM, "blocks": {**DIAGRAM["blocks"], "dbl": {"type": "Halver"}}}
    assert type(loads(json.dumps(doc)).diagram["dbl"]).__name__ == "Halver"


def test_a_broken_plugin_is_skipped_with_a_warning_naming_it(site, tmp_path, capsys):
    _install(site, "blocksim-broken", "plug_broken", "raise ImportError('no numpy 1.x')\n",
             {"broken": "plug_broken:register"})
    _install(site, "blocksim-thief", "plug_thief", DOUBLER.replace("class Doubler",
             "class Gain").replace("register_block(Doubler)", "register_block(Gain)"),
             {"thief": "plug_thief:register"})
    _install(site, "blocksim-doubler", "plug_doubler", DOUBLER,
             {"doubler": "plug_doubler:register"})
    path = tmp_path / "plugged.json"
    path.write_text(json.dumps(DIAGRAM))
    assert main(["run", str(path)]) == 0  # the good plugin still works
    captured = capsys.readouterr()
    assert "dbl.y = 12" in captured.out
    lines = captured.err.splitlines()
    assert len(lines) == 2, lines
    assert lines[0] == ("blocksim: warning: plugin 'broken' of blocksim-broken "
                        "(plug_broken:register) was not loaded, its block types are "
                        "unavailable: ImportError: no numpy 1.x")
    assert lines[1].startswith("blocksim: warning: plugin 'thief' of blocksim-thief "
                               "(plug_thief:register) was not loaded") and "'Gain'" in lines[1]
    # the library's Gain is untouched; `blocksim blocks` works and warns nothing new
    assert block_types()["Gain"].__module__ == "blocksim.blocks.math.arithmetic"
    assert main(["blocks", "Gain"]) == 0
    assert capsys.readouterr().err == ""


def test_a_plugin_is_not_loaded_for_a_diagram_of_known_types(site, tmp_path, capsys):
    _install(site, "blocksim-noisy", "plug_noisy", "raise RuntimeError('loaded')\n",
             {"noisy": "plug_noisy"})
    doc = {**DIAGRAM, "blocks": {**DIAGRAM["blocks"], "dbl": {"type": "Gain",
                                                              "params": {"K": 4.0}}}}
    path = tmp_path / "known.json"
    path.write_text(json.dumps(doc))
    assert main(["run", str(path), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    assert "plug_noisy" not in sys.modules
    # an unknown type loads the plugins, then says what it can
    doc["blocks"]["dbl"] = {"type": "Doublr"}
    path.write_text(json.dumps(doc))
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "plugin 'noisy' of blocksim-noisy (plug_noisy) was not loaded" in err
    assert "unknown block type 'Doublr'" in err and "install a plugin package" in err
