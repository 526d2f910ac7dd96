"""The EKF scenario of RVC chapter 6, shared by the ``ekf_*`` and ``pf_localisation`` examples.

The car-like :class:`Vehicle` with odometry noise ``V = diag(0.02 m, 0.5 deg)^2`` driven through
random waypoints in a 10 m square, a :class:`RangeBearingSensor` with noise
``W = diag(0.1 m, 1 deg)^2`` reading a map of ``LANDMARKS`` seeded landmarks, and an initial pose
covariance ``P0`` (RTB ``EKF``, the RTB 9.10 manual, section 2.11). :func:`add_ekf_rig` builds the
blocks; :func:`run_estimation` runs a build of the scenario and saves its two figures (the scope
and the map); :func:`pose_error` is the summary the examples print.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.engine.diagram import Diagram
from blocksim.engine.record import SimResult

__all__ = ["LANDMARKS", "P0", "V", "W", "pose_error", "run_estimation"]

#: odometry noise covariance: (distance [m^2], heading [rad^2]) per 0.1 s interval
V = (0.02**2, np.deg2rad(0.5) ** 2)
#: range-bearing sensor noise covariance: (range [m^2], bearing [rad^2])
W = (0.1**2, np.deg2rad(1.0) ** 2)
#: initial covariance of the pose estimate (x [m^2], y [m^2], heading [rad^2])
P0 = (0.005**2, 0.005**2, np.deg2rad(0.1) ** 2)
#: landmarks of the map, placed at random (seeded) in the 10 m square
LANDMARKS = 20


def run_estimation(
    build: Callable[..., Diagram],
    name: str,
    T: float,
    show: bool = False,
    out_dir: str | Path | None = None,
    **options: Any,
) -> SimResult:
    """Simulate ``build(file, show, figure=figure)`` for ``T`` seconds, with the scope saved as
    ``<name>.png`` and the map and error figure as ``<name>_map.png`` in ``out_dir`` when given.

    Parameters
    ----------
    build : callable
        The example's ``build(file, show, figure=...)``.
    name : str
        The stem of the files.
    T : float
        Simulated time [s].
    show : bool
        Show the figures after the run.
    out_dir : str or Path, optional
        Where the figures are saved.
    **options
        Passed on to :func:`~blocksim.simulate`.
    """
    from blocksim.engine.simulate import simulate

    out = Path(out_dir) if out_dir is not None else None
    file = out / f"{name}.png" if out is not None else None
    figure = out / f"{name}_map.png" if out is not None else None
    return simulate(build(file, show, figure=figure), T, **options)


def pose_error(result: SimResult, estimator: str = "ekf") -> str:
    """The final pose error (estimate - truth) and ``sqrt(det(P))`` of the pose's covariance."""
    e = result[f"{estimator}.x"][-1][:3] - result["veh.pose"][-1]
    size = np.sqrt(np.linalg.det(result[f"{estimator}.P"][-1][:3, :3]))
    return f"final pose error {e.round(3)}, sqrt(det(Pvv)) {size:.2e}"
