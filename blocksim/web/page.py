"""The page ``blocksim edit`` serves at ``/`` when its front end is not built (a source
checkout before ``npm run build``): what the server is and its JSON API."""

from __future__ import annotations

import html


def explanatory_page(name: str, folder: str) -> str:
    """The page at ``/`` when the editor's front end is not built (no ``static/index.html``):
    what the server is and its API, nothing that pretends to edit."""
    rows = "\n".join(
        f"<tr><td><code>{html.escape(m)}</code></td><td>{html.escape(w)}</td></tr>"
        for m, w in (
            ("GET /api/blocks", "the block catalog (as blocksim blocks --json)"),
            ("GET /api/diagram", "the current diagram document"),
            ("PUT /api/diagram", "replace the document; returns the problems of loading it, "
                                 "where they are and the ports of every block"),
            ("POST /api/check", "every problem, as blocksim check prints them, and where"),
            ("POST /api/run", 'start a run: {"T": ..., "solver": ..., "backend": ...}'),
            ("GET /api/run/<id>", "its progress, at the end the final value of every signal"),
            ("POST /api/run/<id>/stop", "stop it"),
            ("GET /api/run/<id>/result.npz", "the recorded result"),
            ("GET /api/run/<id>/traces", "its recorded signals, for plotting"),
            ("POST /api/save", 'save the document: {"path": "name.json"} (optional)'),
        ))
    name = html.escape(name)
    folder = html.escape(folder)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>blocksim edit: {name}</title>
<style>body{{font-family:sans-serif;max-width:50em;margin:2em auto}}
td{{padding:.2em 1em .2em 0;vertical-align:top}}</style></head>
<body>
<h1>blocksim edit</h1>
<p><strong>The editor page is not built yet.</strong> This server already offers the
editor's JSON API, which the page will use; it can be called from scripts and tests.</p>
<p>Document: <code>{name}</code> in <code>{folder}</code> (saving writes only inside this
folder).</p>
<p>Every request needs the token: the <code>token</code> query parameter of this page's
address, or the header <code>Authorization: token ...</code>.</p>
<table>
{rows}
</table>
</body></html>
"""
