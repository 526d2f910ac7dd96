"""PID gain tuning by a grid sweep on the mass-spring-damper, with a heat map of the cost.

The closed loop of ``pid_mass_spring_damper.py`` (m = 1 kg, c = 0.5 N.s/m, k = 2 N/m, a PID
with derivative-filter pole N = 100 rad/s tracking a unit step) plus the cost it is tuned for,
computed inside the diagram: J = ISE + RHO * effort, the integral of the squared error
(``sq`` squares the error, the integrator ``ise`` accumulates it) plus the integral of the
squared force (``u_sq``, ``effort``) weighted by RHO = 1e-4 m^2/N^2, so each member's cost
comes from two final values. ``simulate_batch(..., keep="final")`` runs the Kp x Kd grid
(compiled, in chunks, locally or on a Dask cluster with ``client=``) and keeps only the final
values; the heat map shows log10 J over the grid with its minimum marked (higher gains track
better but push harder: the optimum is inside the grid), and the best gains are run once
more alone for the scope plot.

What to look at: the heat map of the cost over (``Kp``, ``Kd``), its minimum marked, and the
best member's response in the second figure.

Try next: change ``RHO`` (how much effort costs), the ranges ``KP_RANGE``, ``KD_RANGE``, or
``n`` (the grid's size); run it on a Dask ``client``.

Run ``python examples/pid_gain_sweep.py`` to write ``pid_gain_sweep.png`` (the heat map) and
``pid_gain_sweep_best.png`` (the best member's response).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from blocksim import (
    Diagram,
    SimResult,
    compile_diagram,
    grid,
    simulate,
    simulate_batch,
    with_overrides,
)
from blocksim.blocks import PID, Gain, Integrator, Product, Step, Sum
from blocksim.blocks.sinks.wiring import add_scope

MASS, DAMPING, STIFFNESS = 1.0, 0.5, 2.0  # kg, N.s/m, N/m
KP, KI, KD, N = 10.0, 5.0, 1.0, 100.0
#: the grid's ranges: Kp [N/m], Kd [N.s/m]
KP_RANGE, KD_RANGE = (2.0, 40.0), (0.2, 8.0)
SOLVER = dict(solver="rk4", dt=1e-3)
#: weight of the control effort in the cost [m^2 / N^2]
RHO = 1e-4


def build(
    scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True
) -> Diagram:
    """The PID mass-spring-damper loop with its cost integrators: ``ise.y`` = integral of
    e^2 dt [m^2 s] and ``effort.y`` = integral of F^2 dt [N^2 s]."""
    d = Diagram("pid_gain_sweep")
    ref = d.add(Step(time=0.0, before=0.0, after=1.0), name="ref")
    err = d.add(Sum("+-"), name="err")
    pid = d.add(PID(Kp=KP, Ki=KI, Kd=KD, N=N), name="pid")
    force = d.add(Sum("+--"), name="force")
    inv_mass = d.add(Gain(1.0 / MASS), name="inv_mass")
    vel = d.add(Integrator(x0=0.0), name="vel")
    pos = d.add(Integrator(x0=0.0), name="pos")
    damper = d.add(Gain(DAMPING), name="damper")
    spring = d.add(Gain(STIFFNESS), name="spring")
    sq = d.add(Product("**"), name="sq")
    ise = d.add(Integrator(x0=0.0), name="ise")
    u_sq = d.add(Product("**"), name="u_sq")
    effort = d.add(Integrator(x0=0.0), name="effort")
    d.connect(ref, err["u0"])
    d.connect(pos, err["u1"], spring)
    d.connect(err, pid, sq["u0"], sq["u1"])
    d.connect(pid, force["u0"], u_sq["u0"], u_sq["u1"])
    d.connect(damper, force["u1"])
    d.connect(spring, force["u2"])
    d.connect(force, inv_mass)
    d.connect(inv_mass, vel)
    d.connect(vel, pos, damper)
    d.connect(sq, ise)
    d.connect(u_sq, effort)
    if with_scope:
        add_scope(d, [pos, pid], labels=["x", "F"], units=["m", "N"],
                  title="best gains of the sweep", file=scope_file, show=show)  # fmt: skip
    return d


def sweep(
    T: float = 10.0, n: int = 9, client: Any = None, **options: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """Run the ``n`` x ``n`` grid of (Kp, Kd); returns ``(kp (n,), kd (n,), J (n, n),
    batch)`` with ``J[i, j]`` the cost of ``(kp[i], kd[j])`` [m^2 s] (NaN for a failed
    member)."""
    kp, kd = np.linspace(*KP_RANGE, n), np.linspace(*KD_RANGE, n)
    plan = compile_diagram(build(with_scope=False))
    members = grid({"pid.Kp": list(kp), "pid.Kd": list(kd)})
    opts = {**SOLVER, "backend": "auto", **options}
    batch = simulate_batch(plan, members, T, keep="final", client=client, **opts)
    J = batch["ise.y"][:, -1] + RHO * batch["effort.y"][:, -1]
    return kp, kd, J.reshape(n, n), batch


def main(
    T: float = 10.0,
    show: bool = False,
    out_dir: str | Path | None = None,
    n: int = 9,
    client: Any = None,
    **options: Any,
) -> SimResult:
    """Sweep the grid for ``T`` seconds, plot the cost, run the best gains alone; returns the
    best member's result (``figures``: its scope and the heat map ``"cost"``), PNGs saved in
    ``out_dir`` when given."""
    from blocksim.viz.scope import save_figure
    from blocksim.viz.sweep import plot_grid_cost

    kp, kd, cost, _ = sweep(T, n, client, **options)
    i, j = np.unravel_index(np.nanargmin(cost), cost.shape)
    best_file = Path(out_dir) / "pid_gain_sweep_best.png" if out_dir is not None else None
    best = with_overrides(build(best_file, show), {"pid.Kp": float(kp[i]), "pid.Kd": float(kd[j])})
    result = simulate(best, T, **{**SOLVER, **options})
    fig = plot_grid_cost(
        kp,
        kd,
        cost,
        xlabel="Kp [N/m]",
        ylabel="Kd [N.s/m]",
        cost_label="J [m^2 s]",
        log=True,
        show=show,
        title=f"J = ISE + RHO effort over {T:g} s (best Kp = {kp[i]:.3g}, Kd = {kd[j]:.3g})",
    )
    result.figures["cost"] = fig
    if out_dir is not None:
        save_figure(fig, Path(out_dir) / "pid_gain_sweep.png")
    return result


if __name__ == "__main__":
    kp, kd, cost, batch = sweep()
    i, j = np.unravel_index(np.nanargmin(cost), cost.shape)
    s = batch.stats
    print(
        f"{len(batch)} members in {s['wall_time']:.2f} s ({s['backend']} back-end, "
        f"{s['chunks']} chunk(s)); {batch.failures()}"
    )
    print(f"best: Kp = {kp[i]:.3g} N/m, Kd = {kd[j]:.3g} N.s/m, J = {cost[i, j]:.4g} m^2 s")
    main(out_dir=".")
    print("wrote pid_gain_sweep.png and pid_gain_sweep_best.png")
