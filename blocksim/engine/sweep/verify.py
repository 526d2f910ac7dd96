"""Checking a results folder read back as untrusted input (see
:mod:`blocksim.engine.sweep.folder` for its layout).

A folder to resume or to load may have been written by someone else, or tampered with. What
it holds is checked against what the batch must be before it is used:

* ``sweep.json``, ``index.json``, ``overrides.json``: regular files (not links), bounded JSON
  (:func:`~blocksim.engine.sweep.untrusted.read_json`) of the expected layout; the index must
  list exactly the chunks of the batch, by their own file names (``chunk-000000.npz``, ...:
  never a path) and member ranges;
* every chunk file: a regular file (not a link, FIFO or folder), a bounded ``.npz``
  (:func:`~blocksim.engine.sweep.untrusted.read_npz`) whose arrays are exactly the chunk's
  (``start``, ``t``, ``x``, ``signal_names``, ``s0`` ..., ``status``, ``errors``,
  ``overrides``), of the shapes its range and the diagram give (checked on the headers,
  before anything is inflated), holding the range the index assigns it, the batch's signal
  names and, when known, the members' overrides and the batch's recorded times.

A problem raises :class:`~blocksim.engine.sweep.untrusted.UntrustedFileError`: one line naming
the file and what is wrong, and what to do (a bad chunk is refused, not rewritten: nothing
already computed is lost; delete it and resume to run its members again).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.record import BatchResult, MemberError
from blocksim.engine.sweep.untrusted import (
    MAX_NPZ_BYTES,
    Header,
    UntrustedFileError,
    json_member,
    parse_json,
    read_npz,
)

#: longest member status string accepted in a chunk (``"success"``, ``"failed"``, ...)
MAX_STATUS_CHARS = 64
#: the arrays of a chunk file besides its signals ``s0``, ``s1``, ...
CHUNK_ARRAYS = ("start", "t", "x", "signal_names", "status", "errors", "overrides")


@dataclasses.dataclass(frozen=True)
class ChunkSpec:
    """What chunk ``index`` of a batch must hold.

    Attributes
    ----------
    index, start, stop : int
        The chunk's number and member range (from the batch, i.e. the index).
    signals : tuple of str
        The batch's signal names, in order.
    nx : int, optional
        Continuous states per member (unknown: taken from the chunk, checked against ``x``).
    shapes : tuple of shape, optional
        Each signal's shape per time point.
    times : ndarray, optional
        The recorded times every chunk shares.
    overrides : list, optional
        The chunk's members' overrides as JSON data.
    budget : float
        Most bytes the chunk's arrays may take once read.
    """

    index: int
    start: int
    stop: int
    signals: tuple[str, ...]
    nx: int | None = None
    shapes: tuple[tuple[int, ...], ...] | None = None
    times: np.ndarray | None = None
    overrides: list[Any] | None = None
    budget: float = MAX_NPZ_BYTES


def refuse_chunk(path: Path, problem: str) -> UntrustedFileError:
    """The error of a bad chunk file (refused, with how to run its members again)."""
    return UntrustedFileError(
        f"{path}: {problem}; refused, nothing was changed (delete this file and resume to run "
        f"its members again)"
    )


def _check_headers(path: Path, spec: ChunkSpec, h: dict[str, Header]) -> None:
    S = len(spec.signals)
    want = {*CHUNK_ARRAYS, *(f"s{k}" for k in range(S))}
    if set(h) != want:
        odd = sorted(set(h) ^ want)[:4]
        raise refuse_chunk(path, f"its arrays are not a chunk's (unexpected or missing: "
                                 f"{', '.join(repr(o[:40]) for o in odd)})")
    m = spec.stop - spec.start
    n = h["t"].shape[0] if len(h["t"].shape) == 1 else -1
    nx = h["x"].shape[-1] if spec.nx is None and len(h["x"].shape) == 3 else spec.nx
    if spec.times is not None and n != len(spec.times):
        raise refuse_chunk(path, f"'t' has shape {h['t'].shape}, the batch records "
                                 f"{len(spec.times)} times")
    expect: dict[str, tuple[tuple[int, ...] | None, str]] = {
        "start": ((), "iu"),
        "t": ((n,) if n >= 0 else None, "f"),
        "x": ((m, n, nx) if nx is not None else None, "f"),
        "signal_names": ((S,), "U"),
        "status": ((m,), "U"),
        "errors": ((m,), "U"),
        "overrides": ((), "U"),
    }
    for k in range(S):
        tail = spec.shapes[k] if spec.shapes is not None else h[f"s{k}"].shape[2:]
        expect[f"s{k}"] = ((m, n, *tail), "biuf")
    for name, (shape, kinds) in expect.items():
        got = h[name]
        if shape is None or got.shape != shape or got.dtype.kind not in kinds:
            what = f"shape {shape}" if shape is not None else "the right shape"
            raise refuse_chunk(
                path, f"array {name!r} is {got.dtype.str} {got.shape}, expected {what} "
                      f"(members {spec.start}..{spec.stop - 1})"
            )
    if h["status"].dtype.itemsize > 4 * MAX_STATUS_CHARS:
        raise refuse_chunk(path, "its member statuses are not statuses")


def _error(text: str, path: Path, m: int) -> MemberError | None:
    if not text:
        return None
    d = parse_json(text, f"{path} [errors, member {m}]", strict=True)
    fields = {f.name: f.type for f in dataclasses.fields(MemberError)}
    if not isinstance(d, dict) or not set(d) <= set(fields) or not isinstance(
        d.get("type"), str) or not isinstance(d.get("message"), str):
        raise refuse_chunk(path, f"the error of member {m} is not a member error")
    for key in ("block", "port"):
        if d.get(key) is not None and not isinstance(d[key], str):
            raise refuse_chunk(path, f"the error of member {m} is not a member error")
    if d.get("time") is not None and not isinstance(d["time"], (int, float)):
        raise refuse_chunk(path, f"the error of member {m} is not a member error")
    return MemberError(**d)


def read_chunk_checked(path: Path, spec: ChunkSpec) -> tuple[int, BatchResult]:
    """``(start, full result)`` of the chunk file ``path`` if it holds what ``spec`` says.

    Raises
    ------
    UntrustedFileError
        The file is not a regular file, is over the budget, or does not hold the chunk.
    """
    arrays = read_npz(path, budget=spec.budget, follow_links=False,
                      check=lambda h: _check_headers(path, spec, h))
    start = int(arrays["start"])
    if start != spec.start:
        raise refuse_chunk(
            path, f"it holds members from {start}, but the index assigns it members "
                  f"{spec.start}..{spec.stop - 1}"
        )
    names = [str(n) for n in arrays["signal_names"]]
    if tuple(names) != tuple(spec.signals):
        raise refuse_chunk(path, "its signal names are not the batch's")
    t = arrays["t"]
    scale = 1.0 if spec.times is None else float(np.max(np.abs(spec.times), initial=1.0))
    if spec.times is not None and not np.allclose(t, spec.times, rtol=0.0, atol=1e-9 * scale):
        raise refuse_chunk(path, "its times are not the batch's recorded times")
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) < 0):
        raise refuse_chunk(path, "its times are not finite and increasing")
    overrides = json_member(arrays, "overrides", str(path), strict=True)
    if spec.overrides is not None and overrides != spec.overrides:
        raise refuse_chunk(path, f"its members' overrides are not those of members "
                                 f"{spec.start}..{spec.stop - 1} of this batch")
    if not isinstance(overrides, list) or len(overrides) != spec.stop - spec.start:
        raise refuse_chunk(path, "its overrides are not one dict per member")
    status = np.array([str(s) for s in arrays["status"]])
    errors = [_error(str(e), path, spec.start + i) for i, e in enumerate(arrays["errors"])]
    signals = {n: arrays[f"s{k}"] for k, n in enumerate(names)}
    return start, BatchResult(t, arrays["x"], signals, overrides, status, {}, errors)


# ---------------------------------------------------------------------------- JSON files
def check_meta(path: Path, meta: Any) -> dict[str, Any]:
    """``sweep.json``'s content if it has the layout of a batch's description."""
    from blocksim.engine.sweep.folder import FORMAT, VERSION

    where = path / "sweep.json"
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise UntrustedFileError(f"{where}: not the description of a blocksim batch")
    if meta.get("version") != VERSION:
        raise UntrustedFileError(
            f"{where}: a batch folder of format version {str(meta.get('version'))[:20]}, this "
            f"blocksim reads version {VERSION}; run the batch again in a new folder"
        )
    M, chunk, chunks = meta.get("members"), meta.get("chunk"), meta.get("chunks")
    ok = (isinstance(M, int) and not isinstance(M, bool) and M >= 1
          and isinstance(chunk, int) and not isinstance(chunk, bool) and chunk >= 1
          and isinstance(chunks, list)
          and isinstance(meta.get("signals"), list)
          and all(isinstance(s, str) for s in meta["signals"])
          and isinstance(meta.get("fingerprint"), str))
    if ok:
        expected = [[s, min(s + chunk, M)] for s in range(0, M, chunk)] \
            if len(chunks) == -(-M // chunk) else None
        ok = expected is not None and chunks == expected
    if not ok:
        raise UntrustedFileError(
            f"{where}: its members, chunk size, chunk ranges, signals or fingerprint are "
            f"missing or inconsistent"
        )
    return meta


def check_index(path: Path, index: Any, ranges: list[list[int]] | list[tuple[int, int]]
                ) -> dict[str, Any]:
    """``index.json``'s content if it lists exactly the chunks ``ranges`` by their own file
    names (and failed members by number within the batch)."""
    from blocksim.engine.sweep.folder import chunk_file

    where = path / "index.json"
    rows = index.get("chunks") if isinstance(index, dict) else None
    if not isinstance(rows, list) or len(rows) != len(ranges):
        raise UntrustedFileError(f"{where}: does not list the {len(ranges)} chunks of the batch")
    for k, (row, (a, b)) in enumerate(zip(rows, ranges)):
        name = chunk_file(path, k).name
        if not isinstance(row, dict) or row.get("file") != name:
            got = row.get("file") if isinstance(row, dict) else row
            raise UntrustedFileError(
                f"{where}: chunk {k} is listed as {str(got)[:80]!r}, not {name!r} (an index "
                f"names only its own chunk files)"
            )
        if row.get("start") != a or row.get("stop") != b:
            raise UntrustedFileError(
                f"{where}: {name} is listed with members {str(row.get('start'))[:20]}.."
                f"{str(row.get('stop'))[:20]}, the batch assigns it members {a}..{b - 1}"
            )
    failed = index.get("failed", [])
    M = ranges[-1][1] if ranges else 0
    if not isinstance(failed, list) or not all(
        isinstance(f, dict) and isinstance(f.get("member"), int) and 0 <= f["member"] < M
        and (f.get("error") is None or isinstance(f["error"], dict)) for f in failed
    ):
        raise UntrustedFileError(f"{where}: its list of failed members is malformed")
    return index


def lost_errors(path: Path, index: dict[str, Any]) -> dict[int, MemberError]:
    """The recorded errors of failed members of chunks that have no file."""
    out = {}
    for f in index.get("failed", []):
        if f.get("error"):
            e = _error(json.dumps(f["error"]), path / "index.json", f["member"])
            if e is not None:
                out[f["member"]] = e
    return out


def chunk_present(path: Path) -> bool:
    """Whether a chunk's file exists in any form (a link, a folder, a FIFO counts: it is
    then refused when read, rather than silently run again)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True
