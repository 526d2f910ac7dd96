"""A griffe extension for the API reference: the reStructuredText the docstrings use, in
Markdown (``extensions:`` of mkdocstrings' python handler in ``mkdocs.yml``).

The docstrings are numpy-style but keep Sphinx's roles (``:class:`Diagram```, ``:func:``,
``:math:``); mkdocstrings renders Markdown, so each docstring's roles become code spans and
``$...$`` (:func:`blocksim.docs.rst.roles`) before it is parsed. The rest is left alone:
double back-quotes are already code in Markdown, and the sections keep their indentation.
"""

from __future__ import annotations

from typing import Any

from griffe import Extension

from blocksim.docs import rst


class SphinxRoles(Extension):
    """Rewrites every docstring's roles as Markdown."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is not None and doc.value:
            doc.value = rst.roles(doc.value)
