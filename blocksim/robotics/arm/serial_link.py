"""The serial-link arm model: a chain of :class:`~.links.Link` with base, tool and gravity.

Follows the Robotics Toolbox's ``SerialLink`` (RTB 9.10) with **value semantics**: a robot keeps its
own copies of the links it is given, ``robot.links`` hands out copies, and :meth:`SerialLink.copy`
gives an independent robot, so a plant and a controller model never alias each other.

Numeric layout and caching
--------------------------
``robot.arrays`` is the :class:`~.layout.ArmArrays` of the current parameters and ``robot.kin`` the
packed kinematics vector of :mod:`~.kinematics`. Both are built on first access and then stored on
the instance (``functools.cached_property``: a repeated access is a plain attribute lookup, a few
tens of ns). Every change made through the API (``set_link``, ``links``, ``base``, ``tool``,
``gravity``, ``qlim``, ``offset``) calls :meth:`SerialLink._changed`, which drops them so that the
next access rebuilds them. Treat both as read-only: writing into their arrays changes neither the
links nor the cache (use the API, or build a new robot with ``SerialLink(arrays)``).

Models that are not Denavit–Hartenberg (product of exponentials, URDF-like) are first-class: build
them from an :class:`~.layout.ArmArrays` (``SerialLink(arrays)``) or with
:mod:`~.convert`; their links are :meth:`~.links.Link.from_transforms` links, and asking for DH
parameters (``theta``, ``d``, ``a``, ``alpha``, ``mdh``) raises a ValueError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from itertools import pairwise

import numpy as np

from blocksim._messages import plain

from . import fast_calls as _fc
from . import kinematics as _kin
from .dynamics_methods import DynamicsMethods
from .layout import BV, GR, IXX, IXY, IXZ, IYY, IYZ, IZZ, JM, RX, RZ, TCN, TCP, ArmArrays, M
from .links import Link

__all__ = ["SerialLink"]

_ND = np.ndarray
_F64 = np.dtype(np.float64)
_FAST = _fc.FAST
_empty = np.empty


def _transform(T, name: str) -> np.ndarray:
    M4 = np.array(T, dtype=float)
    if M4.shape != (4, 4) or not np.all(np.isfinite(M4)):
        raise ValueError(f"SerialLink: {name} must be a finite 4x4 homogeneous transform, "
                         f"got shape {M4.shape}")
    R = M4[:3, :3]
    if not (np.allclose(R @ R.T, np.eye(3), atol=1e-9) and np.allclose(M4[3], [0, 0, 0, 1])):
        raise ValueError(f"SerialLink: {name} is not a rigid-body transform")
    return M4


def _links_from_arrays(arrays: ArmArrays) -> list[Link]:
    links = []
    for i in range(arrays.n):
        row = arrays.dyn[i]
        I = np.array([[row[IXX], row[IXY], row[IXZ]], [row[IXY], row[IYY], row[IYZ]],  # noqa: E741
                      [row[IXZ], row[IYZ], row[IZZ]]])
        links.append(Link.from_transforms(
            arrays.A[i], arrays.B[i], sigma=int(arrays.sigma[i]), offset=arrays.offset[i],
            qlim=arrays.qlim[i], m=row[M], r=row[RX:RZ + 1], I=I, Jm=row[JM], G=row[GR],
            B=row[BV], Tc=[row[TCP], row[TCN]]))
    return links


class _NamedPose:
    """``robot.<name>``: a copy of the robot's named pose ``name``; AttributeError naming the
    robot's poses when it has none of that name.

    Installed on the class once per pose name (:meth:`install`) rather than answered by a
    ``__getattr__``: a class with ``__getattr__`` loses CPython's fast attribute and method
    lookups on every access (about 0.05 µs each, a tenth of a fast ``jacob0`` call).
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        q = obj._poses.get(self.name)
        if q is None:
            hint = f" (named poses: {sorted(obj._poses)})" if obj._poses else ""
            raise AttributeError(f"'SerialLink' object has no attribute {plain(self.name)}{hint}")
        return q.copy()

    @staticmethod
    def install(name: str) -> None:
        """Make ``robot.<name>`` read the pose (not when the name is a SerialLink attribute:
        that pose is then read through ``robot.poses`` only)."""
        if name.isidentifier() and not hasattr(SerialLink, name):
            setattr(SerialLink, name, _NamedPose(name))


class SerialLink(DynamicsMethods):
    """A serial-link arm.

    Parameters
    ----------
    links : sequence of Link, SerialLink, sequence of SerialLink, ArmArrays or array (n, 4|5)
        The links (copied); a robot (copied); robots to concatenate (``R1 * R2``); a numeric
        layout (non-DH models); or an RTB DH matrix, one row ``[theta, d, a, alpha(, sigma)]``
        per joint (``convention`` selects standard/modified DH).
    name, manufacturer, comment : str
        Annotations (default name ``"noname"``).
    base, tool : array (4, 4), optional
        Pose of frame 0 in the world frame; pose of the tool in the last link frame.
    gravity : array (3,), optional
        Upward acceleration equivalent to gravity, world frame (m/s^2); default
        ``[0, 0, 9.81]`` (RTB's convention: gravity acts along -z).
    poses : mapping of str to array (n,), optional
        Named joint configurations, e.g. ``{"qz": zeros, "qr": ...}``; also readable as
        attributes (``robot.qr``, a copy) unless the name is a SerialLink attribute.
    convention : {"standard", "modified"}, optional
        Only for the DH-matrix form.
    """

    _CACHED = ("arrays", "kin", "_fast")

    def __init__(self, links=None, *, name: str | None = None, manufacturer: str | None = None,
                 comment: str | None = None, base=None, tool=None, gravity=None,
                 poses: Mapping | None = None, convention: str | None = None) -> None:
        self._poses: dict[str, np.ndarray] = {}
        defaults = dict(name="noname", manufacturer="", comment="", base=np.eye(4),
                        tool=np.eye(4), gravity=np.array([0.0, 0.0, 9.81]))
        if isinstance(links, SerialLink):
            src = links
            link_list = [L.copy() for L in src._links]
            defaults.update(name=src.name, manufacturer=src.manufacturer, comment=src.comment,
                            base=src._base, tool=src._tool, gravity=src._gravity)
            self._poses = {k: v.copy() for k, v in src._poses.items()}
        elif isinstance(links, ArmArrays):
            link_list = _links_from_arrays(links)
            defaults.update(base=links.base, tool=links.tool, gravity=links.gravity)
        elif isinstance(links, Link):
            link_list = [links.copy()]
        elif links is None:
            link_list = []
        elif isinstance(links, Sequence) and links and all(isinstance(x, SerialLink)
                                                           for x in links):
            link_list, extra = self._concatenate(list(links))
            defaults.update(extra)
        elif isinstance(links, Sequence) and all(isinstance(x, Link) for x in links):
            link_list = [L.copy() for L in links]
        else:
            link_list = self._from_dh_matrix(links, convention)
            convention = None
        if convention is not None:
            raise ValueError("SerialLink: convention applies to the DH-matrix form only (links "
                             "carry their own convention)")
        self._links = link_list
        self._check_conventions(self._links)
        self.name = str(defaults["name"] if name is None else name)
        self.manufacturer = str(defaults["manufacturer"] if manufacturer is None
                                else manufacturer)
        self.comment = str(defaults["comment"] if comment is None else comment)
        self._base = _transform(defaults["base"] if base is None else base, "base")
        self._tool = _transform(defaults["tool"] if tool is None else tool, "tool")
        self.gravity = defaults["gravity"] if gravity is None else gravity
        if poses is not None:
            self.poses = poses

    @staticmethod
    def _from_dh_matrix(dh, convention: str | None) -> list[Link]:
        try:
            m = np.asarray(dh, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"SerialLink: expected Links, a SerialLink, SerialLinks to "
                             f"concatenate, an ArmArrays or a DH matrix, got {plain(dh)}") from None
        if m.ndim != 2 or m.shape[1] not in (4, 5):
            raise ValueError(f"SerialLink: a DH matrix has one row [theta, d, a, alpha(, sigma)] "
                             f"per joint, shape (n, 4) or (n, 5); got shape {m.shape}")
        return [Link(row, convention) for row in m]

    @staticmethod
    def _check_conventions(links: list[Link]) -> None:
        kinds = {L.convention for L in links}
        if len(kinds) > 1:
            raise ValueError(f"SerialLink: all links must use one convention (all standard DH, "
                             f"all modified DH or all fixed-transform links); got "
                             f"{[L.convention for L in links]}")

    @staticmethod
    def _concatenate(robots: list[SerialLink]) -> tuple[list[Link], dict]:
        """Links of ``robots`` in series; RTB semantics for DH (inner base/tool dropped)."""
        first, last = robots[0], robots[-1]
        links = [L.copy() for L in first._links]
        for prev, nxt in pairwise(robots):
            new = [L.copy() for L in nxt._links]
            if new and new[0].convention == "transforms":
                # exact: fold prev.tool @ nxt.base into the next link's fixed transform
                joint = prev._tool @ nxt._base @ new[0].pre
                new[0] = Link.from_transforms(joint, new[0].post, sigma=new[0].sigma,
                                              offset=new[0].offset, qlim=new[0].qlim, m=new[0].m,
                                              r=new[0].r, I=new[0].I, Jm=new[0].Jm, G=new[0].G,
                                              B=new[0].B, Tc=new[0].Tc)
            links += new
        extra = dict(name="*".join(r.name for r in robots), base=first._base, tool=last._tool,
                     gravity=first._gravity, manufacturer=first.manufacturer)
        return links, extra

    # -------------------------------------------------------------------------- value semantics
    def copy(self) -> SerialLink:
        """An independent deep copy (links, transforms, gravity, poses)."""
        return SerialLink(self)

    def _changed(self) -> None:
        """Drop the cached numeric layouts (called by every setter)."""
        d = self.__dict__
        for key in self._CACHED:
            d.pop(key, None)

    @cached_property
    def arrays(self) -> ArmArrays:
        """The :class:`~.layout.ArmArrays` of the current parameters (cached; read-only)."""
        links = self._links
        n = len(links)
        A = np.empty((n, 4, 4))
        B = np.empty((n, 4, 4))
        for i, L in enumerate(links):
            A[i], B[i] = L.fixed_transforms()
        return ArmArrays(
            sigma=np.array([L.sigma for L in links], dtype=np.int64),
            offset=np.array([L.offset for L in links], dtype=float),
            A=A, B=B, base=self._base.copy(), tool=self._tool.copy(),
            dyn=np.ascontiguousarray(np.array([L.dyn_row() for L in links]).reshape(n, 15)),
            gravity=self._gravity.copy(),
            qlim=np.array([L.qlim for L in links], dtype=float).reshape(n, 2))

    @cached_property
    def kin(self) -> np.ndarray:
        """The packed kinematics vector of :mod:`~.kinematics` (cached; read-only)."""
        return _kin.pack_kinematics(self.arrays)

    # ------------------------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        """Number of joints."""
        return len(self._links)

    @property
    def config(self) -> str:
        """Joint types in order, e.g. ``"RRRRRR"`` or ``"RRPRRR"``."""
        return "".join(L.jointtype for L in self._links)

    @property
    def convention(self) -> str:
        """``"standard"``, ``"modified"`` or ``"transforms"`` (non-DH model)."""
        return self._links[0].convention if self._links else "standard"

    @property
    def mdh(self) -> bool:
        """True for modified DH (raises ValueError for a non-DH model)."""
        if self.convention == "transforms":
            raise ValueError(f"SerialLink {plain(self.name)} is not a DH model (fixed-transform "
                             f"links); mdh is not defined")
        return self.convention == "modified"

    def _dh(self, name: str) -> np.ndarray:
        if self.convention == "transforms":
            raise ValueError(f"SerialLink {plain(self.name)} is not a DH model (built from fixed "
                             f"transforms / product of exponentials); {name} is not defined")
        return np.array([getattr(L, name) for L in self._links], dtype=float)

    @property
    def theta(self) -> np.ndarray:
        """DH joint angles (rad), (n,); the joint variable replaces them for revolute joints."""
        return self._dh("theta")

    @property
    def d(self) -> np.ndarray:
        """DH link offsets (m), (n,)."""
        return self._dh("d")

    @property
    def a(self) -> np.ndarray:
        """DH link lengths (m), (n,)."""
        return self._dh("a")

    @property
    def alpha(self) -> np.ndarray:
        """DH link twists (rad), (n,)."""
        return self._dh("alpha")

    @property
    def offset(self) -> np.ndarray:
        """Joint offsets (rad or m), (n,), added to q before kinematics and dynamics."""
        return np.array([L.offset for L in self._links], dtype=float)

    @offset.setter
    def offset(self, value) -> None:
        v = np.asarray(value, dtype=float).ravel()
        if v.shape != (self.n,):
            raise ValueError(f"SerialLink: offset must have {self.n} elements, got {v.shape}")
        for L, x in zip(self._links, v):
            L.offset = x
        self._changed()

    @property
    def qlim(self) -> np.ndarray:
        """Joint limits ``[min, max]`` per joint, (n, 2); ``-inf, inf`` where not set."""
        return np.array([L.qlim for L in self._links], dtype=float).reshape(self.n, 2)

    @qlim.setter
    def qlim(self, value) -> None:
        v = np.asarray(value, dtype=float)
        if v.shape != (self.n, 2):
            raise ValueError(f"SerialLink: qlim must have shape ({self.n}, 2), got {v.shape}")
        for L, row in zip(self._links, v):
            L.qlim = row
        self._changed()

    @property
    def links(self) -> tuple[Link, ...]:
        """Copies of the links (editing them does not change the robot; use ``set_link``)."""
        return tuple(L.copy() for L in self._links)

    @links.setter
    def links(self, value: Sequence[Link]) -> None:
        new = [L.copy() for L in value]
        if not all(isinstance(L, Link) for L in new):
            raise ValueError("SerialLink.links: expected a sequence of Link")
        self._check_conventions(new)
        if len(new) != self.n:
            self._poses = {}
        self._links = new
        self._changed()

    def set_link(self, j: int, link: Link) -> None:
        """Replace link ``j`` (0-based) by a copy of ``link`` (same convention as the others)."""
        if not isinstance(link, Link):
            raise ValueError(f"SerialLink.set_link: expected a Link, got {type(link).__name__}")
        new = list(self._links)
        new[j] = link.copy()
        self._check_conventions(new)
        self._links = new
        self._changed()

    @property
    def base(self) -> np.ndarray:
        """Pose of frame 0 in the world frame, (4, 4), a copy."""
        return self._base.copy()

    @base.setter
    def base(self, value) -> None:
        self._base = _transform(value, "base")
        self._changed()

    @property
    def tool(self) -> np.ndarray:
        """Pose of the tool in the last link frame, (4, 4), a copy."""
        return self._tool.copy()

    @tool.setter
    def tool(self, value) -> None:
        self._tool = _transform(value, "tool")
        self._changed()

    @property
    def gravity(self) -> np.ndarray:
        """Upward acceleration equivalent to gravity, world frame (m/s^2), (3,), a copy."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value) -> None:
        v = np.array(value, dtype=float).ravel()
        if v.shape != (3,) or not np.all(np.isfinite(v)):
            raise ValueError(f"SerialLink: gravity must be a finite 3-vector, got {plain(value)}")
        self._gravity = v
        self._changed()

    @property
    def poses(self) -> dict[str, np.ndarray]:
        """Named joint configurations (a copy of the dict)."""
        return {k: v.copy() for k, v in self._poses.items()}

    @poses.setter
    def poses(self, value: Mapping) -> None:
        new = {}
        for key, q in dict(value).items():
            v = np.array(q, dtype=float).ravel()
            if v.shape != (self.n,):
                raise ValueError(f"SerialLink: pose {key!r} must have {self.n} elements, "
                                 f"got {v.shape}")
            new[str(key)] = v
            _NamedPose.install(str(key))
        self._poses = new


    def islimit(self, q) -> np.ndarray:
        """Per joint: -1 below the lower limit, +1 above the upper limit, else 0; int (n,)."""
        v = self._q1(q)
        lim = self.qlim
        return np.where(v < lim[:, 0], -1, np.where(v > lim[:, 1], 1, 0)).astype(int)

    def A(self, j, q) -> np.ndarray:
        """Transform from frame ``j`` to frame ``j + 1`` (0-based joint ``j``) for ``q``.

        ``j`` may be a list of consecutive joints with one ``q`` each: the product of their
        link transforms. Base and tool are not applied.
        """
        js = [j] if np.ndim(j) == 0 else list(j)
        qs = np.atleast_1d(np.asarray(q, dtype=float))
        if len(qs) != len(js):
            raise ValueError(f"SerialLink.A: need one q per joint in {js}, got {len(qs)}")
        T = np.eye(4)
        for jj, qq in zip(js, qs):
            T = T @ self._links[int(jj)].A(qq)
        return T

    # ------------------------------------------------------------------------------ kinematics
    def _q1(self, q) -> np.ndarray:
        v = _fc.as_f64(q)  # one compiled type for every input (see fast_calls)
        if v.shape != (self.n,):
            raise ValueError(f"SerialLink {plain(self.name)}: q must have shape ({self.n},), "
                             f"got {v.shape}")
        return v

    def _qs(self, q) -> np.ndarray:
        v = _fc.as_f64(q)
        if v.ndim not in (1, 2) or v.shape[-1] != self.n:
            raise ValueError(f"SerialLink {plain(self.name)}: q must have shape ({self.n},) or "
                             f"(m, {self.n}) for a trajectory, got {v.shape}")
        return v

    def fkine(self, q, all: bool = False) -> np.ndarray:
        """Forward kinematics: end-effector pose ``base @ A1(q1) ... An(qn) @ tool``.

        Parameters
        ----------
        q : array (n,) or (m, n)
            Joint coordinates (rad or m; offsets are added); rows of a trajectory.
        all : bool
            Return the poses of frames 0..n instead (frame 0 = base, frame i = link frame i,
            without the tool): shape (n + 1, 4, 4), or (m, n + 1, 4, 4) for a trajectory.

        Returns
        -------
        T : array (4, 4), or (m, 4, 4) for a trajectory; world frame, SI units.
        """
        if q.__class__ is _ND and q.dtype is _F64 and q.ndim == 1 and q.flags.carray:
            if all:
                return _kin.fkine_all(self.kin, q)
            return _kin.fkine(self.kin, q)
        v = self._qs(q)
        if v.ndim == 2:
            if all:
                return np.array([_kin.fkine_all(self.kin, row) for row in v]).reshape(
                    v.shape[0], self.n + 1, 4, 4)
            return _kin.fkine_traj(self.kin, v)
        return _kin.fkine_all(self.kin, v) if all else _kin.fkine(self.kin, v)

    def jacob0(self, q, out=None) -> np.ndarray:
        """Geometric Jacobian in the world frame, (6, n): ``[v; omega] = J @ qd``.

        ``v`` is the velocity of the end-effector (tool) origin, ``omega`` the angular velocity.
        ``out``: a float64 (6, n) array to write the result into (saves the allocation).
        """
        q = self._q1(q)  # converted once, a (n,) vector (see fast_calls)
        P, _, _, shape = self._fast or self._fast_params()
        if out is None or (out.__class__ is _ND and out.dtype is _F64 and out.flags.carray
                           and out.shape == shape):
            J = _empty(shape) if out is None else out
            _FAST.jacob0(P, q, J)
            return J
        res = _kin.jacobian(self.kin, q, False)
        if out is None:
            return res
        if not isinstance(out, _ND) or out.shape != res.shape:
            raise ValueError(f"jacob0: out must be an array of shape {res.shape}")
        out[...] = res
        return out

    def jacobe(self, q) -> np.ndarray:
        """Geometric Jacobian in the end-effector (tool) frame, (6, n), rows ``[v; omega]``."""
        if not (q.__class__ is _ND and q.dtype is _F64 and q.ndim == 1
                and q.flags.carray):
            q = self._q1(q)
        return _kin.jacobian(self.kin, q, True)

    jacobn = jacobe

    def jacob_dot(self, q, qd) -> np.ndarray:
        """``Jdot(q, qd) @ qd`` in the world frame, (6,): ``xdd = jacob0(q) @ qdd + jacob_dot``."""
        return _kin.jacob_dot(self.kin, self._q1(q), self._q1(qd))

    def manipulability(self, q, method: str = "yoshikawa", axes: str = "T", dof=None):
        """Manipulability index at ``q`` (n,), or per row of a trajectory (m, n).

        Parameters
        ----------
        method : {"yoshikawa", "asada"}
            Yoshikawa: ``sqrt(det(J J^T))`` of the selected rows of ``jacob0``. Asada: ratio of
            the smallest to the largest eigenvalue of the Cartesian inertia
            ``pinv(J)^T M(q) pinv(J)`` restricted to the selected rows (needs ``inertia``).
        axes : {"T", "R", "all"}
            Translational rows (default, as RTB), rotational rows or all six.
        dof : array (6,), optional
            Non-zero entries select rows; overrides ``axes``.
        """
        if dof is not None:
            rows = np.flatnonzero(np.asarray(dof, dtype=float).ravel())
        elif axes in ("T", "R", "all"):
            rows = {"T": np.arange(3), "R": np.arange(3, 6), "all": np.arange(6)}[axes]
        else:
            raise ValueError(f"manipulability: axes must be 'T', 'R' or 'all', got {axes!r}")
        if method not in ("yoshikawa", "asada"):
            raise ValueError(f"manipulability: method must be 'yoshikawa' or 'asada', "
                             f"got {method!r}")
        if method == "asada" and not hasattr(self, "inertia"):
            raise ValueError("manipulability: the Asada measure needs robot.inertia(q) "
                             "(the dynamics methods)")
        v = self._qs(q)
        out = np.array([self._manip(row, method, rows) for row in np.atleast_2d(v)])
        return float(out[0]) if v.ndim == 1 else out

    def _manip(self, q: np.ndarray, method: str, rows: np.ndarray) -> float:
        J = _kin.jacobian(self.kin, q, False)
        if method == "yoshikawa":
            Jr = J[rows]
            return float(np.sqrt(max(np.linalg.det(Jr @ Jr.T), 0.0)))
        Ji = np.linalg.pinv(J)
        Mx = Ji.T @ self.inertia(q) @ Ji
        e = np.linalg.eigvalsh(0.5 * (Mx + Mx.T)[np.ix_(rows, rows)])
        return float(e[0] / e[-1]) if e[-1] > 0 else 0.0

    def ikine(self, T, q0=None, mask=None, ilimit: int = 500, tol: float = 1e-10,
              joint_limits: bool = True, **options):
        """Numerical inverse kinematics (Levenberg–Marquardt); see :func:`~.ikine.ikine`."""
        from .ikine import ikine
        return ikine(self, T, q0=q0, mask=mask, ilimit=ilimit, tol=tol,
                     joint_limits=joint_limits, **options)

    def ikine6s(self, T, config: str = "lun"):
        """Analytic inverse kinematics of a 6-axis arm with a spherical wrist (Puma or
        Stanford structure); ``config`` letters l/r, u/d, n/f. See :func:`~.ikine6s.ikine6s`."""
        from .ikine6s import ikine6s
        return ikine6s(self, T, config)

    def arm_config(self, q) -> str:
        """The configuration string ('lun', 'rdf', ...) of joint coordinates ``q`` (6,)."""
        from .ikine6s import arm_config
        return arm_config(self, q)

    # --------------------------------------------------------------------------------- display
    def __mul__(self, other):
        """``R1 * R2``: the series connection (see :meth:`_concatenate`)."""
        if isinstance(other, SerialLink):
            return SerialLink([self, other])
        return NotImplemented

    def __repr__(self) -> str:
        head = (f"SerialLink {plain(self.name)}" + (f" ({self.manufacturer})" if self.manufacturer
                                               else "")
                + f": {self.n} joints ({self.config}), {self.convention}"
                + (f"; {self.comment}" if self.comment else ""))
        rows = [head]
        if self.convention == "transforms":
            rows.append("  links given by fixed transforms (product of exponentials / non-DH)")
        else:
            rows.append(f"  {'j':>2} {'theta':>10} {'d':>10} {'a':>10} {'alpha':>10} "
                        f"{'offset':>10}")
            for j, L in enumerate(self._links):
                th = f"q{j + 1}" if L.sigma == 0 else f"{L.theta:.6g}"
                dd = f"q{j + 1}" if L.sigma == 1 else f"{L.d:.6g}"
                rows.append(f"  {j + 1:>2} {th:>10} {dd:>10} {L.a:>10.6g} {L.alpha:>10.6g} "
                            f"{L.offset:>10.6g}")
        rows.append(f"  gravity = {self._gravity.tolist()}")
        for name, T in (("base", self._base), ("tool", self._tool)):
            if not np.array_equal(T, np.eye(4)):
                rows.append(f"  {name} = {np.round(T, 6).tolist()}")
        if self._poses:
            rows.append(f"  poses: {', '.join(self._poses)}")
        return "\n".join(rows)

    def dyn(self, j=None) -> str:
        """Dynamic parameters of all links (or of link ``j``, 0-based) as readable text."""
        js = range(self.n) if j is None else [j]
        return "\n".join(f"link {i + 1}: {self._links[i].dyn()}" for i in js)
