"""The zero-crossing test, one definition for both back-ends.

The interpreted back-end (:mod:`blocksim.engine.events`, :mod:`blocksim.engine.segments`)
calls it as plain Python; the compiled back-end compiles the same function with numba.
"""

from __future__ import annotations


def has_crossed(g_old: float, g_new: float, direction: int) -> bool:
    """Whether g crossed zero in ``direction`` (+1 rising, -1 falling, 0 either) between two
    evaluations; leaving zero counts (a state reset onto g = 0, then moving away)."""
    if g_old <= 0.0 <= g_new and g_old != g_new:
        return direction >= 0
    if g_old >= 0.0 >= g_new and g_old != g_new:
        return direction <= 0
    return False
