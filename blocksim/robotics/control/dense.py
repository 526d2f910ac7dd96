"""Small dense linear algebra for the control and estimation kernels (numba, loops only).

numba's ``np.linalg`` and ``@`` call LAPACK/BLAS through wrappers that add seconds of
first-compile time; the matrices of a Kalman filter or a condensed MPC problem have at most a
few thousand elements, so loops are as fast and compile quickly. Every function is
``@njit(cache=True)`` over C-contiguous float64 arrays and returns new arrays (arguments are
never modified, except where said).

* :func:`mm`, :func:`mmt`, :func:`mtm`, :func:`mv`, :func:`mtv` — products ``A B``,
  ``A B^T``, ``A^T B``, ``A v``, ``A^T v``;
* :func:`cholesky` — the lower Cholesky factor of a symmetric positive-definite matrix,
  reporting failure instead of raising (kernels must not raise during a run);
* :func:`chol_solve`, :func:`chol_solve_mat` — ``A^-1 b`` and ``A^-1 B`` from that factor;
* :func:`symmetrize` — ``(A + A^T) / 2``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["chol_solve", "chol_solve_mat", "cholesky", "mm", "mmt", "mtm", "mtv", "mv",
           "symmetrize"]


@_njit
def mm(A, B):
    """``A @ B``: A (n, k), B (k, m) -> (n, m)."""
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for q in range(k):
            a = A[i, q]
            if a != 0.0:
                for j in range(m):
                    C[i, j] += a * B[q, j]
    return C


@_njit
def mmt(A, B):
    """``A @ B.T``: A (n, k), B (m, k) -> (n, m)."""
    n, k = A.shape
    m = B.shape[0]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for q in range(k):
                s += A[i, q] * B[j, q]
            C[i, j] = s
    return C


@_njit
def mtm(A, B):
    """``A.T @ B``: A (k, n), B (k, m) -> (n, m)."""
    k, n = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for q in range(k):
        for i in range(n):
            a = A[q, i]
            if a != 0.0:
                for j in range(m):
                    C[i, j] += a * B[q, j]
    return C


@_njit
def mv(A, v):
    """``A @ v``: A (n, k), v (k,) -> (n,)."""
    n, k = A.shape
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for q in range(k):
            s += A[i, q] * v[q]
        y[i] = s
    return y


@_njit
def mtv(A, v):
    """``A.T @ v``: A (k, n), v (k,) -> (n,)."""
    k, n = A.shape
    y = np.zeros(n)
    for q in range(k):
        w = v[q]
        if w != 0.0:
            for i in range(n):
                y[i] += A[q, i] * w
    return y


@_njit
def symmetrize(A):
    """``(A + A^T) / 2`` of a square matrix."""
    n = A.shape[0]
    S = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            S[i, j] = 0.5 * (A[i, j] + A[j, i])
    return S


@_njit
def cholesky(A):
    """The lower-triangular ``L`` with ``L L^T = A`` for a symmetric positive-definite ``A``
    (n, n) (its lower triangle is read), and True; ``(partial L, False)`` when ``A`` is not
    positive definite or holds NaN."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            return L, False
        d = math.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / d
    return L, True


@_njit
def chol_solve(L, b):
    """``A^-1 b`` for ``A = L L^T`` (``L`` from :func:`cholesky`), b (n,) -> (n,)."""
    n = b.shape[0]
    y = np.empty(n)
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * y[k]
        y[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= L[k, i] * y[k]
        y[i] = s / L[i, i]
    return y


@_njit
def chol_solve_mat(L, B):
    """``A^-1 B`` for ``A = L L^T``, B (n, m) -> (n, m), column by column."""
    n, m = B.shape
    X = np.empty((n, m))
    col = np.empty(n)
    for j in range(m):
        for i in range(n):
            col[i] = B[i, j]
        x = chol_solve(L, col)
        for i in range(n):
            X[i, j] = x[i]
    return X
