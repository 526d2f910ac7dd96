"""``blocksim linearize FILE --in a.y --out b.y`` and ``blocksim trim FILE --target b.y=1``.

``linearize`` prints the linear model between analysis points (A, B, C, D with their state,
input and output names, poles, zeros, DC gain and, for one input and one output, gain and
phase margins) or writes it as JSON (``--json``), and draws Bode, Nyquist and step plots.
``trim`` finds an operating point and writes it (``--out op.json``) for ``linearize --at``.
Both use :mod:`blocksim.analysis`; a bad file, point or option ends with status 2 and one
line saying what is wrong.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.cli.common import (
    BAD_INPUT,
    FAILED,
    OK,
    CliError,
    echo,
    load_file,
    locate_compile_problems,
    output_path,
    problem_report,
)
from blocksim.engine.errors import DiagramError
from blocksim.engine.plan import Plan
from blocksim.io.load import DiagramFile

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def add_parser(sub: Any) -> None:
    """Register the ``linearize`` and ``trim`` commands."""
    p = sub.add_parser(
        "linearize", help="linear model of a diagram between analysis points",
        description="Linearize a diagram file at its initial state or an operating point "
                    "(--at, from `blocksim trim`): A, B, C, D, poles, zeros, DC gain and "
                    "(SISO) gain and phase margins, as text or JSON; Bode, Nyquist and step "
                    "plots. A point is 'block.port': an output port (its signal) or an input "
                    "port (what it reads). Exit status: 0 done, 2 bad file, point or "
                    "arguments.")
    p.add_argument("file", help="diagram file (.json)")
    p.add_argument("--in", dest="inputs", action="append", required=True, metavar="BLK.PORT",
                   help="input point (a perturbation added there); repeatable")
    p.add_argument("--out", dest="outputs", action="append", required=True,
                   metavar="BLK.PORT", help="output point (a signal measured); repeatable")
    p.add_argument("--open", dest="opened", action="append", metavar="BLK.PORT",
                   help="loop opening (the signal cut there); repeatable")
    p.add_argument("--at", metavar="OP.json", help="operating point written by `blocksim "
                                                   "trim` (OperatingPoint.save)")
    p.add_argument("--t", type=float, help="time of the linearization [s] (default: the "
                                           "operating point's, else 0)")
    p.add_argument("--method", choices=["zoh"], help="for continuous states with a discrete "
                   "rate: the sampled-data model at the clock's period")
    p.add_argument("--json", action="store_true", help="print the model as JSON")
    p.add_argument("--bode", metavar="BODE.png", help="draw the Bode plot (.png, .svg, .pdf)")
    p.add_argument("--nyquist", metavar="NYQ.png", help="draw the Nyquist plot (SISO)")
    p.add_argument("--step", metavar="STEP.png", help="draw the step response")
    p.add_argument("--set", action="append", metavar="TARGET=VALUE",
                   help="linearize with these overrides (as for run)")
    p.add_argument("--allow-dir", action="append", metavar="DIR",
                   help="a folder subsystem and data files may also come from; repeatable")
    p.set_defaults(command=linearize_command)

    t = sub.add_parser(
        "trim", help="find an operating point (steady states, given outputs)",
        description="Find states and root inputs (Constant values) where the diagram is "
                    "steady and the --target outputs hold (scipy least squares); print it and "
                    "write it with --out for `blocksim linearize --at`. Exit status: 0 found, "
                    "1 not found (the closest point is still written), 2 bad file, name or "
                    "arguments.")
    t.add_argument("file", help="diagram file (.json)")
    t.add_argument("--target", action="append", metavar="BLK.PORT=VALUE",
                   help="a signal's required value (a number or expression such as pi/4, "
                        "or a list); repeatable")
    t.add_argument("--x0", action="append", metavar="STATE=VALUE",
                   help="starting value of a state (block.x0, or a block for all of its "
                        "states); repeatable")
    t.add_argument("--u0", action="append", metavar="INPUT=VALUE",
                   help="starting value of a root input (a Constant: block or block.y)")
    t.add_argument("--fix-state", action="append", metavar="STATE",
                   help="hold this state at its starting value; repeatable")
    t.add_argument("--fix-input", action="append", metavar="INPUT",
                   help="hold this root input at its starting value; repeatable")
    t.add_argument("--unsteady", action="append", metavar="STATE",
                   help="a state whose derivative need not vanish; repeatable")
    t.add_argument("--t", type=float, default=0.0, help="time of the operating point [s]")
    t.add_argument("--out", dest="output", metavar="OP.json",
                   help="write the operating point here (strict JSON)")
    t.add_argument("--json", action="store_true", help="print the operating point as JSON")
    t.add_argument("--set", action="append", metavar="TARGET=VALUE",
                   help="trim with these overrides (as for run)")
    t.add_argument("--allow-dir", action="append", metavar="DIR",
                   help="a folder subsystem and data files may also come from; repeatable")
    t.set_defaults(command=trim_command)


# ---------------------------------------------------------------------- linearize
def linearize_command(args: argparse.Namespace) -> int:
    """Linearize ``args.file`` and report the model."""
    from blocksim.analysis import AnalysisError, OperatingPoint, linearize

    plots = {kind: output_path(path, f"--{kind}", PLOT_SUFFIXES)
             for kind in ("bode", "nyquist", "step")
             if (path := getattr(args, kind)) is not None}
    df = load_file(args.file, args.set, args.allow_dir)
    plan = compile_for_analysis(df)
    op = None
    if args.at is not None:
        op = _load_point(args.at, OperatingPoint)
    try:
        sys = linearize(plan, args.inputs, args.outputs, op=op, t=args.t,
                        open=args.opened or (), method=args.method)
    except AnalysisError as exc:
        raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None
    if "nyquist" in plots and (sys.ninputs, sys.noutputs) != (1, 1):
        raise CliError(BAD_INPUT, [f"--nyquist: the model has {sys.ninputs} inputs and "
                                   f"{sys.noutputs} outputs; a Nyquist plot is of one input "
                                   f"and one output"])
    report = model_report(sys, args.inputs, args.outputs, args.opened or ())
    report["file"] = args.file
    report["at"] = args.at or "the initial state"
    if args.json:
        echo(json.dumps(report, indent=1, allow_nan=False))
    else:
        for line in text_report(report):
            echo(line)
    sign = loop_sign(args.inputs, args.outputs, args.opened or ())
    for kind, path in plots.items():
        draw(kind, sys, path, sign)
        if not args.json:
            echo(f"wrote {path}")
    return OK


def compile_for_analysis(df: DiagramFile) -> Plan:
    """The plan of the loaded file, its algebraic loops solved (as the analysis functions
    compile a diagram), or :data:`BAD_INPUT` listing every problem at its line."""
    from blocksim.analysis.operating_point import as_plan

    try:
        return as_plan(df.diagram)
    except DiagramError as exc:
        raise CliError(BAD_INPUT, problem_report(df.source.name,
                                                 locate_compile_problems(df, exc))) from None


def _load_point(path: str, cls: Any) -> Any:
    from blocksim.analysis import AnalysisError

    try:
        return cls.load(path)
    except FileNotFoundError:
        raise CliError(BAD_INPUT, [f"--at {path}: no such file"]) from None
    except (OSError, ValueError) as exc:
        text = str(exc) if isinstance(exc, AnalysisError) else f"{path}: {exc}"
        raise CliError(BAD_INPUT, [f"--at {text}"]) from None


def _finite(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _complex_list(values: Any) -> list[list[float]]:
    return [[float(np.real(z)), float(np.imag(z))]
            for z in sorted(np.atleast_1d(values), key=lambda z: (np.real(z), np.imag(z)))]


def loop_sign(inputs: list[str], outputs: list[str], opened: Any) -> int:
    """-1 when the model is a loop transfer of an opened loop (one input and one output
    point at the same opening: the model is -L with negative feedback), else +1."""
    if len(inputs) == 1 and len(outputs) == 1 and inputs[0] == outputs[0] \
            and inputs[0] in set(opened):
        return -1
    return 1


def model_report(sys: Any, inputs: list[str], outputs: list[str],
                 opened: Any) -> dict[str, Any]:
    """The model as a JSON-ready dict: names, matrices, poles, zeros, DC gain, margins."""
    from blocksim.analysis import margins

    A, B, C, D = (np.asarray(M, dtype=float) + 0.0 for M in (sys.A, sys.B, sys.C, sys.D))
    report: dict[str, Any] = {
        "diagram": sys.name, "dt": float(sys.dt) if sys.dt else 0.0,
        "states": list(sys.state_labels), "inputs": list(sys.input_labels),
        "outputs": list(sys.output_labels), "A": A.tolist(), "B": B.tolist(),
        "C": C.tolist(), "D": D.tolist(), "poles": _complex_list(sys.poles())}
    report["zeros"] = _zeros(sys)
    try:
        dc = np.asarray(sys.dcgain(), dtype=float).reshape(D.shape)
        report["dc_gain"] = [[_finite(v) for v in row] for row in dc]
    except Exception:  # a pole at s = 0 (or z = 1): no finite DC gain
        report["dc_gain"] = None
    report["margins"] = None
    if sys.ninputs == 1 and sys.noutputs == 1:
        sign = loop_sign(inputs, outputs, opened)
        m = margins(sign * sys)
        report["margins"] = {**m.as_dict(), "loop": "-model" if sign < 0 else "model"}
    return report


def _zeros(sys: Any) -> list[list[float]] | None:
    import control

    try:
        if sys.ninputs == 1 and sys.noutputs == 1:
            from blocksim.analysis.design import _clean

            return _complex_list(_clean(control.tf(sys)).minreal().zeros())
        return _complex_list(sys.zeros())
    except Exception:  # MIMO zeros need slycot: not reported without it
        return None


def _fmt_matrix(name: str, M: list[list[float]], rows: list[str], cols: list[str]) -> list[str]:
    if not rows or not cols:
        return [f"{name} = [] ({len(rows)} x {len(cols)})"]
    cells = [[f"{v:.6g}" for v in row] for row in M]
    width = max([len(c) for c in cols] + [len(v) for row in cells for v in row] + [6])
    lead = max(len(r) for r in rows)
    lines = [f"{name} =", " " * (lead + 4) + "  ".join(c.rjust(width) for c in cols)]
    for r, row in zip(rows, cells):
        lines.append(f"  {r.ljust(lead)}  " + "  ".join(v.rjust(width) for v in row))
    return lines


def _fmt_complex(values: list[list[float]] | None) -> str:
    if values is None:
        return "(not computed: MIMO zeros need slycot)"
    if not values:
        return "(none)"
    out = []
    for re_, im in values:
        out.append(f"{re_:.6g}" if im == 0 else f"{re_:.6g}{'+' if im > 0 else '-'}"
                                                 f"{abs(im):.6g}j")
    return ", ".join(out)


def text_report(r: dict[str, Any]) -> list[str]:
    """The readable report of :func:`model_report`'s dict."""
    kind = "continuous" if not r["dt"] else f"discrete, dt = {r['dt']:g} s"
    lines = [f"linearization of '{r['diagram']}' ({r['file']}) at {r['at']}: {kind}, "
             f"{len(r['states'])} states, {len(r['inputs'])} inputs, {len(r['outputs'])} "
             f"outputs"]
    lines += _fmt_matrix("A", r["A"], r["states"], r["states"])
    lines += _fmt_matrix("B", r["B"], r["states"], r["inputs"])
    lines += _fmt_matrix("C", r["C"], r["outputs"], r["states"])
    lines += _fmt_matrix("D", r["D"], r["outputs"], r["inputs"])
    lines.append(f"poles: {_fmt_complex(r['poles'])}")
    lines.append(f"zeros: {_fmt_complex(r['zeros'])}")
    dc = r["dc_gain"]
    if dc is not None and len(dc) == 1 and len(dc[0]) == 1:
        lines.append(f"DC gain: {'inf' if dc[0][0] is None else f'{dc[0][0]:.6g}'}")
    elif dc is not None:
        lines += _fmt_matrix("DC gain", [[math.inf if v is None else v for v in row]
                                         for row in dc], r["outputs"], r["inputs"])
    m = r["margins"]
    if m is not None:
        what = ("the loop transfer L = -(model), negative feedback" if m["loop"] == "-model"
                else "the model taken as a loop transfer L, negative feedback")
        gm = ("inf (the phase never crosses -180 deg)" if m["gm"] is None else
              f"{m['gm']:.6g} ({m['gm_db']:.4g} dB) at {m['wpc']:.6g} rad/s")
        pm = ("inf (|L| never crosses 1)" if m["pm"] is None else
              f"{m['pm']:.6g} deg at {m['wgc']:.6g} rad/s")
        lines.append(f"margins of {what}:")
        lines.append(f"  gain margin: {gm}")
        lines.append(f"  phase margin: {pm}")
        if m["sm"] is not None:
            lines.append(f"  stability margin: {m['sm']:.6g} at {m['wms']:.6g} rad/s")
    return lines


def draw(kind: str, sys: Any, path: Path, sign: int = 1) -> None:
    """Draw the ``kind`` ("bode", "nyquist", "step") plot of ``sys`` into ``path``; the
    Bode and Nyquist plots of ``sign * sys`` (the loop transfer L, see :func:`loop_sign`)."""
    import matplotlib

    matplotlib.use("Agg")
    import control
    import matplotlib.pyplot as plt

    plt.close("all")
    loop = sys if sign > 0 else -sys
    label = f"{sys.name}: {kind}" + (" of the loop transfer L" if sign < 0 and
                                      kind != "step" else "")
    if kind == "bode":
        control.bode_plot(loop, dB=True)
    elif kind == "nyquist":
        control.nyquist_plot(loop)
    else:
        control.step_response(sys).plot()
    fig = plt.gcf()
    fig.suptitle(label)
    fig.savefig(path)
    plt.close(fig)


# ---------------------------------------------------------------------- trim
def _assignments(items: list[str] | None, option: str) -> dict[str, Any]:
    from blocksim.io.expressions import ExpressionError, evaluate

    out: dict[str, Any] = {}
    for item in items or []:
        name, eq, text = item.partition("=")
        if not eq or not name.strip() or not text.strip():
            raise CliError(BAD_INPUT, [f"{option} {item!r}: expected NAME=VALUE, e.g. "
                                       f"{option} theta.y=pi/4"])
        try:
            value = evaluate(text.strip())
            np.asarray(value, dtype=float)
        except (ExpressionError, TypeError, ValueError) as exc:
            raise CliError(BAD_INPUT, [f"{option} {item!r}: {exc}"]) from None
        out[name.strip()] = value
    return out


def trim_command(args: argparse.Namespace) -> int:
    """Trim ``args.file``; print the point and write it to ``args.output``."""
    from blocksim.analysis import AnalysisError, trim

    out = output_path(args.output, "--out", (".json",)) if args.output else None
    targets = _assignments(args.target, "--target")
    x0 = _assignments(args.x0, "--x0")
    u0 = _assignments(args.u0, "--u0")
    df = load_file(args.file, args.set, args.allow_dir)
    plan = compile_for_analysis(df)
    try:
        op = trim(plan, x0=x0 or None, u0=u0 or None, fix_states=args.fix_state or (),
                  fix_inputs=args.fix_input or (), targets=targets, t=args.t,
                  unsteady=args.unsteady or ())
    except AnalysisError as exc:
        raise CliError(BAD_INPUT, [f"{args.file}: {exc}"]) from None
    if out is not None:
        try:
            op.save(out)
        except ValueError as exc:
            raise CliError(FAILED, [f"{args.file}: {exc}"]) from None
    if args.json:
        echo(json.dumps(op.to_dict(), indent=1, allow_nan=False))
    else:
        status = "found" if op.success else "NOT found"
        echo(f"{args.file}: operating point {status} (largest residual {op.residual:.3g})")
        for title, values in (("states", op.states), ("inputs", op.inputs)):
            if values:
                echo(f"{title}:")
                for name, v in values.items():
                    echo(f"  {name} = {_fmt_value(v)}")
        if not op.success:
            echo(f"  {op.message}")
        if out is not None:
            echo(f"wrote {out}")
    return OK if op.success else FAILED


def _fmt_value(v: Any) -> str:
    a = np.asarray(v, dtype=float)
    return f"{float(a):.10g}" if a.ndim == 0 else str(a.tolist())
