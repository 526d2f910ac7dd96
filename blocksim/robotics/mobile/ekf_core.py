"""EKF steps for a vehicle in SE(2) with range-bearing landmarks (RVC ch. 6; RTB 9.10 ``EKF``).

State layout: ``x = (xv, m_1, ..., m_M)`` where ``xv = (x, y, theta)`` (``nv = 3``) when the
vehicle is estimated, or ``x = (m_1, ..., m_M)`` (``nv = 0``, map building with a known
vehicle pose); ``m_j = (x_j, y_j)`` are landmark positions [m]. ``P`` is the full covariance.

* :func:`ekf_predict`: ``xv <- f(xv, odo)``, ``Pvv <- Fx Pvv Fx' + Fv V Fv'``,
  ``Pvm <- Fx Pvm`` (landmarks are static).
* :func:`ekf_update`: innovation ``nu = (z0 - h0, wrap(z1 - h1))``,
  ``S = H P H' + W``, ``K = P H' S^-1``, ``x <- x + K nu`` (heading wrapped) and the Joseph
  form ``P <- (I - K H) P (I - K H)' + K W K'`` (or ``P - K S K'``), symmetrised. The Joseph
  form is evaluated expanded, ``P - K H P - (K H P)' + K S K'`` (the same expression, valid
  for any gain K), in O(n^2) operations instead of the O(n^3) of the matrix products.
* :func:`ekf_augment`: a first sighting appends ``g(xv, z)`` and grows ``P`` with
  ``M blkdiag(P, W) M'``, ``M = [[I, 0], [Gx 0, Gz]]`` (``blkdiag(P, Gz W Gz')`` when the
  vehicle is not estimated).

Every function returns new arrays (inputs are never modified) and compiles with numba; the
same code runs in the Python ``EKF`` class, the blocks and their kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.robotics.control.dense import mm, mmt, mv
from blocksim.robotics.mobile.kinematics import wrap_angle
from blocksim.robotics.mobile.odometry import odo_f, odo_Fv, odo_Fx
from blocksim.robotics.mobile.rangebearing import rb_g, rb_Gx, rb_Gz, rb_h, rb_Hx, rb_Hxf

__all__ = ["ekf_augment", "ekf_insert", "ekf_predict", "ekf_update", "nees"]


@njit(cache=True)
def inv2(S: np.ndarray) -> np.ndarray:
    """Inverse of a 2x2 matrix."""
    det = S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0]
    out = np.empty((2, 2))
    out[0, 0] = S[1, 1] / det
    out[0, 1] = -S[0, 1] / det
    out[1, 0] = -S[1, 0] / det
    out[1, 1] = S[0, 0] / det
    return out


@njit(cache=True)
def ekf_predict(
    x: np.ndarray, P: np.ndarray, d: float, dth: float, V: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Prediction with odometry ``(d, dth)`` and odometry covariance ``V`` (2, 2); the vehicle
    occupies ``x[:3]``. Returns ``(x, P)``."""
    n = x.shape[0]
    xv = x[:3].copy()
    Fx = odo_Fx(xv, d, dth)
    Fv = odo_Fv(xv, d, dth)
    xn = x.copy()
    xn[:3] = odo_f(xv, d, dth, 0.0, 0.0)
    Pn = P.copy()
    Pvv = np.ascontiguousarray(P[:3, :3])
    Pn[:3, :3] = mmt(mm(Fx, Pvv), Fx) + mmt(mm(Fv, V), Fv)
    if n > 3:
        Pvm = mm(Fx, np.ascontiguousarray(P[:3, 3:]))
        Pn[:3, 3:] = Pvm
        Pn[3:, :3] = Pvm.T
    return xn, Pn


@njit(cache=True)
def ekf_update(
    x: np.ndarray,
    P: np.ndarray,
    z: np.ndarray,
    W: np.ndarray,
    xv_known: np.ndarray,
    nv: int,
    j: int,
    xf_known: np.ndarray,
    joseph: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Update with one range-bearing observation ``z`` (2,) of covariance ``W`` (2, 2).

    Parameters
    ----------
    x, P : ndarray (n,), (n, n)
        Prior state and covariance.
    z : ndarray (2,)
        Observation (range [m], bearing [rad]).
    W : ndarray (2, 2)
        Measurement covariance assumed by the filter.
    xv_known : ndarray (3,)
        Vehicle pose used when ``nv == 0`` (not estimated); ignored otherwise.
    nv : int
        3 when ``x[:3]`` is the vehicle, 0 otherwise.
    j : int
        Index in ``x`` of the landmark's x coordinate, or -1 for a landmark of known position.
    xf_known : ndarray (2,)
        The landmark position when ``j == -1``.
    joseph : bool
        Joseph-form covariance update.

    Returns
    -------
    x, P : the posterior
    nu : ndarray (2,), the innovation
    S : ndarray (2, 2), its covariance
    """
    n = x.shape[0]
    xv = x[:3].copy() if nv == 3 else xv_known
    xf = x[j : j + 2].copy() if j >= 0 else xf_known
    zp = rb_h(xv, xf)
    nu = np.empty(2)
    nu[0] = z[0] - zp[0]
    nu[1] = wrap_angle(z[1] - zp[1])
    H = np.zeros((2, n))
    if nv == 3:
        H[:, :3] = rb_Hx(xv, xf)
    if j >= 0:
        H[:, j : j + 2] = rb_Hxf(xv, xf)
    PHt = mmt(P, H)
    S = mm(H, PHt) + W
    K = mm(PHt, inv2(S))
    xn = x + mv(K, nu)
    if nv == 3:
        xn[2] = wrap_angle(xn[2])
    KSK = mmt(mm(K, S), K)
    if joseph:
        # (I - K H) P (I - K H)' + K W K', expanded to O(n^2) work (H has two rows):
        # P - K (H P) - (K (H P))' + K (H P H' + W) K'
        KHP = mm(K, PHt.T.copy())
        Pn = P - KHP - KHP.T + KSK
    else:
        Pn = P - KSK
    Pn = 0.5 * (Pn + Pn.T)
    return xn, Pn, nu, S


@njit(cache=True)
def ekf_augment(
    x: np.ndarray, P: np.ndarray, z: np.ndarray, W: np.ndarray, xv_known: np.ndarray, nv: int
) -> tuple[np.ndarray, np.ndarray]:
    """Append the landmark first seen at ``z`` to the state; returns ``(x, P)`` of size n + 2."""
    n = x.shape[0]
    xv = x[:3].copy() if nv == 3 else xv_known
    xn = np.empty(n + 2)
    xn[:n] = x
    xn[n:] = rb_g(xv, z)
    Gz = rb_Gz(xv, z)
    Pn = np.zeros((n + 2, n + 2))
    Pn[:n, :n] = P
    if nv == 3:
        Gx = rb_Gx(xv, z)
        # M = [[I_n, 0], [Gx 0, Gz]]: new rows Gx Pv*, new corner Gx Pvv Gx' + Gz W Gz'
        cross = mm(Gx, np.ascontiguousarray(P[:3, :]))
        Pn[n:, :n] = cross
        Pn[:n, n:] = cross.T
        Pn[n:, n:] = mmt(mm(Gx, np.ascontiguousarray(P[:3, :3])), Gx) + mmt(mm(Gz, W), Gz)
    else:
        Pn[n:, n:] = mmt(mm(Gz, W), Gz)
    return xn, 0.5 * (Pn + Pn.T)


def nees(err: np.ndarray, P: np.ndarray) -> float:
    """Normalised estimation error squared ``e' P^-1 e`` (chi-square with len(e) dof for a
    consistent filter)."""
    return float(err @ np.linalg.solve(P, err))


@njit(cache=True)
def ekf_insert(
    x: np.ndarray,
    P: np.ndarray,
    z: np.ndarray,
    W: np.ndarray,
    xv_known: np.ndarray,
    nv: int,
    j: int,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ekf_augment` into a preallocated slot: the landmark first seen at ``z`` goes to
    ``x[j:j+2]``, whose rows and columns of ``P`` must be zero (an unseen landmark of a
    fixed-size state). Returns ``(x, P)`` of the same size."""
    xv = x[:3].copy() if nv == 3 else xv_known
    xn = x.copy()
    xn[j : j + 2] = rb_g(xv, z)
    Gz = rb_Gz(xv, z)
    Pn = P.copy()
    if nv == 3:
        Gx = rb_Gx(xv, z)
        cross = mm(Gx, np.ascontiguousarray(P[:3, :]))
        Pn[j : j + 2, :] = cross
        Pn[:, j : j + 2] = cross.T
        Pn[j : j + 2, j : j + 2] = mmt(mm(Gx, np.ascontiguousarray(P[:3, :3])), Gx) + mmt(
            mm(Gz, W), Gz
        )
    else:
        Pn[j : j + 2, j : j + 2] = mmt(mm(Gz, W), Gz)
    return xn, 0.5 * (Pn + Pn.T)
