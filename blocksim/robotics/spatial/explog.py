"""Matrix exponential and logarithm on SO(3) and SE(3) (RTB ``trexp`` / ``trlog``).

Twists are ``(v, w)``, translation first (Robotics Toolbox order); see
:mod:`blocksim.robotics.spatial.kernels` for the closed forms. The logarithm returns the
principal value: rotation angle in [0, pi]. At exactly pi the axis sign is arbitrary (both
signs are logarithms of the same rotation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._args import farray
from .kernels import se3_exp_nb, se3_log_nb, so3_exp_nb, so3_log_nb
from .se3 import skewa, vexa
from .so3 import skew, vex

#: default tolerance of the orthonormality check in :func:`trlog` (max |R^T R - I|)
LOG_CHECK_TOL = 1e-6


def trexp(S: Any, theta: float | None = None) -> np.ndarray:
    """Exponential of an so(3) or se(3) element: a rotation (3, 3) or a transform (4, 4).

    Parameters
    ----------
    S : array_like
        * (3, 3) so(3) skew-symmetric matrix, or a rotation vector (3,) [rad]
          -> ``expm(skew(w))`` (3, 3), a rotation by ``|w|`` about ``w``;
        * (4, 4) se(3) matrix ``[[skew(w), v], [0, 0]]``, or a twist ``(v, w)`` (6,)
          -> ``expm(skewa(xi))`` (4, 4).
    theta : float, optional
        Multiplies ``S`` first: ``trexp(axis, theta)`` with a unit ``axis`` is a rotation of
        ``theta`` rad (a unit screw and its motion for a twist).
    """
    m = farray(S)
    k = 1.0 if theta is None else float(theta)
    if m.shape == (3, 3):
        return so3_exp_nb(vex(m) * k)
    if m.shape == (4, 4):
        return se3_exp_nb(vexa(m) * k)
    if m.size == 3:
        return so3_exp_nb(m.reshape(3) * k)
    if m.size == 6:
        return se3_exp_nb(m.reshape(6) * k)
    raise ValueError(f"trexp: expected (3, 3), (4, 4), 3 or 6 elements, got shape {m.shape}")


def trlog(T: Any, twist: bool = False, check: bool = True) -> np.ndarray:
    """Principal logarithm of a rotation (3, 3) or a transform (4, 4).

    Parameters
    ----------
    T : array_like, (3, 3) or (4, 4)
    twist : bool
        Return the vector instead of the matrix: the rotation vector (3,) [rad] for a rotation,
        the twist ``(v, w)`` (6,) for a transform.
    check : bool
        Raise ``ValueError`` unless the rotation is orthonormal to ``LOG_CHECK_TOL`` with
        determinant +1.

    Returns
    -------
    ndarray
        so(3) (3, 3) / se(3) (4, 4) matrix, or the vector when ``twist=True``; the rotation
        angle ``|w|`` is in [0, pi].
    """
    m = farray(T)
    if m.shape not in ((3, 3), (4, 4)):
        raise ValueError(f"trlog: expected shape (3, 3) or (4, 4), got {m.shape}")
    if check:
        R = m[:3, :3]
        err = np.abs(R.T @ R - np.eye(3)).max()
        if err > LOG_CHECK_TOL or np.linalg.det(R) < 0:
            raise ValueError(f"trlog: not a rotation (max |R^T R - I| = {err:.3g}, "
                             f"det = {np.linalg.det(R):.3g}); use trnorm first")
    if m.shape == (3, 3):
        w = so3_log_nb(m)
        return w if twist else skew(w)
    xi = se3_log_nb(m)
    return xi if twist else skewa(xi)
