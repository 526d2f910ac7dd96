"""Recording a session with a device, and replaying it offline.

A :class:`SessionLog` is the list of every exchange with one device, in order: for a serial
device the bytes written (``"w"``), each read's bytes (``"r"``, empty when a read timed out) and
each drain of the input buffer (``"d"``); for a CoppeliaSim connection each call (``"call"``:
function name, arguments, reply). Replaying the log gives the driver the very same bytes (or
replies) in the same order, so a diagram run again on a replayed log reproduces every signal bit
for bit, without the device; anything the diagram sends that differs from the recording raises
:class:`~blocksim.hardware.errors.ReplayError` naming the exchange.

Logs are JSON files (bytes as hex, floats written exactly).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from blocksim.hardware.errors import ReplayError

__all__ = ["RecordingTransport", "ReplayTransport", "SessionLog", "from_json", "to_json"]

FORMAT = "blocksim-hw-session"


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
            return base64.b64decode(value["bytes"])
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
        """Read a log written by :meth:`save`.

        Raises
        ------
        ValueError
            Not a session log, or one of another ``kind``.
        """
        p = Path(path)
        try:
            doc = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{p}: cannot read the session log: {exc}") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"{p}: not a blocksim hardware session log")
        if kind is not None and doc.get("kind") != kind:
            raise ValueError(f"{p}: a {doc.get('kind')} session, expected a {kind} one")
        return cls(str(doc["device"]), str(doc["kind"]), [from_json(e) for e in doc["entries"]])


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
