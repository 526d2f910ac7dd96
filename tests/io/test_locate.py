"""The positioned JSON parser: same values as the json module, lines of every value, limits."""

import json
import random

import pytest

from blocksim.io.locate import JsonSyntaxError, format_path, parse


def _random_json(rng, depth=0):
    kind = rng.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return rng.choice([True, False, None])
    if kind == 1:
        return rng.randint(-10**12, 10**12)
    if kind == 2:
        return rng.uniform(-1e6, 1e6) * 10.0 ** rng.randint(-20, 20)
    if kind == 3:
        return "".join(rng.choice('ab"\\\n\té€ ') for _ in range(rng.randrange(6)))
    if kind in (4, 5):
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": _random_json(rng, depth + 1) for i in range(rng.randrange(4))}


@pytest.mark.parametrize("seed", range(30))
def test_values_equal_the_json_modules(seed):
    rng = random.Random(seed)
    doc = _random_json(rng)
    text = json.dumps(doc, indent=rng.choice([None, 1, 2]), ensure_ascii=rng.random() < 0.5)
    assert parse(text).value == json.loads(text)


def test_positions_of_values_and_keys():
    text = ('{\n  "blocks": {\n    "pid": {"type": "PID",\n            "params": {"Kp": 2}}'
            '\n  },\n  "wires": [\n    {"from": "a", "to": ["b", "c"]}\n  ]\n}')
    doc = parse(text)
    assert doc.values[("blocks", "pid", "params", "Kp")] == (4, 30)
    assert doc.keys[("blocks", "pid")] == (3, 5)
    assert doc.line(("wires", 0, "to", 1)) == 7
    assert doc.line(("blocks", "pid", "params", "missing")) == 4  # nearest known ancestor
    assert doc.line(("blocks", "pid"), key=True) == 3


def test_duplicate_keys_are_reported_with_both_lines():
    doc = parse('{"blocks": {\n"a": 1,\n"b": 2,\n"a": 3}}')
    assert doc.value == {"blocks": {"a": 1, "b": 2}}  # the first one is kept
    assert doc.duplicates == [(("blocks", "a"), 4, 1, 2)]


@pytest.mark.parametrize("text,line,col,words", [
    ('{"a": [1, 2,\n]}', 2, 1, "expected a value"),
    ('{"a" 1}', 1, 6, "expected ':'"),
    ('{"a": 1,}', 1, 9, "member name"),
    ("[1 2]", 1, 4, "expected ',' or ']'"),
    ("{'a': 1}", 1, 2, "double quotes"),
    ("[NaN]", 1, 2, "write the expression string \"nan\""),
    ("-Infinity", 1, 1, "\"-inf\""),
    ("1e400", 1, 1, "outside the float64 range"),
    ("123456789012345678901234", 1, 1, "64-bit range"),
    ('"abc', 1, 1, "Unterminated string"),
    ("{}\n\n x", 3, 2, "extra text"),
    ("", 1, 1, "unexpected end"),
])
def test_syntax_errors_say_where(text, line, col, words):
    with pytest.raises(JsonSyntaxError) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (line, col)
    assert words in str(info.value)


def test_limits_refuse_deep_nesting_and_huge_text_quickly():
    with pytest.raises(JsonSyntaxError, match="nesting deeper than 48"):
        parse("[" * 100_000 + "]" * 100_000)
    parse("[" * 48 + "]" * 48)
    with pytest.raises(JsonSyntaxError, match="limited to 100"):
        parse(" " * 101, max_chars=100)
    with pytest.raises(JsonSyntaxError, match="longer than 64"):
        parse("1." + "0" * 100)


def test_format_path():
    assert format_path(("blocks", "pid", "params", "Kp")) == "blocks.pid.params.Kp"
    assert format_path(("wires", 3, "to", 0)) == "wires[3].to[0]"
    assert format_path(()) == "$"
