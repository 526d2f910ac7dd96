"""Recording a session with a device, and replaying it offline.

A :class:`SessionLog` is the list of every exchange with one device, in order: for a serial
device the bytes written (``"w"``), each read's bytes (``"r"``, empty when a read timed out) and
each drain of the input buffer (``"d"``); for a CoppeliaSim connection each call (``"call"``:
function name, arguments, reply). Replaying the log gives the driver the very same bytes (or
replies) in the same order, so a diagram run again on a replayed log reproduces every signal bit
for bit, without the device; anything the diagram sends that differs from the recording raises
:class:`~blocksim.hardware.errors.ReplayError` naming the exchange.

Logs are JSON files (bytes as base64, floats written exactly). A log given to ``replay=`` may
come from anyone: :meth:`SessionLog.load` reads it as untrusted input, bounded (a regular file of
at most :data:`MAX_BYTES`, opened without blocking so that a FIFO or a device cannot hang it;
values nested at most :data:`MAX_DEPTH` deep) and checked (each entry's shape and types), and
every problem is a :class:`RecordingError` naming the file, never quoting its bytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from pathlib import Path
from typing import Any

from blocksim.confine import FileTooLarge, NotRegularFile
from blocksim.confine import read_regular as read_bounded
from blocksim.hardware.errors import ReplayError

__all__ = [
    "RecordingError",
    "RecordingTransport",
    "ReplayTransport",
    "SessionLog",
    "from_json",
    "to_json",
]

FORMAT = "blocksim-hw-session"
#: the largest session log read [bytes]
MAX_BYTES = 64 * 2**20
#: the deepest nesting of a recorded value (arguments, replies)
MAX_DEPTH = 64
_KINDS = {"serial": ("w", "r", "d"), "coppeliasim": ("call",)}


class RecordingError(ReplayError, ValueError):
    """A session log that cannot be read: missing, not a regular file, too large, not UTF-8
    JSON, too deep, or not shaped as :meth:`SessionLog.save` writes it."""

    def __init__(self, path: str | os.PathLike[str], problem: str):
        name = "".join(c if c.isprintable() else "?" for c in str(path))
        super().__init__(name, problem)


def read_regular(path: str | os.PathLike[str], limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refusing anything else or anything over
    ``limit`` bytes before reading it (the open does not block: a FIFO is refused, not
    waited on).

    Raises
    ------
    RecordingError
        Cannot open, not a regular file, or too large.
    """
    too_big = f"larger than {limit} bytes: not a session log this reader accepts"
    try:
        return read_bounded(path, limit)
    except (NotRegularFile, IsADirectoryError):
        raise RecordingError(path, "not a regular file (a session log is a JSON file)") from None
    except FileTooLarge:
        raise RecordingError(path, too_big) from None
    except OSError as exc:
        raise RecordingError(path, f"cannot open the session log ({exc.strerror})") from None


def _depth_ok(value: Any, limit: int) -> bool:
    """Whether ``value`` (JSON: lists and dicts) nests at most ``limit`` deep (iterative)."""
    todo = [(value, 0)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (list, dict)):
            if d >= limit:
                return False
            todo.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return True


def _parse(path: str | os.PathLike[str], data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(
            path, f"not a session log: not UTF-8 text (a bad byte at offset {exc.start})"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordingError(
            path, f"not a session log: not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise RecordingError(path, "not a session log: JSON nested too deep") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise RecordingError(path, f"not a session log: a bad JSON value ({exc})") from None


def _entry(path: str | os.PathLike[str], k: int, e: Any, kind: str) -> list[Any]:
    """Entry ``k`` of a ``kind`` log, checked and decoded."""
    where = f"entry {k}"
    if not isinstance(e, list) or not e or e[0] not in _KINDS[kind]:
        raise RecordingError(
            path, f"{where}: expected a list starting with one of {', '.join(_KINDS[kind])}"
        )
    if kind == "serial":
        b = e[1] if len(e) == 2 else None
        if not (isinstance(b, dict) and set(b) == {"bytes"} and isinstance(b["bytes"], str)):
            raise RecordingError(path, f"{where}: expected [{e[0]!r}, {{'bytes': base64}}]")
        try:
            return [e[0], base64.b64decode(b["bytes"], validate=True)]
        except (binascii.Error, ValueError):
            raise RecordingError(path, f"{where}: the bytes are not base64") from None
    if len(e) != 4 or not isinstance(e[1], str) or not isinstance(e[2], list):
        raise RecordingError(path, f"{where}: expected ['call', function, [arguments], reply]")
    if not _depth_ok(e[2:], MAX_DEPTH):
        raise RecordingError(path, f"{where}: values nested deeper than {MAX_DEPTH}")
    try:
        return ["call", e[1], from_json(e[2]), from_json(e[3])]
    except (TypeError, KeyError, ValueError, IndexError, binascii.Error):
        raise RecordingError(path, f"{where}: a malformed value") from None


def to_json(value: Any) -> Any:
    """A value made of lists, dicts, numbers, str, None and bytes, JSON-ready (bytes tagged)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {"dict": [[to_json(k), to_json(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return to_json(value.tolist())
    return value


def from_json(value: Any) -> Any:
    """Inverse of :func:`to_json`."""
    if isinstance(value, dict):
        if "bytes" in value:
            return base64.b64decode(value["bytes"], validate=True)
        return {from_json(k): from_json(v) for k, v in value["dict"]}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


class SessionLog:
    """The exchanges of one session with one device.

    Parameters
    ----------
    device : str
        What the session talked to (for messages).
    kind : str
        ``"serial"`` or ``"coppeliasim"``.
    entries : list, optional
        The exchanges (see the module docstring).
    """

    def __init__(self, device: str, kind: str, entries: list[list[Any]] | None = None):
        self.device = device
        self.kind = kind
        self.entries: list[list[Any]] = entries if entries is not None else []

    def __len__(self) -> int:
        return len(self.entries)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the log as JSON; return the path."""
        p = Path(path)
        doc = {
            "format": FORMAT,
            "version": 1,
            "device": self.device,
            "kind": self.kind,
            "entries": [to_json(e) for e in self.entries],
        }
        p.write_text(json.dumps(doc))
        return p

    @classmethod
    def load(cls, path: str | os.PathLike[str], kind: str | None = None) -> SessionLog:
        """Read a log written by :meth:`save` (bounded and checked: see the module docstring).

        Raises
        ------
        RecordingError
            (a :class:`ValueError` and a :class:`~blocksim.hardware.errors.ReplayError`)
            Unreadable, not a session log, or one of another ``kind``; the message names
            the file and what is wrong.
        """
        doc = _parse(path, read_regular(path))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise RecordingError(path, "not a blocksim hardware session log")
        found = doc.get("kind")
        if found not in _KINDS:
            raise RecordingError(path, "a session log of an unknown kind")
        if kind is not None and found != kind:
            raise RecordingError(path, f"a {found} session, expected a {kind} one")
        device, entries = doc.get("device"), doc.get("entries")
        if doc.get("version") != 1 or not isinstance(device, str) or not isinstance(entries, list):
            raise RecordingError(
                path, "not a session log of version 1 (a 'device' text and an 'entries' list)"
            )
        device = "".join(c if c.isprintable() else "?" for c in device[:200])
        return cls(device, found, [_entry(path, k, e, found) for k, e in enumerate(entries)])


class RecordingTransport:
    """A serial transport that logs every exchange of the transport it wraps."""

    def __init__(self, inner: Any, log: SessionLog):
        self.inner = inner
        self.log = log
        self.name = getattr(inner, "name", log.device)

    def write(self, data: bytes) -> None:
        self.log.entries.append(["w", bytes(data)])
        self.inner.write(data)

    def read(self, n: int) -> bytes:
        data = self.inner.read(n)
        self.log.entries.append(["r", bytes(data)])
        return data

    def drain(self) -> bytes:
        data = self.inner.drain()
        self.log.entries.append(["d", bytes(data)])
        return data

    def close(self) -> None:
        self.inner.close()

    @property
    def is_open(self) -> bool:
        return bool(self.inner.is_open)


class ReplayTransport:
    """A serial transport that plays a recorded :class:`SessionLog` back.

    Writes must match the recording byte for byte; reads and drains return the recorded bytes.
    """

    def __init__(self, log: SessionLog, source: str = "replay"):
        self.log = log
        self.name = f"{log.device} (replay of {source})"
        self.k = 0
        self.is_open = True

    def _next(self, kind: str, what: str) -> list[Any]:
        if self.k >= len(self.log.entries):
            raise ReplayError(
                self.name,
                f"the recording ends after {len(self.log)} exchanges "
                f"but the diagram asked for more ({what})",
            )
        e = self.log.entries[self.k]
        if e[0] != kind:
            raise ReplayError(
                self.name,
                f"exchange {self.k}: the diagram does {what} where the recording has {e[0]!r}",
            )
        self.k += 1
        return e

    def write(self, data: bytes) -> None:
        e = self._next("w", "a write")
        if bytes(e[1]) != bytes(data):
            raise ReplayError(
                self.name,
                f"exchange {self.k - 1}: the diagram sent "
                f"{bytes(data).hex(' ')} where the recording has "
                f"{bytes(e[1]).hex(' ')}",
            )

    def read(self, n: int) -> bytes:
        return bytes(self._next("r", "a read")[1])

    def drain(self) -> bytes:
        return bytes(self._next("d", "a drain")[1])

    def close(self) -> None:
        self.is_open = False
