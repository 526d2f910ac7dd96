"""Runs of the editor's diagram, each in a worker process.

:class:`Runs` starts a run of a document's text in a new process (``spawn``: nothing of the
server's threads or sockets is inherited), so a run that fails, hangs or even crashes the
interpreter leaves the server serving. The worker loads the text as ``blocksim run`` loads a
file (:func:`blocksim.io.loads` in the editor's folder, the run settings of
:func:`blocksim.engine.config.file_config`, the compile and the limits), runs it, saves the
recorded result (complete or partial) as ``.npz`` in the server's scratch folder and sends
back the final value of every signal. A monitor thread per run reads its messages (progress,
the end) and notices a worker that died without a word.

Stopping sets an event the worker checks at every progress call (the interpreted back-end
calls it at every major time): the run ends as after Ctrl-C, its partial result kept. Between
major times there is no call (a continuous diagram without clocks has none before T), so a
worker that has not ended :data:`STOP_SIGNAL_AFTER` seconds after the event gets a SIGINT,
which both back-ends take as Ctrl-C (the run ends where it is, its partial result kept); the
worker runs in a session of its own, so the Ctrl-C typed at the editor's terminal does not
reach it. A worker that has still not ended :data:`STOP_GRACE` seconds later is terminated.

A real-time run (``realtime``) is paced at its major times only: the engine integrates up to
the next major time, then sleeps until the wall clock reaches it. A diagram without clocks has
no major time between 0 and T, so the whole run was one sleep before ``t = T``: its progress
stood at 0 and a stop could only terminate it (no partial result). In the worker, the pacer
reports while it waits (:func:`reporting_pacer`): the time the wall clock stands for, at least
every :data:`PROGRESS_EVERY` seconds, and a stop ends the wait; the partial result is cut
at that time (what the run had shown in real time).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

#: seconds a stopped worker has to end at a progress call before it gets a SIGINT
STOP_SIGNAL_AFTER = 0.5
#: seconds a stopped worker has after the SIGINT to end before it is terminated
STOP_GRACE = 5.0
#: most runs kept (finished ones beyond it are forgotten, oldest first, their files removed)
MAX_RUNS = 32
#: seconds between progress messages of a worker
PROGRESS_EVERY = 0.1


def jsonable(value: Any) -> Any:
    """A final value as strict JSON: numbers, nested lists; non-finite numbers written as the
    diagram format writes them (``"=inf"``, ``"=-inf"``, ``"=nan"``)."""
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "=nan" if math.isnan(value) else ("=inf" if value > 0 else "=-inf")
    if isinstance(value, complex):
        return [jsonable(value.real), jsonable(value.imag)]
    return value


@contextlib.contextmanager
def reporting_pacer(progress: Callable[[float], None], stopped_at: list[float | None]
                    ) -> Iterator[None]:
    """Within it, a real-time run's waits for the wall clock call ``progress`` with the time
    the wall clock stands for (every :data:`PROGRESS_EVERY` / 2 seconds at least); when
    ``progress`` raises (a stop), ``stopped_at[0]`` is that time. For the worker process only
    (it replaces the pacer class :mod:`blocksim.engine.simulate` builds, and restores it)."""
    from blocksim.engine import simulate as engine

    base = engine.Pacer

    class ReportingPacer(base):  # type: ignore[misc, valid-type]
        def wait(self, t: float) -> None:
            target = self.wall0 + t / self.rate
            while (now := time.perf_counter()) < target:
                standing = min(t, max(0.0, (now - self.wall0) * self.rate))
                try:
                    progress(standing)
                except KeyboardInterrupt:
                    stopped_at[0] = standing
                    raise
                time.sleep(min(target - now, PROGRESS_EVERY / 2))

    engine.Pacer = ReportingPacer
    try:
        yield
    finally:
        engine.Pacer = base


def cut(result: Any, t: float) -> Any:
    """``result`` (a :class:`~blocksim.engine.record.SimResult`) without its samples after
    ``t``."""
    from blocksim.engine.record import SimResult

    k = int(np.searchsorted(result.t, t, side="right"))
    if k >= len(result.t):
        return result
    out = SimResult(result.t[:k], result.x[:k], {n: result[n][:k] for n in result.signals},
                    result.state_names, result.stats, dict(getattr(result, "_aliases", {})),
                    result.status, result.message)
    out.block_paths = dict(result.block_paths)
    return out


def _worker(text: str, name: str, folder: str, options: dict[str, Any], npz: str,
            conn: Any, stop: Any) -> None:
    """The worker process: load, compile, check the limits, run, report."""
    if hasattr(os, "setsid"):
        os.setsid()  # the Ctrl-C typed at the editor's terminal is the server's, not ours
    else:  # pragma: no cover - no sessions: ignore it (a stop then ends at progress calls)
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    def send(kind: str, **data: Any) -> None:
        try:
            conn.send((kind, data))
        except (OSError, ValueError):  # the server left
            pass

    try:
        _run_in_worker(text, name, folder, options, Path(npz), send, stop)
    except KeyboardInterrupt:  # a stop before the run started (loading, compiling)
        send("end", state="stopped", error=None, final={}, signals=[], npz=False)
    except BaseException as exc:
        send("end", state="failed", error=f"{type(exc).__name__}: {exc}", final={},
             signals=[], npz=False)
    finally:
        conn.close()


def _run_in_worker(text: str, name: str, folder: str, options: dict[str, Any], npz: Path,
                   send: Any, stop: Any) -> None:
    from blocksim.cli.common import CliError, compile_file, problem_report, run_settings
    from blocksim.engine.errors import BlocksimError, SimulationError
    from blocksim.engine.limits import RunLimitError, check_limits
    from blocksim.engine.simulate import run_config
    from blocksim.io.errors import DiagramFileError
    from blocksim.io.load import loads
    from blocksim.web.session import _settings_args

    try:
        df = loads(text, name, base_dir=folder)
        config = run_settings(_settings_args(name, options), df.simulation)
        plan = compile_file(df)
        check_limits(plan, config)
    except DiagramFileError as exc:
        send("end", state="failed", error="\n".join(problem_report(name, exc.problems)),
             final={}, signals=[], npz=False)
        return
    except (CliError, RunLimitError) as exc:
        send("end", state="failed", error=str(exc), final={}, signals=[], npz=False)
        return
    from blocksim.web.traces import scopes_of

    T = float(config.T)
    send("started", T=T, scopes=scopes_of(plan))
    last = [0.0]

    def progress(t: float) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY or t >= T:
            last[0] = now
            send("progress", t=float(t))

    state, error, result = "finished", None, None
    stopped_at: list[float | None] = [None]
    try:
        with reporting_pacer(progress, stopped_at) if config.realtime else \
                contextlib.nullcontext():
            result = run_config(plan, config, progress=progress)
    except KeyboardInterrupt as exc:
        state, result = "stopped", getattr(exc, "result", None)
        if result is not None and stopped_at[0] is not None:
            result = cut(result, stopped_at[0])
    except SimulationError as exc:
        state, error, result = "failed", str(exc), exc.result
    except BlocksimError as exc:
        state, error, result = "failed", str(exc), getattr(exc, "result", None)
    if hasattr(os, "setsid"):  # the run has ended: a late stop's SIGINT must not cut the save
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    final: dict[str, Any] = {}
    signals: list[str] = []
    saved = False
    if result is not None:
        signals = list(result.signals)
        if len(result.t):
            final = {n: jsonable(result[n][-1].tolist()) for n in signals}
            send("progress", t=float(result.t[-1]))
        result.save(npz)
        saved = True
    send("end", state=state, error=error, final=final, signals=signals, npz=saved,
         status=getattr(result, "status", None), message=getattr(result, "message", None))


class Run:
    """One run: its worker, its state (``starting``, ``running``, ``finished``, ``stopped``,
    ``failed``, ``crashed``), progress, and at the end its final values."""

    def __init__(self, run_id: str, npz: Path):
        self.id = run_id
        self.npz = npz
        self.state = "starting"
        self.T: float | None = None
        self.t = 0.0
        self.error: str | None = None
        self.final: dict[str, Any] = {}
        self.signals: list[str] = []
        self.has_npz = False
        self.status: str | None = None
        self.message: str | None = None
        self.scopes: list[dict[str, Any]] = []
        self.started = time.time()
        self.ended: float | None = None
        self.process: Any = None
        self.stop_event: Any = None
        self.stop_asked = False
        self.done = threading.Event()

    @property
    def finished(self) -> bool:
        return self.done.is_set()

    def describe(self) -> dict[str, Any]:
        """The run as the API shows it."""
        frac = (min(self.t / self.T, 1.0) if self.T else (1.0 if self.finished else 0.0))
        out: dict[str, Any] = {
            "id": self.id, "state": self.state, "done": self.finished, "t": self.t,
            "T": self.T, "progress": frac, "error": self.error,
            "pid": self.process.pid if self.process is not None else None,
            "scopes": self.scopes,
        }
        if self.finished:
            out.update(final=self.final, signals=self.signals, status=self.status,
                       message=self.message,
                       result=f"/api/run/{self.id}/result.npz" if self.has_npz else None,
                       traces=f"/api/run/{self.id}/traces" if self.has_npz else None)
        return out


class Runs:
    """The runs of one server; their ``.npz`` files live in ``scratch``."""

    def __init__(self, scratch: Path):
        self.scratch = Path(scratch)
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._runs: dict[str, Run] = {}

    def start(self, text: str, name: str, folder: Path, options: dict[str, Any]) -> Run:
        """Start a run of ``text``; returns at once."""
        run_id = secrets.token_hex(8)
        run = Run(run_id, self.scratch / f"run-{run_id}.npz")
        receiver, sender = self._ctx.Pipe(duplex=False)
        run.stop_event = self._ctx.Event()
        proc = self._ctx.Process(
            target=_worker, name=f"blocksim-edit-run-{run_id}", daemon=True,
            args=(text, name, str(folder), options, str(run.npz), sender, run.stop_event))
        with self._lock:
            self._forget_old()
            self._runs[run_id] = run
        proc.start()
        sender.close()  # the worker holds the only sending end: EOF when it ends
        run.process = proc
        run.state = "running"
        threading.Thread(target=self._monitor, args=(run, receiver), daemon=True,
                         name=f"blocksim-edit-monitor-{run_id}").start()
        return run

    def get(self, run_id: str) -> Run | None:
        with self._lock:
            return self._runs.get(run_id)

    def stop(self, run: Run) -> None:
        """Ask ``run`` to stop: at its next progress call, else by a SIGINT after
        :data:`STOP_SIGNAL_AFTER` seconds; terminate it :data:`STOP_GRACE` seconds later."""
        if run.finished:
            return
        run.stop_asked = True
        run.stop_event.set()

        def enforce() -> None:
            if run.done.wait(STOP_SIGNAL_AFTER) or run.process is None:
                return
            if hasattr(os, "setsid") and run.process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(run.process.pid, signal.SIGINT)
            if not run.done.wait(STOP_GRACE):
                run.process.terminate()

        threading.Thread(target=enforce, daemon=True).start()

    def close(self) -> None:
        """Terminate every worker still running."""
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            if run.process is not None and run.process.is_alive():
                run.process.terminate()
        for run in runs:
            if run.process is not None:
                run.process.join(2.0)
                if run.process.is_alive():
                    run.process.kill()

    def _forget_old(self) -> None:
        ended = sorted((r for r in self._runs.values() if r.finished),
                       key=lambda r: r.ended or 0.0)
        while len(self._runs) >= MAX_RUNS and ended:
            old = ended.pop(0)
            del self._runs[old.id]
            old.npz.unlink(missing_ok=True)

    def _monitor(self, run: Run, conn: Any) -> None:
        ended = False
        try:
            while True:
                try:
                    kind, data = conn.recv()
                except (EOFError, OSError):
                    break
                if kind == "started":
                    run.T, run.scopes = data["T"], data.get("scopes", [])
                elif kind == "progress":
                    run.t = data["t"]
                elif kind == "end":
                    ended = True
                    run.final, run.signals = data["final"], data["signals"]
                    run.has_npz = bool(data["npz"]) and run.npz.exists()
                    run.error = data["error"]
                    run.status, run.message = data.get("status"), data.get("message")
                    run.state = data["state"]
        finally:
            conn.close()
            run.process.join()
            if not ended:
                code = run.process.exitcode
                if run.stop_asked:
                    run.state = "stopped"
                    run.error = "stopped (the worker was terminated)"
                else:
                    run.state = "crashed"
                    run.error = (f"the run's worker process ended without a result (exit "
                                 f"code {code})")
            run.ended = time.time()
            run.done.set()
