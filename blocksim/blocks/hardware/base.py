"""What every hardware block shares: a device session per run, recording and replay, the
overrun policy, and statistics.

A hardware block opens its device in ``start(run)`` and closes it in ``stop(run)``, which the
engine calls on every exit path (success, a failing block, a device fault, Ctrl-C). The open
device belongs to the run: it is held in a session object while the run lasts (a hardware block
runs in one simulation at a time; a second concurrent run is refused). Before ``start`` (the
compiler's dry run) the blocks output their initial values without touching any device.

Options common to every hardware block:

``record``
    a file (``.json``) to which every exchange with the device is written when the run ends
    (also when it fails: the exchanges up to the fault are kept);
``replay``
    a file written by ``record``: the block talks to the recording instead of the device, so
    the same diagram reproduces every recorded signal bit for bit, offline (over the recorded
    horizon or any shorter one: the end-of-run actions, relax or stop, are not replayed);
``overrun``
    what to do at a sample hit whose exchange starts a whole period late in a real-time run
    (``simulate(..., realtime=1.0)``): ``"warn"`` (one warning per block and run, counted),
    ``"skip"`` (do not talk to the device at that hit: outputs hold, the command is not sent,
    so the loop catches up) or ``"abort"`` (raise, naming the block and the lateness). None
    (default): the run's policy, ``simulate(..., overrun=...)`` / ``RunConfig.overrun`` /
    ``blocksim run --overrun`` (itself ``"warn"`` by default); a value given here overrides
    the run's for this block.

After the run, ``result.stats["hardware"][block_name]`` holds the block's device, its number of
exchanges, overruns and skipped hits, and the median, 99th percentile and maximum duration [s]
of one hit's exchange.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import PathRefused, input_path, output_path, replacing
from blocksim.engine.block import Block
from blocksim.engine.clock import as_clock
from blocksim.engine.config import OVERRUN_POLICIES
from blocksim.engine.errors import BlockParameterError, BlocksimError
from blocksim.hardware.errors import HardwareError
from blocksim.hardware.recording import SessionLog

__all__ = ["OVERRUN_POLICIES", "HardwareBlock", "Session"]


class Session:
    """The open device of one run of one hardware block (what lives in the run, not the
    block)."""

    def __init__(self, device: str, log: SessionLog | None = None):
        self.device = device
        self.log = log
        self.closers: list[Any] = []  # callables run (last first) when the session closes
        self.durations: list[float] = []
        self.overruns = 0
        self.skipped = 0
        self.warned = False
        self.wall0 = 0.0
        self.rate: float | None = None
        self.policy = "warn"  # the overrun policy in force: the block's, else the run's
        self.hold: dict[str, Any] = {}  # last values, for outputs held at skipped hits

    def close(self) -> None:
        """Run the closers, last first; every one runs even when an earlier one raises."""
        error = None
        while self.closers:
            fn = self.closers.pop()
            try:
                fn()
            except Exception as exc:
                error = error or exc
        if error is not None:
            raise error


class HardwareBlock(Block):
    """Base of the hardware blocks: session, recording/replay, overrun policy, statistics.

    Subclasses implement ``_open(run) -> Session`` (and register what closes the device with
    ``session.closers``) and call :meth:`_exchange` around their device I/O at each hit.
    """

    _session: Session | None = None
    #: the kind of session log this block records and replays (None: any)
    session_kind: str | None = None

    def _init_common(self, clock: Any, record: Any, replay: Any, overrun: Any) -> None:
        cls = type(self).__name__
        try:
            self.clock = as_clock(clock, cls)
        except (ValueError, TypeError) as exc:
            raise BlockParameterError(f"{cls}: parameter 'clock': {exc}") from None
        if self.clock is None:
            raise BlockParameterError(
                f"{cls}: parameter 'clock' is required (a sample period "
                f"in seconds, e.g. clock=0.02)"
            )
        for name, value in (("record", record), ("replay", replay)):
            if value is not None and not isinstance(value, (str, Path)):
                raise BlockParameterError(
                    f"{cls}: parameter '{name}' must be a file path or None, found {value!r}"
                )
        if record is not None and replay is not None:
            raise BlockParameterError(f"{cls}: give 'record' or 'replay', not both")
        try:
            self.record = output_path(record, "parameter 'record'")
            self.replay = input_path(replay, "parameter 'replay'")
        except PathRefused as exc:
            raise BlockParameterError(f"{cls}: {exc}") from None
        if self.replay is not None and not self.replay.is_file():
            raise BlockParameterError(f"{cls}: parameter 'replay': no such file {str(replay)!r}")
        if self.replay is not None:  # read now (bounded): a bad log is a bad parameter
            try:
                SessionLog.load(self.replay, kind=self.session_kind)
            except ValueError as exc:
                raise BlockParameterError(f"{cls}: parameter 'replay': {exc}") from None
        if overrun is not None and overrun not in OVERRUN_POLICIES:
            raise BlockParameterError(
                f"{cls}: parameter 'overrun' must be one of "
                f"{', '.join(OVERRUN_POLICIES)} or None (the run's policy), found {overrun!r}"
            )
        self.overrun = overrun

    @property
    def _what(self) -> str:
        return f"block '{self.name}' ({type(self).__name__})" if self.name else type(self).__name__

    # ---------------------------------------------------------------- run lifecycle
    def _open(self, run: Any) -> Session:
        raise NotImplementedError

    def _close(self, session: Session, run: Any) -> None:
        """Leave the device as configured (relax, stop the simulation, ...) before it closes."""

    def start(self, run: Any) -> None:
        if self._session is not None:
            raise BlocksimError(
                f"{self._what} is already running in another simulation: a "
                f"hardware block drives one run at a time"
            )
        if self.record is not None and not self.record.parent.is_dir():
            raise BlockParameterError(
                f"{self._what}: parameter 'record': the folder "
                f"{str(self.record.parent)!r} does not exist"
            )
        session = self._open(run)
        self._session = session
        session.rate = getattr(run.config, "realtime", None)
        session.policy = self.overrun or getattr(run.config, "overrun", "warn")

    def stop(self, run: Any) -> None:
        session, self._session = self._session, None
        if session is None:
            return
        failed = getattr(getattr(run, "result", None), "status", "success") == "failed"
        try:
            try:
                if self.replay is None:  # a replay ends with the diagram: no end-of-run acts
                    self._close(session, run)
            except HardwareError:
                if not failed:  # a device already at fault cannot be relaxed: keep that error
                    raise
            finally:
                session.close()
        finally:
            if self.record is not None and session.log is not None:
                with replacing(self.record) as tmp:  # a link there is replaced, not followed
                    session.log.save(tmp)
            self._store_stats(session, run)

    def _store_stats(self, session: Session, run: Any) -> None:
        result = getattr(run, "result", None)
        if result is None:
            return
        d = np.asarray(session.durations)
        stats = {
            "device": session.device,
            "exchanges": int(d.size),
            "overruns": session.overruns,
            "skipped": session.skipped,
            "median_exchange": float(np.median(d)) if d.size else 0.0,
            "p99_exchange": float(np.percentile(d, 99)) if d.size else 0.0,
            "max_exchange": float(d.max()) if d.size else 0.0,
        }
        if self.record is not None:
            stats["record"] = str(self.record)
        result.stats.setdefault("hardware", {})[self.name or type(self).__name__] = stats

    # ---------------------------------------------------------------- one hit
    def _late(self, session: Session, t: float) -> bool:
        """Apply the overrun policy at hit ``t``; True when the hit's exchange is skipped."""
        if not session.rate:
            return False
        now = time.perf_counter()
        if session.wall0 == 0.0:  # the first hit sets the wall-clock origin: t <-> now
            session.wall0 = now - t / session.rate
        late = now - (session.wall0 + t / session.rate)
        period = self.clock.period / session.rate
        if late <= period:
            return False
        session.overruns += 1
        if session.policy == "abort":
            raise HardwareError(
                session.device,
                f"{self._what}: overrun at t={t:.6g} s: the "
                f"exchange starts {late * 1e3:.1f} ms late (period "
                f"{period * 1e3:.1f} ms, overrun='abort')",
            )
        if session.policy == "skip":
            session.skipped += 1
            return True
        if not session.warned:
            session.warned = True
            warnings.warn(
                f"{self._what}: overrun at t={t:.6g} s ({late * 1e3:.1f} ms late, "
                f"period {period * 1e3:.1f} ms); result.stats['hardware'] counts "
                f"them",
                RuntimeWarning,
                stacklevel=2,
            )
        return False

    def _exchange(self, t: float, key: str, fn: Any, held: Any) -> Any:
        """Run ``fn()`` (device I/O) at hit ``t`` under the overrun policy and time it; return
        its value, or ``held`` (the last value of ``key``) at a skipped hit."""
        session = self._session
        if session is None:  # the compiler's dry run: no device
            return held
        if self._late(session, t):
            return session.hold.get(key, held)
        t0 = time.perf_counter()
        value = fn()
        session.durations.append(time.perf_counter() - t0)
        session.hold[key] = value
        return value
