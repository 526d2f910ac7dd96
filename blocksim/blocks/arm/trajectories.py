"""Trajectory sources: joint-space profiles, multi-segment paths, Cartesian motions, circles.

Time-driven sources (no inputs) of roblocks' *Trajectory* group (Robotics Toolbox
9.10) and bdsim's JTRAJ, TRAPEZOIDAL, CTRAJ and CIRCLEPATH, evaluated analytically at the
simulation time (roblocks' jtraj block interpolates a 101-row table instead). The profiles are
those of :mod:`blocksim.robotics.trajectory`; the numerics are the compiled functions of
:mod:`blocksim.blocks.arm.trajectory_kernels`, which both back-ends call.

Common behaviour: the motion starts at ``start`` [s] (default 0) and lasts ``T`` [s]; before
it the initial value is held and after it the final value, with zero velocity and
acceleration. On ``[start, start + T]`` the profile is evaluated, so at the end (and at blend
points) the outputs are the profile's own values, the limit from the left, as in RTB's sampled
trajectories. The start, the blend points and the end are breakpoints of the run
(:meth:`next_breakpoint`), so adaptive solvers never step over them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import NO_STATE
from blocksim.blocks.arm import trajectory_kernels as jk
from blocksim.blocks.arm.transforms import check_choice, check_pose
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain
from blocksim.robotics.spatial import angvec2r, so3_log_nb
from blocksim.robotics.trajectory import lspb_speed, mstraj
from blocksim.robotics.trajectory.timebase import as_axes

__all__ = ["LSPB", "CTraj", "CirclePath", "JTraj", "MSTraj", "MTraj"]

_EMPTY = NO_STATE  # read-only, as the generated code passes it
_PROFILES = ("quintic", "trapezoidal")


def _float(owner: str, name: str, value: Any, positive: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v) or (positive and v <= 0.0):
        kind = "a positive finite number" if positive else "a finite number"
        raise BlockParameterError(f"{owner}: parameter '{name}' must be {kind}, got {plain(value)}")
    return v


def _axes(owner: str, name: str, value: Any, n: int | None) -> np.ndarray:
    """``value`` as a finite (n,) float64 array (a scalar broadcast), or a parameter error."""
    try:
        a = as_axes(value, n, name)
    except (TypeError, ValueError) as exc:
        raise BlockParameterError(f"{owner}: parameter {exc}") from None
    if not np.all(np.isfinite(a)):
        raise BlockParameterError(f"{owner}: parameter '{name}' must be finite, got {plain(value)}")
    return a.copy()  # own, writable: kernel parameters


class _TimeSource(Block):
    """Shared parts: breakpoints and the interpreted output (the compiled kernel, called)."""

    _breaks: tuple[float, ...] = ()
    _kparams: tuple[Any, ...] = ()
    _kernel: Any = None

    def next_breakpoint(self, t: float) -> float:
        i = bisect_right(self._breaks, t)
        return self._breaks[i] if i < len(self._breaks) else math.inf

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        y = self._kernel(float(t), _EMPTY, self._kparams)
        return y if isinstance(y, tuple) else (y,)

    def kernels(self) -> Kernels:
        """The kernel that ``output`` calls, with its parameter tuple (see the class)."""
        return Kernels(params=self._kparams, output=self._kernel)


class _PointToPoint(_TimeSource):
    """q0 -> qf over T from ``start``: quintic (kind 0) or trapezoidal (kind 1) per axis."""

    def _setup(self, q0: Any, qf: Any, T: Any, start: Any, quintic: bool,
               qd0: Any = None, qdf: Any = None, V: Any = None) -> None:
        owner = type(self).__name__
        scalar = np.ndim(q0) == 0 and np.ndim(qf) == 0
        a0 = _axes(owner, "q0", q0, None if np.ndim(q0) else np.size(qf))
        af = _axes(owner, "qf", qf, a0.size)
        n = a0.size
        T = _float(owner, "T", T, positive=True)
        start = _float(owner, "start", start)
        end = start + T
        breaks = {start, end}
        if quintic:
            v0 = np.zeros(n) if qd0 is None else _axes(owner, "qd0", qd0, n)
            vf = np.zeros(n) if qdf is None else _axes(owner, "qdf", qdf, n)
            fixed: tuple[Any, ...] = (a0, af, v0, vf)
        else:
            req = None if V is None else _axes(owner, "V", V, n)
            speed = np.empty(n)
            for j in range(n):
                try:
                    speed[j] = lspb_speed(a0[j], af[j], T, None if req is None else req[j])
                except ValueError as exc:
                    raise BlockParameterError(f"{owner}: axis {j}: {exc}") from None
                if speed[j] != 0.0:
                    tb = min(max(T - (af[j] - a0[j]) / speed[j], 0.0), 0.5 * T)
                    breaks.update((start + tb, start + T - tb))
            fixed = (a0, af, speed)
        self._breaks = tuple(sorted(breaks))
        if scalar:
            self._kparams = (*(float(v[0]) for v in fixed), T, start, end)
            self._kernel = jk.jtraj_scalar_kernel if quintic else jk.lspb_scalar_kernel
        else:
            self._kparams = (*fixed, T, start, end)
            self._kernel = jk.jtraj_kernel if quintic else jk.lspb_kernel
        shape = () if scalar else (n,)
        self.set_ports(outputs=(Port("q", shape=shape, doc="coordinate"),
                                Port("qd", shape=shape, doc="velocity (per s)"),
                                Port("qdd", shape=shape, doc="acceleration (per s^2)")))


class JTraj(_PointToPoint):
    """Quintic joint-space motion (RTB ``jtraj``; roblocks *jtraj*, bdsim *JTRAJ*).

    Equation: each axis follows the quintic of ``jtraj`` from ``q0`` (velocity ``qd0``) to
    ``qf`` (velocity ``qdf``) with zero end accelerations: with tau = (t - start) / T,
    ``q = q0 + E tau + C tau^3 + B tau^4 + A tau^5`` (RTB's A, B, C, E); held outside
    ``[start, start + T]``.

    Parameters
    ----------
    q0, qf : float or array_like (n,)
        Initial and final coordinates [rad or m]; two scalars give scalar signals, otherwise
        (n,) arrays (a scalar is broadcast).
    T : float
        Duration of the motion [s], > 0.
    qd0, qdf : float or array_like (n,), optional
        Initial and final velocities [per s]; default zero.
    start : float
        Time at which the motion starts [s]. Default 0.

    Inputs
    ------
    none

    Outputs
    -------
    q, qd, qdd : float or ndarray (n,)
        Coordinate, velocity [per s] and acceleration [per s²].
    """

    def __init__(self, q0: Any, qf: Any, T: float, qd0: Any = None, qdf: Any = None,
                 start: float = 0.0) -> None:
        super().__init__()
        self._setup(q0, qf, T, start, True, qd0=qd0, qdf=qdf)


class LSPB(_PointToPoint):
    """Trapezoidal-velocity motion per axis (RTB ``lspb``; roblocks *lspb*, bdsim
    *TRAPEZOIDAL*).

    Equation: each axis accelerates at constant rate to the cruise speed ``|V|``, cruises, and
    decelerates to rest at ``qf`` (RTB ``lspb``: blend time ``tb = T - |qf - q0| / |V|``); held
    outside ``[start, start + T]``. The blend points are breakpoints.

    Parameters
    ----------
    q0, qf : float or array_like (n,)
        Initial and final coordinates (as :class:`JTraj`).
    T : float
        Duration [s], > 0.
    V : float or array_like (n,), optional
        Cruise speed per axis [per s], in ``[|qf - q0| / T, 2 |qf - q0| / T]`` (RTB's "V too
        small" / "V too big" otherwise); default ``1.5 |qf - q0| / T`` (RTB).
    start : float
        Time at which the motion starts [s]. Default 0.

    Inputs
    ------
    none

    Outputs
    -------
    q, qd, qdd : float or ndarray (n,)
        Coordinate, velocity [per s] and acceleration [per s²].
    """

    def __init__(self, q0: Any, qf: Any, T: float, V: Any = None, start: float = 0.0) -> None:
        super().__init__()
        self._setup(q0, qf, T, start, False, V=V)


class MTraj(_PointToPoint):
    """Multi-axis motion with a chosen profile (RTB ``mtraj`` with ``@tpoly`` or ``@lspb``).

    Equation: :class:`JTraj` with zero end velocities (``profile="quintic"``, RTB ``tpoly``) or
    :class:`LSPB` (``profile="trapezoidal"``, RTB ``lspb``), per axis.

    Parameters
    ----------
    q0, qf : float or array_like (n,)
        Initial and final coordinates (as :class:`JTraj`).
    T : float
        Duration [s], > 0.
    profile : {"quintic", "trapezoidal"}
        The time profile. Default ``"quintic"``.
    V : float or array_like (n,), optional
        Cruise speed, trapezoidal profile only (as :class:`LSPB`).
    start : float
        Time at which the motion starts [s]. Default 0.

    Inputs
    ------
    none

    Outputs
    -------
    q, qd, qdd : float or ndarray (n,)
        Coordinate, velocity [per s] and acceleration [per s²].
    """

    def __init__(self, q0: Any, qf: Any, T: float, profile: str = "quintic", V: Any = None,
                 start: float = 0.0) -> None:
        super().__init__()
        quintic = check_choice("MTraj", "profile", profile, _PROFILES) == "quintic"
        if quintic and V is not None:
            raise BlockParameterError("MTraj: parameter 'V' (cruise speed) applies only to "
                                      "profile='trapezoidal'")
        self._setup(q0, qf, T, start, quintic, V=V)


class MSTraj(_TimeSource):
    """Multi-segment path through via points (RTB ``mstraj``), evaluated analytically.

    Equation: RTB 9.10's ``mstraj`` schedule (see :func:`blocksim.robotics.trajectory.mstraj`):
    straight lines at constant velocity joined by quintic blends of duration ``tacc``; the
    block evaluates each line and blend at the simulation time instead of sampling, so at
    ``t = start + (k + 1) dt`` it equals row k of ``mstraj`` and between rows it is the smooth
    path (q, qd and qdd continuous). Before ``start`` it holds ``q0``, after the end the last
    point. Piece boundaries are breakpoints.

    Parameters
    ----------
    segments : array_like (M, n)
        Via points, one per row; the last row is the destination.
    q0 : array_like (n,)
        Start point.
    dt : float
        ``mstraj``'s time step [s], > 0: segment and blend times are whole multiples of it.
    tacc : float or array_like (M,)
        Blend (acceleration) time [s], >= 0, for every transition or per segment.
    qdmax : float or array_like (n,), optional
        Axis speed limits [per s]; give exactly one of ``qdmax`` and ``tsegment``.
    tsegment : array_like (M,), optional
        Segment durations [s].
    qd0, qdf : array_like (n,), optional
        Initial and final velocities [per s]; default zero.
    start : float
        Time at which the motion starts [s]. Default 0.

    Inputs
    ------
    none

    Outputs
    -------
    q, qd, qdd : ndarray (n,)
        Coordinates, velocities [per s] and accelerations [per s²].
    """

    def __init__(self, segments: Any, q0: Any, dt: float, tacc: Any, qdmax: Any = None,
                 tsegment: Any = None, qd0: Any = None, qdf: Any = None,
                 start: float = 0.0) -> None:
        super().__init__()
        start = _float("MSTraj", "start", start)
        try:
            rows = mstraj(segments, qdmax, tsegment, q0, dt, tacc, qd0, qdf)
        except (TypeError, ValueError) as exc:
            raise BlockParameterError(f"MSTraj: {exc}") from None
        if len(rows) == 0:
            raise BlockParameterError("MSTraj: the path is empty (segments shorter than dt)")
        via = np.atleast_2d(np.asarray(segments, dtype=np.float64))
        n = via.shape[1]
        ns = via.shape[0]
        starts, info, vals = jk.mstraj_pieces(
            via, None if qdmax is None else as_axes(qdmax, n, "qdmax"),
            None if tsegment is None else np.broadcast_to(np.asarray(tsegment, float), ns),
            as_axes(q0, n, "q0"), float(dt), np.broadcast_to(np.asarray(tacc, float), ns),
            np.zeros(n) if qd0 is None else as_axes(qd0, n, "qd0"),
            np.zeros(n) if qdf is None else as_axes(qdf, n, "qdf"))
        starts = starts + start
        self._breaks = tuple(float(b) for b in starts)
        self._kparams = (starts, info, vals, as_axes(q0, n, "q0").copy(), rows[-1].copy())
        self._kernel = jk.mstraj_kernel
        self.set_ports(outputs=(Port("q", shape=(n,), doc="coordinates"),
                                Port("qd", shape=(n,), doc="velocities (per s)"),
                                Port("qdd", shape=(n,), doc="accelerations (per s^2)")))


class CTraj(_TimeSource):
    """Cartesian motion between two poses (RTB ``ctraj``, bdsim *CTRAJ*).

    Equation: ``y = trinterp(T0, T1, s(t))``: translation ``(1 - s) p0 + s p1`` along the
    straight line, rotation ``R0 exp(s log(R0^T R1))`` (the shorter arc at constant rate, which
    is ``trinterp``'s slerp); ``s`` goes from 0 to 1 over ``[start, start + T]`` with the
    trapezoidal profile of RTB ``ctraj`` (``lspb(0, 1)``, cruise speed 1.5 / T) or the quintic.

    Parameters
    ----------
    T0, T1 : array_like (4, 4)
        Start and end poses (rigid transforms).
    T : float
        Duration [s], > 0.
    profile : {"trapezoidal", "quintic"}
        Time profile of ``s``. Default ``"trapezoidal"`` (RTB).
    start : float
        Time at which the motion starts [s]. Default 0.

    Inputs
    ------
    none

    Outputs
    -------
    y : ndarray (4, 4)
        The pose.
    """

    outputs = (Port("y", shape=(4, 4), doc="pose"),)

    def __init__(self, T0: Any, T1: Any, T: float, profile: str = "trapezoidal",
                 start: float = 0.0) -> None:
        super().__init__()
        A = check_pose("CTraj", "T0", T0)
        B = check_pose("CTraj", "T1", T1)
        quintic = check_choice("CTraj", "profile", profile, _PROFILES[::-1]) == "quintic"
        T = _float("CTraj", "T", T, positive=True)
        start = _float("CTraj", "start", start)
        V = 1.5 / T
        R0 = np.ascontiguousarray(A[:3, :3])
        w = so3_log_nb(np.ascontiguousarray(R0.T @ B[:3, :3]))
        tb = T - 1.0 / V
        self._breaks = tuple(sorted({start, start + T} if quintic else
                                    {start, start + tb, start + T - tb, start + T}))
        self._kparams = (R0, w, A[:3, 3].copy(), B[:3, 3].copy(), T, start, start + T, V,
                        quintic)
        self._kernel = jk.ctraj_kernel


class CirclePath(_TimeSource):
    """A point moving on a circle at constant speed (roblocks *Circle*, bdsim *CIRCLEPATH*).

    Equation: with ``theta = 2 pi frequency t + phase``,
    ``p = centre + radius (cos(theta) e1 + sin(theta) e2)``, where ``e1``, ``e2`` are the images
    of the x and y axes under the smallest rotation taking z to ``normal`` (for the default
    normal, the xy plane: ``e1 = x``, ``e2 = y``); the motion is counter-clockwise about
    ``normal`` for a positive frequency. Period ``1 / |frequency|``.

    Parameters
    ----------
    radius : float
        Radius [m], >= 0. Default 1 (roblocks).
    centre : array_like (3,)
        Centre [m]. Default the origin.
    frequency : float
        Revolutions per second [Hz]; negative turns clockwise. Default 0.2 (roblocks).
    phase : float
        Angle at t = 0 [rad], from ``e1``. Default 0.
    normal : array_like (3,)
        Normal of the circle's plane (non-zero, normalised here). Default ``(0, 0, 1)``.
    pose : bool
        Add the ``pose`` output. Default False.

    Inputs
    ------
    none

    Outputs
    -------
    p : ndarray (3,)
        Position [m].
    pd : ndarray (3,)
        Velocity [m/s].
    pose : ndarray (4, 4)
        Only with ``pose=True``: origin at ``p``, x along the direction of motion, z along
        ``normal``, y = z × x.
    """

    def __init__(self, radius: float = 1.0, centre: Any = (0.0, 0.0, 0.0),
                 frequency: float = 0.2, phase: float = 0.0, normal: Any = (0.0, 0.0, 1.0),
                 pose: bool = False) -> None:
        super().__init__()
        owner = "CirclePath"
        r = _float(owner, "radius", radius)
        if r < 0.0:
            raise BlockParameterError(f"{owner}: parameter 'radius' must be >= 0, got "
                                      f"{plain(radius)}")
        c = _axes(owner, "centre", centre, 3)
        nv = _axes(owner, "normal", normal, 3)
        norm = float(np.linalg.norm(nv))
        if norm == 0.0:
            raise BlockParameterError(f"{owner}: parameter 'normal' must be non-zero")
        nv = nv / norm
        z = np.array([0.0, 0.0, 1.0])
        axis = np.cross(z, nv)
        if np.linalg.norm(axis) < 1e-12:  # along +z or -z
            axis = np.array([1.0, 0.0, 0.0])
        E = angvec2r(math.atan2(np.linalg.norm(np.cross(z, nv)), float(z @ nv)), axis)
        omega = 2.0 * math.pi * _float(owner, "frequency", frequency)
        self._kparams = (c, np.ascontiguousarray(E[:, 0]), np.ascontiguousarray(E[:, 1]), nv,
                        r, omega, _float(owner, "phase", phase))
        ports = [Port("p", shape=(3,), unit="m", doc="position"),
                 Port("pd", shape=(3,), unit="m/s", doc="velocity")]
        if not isinstance(pose, (bool, np.bool_)):
            raise BlockParameterError(f"{owner}: parameter 'pose' must be True or False, got "
                                      f"{plain(pose)}")
        if pose:
            ports.append(Port("pose", shape=(4, 4), doc="pose on the circle"))
        self.set_ports(outputs=ports)
        self._kernel = jk.circle_pose_kernel if pose else jk.circle_kernel
