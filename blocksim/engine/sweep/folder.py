"""A results folder of a batch: full traces per chunk, an index, and resuming.

Layout of ``out/``:

Every JSON file (and JSON text inside a chunk file) is standard JSON: non-finite numbers
(``max_step = inf``, an override of ``nan``) are written as the strings ``"inf"``,
``"-inf"`` and ``"nan"`` (:func:`jsonable`; ``sweep.json`` says so in its ``"notes"``), an
error's unknown time as ``null``, and the files are read back as standard JSON only.

* ``sweep.json`` — what the batch is (diagram name and content hash, members, chunk size,
  run options, a fingerprint of all of it and of every member's overrides:
  :mod:`blocksim.engine.sweep.digest`), written before any member runs;
* ``overrides.json`` — every member's overrides (noise seeds included), in member order;
* ``chunk-000000.npz`` ... — one file per finished chunk, written by whoever ran the chunk
  (a Dask worker: the folder must be on a file system the workers share) under a temporary
  name and renamed, so a file that exists is complete. Arrays: ``start``, ``t`` (n,), ``x``
  (m, n, nx), ``signal_names`` and ``s0``, ``s1``, ... (m, n, *shape) in that order,
  ``status`` (m,), ``errors`` (m JSON strings, empty for members that did not fail);
* ``index.json`` — every chunk (file, members, ``done`` / ``lost`` / ``pending``) and every
  failed member with its overrides and error, rewritten at the start and at the end.

Resuming (``resume=True``) recomputes the fingerprint from the diagram, members and options
given and compares it, keeps the chunks whose files exist and runs only the others.
:func:`load_sweep` reads a folder back as one full :class:`~blocksim.engine.record.BatchResult`.
Both read the folder as untrusted input: every file is checked before it is used
(:mod:`blocksim.engine.sweep.verify`), a bad one refused with one line naming it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.record import BatchResult, MemberError
from blocksim.engine.sweep.digest import fingerprint
from blocksim.engine.sweep.untrusted import MAX_NPZ_BYTES, UntrustedFileError, read_json
from blocksim.engine.sweep.verify import (
    ChunkSpec,
    check_index,
    check_meta,
    chunk_present,
    lost_errors,
    read_chunk_checked,
)

FORMAT = "blocksim-sweep"
#: 2: the fingerprint hashes the diagram's content (``diagram_sha256``), not only its name;
#: 3: standard JSON only (non-finite numbers as the strings "inf", "-inf", "nan")
VERSION = 3
#: the note ``sweep.json`` carries about non-finite numbers
NOTES = ('non-finite numbers are written as the strings "inf", "-inf" and "nan"; an '
         "error's unknown time as null")


def chunk_file(folder: str | os.PathLike[str], index: int) -> Path:
    """The path of chunk ``index`` in ``folder``."""
    return Path(folder) / f"chunk-{index:06d}.npz"


def jsonable(value: Any) -> Any:
    """``value`` as standard JSON data: numpy scalars and arrays as numbers and lists,
    non-finite floats as the strings ``"inf"``, ``"-inf"``, ``"nan"``, other objects as their
    ``repr``."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # "inf", "-inf", "nan"
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def dumps(data: Any, **kwargs: Any) -> str:
    """``data`` (made :func:`jsonable`) as standard JSON text (``allow_nan=False`` guards
    it)."""
    return json.dumps(jsonable(data), allow_nan=False, **kwargs)


def _error_dict(e: MemberError) -> dict[str, Any]:
    """An error as JSON data: a time that is not finite is unknown (null)."""
    d = dataclasses.asdict(e)
    if d.get("time") is not None and not math.isfinite(d["time"]):
        d["time"] = None
    return d


def _error_json(e: MemberError | None) -> str:
    return "" if e is None else dumps(_error_dict(e))


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
        overrides=np.array(dumps(res.overrides)),
        **arrays,
    )
    os.replace(tmp, path)
    return path


def read_chunk(folder: str | os.PathLike[str], spec: ChunkSpec) -> tuple[int, BatchResult]:
    """``(start, full result)`` of chunk ``spec.index``, checked against ``spec``
    (:func:`~blocksim.engine.sweep.verify.read_chunk_checked`).

    Raises
    ------
    UntrustedFileError
        The file is missing, not a regular file, over the budget, or not the chunk.
    """
    return read_chunk_checked(chunk_file(folder, spec.index), spec)


def folder_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a results folder (a link, a file, a FIFO...), or None."""
    if path.is_symlink():
        return (f"results folder '{path}' is a symbolic link (to '{os.readlink(path)}'); "
                f"name the folder itself")
    if path.exists() and not path.is_dir():
        return f"results folder '{path}' is a file, not a folder; choose another folder"
    for up in path.absolute().parents:
        if up.is_symlink() or up.exists():
            if not up.is_dir():
                return (f"results folder '{path}' cannot be made: '{up}' is a file, not a "
                        f"folder")
            break
    return None


def read_meta(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The checked ``sweep.json`` of ``folder`` (None if there is none)."""
    path = Path(folder)
    problem = folder_problem(path)
    if problem:
        raise UntrustedFileError(problem)
    if not chunk_present(path / "sweep.json"):
        return None
    try:
        meta = read_json(path / "sweep.json", follow_links=False, strict=True)
    except UntrustedFileError:
        # an older folder (Infinity in version 2's sweep.json): say which version it is
        try:
            older = read_json(path / "sweep.json", follow_links=False)
        except UntrustedFileError:
            older = None
        if isinstance(older, dict) and older.get("version") != VERSION:
            check_meta(path, older)
        raise
    return check_meta(path, meta)


def open_folder(
    folder: str | os.PathLike[str],
    meta: dict[str, Any],
    members: list[dict[str, Any]],
    resume: bool,
) -> tuple[set[int], dict[int, MemberError]]:
    """Prepare ``folder`` for a batch described by ``meta`` (with ``"chunks"`` its member
    ranges); returns the chunks whose files are there (on ``resume``; each is checked when
    read) and the recorded errors of failed members.

    Raises
    ------
    ValueError
        The folder holds another batch (the differences named), or holds this one without
        ``resume``, or ``resume`` is asked of a folder without a batch, or its files are not
        a batch's (:class:`~blocksim.engine.sweep.untrusted.UntrustedFileError`), or it is
        a file or a link.
    """
    path = Path(folder)
    meta = dict(meta, notes=NOTES)
    meta["fingerprint"] = fingerprint(meta, members)
    old = read_meta(path)
    if old is not None:
        if not resume:
            raise ValueError(
                f"results folder {str(path)!r} already holds a batch of "
                f"{old.get('members')} members; pass resume=True (--resume) to "
                f"finish it, or choose another folder"
            )
        if old["fingerprint"] != meta["fingerprint"]:
            diffs = [
                k
                for k in ("diagram", "diagram_sha256", "members", "chunk", "config", "signals")
                if old.get(k) != jsonable(meta.get(k))
            ] or ["the members' overrides"]
            raise ValueError(
                f"cannot resume in {str(path)!r}: it holds another batch "
                f"(what differs: {', '.join(diffs)}); rerun with the same diagram, "
                f"members, options and chunk size, or choose another folder"
            )
        stored = read_json(path / "overrides.json", follow_links=False, strict=True)
        if stored != jsonable(members):
            raise UntrustedFileError(
                f"{path / 'overrides.json'}: not the members' overrides of this batch "
                f"(sweep.json's fingerprint is); refused"
            )
        index = check_index(path, read_json(path / "index.json", follow_links=False,
                                            strict=True), meta["chunks"])
        done = {k for k in range(len(meta["chunks"])) if chunk_present(chunk_file(path, k))}
        return done, lost_errors(path, index)
    if resume:
        raise ValueError(
            f"cannot resume: {str(path)!r} holds no batch (no sweep.json); run "
            f"without resume to start one there"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UntrustedFileError(
            f"results folder '{path}' cannot be made ({exc.strerror or exc})"
        ) from None
    _write_json(path / "overrides.json", jsonable(members))
    _write_json(path / "sweep.json", meta)
    write_index(path, meta["chunks"], {}, [], [])
    return set(), {}


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
            "error": None if errors[m] is None else _error_dict(errors[m]),
        }
        for m in failed
    ]
    _write_json(Path(folder) / "index.json", {"chunks": rows, "failed": fails})


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_text(dumps(data, indent=1))
    os.replace(tmp, path)


def load_sweep(folder: str | os.PathLike[str], max_memory: float = MAX_NPZ_BYTES
               ) -> BatchResult:
    """Every member's full traces from a results folder, in member order (members of chunks
    that have no file are NaN and ``"failed"``, with the error recorded in the index).

    The folder is read as untrusted input (:mod:`blocksim.engine.sweep.verify`): its JSON
    files bounded and of the expected layout, every chunk file checked against the index and
    the first chunk before it is inflated, the whole result at most ``max_memory`` bytes.

    Raises
    ------
    ValueError
        ``folder`` holds no batch, or no chunk file at all, or a file that is not what it
        should be (:class:`~blocksim.engine.sweep.untrusted.UntrustedFileError`).
    """
    path = Path(folder)
    meta = read_meta(path)
    if meta is None:
        raise ValueError(f"{str(path)!r} holds no batch results (no sweep.json)")
    M, ranges, names = meta["members"], meta["chunks"], tuple(meta["signals"])
    overrides = read_json(path / "overrides.json", follow_links=False, strict=True)
    if not isinstance(overrides, list) or len(overrides) != M or not all(
            isinstance(o, dict) for o in overrides):
        raise UntrustedFileError(f"{path / 'overrides.json'}: not one dict per member")
    index = check_index(path, read_json(path / "index.json", follow_links=False,
                                        strict=True), ranges)
    lost = lost_errors(path, index)
    first: BatchResult | None = None
    parts = []
    for k, (a, b) in enumerate(ranges):
        if not chunk_present(chunk_file(path, k)):
            continue
        spec = ChunkSpec(k, a, b, names, budget=max_memory, overrides=overrides[a:b])
        if first is not None:
            spec = dataclasses.replace(
                spec, nx=first.x.shape[2], times=first.t,
                shapes=tuple(first.signals[n].shape[2:] for n in names))
        start, res = read_chunk(path, spec)
        if first is None:
            first = res
            per_member = res.x[0].nbytes + sum(v[0].nbytes for v in res.signals.values())
            if M * per_member > max_memory:
                raise UntrustedFileError(
                    f"{path}: its {M} members' traces would take {M * per_member} bytes, "
                    f"more than the {int(max_memory)} accepted (max_memory=)"
                )
        parts.append((start, res))
    if first is None:
        raise ValueError(f"{str(path)!r} holds no finished chunk yet")
    x = np.full((M, *first.x.shape[1:]), np.nan)
    signals = {n: np.full((M, *a.shape[1:]), np.nan) for n, a in first.signals.items()}
    status = np.array(["failed"] * M, dtype=object)
    errors: list[MemberError | None] = [lost.get(m) for m in range(M)]
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
