"""Particle-filter localisation of a car-like vehicle (RTB ``ParticleFilter``, RVC 6.7).

The ``Vehicle`` block (bicycle with odometry noise ``V = diag(0.02 m, 0.5 deg)^2``, 0.1 s
interval) is driven through random waypoints in a 10 m square; the ``RangeBearingSensor``
(noise ``W = diag(0.1 m, 1 deg)^2``) reads one of 20 known landmarks each interval. The
``ParticleFilter`` block starts from 500 particles spread uniformly over the whole square
and all headings (the "kidnapped robot" prior of the seed), moves them with the odometry plus
diffusion ``Q``, weights them with ``exp(-0.5 nu' L^-1 nu) + w0`` and resamples them
systematically; the cloud collapses onto the true pose (the tests check the final error and
spread).

What to look at: the map figure's error panels: the error inside 3 standard deviations of the
particles, and the spread (``std``) shrinking as landmarks are read.

Try next: change the number of particles (``nparticles``), the process noise ``Q`` or the
likelihood width ``L``; with too few particles the filter can lose the vehicle.

Run ``python examples/pf_localisation.py`` to simulate 60 s and write ``pf_localisation.png``
(the scope) and ``pf_localisation_map.png`` (map, paths, and the error inside 3 standard
deviations of the particles).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult
from blocksim.blocks import Scope
from blocksim.blocks.vehicle import (
    ParticleFilter,
    RandomPath,
    RangeBearingSensor,
    Vehicle,
    add_estimation_plot,
)
from blocksim.blocks.vehicle.scenario import LANDMARKS, V, W, run_estimation

Q = (0.1**2, 0.1**2, np.deg2rad(1.0) ** 2)
L = (0.1, 0.1)


def build(file: str | Path | None = None, show: bool = False, seed: int = 0,
          figure: str | Path | None = None) -> Diagram:
    """Vehicle + driver + sensor + particle filter + a scope of the pose and its estimate +
    the figure of the map and paths and of the error inside 3 standard deviations of the
    particles (saved to ``figure`` when given)."""
    d = Diagram("pf_localisation")
    d.add(Vehicle(V=V, seed=seed), name="veh")
    d.add(RandomPath(dim=10.0, seed=seed + 1), name="driver")
    d.add(RangeBearingSensor(landmarks=LANDMARKS, map_seed=0, W=W, seed=seed + 2), name="sensor")
    d.add(
        ParticleFilter(Q=Q, L=L, nparticles=500, landmarks=LANDMARKS, map_seed=0, seed=seed + 3),
        name="pf",
    )
    d.add(
        Scope(3, labels=["true pose", "estimate", "std"], units=["m, m, rad"] * 3,
              title="Particle-filter localisation", file=file, show=show, stairs=True),
        name="scope",
    )  # fmt: skip
    d.connect("veh.pose", "driver.pose")
    d.connect("driver.v", "veh.speed")
    d.connect("driver.gamma", "veh.steer")
    d.connect("veh.pose", "sensor.pose")
    d.connect("veh.odo", "pf.odo")
    for port in ("z", "k", "valid"):
        d.connect(f"sensor.{port}", f"pf.{port}")
    d.connect("veh.pose", "scope.u0")
    d.connect("pf.x", "scope.u1")
    d.connect("pf.std", "scope.u2")
    add_estimation_plot(
        d, "Particle filter: map, paths, error and 3σ bounds", LANDMARKS,
        file=figure, show=show, estimator="pf", covariance="std",
    )
    return d


def main(
    T: float = 60.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope plot (``pf_localisation.png``) and the map and
    error figure (``pf_localisation_map.png``) in ``out_dir`` when given."""
    return run_estimation(build, "pf_localisation", T, show, out_dir, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    e = res["pf.x"][-1] - res["veh.pose"][-1]
    print(f"final error {e.round(3)}, spread {res['pf.std'][-1].round(3)}")
