"""Small dense linear algebra for the robotics kernels (numba, loops only): Jacobians of arms
and image Jacobians of cameras.

numba's ``np.linalg`` calls LAPACK through wrappers that add seconds of first-compile time;
these matrices are at most a few tens of elements, so plain loops are as fast and compile
quickly. Everything here is ``@njit(cache=True)`` over C-contiguous float64 arrays.

* :func:`svd_jacobi` — singular value decomposition by one-sided (Hestenes) Jacobi rotations,
  accurate to rounding (singular values to high relative accuracy);
* :func:`inverse_from_svd` — the inverse, the Moore–Penrose pseudo-inverse or the damped
  least-squares inverse of a matrix from its SVD, and :func:`condition_from_svd`;
* :func:`pinv_solve` — ``pinv(A) @ b`` (minimum-norm least squares) from the SVD;
* :func:`cholesky_solve` — solve a symmetric positive-definite system, reporting failure
  instead of raising (kernels must not raise during a run).
"""

from __future__ import annotations

import math

import numba
import numpy as np

_njit = numba.njit(cache=True)

#: machine epsilon of float64
EPS = 2.220446049250313e-16
#: most Jacobi sweeps (convergence is quadratic: 6 x 6 matrices need about 6)
MAX_SWEEPS = 60
#: inverse modes of :func:`inverse_from_svd`
INV, PINV, DLS = 1, 2, 3


@_njit
def svd_jacobi(A):
    """Thin SVD ``A = U diag(s) V^T`` of ``A`` (m, n): ``(U (m, k), s (k,), V (n, k))``.

    ``k = min(m, n)``; the singular values are not sorted and are >= 0. One-sided Jacobi:
    plane rotations ``V`` orthogonalise the columns of ``A V`` (of ``A^T`` when m < n), whose
    norms are then the singular values. A zero singular value gets a zero column of ``U``.
    """
    m, n = A.shape
    wide = m < n
    rows, cols = (n, m) if wide else (m, n)
    W = np.empty((rows, cols))
    for i in range(rows):
        for j in range(cols):
            W[i, j] = A[j, i] if wide else A[i, j]
    V = np.zeros((cols, cols))
    for j in range(cols):
        V[j, j] = 1.0
    for _ in range(MAX_SWEEPS):
        rotated = False
        for p in range(cols - 1):
            for q in range(p + 1, cols):
                alpha = 0.0
                beta = 0.0
                gamma = 0.0
                for k in range(rows):
                    alpha += W[k, p] * W[k, p]
                    beta += W[k, q] * W[k, q]
                    gamma += W[k, p] * W[k, q]
                if gamma == 0.0 or abs(gamma) <= EPS * math.sqrt(alpha * beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                tan = math.copysign(1.0, zeta) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                c = 1.0 / math.sqrt(1.0 + tan * tan)
                s = c * tan
                for k in range(rows):
                    wp = W[k, p]
                    wq = W[k, q]
                    W[k, p] = c * wp - s * wq
                    W[k, q] = s * wp + c * wq
                for k in range(cols):
                    vp = V[k, p]
                    vq = V[k, q]
                    V[k, p] = c * vp - s * vq
                    V[k, q] = s * vp + c * vq
        if not rotated:
            break
    sv = np.empty(cols)
    for j in range(cols):
        ss = 0.0
        for k in range(rows):
            ss += W[k, j] * W[k, j]
        sv[j] = math.sqrt(ss)
        inv = 1.0 / sv[j] if sv[j] > 0.0 else 0.0
        for k in range(rows):
            W[k, j] *= inv
    if wide:                                # A^T = W S V^T, so A = V S W^T
        return V, sv, W
    return W, sv, V


@_njit
def pinv_solve(A, b):
    """``pinv(A) @ b`` for ``A`` (m, n) and ``b`` (m,): the minimum-norm least-squares solution,
    ``V diag(1/s) U^T b`` over the singular values above MATLAB's ``pinv`` tolerance
    ``max(m, n) eps s_max`` (smaller ones count as zero)."""
    U, s, V = svd_jacobi(A)
    m, n = A.shape
    smax = 0.0
    for v in s:
        smax = max(smax, v)
    tol = max(m, n) * EPS * smax
    x = np.zeros(n)
    for j in range(s.shape[0]):
        if s[j] > tol and s[j] > 0.0:
            d = 0.0
            for k in range(m):
                d += U[k, j] * b[k]
            d /= s[j]
            for k in range(n):
                x[k] += d * V[k, j]
    return x


@_njit
def condition_from_svd(s):
    """2-norm condition number ``s_max / s_min``, capped at ``1 / EPS`` (about 4.5e15).

    The cap keeps the value finite at an exact singularity: any value near it means singular
    to working precision.
    """
    smax = 0.0
    smin = math.inf
    for v in s:
        smax = max(smax, v)
        smin = min(smin, v)
    if smax == 0.0:
        return 1.0 / EPS
    return smax / max(smin, EPS * smax)


@_njit
def inverse_from_svd(U, s, V, mode, damping):
    """Inverse (n, m) of ``A = U diag(s) V^T`` (m, n): ``V diag(f(s)) U^T``.

    ``mode`` :data:`INV` (m = n): ``f = 1/s``; NaN everywhere when A is singular to working
    precision (``s_min <= max(m, n) eps s_max``): the inverse does not exist.
    :data:`PINV`: the Moore–Penrose pseudo-inverse, ``f = 1/s`` above that tolerance (MATLAB's
    ``pinv``), 0 below. :data:`DLS`: damped least squares, ``f = s / (s^2 + damping^2)``,
    i.e. ``A^T (A A^T + damping^2 I)^-1``.
    """
    m = U.shape[0]
    n = V.shape[0]
    k = s.shape[0]
    smax = 0.0
    for v in s:
        smax = max(smax, v)
    tol = max(m, n) * EPS * smax
    f = np.empty(k)
    singular = False
    for j in range(k):
        sj = s[j]
        if mode == DLS:
            f[j] = sj / (sj * sj + damping * damping)
        elif sj > tol and sj > 0.0:
            f[j] = 1.0 / sj
        else:
            f[j] = 0.0
            singular = True
    out = np.zeros((n, m))
    if mode == INV and singular:
        out[:, :] = np.nan
        return out
    for j in range(k):
        if f[j] == 0.0:
            continue
        for r in range(n):
            vr = V[r, j] * f[j]
            for c in range(m):
                out[r, c] += vr * U[c, j]
    return out


@_njit
def cholesky_solve(A, b):
    """Solve ``A x = b`` in place for a symmetric positive-definite ``A`` (n, n).

    ``A`` is overwritten by its Cholesky factor and ``b`` by the solution. Returns False (and
    leaves both partly overwritten) when ``A`` is not positive definite or holds NaN.
    """
    n = b.shape[0]
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        A[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / d
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= A[i, k] * b[k]
        b[i] = s / A[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= A[k, i] * b[k]
        b[i] = s / A[i, i]
    return True
