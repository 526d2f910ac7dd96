"""A results folder of a batch: full traces per chunk, an index, and resuming.

Layout of ``out/``:

* ``sweep.json`` — what the batch is (diagram, members, chunk size, run options, a
  fingerprint of all of it and of every member's overrides), written before any member runs;
* ``overrides.json`` — every member's overrides (noise seeds included), in member order;
* ``chunk-000000.npz`` ... — one file per finished chunk, written by whoever ran the chunk
  (a Dask worker: the folder must be on a file system the workers share) under a temporary
  name and renamed, so a file that exists is complete. Arrays: ``start``, ``t`` (n,), ``x``
  (m, n, nx), ``signal_names`` and ``s0``, ``s1``, ... (m, n, *shape) in that order,
  ``status`` (m,), ``errors`` (m JSON strings, empty for members that did not fail);
* ``index.json`` — every chunk (file, members, ``done`` / ``lost`` / ``pending``) and every
  failed member with its overrides and error, rewritten at the start and at the end.

Resuming (``resume=True``) checks the fingerprint, keeps the chunks whose files exist and runs
only the others. :func:`load_sweep` reads a folder back as one full
:class:`~blocksim.engine.record.BatchResult`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.record import BatchResult, MemberError

FORMAT = "blocksim-sweep"
VERSION = 1


def chunk_file(folder: str | os.PathLike[str], index: int) -> Path:
    """The path of chunk ``index`` in ``folder``."""
    return Path(folder) / f"chunk-{index:06d}.npz"


def jsonable(value: Any) -> Any:
    """``value`` as JSON data: numpy scalars and arrays as numbers and lists, other objects
    as their ``repr``."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def _error_json(e: MemberError | None) -> str:
    return "" if e is None else json.dumps(dataclasses.asdict(e))


def _error_from(text: str) -> MemberError | None:
    return None if not text else MemberError(**json.loads(text))


def write_chunk(folder: str | os.PathLike[str], index: int, start: int, res: BatchResult) -> Path:
    """Write one chunk's full result (atomically: a temporary file renamed)."""
    path = chunk_file(folder, index)
    names = list(res.signals)
    arrays = {f"s{k}": res.signals[n] for k, n in enumerate(names)}
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex}.tmp.npz")
    np.savez(
        tmp,
        start=np.int64(start),
        t=res.t,
        x=res.x,
        signal_names=np.array(names, dtype=str),
        status=np.array([str(s) for s in res.status], dtype=str),
        errors=np.array([_error_json(e) for e in res.errors], dtype=str),
        overrides=np.array(json.dumps(jsonable(res.overrides))),
        **arrays,
    )
    os.replace(tmp, path)
    return path


def read_chunk(folder: str | os.PathLike[str], index: int) -> tuple[int, BatchResult]:
    """``(start, full result)`` of chunk ``index``; ``OSError``/``ValueError`` if the file
    is missing or unreadable."""
    with np.load(chunk_file(folder, index), allow_pickle=False) as z:
        names = [str(n) for n in z["signal_names"]]
        signals = {n: z[f"s{k}"] for k, n in enumerate(names)}
        res = BatchResult(
            z["t"],
            z["x"],
            signals,
            json.loads(str(z["overrides"])),
            np.array([str(s) for s in z["status"]]),
            {},
            [_error_from(str(e)) for e in z["errors"]],
        )
        return int(z["start"]), res


def fingerprint(meta: dict[str, Any], members: list[dict[str, Any]]) -> str:
    """A hash of the batch's description and of every member's overrides."""
    h = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    h.update(json.dumps(jsonable(members), sort_keys=True).encode())
    return h.hexdigest()


def open_folder(
    folder: str | os.PathLike[str],
    meta: dict[str, Any],
    members: list[dict[str, Any]],
    resume: bool,
) -> set[int]:
    """Prepare ``folder`` for a batch described by ``meta`` (with ``"chunks"`` its member
    ranges); returns the chunks already done (on ``resume``).

    Raises
    ------
    ValueError
        The folder holds another batch (the differences named), or holds this one without
        ``resume``, or ``resume`` is asked of a folder without a batch.
    """
    path = Path(folder)
    sweep_json = path / "sweep.json"
    meta = dict(meta, fingerprint=fingerprint(meta, members))
    if sweep_json.exists():
        old = json.loads(sweep_json.read_text())
        if not resume:
            raise ValueError(
                f"results folder {str(path)!r} already holds a batch of "
                f"{old.get('members')} members; pass resume=True (--resume) to "
                f"finish it, or choose another folder"
            )
        if old.get("fingerprint") != meta["fingerprint"]:
            diffs = [
                k
                for k in ("diagram", "members", "chunk", "config", "signals")
                if old.get(k) != meta.get(k)
            ] or ["the members' overrides"]
            raise ValueError(
                f"cannot resume in {str(path)!r}: it holds another batch "
                f"(what differs: {', '.join(diffs)}); rerun with the same diagram, "
                f"members, options and chunk size, or choose another folder"
            )
        done = set()
        for k in range(len(meta["chunks"])):
            if chunk_file(path, k).exists():
                done.add(k)
        return done
    if resume:
        raise ValueError(
            f"cannot resume: {str(path)!r} holds no batch (no sweep.json); run "
            f"without resume to start one there"
        )
    path.mkdir(parents=True, exist_ok=True)
    _write_json(path / "overrides.json", jsonable(members))
    _write_json(sweep_json, meta)
    write_index(path, meta["chunks"], {}, [], [])
    return set()


def write_index(
    folder: str | os.PathLike[str],
    chunks: Sequence[Sequence[int]],
    state: dict[int, str],
    failed: list[int],
    errors: Sequence[MemberError | None],
    members: Sequence[Any] = (),
) -> None:
    """Write ``index.json``: each chunk's file, members and state (``pending`` unless
    ``state`` says ``done`` or ``lost``) and each failed member's overrides and error."""
    rows = [
        {
            "file": chunk_file(folder, k).name,
            "start": int(a),
            "stop": int(b),
            "state": state.get(k, "pending"),
        }
        for k, (a, b) in enumerate(chunks)
    ]
    fails = [
        {
            "member": int(m),
            "overrides": jsonable(members[m]) if m < len(members) else None,
            "error": None if errors[m] is None else dataclasses.asdict(errors[m]),
        }
        for m in failed
    ]
    _write_json(Path(folder) / "index.json", {"chunks": rows, "failed": fails})


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def load_sweep(folder: str | os.PathLike[str]) -> BatchResult:
    """Every member's full traces from a results folder, in member order (members of chunks
    that have no file are NaN and ``"failed"``, with the error recorded in the index).

    Raises
    ------
    ValueError
        ``folder`` holds no batch, or no chunk file at all.
    """
    path = Path(folder)
    if not (path / "sweep.json").exists():
        raise ValueError(f"{str(path)!r} holds no batch results (no sweep.json)")
    meta = json.loads((path / "sweep.json").read_text())
    overrides = json.loads((path / "overrides.json").read_text())
    index = json.loads((path / "index.json").read_text())
    lost = {f["member"]: f["error"] for f in index.get("failed", [])}
    M = int(meta["members"])
    parts = [
        read_chunk(path, k) for k in range(len(meta["chunks"])) if chunk_file(path, k).exists()
    ]
    if not parts:
        raise ValueError(f"{str(path)!r} holds no finished chunk yet")
    first = parts[0][1]
    x = np.full((M, *first.x.shape[1:]), np.nan)
    signals = {n: np.full((M, *a.shape[1:]), np.nan) for n, a in first.signals.items()}
    status = np.array(["failed"] * M, dtype=object)
    errors: list[MemberError | None] = [
        MemberError(**lost[m]) if lost.get(m) else None for m in range(M)
    ]
    for start, res in parts:
        stop = start + len(res)
        x[start:stop] = res.x
        for n, a in res.signals.items():
            signals[n][start:stop] = a
        status[start:stop] = res.status
        errors[start:stop] = res.errors
    return BatchResult(
        first.t,
        x,
        signals,
        overrides,
        np.array([str(s) for s in status]),
        {"folder": str(path)},
        errors,
    )
