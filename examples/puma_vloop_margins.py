"""Gain and phase margins of the Puma 560's joint velocity loop (RTB *vloop*), from the diagram.

The loop is the Robotics Toolbox's *vloop* with its mask defaults, the Puma 560's joint-2 servo
seen from the motor: inertia ``J = 372e-6 kg m^2`` (the motor's 200e-6 plus the link's
reflected through the 107.8:1 gearbox), viscous friction ``B = 817e-6 N m s/rad``, torque
constant ``Km = 0.228 N m/A`` (current-driven amplifier, 0.9 N m limit) and a PI controller
``c = Kv e + Ki I`` (``Kv = 1 A s/rad``, ``Ki = 5 A/rad``) sampled every ``T = 1 ms``::

    L(z) = (Kv + Ki T / (z - 1)) * ZOH{Km / (J s + B)}(z)

The diagram is the same loop as ``vloop_test`` (the library's
:func:`~blocksim.blocks.arm.servo_loops.vloop`) driven by a 1 rad/s demand step. ``main``
simulates it, then cuts the loop at the controller's output ``vloop/pi.c`` and
:func:`~blocksim.analysis.linearize` gives the loop transfer there (``-L``, negative feedback);
the sampled PI and the continuous motor make it a sampled-data model (``method="zoh"``,
``dt = T``). :func:`~blocksim.analysis.margins` reads its margins:

* phase margin 71.9 deg at 621 rad/s; with the controller continuous (``clock=None``) it is
  89.7 deg at 613 rad/s: the zero-order hold's half-sample delay costs ``wgc T / 2`` (17.8
  deg);
* gain margin 3.27 (10.3 dB) at the Nyquist frequency ``pi / T``, where ``L(-1)`` is real
  and negative; the continuous loop's is infinite.

The seed (the Toolbox's manual) quotes no margins for *vloop*, so
``tests/analysis/test_examples_analysis.py`` checks them against python-control's margins of
the analytic ``L(z)`` above (and ``L(s)`` for the continuous controller), and the gain margin
against ``1 / |L(-1)|`` written out by hand.

What to look at: the step response rises in about 5 ms (a first-order lag of ``J / (B + Km
Kv)``, 1.6 ms) and the integral then acts slowly (its zero at ``Ki / Kv = 5 rad/s``: a 0.2 %
overshoot that decays over a second); the Bode plot (``*_bode.png``) shows
the two loops' gains (equal below 100 rad/s) and the sampled loop's phase falling away from
the continuous one's -90 deg towards -180 deg at ``pi / T``.

Try next: raise ``Kv`` (``build(Kv=2.5)``) and watch the phase margin shrink and the step
ring; lengthen the sample period (``clock=0.005``) and see the gain margin fall towards 1;
from the command line, ``blocksim linearize diagrams/puma_vloop_margins.json --in vloop/pi.c
--out vloop/pi.c --open vloop/pi.c --method zoh --bode bode.png``.

Run ``python examples/puma_vloop_margins.py`` to simulate 0.2 s and write
``puma_vloop_margins.png`` and ``puma_vloop_margins_bode.png``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.analysis import Margins, linearize, margins
from blocksim.blocks import Constant, Scope, Step
from blocksim.blocks.arm.servo_loops import vloop

J, B, KM, TAU_MAX = 372e-6, 817e-6, 0.228, 0.9  # kg m^2, N m s/rad, N m/A, N m
KV, KI = 1.0, 5.0  # A s/rad, A/rad
TS = 1e-3  # s, controller sample period
DEMAND, T_STEP = 1.0, 0.01  # rad/s motor-rate step, at s
CUT = "vloop/pi.c"  # the loop opening: the controller's current demand [A]


def build(scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True,
          Kv: float = KV, Ki: float = KI, clock: float | None = TS) -> Diagram:
    """The velocity loop (``Kv`` [A s/rad], ``Ki`` [A/rad], controller period ``clock`` [s],
    None: continuous) with a step demand of ``DEMAND`` rad/s at ``T_STEP`` s and no
    disturbance torque."""
    d = Diagram("puma_vloop_margins")
    demand = d.add(Step(time=T_STEP, after=DEMAND), name="demand")
    tau_d = d.add(Constant(0.0), name="tau_d")
    loop = d.add(vloop(J=J, B=B, Km=KM, tau_max=TAU_MAX, Kv=Kv, Ki=Ki, clock=clock),
                 name="vloop")
    d.connect(demand, loop["qd_star"])
    d.connect(tau_d, loop["tau_d"])
    if with_scope:
        scope = d.add(Scope(2, labels=["qd", "tau"], units=["rad/s", "N m"],
                            title="Puma joint-2 velocity loop: 1 rad/s step",
                            file=scope_file, show=show), name="scope")
        d.connect(loop["qd"], scope["u0"])
        d.connect(loop["tau"], scope["u1"])
    return d


def loop_transfer(Kv: float = KV, Ki: float = KI, clock: float | None = TS) -> Any:
    """The loop transfer ``L`` at the controller output (a ``control.StateSpace``: discrete
    with ``dt = clock`` [s], or continuous for ``clock=None``), linearized from the diagram:
    ``-linearize(...)`` with an input point, an output point and the loop opening at ``CUT``."""
    d = build(with_scope=False, Kv=Kv, Ki=Ki, clock=clock)
    method = "zoh" if clock is not None else None
    return -linearize(d, CUT, CUT, open=CUT, method=method)


def analytic_loop(Kv: float = KV, Ki: float = KI, clock: float | None = TS) -> Any:
    """``L`` written down by hand (a ``control.TransferFunction``): the forward-Euler PI
    ``Kv + Ki T / (z - 1)`` times the ZOH-sampled motor ``Km / (J s + B)``, or ``(Kv s + Ki) /
    s * Km / (J s + B)`` for a continuous controller."""
    import control

    motor = control.tf([KM], [J, B])
    if clock is None:
        return control.tf([Kv, Ki], [1.0, 0.0]) * motor
    return (Kv + control.tf([Ki * clock], [1.0, -1.0], clock)) * control.c2d(motor, clock, "zoh")


def analyse(Kv: float = KV, Ki: float = KI) -> dict[str, Any]:
    """The sampled and the continuous loops (``L_sampled``, ``L_continuous``), their
    :class:`~blocksim.analysis.Margins` (``sampled``, ``continuous``) and the sampled loop's
    sampled loop's gain margin is at the Nyquist frequency ``pi / T``, where ``L(-1)`` is real."""
    Ld, Lc = loop_transfer(Kv, Ki, TS), loop_transfer(Kv, Ki, None)
    return {"L_sampled": Ld, "L_continuous": Lc, "sampled": margins(Ld),
            "continuous": margins(Lc)}


def bode(report: dict[str, Any], file: str | Path | None = None) -> Any:
    """Bode plot of both loop transfers with the phase crossovers marked (a matplotlib
    Figure, made without pyplot)."""
    from matplotlib.figure import Figure

    w = np.logspace(0, math.log10(0.999 * math.pi / TS), 400)
    fig = Figure(figsize=(7.0, 6.0))
    mag_ax, ph_ax = fig.subplots(2, 1, sharex=True)
    for key, label in (("L_continuous", "continuous PI"), ("L_sampled", f"PI at {TS:g} s")):
        resp = report[key].frequency_response(w)
        mag_ax.semilogx(w, 20 * np.log10(np.squeeze(resp.magnitude)), label=label)
        ph_ax.semilogx(w, np.degrees(np.unwrap(np.squeeze(resp.phase))), label=label)
    for key, style in (("continuous", ":"), ("sampled", "--")):
        m: Margins = report[key]
        ph_ax.axvline(m.wgc, color="grey", ls=style, lw=0.8)
        ph_ax.annotate(f"PM {m.pm:.1f} deg", (m.wgc, -180 + m.pm), fontsize=8)
    mag_ax.axhline(0.0, color="grey", lw=0.8)
    ph_ax.axhline(-180.0, color="grey", lw=0.8)
    mag_ax.set_ylabel("|L| [dB]")
    ph_ax.set_ylabel("phase of L [deg]")
    ph_ax.set_xlabel("frequency [rad/s]")
    mag_ax.set_title(f"Puma vloop: GM {report['sampled'].gm:.2f} at pi/T (sampled)")
    mag_ax.legend(fontsize=8)
    if file is not None:
        fig.savefig(file, dpi=100)
    return fig


def main(T: float = 0.2, show: bool = False, out_dir: str | Path | None = None,
         **options: Any) -> SimResult:
    """Simulate the step for ``T`` seconds, linearize the loop and read its margins; save the
    scope and Bode PNGs in ``out_dir`` when given (the Bode figure is ``result.figures
    ["bode"]``)."""
    out = Path(out_dir) if out_dir is not None else None
    result = simulate(build(out / "puma_vloop_margins.png" if out else None, show), T,
                      **options)
    report = analyse()
    result.figures["bode"] = bode(report, out / "puma_vloop_margins_bode.png" if out else None)
    result.analysis = report  # type: ignore[attr-defined]
    return result


if __name__ == "__main__":
    res = main(out_dir=".")
    rep = res.analysis  # type: ignore[attr-defined]
    s, c = rep["sampled"], rep["continuous"]
    print(f"sampled loop:    PM {s.pm:.2f} deg at {s.wgc:.1f} rad/s, GM {s.gm:.3f} "
          f"({20 * math.log10(s.gm):.2f} dB) at {s.wpc:.1f} rad/s")
    print(f"continuous loop: PM {c.pm:.2f} deg at {c.wgc:.1f} rad/s, GM {c.gm:g}")
    print(f"qd at {res.t[-1]:g} s: {res['vloop/motor.qd'][-1]:.4f} rad/s (demand {DEMAND})")
