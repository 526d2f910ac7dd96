"""The figures of a result, drawn when first looked at.

A Scope that neither saves nor shows its figure still offers it in ``result.figures``; drawing
it costs more than many runs (importing matplotlib and laying out a figure: about a second in
a new process). :class:`Figures` holds such a figure as the function that draws it and calls
it on first access, so a run whose figures nobody looks at never pays for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any


class Figures(MutableMapping[str, Any]):
    """``{block name: figure}``; a deferred figure is drawn on first access and kept."""

    def __init__(self) -> None:
        self._figures: dict[str, Any] = {}
        self._deferred: dict[str, Callable[[], Any]] = {}

    def defer(self, key: str, draw: Callable[[], Any]) -> None:
        """Store the figure that ``draw()`` returns under ``key``, drawn when first read."""
        self._figures.pop(key, None)
        self._deferred[key] = draw

    def __getitem__(self, key: str) -> Any:
        if key in self._deferred:
            self._figures[key] = self._deferred.pop(key)()
        return self._figures[key]

    def __setitem__(self, key: str, figure: Any) -> None:
        self._deferred.pop(key, None)
        self._figures[key] = figure

    def __delitem__(self, key: str) -> None:
        if self._deferred.pop(key, None) is None:
            del self._figures[key]

    def __iter__(self) -> Iterator[str]:
        yield from list(self._figures)
        yield from list(self._deferred)

    def __len__(self) -> int:
        return len(self._figures) + len(self._deferred)

    def __repr__(self) -> str:
        drawn = ", ".join(self._figures)
        later = ", ".join(self._deferred)
        return f"<Figures drawn: [{drawn}]; drawn on first access: [{later}]>"
