"""A batch's results as text: members named by their swept values, a table of each member's
outcome and kept statistics, the range of each statistic, and the failures.

A member is named by the values that differ between the members (the grid's axes, the
``--vary`` draws; the noise seeds only when nothing else differs), e.g.
``pid.Kp=2.5, pid.Ki=0.1 [3]``: the values are those to give ``blocksim run --set`` to run it
alone, the member number in brackets. ``blocksim sweep`` prints these
(:mod:`blocksim.cli.sweep`).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.engine.record import BatchResult

#: components of a vector statistic shown in a table cell (more: the first ones and a count)
CELL_COMPONENTS = 6
#: widest table line [characters]; statistics past it are left to the range lines
TABLE_WIDTH = 120
#: numbers in error messages, masked when grouping failures by message
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
#: members named per group of failures
_NAMED = 3


def swept_keys(members: Sequence[dict[str, Any]], preferred: Sequence[str] = ()) -> list[str]:
    """The override keys that name the members: ``preferred`` (the grid's axes, the varied
    parameters) when given, else the keys whose values differ between members, but not the
    noise seeds (``block.seed``: members that differ only in them are named by number)."""
    if preferred:
        return list(preferred)
    keys: list[str] = []
    for m in members:
        keys += [k for k in m if k not in keys]
    return [k for k in keys if not k.endswith(".seed")
            and len({repr(m.get(k)) for m in members}) > 1]


def value_text(v: Any) -> str:
    """A swept value as ``--set`` takes it: floats to 6 significant digits, plain text."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ",".join(value_text(x) for x in np.asarray(v).ravel().tolist()) + "]"
    text = str(v)
    return text if len(text) <= 40 else text[:37] + "..."


def member_label(members: Sequence[dict[str, Any]], m: int, keys: Sequence[str]) -> str:
    """Member ``m`` named by its values of ``keys``, its number in brackets:
    ``"pid.Kp=2.5, pid.Ki=0.1 [3]"`` (``"member 3"`` without keys)."""
    if not keys or m >= len(members):
        return f"member {m}"
    ov = members[m]
    return ", ".join(f"{k}={value_text(ov.get(k))}" for k in keys) + f" [{m}]"


def number(v: float) -> str:
    """A statistic's value, 4 significant digits."""
    return f"{v:.4g}" if math.isfinite(v) else str(v)


def cell(a: np.ndarray) -> str:
    """One member's value of a statistic: a number, or a vector ``[a, b, c]`` (its first
    :data:`CELL_COMPONENTS` components and how many there are)."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0:
        return number(float(a))
    flat = a.ravel()
    shown = ", ".join(number(float(v)) for v in flat[:CELL_COMPONENTS])
    more = f", ... {flat.size} values" if flat.size > CELL_COMPONENTS else ""
    return f"[{shown}{more}]"


def _numeric(res: BatchResult, name: str) -> np.ndarray | None:
    a = np.asarray(getattr(res, "summary", {})[name])
    return a.astype(float) if a.dtype.kind in "biuf" else None


def member_table(res: BatchResult, keys: Sequence[str], rows: int) -> list[str]:
    """Lines of a table: one row per member (its swept values, status and every kept
    statistic that fits in :data:`TABLE_WIDTH`), at most ``rows`` rows."""
    summary = getattr(res, "summary", {})
    M = len(res)
    shown = list(range(min(M, rows)))
    cols: list[tuple[str, list[str]]] = [
        (k, [value_text(res.overrides[m].get(k)) if m < len(res.overrides) else ""
             for m in shown]) for k in keys]
    if not keys:  # nothing swept names them: their numbers do
        cols.insert(0, ("member", [str(m) for m in shown]))
    cols.append(("status", [str(res.status[m]) for m in shown]))
    width = sum(max(len(h), *(len(c) for c in v)) + 2 for h, v in cols)
    left = []
    for name in summary:
        a = _numeric(res, name)
        if a is None:
            continue
        col = (name, [cell(a[m]) for m in shown])
        w = max(len(name), *(len(c) for c in col[1])) + 2
        if width + w > TABLE_WIDTH and len(cols) > len(keys) + 2 - bool(keys):
            left.append(name)
            continue
        cols.append(col)
        width += w
    sizes = [max(len(h), *(len(c) for c in v)) for h, v in cols]
    lines = ["  " + "  ".join(h.ljust(s) for (h, _), s in zip(cols, sizes)).rstrip()]
    for r in range(len(shown)):
        lines.append("  " + "  ".join(v[r].ljust(s) for (_, v), s in zip(cols, sizes)).rstrip())
    if M > len(shown):
        lines.append(f"  ... and {M - len(shown)} more members")
    if left:
        lines.append(f"  (not in the table: {', '.join(left)})")
    return lines


def range_lines(res: BatchResult, keys: Sequence[str], most: int) -> list[str]:
    """Per kept statistic (at most ``most``), its smallest, median and largest value over the
    members, the members named by their swept values (a vector statistic: its largest
    component in absolute value, e.g. the fastest rotor)."""
    summary = getattr(res, "summary", {})
    names = list(summary)[:most]
    width = max((len(k) for k in names), default=0)
    lines = []
    for k in names:
        a = _numeric(res, k)
        if a is None:
            continue
        what = ""
        if a.ndim > 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                a = np.nanmax(np.abs(a.reshape(len(a), -1)), axis=1)
            what = "largest |component|: "
        if not np.isfinite(a).any():
            lines.append(f"  {k:<{width}}  no finite value")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = int(np.nanargmin(a)), int(np.nanargmax(a))
            med = float(np.nanmedian(a))
        lines.append(
            f"  {k:<{width}}  {what}min {number(a[lo])} at "
            f"{member_label(res.overrides, lo, keys)}, median {number(med)}, max "
            f"{number(a[hi])} at {member_label(res.overrides, hi, keys)}")
    if len(summary) > most:
        lines.append(f"  ... and {len(summary) - most} more statistics")
    return lines


def failures(res: BatchResult, keys: Sequence[str]) -> str:
    """One line, as :meth:`~blocksim.engine.record.BatchResult.failures` but naming the
    failed members by their swept values: ``"1 of 3 members failed: 1 x NonFiniteError: ...
    (gain.K=1e+06 [1])"``; ``"no member failed"`` when none did."""
    failed = [int(m) for m in res.failed]
    if not failed:
        return "no member failed"
    groups: dict[tuple[str, str], list[int]] = {}
    for m in failed:
        err = res.errors[m] if m < len(res.errors) else None
        key = ("", "cause not reported") if err is None else \
            (err.type, _NUMBER.sub("#", err.message))
        groups.setdefault(key, []).append(m)
    parts = []
    for members in sorted(groups.values(), key=len, reverse=True):
        first = res.errors[members[0]] if members[0] < len(res.errors) else None
        why = str(first) if first is not None else "cause not reported by the back-end"
        named = "; ".join(member_label(res.overrides, m, keys) for m in members[:_NAMED])
        more = f"; ... {len(members) - _NAMED} more" if len(members) > _NAMED else ""
        parts.append(f"{len(members)} x {why} ({named}{more})")
    return f"{len(failed)} of {len(res)} members failed: " + "; ".join(parts)


__all__ = ["cell", "failures", "member_label", "member_table", "range_lines",
           "swept_keys", "value_text"]
