"""Camera pose from point correspondences (perspective-n-point; RTB/MVTB ``estpose``).

Given N >= 4 world points ``P`` (3, N) [m] and their images ``uv`` (2, N) [pixel] in a camera of
known intrinsics, :func:`estpose` finds the camera pose ``T`` (4, 4) in the world that minimises
the reprojection error ``sum |project(P, T) - uv|^2`` [pixel^2]:

1. *Initial guesses* in normalised image coordinates ``x = K^-1 [u; v; 1]``:

   * a plane-induced homography: the points are expressed in their best-fit plane (principal
     axes of the centred points), the homography ``x ~ H [a; b; 1]`` is found by the normalised
     DLT and decomposed as ``H ~ [r1, r2, t]`` (scale from ``|r1|, |r2|``, sign so that the
     points are in front) -- exact for coplanar points, a starting point otherwise;
   * P3P (Grunert's quartic) on triples of points (every triple for N <= 6), each real
     solution aligned to its three points (Kabsch);
   * for points that are not coplanar, POSIT (DeMenthon and Davis: scaled orthographic
     projection iterated with perspective corrections) and, for N >= 6, the normalised DLT of
     the (3, 4) matrix ``x ~ [R | t] [P; 1]``, with ``R`` projected onto SO(3).

2. *Refinement* of each guess by Levenberg-Marquardt on the reprojection error. The pose is
   updated in the camera frame, ``T <- T @ trexp(delta)``, so the Jacobian of the projected
   points with respect to ``delta`` (6,) is the image Jacobian
   :func:`~.kernels.visjac_p_nb` at the current projections and depths. The
   ``REFINED_GUESSES`` guesses of smallest initial error are refined; the one with the smallest
   final error is returned.

RTB's ``CentralCamera.estpose(P, uv)`` returns the pose of the *object* (whose points are ``P``)
relative to the camera; that is ``inv(T)`` of the camera pose returned here.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim.robotics.spatial import trexp

from ._args import image_points, points3, pose_matrix
from .kernels import project_nb, visjac_p_nb

if TYPE_CHECKING:
    from .central import CentralCamera

#: relative size of the smallest principal extent below which the points count as coplanar
#: (no 3-D DLT guess) and, for the second one, as collinear (no pose can be found)
COPLANAR_TOL = 1e-6
COLLINEAR_TOL = 1e-9
#: number of initial guesses (those of smallest reprojection error) refined
REFINED_GUESSES = 4


def _hartley(x: np.ndarray) -> np.ndarray:
    """Normalising similarity (d+1, d+1) for points ``x`` (d, N): centroid to the origin and
    mean distance ``sqrt(d)``."""
    d = x.shape[0]
    c = x.mean(axis=1)
    dist = np.sqrt(((x - c[:, None]) ** 2).sum(axis=0)).mean()
    s = np.sqrt(d) / dist if dist > 0 else 1.0
    N = np.eye(d + 1)
    N[:d, :d] *= s
    N[:d, d] = -s * c
    return N


def _null_vector(A: np.ndarray) -> np.ndarray:
    """Unit vector minimising ``|A h|``: the last right singular vector."""
    return np.linalg.svd(A)[2][-1]


def _nearest_rotation(M: np.ndarray) -> np.ndarray:
    """The rotation (3, 3) nearest to ``M`` in the Frobenius norm."""
    U, _, Vt = np.linalg.svd(M)
    D = np.diag([1.0, 1.0, np.sign(np.linalg.det(U @ Vt))])
    return U @ D @ Vt


def _rigid(R: np.ndarray, t: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = t
    return T


def _inv(T: np.ndarray) -> np.ndarray:
    R, t = T[:3, :3], T[:3, 3]
    return _rigid(R.T, -R.T @ t)


def _homogeneous(x: np.ndarray) -> np.ndarray:
    return np.vstack((x, np.ones((1, x.shape[1]))))


def _guess_planar(P: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """Camera pose from the homography of the best-fit plane of ``P`` (3, N) to the normalised
    image points ``x`` (2, N); None when the homography is degenerate."""
    c = P.mean(axis=1)
    E = np.linalg.svd(P - c[:, None])[0]           # columns: principal axes
    e1, e2 = E[:, 0], E[:, 1]
    Twp = _rigid(np.column_stack((e1, e2, np.cross(e1, e2))), c)
    ab = E[:, :2].T @ (P - c[:, None])               # plane coordinates (2, N)
    Na, Nx = _hartley(ab), _hartley(x)
    p = Na @ _homogeneous(ab)
    q = Nx @ _homogeneous(x)
    n = P.shape[1]
    A = np.zeros((2 * n, 9))
    A[0::2, 0:3] = p.T
    A[0::2, 6:9] = -q[0][:, None] * p.T
    A[1::2, 3:6] = p.T
    A[1::2, 6:9] = -q[1][:, None] * p.T
    H = np.linalg.solve(Nx, _null_vector(A).reshape(3, 3) @ Na)
    norm = 0.5 * (np.linalg.norm(H[:, 0]) + np.linalg.norm(H[:, 1]))
    if not np.isfinite(norm) or norm == 0.0:
        return None
    H = H / norm
    if H[2, 2] < 0.0:                                 # centroid (a, b) = 0 must be in front
        H = -H
    R = _nearest_rotation(np.column_stack((H[:, 0], H[:, 1], np.cross(H[:, 0], H[:, 1]))))
    Tcp = _rigid(R, H[:, 2])                          # plane frame seen from the camera
    return Twp @ _inv(Tcp)


def _guess_dlt(P: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """Camera pose from the DLT of ``x ~ [R | t] [P; 1]`` (N >= 6 non-coplanar points)."""
    Np, Nx = _hartley(P), _hartley(x)
    p = Np @ _homogeneous(P)
    q = Nx @ _homogeneous(x)
    n = P.shape[1]
    A = np.zeros((2 * n, 12))
    A[0::2, 0:4] = p.T
    A[0::2, 8:12] = -q[0][:, None] * p.T
    A[1::2, 4:8] = p.T
    A[1::2, 8:12] = -q[1][:, None] * p.T
    M = np.linalg.solve(Nx, _null_vector(A).reshape(3, 4) @ Np)
    det = np.linalg.det(M[:, :3])
    if not np.isfinite(det) or det == 0.0:
        return None
    if det < 0.0:
        M = -M
    scale = np.linalg.svd(M[:, :3], compute_uv=False).mean()
    Tcw = _rigid(_nearest_rotation(M[:, :3]), M[:, 3] / scale)
    return _inv(Tcw)


def _guess_posit(P: np.ndarray, x: np.ndarray, iterations: int = 50) -> np.ndarray | None:
    """Camera pose by POSIT (DeMenthon and Davis 1995): scaled orthographic projection
    refined by the perspective corrections ``eps_i``; needs non-coplanar points. The first
    point is the reference."""
    A = (P[:, 1:] - P[:, :1]).T                       # (N-1, 3) object vectors
    B = np.linalg.pinv(A)
    eps = np.zeros(P.shape[1] - 1)
    R = np.eye(3)
    Z0 = 1.0
    for _ in range(iterations):
        vi = B @ (x[0, 1:] * (1.0 + eps) - x[0, 0])
        vj = B @ (x[1, 1:] * (1.0 + eps) - x[1, 0])
        s1, s2 = np.linalg.norm(vi), np.linalg.norm(vj)
        if not (s1 > 0.0 and s2 > 0.0 and np.isfinite(s1 + s2)):
            return None
        i, j = vi / s1, vj / s2
        k = np.cross(i, j)
        k /= np.linalg.norm(k)
        Z0 = 2.0 / (s1 + s2)
        R = np.vstack((i, j, k))
        new = A @ k / Z0
        if np.max(np.abs(new - eps)) < 1e-15:
            break
        eps = new
    R = _nearest_rotation(R)
    t = np.array([x[0, 0] * Z0, x[1, 0] * Z0, Z0]) - R @ P[:, 0]
    return _inv(_rigid(R, t))


def _p3p(P: np.ndarray, bearings: np.ndarray) -> list[np.ndarray]:
    """Distances (3,) along the unit ``bearings`` (3, 3) to three world points ``P`` (3, 3):
    the real positive roots of Grunert's quartic (Haralick et al. 1994), up to four."""
    a2 = float(np.sum((P[:, 1] - P[:, 2]) ** 2))
    b2 = float(np.sum((P[:, 0] - P[:, 2]) ** 2))
    c2 = float(np.sum((P[:, 0] - P[:, 1]) ** 2))
    ca = bearings[:, 1] @ bearings[:, 2]
    cb = bearings[:, 0] @ bearings[:, 2]
    cg = bearings[:, 0] @ bearings[:, 1]
    amc, apc = (a2 - c2) / b2, (a2 + c2) / b2
    coeffs = [
        (amc - 1.0) ** 2 - 4.0 * c2 / b2 * ca ** 2,
        4.0 * (amc * (1.0 - amc) * cb - (1.0 - apc) * ca * cg + 2.0 * c2 / b2 * ca ** 2 * cb),
        2.0 * (amc ** 2 - 1.0 + 2.0 * amc ** 2 * cb ** 2 + 2.0 * (b2 - c2) / b2 * ca ** 2
               - 4.0 * apc * ca * cb * cg + 2.0 * (b2 - a2) / b2 * cg ** 2),
        4.0 * (-amc * (1.0 + amc) * cb + 2.0 * a2 / b2 * cg ** 2 * cb - (1.0 - apc) * ca * cg),
        (1.0 + amc) ** 2 - 4.0 * a2 / b2 * cg ** 2,
    ]
    out = []
    if not np.all(np.isfinite(coeffs)):
        return out
    for root in np.roots(coeffs):
        if abs(root.imag) > 1e-6 * max(1.0, abs(root)):
            continue
        v = root.real
        den = 2.0 * (cg - v * ca)
        d2 = 1.0 + v * v - 2.0 * v * cb
        if den == 0.0 or d2 <= 0.0:
            continue
        u = ((amc - 1.0) * v * v - 2.0 * amc * cb * v + 1.0 + amc) / den
        s1 = np.sqrt(b2 / d2)
        if u > 0.0 and v > 0.0:
            out.append(np.array([s1, u * s1, v * s1]))
    return out


def _align(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Rigid transform (4, 4) ``[R, t]`` minimising ``|R P + t - Q|`` (Kabsch)."""
    cp, cq = P.mean(axis=1, keepdims=True), Q.mean(axis=1, keepdims=True)
    R = _nearest_rotation((Q - cq) @ (P - cp).T)
    return _rigid(R, (cq - R @ cp)[:, 0])


def _guesses_p3p(P: np.ndarray, x: np.ndarray) -> list[np.ndarray]:
    """Camera poses from P3P on triples of points: every triple for N <= 6, otherwise one
    well-spread triple (farthest point from the centroid, farthest from it, farthest from
    their line)."""
    n = P.shape[1]
    if n <= 6:
        triples = list(combinations(range(n), 3))
    else:
        i0 = int(np.argmax(np.sum((P - P.mean(axis=1, keepdims=True)) ** 2, axis=0)))
        i1 = int(np.argmax(np.sum((P - P[:, i0:i0 + 1]) ** 2, axis=0)))
        d = P[:, i1] - P[:, i0]
        i2 = int(np.argmax(np.sum(np.cross((P - P[:, i0:i0 + 1]).T, d) ** 2, axis=1)))
        triples = [(i0, i1, i2)]
    rays = np.vstack((x, np.ones((1, n))))
    rays /= np.linalg.norm(rays, axis=0)
    out = []
    for tri in triples:
        idx = list(tri)
        for s in _p3p(P[:, idx], rays[:, idx]):
            out.append(_inv(_align(P[:, idx], rays[:, idx] * s)))
    return out


def _residual(cam: CentralCamera, P: np.ndarray, uv: np.ndarray,
              T: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Projections (2, N), reprojection residual (2N,) interleaved and the depths (N,)."""
    proj = project_nb(P, T, cam.fu, cam.fv, cam.u0, cam.v0)
    r = (proj - uv).T.reshape(-1)
    Z = T[:3, 2] @ (P - T[:3, 3:4])
    return proj, r, Z


def refine_pose(cam: CentralCamera, P: np.ndarray, uv: np.ndarray, T: np.ndarray,
                max_iter: int = 100, xtol: float = 1e-13) -> tuple[np.ndarray, float]:
    """Levenberg-Marquardt refinement of the camera pose ``T`` (4, 4); returns the pose and
    its sum of squared reprojection errors [pixel^2] (inf if a point is behind the camera)."""
    proj, r, Z = _residual(cam, P, uv, T)
    cost = float(r @ r)
    if not np.isfinite(cost):
        return T, np.inf
    mu = None
    for _ in range(max_iter):
        J = visjac_p_nb(proj, Z, cam.fu, cam.fv, cam.u0, cam.v0)
        A = J.T @ J
        g = J.T @ r
        d = np.diag(A).copy()
        if mu is None:
            mu = 1e-6 * d.max()
        while True:
            with np.errstate(all="ignore"):
                try:
                    delta = np.linalg.solve(A + mu * np.diag(d), -g)
                    Tn = T @ trexp(delta)
                    proj_n, r_n, Z_n = _residual(cam, P, uv, Tn)
                    cost_n = float(r_n @ r_n)
                except (np.linalg.LinAlgError, ValueError):
                    cost_n = np.inf
            if np.isfinite(cost_n) and cost_n <= cost:
                mu = max(mu / 3.0, 1e-15 * d.max())
                break
            mu *= 4.0
            if mu > 1e16 * d.max():
                return T, cost
        T, proj, r, Z, cost = Tn, proj_n, r_n, Z_n, cost_n
        if np.linalg.norm(delta) <= xtol * (1.0 + np.linalg.norm(T[:3, 3])):
            break
    return T, cost


def _initial_guesses(cam: CentralCamera, P: np.ndarray, uv: np.ndarray, x: np.ndarray,
                     spatial: bool) -> list[np.ndarray]:
    """The ``REFINED_GUESSES`` initial poses of smallest reprojection error."""
    guesses = [_guess_planar(P, x), *_guesses_p3p(P, x)]
    if spatial:
        guesses.append(_guess_posit(P, x))
        if P.shape[1] >= 6:
            guesses.append(_guess_dlt(P, x))
    guesses = [np.ascontiguousarray(T) for T in guesses if T is not None and np.all(np.isfinite(T))]
    scores = np.array([float(np.sum(_residual(cam, P, uv, T)[1] ** 2)) for T in guesses])
    order = np.argsort(np.where(np.isfinite(scores), scores, np.inf), kind="stable")
    return [guesses[i] for i in order[:REFINED_GUESSES]]


def estpose(cam: CentralCamera, P: Any, uv: Any, T0: Any = None, max_iter: int = 100,
            return_error: bool = False) -> Any:
    """Pose (4, 4) of the camera in the world from N >= 4 point correspondences.

    Parameters
    ----------
    cam : CentralCamera
        Intrinsics (its own pose is not used).
    P : array_like (3, N)
        World points [m], one per column, not all on a line.
    uv : array_like (2, N) or (2N,)
        Their image points [pixel], columns or flattened ``[u0, v0, u1, v1, ...]``.
    T0 : array_like (4, 4), optional
        Initial camera pose; default: the guesses described in the module docstring.
    max_iter : int
        Maximum Levenberg-Marquardt iterations per guess.
    return_error : bool
        Also return the RMS reprojection error [pixel].

    Returns
    -------
    T : ndarray (4, 4)
        Camera pose in the world (``inv(T)`` is RTB's object pose in the camera frame).
    rms : float
        Only with ``return_error=True``.
    """
    Pm, _ = points3(P, "estpose: P")
    m = image_points(uv, "estpose: uv")
    n = Pm.shape[1]
    if m.shape[1] != n:
        raise ValueError(f"estpose: {n} world points but {m.shape[1]} image points")
    if n < 4:
        raise ValueError(f"estpose: needs at least 4 correspondences, got {n}")
    if not (np.all(np.isfinite(Pm)) and np.all(np.isfinite(m))):
        raise ValueError("estpose: points must be finite (drop points that are not visible)")
    ext = np.linalg.svd(Pm - Pm.mean(axis=1, keepdims=True), compute_uv=False)
    if ext[1] <= COLLINEAR_TOL * ext[0]:
        raise ValueError("estpose: the world points are collinear; the pose is not determined")
    x = np.vstack(((m[0] - cam.u0) / cam.fu, (m[1] - cam.v0) / cam.fv))
    if T0 is not None:
        guesses = [pose_matrix(T0, "estpose: T0")]
    else:
        with np.errstate(all="ignore"):     # wild guesses are scored, not trusted
            guesses = _initial_guesses(cam, Pm, m, x, ext[2] > COPLANAR_TOL * ext[0])
    best_T, best_cost = None, np.inf
    for T in guesses:
        T, cost = refine_pose(cam, Pm, m, T, max_iter)
        if best_T is None or cost < best_cost:
            best_T, best_cost = T, cost
    if best_T is None or not np.isfinite(best_cost):
        raise ValueError("estpose: no pose puts every point in front of the camera")
    if return_error:
        return best_T, float(np.sqrt(best_cost / n))
    return best_T
