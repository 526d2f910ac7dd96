"""Errors of diagram files: every problem with its file, line and JSON path, all at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blocksim.engine.errors import DiagramError
from blocksim.io.locate import JsonPath, Located, format_path


@dataclass
class Source:
    """One parsed diagram file (or string): its name for messages, its text positions and the
    directory that relative subsystem paths start from."""

    name: str
    located: Located
    base_dir: Path | None = None
    path: Path | None = None

    def where(self, path: JsonPath, key: bool = False) -> str:
        """``"file:line: json.path"`` of the value at ``path`` (of its key when ``key``)."""
        return f"{self.name}:{self.located.line(path, key)}: {format_path(path)}"


class ValueProblem(ValueError):
    """A problem with one value of a file, raised while reading it (caught by the loader)."""

    def __init__(self, source: Source, path: JsonPath, message: str, key: bool = False):
        super().__init__(message)
        self.source = source
        self.path = path
        self.message = message
        self.key = key

    def render(self) -> str:
        """The problem as ``"file:line: json.path: message"``."""
        return f"{self.source.where(self.path, self.key)}: {self.message}"


class DiagramFileError(DiagramError):
    """A diagram file cannot be loaded or compiled.

    Attributes
    ----------
    problems : list of str
        Every problem, each ``"file:line: json.path: message"``.
    file : str
        The file (or ``"<string>"``) that was loaded.
    diagram_name : str or None
        The name of the diagram, when the file got far enough to give one.
    """

    def __init__(self, file: str, problems: list[str], diagram: str | None = None):
        self.file = file
        self.diagram_name = diagram
        super().__init__(file, problems)


class Problems:
    """Collects problems while a file is read; :meth:`raise_if_any` raises them together."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, source: Source, path: JsonPath, message: str, key: bool = False) -> None:
        """Record ``message`` about the value at ``path`` of ``source``."""
        self.items.append(f"{source.where(path, key)}: {message}")

    def add_error(self, err: ValueProblem) -> None:
        """Record a :class:`ValueProblem` (not one flagged ``reported``: a consequence of a
        problem recorded where it arose)."""
        if not getattr(err, "reported", False):
            self.items.append(err.render())

    def extend(self, items: list[str]) -> None:
        """Record already formatted problems."""
        self.items.extend(items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, file: str, diagram: Any = None) -> None:
        """Raise :class:`DiagramFileError` listing every problem recorded (duplicates once)."""
        if self.items:
            raise DiagramFileError(file, list(dict.fromkeys(self.items)), diagram)
