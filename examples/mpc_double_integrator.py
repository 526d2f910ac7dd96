"""A double integrator moved to 1 m by a linear MPC with input and velocity limits.

The plant ``x'' = u`` (a unit mass pushed by a force) is continuous; the :class:`MPC`
controller samples its position and velocity every 0.1 s and solves, on the exact ZOH
model ``A = [[1, T], [0, 1]]``, ``B = [T^2/2, T]``, a 20-step horizon problem with
``|u| <= 1`` N and ``|v| <= 0.6`` m/s (weights Q = diag(10, 1), R = 0.1), by an interior-point
QP solver in its kernel; its first move is held until the next sample. The force saturates
at the start, the velocity rides its limit, and the mass settles at 1 m without overshoot.

Run ``python examples/mpc_double_integrator.py`` to write ``mpc_double_integrator.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Scope, StateSpace
from blocksim.blocks.control import MPC

DT = 0.1           # s
HORIZON = 20       # steps
U_MAX = 1.0        # N
V_MAX = 0.6        # m/s
TARGET = 1.0       # m


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """Plant (position, velocity) -> MPC -> force, fed back."""
    d = Diagram("mpc_double_integrator")
    plant = d.add(StateSpace([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], np.eye(2),
                             [[0.0], [0.0]]), name="plant")
    mpc = d.add(MPC([[1.0, DT], [0.0, 1.0]], [[DT * DT / 2], [DT]], Q=[10.0, 1.0], R=[0.1],
                    N=HORIZON, dt=DT, u_min=-U_MAX, u_max=U_MAX, x_min=[-np.inf, -V_MAX],
                    x_max=[np.inf, V_MAX], x_ref=[TARGET, 0.0]), name="mpc")
    d.connect(plant, mpc["x"])
    d.connect(mpc["u"], plant)
    scope = d.add(Scope(2, labels=["position, velocity", "force"], units=["m, m/s", "N"],
                        stairs=[False, True], title="MPC of a double integrator",
                        file=scope_file, show=show), name="scope")
    d.connect(plant, scope["u0"])
    d.connect(mpc["u"], scope["u1"])
    return d


def main(T: float = 6.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "mpc_double_integrator.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"x({res.t[-1]:g}) = {res['plant.y'][-1, 0]:.6f} m, max |u| = "
          f"{np.max(np.abs(res['mpc.u'])):.3f} N, max v = {np.max(res['plant.y'][:, 1]):.3f} m/s,"
          f" solver statuses {sorted(set(res['mpc.status']))}")
