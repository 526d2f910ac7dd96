"""The central perspective (pinhole) camera, Machine Vision Toolbox ``CentralCamera``.

Conventions (as RTB/MVTB)
-------------------------
* **Points are columns**: world points ``P`` have shape (3, N) [m] and image points ``uv``
  shape (2, N) [pixel], one column per point; a single point may be given as (3,) and projects
  to (2,).
* The camera pose ``T`` (4, 4) is the pose of the camera frame in the world. The camera's z
  axis is the optical axis (pointing into the scene), its x axis points to the right of the
  image (u increasing) and its y axis down (v increasing).
* Intrinsics: focal length ``f`` [m], pixel size ``rho = (rho_u, rho_v)`` [m/pixel], principal
  point ``pp = (u0, v0)`` [pixel], resolution ``(nu, nv)`` [pixels] (width, height). A point
  ``(X, Y, Z)`` in the camera frame projects to ``u = f X / (rho_u Z) + u0``,
  ``v = f Y / (rho_v Z) + v0``; in homogeneous form ``p ~ C [P; 1]`` with the camera matrix
  ``C = K [I | 0] inv(T)`` (3, 4) and the intrinsic matrix
  ``K = [[f/rho_u, 0, u0], [0, f/rho_v, v0], [0, 0, 1]]``.
* A point is *in front* when ``Z > 0``; points behind (or on the plane of) the camera project
  to NaN. A point is *visible* when it is in front and ``0 <= u < nu``, ``0 <= v < nv``.

The defaults are MVTB's ``CentralCamera('default')``: f = 8 mm, 10 um pixels, 1024 x 1024,
principal point at the centre (512, 512).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from blocksim._messages import plain

from ._args import points3
from ._args import pose_matrix as _pose
from .ibvs import ibvs_law
from .kernels import depth_nb, project_nb
from .pose import estpose
from .visjac import visjac_p


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class CentralCamera:
    """A central perspective camera with a pose: a value (immutable; :meth:`copy` to change).

    Parameters
    ----------
    f : float
        Focal length [m], > 0. Default 0.008.
    rho : float or (2,) array_like
        Pixel size [m/pixel], ``rho`` or ``(rho_u, rho_v)``, > 0. Default 10e-6.
    pp : (2,) array_like or None
        Principal point ``(u0, v0)`` [pixel]; None (default) puts it at the image centre
        ``(nu / 2, nv / 2)``.
    resolution : (2,) array_like of int
        Image size ``(nu, nv)`` = (width, height) [pixels]. Default (1024, 1024).
    T : (4, 4) array_like or None
        Pose of the camera in the world (SE(3)); None (default) is the identity.
    name : str
        A label. Default ``"camera"``.

    Attributes
    ----------
    fu, fv : float
        Focal length in pixels, ``f / rho_u`` and ``f / rho_v``.
    u0, v0 : float
        Principal point [pixel].
    K : ndarray (3, 3)
        Intrinsic matrix.
    """

    __slots__ = ("_T", "f", "fu", "fv", "name", "nu", "nv", "pp", "rho", "u0", "v0")

    def __init__(self, f: float = 0.008, rho: float | Any = 10e-6, pp: Any = None,
                 resolution: Any = (1024, 1024), T: Any = None, name: str = "camera") -> None:
        f = float(f)
        if not (math.isfinite(f) and f > 0.0):
            raise ValueError(f"CentralCamera: focal length f must be a positive number [m], "
                             f"got {plain(f)}")
        r = np.array(rho, dtype=np.float64).reshape(-1)
        if r.size == 1:
            r = np.repeat(r, 2)
        if r.size != 2 or not np.all(np.isfinite(r)) or np.any(r <= 0.0):
            raise ValueError(f"CentralCamera: pixel size rho must be a positive number or two "
                             f"[m/pixel], got {plain(rho)}")
        res = np.asarray(resolution).reshape(-1)
        if res.size != 2 or np.any(res != np.round(res)) or np.any(res < 1):
            raise ValueError(f"CentralCamera: resolution must be two positive integers "
                             f"(width, height) [pixels], got {plain(resolution)}")
        nu, nv = int(res[0]), int(res[1])
        if pp is None:
            c = np.array([nu / 2.0, nv / 2.0])
        else:
            c = np.array(pp, dtype=np.float64).reshape(-1)
            if c.size != 2 or not np.all(np.isfinite(c)):
                raise ValueError(f"CentralCamera: principal point pp must be two numbers "
                                 f"(u0, v0) [pixel] or None, got {plain(pp)}")
        set_ = object.__setattr__
        set_(self, "f", f)
        set_(self, "rho", _readonly(r))
        set_(self, "nu", nu)
        set_(self, "nv", nv)
        set_(self, "pp", _readonly(c))
        set_(self, "u0", float(c[0]))
        set_(self, "v0", float(c[1]))
        set_(self, "fu", f / float(r[0]))
        set_(self, "fv", f / float(r[1]))
        set_(self, "_T", np.eye(4) if T is None else _pose(T, "CentralCamera: T"))
        set_(self, "name", str(name))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"CentralCamera is immutable; use copy({key}=...)")

    # ------------------------------------------------------------------ value semantics
    @property
    def T(self) -> np.ndarray:
        """Pose of the camera in the world, (4, 4) (a read-only view)."""
        return _readonly(self._T)

    @property
    def resolution(self) -> tuple[int, int]:
        """Image size ``(nu, nv)`` = (width, height) [pixels]."""
        return (self.nu, self.nv)

    def copy(self, **changes: Any) -> CentralCamera:
        """A new camera with the same parameters except those given (``f``, ``rho``, ``pp``,
        ``resolution``, ``T``, ``name``)."""
        args = dict(f=self.f, rho=self.rho.copy(), pp=self.pp.copy(), resolution=self.resolution,
                    T=self._T.copy(), name=self.name)
        unknown = set(changes) - set(args)
        if unknown:
            raise TypeError(f"CentralCamera.copy: unknown parameter(s) {sorted(unknown)}; valid: "
                            f"{', '.join(args)}")
        args.update(changes)
        return CentralCamera(**args)

    def move(self, dT: Any) -> CentralCamera:
        """A copy of the camera moved by ``dT`` (4, 4) in its own frame: pose ``T @ dT``."""
        return self.copy(T=self._T @ _pose(dT, "CentralCamera.move"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CentralCamera):
            return NotImplemented
        return (self.f == other.f and np.array_equal(self.rho, other.rho)
                and np.array_equal(self.pp, other.pp) and self.resolution == other.resolution
                and np.array_equal(self._T, other._T) and self.name == other.name)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"CentralCamera(f={self.f!r}, rho=({self.rho[0]!r}, {self.rho[1]!r}), "
                f"pp=({self.u0!r}, {self.v0!r}), resolution={self.resolution!r}, "
                f"name={plain(self.name)})")

    # ------------------------------------------------------------------ intrinsics
    @property
    def K(self) -> np.ndarray:
        """Intrinsic matrix (3, 3): ``[[f/rho_u, 0, u0], [0, f/rho_v, v0], [0, 0, 1]]``."""
        return np.array([[self.fu, 0.0, self.u0], [0.0, self.fv, self.v0], [0.0, 0.0, 1.0]])

    def C(self, T: Any = None) -> np.ndarray:
        """Camera matrix (3, 4) ``K [I | 0] inv(T)`` for the camera at pose ``T`` (default: its
        own pose): ``p = C @ [P; 1]``, ``uv = p[:2] / p[2]``."""
        Tc = self._T if T is None else _pose(T, "CentralCamera.C: T")
        R, t = Tc[:3, :3], Tc[:3, 3]
        return self.K @ np.hstack((R.T, (-R.T @ t)[:, None]))

    def fov(self) -> np.ndarray:
        """Field of view (2,) [rad], horizontal and vertical: ``2 atan(n rho / (2 f))``."""
        return 2.0 * np.arctan(np.array([self.nu, self.nv]) * self.rho / (2.0 * self.f))

    # ------------------------------------------------------------------ projection
    def _pose_or_own(self, T: Any, name: str) -> np.ndarray:
        return self._T if T is None else _pose(T, f"CentralCamera.{name}: T")

    def project(self, P: Any, T: Any = None, visibility: bool = False) -> Any:
        """Project world points to the image.

        Parameters
        ----------
        P : array_like (3, N) or (3,)
            World points [m], one per column.
        T : array_like (4, 4), optional
            Camera pose to use instead of the camera's own (RTB ``'pose'`` option).
        visibility : bool
            Also return the visibility mask (see :meth:`visible`).

        Returns
        -------
        uv : ndarray (2, N), or (2,) for a single point
            Image coordinates [pixel]; NaN for points not in front of the camera (Z <= 0).
            Points in front but outside the image are returned as computed.
        visible : ndarray of bool (N,), or bool for a single point
            Only with ``visibility=True``.
        """
        Pm, single = points3(P, "CentralCamera.project: P")
        Tc = self._pose_or_own(T, "project")
        uv = project_nb(Pm, Tc, self.fu, self.fv, self.u0, self.v0)
        if not visibility:
            return uv[:, 0] if single else uv
        vis = self._inside(uv)
        return (uv[:, 0], bool(vis[0])) if single else (uv, vis)

    def _inside(self, uv: np.ndarray) -> np.ndarray:
        u, v = uv[0], uv[1]
        with np.errstate(invalid="ignore"):
            return (u >= 0.0) & (u < self.nu) & (v >= 0.0) & (v < self.nv)

    def visible(self, P: Any, T: Any = None) -> np.ndarray:
        """Visibility (N,) bool of world points ``P`` (3, N): in front of the camera (Z > 0)
        and inside the image, ``0 <= u < nu`` and ``0 <= v < nv``."""
        Pm, _ = points3(P, "CentralCamera.visible: P")
        uv = project_nb(Pm, self._pose_or_own(T, "visible"), self.fu, self.fv, self.u0, self.v0)
        return self._inside(uv)

    def depth(self, P: Any, T: Any = None) -> np.ndarray:
        """Depth (N,) [m] of world points ``P`` (3, N) along the optical axis: their z
        coordinate in the camera frame, negative behind the camera (float for a single point)."""
        Pm, single = points3(P, "CentralCamera.depth: P")
        Z = depth_nb(Pm, self._pose_or_own(T, "depth"))
        return float(Z[0]) if single else Z

    # ------------------------------------------------------------------ vision numerics
    def visjac_p(self, uv: Any, Z: Any) -> np.ndarray:
        """Image Jacobian (2N, 6) of point features; see :func:`.visjac.visjac_p`."""
        return visjac_p(self, uv, Z)

    def estpose(self, P: Any, uv: Any, **options: Any) -> np.ndarray:
        """Camera pose (4, 4) in the world from N >= 4 correspondences; see
        :func:`.pose.estpose`."""
        return estpose(self, P, uv, **options)

    def ibvs_law(self, uv: Any, uv_star: Any, Z: Any, lam: float) -> np.ndarray:
        """IBVS camera velocity (6,); see :func:`.ibvs.ibvs_law`."""
        return ibvs_law(self, uv, uv_star, Z, lam)


def depth(P: Any, T: Any) -> np.ndarray:
    """Depth (N,) [m] of world points ``P`` (3, N) for a camera at pose ``T`` (4, 4): the z
    coordinate of each point in the camera frame (negative behind the camera)."""
    Pm, single = points3(P, "depth: P")
    Z = depth_nb(Pm, _pose(T, "depth: T"))
    return float(Z[0]) if single else Z
