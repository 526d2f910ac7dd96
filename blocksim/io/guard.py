"""What a diagram file may reach and how much it may build: the loader's limits.

A diagram file may come from a stranger. Everything it makes the loader read or build is
bounded here:

* **files** (included subsystem files, ``.npy`` data files): a relative path, resolved with its
  symbolic links, inside the including file's folder or a folder the user allows
  (``load(..., allow_dirs=[...])``, ``blocksim run --allow-dir DIR``); a regular file (no
  devices, FIFOs, directories); at most :data:`MAX_FILE_BYTES` read (the limit plus one byte,
  whatever ``stat`` says); UTF-8 text (a byte-order mark is accepted). A refusal never quotes
  the file's bytes;
* **elements**: one budget, :data:`MAX_ELEMENTS` list elements, for every value built while
  loading (literal lists, lists made by expressions, copies made by ``$name`` references and
  ``.npy`` arrays), counted as the values are built;
* **blocks and includes**: at most :data:`MAX_BLOCKS` block instances and :data:`MAX_INCLUDES`
  included files in the whole diagram (subsystem files included many times count every time).

:class:`Guard` holds the counts of one load; the loader installs it for the duration of the
load (:func:`guarded`) and the value readers find it with :func:`current`.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import (
    Confinement,
    FileTooLarge,
    NotRegularFile,
    PathRefused,
    confine_input,
    read_regular,
)
from blocksim.engine.errors import suggestion_budget

#: largest diagram file [bytes]
MAX_FILE_BYTES = 4_000_000
#: largest .npy data file [bytes]
MAX_DATA_BYTES = 64_000_000
#: most list elements built while loading one diagram (literals, expressions, references,
#: data files together)
MAX_ELEMENTS = 1_000_000
#: most block instances in one diagram, subsystems' blocks included (loading and checking
#: take about 0.1 ms per block: 10 000 blocks stay within about a second)
MAX_BLOCKS = 10_000
#: most subsystem files included in one diagram (each inclusion counts)
MAX_INCLUDES = 1_000
#: longest text parameter value (a title, a label, a file name, Sum signs) [characters]
MAX_STRING_CHARS = 1_000


class GuardError(ValueError):
    """A limit of the loader was reached, or a path was refused (message for people)."""


class Guard:
    """The limits and counts of one load.

    Parameters
    ----------
    allow_dirs : sequence of path
        Folders (besides each including file's own) that included and data files may be in.
    max_elements, max_blocks, max_includes : int
        The budgets (defaults :data:`MAX_ELEMENTS`, :data:`MAX_BLOCKS`, :data:`MAX_INCLUDES`).
    """

    def __init__(
        self,
        allow_dirs: Sequence[str | os.PathLike[str]] = (),
        max_elements: int | None = None,
        max_blocks: int | None = None,
        max_includes: int | None = None,
    ):
        self.allow_dirs = [Path(d).resolve() for d in allow_dirs]
        self.max_elements = MAX_ELEMENTS if max_elements is None else max_elements
        self.max_blocks = MAX_BLOCKS if max_blocks is None else max_blocks
        self.max_includes = MAX_INCLUDES if max_includes is None else max_includes
        self.elements = self.blocks = self.includes = 0
        #: shared parameters being resolved (outermost first), for naming a chain
        self.chain: list[str] = []

    # ------------------------------------------------------------------ budgets
    def spend(self, n: int) -> None:
        """Count ``n`` list elements built; raise :class:`GuardError` past the budget."""
        self.elements += n
        if self.elements > self.max_elements:
            via = (
                f" (through the shared parameters {' -> '.join(self.chain)})" if self.chain else ""
            )
            raise GuardError(
                f"the values of this diagram reach more than {self.max_elements} "
                f"list elements{via}; put large tables in .npy files "
                f'({{"npy": "table.npy"}}) and do not copy them through '
                f"references"
            )

    @property
    def remaining(self) -> int:
        """Elements left in the budget."""
        return max(0, self.max_elements - self.elements)

    def add_block(self) -> None:
        """Count one block instance."""
        self.blocks += 1
        if self.blocks > self.max_blocks:
            raise GuardError(
                f"the diagram has more than {self.max_blocks} blocks (subsystem "
                f"files included several times count every time)"
            )

    def add_include(self) -> None:
        """Count one included file."""
        self.includes += 1
        if self.includes > self.max_includes:
            raise GuardError(
                f"the diagram includes subsystem files more than {self.max_includes} times"
            )

    # ------------------------------------------------------------------ paths
    def confine(self, base_dir: Path, rel: str, what: str) -> Path:
        """The file ``rel`` names relative to ``base_dir`` (symbolic links resolved), if it is
        inside ``base_dir`` or an allowed folder (:func:`blocksim.confine.confine_input`)."""
        try:
            return confine_input(Confinement(Path(base_dir), tuple(self.allow_dirs)), rel, what)
        except PathRefused as exc:
            raise GuardError(str(exc)) from None


def read_limited(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refusing other kinds of file and files over
    ``limit`` bytes (at most ``limit + 1`` bytes are read).

    Raises
    ------
    FileNotFoundError, IsADirectoryError, PermissionError
        As ``open``.
    GuardError
        Not a regular file, or too large.
    """
    try:
        return read_regular(path, limit)
    except NotRegularFile:
        raise GuardError(
            "not a regular file (a device, pipe or socket); only regular files are read"
        ) from None
    except FileTooLarge:
        raise GuardError(
            f"the file has more than {limit} bytes; diagram files are limited to {limit}"
        ) from None


def decode(data: bytes) -> str:
    """UTF-8 text of ``data`` (a leading byte-order mark dropped); a :class:`GuardError`
    naming the position, never the bytes, otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GuardError(f"not a UTF-8 text file (invalid byte at position {exc.start})") from None


def read_text(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_limited`)."""
    return decode(read_limited(path, limit))


def load_npy(path: Path, guard: Guard | None) -> np.ndarray:
    """The numeric array in the ``.npy`` file ``path`` as floats (no pickles:
    ``allow_pickle=False``; at most :data:`MAX_DATA_BYTES` read), its elements counted in
    ``guard``'s budget before they are converted."""
    if path.suffix.lower() != ".npy":
        raise GuardError("a data file must be a .npy file (numpy.save)")
    data = read_limited(path, MAX_DATA_BYTES)
    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception:
        raise GuardError("not a .npy array file (numpy.save) of numbers") from None
    if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biuf":
        raise GuardError("the data file holds no array of real numbers (float, int or bool)")
    if guard is not None:
        guard.spend(int(arr.size))
    return np.asarray(arr, dtype=float)


_CURRENT: contextvars.ContextVar[Guard | None] = contextvars.ContextVar(
    "blocksim_io_guard", default=None
)


def current() -> Guard | None:
    """The guard of the load in progress, if any."""
    return _CURRENT.get()


@contextlib.contextmanager
def guarded(guard: Guard) -> Iterator[Guard]:
    """Install ``guard`` for the duration of a load (and bound the load's did-you-mean
    suggestions: :func:`blocksim.engine.errors.suggestion_budget`)."""
    token = _CURRENT.set(guard)
    try:
        with suggestion_budget():
            yield guard
    finally:
        _CURRENT.reset(token)


def count_elements(value: Any, cap: int) -> int:
    """List elements in ``value`` (nested lists and arrays), counting stops past ``cap``."""
    if isinstance(value, np.ndarray):
        return int(value.size)
    if not isinstance(value, list):
        return 0
    n = len(value)
    stack = [v for v in value if isinstance(v, (list, np.ndarray))]
    while stack and n <= cap:
        v = stack.pop()
        if isinstance(v, np.ndarray):
            n += int(v.size)
        else:
            n += len(v)
            stack.extend(w for w in v if isinstance(w, (list, np.ndarray)))
    return n


__all__ = [
    "MAX_BLOCKS",
    "MAX_DATA_BYTES",
    "MAX_ELEMENTS",
    "MAX_FILE_BYTES",
    "MAX_INCLUDES",
    "MAX_STRING_CHARS",
    "Guard",
    "GuardError",
    "count_elements",
    "current",
    "decode",
    "guarded",
    "load_npy",
    "read_limited",
    "read_text",
]
