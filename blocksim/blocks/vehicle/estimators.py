"""Landmark sensor and estimator blocks: RangeBearingSensor, EKF, ParticleFilter (discrete).

RTB's classes (RTB 9.10; the RTB 9.10 manual, sections 2.10-2.12) as blocks; the Python classes of
the same names for coursework are in :mod:`blocksim.robotics.mobile`. The filters' output at a
hit is the estimate *after* that hit's prediction and update (their outputs read the inputs
directly: odometry of the interval that ended at the hit, observation at the hit), so it
matches the true pose that the :class:`~blocksim.blocks.vehicle.Vehicle` block outputs at the
same hit. Kernels: :mod:`blocksim.blocks.vehicle.estimator_kernels` (called by the
interpreted methods too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks._shared import as_input
from blocksim.blocks.vehicle import estimator_kernels as ek
from blocksim.blocks.vehicle._checks import as_key, covariance, finite, landmarks, positive
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.mobile._messages import plain

__all__ = ["EKF", "ParticleFilter", "RangeBearingSensor"]

MODES = ("dead_reckoning", "localisation", "mapping", "slam")
_OBS_IN = (
    Port("z", shape=(2,), doc="observation (range [m], bearing [rad])"),
    Port("k", doc="landmark id"),
    Port("valid", doc="1 when z is an observation"),
)


def _chol(M: np.ndarray) -> np.ndarray:
    from blocksim.robotics.mobile.vehicle import chol_psd

    return np.ascontiguousarray(chol_psd(M))


class RangeBearingSensor(Block):
    """Range and bearing to a random visible landmark, with noise (RTB ``RangeBearingSensor``).

    At hit ``c`` (counted from 1): nothing (``valid = 0``, ``k = -1``) when ``c`` is not a
    multiple of ``skip`` or ``fail[0] <= c <= fail[1]``, or no landmark is within the range
    and angle limits; else ``z = h(pose, landmark k) + chol(W) n`` for a landmark ``k``
    chosen uniformly among the visible ones (counter-based samples of ``seed``).

    Parameters
    ----------
    landmarks : int or array_like (N, 2)
        A number of random landmarks (uniform in ``[-dim, dim]^2``, ``map_seed``, as
        :class:`~blocksim.robotics.mobile.LandmarkMap`) or their positions [m].
    dim : float
        Half-size of the random map [m] (default 10).
    map_seed : int
        Seed of the random map.
    W : array_like (2, 2) or (2,)
        Noise covariance on (range [m^2], bearing [rad^2]).
    range : float, (float, float) or None
        Max range or ``[min, max]`` [m]; None unlimited.
    angle : float, (float, float) or None
        Half field of view or ``[min, max]`` [rad]; None all around.
    skip : int
        Valid readings on every ``skip``-th hit only.
    fail : (int, int) or None
        Hits during which the sensor fails.
    dt : float
        Sample interval [s] (default 0.1).
    seed : int
        Seed of the noise and of the choice of landmark.

    Inputs
    ------
    pose : ndarray (3,)  true vehicle pose.

    Outputs
    -------
    z : ndarray (2,);  k : float (landmark id, -1 none);  valid : float (1 or 0).

    States
    ------
    c: discrete, the number of hits so far.
    """

    inputs = (Port("pose", shape=(3,), doc="true vehicle pose"),)
    outputs = (
        Port("z", shape=(2,), doc="(range [m], bearing [rad])"),
        Port("k", doc="landmark id, -1 when none"),
        Port("valid", doc="1 for a reading, 0 for none"),
    )
    feedthrough = True

    def __init__(
        self,
        landmarks: Any = 20,
        dim: float = 10.0,
        map_seed: int = 0,
        W: Any = (0.01, 0.0003),
        range: Any = None,
        angle: Any = None,
        skip: int = 1,
        fail: Any = None,
        dt: float = 0.1,
        seed: int = 1,
    ) -> None:
        super().__init__()
        from blocksim.robotics.mobile.sensors import check_limits

        o = type(self).__name__
        self.landmarks = _landmarks(o, landmarks, dim, map_seed)
        self.W = covariance(o, "W", W, 2)
        try:
            lim = check_limits(o, range, angle)
        except (ValueError, TypeError) as exc:
            raise BlockParameterError(str(exc)) from None
        if int(skip) < 1:
            raise BlockParameterError(
                f"{o}: parameter 'skip' must be an integer >= 1, got {plain(skip)}"
            )
        f0, f1 = (-1.0, -1.0) if fail is None else (float(fail[0]), float(fail[1]))
        self._p = (
            self.landmarks.reshape(-1).copy(),
            _chol(self.W).reshape(-1).copy(),
            *lim,
            float(int(skip)),
            f0,
            f1,
            as_key(seed, o, None),
        )
        self.set_state([0.0], ("c",))
        self.clock = as_clock(positive(o, "dt", dt), o)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        return ek.rb_sensor_output(t, x, as_input(u[0]), self._p)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return np.array([x[0] + 1.0])

    def kernels(self) -> Kernels:
        """Params ``(landmarks, sW, rmin, rmax, amin, amax, skip, fail0, fail1, key)``."""
        return Kernels(self._p, output=ek.rb_sensor_output, update=ek.count_update)


def _landmarks(owner: str, value: Any, dim: Any, seed: Any) -> np.ndarray:
    return np.ascontiguousarray(landmarks(owner, value, positive(owner, "dim", dim), int(seed)))


class EKF(Block):
    """Extended Kalman filter for a vehicle in SE(2) (RTB ``EKF``), discrete, fixed size.

    Modes (``mode``) and ports:

    ==================  ==============================  ================================
    mode                inputs                          state estimated (``x``)
    ==================  ==============================  ================================
    dead_reckoning      odo                             pose (3)
    localisation        odo, z, k, valid                pose (3), landmarks given
    slam                odo, z, k, valid                pose + 2 per landmark (3 + 2M)
    mapping             pose (true), z, k, valid        2 per landmark (2M)
    ==================  ==============================  ================================

    Joseph-form update, innovation bearing and heading wrapped; SLAM/mapping insert a
    landmark at its first sighting (``g``, ``Gx``, ``Gz``) into a preallocated slot (zero
    with zero covariance until then).

    Parameters
    ----------
    mode : str
        One of the modes above (default ``"localisation"``).
    V_est : array_like (2, 2) or (2,)
        Odometry covariance assumed (not for mapping).
    P0 : array_like (3, 3) or (3,)
        Initial pose covariance (not for mapping).
    W_est : array_like (2, 2) or (2,)
        Measurement covariance assumed.
    landmarks : int or array_like (N, 2)
        Localisation: the map (count + ``dim``/``map_seed`` as in
        :class:`RangeBearingSensor`, or positions). SLAM/mapping: its size M is the number of
        landmark slots.
    dim, map_seed : float, int
        As in :class:`RangeBearingSensor`.
    x0 : array_like (3,)
        Initial pose estimate.
    joseph : bool
        Joseph-form covariance update (default True).
    dt : float
        Sample interval [s] (default 0.1).

    Outputs
    -------
    x : ndarray (n,);  P : ndarray (n, n).

    States
    ------
    discrete: ``x`` (n), ``P`` (n*n), and ``seen`` flags (M) for SLAM/mapping.
    """

    outputs = (Port("x", doc="estimate"), Port("P", doc="covariance"))
    feedthrough = True

    def __init__(
        self,
        mode: str = "localisation",
        V_est: Any = (0.0004, 7.6e-5),
        P0: Any = (2.5e-5, 2.5e-5, 1e-6),
        W_est: Any = (0.01, 0.0003),
        landmarks: Any = 20,
        dim: float = 10.0,
        map_seed: int = 0,
        x0: Any = (0.0, 0.0, 0.0),
        joseph: bool = True,
        dt: float = 0.1,
    ) -> None:
        super().__init__()
        from blocksim.blocks.vehicle._checks import vector

        o = type(self).__name__
        if mode not in MODES:
            raise BlockParameterError(f"{o}: parameter 'mode' must be one of {MODES}, got {mode!r}")
        self.mode = mode
        V = covariance(o, "V_est", V_est, 2)
        W = covariance(o, "W_est", W_est, 2)
        P0m = covariance(o, "P0", P0, 3)
        lm = _landmarks(o, landmarks, dim, map_seed)
        M = lm.shape[0]
        pose = vector(o, "x0", x0, 3, "a pose (x, y, theta)")
        n = {"dead_reckoning": 3, "localisation": 3, "slam": 3 + 2 * M, "mapping": 2 * M}[mode]
        xe = np.zeros(n)
        P = np.zeros((n, n))
        if mode != "mapping":
            xe[:3] = pose
            P[:3, :3] = P0m
        flags = np.zeros(M if mode in ("slam", "mapping") else 0)
        self.n = n
        self.set_state(np.concatenate((xe, P.reshape(-1), flags)))
        nu = {"dead_reckoning": 2, "localisation": 6, "slam": 6, "mapping": 7}[mode]
        self._p = (
            V.reshape(-1).copy(),
            W.reshape(-1).copy(),
            lm.reshape(-1).copy(),
            3,
            M,
            bool(joseph),
            np.zeros(ek.memo_size(self.x0.size, nu)),
        )
        odo = Port("odo", shape=(2,), doc="odometry (d [m], dtheta [rad])")
        ins = {
            "dead_reckoning": (odo,),
            "localisation": (odo, *_OBS_IN),
            "slam": (odo, *_OBS_IN),
            "mapping": (Port("pose", shape=(3,), doc="true vehicle pose"), *_OBS_IN),
        }[mode]
        self.set_ports(
            inputs=ins,
            outputs=[
                Port("x", shape=(n,), doc="estimate"),
                Port("P", shape=(n, n), doc="covariance"),
            ],
        )
        #: (step, output kernel, update kernel)
        self._k = {
            "dead_reckoning": (ek.ekf_dr_step, ek.ekf_dr_output, ek.ekf_dr_update),
            "localisation": (ek.ekf_loc_step, ek.ekf_loc_output, ek.ekf_loc_update),
            "slam": (ek.ekf_slam_step, ek.ekf_slam_output, ek.ekf_slam_update),
            "mapping": (ek.ekf_map_step, ek.ekf_map_output, ek.ekf_map_update),
        }[mode]
        self._memo = _Memo(self._k[0], self._p, None if mode == "dead_reckoning" else M, o)
        self.clock = as_clock(positive(o, "dt", dt), o)

    def start(self, run: Any) -> None:
        """Refuse a sensor whose map is larger than the filter's (before the run)."""
        super().start(run)
        if self.mode != "dead_reckoning":
            what = "map holds" if self.mode == "localisation" else "map has slots for"
            check_sensor_map(self, run, self._p[4], what)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        n = self.n
        y = self._memo.step(t, x, u)
        return y[:n].copy(), y[n : n + n * n].copy().reshape((n, n))

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self._memo.step(t, x, u)

    def kernels(self) -> Kernels:
        """Params ``(V (4,), W (4,), landmarks (2M,), 3, M, joseph, memo)``."""
        return Kernels(self._p, output=self._k[1], update=self._k[2])


class ParticleFilter(Block):
    """Monte-Carlo localisation with known landmarks (RTB ``ParticleFilter``), discrete.

    Each hit: particles moved by the odometry plus ``chol(Q) n``, weighted by
    ``exp(-0.5 nu' L^-1 nu) + w0`` when there is an observation, then systematically
    resampled; the output is their mean (circular for the heading) and standard deviation.

    Parameters
    ----------
    Q : array_like (3, 3) or (3,)
        Diffusion covariance.
    L : array_like (2, 2) or (2,)
        Likelihood covariance.
    nparticles : int
        Number of particles (default 500).
    w0 : float
        Likelihood offset (default 0.05).
    landmarks, dim, map_seed :
        The map, as in :class:`RangeBearingSensor`.
    x0 : array_like (np, 3) or None
        Initial particles; None: uniform over ``[-dim, dim]^2 x [-pi, pi)`` (``seed``).
    dt : float
        Sample interval [s] (default 0.1).
    seed : int
        Seed of the initial particles, the diffusion and the resampling.
    particles : bool
        Add the output ``particles`` (np, 3) (for :class:`VehiclePlot`).

    Inputs
    ------
    odo : ndarray (2,);  z : ndarray (2,);  k : float;  valid : float.

    Outputs
    -------
    x : ndarray (3,) mean pose;  std : ndarray (3,) standard deviation;
    particles : ndarray (np, 3) (with ``particles=True``).

    States
    ------
    discrete: hit count and the particles (np*3).
    """

    inputs = (Port("odo", shape=(2,), doc="odometry"), *_OBS_IN)
    outputs = (Port("x", shape=(3,), doc="mean pose"), Port("std", shape=(3,), doc="std dev"))
    feedthrough = True

    def __init__(
        self,
        Q: Any = (0.01, 0.01, 3.0e-4),
        L: Any = (0.1, 0.1),
        nparticles: int = 500,
        w0: float = 0.05,
        landmarks: Any = 20,
        dim: float = 10.0,
        map_seed: int = 0,
        x0: Any = None,
        dt: float = 0.1,
        seed: int = 2,
        particles: bool = False,
    ) -> None:
        super().__init__()
        o = type(self).__name__
        Qm = covariance(o, "Q", Q, 3)
        Lm = covariance(o, "L", L, 2)
        if np.linalg.matrix_rank(Lm) < 2:
            raise BlockParameterError(f"{o}: parameter 'L' must be positive definite")
        m = int(nparticles)
        if m < 1:
            raise BlockParameterError(
                f"{o}: parameter 'nparticles' must be >= 1, got {plain(nparticles)}"
            )
        dimf = positive(o, "dim", dim)
        lm = _landmarks(o, landmarks, dimf, map_seed)
        if x0 is None:
            rng = np.random.default_rng(int(seed))
            X = (2.0 * rng.random((m, 3)) - 1.0) * np.array([dimf, dimf, np.pi])
        else:
            X = np.array(x0, dtype=float)
            if X.shape != (m, 3):
                raise BlockParameterError(
                    f"{o}: parameter 'x0' must have shape ({m}, 3), got {X.shape}"
                )
        self.set_state(np.concatenate(([0.0], X.reshape(-1))))
        self._p = (
            lm.reshape(-1).copy(),
            _chol(Qm).reshape(-1).copy(),
            np.linalg.inv(Lm).reshape(-1).copy(),
            finite(o, "w0", w0),
            m,
            as_key(seed, o, None),
            np.zeros(ek.memo_size(self.x0.size, 6)),
        )
        self.clock = as_clock(positive(o, "dt", dt), o)
        self._particles = bool(particles)
        self._out = ek.pf_output
        if particles:
            self.set_ports(
                outputs=[*self.outputs, Port("particles", shape=(m, 3), doc="particles")]
            )
            self._out = ek.pf_output_particles
        self._memo = _Memo(ek.pf_step, self._p, lm.shape[0], o)

    def start(self, run: Any) -> None:
        """Refuse a sensor whose map is larger than the filter's (before the run)."""
        super().start(run)
        check_sensor_map(self, run, self._p[0].size // 2, "map holds")

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        out = ek.pf_estimates(self._memo.step(t, x, u), self._p[4])
        return out if self._particles else out[:2]

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self._memo.step(t, x, u)

    def kernels(self) -> Kernels:
        """Params ``(landmarks, sQ (9,), Linv (4,), w0, nparticles, key, memo)``."""
        return Kernels(self._p, output=self._out, update=ek.pf_update)


class _Memo:
    """A filter's step for the interpreted methods, computed once per hit.

    ``output`` and then ``update`` are called at every hit with the same state and inputs;
    the step of the last arguments is kept (one tuple, replaced whole: a cache of a pure
    function, not run state, and safe when threads share the block) and returned again for
    the same arguments. Anything else steps afresh.
    """

    __slots__ = ("_fn", "_last", "_m", "_owner", "_p")

    def __init__(self, fn: Any, p: tuple[Any, ...], m: int | None = None,
                 owner: str = "") -> None:
        self._fn = fn
        self._p = p
        self._m = m  # the map's size, None: no landmark input
        self._owner = owner
        self._last: tuple[Any, np.ndarray] | None = None

    def step(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        # writable copies: the engine hands read-only signals, and numba would compile the
        # step a second time for read-only arrays (the compiled kernels pass writable ones;
        # the EKF's step takes some 14 s to compile cold)
        args = tuple(np.array(v, dtype=float) if np.ndim(v) else float(v) for v in u)
        if self._m is not None and args[3] > 0.5:  # (odo | pose, z, k, valid)
            problem = ek.landmark_problem(self._owner, args[2], self._m)
            if problem:  # said here in words; the kernel would raise too (landmark_id)
                raise ValueError(problem)
        key = (x.tobytes(), *(a.tobytes() if isinstance(a, np.ndarray) else a for a in args))
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        y = self._fn(t, x, *args, self._p)
        self._last = (key, y)
        return y

    def __getstate__(self) -> tuple[Any, ...]:  # a pickled block starts with an empty memo
        return (self._fn, self._p, self._m, self._owner)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self._fn, self._p, self._m, self._owner = state
        self._last = None


def check_sensor_map(block: Block, run: Any, m: int, what: str) -> None:
    """Raise BlockParameterError, naming both blocks, when the input ``k`` of the filter
    ``block`` (a map of ``m`` landmarks) comes straight from a :class:`RangeBearingSensor`
    whose map is larger: its readings of the landmarks past ``m`` would have no place in the
    filter (an id outside the map is refused at run time too, on both back-ends)."""
    plan = getattr(run, "plan", None)
    entries = getattr(plan, "entries", ())
    me = next((e for e in entries if e.block is block), None)
    names = [p.name for p in block.inputs]  # type: ignore[union-attr]
    if me is None or "k" not in names:
        return
    slot = me.in_slots[names.index("k")]
    src = next((e for e in entries if slot >= 0 and slot in e.out_slots), None)
    if src is None or not isinstance(src.block, RangeBearingSensor):
        return
    n = int(src.block.landmarks.shape[0])
    if n > m:
        raise BlockParameterError(
            f"{type(block).__name__} '{me.name}': its {what} {m} landmark{'s' * (m != 1)} "
            f"(parameter 'landmarks') but sensor '{src.name}' (RangeBearingSensor) observes "
            f"{n} (ids 0..{n - 1}), so its readings of landmarks {m}..{n - 1} have no place "
            f"in the filter; give both blocks the same 'landmarks' (and 'map_seed')")
