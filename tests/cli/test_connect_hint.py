"""The unconnected-input hint speaks the language the diagram was written in: a JSON wire for
a diagram file, ``d.connect(...)`` for a diagram built in Python."""

import json

import pytest

from blocksim import Diagram
from blocksim.blocks import Gain
from blocksim.cli import main
from blocksim.engine.compile import compile_diagram
from blocksim.engine.errors import DiagramError
from blocksim.io import loads

DOC = {
    "blocksim": 1,
    "name": "open",
    "blocks": {
        "g": {"type": "Gain", "params": {"K": 2}},
        "sub": {"type": "Subsystem", "diagram": {
            "blocks": {"in": {"type": "Inport"}, "h": {"type": "Gain", "params": {"K": 3}},
                       "out": {"type": "Outport"}},
            "wires": [{"from": "h", "to": "out"}]}},
    },
    "wires": [{"from": "g", "to": "sub"}],
}


def test_a_file_gets_the_json_wire_to_add(tmp_path, capsys):
    path = tmp_path / "open.json"
    path.write_text(json.dumps(DOC))
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert ("input 'g.u' (Gain) is not connected; connect an output to it: add "
            '{"from": "<block>.<output>", "to": "g.u"} to the "wires"\n') in err
    # inside a subsystem: its own name for the block, in the subsystem's wires
    assert ('input \'sub/h.u\' (Gain) is not connected; connect an output to it: add '
            '{"from": "<block>.<output>", "to": "h.u"} to the "wires" of subsystem '
            "'sub'") in err
    assert "d.connect" not in err
    # the same file loaded in Python: still the file's wire
    with pytest.raises(DiagramError, match=r'add \{"from": "<block>.<output>", "to": "g.u"\}'):
        compile_diagram(loads(json.dumps(DOC)).diagram)


def test_a_python_diagram_keeps_d_connect():
    d = Diagram("d")
    d.add(Gain(2.0), name="g")
    with pytest.raises(DiagramError) as info:
        compile_diagram(d)
    assert "connect an output to it with d.connect(<source>, 'g.u')" in str(info.value)
    assert '"wires"' not in str(info.value)
