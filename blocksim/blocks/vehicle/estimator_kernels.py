"""Compiled kernels of the sensor and estimator blocks (:mod:`.sensing`, :mod:`.estimators`).

The interpreted methods of those blocks call these same functions (one implementation: the
filters are too heavy to write twice), so both back-ends agree bitwise.

EKF state layout (fixed size, so that it compiles): ``(x (n), P (n*n) row-major, seen (M))``
with ``n = 3`` (dead reckoning, localisation), ``3 + 2M`` (SLAM) or ``2M`` (mapping);
landmark ``k`` of SLAM/mapping lives at ``x[nv + 2k : nv + 2k + 2]``, zero with zero
covariance until first seen (``seen[k] = 1``).

One step per hit: a filter's output at a hit is its state after that hit's step (prediction
and update), and its next state is that same step. The pure step is ``*_step``; the output
kernel computes it once and keeps it, with its arguments, in a memo (the last parameter, see
:func:`memo_size`); the update kernel, which the back-end calls next with the same state and
inputs, returns the kept step instead of stepping again. A call with other arguments steps
afresh, so the memo changes no result, only the work. The memo is written in place: the
compiled back-end packs the parameters into a vector of its own for every run and every batch
member, so runs never share it. The interpreted methods keep their memo on the block instead
(:class:`~blocksim.blocks.vehicle.estimators.EKF`), one immutable tuple replaced whole, safe
under threads.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.blocks.sources.random_streams import normal_sample, uniform_sample
from blocksim.robotics.mobile.ekf_core import ekf_insert, ekf_predict, ekf_update
from blocksim.robotics.mobile.pf_core import (
    pf_estimate,
    pf_predict,
    pf_resample_systematic,
    pf_weights,
)
from blocksim.robotics.mobile.rangebearing import rb_reading

# ---------------------------------------------------------------------------- sensor


@njit(cache=True, inline="always", error_model="numpy")
def _int(value):
    """``value`` as an int64 *value*: numba types a literal argument (``3``) as its own type
    and compiles the callee once per literal (ekf_update had 4 signatures, each a second or
    more to compile); every call passes int64 now, as the Python API does."""
    return np.int64(value)


@njit(cache=True, error_model="numpy")
def rb_sensor_output(t, x, pose, p):
    """params ``(landmarks (2N,), sW (4,), rmin, rmax, amin, amax, skip, fail0, fail1, key)``;
    state: the number of hits before this one. Returns ``(z, k, valid)``."""
    lm = p[0].reshape((-1, 2))
    sW = p[1].reshape((2, 2))
    c = x[0] + 1.0
    z = np.zeros(2)
    if c % p[6] != 0.0 or (p[7] <= c <= p[8]):
        return z, -1.0, 0.0
    key = np.uint64(p[9])
    n = np.uint64(c) * np.uint64(3)
    pick = uniform_sample(key, n)
    n0 = normal_sample(key, n + np.uint64(1))
    n1 = normal_sample(key, n + np.uint64(2))
    z, k = rb_reading(pose, lm, sW, p[2], p[3], p[4], p[5], pick, n0, n1)
    if k < 0:
        return z, -1.0, 0.0
    return z, float(k), 1.0


@njit(cache=True, error_model="numpy")
def count_update(t, x, *args):
    """Count the hit."""
    out = x.copy()
    out[0] = x[0] + 1.0
    return out


#: what the kernels raise for a landmark id outside the map (ValueError(message, k, size))
EKF_OUTSIDE = "EKF: landmark id (input k) outside the filter's map; (k, landmarks in the map) ="
PF_OUTSIDE = ("ParticleFilter: landmark id (input k) outside the filter's map; (k, landmarks "
              "in the map) =")


@njit(cache=True, error_model="numpy")
def landmark_id(k, m):
    """The landmark id ``k`` (a float input) as an index into a map of ``m`` landmarks, or -1
    unless ``k`` is a whole number in ``0 .. m - 1`` (the caller raises: the filters never
    read or write outside their map; the interpreted methods check first and say it in
    words, :func:`landmark_problem`)."""
    if not (k >= 0.0 and k < m and k == math.floor(k)):
        return np.int64(-1)
    return np.int64(k)


def landmark_problem(owner: str, k: float, m: int) -> str | None:
    """Why the landmark id ``k`` does not index a map of ``m`` landmarks, or None."""
    if k >= 0.0 and k < m and k == math.floor(k):
        return None
    ids = f"ids 0..{m - 1}" if m else "no ids"
    return (f"{owner}: landmark id k = {k:g} is outside its map of {m} landmark"
            f"{'s' * (m != 1)} ({ids}); the sensor observes a landmark the filter does not "
            f"hold: give the filter and the sensor the same 'landmarks'")


# ---------------------------------------------------------------------------- memo


def memo_size(nx: int, nu: int) -> int:
    """Length of the memo of a filter with ``nx`` states and ``nu`` input elements: a valid
    flag, the key (state, inputs) and the step's result (``nx``)."""
    return 1 + nx + nu + nx


@njit(cache=True, error_model="numpy")
def _memo_keep(memo, x, u, y):
    """Keep ``y``, the step of state ``x`` with the flat inputs ``u``."""
    n = x.shape[0]
    m = u.shape[0]
    memo[0] = 1.0
    memo[1 : 1 + n] = x
    memo[1 + n : 1 + n + m] = u
    memo[1 + n + m : 1 + n + m + n] = y


@njit(cache=True, error_model="numpy")
def _memo_find(memo, x, u):
    """The kept step when it is that of exactly ``(x, u)``, else an empty array."""
    n = x.shape[0]
    m = u.shape[0]
    if memo[0] != 1.0:
        return memo[:0].copy()
    for i in range(n):
        if memo[1 + i] != x[i]:
            return memo[:0].copy()
    for i in range(m):
        if memo[1 + n + i] != u[i]:
            return memo[:0].copy()
    return memo[1 + n + m : 1 + n + m + n].copy()


@njit(cache=True, error_model="numpy")
def _key(a, z, k, valid):
    """The flat inputs ``(a, z, k, valid)`` (``a``: odometry or pose)."""
    n = a.shape[0]
    u = np.empty(n + 4)
    u[:n] = a
    u[n] = z[0]
    u[n + 1] = z[1]
    u[n + 2] = k
    u[n + 3] = valid
    return u


# ---------------------------------------------------------------------------- EKF


@njit(cache=True, error_model="numpy")
def _unpack(x, n):
    xe = x[:n].copy()
    P = x[n : n + n * n].copy().reshape((n, n))
    return xe, P


@njit(cache=True, error_model="numpy")
def _pack(x, xe, P):
    n = xe.shape[0]
    out = x.copy()
    out[:n] = xe
    out[n : n + n * n] = P.reshape(-1)
    return out


@njit(cache=True, error_model="numpy")
def _estimate(y, n):
    """``(x (n,), P (n, n))`` of the packed state ``y``."""
    return y[:n].copy(), y[n : n + n * n].copy().reshape((n, n))


@njit(cache=True, error_model="numpy")
def ekf_dr_step(t, x, odo, p):
    """Dead reckoning; params ``(V (4,), W (4,), landmarks (2N,), nv, M, joseph, memo)``."""
    xe, P = _unpack(x, 3)
    xe, P = ekf_predict(xe, P, odo[0], odo[1], p[0].reshape((2, 2)))
    return _pack(x, xe, P)


@njit(cache=True, error_model="numpy")
def ekf_dr_output(t, x, odo, p):
    y = ekf_dr_step(t, x, odo, p)
    _memo_keep(p[6], x, odo, y)
    return _estimate(y, 3)


@njit(cache=True, error_model="numpy")
def ekf_dr_update(t, x, odo, p):
    y = _memo_find(p[6], x, odo)
    return y if y.size else ekf_dr_step(t, x, odo, p)


@njit(cache=True, error_model="numpy")
def ekf_loc_step(t, x, odo, z, k, valid, p):
    """Map-based localisation: predict, then update with the known landmark ``k``."""
    xe, P = _unpack(x, 3)
    xe, P = ekf_predict(xe, P, odo[0], odo[1], p[0].reshape((2, 2)))
    if valid > 0.5:
        lm = p[2].reshape((-1, 2))
        i = landmark_id(k, _int(lm.shape[0]))
        if i < 0:
            raise ValueError(EKF_OUTSIDE, k, lm.shape[0])
        xe, P, _nu, _S = ekf_update(
            xe, P, z, p[1].reshape((2, 2)), xe, _int(3), _int(-1), lm[i].copy(), p[5]
        )
    return _pack(x, xe, P)


@njit(cache=True, error_model="numpy")
def ekf_loc_output(t, x, odo, z, k, valid, p):
    y = ekf_loc_step(t, x, odo, z, k, valid, p)
    _memo_keep(p[6], x, _key(odo, z, k, valid), y)
    return _estimate(y, 3)


@njit(cache=True, error_model="numpy")
def ekf_loc_update(t, x, odo, z, k, valid, p):
    y = _memo_find(p[6], x, _key(odo, z, k, valid))
    return y if y.size else ekf_loc_step(t, x, odo, z, k, valid, p)


@njit(cache=True, error_model="numpy")
def _observe_map(xe, P, seen, z, k, W, xv_known, nv, joseph):
    i = landmark_id(k, _int(seen.shape[0]))
    if i < 0:
        raise ValueError(EKF_OUTSIDE, k, seen.shape[0])
    j = nv + 2 * i
    if seen[i] > 0.5:
        xe, P, _nu, _S = ekf_update(xe, P, z, W, xv_known, nv, j, xv_known[:2].copy(), joseph)
    else:
        xe, P = ekf_insert(xe, P, z, W, xv_known, nv, j)
        seen[i] = 1.0
    return xe, P


@njit(cache=True, error_model="numpy")
def ekf_slam_step(t, x, odo, z, k, valid, p):
    """SLAM with a preallocated map of ``M`` landmarks."""
    M = p[4]
    n = 3 + 2 * M
    xe, P = _unpack(x, n)
    seen = x[n + n * n :].copy()
    xe, P = ekf_predict(xe, P, odo[0], odo[1], p[0].reshape((2, 2)))
    if valid > 0.5:
        xe, P = _observe_map(xe, P, seen, z, k, p[1].reshape((2, 2)), xe[:3].copy(), _int(3),
                             p[5])
    out = _pack(x, xe, P)
    out[n + n * n :] = seen
    return out


@njit(cache=True, error_model="numpy")
def ekf_slam_output(t, x, odo, z, k, valid, p):
    y = ekf_slam_step(t, x, odo, z, k, valid, p)
    _memo_keep(p[6], x, _key(odo, z, k, valid), y)
    return _estimate(y, 3 + 2 * p[4])


@njit(cache=True, error_model="numpy")
def ekf_slam_update(t, x, odo, z, k, valid, p):
    y = _memo_find(p[6], x, _key(odo, z, k, valid))
    return y if y.size else ekf_slam_step(t, x, odo, z, k, valid, p)


@njit(cache=True, error_model="numpy")
def ekf_map_step(t, x, pose, z, k, valid, p):
    """Map building with the known vehicle ``pose``."""
    M = p[4]
    n = 2 * M
    xe, P = _unpack(x, n)
    seen = x[n + n * n :].copy()
    if valid > 0.5:
        xe, P = _observe_map(xe, P, seen, z, k, p[1].reshape((2, 2)), pose, _int(0), p[5])
    out = _pack(x, xe, P)
    out[n + n * n :] = seen
    return out


@njit(cache=True, error_model="numpy")
def ekf_map_output(t, x, pose, z, k, valid, p):
    y = ekf_map_step(t, x, pose, z, k, valid, p)
    _memo_keep(p[6], x, _key(pose, z, k, valid), y)
    return _estimate(y, 2 * p[4])


@njit(cache=True, error_model="numpy")
def ekf_map_update(t, x, pose, z, k, valid, p):
    y = _memo_find(p[6], x, _key(pose, z, k, valid))
    return y if y.size else ekf_map_step(t, x, pose, z, k, valid, p)


# ---------------------------------------------------------------------------- particle filter


@njit(cache=True, error_model="numpy")
def pf_step(t, x, odo, z, k, valid, p):
    """params ``(landmarks (2N,), sQ (9,), Linv (4,), w0, nparticles, key, memo)``; state
    ``(hit, particles (np*3))``."""
    m = p[4]
    X = x[1:].copy().reshape((m, 3))
    key = np.uint64(p[5])
    block = np.uint64(3 * m + 1)
    base = np.uint64(x[0]) * block
    noise = np.empty((m, 3))
    for i in range(m):
        for c in range(3):
            noise[i, c] = normal_sample(key, base + np.uint64(3 * i + c))
    X = pf_predict(X, odo[0], odo[1], p[1].reshape((3, 3)), noise)
    if valid > 0.5:
        lm = p[0].reshape((-1, 2))
        i = landmark_id(k, _int(lm.shape[0]))
        if i < 0:
            raise ValueError(PF_OUTSIDE, k, lm.shape[0])
        w = pf_weights(X, z, lm[i].copy(), p[2].reshape((2, 2)), p[3])
        X = pf_resample_systematic(X, w, uniform_sample(key, base + np.uint64(3 * m)))
    out = np.empty_like(x)
    out[0] = x[0] + 1.0
    out[1:] = X.reshape(-1)
    return out


@njit(cache=True, error_model="numpy")
def pf_estimates(y, m):
    """``(mean (3,), std (3,), particles (m, 3))`` of the packed state ``y``."""
    X = y[1:].copy().reshape((m, 3))
    mean, std = pf_estimate(X)
    return mean, std, X


@njit(cache=True, error_model="numpy")
def pf_update(t, x, odo, z, k, valid, p):
    y = _memo_find(p[6], x, _key(odo, z, k, valid))
    return y if y.size else pf_step(t, x, odo, z, k, valid, p)


@njit(cache=True, error_model="numpy")
def pf_output(t, x, odo, z, k, valid, p):
    y = pf_step(t, x, odo, z, k, valid, p)
    _memo_keep(p[6], x, _key(odo, z, k, valid), y)
    mean, std, _X = pf_estimates(y, p[4])
    return mean, std


@njit(cache=True, error_model="numpy")
def pf_output_particles(t, x, odo, z, k, valid, p):
    """``(mean, std, particles (np, 3))``."""
    y = pf_step(t, x, odo, z, k, valid, p)
    _memo_keep(p[6], x, _key(odo, z, k, valid), y)
    return pf_estimates(y, p[4])
