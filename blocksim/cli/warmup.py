"""``blocksim warmup``: precompile every library kernel (for a Docker image or a shared install).

:func:`warmup` builds, for each block type of the registry, a small sample diagram (the block
with default or sample arguments, its inputs fed by ``Constant`` blocks of the shapes it needs,
scalars where free), compiles it to a plan and compiles the block's kernels with the argument
types a compiled run passes (:func:`blocksim.engine.compiled.warmup.precompile`); numba caches
them on disk next to the library, so later compiled runs of any diagram load them instead of
compiling them. A block whose kernels do not compile that way is retried by a tiny compiled
simulation of its sample diagram. The data-wired tier's block entries of each sample plan are
loaded too (compiled the first time a block form is seen), and tiny diagrams run through every
function of the three wired loops (:func:`loop_runs`), so that a data-wired run of a sample
diagram afterwards compiles nothing.

``--report [N]`` prints what the compiles cost: a
:class:`~blocksim.engine.compiled.compile_watch.CompileWatch` over the whole warmup records
every compiled function's exclusive seconds and signatures.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.cli.common import (
    FAILED,
    OK,
    CliError,
    bar_width,
    echo,
    keep_redrawing,
    on_terminal,
)
from blocksim.engine.block import Block
from blocksim.engine.errors import suggest

# The compiled back-end's modules import numba (~0.3 s): they are imported by the functions
# that use them, so that building the command's parser (every `blocksim` command line does)
# does not load numba.
if TYPE_CHECKING:
    from blocksim.engine.compiled.warmup import BlockWarmup, WarmupReport

#: block types that cannot have a sample here, and why (reported as skipped)
NO_SAMPLE = {
    "Function": "runs a Python callable: interpreted back-end only",
    "Subsystem": "a container: its blocks (and Inport/Outport) compile as themselves",
    "ArmPlot": "an animation sink that runs after the simulation",
    "VehiclePlot": "an animation sink that runs after the simulation",
    "BraitenbergField": "runs a Python field function: interpreted back-end only",
    "BagSource": "plays a bag named in its diagram: its kernels are Interpolate's "
                 "(time=True), compiled by its first compiled run",
}


_NO_KERNELS = "no compiled kernels (interpreted back-end only, or runs after the simulation)"


@cache
def _puma() -> Any:
    from blocksim.robotics.models import puma560

    return puma560()


def _q() -> np.ndarray:
    return np.array([0.1, 0.2, -0.3, 0.4, 0.5, 0.6])


def _samples() -> dict[str, Callable[[], tuple[Block, dict[str, tuple[int, ...]]]]]:
    """Sample blocks of the types whose constructor needs arguments (or whose inputs need
    shapes): type -> factory returning the block and ``{input port: shape}`` (other inputs:
    the port's declared shape, else a scalar)."""
    import blocksim.blocks as b
    import blocksim.blocks.arm as arm
    import blocksim.blocks.floating as floating
    import blocksim.blocks.vehicle as vehicle
    import blocksim.blocks.vision as vision

    uv = {"uv": (2, 4), "depth": (4,)}
    q0, qf = np.zeros(6), _q()
    return {
        "Constant": lambda: (b.Constant(1.0), {}),
        "Gain": lambda: (b.Gain(2.0), {}),
        "ZOH": lambda: (b.ZOH(0.1), {}),
        "UnitDelay": lambda: (b.UnitDelay(0.1), {}),
        "RateTransition": lambda: (b.RateTransition(0.1), {}),
        "DiscreteDerivative": lambda: (b.DiscreteDerivative(0.1), {}),
        "DiscreteIntegrator": lambda: (b.DiscreteIntegrator(0.1), {}),
        "DiscretePID": lambda: (b.DiscretePID(1.0, 0.5, 0.1, clock=0.1), {}),
        "DiscreteStateSpace": lambda: (b.DiscreteStateSpace(
            [[0.5, 0.1], [0.0, 0.8]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]], clock=0.1), {}),
        "DiscreteTransferFunction": lambda: (b.DiscreteTransferFunction(
            [1.0], [1.0, -0.5], 0.1), {}),
        "StateSpace": lambda: (b.StateSpace([[0.0, 1.0], [-2.0, -0.5]], [[0.0], [1.0]],
                                            [[1.0, 0.0]], [[0.0]]), {}),
        "TransferFunction": lambda: (b.TransferFunction([1.0], [1.0, 2.0, 1.0]), {}),
        "Interpolate": lambda: (b.Interpolate([0.0, 1.0, 2.0], [0.0, 1.0, 0.5]), {}),
        "Piecewise": lambda: (b.Piecewise([0.0, 1.0], [0.0, 1.0]), {}),
        "JTraj": lambda: (arm.JTraj(q0, qf, 2.0), {}),
        "MTraj": lambda: (arm.MTraj(q0, qf, 2.0), {}),
        "LSPB": lambda: (arm.LSPB(q0, qf, 2.0), {}),
        "MSTraj": lambda: (arm.MSTraj(np.array([qf, q0]), q0, 0.05, 0.2, qdmax=np.ones(6)), {}),
        "CTraj": lambda: (arm.CTraj(np.eye(4), _puma().fkine(qf), 2.0), {}),
        **{name: (lambda name=name: (getattr(arm, name)(_puma()), {}))
           for name in ("CartesianInertia", "Coriolis", "FKine", "ForwardDynamics", "Friction",
                        "Gravload", "IKine", "IKine6s", "Inertia", "InverseDynamics",
                        "JacobDot", "Jacobian")},
        **{name: (lambda name=name: (getattr(floating, name)(_puma(), base_mass=10.0,
                                                             base_inertia=[1.0, 1.0, 1.0]), {}))
           for name in ("EndEffectorJacobian", "FloatingBaseDynamics", "FloatingBaseKinematics")},
        "Demux": lambda: (b.Demux(2), {"u": (2,)}),
        "Camera": lambda: (vision.Camera(), {"points": (3, 4)}),
        "ImageJacobian": lambda: (vision.ImageJacobian(), uv),
        "IBVS": lambda: (vision.IBVS(np.full((2, 4), 500.0)), uv),
        "PurePursuit": lambda: (vehicle.PurePursuit(), {"target": (2,)}),
        **_control_samples(),
    }


def _control_samples() -> dict[str, Callable[[], tuple[Block, dict[str, tuple[int, ...]]]]]:
    """Samples of the control-design family: a double integrator (a scalar input, a scalar
    measurement, two states), as in the shipped examples."""
    import blocksim.blocks.control as control

    A, B, C = [[1.0, 0.1], [0.0, 1.0]], [[0.005], [0.1]], [[1.0, 0.0]]
    return {
        "StateFeedback": lambda: (control.StateFeedback([[1.0, 2.0]]), {}),
        "KalmanFilter": lambda: (control.KalmanFilter(A, B, C, [1e-3, 1e-2], 0.1, dt=0.1), {}),
        "UnscentedKalmanFilter": lambda: (control.UnscentedKalmanFilter(
            "pendulum", [1e-4, 1e-3], 0.01, dt=0.1), {}),
        "MPC": lambda: (control.MPC(A, B, [1.0, 1.0], 0.1, 5, dt=0.1, u_min=-1.0, u_max=1.0),
                        {}),
    }


def _variants() -> dict[str, list[Callable[[], tuple[Block, dict[str, tuple[int, ...]]]]]]:
    """More samples of the types whose common settings select other kernels (the shipped
    diagrams use them: ``ForwardDynamics(qdd=False)`` in the README's Puma, the EKF's other
    modes; each took 7-30 s to compile at the first run): type -> factories, as
    :func:`_samples`."""
    import blocksim.blocks.arm as arm
    import blocksim.blocks.vehicle as vehicle

    return {
        "ForwardDynamics": [lambda: (arm.ForwardDynamics(_puma(), qdd=False), {})],
        "EKF": [(lambda mode=mode: (vehicle.EKF(mode=mode), {}))
                for mode in ("dead_reckoning", "slam", "mapping")],
    }


def variants(type_name: str) -> int:
    """How many more samples than the first ``type_name`` has (:func:`sample_diagram`)."""
    return len(_variants().get(type_name, ()))


def _value(shape: tuple[int, ...], port: str) -> Any:
    """A harmless input value: 0.5, a pose the Puma reaches, a joint vector, or points in
    front of a camera."""
    if not shape:
        return 0.5
    if shape == (4, 4):
        return np.asarray(_puma().fkine(_q()), dtype=float)
    if shape == (6,):
        return _q()
    if len(shape) == 2 and shape[0] == shape[1]:
        return np.eye(shape[0])
    a = np.full(shape, 0.5) + 0.1 * np.arange(int(np.prod(shape))).reshape(shape)
    if port == "points":
        a[2] = 2.0  # in front of the camera
    return a


def sample_diagram(type_name: str, cls: type[Block], variant: int = 0) -> Any:
    """A diagram of one block of ``type_name`` (named "block") with its inputs fed by
    ``Constant`` blocks; raises when the type has no sample (see :data:`NO_SAMPLE`).
    ``variant`` k > 0 is the type's k-th other sample (see :func:`variants`)."""
    from blocksim.blocks import Constant
    from blocksim.engine.diagram import Diagram

    factory = _samples().get(type_name) if variant == 0 else \
        _variants()[type_name][variant - 1]
    block, shapes = factory() if factory is not None else (cls(), {})
    d = Diagram(f"warmup_{type_name}" + (f"_{variant}" if variant else ""))
    d.add(block, name="block")
    for port in block.inputs:
        shape = shapes.get(port.name, port.shape if port.shape is not None else ())
        src = d.add(Constant(_value(tuple(shape), port.name)), name=f"in_{port.name}")
        d.connect(src, block[port.name])
    return d


def library_types() -> dict[str, type[Block]]:
    """Every block type of the diagram-file registry (library and registered)."""
    from blocksim.io.registry import block_types

    return block_types()


def _one(type_name: str, cls: type[Block]) -> BlockWarmup:
    from blocksim.engine.compile import compile_diagram
    from blocksim.engine.compiled.kernels import kernels_of
    from blocksim.engine.compiled.warmup import BlockWarmup, kernel_signatures, precompile

    t0 = time.perf_counter()
    if type_name in NO_SAMPLE:
        return BlockWarmup(type_name, "skipped", reason=NO_SAMPLE[type_name])
    if getattr(cls, "kernels", None) is None:  # decided by the type: no sample needed (a
        # hardware block cannot even be built without its device)
        return BlockWarmup(type_name, "skipped", reason=_NO_KERNELS)
    try:
        d = sample_diagram(type_name, cls)
        plan = compile_diagram(d)
    except Exception as exc:  # reported per block type, the others go on
        return BlockWarmup(type_name, "failed", time.perf_counter() - t0,
                           reason=f"sample diagram: {type(exc).__name__}: {exc}")
    block = d["block"]
    if kernels_of(block) is None:
        return BlockWarmup(type_name, "skipped", reason=_NO_KERNELS)
    if not kernel_signatures(plan, "block"):
        routes = kernels_of(block).routes is not None  # type: ignore[union-attr]
        return BlockWarmup(type_name, "skipped", reason="a routing block: compiled code copies "
                           "its signals" if routes else "takes no part in a compiled run (a "
                           "sink without state or events)")
    try:
        names = precompile(plan, "block")
        out = BlockWarmup(type_name, "compiled", time.perf_counter() - t0, names)
    except Exception as first:  # numba typing/lowering errors: try a real run instead
        reason = f"{type(first).__name__}: {str(first).strip().splitlines()[0]}"
        try:
            _tiny_run(d)
        except Exception as exc:
            return BlockWarmup(type_name, "failed", time.perf_counter() - t0,
                               reason=f"{reason}; a compiled run: {type(exc).__name__}: {exc}")
        sigs = kernel_signatures(plan, "block")
        out = BlockWarmup(type_name, "compiled", time.perf_counter() - t0,
                          [f"{k} (run)" for k in sigs], reason=reason, via="run")
    step = "block entries"
    try:
        out.entries = entries(plan)
        for k in range(1, variants(type_name) + 1):
            step = f"sample {k + 1}"
            plan = compile_diagram(sample_diagram(type_name, cls, k))
            out.kernels += [f"{name} ({step})" for name in precompile(plan, "block")]
            out.entries += [m for m in entries(plan) if m not in out.entries]
    except Exception as exc:  # the block cannot run on the data-wired tier
        out.status = "failed"
        out.reason = (f"{out.reason}; " if out.reason else "") + \
            f"{step}: {type(exc).__name__}: {str(exc).strip().splitlines()[0]}"
    out.seconds = time.perf_counter() - t0
    return out


def entries(plan: Any) -> list[str]:
    """Load (compile the first time a block form is seen) the data-wired tier's entries of
    every block of ``plan``; returns their modules. Raises what the wiring raises (a
    ``CompileError`` for a kernel that does not take the entry's types)."""
    from blocksim.engine.compiled.backend import prepare

    prep = prepare(plan, "euler", "wired")
    assert prep.wiring is not None
    return [a.module for a in prep.wiring.adapters]


def _tiny_run(d: Any) -> None:
    from blocksim.engine.simulate import simulate

    simulate(d, T=0.0, solver="euler", dt=1.0, backend="compiled", fuse=False)


def loop_diagram() -> Any:
    """A small diagram whose compiled runs use the loop functions of every kind of diagram:
    continuous state, a clocked discrete block, a zero crossing, scalar and vector signals."""
    from blocksim.blocks import Constant, Gain, Integrator, Saturation, Sum, UnitDelay
    from blocksim.engine.diagram import Diagram

    d = Diagram("warmup_loop")
    c = d.add(Constant(np.ones(3)), name="c")
    i3 = d.add(Integrator(x0=np.zeros(3)), name="i3")
    d.connect(c, i3)
    s = d.add(Sum("+-"), name="s")
    g = d.add(Gain(2.0), name="g")
    i = d.add(Integrator(x0=0.0), name="i")
    sat = d.add(Saturation(-0.5, 0.5), name="sat")
    z = d.add(UnitDelay(0.1), name="z")
    d.connect(d.add(Constant(1.0), name="r"), s["u0"])
    d.connect(s, g)
    d.connect(g, i)
    d.connect(i, s["u1"], sat)
    d.connect(sat, z)
    return d


def chain_diagram() -> Any:
    """Constant -> Gain -> Integrator: no zero crossings (the lean fixed-step loops)."""
    from blocksim.blocks import Constant, Gain, Integrator
    from blocksim.engine.diagram import Diagram

    d = Diagram("warmup_chain")
    g = d.add(Gain(2.0), name="g")
    d.connect(d.add(Constant(1.0), name="c"), g)
    d.connect(g, d.add(Integrator(x0=0.0), name="i"))
    return d


#: the solvers of the data-wired loops and their fixed step (None: adaptive)
_SOLVERS = (("euler", 0.05), ("rk4", 0.05), ("RK45", None))
#: their methods as the compile messages name them
_METHOD_NAMES = {"euler": "Euler", "rk4": "RK4", "RK45": "Dormand-Prince"}


def loop_runs() -> list[tuple[str, Callable[[], Any]]]:
    """The tiny data-wired runs that compile every loop function (name, run): per fixed-step
    solver ``run_fixed`` (no zero crossings), ``run`` (zero crossings), ``run_batch_fixed``
    and ``run_batch`` (batches of 2); Dormand-Prince ``run`` and ``run_batch``."""
    from blocksim.engine.batch import simulate_batch
    from blocksim.engine.simulate import simulate

    chain, crossing = chain_diagram(), loop_diagram()
    members = [{"g.K": 1.0}, {"g.K": 3.0}]
    runs: list[tuple[str, Callable[[], Any]]] = []
    for solver, dt in _SOLVERS:
        opts = dict(solver=solver, dt=dt, backend="compiled", fuse=False)
        diagrams = ((chain, "_fixed"), (crossing, "")) if dt else ((chain, ""),)
        for d, lean in diagrams:
            runs.append((f"{solver} run{lean}",
                         lambda d=d, o=opts: simulate(d, 0.2, **o)))
            runs.append((f"{solver} run_batch{lean}",
                         lambda d=d, o=opts: simulate_batch(d, members, 0.2, **o)))
    return runs


def warmup(types: Iterable[str] | None = None,
           progress: Callable[[str, int, int], None] | None = None,
           loop: bool | None = None, jobs: int = 1) -> WarmupReport:
    """Precompile the kernels and block entries of every library block type (or of
    ``types``), and the data-wired loops.

    Parameters
    ----------
    types : iterable of str, optional
        Block type names (as in diagram files); default every type of the registry.
    progress : callable, optional
        ``progress(step, done, total)`` before each step: a block type's name, then each loop
        run's (``"loop: rk4 run_batch_fixed"``, the last steps of ``total``).
    loop : bool, optional
        Also run the tiny data-wired diagrams of :func:`loop_runs`, so that every function of
        the three wired loops is compiled (once per installation: they are package modules);
        default: only when ``types`` is None.
    jobs : int
        Worker processes (default 1: this process). numba compiles in one thread per
        process, so ``jobs`` = the number of CPUs divides the time by about that many; the
        workers write the same disk caches.

    Returns
    -------
    WarmupReport
        Per block type: compiled (its kernels and entries), skipped (nothing to compile) or
        failed (why), and the seconds; the loop runs, their time and failures; every compile
        on the way (``compiles``, for :meth:`~WarmupReport.compile_report`).

    Raises
    ------
    KeyError
        For an unknown type name (with a did-you-mean suggestion).
    """
    from blocksim.engine.compiled import compile_watch
    from blocksim.engine.compiled.warmup import WarmupReport

    t0 = time.perf_counter()
    known = library_types()
    names = list(known) if types is None else list(types)
    for n in names:
        if n not in known:
            raise KeyError(f"unknown block type {n!r}{suggest(n, known)}")
    loop = types is None if loop is None else loop
    runs = loop_runs() if loop else []
    report = WarmupReport([])
    if jobs > 1 and len(names) + len(runs) > 1:
        _parallel(names, [name for name, _ in runs], report, progress, jobs)
        report.seconds = time.perf_counter() - t0
        return report
    saved = compile_watch.announce  # the tiny runs' own announcements: ``progress`` says it
    compile_watch.announce = _silent
    try:
        with compile_watch.CompileWatch("", "warmup", quiet=True) as watch:
            _steps(names, known, runs, report, progress)
    finally:
        compile_watch.announce = saved
    report.compiles = watch
    report.seconds = time.perf_counter() - t0
    return report


def _silent(message: str) -> None:
    """An announcer that says nothing."""


def _task(kind: str, name: str) -> tuple[Any, list[tuple[str, str, float, list[str]]]]:
    """One step of a parallel warmup, in a worker process: a block type (``kind`` "type")
    or a loop run ("loop"); returns its outcome (a BlockWarmup, or the loop run's error
    text, "" when it ran) and the functions it compiled ``(name, kind, seconds,
    signatures)``."""
    from blocksim.engine.compiled import compile_watch

    compile_watch.announce = _silent
    with compile_watch.CompileWatch("", "warmup", quiet=True) as watch:
        if kind == "type":
            outcome: Any = _one(name, library_types()[name])
        else:
            try:
                dict(loop_runs())[name]()
                outcome = ""
            except Exception as exc:  # reported, like a block type's failure
                outcome = f"{name}: {type(exc).__name__}: {exc}"
    return outcome, [(f.name, f.kind, f.seconds, sorted(f.signatures or ()))
                     for f in watch.functions.values()]


def _parallel(names: list[str], runs: list[str], report: WarmupReport,
              progress: Callable[[str, int, int], None] | None, jobs: int) -> None:
    """The steps of :func:`warmup` on ``jobs`` worker processes (the loop runs, the longest
    compiles, first), merged into ``report``."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from blocksim.engine.compiled.compile_watch import Compiled, CompileWatch

    watch = CompileWatch("", "warmup", quiet=True)
    total = len(names) + len(runs)
    blocks: dict[str, Any] = {}
    errors: list[str] = []
    t_loops = 0.0
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        started = {pool.submit(_task, "loop", n): ("loop", n, time.perf_counter())
                   for n in runs}
        started.update({pool.submit(_task, "type", n): ("type", n, 0.0) for n in names})
        for done, future in enumerate(as_completed(started)):
            kind, name, t_start = started[future]
            outcome, functions = future.result()
            if kind == "type":
                blocks[name] = outcome
            else:
                t_loops = max(t_loops, time.perf_counter() - t_start)
                if outcome:
                    errors.append(outcome)
                else:
                    report.loops.append(name)
            for fname, fkind, seconds, sigs in functions:
                f = watch.functions.setdefault(fname, Compiled(fname, fkind, 0.0, set()))
                f.seconds += seconds
                assert f.signatures is not None
                f.signatures.update(sigs)
                watch.seconds[fkind] = watch.seconds.get(fkind, 0.0) + seconds
                watch.by_function[fname] = watch.by_function.get(fname, 0.0) + seconds
            if progress is not None:
                progress(f"{'loop: ' if kind == 'loop' else ''}{name}", done + 1, total)
    report.blocks = [blocks[n] for n in names]
    report.loop_seconds = t_loops
    report.loop_error = "; ".join(errors)
    report.compiles = watch


def _steps(names: list[str], known: dict[str, type[Block]],
           runs: list[tuple[str, Callable[[], Any]]], report: WarmupReport,
           progress: Callable[[str, int, int], None] | None) -> None:
    """The block types, then the loop runs, into ``report``."""
    total = len(names) + len(runs)
    for k, n in enumerate(names):
        if progress is not None:
            progress(n, k, total)
        report.blocks.append(_one(n, known[n]))
    from blocksim.engine.compiled.compile_watch import LOOP_TIMES

    t1 = time.perf_counter()
    errors = []
    for k, (name, run) in enumerate(runs):
        solver, function = name.split()
        cold = LOOP_TIMES.get(_METHOD_NAMES[solver], "") if function == "run" else ""
        if progress is not None:
            progress(f"loop: {name}" + (f" ({cold} when cold)" if cold else ""),
                     len(names) + k, total)
        try:
            run()
            report.loops.append(name)
        except Exception as exc:  # reported, like a block type's failure
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
    report.loop_seconds = time.perf_counter() - t1 if runs else 0.0
    report.loop_error = "; ".join(errors)


def add_parser(sub: Any) -> None:
    """Register the ``warmup`` command."""
    p = sub.add_parser("warmup", help="precompile every library kernel (for a Docker image or "
                                      "a shared install)",
                       description="Compile the compiled back-end's kernels and data-wired "
                                   "block entries of every block type, and the data-wired "
                                   "loops, into numba's disk cache, so that data-wired runs of "
                                   "library blocks compile nothing (fused runs only their "
                                   "diagram). Kernels and loops are cached in the installation, "
                                   "block entries in the cache folder ($BLOCKSIM_CACHE_DIR, "
                                   "default ~/.cache/blocksim): warm up as the user who runs "
                                   "blocksim, or share that folder. Exit status: 0 done, 1 a "
                                   "kernel or entry failed to compile, 2 bad arguments.")
    p.add_argument("--only", nargs="+", metavar="TYPE", help="only these block types")
    p.add_argument("--quiet", action="store_true", help="no progress bar, only the summary "
                                                        "line (and failures)")
    p.add_argument("--verbose", action="store_true", help="one line per block type")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes (default: the number of CPUs; numba compiles on "
                        "one core per process)")
    p.add_argument("--report", nargs="?", type=int, const=25, default=None, metavar="N",
                   help="print what compiling cost: the total, the sum per category (kernels, "
                        "entries, loops) and the N (default 25) slowest functions with their "
                        "exclusive seconds and number of signatures")
    p.set_defaults(command=run_warmup)


def run_warmup(args: argparse.Namespace) -> int:
    """The ``warmup`` command."""
    from blocksim.cli.common import BAD_INPUT
    from blocksim.engine.compiled import compile_watch

    bar: Any = None
    if not args.quiet and on_terminal():  # a log gets the summary only
        from tqdm import tqdm

        bar = tqdm(total=1, file=sys.stderr, unit="step", desc="warmup: compiling",
                   ncols=bar_width())

    def progress(step: str, done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.n = done
            bar.set_postfix_str(step)

    saved = compile_watch.announce
    compile_watch.announce = lambda message: None  # the bar says it
    # the elapsed time goes on during a long compile (a minute or more)
    stop = keep_redrawing(bar) if bar is not None else threading.Event()
    try:
        jobs = args.jobs if getattr(args, "jobs", None) else (os.cpu_count() or 1)
        report = warmup(args.only, progress, jobs=max(1, jobs))
    except KeyError as exc:
        raise CliError(BAD_INPUT, [str(exc.args[0])]) from None
    finally:
        stop.set()
        compile_watch.announce = saved
        if bar is not None:
            bar.n = bar.total
            bar.set_postfix_str("done")
            bar.close()
    lines = report.summary(verbose=args.verbose)
    if args.quiet:
        lines = lines[:1] + report.failures()
    if getattr(args, "report", None) is not None:
        lines += report.compile_report(max(0, args.report))
    for ln in lines:
        echo(ln)
    return OK if report.ok else FAILED
