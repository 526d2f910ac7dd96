"""Where the files a diagram names may be: the one guard of every reader and writer.

A diagram file may come from a stranger, and its blocks name files: a Scope's figure, a
Record's table, an animation, a hardware block's session recording (outputs); a map, a
hardware replay, a URDF model, a subsystem or ``.npy`` data file (inputs). While a diagram
file is loaded (:func:`blocksim.io.load`), the loader installs a :class:`Confinement` for the
file whose blocks are being made, and every block resolves the paths it is given through
:func:`output_path` or :func:`input_path`:

* a path is **relative to the folder of the file that names it** (never to the working
  directory), ``~`` is never expanded (a name starting with ``~`` is refused), an absolute
  path is refused;
* it is resolved **with its symbolic links** and must end inside that folder (or a subfolder),
  or inside a folder the user allows (``--allow-dir DIR``, ``load(..., allow_dirs=[DIR])``):
  a link shipped in the folder that points elsewhere is refused, for reading and for writing;
* an output must be a new file or a regular file (not a directory, pipe or device), and
  :func:`replacing` writes it as a new file renamed into place, so even a link created after
  the check is replaced, never written through.

Outside a load (blocks made in Python code), paths are the program's own: they are used as
given (``~`` expanded), since the person writing the code chose them.

This module sits below every layer (robotics, hardware, blocks, engine, io, cli may import
it) and imports nothing from blocksim.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PathArg = str | os.PathLike[str]

_UMASK = os.umask(0)
os.umask(_UMASK)


class PathRefused(ValueError):
    """A path named by a diagram file was refused (message for people)."""


@dataclass(frozen=True)
class Confinement:
    """The folders the file being loaded may name files in.

    Parameters
    ----------
    base : Path
        The folder of the file that names the paths (relative paths start there).
    allow : tuple of Path
        More folders the user allows (``--allow-dir``).
    any_path : bool
        The user lifted the confinement of outputs (``load(..., allow_any_path=True)``).
    """

    base: Path
    allow: tuple[Path, ...] = field(default=())
    any_path: bool = False

    @property
    def roots(self) -> list[Path]:
        return [self.base.resolve(), *(Path(a).resolve() for a in self.allow)]


_CURRENT: contextvars.ContextVar[Confinement | None] = contextvars.ContextVar(
    "blocksim_confinement", default=None
)


def current() -> Confinement | None:
    """The confinement of the diagram file being loaded, if any."""
    return _CURRENT.get()


@contextlib.contextmanager
def confined(confinement: Confinement | None) -> Iterator[Confinement | None]:
    """Install ``confinement`` (``None``: none) while a file's blocks are made."""
    token = _CURRENT.set(confinement)
    try:
        yield confinement
    finally:
        _CURRENT.reset(token)


def _name(value: object, what: str) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise PathRefused(f"{what} must be a file name (a string), found {value!r}")
    name = os.fspath(value)
    if not isinstance(name, str) or not name or "\x00" in name:
        raise PathRefused(f"{what} {name!r} is not a file name")
    if name.startswith("~"):
        raise PathRefused(f"{what} {name!r}: '~' is not expanded in a diagram file; name a "
                          f"path relative to this file's folder")
    if Path(name).is_absolute():
        raise PathRefused(f"{what} {name!r} must be a path relative to this file's folder")
    return name


def _outside(what: str, name: str, roots: Sequence[Path]) -> PathRefused:
    return PathRefused(
        f"{what} {name!r} is outside this file's folder ({roots[0]}), through '..' or a "
        f"symbolic link; a diagram file may only name files there or in folders you allow "
        f"(--allow-dir DIR, or load(..., allow_dirs=[DIR]))"
    )


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def confine_input(confinement: Confinement, value: PathArg, what: str) -> Path:
    """The file ``value`` names for reading under ``confinement``: resolved with its links,
    inside one of its roots (the file itself is checked when read)."""
    name = _name(value, what)
    roots = confinement.roots
    path = (confinement.base / name).resolve()
    if not _inside(path, roots):
        raise _outside(what, name, roots)
    return path


def confine_output(confinement: Confinement, value: PathArg, what: str) -> Path:
    """The file ``value`` names for writing under ``confinement``: its folder resolved with its
    links and inside one of the roots; the file itself new, or a regular file (a link there
    must also stay inside, and is replaced, not written through, by :func:`replacing`)."""
    name = _name(value, what)
    roots = confinement.roots
    joined = confinement.base / name
    if joined.name in ("", ".", ".."):
        raise PathRefused(f"{what} {name!r} names a folder, not a file")
    folder = joined.parent.resolve()
    if not _inside(folder, roots):
        raise _outside(what, name, roots)
    target = folder / joined.name
    if target.is_symlink() and not _inside(target.resolve(), roots):
        raise _outside(what, name, roots)
    check_writable(target, what)
    return target


def check_writable(target: Path, what: str) -> None:
    """Refuse ``target`` if it exists and is not a regular file (a folder, pipe, device)."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PathRefused(f"{what} {str(target)!r}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise PathRefused(f"{what} {str(target)!r} is {kind}; name a new or regular file")


def output_path(value: PathArg | None, what: str) -> Path | None:
    """The one guard of outputs: the path a block writes ``value`` to.

    Inside a diagram file's load, ``value`` is confined (:func:`confine_output`) and returned
    resolved; in Python code it is used as given, ``~`` expanded. ``None`` stays ``None``.

    Raises
    ------
    PathRefused
        The diagram file names a file it may not write.
    """
    if value is None:
        return None
    c = current()
    if c is None or c.any_path:
        if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
            raise PathRefused(f"{what} must be a file name, found {value!r}")
        p = Path(value).expanduser()
        return p if c is None or p.is_absolute() else c.base / p
    return confine_output(c, value, what)


def input_path(value: PathArg | None, what: str) -> Path | None:
    """The one guard of inputs: the path a block reads ``value`` from (see
    :func:`output_path`; inside a load, :func:`confine_input`)."""
    if value is None:
        return None
    c = current()
    if c is None:
        if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
            raise PathRefused(f"{what} must be a file name, found {value!r}")
        return Path(value).expanduser()
    return confine_input(c, value, what)


def typed_path(value: PathArg, what: str, allow: Sequence[PathArg] = ()) -> Path:
    """A path the user typed (``--out``, ``--plot``, ``-o``): used as given (absolute paths and
    ``..`` are the user's choice), except that a relative path below the working directory may
    not leave it through a symbolic link found there (a link shipped with a diagram's folder)
    unless its target is in an ``allow`` folder; an existing target must be a regular file."""
    p = Path(value)
    cwd = Path.cwd()
    lexical = Path(os.path.normpath(cwd / p))
    if not p.is_absolute() and _inside(lexical, [cwd]):
        folder = lexical.parent.resolve()
        roots = [cwd.resolve(), *(Path(a).resolve() for a in allow)]
        target = folder / lexical.name
        if not _inside(folder, roots) or (
            target.is_symlink() and not _inside(target.resolve(), roots)
        ):
            raise PathRefused(
                f"{what} {str(value)!r} leads out of the working folder through a symbolic "
                f"link (to {target.resolve()}); name the real path, or allow it with "
                f"--allow-dir DIR"
            )
    check_writable(p, what)
    return p


class NotRegularFile(ValueError):
    """A file to read is a device, pipe or socket (a folder raises IsADirectoryError)."""


class FileTooLarge(ValueError):
    """A file to read has more bytes than its reader's limit (``limit``)."""

    def __init__(self, limit: int):
        super().__init__(f"more than {limit} bytes")
        self.limit = limit


def read_regular(path: PathArg, limit: int) -> bytes:
    """The bytes of the regular file ``path``: the one bounded reader of every file a diagram
    names (diagrams, data, maps, URDF models, session logs). The open does not block (a FIFO
    is refused, not waited on), the kind of file is checked on the open descriptor, the size
    before reading, and at most ``limit + 1`` bytes are read whatever the file system says.

    Raises
    ------
    FileNotFoundError, PermissionError, OSError
        As ``open``.
    IsADirectoryError
        A folder.
    NotRegularFile
        A device, pipe or socket.
    FileTooLarge
        More than ``limit`` bytes.
    """
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"{os.fspath(path)!r} is not a regular file")
        if st.st_size > limit:
            raise FileTooLarge(limit)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:  # it grew while being read
        raise FileTooLarge(limit)
    return b"".join(chunks)


@contextlib.contextmanager
def replacing(path: PathArg) -> Iterator[Path]:
    """Write ``path`` as a new file: yield a temporary name in the same folder (same suffix,
    so writers that choose a format by it still do), then rename it over ``path`` on success
    (a symbolic link at ``path`` is replaced, never written through); remove it on failure."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix,
                               dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)  # as open() would have made it, not mkstemp's 0600
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = [
    "Confinement",
    "FileTooLarge",
    "NotRegularFile",
    "PathArg",
    "PathRefused",
    "check_writable",
    "confine_input",
    "confine_output",
    "confined",
    "current",
    "input_path",
    "output_path",
    "read_regular",
    "replacing",
    "typed_path",
]
