"""Diagram files: JSON documents that describe a diagram, read safely and written back exactly.

``load(path)`` / ``loads(text)`` give a :class:`DiagramFile` (the diagram, the file's simulation
settings and layout); ``save(diagram, path)`` / ``dumps(diagram)`` write one. The format,
its JSON Schema (``schema()``) and the rules for values are described in
``docs/diagram-format.md``. Python block classes and model kinds are made available to files
with :func:`register_block` and :func:`register_model_kind`.
"""

from blocksim.io.errors import DiagramFileError
from blocksim.io.expressions import ExpressionError, evaluate
from blocksim.io.load import DiagramFile, load, loads
from blocksim.io.models import register_model_kind, unregister_model_kind
from blocksim.io.registry import block_types, register_block, unregister_block
from blocksim.io.save import SaveError, dumps, save, to_document
from blocksim.io.schema import FORMAT_VERSION, schema

__all__ = [
    "FORMAT_VERSION",
    "DiagramFile",
    "DiagramFileError",
    "ExpressionError",
    "SaveError",
    "block_types",
    "dumps",
    "evaluate",
    "load",
    "loads",
    "register_block",
    "register_model_kind",
    "save",
    "schema",
    "to_document",
    "unregister_block",
    "unregister_model_kind",
]
