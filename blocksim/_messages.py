"""Values shown in messages as the user wrote them (no dependency on the rest of blocksim, so
that every layer, the standalone drivers and robotics core included, can use it).

``f"{value!r}"`` of a numpy scalar prints ``np.float64(-0.5)`` (numpy 2) where the user wrote
``-0.5``; :func:`plain` prints ``-0.5``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

#: longest text of one value in a message
PLAIN_CHARS = 80


def plain(value: Any) -> str:
    """``value`` for a message, as the user would write it: numbers plainly (``-0.5``, ``3``,
    ``inf``; ``f"{value!r}"`` of a numpy scalar would print ``np.float64(-0.5)``), arrays,
    lists and tuples as ``[a, b, ...]``, strings quoted, anything else by ``repr``; at most
    :data:`PLAIN_CHARS` characters.

    Parameters
    ----------
    value : object
        What the user gave.

    Returns
    -------
    str
    """
    text = _plain(value, 0)
    return text if len(text) <= PLAIN_CHARS else text[: PLAIN_CHARS - 3] + "..."


def _plain(v: Any, depth: int) -> str:
    if isinstance(v, str):
        return repr(v[: PLAIN_CHARS + 1])
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))  # the shortest text that reads back as the same number
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return _plain(v.item(), depth)
    if isinstance(v, (np.ndarray, list, tuple)) and depth < 4:
        items, size = [], 0
        for item in v:
            items.append(_plain(item, depth + 1))
            size += len(items[-1]) + 2
            if size > PLAIN_CHARS:
                break
        text = ", ".join(items)
        return f"({text}{',' if len(items) == 1 else ''})" if isinstance(v, tuple) else f"[{text}]"
    return repr(v)


__all__ = ["PLAIN_CHARS", "plain"]
