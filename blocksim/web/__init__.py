"""The diagram editor's server: ``blocksim edit``.

:mod:`blocksim.web.session` holds the document being edited and does what the editor asks
through the command line's own code (load, check, save confined to the editor's folder);
:mod:`blocksim.web.runs` runs diagrams in worker processes; :mod:`blocksim.web.marks` says
where each problem is and which ports each block has; :mod:`blocksim.web.server` is the HTTP
server (starlette + uvicorn, the ``editor`` extra) and its JSON API (token, Host and Origin
checks), serving the built page and its files (:mod:`blocksim.web.assets`). This package sits
on top: it may import io, engine, cli and viz; nothing below imports it. The API is described
in ``docs/editor.md``.
"""

from typing import Any

__all__ = ["EditorServer", "EditorSession", "make_server"]


def __getattr__(name: str) -> Any:
    # imported when asked for: a run's worker process imports blocksim.web.runs without the
    # web stack (starlette), and blocksim edit says which extra is missing
    if name in ("EditorServer", "make_server"):
        from blocksim.web import server

        return getattr(server, name)
    if name == "EditorSession":
        from blocksim.web.session import EditorSession

        return EditorSession
    raise AttributeError(f"module 'blocksim.web' has no attribute {name!r}")
