"""Compiled kernels of the transform blocks (:mod:`blocksim.blocks.arm.transforms`).

Every kernel follows the contract of :mod:`blocksim.engine.compiled.kernels`: a module-level
``numba.njit(cache=True, error_model="numpy")`` function of ``(t, x, u0, ..., params)``. Poses
are (4, 4) float64 homogeneous transforms, vectors (n,) float64 arrays; each kernel returns a
new array.

The rotations come from :mod:`blocksim.robotics.spatial.kernels` (``rpy2r_nb``, ``tr2rpy_nb``,
``skew_nb``, ``vex_nb``). The spatial package has no compiled ZYZ Euler conversion, so
:func:`eul2r_nb` (closed form of ``Rz Ry Rz``) and :func:`tr2eul_nb` (the steps of
:func:`~blocksim.robotics.spatial.tr2eul`) are written here; the interpreted blocks call the
spatial functions and the tests hold the two equal. Matrix products are loops (numba's
``@`` calls BLAS and compiles slowly); they agree with numpy to rounding.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from blocksim.robotics.spatial.kernels import rpy2r_nb, skew_nb, tr2rpy_nb, vex_nb

_njit = numba.njit(cache=True, error_model="numpy")

#: |sin(theta)| below which tr2eul_nb treats the rotation as singular (as spatial.tr2eul)
EUL_SINGULAR_TOL = 1e-12
_TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------- helpers
@_njit
def matmul4(A, B):
    """``A @ B`` for two (4, 4) matrices, by loops."""
    C = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            s = 0.0
            for k in range(4):
                s += A[i, k] * B[k, j]
            C[i, j] = s
    return C


@_njit
def rigid_inverse(T):
    """Inverse (4, 4) of a rigid transform: ``[[R^T, -R^T p], [0, 0, 0, 1]]``."""
    Y = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            Y[i, j] = T[j, i]
    for i in range(3):
        Y[i, 3] = -(T[0, i] * T[0, 3] + T[1, i] * T[1, 3] + T[2, i] * T[2, 3])
    Y[3, 3] = 1.0
    return Y


@_njit
def rotation_of(T):
    """The rotation block (3, 3) of a transform, as a new C-contiguous array."""
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = T[i, j]
    return R


@_njit
def homogeneous(R, p):
    """Transform (4, 4) of a rotation (3, 3) and a translation (3,)."""
    T = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            T[i, j] = R[i, j]
        T[i, 3] = p[i]
    T[3, 3] = 1.0
    return T


@_njit
def eul2r_nb(eul):
    """Rotation (3, 3) ``Rz(phi) @ Ry(theta) @ Rz(psi)`` of ZYZ Euler angles (3,) [rad]."""
    c1, s1 = math.cos(eul[0]), math.sin(eul[0])
    c2, s2 = math.cos(eul[1]), math.sin(eul[1])
    c3, s3 = math.cos(eul[2]), math.sin(eul[2])
    R = np.empty((3, 3))
    R[0, 0] = c1 * c2 * c3 - s1 * s3
    R[0, 1] = -c1 * c2 * s3 - s1 * c3
    R[0, 2] = c1 * s2
    R[1, 0] = s1 * c2 * c3 + c1 * s3
    R[1, 1] = -s1 * c2 * s3 + c1 * c3
    R[1, 2] = s1 * s2
    R[2, 0] = -s2 * c3
    R[2, 1] = s2 * s3
    R[2, 2] = c2
    return R


@_njit
def tr2eul_nb(R, flip):
    """ZYZ Euler angles (3,) [rad] of a rotation: ``theta`` in [0, pi] ([-pi, 0] with
    ``flip``); at ``sin(theta) = 0`` phi is 0 and psi carries the combination."""
    st = math.hypot(R[0, 2], R[1, 2])
    if st < EUL_SINGULAR_TOL:
        phi = 0.0
        theta = math.atan2(st, R[2, 2]) * (-1.0 if flip else 1.0)
    else:
        phi = math.atan2(-R[1, 2], -R[0, 2]) if flip else math.atan2(R[1, 2], R[0, 2])
        theta = math.atan2(math.cos(phi) * R[0, 2] + math.sin(phi) * R[1, 2], R[2, 2])
    sp, cp = math.sin(phi), math.cos(phi)
    psi = math.atan2(-sp * R[0, 0] + cp * R[1, 0], -sp * R[0, 1] + cp * R[1, 1])
    a = np.empty(3)
    a[0] = phi
    a[1] = theta
    a[2] = psi
    return a


@_njit
def wrap_angle(d):
    """``d`` wrapped to [-pi, pi) [rad] (the operations of spatial ``angdiff``)."""
    r = (d + math.pi) % _TWO_PI - math.pi
    return r - _TWO_PI if r >= math.pi else r


# ---------------------------------------------------------------------------- block kernels
@_njit
def tr2delta_kernel(t, x, u0, u1, p):
    """``(t1 - t0, vex(R1 R0^T - I))`` (6,)."""
    M = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            M[i, j] = (u1[i, 0] * u0[j, 0] + u1[i, 1] * u0[j, 1] + u1[i, 2] * u0[j, 2]
                       - (1.0 if i == j else 0.0))
    w = vex_nb(M)
    d = np.empty(6)
    for i in range(3):
        d[i] = u1[i, 3] - u0[i, 3]
        d[3 + i] = w[i]
    return d


@_njit
def delta2tr_kernel(t, x, u, p):
    """``I + [[skew(d[3:]), d[:3]], [0, 0]]`` (4, 4)."""
    w = np.empty(3)
    for i in range(3):
        w[i] = u[3 + i]
    S = skew_nb(w)
    T = np.zeros((4, 4))
    for i in range(3):
        for j in range(3):
            T[i, j] = (1.0 if i == j else 0.0) + S[i, j]
        T[i, 3] = u[i]
    T[3, 3] = 1.0
    return T


@_njit
def trinverse_kernel(t, x, u, p):
    return rigid_inverse(u)


@_njit
def trmultiply_kernel(t, x, u0, u1, p):
    return matmul4(u0, u1)


@_njit
def trmultiply_const_kernel(t, x, u, p):
    """``pose @ u`` when ``p[1]`` (pre-multiply), else ``u @ pose``; ``p[0]`` is the pose."""
    if p[1]:
        return matmul4(p[0], u)
    return matmul4(u, p[0])


@_njit
def tr2xyz_kernel(t, x, u, p):
    out = np.empty(3)
    for i in range(3):
        out[i] = u[i, 3]
    return out


@_njit
def xyz2tr_kernel(t, x, u, p):
    T = np.zeros((4, 4))
    for i in range(3):
        T[i, i] = 1.0
        T[i, 3] = u[i]
    T[3, 3] = 1.0
    return T


@_njit
def tr2rpy_kernel(t, x, u, p):
    """``p = (zyx,)``: angle order "zyx" when True, "xyz" otherwise."""
    return tr2rpy_nb(rotation_of(u), p[0])


@_njit
def rpy2tr_kernel(t, x, u, p):
    return homogeneous(rpy2r_nb(u, p[0]), np.zeros(3))


@_njit
def tr2eul_kernel(t, x, u, p):
    """``p = (flip,)``."""
    return tr2eul_nb(rotation_of(u), p[0])


@_njit
def eul2tr_kernel(t, x, u, p):
    return homogeneous(eul2r_nb(u), np.zeros(3))


@_njit
def _element(u, k):
    """``u`` for a float, ``u[k]`` for a vector (numpy's broadcasting of a scalar)."""
    if isinstance(u, float):
        return u
    return u[k]


@_njit
def angdiff_kernel(t, x, u0, u1, p):
    """``wrap(u0 - u1)``: a float for two floats, else a vector (floats or (n,) arrays; a
    float is broadcast)."""
    if isinstance(u0, float) and isinstance(u1, float):
        return wrap_angle(u0 - u1)
    n = u1.size if isinstance(u0, float) else u0.size
    out = np.empty(n)
    for k in range(n):
        out[k] = wrap_angle(_element(u0, k) - _element(u1, k))
    return out
