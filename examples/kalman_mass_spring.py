"""A Kalman filter estimates position and velocity of a noisy mass-spring from noisy positions.

The plant ``m x'' + k x = F + w`` (m = 1 kg, k = 4 N/m: 2 rad/s) is continuous. Its force is
a known 0.2 Hz sine held for each 50 ms sample (a digital actuator) plus a random force ``w``
(N(0, 0.1^2) N, held too); a sensor samples the position every 50 ms with N(0, 0.05^2) m
noise. Because both forces are held between samples, the exact discrete model is the ZOH one,

    A = [[cos wT, sin wT / w], [-w sin wT, cos wT]],   B = [(1 - cos wT) / k, sin wT / (m w)],

and the :class:`~blocksim.blocks.control.KalmanFilter` (time-varying, ``G = B`` since the noise
enters with the force) is the optimal estimator: its position error is a fraction of the
sensor's noise, and it estimates the velocity, which is not measured.

Run ``python examples/kalman_mass_spring.py`` to write ``kalman_mass_spring.png``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import ZOH, Index, RandomNumber, Scope, Sine, StateSpace, Sum
from blocksim.blocks.control import KalmanFilter

MASS, STIFFNESS = 1.0, 4.0          # kg, N/m
OMEGA = math.sqrt(STIFFNESS / MASS)  # rad/s
DT = 0.05                           # s
SIGMA_W, SIGMA_V = 0.1, 0.05        # N, m
X0 = (1.0, 0.0)                     # m, m/s
FORCE, FREQUENCY = 1.0, 0.2         # N, Hz


def discrete_model() -> tuple[list[list[float]], list[list[float]]]:
    """The exact ZOH model ``(A, B)`` of the mass-spring at the period DT."""
    c, s = math.cos(OMEGA * DT), math.sin(OMEGA * DT)
    A = [[c, s / OMEGA], [-OMEGA * s, c]]
    B = [[(1.0 - c) / STIFFNESS], [s / (MASS * OMEGA)]]
    return A, B


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """Held force + noise -> plant; position + noise -> KalmanFilter -> estimate."""
    d = Diagram("kalman_mass_spring")
    force = d.add(Sine(amplitude=FORCE, frequency=FREQUENCY), name="force")
    held = d.add(ZOH(clock=DT), name="held")
    w = d.add(RandomNumber(variance=SIGMA_W**2, seed=1, clock=DT), name="w")
    total = d.add(Sum("++"), name="total")
    plant = d.add(StateSpace([[0.0, 1.0], [-STIFFNESS / MASS, 0.0]], [[0.0], [1.0 / MASS]],
                             np.eye(2), [[0.0], [0.0]], x0=X0), name="plant")
    pos = d.add(Index(index=0), name="pos")
    v = d.add(RandomNumber(variance=SIGMA_V**2, seed=2, clock=DT), name="v")
    z = d.add(Sum("++"), name="z")
    A, B = discrete_model()
    kf = d.add(KalmanFilter(A, B, [[1.0, 0.0]], Q=[[SIGMA_W**2]], R=[[SIGMA_V**2]],
                            x0=[0.0, 0.0], P0=[1.0, 1.0], dt=DT, G=B), name="kf")
    est = d.add(Index(index=0), name="est")
    d.connect(force, held)
    d.connect(held, total["u0"])
    d.connect(w, total["u1"])
    d.connect(total, plant)
    d.connect(plant, pos)
    d.connect(pos, z["u0"])
    d.connect(v, z["u1"])
    d.connect(held, kf["u"])
    d.connect(z, kf["z"])
    d.connect(kf["xhat"], est)
    scope = d.add(Scope(3, labels=["true x", "measured x", "estimated x"], units=["m"] * 3,
                        stairs=[False, True, True], title="Kalman filter, noisy mass-spring",
                        file=scope_file, show=show), name="scope")
    d.connect(pos, scope["u0"])
    d.connect(z, scope["u1"])
    d.connect(est, scope["u2"])
    return d


def main(T: float = 10.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "kalman_mass_spring.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    hit = np.isin(res.t, np.round(res.t / DT) * DT)
    err = res["kf.xhat"][hit, 0] - res["plant.y"][hit, 0]
    print(f"position error rms {np.sqrt(np.mean(err**2)):.4f} m against sensor noise "
          f"{SIGMA_V} m")
