"""Validation of a diagram document against the JSON Schema shipped with the package.

:func:`schema` returns the schema (``blocksim/io/schema.json``, format version 1);
:func:`validate` returns every violation as ``(json path, message, on_key)`` with messages
rewritten for people (did-you-mean for misspelt members, the expected form for a value) instead
of jsonschema's defaults. ``on_key`` says the problem is the member's name rather than its
value (so the reported line is that of the key).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from blocksim.engine.errors import suggest
from blocksim.io.locate import JsonPath, NumberList

#: the format version this module reads and writes
FORMAT_VERSION = 1

_TYPES = {"object": "an object", "array": "a list", "string": "a string",
          "number": "a number", "integer": "an integer", "boolean": "true or false",
          "null": "null"}


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of diagram files (a fresh parse of the packaged ``schema.json``)."""
    text = resources.files("blocksim.io").joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    for t, py in (("object", dict), ("array", list), ("string", str)):
        if isinstance(value, py):
            return _TYPES[t]
    return "a number"


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _message(err: ValidationError) -> tuple[JsonPath, str, bool]:
    path: JsonPath = tuple(err.absolute_path)
    v, sch, inst = err.validator, err.schema, err.instance
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return path, f"missing member '{missing}'", False
    if v == "additionalProperties" and isinstance(inst, dict):
        allowed = list(sch.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        if extra:
            k = extra[0]
            return (*path, k), (f"unknown member '{k}'{suggest(k, allowed)}; allowed here: "
                                f"{', '.join(allowed)}"), True
    if v == "propertyNames" or "propertyNames" in err.absolute_schema_path:
        return (*path, inst), (f"name {inst!r} is not valid: expected "
                               f"{sch.get('description') or err.message}"), True
    if v == "const":
        return path, f"expected {json.dumps(sch['const'])}, found {_short(inst)}" + (
            " (this blocksim reads format version 1)" if path == ("blocksim",) else ""), False
    if v == "enum":
        return path, (f"{_short(inst)} is not one of "
                      f"{', '.join(json.dumps(x) for x in sch['enum'])}"
                      f"{suggest(str(inst), [str(x) for x in sch['enum']])}"), False
    if v == "type":
        want = sch["type"] if isinstance(sch["type"], list) else [sch["type"]]
        return path, (f"expected {' or '.join(_TYPES.get(t, t) for t in want)}, found "
                      f"{_kind(inst)}"), False
    if v in ("anyOf", "oneOf"):
        deeper = [e for e in err.context or () if e.relative_path]
        if deeper:
            best = max(deeper, key=lambda e: len(e.relative_path))
            return _message(best)
        return path, f"{_short(inst)} is not valid: expected {sch.get('description')}", False
    if v == "pattern":
        return path, f"{_short(inst)} is not valid: expected {sch.get('description')}", False
    if v in ("maxLength", "maxItems", "minItems", "minLength", "minProperties"):
        return path, f"{_short(inst)}: {err.message.split(' is ', 1)[-1]}", False
    return path, err.message, False


#: a list of more numbers than this is validated as its first element (they share one rule)
_SHRINK = 16
_NUMBERS = (int, float)


def skeleton(document: Any) -> Any:
    """``document`` with every list of more than 16 plain numbers shortened to its first
    element: the schema gives every element of such a list the same rule and no length
    bound, so the verdict and the paths of the problems are the same, and validating a
    million-number table costs nothing."""
    if isinstance(document, dict):
        return {k: skeleton(v) for k, v in document.items()}
    if isinstance(document, NumberList):
        return document[:1]
    if isinstance(document, list):
        if len(document) > _SHRINK and all(type(v) in _NUMBERS for v in document):
            return document[:1]
        return [skeleton(v) for v in document]
    return document


def validate(document: Any) -> list[tuple[JsonPath, str, bool]]:
    """Every schema violation of ``document`` as ``(path, message, on_key)``, in document
    order (sorted by path)."""
    errors = sorted(_validator().iter_errors(document),
                    key=lambda e: [str(p) for p in e.absolute_path])
    out = []
    seen = set()
    for e in errors:
        item = _message(e)
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
