"""The small plot of a block's response in its catalog entry, made when the site is built.

Which blocks have one (:func:`plan`): the sources (blocks without inputs) of every family but
hardware, simulated alone; the dynamic linear blocks (continuous, discrete, control families)
driven by a unit step at t = 0.5 s; the static and nonlinear ones (math, nonlinear, lookup,
events) driven by one period of a sine of amplitude 2 (its rise and fall show a
static map, a hysteresis or a crossing both ways). Every input the drive does not feed gets a
constant 0.5. The others — sinks, hardware, planners, robots, vehicles, estimators fed by
vectors — get a sentence saying why there is none.

:func:`response_png` runs the block's minimal example (:mod:`blocksim.docs.examples`) in that
set-up and draws it with matplotlib's Agg back-end; PNGs are cached on disk under a hash of
everything that makes them (the example, the drive, the block's source file, this module's
version), so a build after the first one only reads them.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.block import Block

#: bump to remake every cached plot
VERSION = 1

#: families whose blocks with inputs are plotted, and the drive they get
STEP_FAMILIES = {"continuous", "discrete", "control"}
SINE_FAMILIES = {"math", "nonlinear", "lookup", "events"}
#: families never plotted (no meaningful response without a device or a world)
NEVER = {"hardware": "a hardware block: its response is the device's",
         "sinks": "a sink: it has no output to plot",
         "subsystems": "a container: its response is its inner diagram's",
         "fmi": "an FMU: its response is the model inside it"}
#: at most this many output elements are drawn
MAX_ELEMENTS = 12
STEP_TIME = 0.5
#: a response run longer than this [s] (wall clock) is an error
MAX_WALL = 30.0


@dataclass(frozen=True)
class Plan:
    """How a block's response is made, or why it is not.

    Attributes
    ----------
    drive : {"none", "step", "sine"} or None
        None: no plot (``reason`` says why); "none": a source simulated alone.
    T : float
        Simulated time [s].
    reason : str
        Why there is no plot (empty when there is one).
    """

    drive: str | None
    T: float = 0.0
    reason: str = ""
    inputs: int = 1

    @property
    def caption(self) -> str:
        """What the plot shows."""
        others = "on its first input, 0.5 on the others." if self.inputs > 1 else \
            "on its input."
        return {"none": f"Outputs of the example over {self.T:g} s.",
                "step": f"Response of the example to a unit step at t = {STEP_TIME:g} s "
                        f"(dashed) {others}",
                "sine": f"Response of the example to one period of a sine of amplitude 2 "
                        f"over {self.T:g} s (dashed) {others}"}.get(self.drive or "", "")


def _period(block: Block) -> float | None:
    return getattr(block.clock, "period", None)


def plan(family: str, block: Block) -> Plan:
    """How the response of ``block`` (of family ``family``) is plotted, or why not."""
    if family in NEVER:
        return Plan(None, reason=NEVER[family])
    if not block.outputs:
        return Plan(None, reason="a sink: it has no output to plot")
    period = _period(block)
    T = max(5.0, 30 * period) if period else 5.0
    if not block.inputs:
        return Plan("none", T=_source_time(block, T))
    if family == "routing":
        return Plan(None, reason="a routing block: its outputs are its inputs rearranged")
    if any(port.shape not in (None, ()) for port in block.inputs):
        return Plan(None, reason="its inputs are vectors (a state, a pose, joint angles): its "
                                 "response is that of the system around it, see the examples")
    n = len(block.inputs)
    if family in STEP_FAMILIES:
        return Plan("step", T=T, inputs=n)
    if family in SINE_FAMILIES:
        return Plan("sine", T=4.0 if not period else max(4.0, 30 * period), inputs=n)
    return Plan(None, reason="its response depends on a robot, vehicle or world it is part "
                             "of: see the examples that use it")


def _source_time(block: Block, T: float) -> float:
    """Long enough for a trajectory source to finish (its ``T`` or its time points)."""
    params = block.params
    for key in ("T", "duration"):
        value = params.get(key)
        if isinstance(value, (int, float)) and 0 < value < 50:
            return float(max(T, 1.25 * value + 0.5)) if key == "T" else float(value)
    times = params.get("times")
    if times is not None and np.size(times):
        return float(max(T, 1.25 * float(np.max(times)) + 0.5))
    return T


def _diagram(block: Block, p: Plan) -> tuple[Any, list[str]]:
    """The diagram of the response run and the names of its driving signals."""
    from blocksim.blocks import Constant, Sine, Step
    from blocksim.engine.diagram import Diagram

    d = Diagram("response")
    d.add(block, name="block")
    drives = []
    for k, port in enumerate(block.inputs):
        if k == 0 and p.drive == "step":
            src = d.add(Step(time=STEP_TIME), name="drive")
            drives.append("drive.y")
        elif k == 0 and p.drive == "sine":
            src = d.add(Sine(amplitude=2.0, frequency=1.0 / p.T), name="drive")
            drives.append("drive.y")
        else:
            src = d.add(Constant(0.5), name=f"in_{port.name}")
        d.connect(src, block[port.name])
    return d, drives


def run(block: Block, p: Plan) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Simulate the response: ``(t, {drive: values}, {output port: values (N, k)})``."""
    from blocksim.engine.simulate import simulate

    d, drives = _diagram(block, p)
    result = simulate(d, T=p.T, max_step=p.T / 400, rtol=1e-6, max_wall=MAX_WALL)
    outs = {}
    for port in block.outputs:
        y = np.asarray(result[f"block.{port.name}"], dtype=float)
        outs[port.name] = y.reshape(y.shape[0], -1)
    return result.t, {s: np.asarray(result[s], dtype=float) for s in drives}, outs


def draw(type_name: str, t: np.ndarray, drives: dict[str, np.ndarray],
         outs: dict[str, np.ndarray]) -> bytes:
    """The response as a small PNG (matplotlib's Agg canvas: no display needed)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 2.4), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for u in drives.values():
        ax.plot(t, u, "--", color="0.55", lw=1.2, label="input")
    drawn = 0
    for port, y in outs.items():
        for j in range(y.shape[1]):
            if drawn == MAX_ELEMENTS:
                break
            label = port if y.shape[1] == 1 else f"{port}[{j}]"
            ax.plot(t, y[:, j], lw=1.5, label=label)
            drawn += 1
    ax.set_xlabel("t [s]")
    ax.set_title(type_name, fontsize=10)
    ax.grid(True, alpha=0.3)
    if drawn + len(drives) <= 8:
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def cache_dir() -> Path:
    """Where the plots are cached: ``$BLOCKSIM_DOCS_CACHE``, else ``docs-plots`` in
    ``$BLOCKSIM_CACHE_DIR`` (default ``~/.cache/blocksim``)."""
    own = os.environ.get("BLOCKSIM_DOCS_CACHE")
    if own:
        return Path(own)
    root = os.environ.get("BLOCKSIM_CACHE_DIR") or Path.home() / ".cache" / "blocksim"
    return Path(root) / "docs-plots"


def key(type_name: str, example_text: str, cls: type[Block], p: Plan) -> str:
    """The cache key of a plot: a hash of what makes it."""
    try:
        source = Path(inspect.getfile(cls)).read_bytes()
    except (OSError, TypeError):
        source = b""
    h = hashlib.sha256()
    h.update(json.dumps([VERSION, type_name, example_text, p.drive, p.T]).encode())
    h.update(source)
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:24]


def response_png(type_name: str, example_text: str, make: Callable[[], Block], p: Plan,
                 cache: Path | None = None) -> tuple[bytes, bool]:
    """The PNG of the response planned by ``p`` of the block ``make()`` builds (a new one: a
    block belongs to one diagram), and whether it came from the cache. Raises what building
    and simulating raise."""
    from blocksim.io.registry import block_class

    folder = cache if cache is not None else cache_dir()
    path = folder / f"{type_name}-{key(type_name, example_text, block_class(type_name), p)}.png"
    if path.is_file():
        return path.read_bytes(), True
    t, drives, outs = run(make(), p)
    png = draw(type_name, t, drives, outs)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(png)
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the plot is made again next time
    return png, False
