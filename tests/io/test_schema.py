"""The JSON Schema shipped with the package, and the messages made from its violations."""

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from blocksim.io import schema
from blocksim.io.schema import validate

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"


def test_the_schema_is_a_valid_draft_2020_12_schema_shipped_as_package_data():
    from importlib import resources

    Draft202012Validator.check_schema(schema())
    assert resources.files("blocksim.io").joinpath("schema.json").is_file()
    assert schema()["properties"]["blocksim"] == {
        "description": "Format version of the file; this schema is version 1.", "const": 1}


@pytest.mark.parametrize("path", sorted(DIAGRAMS.glob("*.json")), ids=lambda p: p.stem)
def test_every_shipped_diagram_is_valid(path):
    assert not list(Draft202012Validator(schema()).iter_errors(json.loads(path.read_text())))


@pytest.mark.parametrize("document,expected", [
    ({}, [((), "missing member 'blocksim'"), ((), "missing member 'blocks'")]),
    ([], [((), "expected an object, found a list")]),
    ({"blocksim": 2, "blocks": {}}, [(("blocksim",), "expected 1, found 2 (this blocksim "
                                                   "reads format version 1)")]),
    ({"blocksim": 1, "blokcs": {}, "blocks": {}},
     [(("blokcs",), "unknown member 'blokcs' (did you mean 'blocks'?)")]),
    ({"blocksim": 1, "blocks": {"a b": {"type": "Gain"}}},
     [(("blocks", "a b"), "name 'a b' is not valid: expected a block name")]),
    ({"blocksim": 1, "blocks": {"g": {"params": {}}}}, [(("blocks", "g"),
                                                         "missing member 'type'")]),
    ({"blocksim": 1, "blocks": {"g": {"type": "Gain", "params": {"K": {"eval": "1"}}}}},
     [(("blocks", "g", "params", "K"), "is not valid: expected a parameter value")]),
    ({"blocksim": 1, "blocks": {}, "wires": [{"from": "a.b.c", "to": ["x", 3]}]},
     [(("wires", 0, "from"), "expected a wire end"),
      (("wires", 0, "to", 1), "expected a string, found a number")]),
    ({"blocksim": 1, "blocks": {}, "simulation": {"backend": "compild"}},
     [(("simulation", "backend"), "(did you mean 'compiled'?)")]),
    ({"blocksim": 1, "blocks": {}, "clocks": {"c": {"offset": 0}}},
     [(("clocks", "c"), "missing member 'period'")]),
])
def test_violations_become_readable_messages_with_their_paths(document, expected):
    got = validate(document)
    assert len(got) == len(expected), got
    for (path, words), (gpath, message, _) in zip(expected, got):
        assert gpath == path and words in message, (gpath, message)
