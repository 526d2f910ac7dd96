"""Particle-filter steps for map-based localisation (RVC 6.7; RTB 9.10 ``ParticleFilter``).

Particles are the rows of ``X`` (np, 3) poses ``(x, y, theta)``; weights ``w`` (np,).

* :func:`pf_predict`: every particle moves by the odometry model ``f`` and is diffused by
  ``chol(Q) n`` (``n`` standard normal rows supplied by the caller), heading wrapped.
* :func:`pf_weights`: likelihood of an observation ``z`` of landmark ``xf``,
  ``w = exp(-0.5 nu' L^-1 nu) + w0`` with ``nu = (z0 - h0, wrap(z1 - h1))``.
* :func:`pf_resample_systematic`: systematic resampling (one uniform ``u0`` in [0, 1), the
  comb ``(u0 + i) / np`` over the cumulative weights); lower variance than upstream's
  multinomial resampling.
* :func:`pf_estimate`: weighted mean and standard deviation; heading by circular mean.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.robotics.mobile.kinematics import wrap_angle
from blocksim.robotics.mobile.odometry import odo_f
from blocksim.robotics.mobile.rangebearing import rb_h

__all__ = ["pf_estimate", "pf_predict", "pf_resample_systematic", "pf_weights"]


@njit(cache=True)
def pf_predict(
    X: np.ndarray, d: float, dth: float, sQ: np.ndarray, noise: np.ndarray
) -> np.ndarray:
    """Particles (np, 3) moved by odometry ``(d, dth)`` plus ``noise @ sQ.T`` (``sQ`` the
    lower Cholesky factor (3, 3) of the diffusion covariance Q; ``noise`` (np, 3) N(0, 1))."""
    m = X.shape[0]
    out = np.empty_like(X)
    for i in range(m):
        xi = odo_f(X[i], d, dth, 0.0, 0.0)
        for r in range(3):
            s = 0.0
            for c in range(r + 1):
                s += sQ[r, c] * noise[i, c]
            xi[r] += s
        xi[2] = wrap_angle(xi[2])
        out[i] = xi
    return out


@njit(cache=True)
def pf_weights(
    X: np.ndarray, z: np.ndarray, xf: np.ndarray, Linv: np.ndarray, w0: float
) -> np.ndarray:
    """Weights (np,) ``exp(-0.5 nu' Linv nu) + w0`` of each particle for observation ``z``
    (2,) of the landmark at ``xf`` (2,); ``Linv`` (2, 2) the inverse likelihood covariance."""
    m = X.shape[0]
    w = np.empty(m)
    for i in range(m):
        zp = rb_h(X[i], xf)
        e0 = z[0] - zp[0]
        e1 = wrap_angle(z[1] - zp[1])
        q = e0 * (Linv[0, 0] * e0 + Linv[0, 1] * e1) + e1 * (Linv[1, 0] * e0 + Linv[1, 1] * e1)
        w[i] = math.exp(-0.5 * q) + w0
    return w


@njit(cache=True)
def pf_resample_systematic(X: np.ndarray, w: np.ndarray, u0: float) -> np.ndarray:
    """Systematic resampling of particles ``X`` (np, 3) with weights ``w`` (np,, >= 0, not
    all zero) using the uniform sample ``u0`` in [0, 1); returns the new particles (np, 3)."""
    m = X.shape[0]
    total = 0.0
    for i in range(m):
        total += w[i]
    out = np.empty_like(X)
    c = w[0] / total
    k = 0
    for i in range(m):
        u = (u0 + i) / m
        while u > c and k < m - 1:
            k += 1
            c += w[k] / total
        out[i] = X[k]
    return out


@njit(cache=True)
def pf_estimate(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean (3,) and standard deviation (3,) of equally weighted particles; the heading mean
    is circular (``atan2`` of the mean sine and cosine), its deviation uses wrapped
    differences."""
    m = X.shape[0]
    mean = np.zeros(3)
    sn = 0.0
    cs = 0.0
    for i in range(m):
        mean[0] += X[i, 0]
        mean[1] += X[i, 1]
        sn += math.sin(X[i, 2])
        cs += math.cos(X[i, 2])
    mean[0] /= m
    mean[1] /= m
    mean[2] = math.atan2(sn, cs)
    std = np.zeros(3)
    for i in range(m):
        std[0] += (X[i, 0] - mean[0]) ** 2
        std[1] += (X[i, 1] - mean[1]) ** 2
        std[2] += wrap_angle(X[i, 2] - mean[2]) ** 2
    for r in range(3):
        std[r] = math.sqrt(std[r] / m)
    return mean, std
