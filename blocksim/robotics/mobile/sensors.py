"""Landmark maps and the range-bearing sensor as Python classes (RTB 9.10 ``Map``,
``RangeBearingSensor``; the RTB 9.10 manual, sections 2.9-2.10, Appendix B.3).

Numerics: :mod:`blocksim.robotics.mobile.rangebearing`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from blocksim.robotics.mobile._messages import plain
from blocksim.robotics.mobile.rangebearing import (
    rb_g,
    rb_Gx,
    rb_Gz,
    rb_h,
    rb_Hx,
    rb_Hxf,
    rb_reading,
)
from blocksim.robotics.mobile.vehicle import check_cov, chol_psd

__all__ = ["LandmarkMap", "RangeBearingSensor", "check_limits"]


class LandmarkMap:
    """Point landmarks in the square ``[-dim, dim]^2`` (RTB ``Map``).

    Parameters
    ----------
    landmarks : int or array_like (N, 2)
        The number of landmarks drawn uniformly in the square (seeded), or their positions.
    dim : float
        Half-size of the square [m] (default 10).
    seed : int
        Seed of the random landmarks.

    Attributes
    ----------
    landmarks : ndarray (N, 2)
        Positions [m] (RTB's ``map`` property is its transpose).
    """

    def __init__(self, landmarks: int | ArrayLike = 20, dim: float = 10.0, seed: int = 0) -> None:
        if not float(dim) > 0:
            raise ValueError(f"LandmarkMap: dim must be > 0, got {plain(dim)}")
        self.dim = float(dim)
        if np.ndim(landmarks) == 0:
            n = int(landmarks)
            if n < 1:
                raise ValueError(f"LandmarkMap: landmarks must be >= 1, got {plain(landmarks)}")
            rng = np.random.default_rng(seed)
            self.landmarks = self.dim * (2.0 * rng.random((n, 2)) - 1.0)
        else:
            lm = np.array(landmarks, dtype=float)
            if lm.ndim != 2 or lm.shape[1] != 2 or lm.shape[0] < 1 or not np.all(np.isfinite(lm)):
                raise ValueError(
                    "LandmarkMap: landmarks must be a count or finite positions of shape (N, 2), "
                    f"got shape {lm.shape}"
                )
            self.landmarks = np.ascontiguousarray(lm)

    @property
    def nfeatures(self) -> int:
        """Number of landmarks."""
        return int(self.landmarks.shape[0])

    def feature(self, k: int) -> np.ndarray:
        """Position (2,) of landmark ``k`` (0-based)."""
        return self.landmarks[int(k)].copy()


def check_limits(owner: str, range_: Any, angle: Any) -> tuple[float, float, float, float]:
    """``(rmin, rmax, amin, amax)`` from a max range or ``[min, max]`` and a half-angle or
    ``[min, max]``; None means no limit."""
    if range_ is None:
        rmin, rmax = 0.0, math.inf
    elif np.ndim(range_) == 0:
        rmin, rmax = 0.0, float(range_)
    else:
        rmin, rmax = (float(v) for v in range_)
    if angle is None:
        amin, amax = -math.pi, math.pi
    elif np.ndim(angle) == 0:
        amin, amax = -abs(float(angle)), abs(float(angle))
    else:
        amin, amax = (float(v) for v in angle)
    if not (0.0 <= rmin < rmax):
        raise ValueError(f"{owner}: range must satisfy 0 <= min < max, got {plain(range_)}")
    if not amin < amax:
        raise ValueError(f"{owner}: angle must satisfy min < max [rad], got {plain(angle)}")
    return rmin, rmax, amin, amax


class RangeBearingSensor:
    """Range and bearing to a random visible landmark, with Gaussian noise (RTB
    ``RangeBearingSensor``).

    Parameters
    ----------
    vehicle : Vehicle
        The vehicle carrying the sensor (its true pose ``vehicle.x`` is read).
    map : LandmarkMap
    W : array_like (2, 2)
        Covariance of the noise on (range [m], bearing [rad]).
    range : float or (float, float) or None
        Maximum range, or ``[min, max]`` [m]. None: unlimited.
    angle : float or (float, float) or None
        Half field of view, or ``[min, max]`` bearings [rad]. None: all around.
    skip : int
        A valid reading on every ``skip``-th call only (RTB's ``interval``).
    fail : (int, int) or None
        Calls ``fail[0] <= count <= fail[1]`` return nothing (simulated failure).
    seed : int
        Seed of the noise and of the choice of landmark.
    """

    def __init__(
        self,
        vehicle: Any,
        map: LandmarkMap,
        W: ArrayLike,
        range: Any = None,
        angle: Any = None,
        skip: int = 1,
        fail: tuple[int, int] | None = None,
        seed: int = 1,
    ) -> None:
        self.robot = vehicle
        self.map = map
        self.W = check_cov("RangeBearingSensor", "W", W, 2)
        self.sW = chol_psd(self.W)
        self.limits = check_limits("RangeBearingSensor", range, angle)
        if int(skip) < 1:
            raise ValueError(f"RangeBearingSensor: skip must be >= 1, got {plain(skip)}")
        self.interval = int(skip)
        self.fail = None if fail is None else (int(fail[0]), int(fail[1]))
        self.seed = seed
        self.init()

    def init(self) -> None:
        """Restart the call counter and the noise generator."""
        self.count = 0
        self.rng = np.random.default_rng(self.seed)

    def reading(self) -> tuple[np.ndarray | None, int | None]:
        """``(z, k)``: noisy ``(range, bearing)`` of landmark ``k`` (0-based), or
        ``(None, None)`` when no landmark is visible, the call is skipped or the sensor
        fails."""
        self.count += 1
        u = self.rng.random()
        n = self.rng.standard_normal(2)
        if self.count % self.interval != 0:
            return None, None
        if self.fail is not None and self.fail[0] <= self.count <= self.fail[1]:
            return None, None
        z, k = rb_reading(self.robot.x, self.map.landmarks, self.sW, *self.limits, u, n[0], n[1])
        return (None, None) if k < 0 else (z, int(k))

    def _xf(self, xf: Any) -> np.ndarray:
        if np.ndim(xf) == 0:
            return self.map.landmarks[int(xf)]
        return np.asarray(xf, dtype=float)

    def h(self, xv: ArrayLike, xf: Any = None) -> np.ndarray:
        """Noise-free observation (2,) of landmark ``xf`` (index or position); all landmarks
        (N, 2) when ``xf`` is None."""
        xv = np.asarray(xv, dtype=float)
        if xf is None:
            return np.array([rb_h(xv, p) for p in self.map.landmarks])
        return rb_h(xv, self._xf(xf))

    def Hx(self, xv: ArrayLike, xf: Any) -> np.ndarray:
        """``dh/dxv`` (2, 3)."""
        return rb_Hx(np.asarray(xv, dtype=float), self._xf(xf))

    def Hxf(self, xv: ArrayLike, xf: Any) -> np.ndarray:
        """``dh/dxf`` (2, 2)."""
        return rb_Hxf(np.asarray(xv, dtype=float), self._xf(xf))

    def Hw(self, xv: ArrayLike, xf: Any) -> np.ndarray:
        """``dh/dw`` (2, 2): the identity (additive noise)."""
        return np.eye(2)

    def g(self, xv: ArrayLike, z: ArrayLike) -> np.ndarray:
        """Landmark position (2,) from observation ``z``."""
        return rb_g(np.asarray(xv, dtype=float), np.asarray(z, dtype=float))

    def Gx(self, xv: ArrayLike, z: ArrayLike) -> np.ndarray:
        """``dg/dxv`` (2, 3)."""
        return rb_Gx(np.asarray(xv, dtype=float), np.asarray(z, dtype=float))

    def Gz(self, xv: ArrayLike, z: ArrayLike) -> np.ndarray:
        """``dg/dz`` (2, 2)."""
        return rb_Gz(np.asarray(xv, dtype=float), np.asarray(z, dtype=float))
