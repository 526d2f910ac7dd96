"""Camera pose from point correspondences (perspective-n-point; RTB/MVTB ``estpose``).

Given N >= 4 world points ``P`` (3, N) [m] and their images ``uv`` (2, N) [pixel] in a camera of
known intrinsics, :func:`estpose` finds the camera pose ``T`` (4, 4) in the world that minimises
the reprojection error ``sum |project(P, T) - uv|^2`` [pixel^2]:

1. *Initial guesses* in normalised image coordinates ``x = K^-1 [u; v; 1]``:

   * a plane-induced homography: the points are expressed in their best-fit plane (principal
     axes of the centred points), the homography ``x ~ H [a; b; 1]`` is found by the normalised
     DLT and decomposed as ``H ~ [r1, r2, t]`` (scale from ``|r1|, |r2|``, sign so that the
     points are in front) -- exact for coplanar points, a starting point otherwise;
   * for N >= 6 points that are not coplanar, the normalised DLT of the (3, 4) matrix
     ``x ~ [R | t] [P; 1]``, with ``R`` projected onto SO(3).

2. *Refinement* of each guess by Levenberg-Marquardt on the reprojection error. The pose is
   updated in the camera frame, ``T <- T @ trexp(delta)``, so the Jacobian of the projected
   points with respect to ``delta`` (6,) is the image Jacobian
   :func:`~.kernels.visjac_p_nb` at the current projections and depths. The refined guess with
   the smallest error is returned.

RTB's ``CentralCamera.estpose(P, uv)`` returns the pose of the *object* (whose points are ``P``)
relative to the camera; that is ``inv(T)`` of the camera pose returned here.
"""

from __future__ import annotations

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
            delta = np.linalg.solve(A + mu * np.diag(d), -g)
            Tn = T @ trexp(delta)
            proj_n, r_n, Z_n = _residual(cam, P, uv, Tn)
            cost_n = float(r_n @ r_n)
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
        guesses = [_guess_planar(Pm, x)]
        if n >= 6 and ext[2] > COPLANAR_TOL * ext[0]:
            guesses.append(_guess_dlt(Pm, x))
    best_T, best_cost = None, np.inf
    for T in guesses:
        if T is None:
            continue
        T, cost = refine_pose(cam, Pm, m, np.ascontiguousarray(T), max_iter)
        if best_T is None or cost < best_cost:
            best_T, best_cost = T, cost
    if best_T is None or not np.isfinite(best_cost):
        raise ValueError("estpose: no pose puts every point in front of the camera")
    if return_error:
        return best_T, float(np.sqrt(best_cost / n))
    return best_T
