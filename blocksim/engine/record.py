"""Recording a run and the :class:`SimResult` it produces.

Shapes (N recorded time points, nx continuous states):

* ``result.t`` — ``(N,)`` times [s], non-decreasing;
* ``result.x`` — ``(N, nx)`` continuous state;
* ``result["block.port"]`` — ``(N,)`` for a scalar signal, ``(N, *shape)`` otherwise. An input
  port name (``"scope.u0"``) gives the signal that drives it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import replacing
from blocksim.engine.errors import suggest
from blocksim.engine.figures import Figures

_META = "__blocksim_meta__"


class SimResult:
    """The recorded outcome of a simulation.

    Attributes
    ----------
    t : ndarray, shape (N,)
        Recorded times [s].
    x : ndarray, shape (N, nx)
        Continuous state at those times.
    state_names : list of str
        ``"block.state"`` name of each column of ``x``.
    stats : dict
        Run statistics: ``nfev`` (right-hand-side evaluations), ``nsteps`` (accepted solver
        steps), ``nrejected``, ``nsegments`` (solver (re)starts), ``wall_time`` [s],
        ``realtime_factor`` (simulated seconds per wall-clock second), ``solver``, ...
    status : str
        ``"success"``, ``"failed"`` or ``"stopped"``.
    message : str
        Why the run ended, when not a success.
    figures : Figures
        Figures made by sink blocks, by block name (not saved by :meth:`save`); a mapping
        whose figures that were neither saved nor shown are drawn when first accessed.
    """

    def __init__(self, t: np.ndarray, x: np.ndarray, signals: dict[str, np.ndarray],
                 state_names: Sequence[str], stats: dict[str, Any] | None = None,
                 aliases: dict[str, str] | None = None, status: str = "success",
                 message: str = ""):
        self.t = np.asarray(t, dtype=float)
        x = np.asarray(x, dtype=float)
        self.x = x if x.ndim == 2 else x.reshape(len(self.t), -1 if len(self.t) else 0)
        self._signals = dict(signals)
        self._aliases = dict(aliases or {})
        self.state_names = list(state_names)
        self.stats = dict(stats or {})
        self.status = status
        self.message = message
        self.figures = Figures()
        #: path in the flattened diagram of each block object (``id(block) -> path``), so a
        #: block inside a subsystem can find its own signals; not saved
        self.block_paths: dict[int, str] = {}

    @property
    def signals(self) -> list[str]:
        """Names ``"block.port"`` of the recorded output signals."""
        return list(self._signals)

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._signals:
            return self._signals[name]
        if name in self._aliases:
            return self._signals[self._aliases[name]]
        if name in self.state_names:
            return self.x[:, self.state_names.index(name)]
        known = list(self._signals) + list(self._aliases) + self.state_names
        raise KeyError(f"no recorded signal '{name}'{suggest(name, known)}; "
                       f"recorded: {', '.join(self._signals) or '(none)'}")

    def __contains__(self, name: str) -> bool:
        return name in self._signals or name in self._aliases or name in self.state_names

    def __len__(self) -> int:
        return len(self.t)

    def __repr__(self) -> str:
        tail = f", {self.status}: {self.message}" if self.status != "success" else ""
        return (f"<SimResult {len(self.t)} points, t in [{self.t[0] if len(self.t) else 0:g}, "
                f"{self.t[-1] if len(self.t) else 0:g}] s, {len(self._signals)} signals{tail}>")

    def save(self, path: str | Path) -> None:
        """Save to a numpy ``.npz`` archive (no pickling; loadable with :meth:`load`)."""
        arrays = {"t": self.t, "x": self.x}
        names = list(self._signals)
        constant = []
        for k, name in enumerate(names):
            a = self._signals[name]
            if _is_held(a):  # recorded once (a constant): saved once
                constant.append(name)
                a = a[:1]
            arrays[f"s{k}"] = a
        meta = {"signals": names, "aliases": self._aliases, "state_names": self.state_names,
                "stats": _jsonable(self.stats), "status": self.status, "message": self.message,
                "constant": constant}
        arrays[_META] = np.array(json.dumps(meta))
        with replacing(path) as tmp:  # a link at ``path`` is replaced, not written through
            np.savez_compressed(tmp, **arrays)

    def to_rosbag(self, path: str | Path, topics: dict[str, Any] | None = None,
                  blocks: Any = None, **options: Any) -> Path:
        """Write the recorded signals as a ROS 2 bag (rosbag2, MCAP), stamped with the
        simulation time: :func:`blocksim.bags.write_bag` (``topics``: which signals on which
        topics as which message types; ``blocks``: the diagram, whose block types choose
        Odometry and JointState). Needs the ``rosbags`` package (``blocksim[ros]``).

        Returns
        -------
        Path
            The bag folder.
        """
        from blocksim.bags.write import write_bag  # below the engine: imports only confine

        return write_bag(self, path, topics, blocks, **options)

    @classmethod
    def load(cls, path: str | Path, max_memory: float | None = None) -> SimResult:
        """Load a result written by :meth:`save`.

        The file is read as untrusted input (:func:`blocksim.engine.sweep.untrusted.read_npz`):
        a regular file, every array's declared and header size checked against ``max_memory``
        before it is inflated, the metadata a bounded JSON document of the expected layout.

        Parameters
        ----------
        path : path
            The ``.npz`` file.
        max_memory : float, optional
            Most bytes its arrays may take once read (default
            :data:`~blocksim.engine.sweep.untrusted.MAX_NPZ_BYTES`).

        Raises
        ------
        ValueError
            (:class:`~blocksim.engine.sweep.untrusted.UntrustedFileError`) the file is not a
            saved run, or is over the budget; one line naming the file.
        """
        from blocksim.engine.sweep.untrusted import (
            MAX_NPZ_BYTES,
            UntrustedFileError,
            json_member,
            read_npz,
        )

        name = str(path)
        data = read_npz(path, budget=MAX_NPZ_BYTES if max_memory is None else max_memory)

        def bad(what: str) -> UntrustedFileError:
            return UntrustedFileError(f"{name}: not a saved blocksim run ({what})")

        meta = json_member(data, _META, name)
        if not isinstance(meta, dict):
            raise bad("its metadata is not a JSON object")
        names, constant = meta.get("signals"), meta.get("constant", [])
        state_names, aliases = meta.get("state_names"), meta.get("aliases", {})
        stats, message = meta.get("stats", {}), meta.get("message", "")
        for key, ok in (
            ("signals", isinstance(names, list) and all(isinstance(n, str) for n in names)),
            ("constant", isinstance(constant, list) and isinstance(names, list)
             and set(map(str, constant)) <= set(names)),
            ("state_names", isinstance(state_names, list)
             and all(isinstance(n, str) for n in state_names)),
            ("aliases", isinstance(aliases, dict)
             and all(isinstance(v, str) for v in aliases.values())),
            ("stats", isinstance(stats, dict)),
            ("status", isinstance(meta.get("status"), str)),
            ("message", isinstance(message, str)),
        ):
            if not ok:
                raise bad(f"metadata {key!r} is missing or malformed")
        assert isinstance(names, list) and isinstance(state_names, list)
        t, x = data.get("t"), data.get("x")
        if t is None or t.ndim != 1 or t.dtype.kind not in "iuf":
            raise bad("no 1-D numeric time array 't'")
        n = len(t)
        if x is None or x.shape != (n, len(state_names)) or x.dtype.kind not in "iuf":
            raise bad(f"the state array 'x' is not ({n}, {len(state_names)}) numbers")
        signals = {}
        for k, sname in enumerate(names):
            row = data.get(f"s{k}")
            held = sname in constant
            if row is None or row.ndim < 1 or (len(row) != n and not (held and len(row) <= 1)) \
                    or row.dtype.kind not in "biuf":
                raise bad(f"signal {sname!r} (array 's{k}') is missing or not {n} points of "
                          f"numbers")
            signals[sname] = np.broadcast_to(row[0], (n, *row.shape[1:])) \
                if held and len(row) else row
        return cls(t, x, signals, state_names, stats, aliases, meta["status"], message)


def _is_held(a: np.ndarray) -> bool:
    """Whether ``a`` is one row repeated along its first axis without copies (a broadcast
    view, as the recorder gives a constant signal)."""
    return a.ndim >= 1 and len(a) > 1 and a.strides[0] == 0


def _jsonable(stats: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in stats.items():
        if isinstance(v, (np.integer, np.floating)):
            v = v.item()
        if isinstance(v, dict):
            v = _jsonable(v)
        if isinstance(v, (str, int, float, bool, list, dict)) or v is None:
            out[k] = v
    return out


class Recorder:
    """Accumulates time points of a run; :meth:`result` turns them into a :class:`SimResult`.

    Parameters
    ----------
    names : list of str
        Signal name of each slot of the signal store.
    array_slots : list of int
        Slots that hold arrays (copied when recorded; floats are immutable).
    nx : int
        Number of continuous states.
    constant_slots : list of int
        Slots whose value cannot change during the run (outputs of ``constant``-rate
        blocks): recorded once, given as a read-only broadcast view of that one value.
    max_points : int, optional
        Most time points to record; one more raises
        :class:`~blocksim.engine.limits.RunLimitError` (the run's ``max_memory``).
    """

    def __init__(self, names: Sequence[str], array_slots: Sequence[int], nx: int,
                 constant_slots: Sequence[int] = (), max_points: int | None = None):
        self.names = list(names)
        self.constant_slots = tuple(constant_slots)
        self.array_slots = tuple(k for k in array_slots if k not in self.constant_slots)
        self.nx = nx
        self.max_points = max_points
        self.limit_message = ""
        self.t: list[float] = []
        self.x: list[np.ndarray] = []
        self.rows: list[list[Any]] = []
        self.constants: dict[int, Any] = {}

    def record(self, t: float, x: np.ndarray, sig: list[Any]) -> None:
        """Append the time ``t``, a copy of the state ``x`` and of every signal."""
        if self.max_points is not None and len(self.t) >= self.max_points:
            from blocksim.engine.limits import RunLimitError

            raise RunLimitError(f"the recording reached {len(self.t)} points, the most "
                                f"{self.limit_message or 'max_memory allows'}", time=t,
                                limit="max_memory")
        row = sig[:]
        if not self.rows:
            self.constants = {k: np.array(row[k], dtype=float) for k in self.constant_slots}
        for i in self.constant_slots:
            row[i] = None
        for i in self.array_slots:
            row[i] = np.array(row[i], dtype=float)
        self.t.append(t)
        self.x.append(np.array(x, dtype=float))
        self.rows.append(row)

    def drop_last(self) -> None:
        """Forget the most recent time point (used when a major time replaces it)."""
        self.t.pop()
        self.x.pop()
        self.rows.pop()

    def result(self, state_names: Sequence[str], stats: dict[str, Any],
               aliases: dict[str, str], status: str = "success",
               message: str = "") -> SimResult:
        """Build the :class:`SimResult` of what was recorded so far.

        A run interrupted inside :meth:`record` (Ctrl-C arrives between two statements) may
        have appended the time but not yet the state or the signals: the point it was
        recording is dropped, so the result's time, states and signals have the same length.
        """
        n = min(len(self.t), len(self.x), len(self.rows))
        del self.t[n:], self.x[n:], self.rows[n:]
        signals: dict[str, np.ndarray] = {}
        for k, name in enumerate(self.names):
            if k in self.constant_slots:
                if n:
                    value = self.constants[k]
                    signals[name] = np.broadcast_to(value, (n, *value.shape))
                else:
                    signals[name] = np.zeros((0,))
                continue
            column = [row[k] for row in self.rows]
            if k in self.array_slots:
                signals[name] = np.stack(column) if n else np.zeros((0,))
            else:
                signals[name] = np.array(column, dtype=float)
        x = np.stack(self.x) if n else np.zeros((0, self.nx))
        return SimResult(np.array(self.t, dtype=float), x, signals, state_names, stats,
                         aliases, status, message)


@dataclass(frozen=True)
class MemberError:
    """Why one member of a batch failed.

    Attributes
    ----------
    type : str
        Name of the :class:`~blocksim.engine.errors.SimulationError` subclass
        (``"NonFiniteError"``, ``"SolverError"``, ``"ZenoError"``, ``"BlockRuntimeError"``, ...).
    message : str
        Its message (the same as a single run of the member would raise).
    time : float or None
        Simulated time reached [s], when known.
    block, port : str or None
        Path of the block and name of the port at fault, when known.
    """

    type: str
    message: str
    time: float | None = None
    block: str | None = None
    port: str | None = None

    @classmethod
    def from_exception(cls, exc: BaseException) -> MemberError:
        """The error record of ``exc`` (its ``time``, ``block`` and ``port`` attributes,
        when it has them)."""
        t = getattr(exc, "time", None)
        block, port = getattr(exc, "block", None), getattr(exc, "port", None)
        return cls(type(exc).__name__, str(exc), None if t is None else float(t),
                   None if block is None else str(block), None if port is None else str(port))

    def __str__(self) -> str:
        when = f" (t = {self.time:.6g} s)" if self.time is not None else ""
        return f"{self.type}: {self.message}{when}"


#: numbers in messages, masked when grouping failures by message
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
#: members listed per group in a failure summary
_SHOWN_MEMBERS = 5


@dataclass
class BatchResult:
    """The members of an ensemble, recorded at common times.

    Attributes
    ----------
    t : ndarray, shape (n,)
        Recorded times [s] (the major times: clock hits, breakpoints, the record grid, T).
    x : ndarray, shape (M, n, nx)
        Continuous state of each member (NaN after a member's failure).
    signals : dict
        ``"block.port"`` -> array of shape (M, n, *shape).
    overrides : list of dict
        Each member's overrides (including the per-member noise seeds).
    status : ndarray of str, shape (M,)
        ``"success"``, ``"failed"`` or ``"stopped"`` per member.
    stats : dict
        ``wall_time``, ``per_member`` [s], ``compile_time``, ``backend``, ...
    errors : list of MemberError or None, length M
        Why each failed member failed (type, message, time reached); None for the others.
    """

    t: np.ndarray
    x: np.ndarray
    signals: dict[str, np.ndarray]
    overrides: list[dict[str, Any]]
    status: np.ndarray
    stats: dict[str, Any]
    errors: list[MemberError | None] = field(default_factory=list)

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self.signals:
            return self.signals[name]
        raise KeyError(f"no signal '{name}'{suggest(name, self.signals)}")

    def __len__(self) -> int:
        return len(self.status)

    @property
    def failed(self) -> np.ndarray:
        """Indices of the members that failed, shape (k,)."""
        return np.flatnonzero(np.asarray(self.status) == "failed")

    def failures(self) -> str:
        """One line: how many members failed and why, grouped by error type and message
        (numbers in messages ignored), e.g. ``"2 of 5 members failed: 2 x NonFiniteError:
        signal 'x.y' ... (members 1, 3)"``; ``"no member failed"`` when none did."""
        failed = [int(m) for m in self.failed]
        if not failed:
            return "no member failed"
        groups: dict[tuple[str, str], list[int]] = {}
        for m in failed:
            err = self.errors[m] if m < len(self.errors) else None
            key = ("", "cause not reported by the back-end") if err is None else \
                (err.type, _NUMBER.sub("#", err.message))
            groups.setdefault(key, []).append(m)
        parts = []
        for members in sorted(groups.values(), key=len, reverse=True):
            first = self.errors[members[0]] if members[0] < len(self.errors) else None
            why = str(first) if first is not None else "cause not reported by the back-end"
            shown = ", ".join(str(m) for m in members[:_SHOWN_MEMBERS])
            more = ", ..." if len(members) > _SHOWN_MEMBERS else ""
            label = "member" if len(members) == 1 else "members"
            parts.append(f"{len(members)} x {why} ({label} {shown}{more})")
        return f"{len(failed)} of {len(self)} members failed: " + "; ".join(parts)

    def __repr__(self) -> str:
        return (f"<BatchResult {len(self)} members, {len(self.t)} points, "
                f"{len(self.signals)} signals, {self.stats.get('backend', '?')} back-end; "
                f"{self.failures()}>")
