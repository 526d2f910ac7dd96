"""The document an editor works on: its text, its folder, and what check and save do with it.

An :class:`EditorSession` holds one diagram document (the JSON format of
``docs/diagram-format.md``) and the folder the editor was started in. Everything it does goes
through the same code as the command line: :func:`blocksim.io.loads` with the folder of the
document's file as ``base_dir`` (the schema, the safe expression parser, the path
confinement of file loading),
the checks of ``blocksim check`` (:func:`check_text`), and :mod:`blocksim.confine` for saving
(:func:`~blocksim.confine.confine_output` under a :class:`~blocksim.confine.Confinement` of
the folder, :func:`~blocksim.confine.replacing`).

The text checked and run is the file's own text while the document is the one opened (so line
numbers are those of the file on disk), and after a replacement (``PUT``) the text that saving
writes (:func:`format_document`), so the line numbers are those of the file a save gives.
"""

from __future__ import annotations

import argparse
import json
import threading
from pathlib import Path
from typing import Any

from blocksim.cli.check import check_loaded
from blocksim.cli.common import problem_report
from blocksim.confine import Confinement, PathRefused, confine_output, replacing
from blocksim.io.errors import DiagramFileError
from blocksim.io.load import DiagramFile, loads
from blocksim.io.load import read_text as read_diagram_text
from blocksim.io.save import pretty

#: the document of ``blocksim edit`` without a file
EMPTY_DOCUMENT: dict[str, Any] = {"blocksim": 1, "name": "untitled", "blocks": {},
                                  "wires": []}

#: the name saving uses when the editor was started without a file and none is given
DEFAULT_NAME = "untitled.json"


class SaveRefused(Exception):
    """A save was refused; ``problems`` says why (lines for people)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def format_document(doc: dict[str, Any]) -> str:
    """The text of ``doc`` as :mod:`blocksim.io` writes diagram files (its ``pretty``
    layout, one newline at the end)."""
    return pretty(doc) + "\n"


def parse_document(text: str) -> Any:
    """JSON ``text`` -> value, refusing ``NaN``/``Infinity`` (not JSON; a diagram file
    writes ``"=nan"``)."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON (write \"={name.lower()[:3]}\" in a diagram "
                         f"file)")

    return json.loads(text, parse_constant=refuse)


def _settings_args(name: str, options: dict[str, Any] | None = None) -> argparse.Namespace:
    keys = ("T", "solver", "dt", "rtol", "atol", "record_dt", "realtime", "overrun",
            "backend", "max_steps", "max_memory", "max_wall", "fuse")
    values = {k: None for k in keys}
    values.update(options or {})
    return argparse.Namespace(file=name, **values)


def check_text(text: str, name: str, folder: Path) -> list[str]:
    """Every problem of the diagram ``text`` (named ``name``, its file in ``folder``) as
    ``blocksim check name`` prints them: a header and one line per problem, or the one
    ``OK`` line. The first line says which: it ends in ``problem:``/``problems:`` or
    contains ``: OK``."""
    try:
        df = loads(text, name, base_dir=folder)
    except DiagramFileError as exc:
        return problem_report(name, exc.problems)
    return check_loaded(df, _settings_args(name))[0]


class EditorSession:
    """The editor's document and folder (thread-safe: the server's threads share one).

    Parameters
    ----------
    folder : Path
        The folder the editor was started in: the file must be inside it, and saving writes
        only inside it.
    file : str, optional
        The diagram file opened (a path relative to ``folder``, or inside it); without one,
        or when it does not exist yet, the document is :data:`EMPTY_DOCUMENT` (saved under
        that name).
    """

    def __init__(self, folder: str | Path, file: str | Path | None = None):
        self.folder = Path(folder).resolve()
        self.confinement = Confinement(self.folder)
        self._lock = threading.Lock()
        self.name = DEFAULT_NAME
        self._doc = json.loads(json.dumps(EMPTY_DOCUMENT))
        self._text = format_document(self._doc)
        if file is not None:
            path = Path(file)
            full = (path if path.is_absolute() else self.folder / path).resolve()
            try:
                self.name = str(full.relative_to(self.folder))
            except ValueError:
                raise SaveRefused([f"{file}: outside the folder the editor starts in "
                                   f"({self.folder}); start it there (cd) to edit this "
                                   f"file"]) from None
            if full.exists():
                text = read_diagram_text(full).removeprefix("\ufeff")  # <= 4 MB, regular
                try:
                    doc = parse_document(text)
                except ValueError as exc:
                    raise DiagramFileError(str(file), [f"{file}: not JSON: {exc}"]) from None
                if not isinstance(doc, dict):
                    raise DiagramFileError(str(file),
                                           [f"{file}: a diagram file is a JSON object"])
                self._doc, self._text = doc, text
            else:
                self._doc["name"] = full.stem

    @property
    def base_dir(self) -> Path:
        """The folder of the document's file: its subsystem and data files are looked up
        there (as when the file is loaded)."""
        return (self.folder / self.name).parent

    # -- the document -------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        """A copy of the current document."""
        with self._lock:
            return json.loads(json.dumps(self._doc))

    def text(self) -> str:
        """The text checked, run and (re)numbered: see the module's description."""
        with self._lock:
            return self._text

    def load(self, text: str | None = None) -> DiagramFile:
        """The current document (or ``text``) loaded as a diagram file is (raises
        :class:`~blocksim.io.DiagramFileError` listing every problem)."""
        return loads(self.text() if text is None else text, self.name, base_dir=self.base_dir)

    def replace(self, doc: Any) -> list[str]:
        """Make ``doc`` the current document; the problems :func:`blocksim.io.loads` finds in
        it (empty: it loads). A document with problems is kept (an editor holds unfinished
        diagrams) but cannot be saved."""
        return self.replace_loaded(doc)[0]

    def replace_loaded(self, doc: Any) -> tuple[list[str], DiagramFile | None]:
        """:meth:`replace`, also giving the document loaded (``None`` when it does not)."""
        if not isinstance(doc, dict):
            raise ValueError("the diagram document must be a JSON object")
        text = format_document(doc)
        loaded: DiagramFile | None = None
        try:
            loaded = self.load(text)
            problems: list[str] = []
        except DiagramFileError as exc:
            problems = list(exc.problems)
        with self._lock:
            self._doc, self._text = json.loads(json.dumps(doc)), text
        return problems, loaded

    def check(self) -> list[str]:
        """The report of ``blocksim check`` on the current document (:func:`check_text`)."""
        return check_text(self.text(), self.name, self.base_dir)

    # -- saving -------------------------------------------------------------------------
    def save(self, path: str | None = None) -> Path:
        """Write the current document to ``path`` (relative to the folder; default: the file
        opened, or :data:`DEFAULT_NAME`) as :mod:`blocksim.io` formats it, as a new file
        renamed into place; the path confined to the folder (no absolute path, no ``..``
        out, no link out). Saving under a new name makes it the document's name.

        Raises
        ------
        SaveRefused
            The path is refused, does not end in ``.json``, or the document does not load.
        """
        name = self.name if path is None else path
        if not isinstance(name, str) or not name.lower().endswith(".json"):
            raise SaveRefused([f"save: {name!r}: name a file ending in .json"])
        try:
            target = confine_output(self.confinement, name, "save:")
        except PathRefused as exc:
            raise SaveRefused([str(exc)]) from None
        if not target.parent.is_dir():
            raise SaveRefused([f"save: {name!r}: folder {str(target.parent)!r} does not "
                               f"exist"])
        doc = self.document()
        text = format_document(doc)
        try:
            loads(text, name, base_dir=target.parent)
        except DiagramFileError as exc:
            raise SaveRefused(problem_report(name, list(exc.problems))) from None
        with replacing(target) as tmp:
            tmp.write_text(text, encoding="utf-8")
        with self._lock:
            self._text = text
            self.name = str(target.relative_to(self.folder))
        return target
