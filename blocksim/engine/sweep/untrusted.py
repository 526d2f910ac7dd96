"""Reading result files that may come from a stranger: bounded JSON and bounded ``.npz``.

A results folder (``blocksim sweep --out DIR``) or a saved run (``blocksim run --out
run.npz``) may have been written by someone else, or tampered with, before it is resumed or
compared. Every read here is bounded *before* the work it bounds:

* **files**: a regular file only (a FIFO, device or directory is refused without blocking:
  it is opened ``O_NONBLOCK`` and checked with ``fstat``), optionally not a symbolic link
  (chunk files of a folder), at most a given number of bytes on disk;
* **JSON**: at most :data:`MAX_JSON_BYTES`, nested at most :data:`MAX_JSON_DEPTH` levels
  (counted before parsing, without recursion), UTF-8;
* **.npz**: the zip directory is read first: at most :data:`MAX_NPZ_MEMBERS` members, each an
  ``.npy`` of a plain dtype (no objects, no structured types); each member's declared
  uncompressed size and its array header's ``shape x itemsize`` are checked against the
  budget (and against each other) before anything is inflated; the zip reader stops at the
  declared size, so a member cannot inflate past what was checked. A caller can check the
  headers (names, shapes, dtypes) before any array is read (``check=``).

Every refusal is an :class:`UntrustedFileError` with one line naming the file and what is
wrong; it never quotes the file's bytes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

#: largest JSON file of a results folder or JSON string in a result file [bytes]
MAX_JSON_BYTES = 256_000_000
#: deepest nesting of arrays and objects in such JSON
MAX_JSON_DEPTH = 64
#: most members (arrays) of an ``.npz`` result file
MAX_NPZ_MEMBERS = 100_000
#: most bytes an ``.npz`` result file may inflate to by default (the run limit
#: ``max_memory``'s default: a saved run no larger than a run may record)
MAX_NPZ_BYTES = 2_000_000_000
#: largest ``.npy`` header read (numpy's own default bound)
MAX_HEADER_BYTES = 10_000
#: dtype kinds an array of a result file may have (bool, integers, floats, complex, text)
PLAIN_KINDS = "biufcUS"


class UntrustedFileError(ValueError):
    """A result file or folder was refused (one line naming the file and the problem)."""


@dataclass(frozen=True)
class Header:
    """An ``.npz`` member's array header: its shape and dtype, and its declared size."""

    shape: tuple[int, ...]
    dtype: np.dtype
    declared: int

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


@contextlib.contextmanager
def open_regular(
    path: str | os.PathLike[str], max_bytes: int, *, follow_links: bool = True, what: str = ""
) -> Iterator[IO[bytes]]:
    """``path`` opened for reading as a binary file, if it is a regular file of at most
    ``max_bytes`` bytes.

    Parameters
    ----------
    path : path
        The file.
    max_bytes : int
        Largest size on disk accepted.
    follow_links : bool
        False: refuse a symbolic link (``O_NOFOLLOW``).
    what : str
        How the file is named in messages (default: its path).

    Raises
    ------
    UntrustedFileError
        Missing, a directory, FIFO, device or link, unreadable, or too large.
    """
    name = what or str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        if os.path.islink(path):
            raise UntrustedFileError(f"{name}: is a symbolic link, not a regular file")
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UntrustedFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise UntrustedFileError(f"{name}: is a directory, not a regular file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UntrustedFileError(f"{name}: is a symbolic link, not a regular file") from None
        raise UntrustedFileError(f"{name}: cannot be read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise UntrustedFileError(f"{name}: is {kind} (a pipe, device or socket is refused)"
                                     if kind != "a directory" else f"{name}: is {kind}, not a "
                                     f"regular file")
        if st.st_size > max_bytes:
            raise UntrustedFileError(
                f"{name}: {st.st_size} bytes, more than the {max_bytes} bytes accepted"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        yield f


# ---------------------------------------------------------------------------- JSON
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_DEPTH_BLOCK = 1 << 22


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text ``data`` (brackets inside
    strings not counted; linear time, no recursion, memory in blocks)."""
    bare = _STRING.sub(b'""', data)
    deepest = level = 0
    for k in range(0, len(bare), _DEPTH_BLOCK):
        b = np.frombuffer(bare, np.uint8, min(_DEPTH_BLOCK, len(bare) - k), k)
        step = ((b == 0x5B) | (b == 0x7B)).astype(np.int32)
        step -= ((b == 0x5D) | (b == 0x7D)).astype(np.int32)
        if step.size:
            run = np.cumsum(step, dtype=np.int64) + level
            deepest = max(deepest, int(run.max()))
            level = int(run[-1])
    return deepest


class _NotJSON(ValueError):
    """A non-standard constant (``NaN``, ``Infinity``, ``-Infinity``) in strict JSON."""


def _refuse_constant(name: str) -> Any:
    raise _NotJSON(f"the non-standard constant {name}; non-finite numbers are written as "
                   f"strings")


def parse_json(
    data: bytes | str, what: str, *, max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH, strict: bool = False,
) -> Any:
    """JSON text ``data`` parsed, if it is at most ``max_bytes`` and ``max_depth`` deep.

    ``strict``: only standard JSON (RFC 8259): ``NaN`` and ``Infinity``, which Python's
    :mod:`json` writes and reads by default, are refused (a results folder writes non-finite
    numbers as strings).

    Raises
    ------
    UntrustedFileError
        Too large, too deep, not UTF-8 or not JSON (``what`` names it).
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise UntrustedFileError(f"{what}: {len(raw)} bytes of JSON, more than {max_bytes}")
    depth = json_depth(raw)
    if depth > max_depth:
        raise UntrustedFileError(
            f"{what}: JSON nested {depth} levels deep, more than the {max_depth} accepted"
        )
    try:
        text = raw.decode("utf-8")
        return json.loads(text, parse_constant=_refuse_constant) if strict else json.loads(text)
    except UnicodeDecodeError:
        raise UntrustedFileError(f"{what}: not UTF-8 text") from None
    except _NotJSON as exc:
        raise UntrustedFileError(f"{what}: not valid JSON ({exc})") from None
    except (ValueError, RecursionError) as exc:
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        raise UntrustedFileError(f"{what}: not valid JSON ({msg})") from None


def read_json(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH, follow_links: bool = True, what: str = "",
    strict: bool = False,
) -> Any:
    """The JSON file ``path``, read within the bounds of :func:`open_regular` and
    :func:`parse_json` (``strict``: standard JSON only)."""
    name = what or str(path)
    with open_regular(path, max_bytes, follow_links=follow_links, what=name) as f:
        data = f.read(max_bytes + 1)
    return parse_json(data, name, max_bytes=max_bytes, max_depth=max_depth, strict=strict)


# ---------------------------------------------------------------------------- .npz
def _header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> Header:
    fmt = np.lib.format
    with zf.open(info) as m:
        try:
            version = fmt.read_magic(m)
            if version == (1, 0):
                shape, _, dtype = fmt.read_array_header_1_0(
                    m, max_header_size=MAX_HEADER_BYTES
                )
            elif version in ((2, 0), (3, 0)):
                shape, _, dtype = fmt.read_array_header_2_0(
                    m, max_header_size=MAX_HEADER_BYTES
                )
            else:
                raise ValueError(f"unknown .npy version {version}")
        except (ValueError, EOFError, SyntaxError, TypeError) as exc:
            raise UntrustedFileError(f"{name}: bad array header ({exc})"[:300]) from None
        offset = m.tell()
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in PLAIN_KINDS:
        raise UntrustedFileError(f"{name}: arrays of dtype {dtype.str!r} are not accepted")
    if not all(isinstance(n, int) and n >= 0 for n in shape):
        raise UntrustedFileError(f"{name}: bad array shape")
    h = Header(tuple(shape), dtype, info.file_size)
    if offset + h.nbytes != info.file_size:
        raise UntrustedFileError(
            f"{name}: its header says {h.nbytes} bytes of data, the zip says "
            f"{info.file_size - offset}"
        )
    return h


def read_npz(
    path: str | os.PathLike[str],
    *,
    budget: float = MAX_NPZ_BYTES,
    max_file_bytes: float | None = None,
    follow_links: bool = True,
    check: Callable[[dict[str, Header]], None] | None = None,
    what: str = "",
) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file ``path``, read within a budget.

    Parameters
    ----------
    path : path
        The file.
    budget : float
        Most bytes all arrays may take once read (checked on the declared sizes and on the
        headers before anything is inflated).
    max_file_bytes : float, optional
        Largest file on disk (default ``budget``: a stored ``.npz`` is never larger than
        its arrays, bar the zip's overhead).
    follow_links : bool
        False: refuse a symbolic link.
    check : callable, optional
        Called with ``{name: Header}`` of every member before any array is read; raises
        :class:`UntrustedFileError` to refuse the file.
    what : str
        How the file is named in messages (default its path).

    Raises
    ------
    UntrustedFileError
        Not a regular file, not a zip of ``.npy`` arrays, too many members, over the budget,
        headers inconsistent with the declared sizes, a refused dtype, or refused by
        ``check``.
    """
    name = what or str(path)
    cap = int(min(budget if max_file_bytes is None else max_file_bytes, 2**62)) + 4096
    with open_regular(path, cap, follow_links=follow_links, what=name) as f:
        try:
            zf = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError):
            raise UntrustedFileError(f"{name}: not an .npz file (not a zip archive)") from None
        with zf:
            infos = zf.infolist()
            if len(infos) > MAX_NPZ_MEMBERS:
                raise UntrustedFileError(
                    f"{name}: {len(infos)} members, more than the {MAX_NPZ_MEMBERS} accepted"
                )
            declared = sum(i.file_size for i in infos)
            if declared > budget:
                raise UntrustedFileError(
                    f"{name}: its arrays would take {declared / 1e6:.6g} MB once inflated, "
                    f"more than the limit of {budget / 1e6:.6g} MB (max_memory; raise it with "
                    f"--max-memory if you trust this file)"
                )
            headers: dict[str, Header] = {}
            for info in infos:
                key = info.filename.removesuffix(".npy")
                if not info.filename.endswith(".npy") or key in headers or info.is_dir():
                    raise UntrustedFileError(
                        f"{name}: member {info.filename[:80]!r} is not a distinct .npy array"
                    )
                try:
                    headers[key] = _header(zf, info, f"{name} [{key[:80]}]")
                except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
                    raise UntrustedFileError(
                        f"{name}: member {key[:80]!r} cannot be read ({exc})"[:300]
                    ) from None
                if math.prod(headers[key].shape) > budget:  # zero-sized elements
                    raise UntrustedFileError(
                        f"{name}: member {key[:80]!r} has more elements than the budget"
                    )
            if check is not None:
                check(headers)
            out = {}
            for info in infos:
                key = info.filename.removesuffix(".npy")
                try:
                    with zf.open(info) as m:
                        out[key] = np.lib.format.read_array(
                            m, allow_pickle=False, max_header_size=MAX_HEADER_BYTES
                        )
                except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
                    raise UntrustedFileError(
                        f"{name}: member {key[:80]!r} cannot be read ({exc})"[:300]
                    ) from None
            return out


def text_of(a: np.ndarray, name: str, what: str) -> str:
    """The string held by a 0-d text array ``a`` (member ``name`` of the file ``what``)."""
    if a.shape != () or a.dtype.kind not in "US":
        raise UntrustedFileError(f"{what}: {name!r} is not a text value")
    v = a.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def json_member(arrays: dict[str, np.ndarray], name: str, what: str, *,
                strict: bool = False) -> Any:
    """The JSON document held by the text member ``name`` of an ``.npz`` (bounded as
    :func:`parse_json`; ``strict``: standard JSON only)."""
    if name not in arrays:
        raise UntrustedFileError(f"{what}: no {name!r} member")
    return parse_json(text_of(arrays[name], name, what), f"{what} [{name}]", strict=strict)


__all__ = [
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_NPZ_BYTES",
    "MAX_NPZ_MEMBERS",
    "Header",
    "UntrustedFileError",
    "json_member",
    "open_regular",
    "parse_json",
    "read_json",
    "read_npz",
    "text_of",
]
