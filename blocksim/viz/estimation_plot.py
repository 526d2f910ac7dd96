"""Figures of a vehicle state estimator's run (RTB ``EKF.plot_error``, ``plot_map``,
``plot_xy``, ``plot_ellipse``; ``ParticleFilter.plot_xy``).

:func:`plot_pose_error` is the standard check of a filter: the estimation error in x, y and
theta against time inside its ``±nsigma`` bounds from the covariance. :func:`plot_estimate_map`
is the map: the true landmarks, the estimated landmarks with their covariance ellipses, the
true and estimated paths and the pose's ellipses along the estimated path.
:func:`plot_estimation` puts both in one figure; it is what
:class:`~blocksim.blocks.vehicle.EKFPlot` stores in ``result.figures`` after a run.

The estimate ``x`` (N, n) is read by its width, as the :class:`~blocksim.blocks.vehicle.EKF`
block outputs it: ``n = 3`` a pose (dead reckoning, localisation, particle filter), ``n = 3 +
2M`` a SLAM state (pose, then M landmarks), ``n = 2M`` a map (mapping, the pose is known). The
uncertainty is a covariance ``P`` (N, n, n), or standard deviations (N, n) (the particle
filter's ``std``). A landmark slot whose variance is still 0 has not been seen: it is not
drawn. Functions return a :class:`matplotlib.figure.Figure` made without pyplot (headless)
unless ``show=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.viz.scope import new_figure
from blocksim.viz.vehicle_plot import ellipse_points

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_estimate_map", "plot_estimation", "plot_pose_error", "pose_error",
           "split_estimate"]  # fmt: skip

#: the pose's elements: name and unit
POSE = (("x", "m"), ("y", "m"), ("\u03b8", "rad"))


def _wrap(a: np.ndarray) -> np.ndarray:
    return (a + np.pi) % (2.0 * np.pi) - np.pi


def split_estimate(x: Any, P: Any = None) -> dict[str, Any]:
    """The parts of a recorded estimate, read by its width.

    Parameters
    ----------
    x : array_like (N, n)
        The estimates: ``n = 3`` a pose, ``3 + 2M`` (odd) pose and landmarks, ``2M`` (even)
        landmarks only.
    P : array_like (N, n, n) or (N, n), optional
        Covariances, or standard deviations.

    Returns
    -------
    dict
        ``pose`` (N, 3) or None, ``landmarks`` (N, M, 2) or None, ``cov`` (N, n, n) or None
        (the covariance; diagonal from standard deviations), ``offset`` (index of the first
        landmark in ``x``: 3 or 0).
    """
    xs = np.asarray(x, dtype=float)
    if xs.ndim == 1:
        xs = xs[None, :]
    if xs.ndim != 2 or xs.shape[1] < 2:
        raise ValueError(f"x must have shape (N, n) with n = 3, 3 + 2M or 2M, got {xs.shape}")
    n = xs.shape[1]
    has_pose = n % 2 == 1
    if has_pose and n < 3:
        raise ValueError(f"x must have shape (N, n) with n = 3, 3 + 2M or 2M, got {xs.shape}")
    off = 3 if has_pose else 0
    cov = None
    if P is not None:
        Ps = np.asarray(P, dtype=float)
        if Ps.ndim == xs.ndim and Ps.shape == xs.shape:  # standard deviations
            cov = np.einsum("ni,ij->nij", Ps**2, np.eye(n))
        elif Ps.shape == (xs.shape[0], n, n):
            cov = Ps
        elif Ps.shape == (n, n) and xs.shape[0] == 1:
            cov = Ps[None]
        else:
            raise ValueError(f"P must have shape {(xs.shape[0], n, n)} (covariances) or "
                             f"{xs.shape} (standard deviations), got {Ps.shape}")  # fmt: skip
    lm = xs[:, off:].reshape(xs.shape[0], -1, 2) if n > off else None
    return {"pose": xs[:, :3] if has_pose else None, "landmarks": lm, "cov": cov,
            "offset": off}  # fmt: skip


def pose_error(true_pose: Any, est_pose: Any) -> np.ndarray:
    """Estimate minus truth (N, 3), the heading error wrapped into [-pi, pi)."""
    e = np.asarray(est_pose, dtype=float)[..., :3] - np.asarray(true_pose, dtype=float)[..., :3]
    e[..., 2] = _wrap(e[..., 2])
    return e


def _axes(ax: Axes | None, show: bool, figsize: Sequence[float]) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    fig = new_figure(tuple(figsize), show=show)
    return fig, fig.add_subplot(1, 1, 1)


def _error_axes(axes: Sequence[Axes], t: np.ndarray, e: np.ndarray, sig: np.ndarray | None,
                nsigma: float) -> None:  # fmt: skip
    for k, ax in enumerate(axes):
        name, unit = POSE[k]
        if sig is not None:
            b = nsigma * sig[:, k]
            ax.fill_between(t, -b, b, step="post", color="tab:orange", alpha=0.2, lw=0)
            ax.plot(t, b, color="tab:orange", lw=0.9, drawstyle="steps-post",
                    label=f"\u00b1{nsigma:g}\u03c3")
            ax.plot(t, -b, color="tab:orange", lw=0.9, drawstyle="steps-post")
        ax.plot(t, e[:, k], color="tab:blue", lw=1.0, drawstyle="steps-post", label="error")
        ax.axhline(0.0, color="0.5", lw=0.6)
        ax.set_ylabel(f"{name} error [{unit}]")
        ax.grid(True, alpha=0.3)
        if k == 0:
            ax.legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("t [s]")


def plot_pose_error(
    t: Any,
    true_pose: Any,
    x: Any,
    P: Any = None,
    *,
    nsigma: float = 3.0,
    title: str | None = None,
    figsize: Sequence[float] = (7.0, 6.0),
    show: bool = False,
) -> Figure:
    """The estimation error in x, y and theta against time, inside ``±nsigma`` bounds (RTB
    ``EKF.plot_error``).

    Parameters
    ----------
    t : array_like (N,)
        Times [s].
    true_pose : array_like (N, 3)
        The true poses (x, y, theta) [m, m, rad].
    x : array_like (N, n)
        The estimates (a pose first: ``n`` odd).
    P : array_like (N, n, n) or (N, n), optional
        Covariances or standard deviations: the bounds are ``±nsigma`` standard deviations
        of the pose's elements.
    nsigma : float
        Width of the bounds in standard deviations (default 3).
    title : str, optional
    figsize : (float, float)
    show : bool
        Make the figure through pyplot (to display it).

    Returns
    -------
    Figure
        Three axes (x, y, theta), sharing the time axis; in each, the error (a line labelled
        ``"error"``) and the bounds (labelled ``"±3σ"``).
    """
    tt = np.asarray(t, dtype=float).reshape(-1)
    parts = split_estimate(x, P)
    if parts["pose"] is None:
        raise ValueError("plot_pose_error: the estimate has no pose (a map: n = 2M)")
    e = pose_error(true_pose, parts["pose"])
    if e.shape != (tt.size, 3):
        raise ValueError(f"plot_pose_error: true_pose and x must have {tt.size} rows")
    cov = parts["cov"]
    sig = None if cov is None else np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2)[:, :3],
                                                   0.0, None))  # fmt: skip
    fig = new_figure(tuple(figsize), show=show)
    axes = fig.subplots(3, 1, sharex=True)
    _error_axes(axes, tt, e, sig, float(nsigma))
    if title:
        fig.suptitle(title)
    return fig


def plot_estimate_map(
    true_pose: Any = None,
    x: Any = None,
    P: Any = None,
    landmarks: Any = None,
    *,
    nsigma: float = 3.0,
    every: int = 50,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: Sequence[float] = (6.0, 6.0),
    show: bool = False,
) -> Figure:
    """The map of an estimator's run (RTB ``Map.plot``, ``Vehicle.plot_xy``, ``EKF.plot_xy``,
    ``EKF.plot_ellipse``, ``EKF.plot_map``).

    Parameters
    ----------
    true_pose : array_like (N, 3), optional
        The true path (blue line, labelled ``"true path"``).
    x : array_like (N, n), optional
        The estimates: their poses are the estimated path (red, ``"estimated path"``); the
        landmarks of the last one (SLAM, mapping) are red crosses (``"estimated landmarks"``)
        with their ``nsigma`` ellipses (``"landmark 3σ"``); slots never seen are left out.
    P : array_like (N, n, n) or (N, n), optional
        Covariances or standard deviations: the ellipses of the landmarks (last sample) and
        of the pose every ``every`` samples (green, ``"pose 3σ"``).
    landmarks : array_like (M, 2), optional
        The true landmarks (black diamonds, ``"landmarks"``).
    nsigma : float
        Ellipses at ``nsigma`` standard deviations (default 3).
    every : int
        A pose ellipse every ``every`` samples (default 50; 0: none).
    ax : Axes, optional
        Draw into it instead of a new figure.
    title, figsize, show :
        As for :func:`plot_pose_error`.

    Returns
    -------
    Figure
    """
    fig, ax = _axes(ax, show, figsize)
    ns = float(nsigma)
    tag = f"{ns:g}\u03c3"
    if landmarks is not None:
        lm = np.asarray(landmarks, dtype=float).reshape(-1, 2)
        ax.plot(lm[:, 0], lm[:, 1], "kd", ms=6, mfc="none", label="landmarks")
    if true_pose is not None:
        tp = np.asarray(true_pose, dtype=float).reshape(-1, 3)
        ax.plot(tp[:, 0], tp[:, 1], "-", color="tab:blue", lw=1.2, label="true path")
    if x is not None:
        parts = split_estimate(x, P)
        cov, pose = parts["cov"], parts["pose"]
        if pose is not None:
            ax.plot(pose[:, 0], pose[:, 1], "-", color="tab:red", lw=1.0,
                    label="estimated path")
            if cov is not None and every > 0:
                idx = range(0, pose.shape[0], int(every))
                _ellipses(ax, [(cov[i][:2, :2], pose[i, :2]) for i in idx], ns, "tab:green",
                          f"pose {tag}")  # fmt: skip
        if parts["landmarks"] is not None:
            est, off = parts["landmarks"][-1], parts["offset"]
            seen = [k for k in range(est.shape[0])
                    if cov is None or cov[-1][off + 2 * k, off + 2 * k] > 0]  # fmt: skip
            if seen:
                ax.plot(est[seen, 0], est[seen, 1], "+", color="tab:red", ms=8, mew=1.5,
                        label="estimated landmarks")
            if cov is not None and seen:
                j = [off + 2 * k for k in seen]
                _ellipses(ax, [(cov[-1][i : i + 2, i : i + 2], est[k])
                               for i, k in zip(j, seen)], ns, "tab:red",
                          f"landmark {tag}")  # fmt: skip
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    if ax.lines:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, borderaxespad=0)
    if title:
        ax.set_title(title)
    return fig


def _ellipses(ax: Axes, items: list[tuple[np.ndarray, np.ndarray]], nsigma: float, color: str,
              label: str) -> None:  # fmt: skip
    """One line (NaN-separated) through the ellipses of ``items`` (covariance, centre)."""
    if not items:
        return
    segs = [np.vstack((ellipse_points(C, c, nsigma), [np.nan, np.nan])) for C, c in items]
    pts = np.vstack(segs)
    ax.plot(pts[:, 0], pts[:, 1], "-", color=color, lw=0.8, label=label)


def plot_estimation(
    t: Any,
    true_pose: Any,
    x: Any,
    P: Any = None,
    landmarks: Any = None,
    *,
    nsigma: float = 3.0,
    every: int = 50,
    title: str | None = None,
    figsize: Sequence[float] | None = None,
    show: bool = False,
) -> Figure:
    """The map (:func:`plot_estimate_map`) and, when a pose is estimated, its error against
    time inside ``±nsigma`` bounds (:func:`plot_pose_error`) beside it, in one figure.

    Parameters
    ----------
    t, true_pose, x, P, landmarks, nsigma, every, title, show :
        As for :func:`plot_estimate_map` and :func:`plot_pose_error`.
    figsize : (float, float), optional
        Default (12, 6) with the error axes, (7, 6) without.

    Returns
    -------
    Figure
        The map's axes first, then (a pose estimated) the x, y, theta error axes.
    """
    parts = split_estimate(x, P)
    with_error = parts["pose"] is not None
    size = figsize or ((12.0, 6.0) if with_error else (7.0, 6.0))
    fig = new_figure(tuple(size), show=show)
    if with_error:
        left, right = fig.subfigures(1, 2, width_ratios=(1.15, 1.0))
        ax_map = left.add_subplot(1, 1, 1)
        axes = right.subplots(3, 1, sharex=True)
    else:
        ax_map = fig.add_subplot(1, 1, 1)
    plot_estimate_map(true_pose, x, P, landmarks, nsigma=nsigma, every=every, ax=ax_map)
    if with_error:
        ax_map.set_title("map")
        tt = np.asarray(t, dtype=float).reshape(-1)
        cov = parts["cov"]
        sig = None if cov is None else np.sqrt(np.clip(
            np.diagonal(cov, axis1=1, axis2=2)[:, :3], 0.0, None))  # fmt: skip
        _error_axes(axes, tt, pose_error(true_pose, parts["pose"]), sig, float(nsigma))
        axes[0].set_title(f"pose error and \u00b1{float(nsigma):g}\u03c3 bounds")
    if title:
        fig.suptitle(title)
    return fig
