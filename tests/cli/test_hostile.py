"""Hostile diagram files: each gives a clear error and exit status 2, and nothing executes."""

import json

import pytest

from blocksim.cli import main

SENTINEL = "pwned"
TOUCH = f"__import__('os').system('touch {SENTINEL}')"


def gain(value):
    return {"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": 1.0}},
                                      "g": {"type": "Gain", "params": {"K": value}}},
            "wires": [{"from": "c", "to": "g"}]}


def with_block(block):
    return {"blocksim": 1, "blocks": {"b": block}}


CASES = {
    "injection": (gain(TOUCH), "only the named functions may be called"),
    "injection-marked": (gain("=" + TOUCH), "only the named functions may be called"),
    "injection-in-list": (gain([1, TOUCH]), "blocks.g.params.K[1]"),
    "injection-as-string-param": (
        with_block({"type": "MathFunction", "params": {"func": TOUCH}}),
        "MathFunction) refused its parameters"),
    "import-type": (with_block({"type": "__import__", "params": {"name": "os"}}),
                    "unknown block type '__import__'"),
    "dotted-type": (with_block({"type": "os.system"}), "unknown block type 'os.system'"),
    "attribute": (gain("().__class__"), "attribute access"),
    "dunder-walk": (gain("().__class__.__base__.__subclasses__()"),
                    "only the named functions may be called"),
    "lambda": (gain("lambda: __import__('os')"), "lambda"),
    "comprehension": (gain(f"[{TOUCH} for x in [1]]"), "comprehensions"),
    "reference-dunder": (gain("$__class__"), "unknown name '$__class__'"),
    "object-value": (gain({"__reduce__": "os.system"}), "expected a parameter value"),
    "huge-literal": (gain("1e999"), "outside the float64 range"),
    "huge-power": (gain("9**9**9"), "overflows"),
    "huge-list-expression": (gain("[" + "0," * 20_000 + "0]"), "the limit is 10000"),
    "wrong-types": ({"blocksim": 1, "blocks": [], "wires": {}}, "expected an object, found a list"),
    "wrong-param-type": (with_block({"type": "Gain", "params": "K=2"}), "expected an object"),
    "missing-version": ({"blocks": {}}, "missing member 'blocksim'"),
    "missing-type": (with_block({"params": {"K": 1}}), "missing member 'type'"),
    "missing-required": (with_block({"type": "Gain"}), "needs the parameter K"),
    "missing-to": ({"blocksim": 1, "blocks": {}, "wires": [{"from": "a"}]},
                   "missing member 'to'"),
    "wire-to-nowhere": ({"blocksim": 1, "blocks": {"c": {"type": "Constant",
                                                         "params": {"value": 1}}},
                         "wires": [{"from": "c", "to": "void.u"}]}, "no block named 'void'"),
    "unconnected-input": (gain(2.0) | {"wires": []}, "input 'g.u' (Gain) is not connected"),
    "output-outside": (
        {"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": 1}},
                                   "s": {"type": "Scope", "params": {"file": "../../x.png"}}},
         "wires": [{"from": "c", "to": "s"}]}, "is outside this file's folder"),
    "function-block": (with_block({"type": "Function", "params": {"func": "print"}}),
                       "Function runs Python code"),
}


def run(tmp_path, monkeypatch, capsys, document=None, text=None, command="run"):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "hostile.json"
    path.write_text(text if text is not None else json.dumps(document))
    code = main([command, str(path), "--quiet"] if command == "run" else [command, str(path)])
    out, err = capsys.readouterr()
    assert not (tmp_path / SENTINEL).exists()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_files_exit_2_with_a_clear_message(name, tmp_path, monkeypatch, capsys):
    document, words = CASES[name]
    code, _, err = run(tmp_path, monkeypatch, capsys, document)
    assert code == 2
    assert "hostile.json" in err and words in err, err
    # check reports the same problems on stdout, exit 1
    code, out, _ = run(tmp_path, monkeypatch, capsys, document, command="check")
    assert code == 1 and words in out


@pytest.mark.parametrize("text,words", [
    ("[" * 5000 + "]" * 5000, "nesting deeper than 48"),
    ('{"blocksim": 1, "blocks": {"x": {"type": "Constant", "params": {"value": '
     + "[" * 60 + "1" + "]" * 60 + "}}}}", "nesting deeper than 48"),
    ('{"blocksim": 1, "blocks": {"g": {"type": "Gain"}, "g": {"type": "Sum"}}}',
     "duplicate name 'g' (first defined at line 1)"),
    ('{"blocksim": 1, "blocks": {}} trailing', "extra text after the JSON document"),
    ('{"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": 1e999}}}}',
     "outside the float64 range"),
    ('{"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": '
     + "1" * 100 + "}}}}", "longer than 64 characters"),
])
def test_malformed_json_exits_2_with_line_and_column(text, words, tmp_path, monkeypatch, capsys):
    code, _, err = run(tmp_path, monkeypatch, capsys, text=text)
    assert code == 2 and words in err and "hostile.json:" in err


def test_huge_files_are_refused_before_parsing(tmp_path, monkeypatch, capsys):
    big_string = json.dumps(gain(2.0) | {"description": "x" * 10_000_000})
    code, _, err = run(tmp_path, monkeypatch, capsys, text=big_string)
    assert code == 2 and "diagram files are limited to 4000000" in err
    huge_array = '{"blocksim": 1, "blocks": {"c": {"type": "Constant", "params": {"value": [' + \
        "0," * 2_500_000 + "0]}}}}"
    code, _, err = run(tmp_path, monkeypatch, capsys, text=huge_array)
    assert code == 2 and "limited to" in err


def test_a_file_that_includes_itself(tmp_path, monkeypatch, capsys):
    doc = {"blocksim": 1, "blocks": {"me": {"type": "Subsystem", "file": "hostile.json"}}}
    code, _, err = run(tmp_path, monkeypatch, capsys, doc)
    assert code == 2 and "includes itself (hostile.json -> hostile.json)" in err
    doc = {"blocksim": 1, "blocks": {"me": {"type": "Subsystem", "file": "/etc/passwd"}}}
    code, _, err = run(tmp_path, monkeypatch, capsys, doc)
    assert code == 2 and "must be a path relative to this file" in err


def test_not_json_at_all(tmp_path, monkeypatch, capsys):
    code, _, err = run(tmp_path, monkeypatch, capsys, text="import os\nos.system('x')\n")
    assert code == 2 and "hostile.json:1: column 1: expected a value" in err
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    assert main(["run", str(tmp_path / "bin.json")]) == 2
    assert "not a UTF-8 text file" in capsys.readouterr().err
