"""Numpy-style docstrings, as the blocks write them, turned into Markdown for the catalog.

:func:`sections` splits a docstring into its description and its numpy sections
(``Parameters``, ``Inputs``, ``Outputs``, ``States``, ...); :func:`items` reads a section's
``name : type`` entries; :func:`markdown` turns the reStructuredText the docstrings use
(``.. math::`` blocks, ``:math:`` roles, double back-quotes, ``:class:`` and other roles,
``::`` literal blocks) into Markdown with ``$...$`` / ``$$...$$`` equations
(``pymdownx.arithmatex``).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|obj|exc|ref|py:\w+):`(~?)([^`]+)`")
_MATH_ROLE = re.compile(r":math:`([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``")
_ITEM = re.compile(r"^([A-Za-z_*][\w*]*(?:\s*,\s*(?:[A-Za-z_*][\w*]*|\.\.\.))*)\s*(?::\s*(.*))?$")


def sections(doc: str | None) -> tuple[str, dict[str, str]]:
    """``(description, {section title: body})`` of a numpy-style docstring (bodies dedented;
    the description is everything before the first section)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() and not lines[i].startswith(" ")
             and re.fullmatch(r"-{3,}", lines[i + 1].strip() or "x")
             and len(lines[i + 1].strip()) >= len(lines[i].strip()) - 2]
    if not heads:
        return "\n".join(lines).strip(), {}
    out: dict[str, str] = {}
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        out[lines[i].strip()] = inspect.cleandoc("\n".join(lines[i + 2:end]))
    return "\n".join(lines[:heads[0]]).strip(), out


@dataclass(frozen=True)
class Item:
    """One ``name : type`` entry of a numpy section, with its description."""

    names: tuple[str, ...]
    kind: str
    text: str


def items(body: str) -> list[Item]:
    """The entries of a numpy section body (``Parameters``, ``Inputs``, ...)."""
    out: list[Item] = []
    names: tuple[str, ...] | None = None
    kind, text = "", []
    for line in body.splitlines():
        m = _ITEM.match(line) if line and not line.startswith(" ") else None
        if m:
            if names is not None:
                out.append(Item(names, kind, "\n".join(text).strip()))
            names = tuple(n.strip() for n in m.group(1).split(","))
            kind, text = (m.group(2) or "").strip(), []
        elif names is not None:
            text.append(line.strip())
    if names is not None:
        out.append(Item(names, kind, "\n".join(text).strip()))
    return out


def described(entries: list[Item], name: str) -> Item | None:
    """The entry that documents ``name`` (directly, or as ``u0, u1, ...``)."""
    for e in entries:
        if name in e.names:
            return e
    stem = name.rstrip("0123456789")
    for e in entries:
        if "..." in e.names and any(n.rstrip("0123456789") == stem for n in e.names):
            return e
    return None


_KEEP = re.compile(r"(`[^`]*`|\$[^$]*\$)")


def _escape(text: str) -> str:
    """Square brackets of prose (units such as ``[unit of u]``) escaped, so that Markdown
    does not read them as references; code and math kept."""
    parts = _KEEP.split(text)
    return "".join(p if k % 2 else p.replace("[", "\\[").replace("]", "\\]")
                   for k, p in enumerate(parts))


def roles(text: str) -> str:
    """Sphinx roles as Markdown: ``:math:`x``` as ``$x$``, ``:class:`~a.B``` as `` `B` ``."""
    text = _MATH_ROLE.sub(lambda m: f"${' '.join(m.group(1).split())}$", text)
    return _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`",
                     text)


def inline(text: str) -> str:
    """Inline reStructuredText as inline Markdown (roles, literals, math)."""
    return _escape(_LITERAL.sub(lambda m: f"`{m.group(1)}`", roles(text)))


def one_line(text: str) -> str:
    """A description as one line of Markdown for a table cell."""
    return inline(" ".join(text.split())).replace("|", "\\|")


def _indented(lines: list[str], i: int) -> tuple[list[str], int]:
    """The indented block starting at or after line ``i`` (blank lines inside kept)."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    block = []
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
        block.append(lines[i])
        i += 1
    while block and not block[-1].strip():
        block.pop()
    return [line for line in inspect.cleandoc("\n".join(block)).splitlines()], i


def _math(body: list[str]) -> list[str]:
    tex = "\n".join(body)
    if "&" in tex or "\\\\" in tex:
        tex = "\\begin{aligned}\n" + tex + "\n\\end{aligned}"
    return ["", "$$", *tex.splitlines(), "$$", ""]


def markdown(text: str) -> str:
    """A reStructuredText description (of a docstring) as Markdown."""
    # a role or a literal that runs over a line break, on one line
    text = _MATH_ROLE.sub(lambda m: f":math:`{' '.join(m.group(1).split())}`", text)
    text = re.sub(r"``([^`]+?)``", lambda m: f"``{' '.join(m.group(1).split())}``", text)
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(".. math::"):
            first = stripped[len(".. math::"):].strip()
            body, i = _indented(lines, i + 1)
            out += _math(([first] if first else []) + body)
            continue
        if stripped.startswith(".. "):  # another directive: its indented body as a note
            body, i = _indented(lines, i + 1)
            out += ["", *[inline(b) for b in body], ""]
            continue
        if stripped.endswith("::") and i + 1 < len(lines):
            lead = stripped[:-2].rstrip()
            if lead:
                out.append(inline(line.rstrip()[:-2].rstrip() + ":"))
            body, i = _indented(lines, i + 1)
            out += ["", "```text", *body, "```", ""]
            continue
        if stripped.startswith(("* ", "- ")) and out and out[-1].strip() and \
                not out[-1].lstrip().startswith(("* ", "- ")) and not line.startswith(" "):
            out.append("")  # Markdown wants a blank line before a list
        out.append(inline(line))
        i += 1
    return "\n".join(out).strip()
