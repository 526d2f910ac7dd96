"""Values shown in the mobile-robot classes' and vehicle blocks' messages: numbers as numbers.

``f"{value!r}"`` of a numpy scalar prints ``np.float64(-0.5)`` (numpy 2) where the user wrote
``-0.5``; :func:`plain` prints what the user wrote, shortened when long.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["plain"]

#: longest text of one value in a message
MAX_CHARS = 80


def plain(value: Any) -> str:
    """``value`` for a message: numbers plainly (``-0.5``, ``3``, ``inf``), arrays, lists and
    tuples as ``[a, b, ...]``, strings quoted, anything else by ``repr``; at most
    :data:`MAX_CHARS` characters.

    Parameters
    ----------
    value : object
        What the user gave.

    Returns
    -------
    str
    """
    text = _plain(value, 0)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 3] + "..."


def _plain(v: Any, depth: int) -> str:
    if isinstance(v, str):
        return repr(v[: MAX_CHARS + 1])
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return f"{float(v):g}"
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return _plain(v.item(), depth)
    if isinstance(v, (np.ndarray, list, tuple)) and depth < 4:
        items, size = [], 0
        for item in v:
            items.append(_plain(item, depth + 1))
            size += len(items[-1]) + 2
            if size > MAX_CHARS:
                break
        return "[" + ", ".join(items) + "]"
    return repr(v)
