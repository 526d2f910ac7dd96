"""EKF consistency over 1000 seeded Monte-Carlo runs: the average NEES against its 95 % band.

The map-based localisation of ``ekf_localisation.py`` (same vehicle, driver, sensor and
covariances: ``V = diag(0.02 m, 0.5 deg)^2``, ``W = diag(0.1 m, 1 deg)^2``, 20 landmarks),
run as ``MEMBERS`` members of :func:`~blocksim.simulate_batch` that differ only in their
seeds (odometry noise, waypoints, sensor noise), compiled, in chunks, locally or on a Dask
cluster (``client=``). At each hit the normalised estimation error squared of a member is
``NEES = e' P^-1 e`` with ``e = x_est - x_true`` (heading wrapped) and ``P`` the filter's
covariance. For a consistent filter each NEES is chi-square with 3 degrees of freedom, so
the average over M members, times M, is chi-square with 3M: the average lies in
``[chi2.ppf(0.025, 3M), chi2.ppf(0.975, 3M)] / M`` 95 % of the time. Every member starts
with its estimate exactly at the true pose and a covariance ``P0 > 0``, so the average starts
below the band and rises into it within a few seconds. The sensor ignores landmarks closer
than 1 m (``SENSOR_RANGE``): a car passing over a landmark reads it at a range comparable to
the range noise (0.1 m), where the bearing's Jacobian (1/r) no longer linearises it, and the
update of that one member throws its estimate off (NEES in the thousands, enough to lift the
average of 1000 members out of the band at that hit). The same members with
a filter that assumes a quarter of the true odometry variance (``OVERCONFIDENT``) show
what an inconsistent filter looks like: its average NEES leaves the band upwards.

What to look at: the average NEES over time: the consistent filter's stays inside the 95 % band,
the overconfident one's climbs above it.

Try next: change ``OVERCONFIDENT`` (1.0 makes the two filters agree), ``MEMBERS`` (the band
narrows as it grows) or ``SENSOR_RANGE``.

Run ``python examples/ekf_nees_sweep.py`` to run 2 x 1000 members of 20 s (200 steps) and
write ``ekf_nees_sweep.png`` (the average NEES over time with the band) and
``ekf_nees_sweep_member.png`` (member 0's true and estimated pose).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from blocksim import Diagram, SimResult, simulate, simulate_batch
from blocksim.blocks.vehicle import add_ekf_rig, add_pose_scope
from blocksim.blocks.vehicle.scenario import LANDMARKS, P0, V, W

#: the sensor's [min, max] range [m]: no readings of a landmark the car is passing over
SENSOR_RANGE = (1.0, 100.0)
MEMBERS = 1000
#: the odometry variance the inconsistent filter assumes, as a fraction of the true one
OVERCONFIDENT = 0.25
#: what the batch keeps of each member (traces of these signals only)
SIGNALS = ["ekf.x", "ekf.P", "veh.pose"]


def build(
    file: str | Path | None = None, show: bool = False, seed: int = 0, plot: bool = True
) -> Diagram:
    """The localisation rig (vehicle, driver, sensor, EKF) and (``plot``) a scope of the true
    and estimated pose."""
    d = Diagram("ekf_nees_sweep")
    add_ekf_rig(d, "localisation", V, W, P0, LANDMARKS, seed, sensor_range=SENSOR_RANGE)
    if plot:
        title = "EKF localisation: one member of the Monte-Carlo sweep"
        add_pose_scope(d, title, file=file, show=show)
    return d


def members(n: int, v_scale: float = 1.0) -> list[dict[str, Any]]:
    """The overrides of ``n`` members: their own seeds; the filter assumes ``v_scale`` times
    the true odometry variance."""
    V_est = [V[0] * v_scale, V[1] * v_scale]
    return [
        {"veh.seed": 10 + i, "driver.seed": 5000 + i, "sensor.seed": 9000 + i, "ekf.V_est": V_est}
        for i in range(n)
    ]


def nees(batch: Any) -> np.ndarray:
    """NEES (M, N) of every member at every recorded time of ``batch`` (a batch result with
    the traces ``SIGNALS``)."""
    from blocksim.robotics.mobile import wrap_angle

    e = batch["ekf.x"] - batch["veh.pose"]
    e[..., 2] = wrap_angle(e[..., 2])
    P = batch["ekf.P"]
    return np.einsum("mki,mki->mk", e, np.linalg.solve(P, e[..., None])[..., 0])


def band(n: int, dof: int = 3, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` two-sided interval of the average of ``n`` chi-square(``dof``) values."""
    from scipy.stats import chi2

    lo, hi = chi2.ppf([(1 - level) / 2, (1 + level) / 2], dof * n) / n
    return float(lo), float(hi)


def sweep(
    T: float = 20.0, n: int = MEMBERS, v_scale: float = 1.0, client: Any = None, **options: Any
) -> tuple[np.ndarray, np.ndarray, Any]:
    """Run ``n`` seeded members for ``T`` seconds; returns ``(t (N,), NEES (n, N), batch)``
    (the first hit, t = 0, is the prior and is left out)."""
    opts = {"backend": "auto", **options}
    batch = simulate_batch(
        build(plot=False), members(n, v_scale), T, keep=SIGNALS, client=client, **opts
    )
    if batch.failed.any():
        raise RuntimeError(f"ekf_nees_sweep: {batch.failures()}")
    return batch.t[1:], nees(batch)[:, 1:], batch


def main(
    T: float = 20.0,
    show: bool = False,
    out_dir: str | Path | None = None,
    n: int = MEMBERS,
    client: Any = None,
    **options: Any,
) -> SimResult:
    """Sweep ``n`` members with the consistent and the overconfident filter, plot the average
    NEES, run member 0 alone; returns member 0's result (``figures``: its scope and
    ``"nees"``), PNGs saved in ``out_dir`` when given."""
    from blocksim.viz.scope import save_figure
    from blocksim.viz.sweep import plot_curves

    t, good, _ = sweep(T, n, client=client, **options)
    _, bad, _ = sweep(T, n, OVERCONFIDENT, client=client, **options)
    lo, hi = band(n)
    avg = good.mean(axis=0)
    inside = np.mean((avg >= lo) & (avg <= hi))
    fig = plot_curves(
        t,
        {"EKF assuming the true V": avg, f"EKF assuming {OVERCONFIDENT:g} V": bad.mean(axis=0)},
        band=(lo, hi),
        band_label=f"95 % band of the average of {n}",
        xlabel="t [s]",
        ylabel="average NEES",
        title=f"average NEES of {n} members\n(the consistent filter's is in the band at "
        f"{inside:.0%} of the hits)",
        log=True,
        show=show,
    )
    file = Path(out_dir) / "ekf_nees_sweep_member.png" if out_dir is not None else None
    result = simulate(build(file, show), T, **{k: v for k, v in options.items() if k != "chunk"})
    result.figures["nees"] = fig
    if out_dir is not None:
        save_figure(fig, Path(out_dir) / "ekf_nees_sweep.png")
    return result


if __name__ == "__main__":
    t, good, batch = sweep()
    lo, hi = band(good.shape[0])
    s = batch.stats
    print(f"{len(batch)} members in {s['wall_time']:.2f} s ({s['backend']} back-end)")
    print(f"average NEES at the end {good[:, -1].mean():.3f}, over the run "
          f"{good.mean():.3f}; 95 % band of the average [{lo:.3f}, {hi:.3f}]")  # fmt: skip
    main(out_dir=".")
    print("wrote ekf_nees_sweep.png and ekf_nees_sweep_member.png")
