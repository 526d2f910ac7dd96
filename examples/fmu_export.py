"""A diagram exported as an FMU and re-run in fmpy: the same trace.

The PID position loop of ``pid_mass_spring_damper`` (plant ``m x'' + c x' + k x = F``, m = 1 kg,
c = 0.5 N.s/m, k = 2 N/m; parallel PID Kp = 10, Ki = 5, Kd = 1, N = 100 rad/s) with its
reference given by the root ``Constant`` block ``setpoint`` and two root ``Outport`` blocks,
``x`` (position [m]) and ``F`` (force [N]). ``blocksim export-fmu`` makes an FMI 2.0
co-simulation FMU of ``diagrams/fmu_export.json``: the parameter ``setpoint``, the outputs
``x`` and ``F``, a communication step of 0.05 s; the FMU's slave steps blocksim (rk4, 0.01 s,
as the file says). ``main`` runs the diagram in blocksim, exports the file, runs the FMU with
``fmpy.simulate_fmu`` and draws both traces: they agree to rounding at every communication
point (``result.stats["fmu_max_error"]``; the tests compare the FMU's trace with blocksim's).

Run ``python examples/fmu_export.py`` to write ``fmu_export.png`` (the scope),
``fmu_export.fmu`` and ``fmu_export_fmpy.png`` (blocksim against fmpy).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import PID, Constant, Gain, Integrator, Outport, Scope, Sum

MASS, DAMPING, STIFFNESS = 1.0, 0.5, 2.0  # kg, N.s/m, N/m
KP, KI, KD, N = 10.0, 5.0, 1.0, 100.0
SETPOINT = 1.0  # m
#: the diagram file that is exported
FILE = Path(__file__).resolve().parents[1] / "diagrams" / "fmu_export.json"
STEP = 0.05  # communication step of the FMU [s]
SOLVER = {"solver": "rk4", "dt": 0.01}


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """The closed loop with the setpoint as a Constant and the outputs as Outports."""
    d = Diagram("fmu_export")
    d.add(Constant(SETPOINT), name="setpoint")
    d.add(Sum("+-"), name="err")
    d.add(PID(Kp=KP, Ki=KI, Kd=KD, N=N), name="pid")
    d.add(Sum("+--"), name="force")
    d.add(Gain(1.0 / MASS), name="inv_mass")
    d.add(Integrator(x0=0.0), name="vel")
    d.add(Integrator(x0=0.0), name="pos")
    d.add(Gain(DAMPING), name="damper")
    d.add(Gain(STIFFNESS), name="spring")
    d.add(Outport(), name="x")
    d.add(Outport(), name="F")
    d.add(Scope(2, labels=["x", "F"], units=["m", "N"], title="PID mass-spring-damper (to "
                "export as an FMU)", file=scope_file, show=show), name="scope")
    d.connect("setpoint", "err.u0")
    d.connect("pos", "err.u1", "spring", "x", "scope.u0")
    d.connect("err", "pid")
    d.connect("pid", "force.u0", "F", "scope.u1")
    d.connect("damper", "force.u1")
    d.connect("spring", "force.u2")
    d.connect("force", "inv_mass")
    d.connect("inv_mass", "vel")
    d.connect("vel", "pos", "damper")
    return d


def rerun_in_fmpy(fmu: str | Path, T: float, setpoint: float = SETPOINT) -> np.ndarray:
    """Export :data:`FILE` to ``fmu`` and simulate it with fmpy for ``T`` seconds; the
    structured array of ``time``, ``x`` and ``F``."""
    from fmpy import simulate_fmu

    from blocksim.fmi_export import export_fmu

    export_fmu(FILE, fmu, step=STEP, stop=T)
    return simulate_fmu(str(fmu), stop_time=T, output_interval=STEP,
                        start_values={"setpoint": setpoint})


def main(T: float = 10.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds in blocksim and in fmpy (the exported FMU); save the scope
    (``fmu_export.png``), the FMU and the comparison (``fmu_export_fmpy.png``) in
    ``out_dir`` when given. ``result.stats["fmu_max_error"]`` is the largest difference of
    ``x`` and ``F`` between the two at the communication points."""
    out = Path(out_dir) if out_dir is not None else None
    result = simulate(build(out / "fmu_export.png" if out else None, show), T,
                      **{**SOLVER, **options})
    with tempfile.TemporaryDirectory(prefix="fmu_export-") as tmp:
        trace = rerun_in_fmpy((out or Path(tmp)) / "fmu_export.fmu", T)
    k = np.searchsorted(result.t, trace["time"] - 1e-12)
    result.stats["fmu_max_error"] = float(max(np.max(np.abs(trace["x"] - result["x.y"][k])),
                                              np.max(np.abs(trace["F"] - result["F.y"][k]))))
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(result.t, result["x.y"], label="blocksim run: x [m]")
    ax.plot(trace["time"], trace["x"], "o", ms=3, label="fmpy.simulate_fmu of the FMU: x [m]")
    ax.set_xlabel("t [s]")
    ax.set_title(f"The diagram and its FMU (max difference {result.stats['fmu_max_error']:.1e})")
    ax.legend()
    ax.grid(True)
    result.figures["fmpy"] = fig
    if out is not None:
        fig.savefig(out / "fmu_export_fmpy.png", dpi=80)
    if show:
        plt.show()
    return result


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"x({res.t[-1]:g}) = {res['x.y'][-1]:.9f} m; blocksim and fmpy differ by at most "
          f"{res.stats['fmu_max_error']:.2e}")
