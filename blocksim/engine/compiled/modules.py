"""Generated modules on disk: one per diagram structure, found again by every process.

The source of a diagram's module depends on its structure only (blocks, kernels, wiring,
signal shapes, parameter layout) and the integration method, never on parameter values or
object ids, and it is written
to ``$BLOCKSIM_CACHE_DIR/compiled`` (default ``~/.cache/blocksim/compiled``) under a name
derived from its text. numba caches the module's compiled functions next to it, so a second
process running the same diagram — built in Python or loaded from JSON — loads them instead
of compiling.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from blocksim.engine.compiled.ir import Program
from blocksim.engine.compiled.params import ParamLayout
from blocksim.engine.compiled.render import render, source_hash
from blocksim.engine.compiled.steps import Method

_LOADED: dict[str, ModuleType] = {}


def cache_dir() -> Path:
    """Where generated modules (and numba's cache of them) live."""
    root = os.environ.get("BLOCKSIM_CACHE_DIR") or Path.home() / ".cache" / "blocksim"
    path = Path(root) / "compiled"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class GeneratedModule:
    """A diagram's imported module, its source, and whether its file was new here."""

    module: ModuleType
    source: str
    fresh: bool

    @property
    def name(self) -> str:
        return self.module.__name__


def load_generated(program: Program, layout: ParamLayout, method: Method) -> GeneratedModule:
    """Render ``program`` for integration ``method`` (the fused tier's module), write it to the
    cache folder if not there yet, and import it."""
    src = render(program, layout, method)
    name = generated_name(src)
    fresh = name not in _LOADED and not (cache_dir() / f"{name}.py").exists()
    return GeneratedModule(load_source(name, src), src, fresh)


def generated_name(src: str) -> str:
    """The module name of a diagram's generated (fused) module of source ``src``."""
    return f"blocksim_plan_{source_hash(src)}"


def load_source(name: str, src: str) -> ModuleType:
    """Import the generated module ``name`` of source ``src``, written once to the cache
    folder (numba caches its functions next to it); a module already imported is reused."""
    if name in _LOADED:
        return _LOADED[name]
    path = cache_dir() / f"{name}.py"
    if not path.exists() or path.read_text() != src:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(src)
        tmp.replace(path)  # atomic: concurrent processes never read half a file
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[name] = module
    return module
