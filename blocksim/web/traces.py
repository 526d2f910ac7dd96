"""What the editor's page plots after a run: the scopes of a diagram and its recorded traces.

:func:`scopes_of` names the scopes of a compiled plan (each :class:`~blocksim.blocks.Scope`
with its title and the signals wired to it, and each XYGraph); the run's worker sends them
with its end message. :func:`traces` reads a run's recorded result (the ``.npz`` of
:meth:`SimResult.save`, through :meth:`SimResult.load`'s checks) and gives the signals asked
for as strict JSON, at most :data:`MAX_POINTS` samples per signal (evenly strided, the last
sample always kept) and :data:`MAX_SIGNALS` signals, so a page can draw them at once.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

#: most samples per signal sent to the page (a chart is at most a few thousand pixels wide)
MAX_POINTS = 4000
#: most signals in one answer
MAX_SIGNALS = 64
#: most elements of one signal (a 6-vector of joint angles is common; an image is not a trace)
MAX_ELEMENTS = 64


class TraceError(ValueError):
    """A request for traces that cannot be answered (unknown signal, too many)."""


def scopes_of(plan: Any) -> list[dict[str, Any]]:
    """The scopes of ``plan`` in diagram order: ``{"name", "kind", "title", "labels",
    "signals"}``, ``signals`` the names of the signals wired to its inputs (``"x.y"``)."""
    out: list[dict[str, Any]] = []
    for entry in plan.entries:
        kind = type(entry.block).__name__
        if kind not in ("Scope", "XYGraph"):
            continue
        signals = [plan.signal_names[s] for s in entry.in_slots]
        labels = getattr(entry.block, "labels", None)
        if isinstance(labels, str):
            labels = [labels]
        out.append({
            "name": entry.name,
            "kind": kind,
            "title": getattr(entry.block, "title", None) or entry.name,
            "labels": [str(v) for v in labels] if labels else signals,
            "signals": signals,
        })
    return out


def _number(v: float) -> float | str:
    if math.isfinite(v):
        return v
    return "=nan" if math.isnan(v) else ("=inf" if v > 0 else "=-inf")


def _column(values: np.ndarray) -> list[float | str | None]:
    if values.dtype.kind == "c":
        values = values.real
    values = values.astype(float)
    if np.all(np.isfinite(values)):
        return values.tolist()
    return [_number(float(v)) for v in values]


def traces(npz: str | Path, signals: list[str] | None = None,
           max_points: int = MAX_POINTS) -> dict[str, Any]:
    """The recorded traces of a run, for plotting.

    Parameters
    ----------
    npz : str or Path
        The run's result file (:meth:`SimResult.save`).
    signals : list of str, optional
        The signals wanted (``"block.port"``); default every recorded signal (at most
        :data:`MAX_SIGNALS`, in recording order).
    max_points : int
        Most samples per signal.

    Returns
    -------
    dict
        ``{"t": [...], "signals": {name: [[element 0 values], [element 1 values], ...]},
        "shapes": {name: shape}, "points": n, "recorded": N}``: each signal as one list per
        element (a scalar has one), non-finite values written ``"=nan"``/``"=inf"`` as the
        diagram format writes them; ``points`` samples of the ``recorded``.

    Raises
    ------
    TraceError
        A signal that was not recorded, or too many asked for.
    """
    from blocksim.engine.record import SimResult

    result = SimResult.load(npz)
    names = list(result.signals)
    if signals is None:
        wanted = names[:MAX_SIGNALS]
    else:
        if len(signals) > MAX_SIGNALS:
            raise TraceError(f"at most {MAX_SIGNALS} signals at once ({len(signals)} asked)")
        unknown = [s for s in signals if s not in result]
        if unknown:
            raise TraceError(f"signal {unknown[0]!r} was not recorded; recorded: "
                             f"{', '.join(names[:20])}{' ...' if len(names) > 20 else ''}")
        wanted = list(signals)
    t = np.asarray(result.t, dtype=float)
    n = len(t)
    if n > max_points:
        index = np.unique(np.append(np.linspace(0, n - 1, max_points - 1).round().astype(int),
                                    n - 1))
    else:
        index = np.arange(n)
    out: dict[str, Any] = {"t": _column(t[index]), "signals": {}, "shapes": {},
                           "points": len(index), "recorded": int(n)}
    for name in wanted:
        values = np.asarray(result[name])
        if values.ndim == 0 or values.shape[0] != n or values.dtype.kind not in "biufc":
            continue  # not a trace over time (e.g. a held object)
        flat = values[index].reshape(len(index), -1)
        if flat.shape[1] > MAX_ELEMENTS:
            continue
        out["signals"][name] = [_column(flat[:, k]) for k in range(flat.shape[1])]
        out["shapes"][name] = list(values.shape[1:])
    return out
