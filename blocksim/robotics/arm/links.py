"""Links of a serial-link arm: kinematic (DH) and dynamic (inertial, motor, friction) parameters.

Follows the Robotics Toolbox (RTB 9.10 ``Link``, RTB 10 ``Link``). A link
is a value object: :meth:`Link.copy` gives an independent copy and a :class:`SerialLink` always
keeps its own copies, so editing a link you hold never changes a robot behind your back.

Constructor forms (``L = Link(...)``)
-------------------------------------
* ``Link()``: revolute, standard DH, all parameters zero, ``G = 1``.
* ``Link(other)``: a copy of ``other`` as a plain :class:`Link` (RTB: the copy has type Link).
* Keywords ``Link(d=1.2, a=0.3, alpha=pi/2, ...)``: giving ``d`` makes a **revolute** joint
  (theta is the joint variable), giving ``theta`` makes a **prismatic** joint (d is the joint
  variable); giving both is an error. ``jointtype="R"|"P"`` (or ``sigma=0|1``) states the type
  explicitly; ``convention="standard"`` (default) or ``"modified"``.
* RTB vector ``Link([theta, d, a, alpha(, sigma(, offset))], "standard"|"modified")`` (old syntax,
  RTB 10), and the RTB-10 dynamics row of 15..20 elements ``[theta d a alpha sigma m rx ry rz
  Ixx Iyy Izz Ixy Iyz Ixz (Jm (G (B (Tc+ Tc-))))]`` (kinematics in **theta, d, a, alpha** order,
  unlike the Scilab DYN matrix; see :mod:`blocksim.robotics.arm.convert` for that one).
* :meth:`Link.from_transforms` for links that are not DH (product of exponentials, URDF-like):
  ``pre @ J(q + offset) @ post`` with J a rotation about / translation along z.
* :class:`Revolute`, :class:`Prismatic` (standard DH) and :class:`RevoluteMDH`,
  :class:`PrismaticMDH` (modified DH) take the keywords except the joint variable.

Units: SI, radians. Dynamic parameters: ``m`` (kg), ``r`` centre of mass in the link frame (m),
``I`` inertia about the centre of mass in link-frame axes (kg m^2, symmetric 3x3; given as 3x3,
``[Ixx, Iyy, Izz]`` or ``[Ixx, Iyy, Izz, Ixy, Iyz, Ixz]``), motor-referred ``Jm`` (kg m^2),
viscous ``B`` (N m s/rad) and Coulomb ``Tc = [Tc+, Tc-]`` (N m, ``Tc+ >= 0 >= Tc-``; a scalar
``F`` means ``[F, -F]``), gear ratio ``G`` (motor speed / joint speed, default 1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from blocksim._messages import plain

from .layout import dh_fixed, rotz, trans

__all__ = ["Link", "Prismatic", "PrismaticMDH", "Revolute", "RevoluteMDH", "inertia_matrix"]

_CONVENTIONS = {"standard": False, "std": False, "dh": False,
                "modified": True, "mod": True, "mdh": True}
_JOINTTYPES = {"r": 0, "revolute": 0, "p": 1, "prismatic": 1}
_KEYWORDS = ("theta", "d", "a", "alpha", "sigma", "jointtype", "offset", "qlim", "m", "r", "I",
             "B", "Tc", "G", "Jm")


def _float(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"Link: {name} must be a real number, got {plain(value)}") from None
    if not np.isfinite(v):
        raise ValueError(f"Link: {name} must be finite, got {v}")
    return v


def inertia_matrix(I, name: str = "I") -> np.ndarray:  # noqa: E741
    """A symmetric 3x3 inertia matrix (kg m^2) from any of RTB's three forms.

    Parameters
    ----------
    I : array_like
        3x3 symmetric matrix, ``[Ixx, Iyy, Izz]`` (diagonal) or ``[Ixx, Iyy, Izz, Ixy, Iyz, Ixz]``
        (the tensor entries, so ``I[0, 1] = Ixy``).
    """
    v = np.asarray(I, dtype=float)
    if v.shape == (3, 3):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"Link: {name} must be finite, got {v.tolist()}")
        if not np.allclose(v, v.T, rtol=1e-10, atol=1e-12):
            raise ValueError(f"Link: {name} must be a symmetric 3x3 matrix, got {v.tolist()}")
        return 0.5 * (v + v.T)
    v = v.ravel()
    if v.size == 3 and v.ndim == 1:
        return np.diag(v)
    if v.size == 6:
        return np.array([[v[0], v[3], v[5]], [v[3], v[1], v[4]], [v[5], v[4], v[2]]])
    raise ValueError(f"Link: {name} must be a 3x3 matrix, [Ixx, Iyy, Izz] or "
                     f"[Ixx, Iyy, Izz, Ixy, Iyz, Ixz], got shape {np.shape(I)}")


def _coulomb(Tc) -> np.ndarray:
    v = np.asarray(Tc, dtype=float).ravel()
    if v.size == 1:
        v = np.array([v[0], -v[0]])
    if v.size != 2 or not np.all(np.isfinite(v)):
        raise ValueError(f"Link: Tc must be a scalar F (meaning [F, -F]) or [Tc+, Tc-], got "
                         f"{plain(Tc)}")
    if not v[0] >= 0.0 >= v[1]:
        raise ValueError(f"Link: Coulomb friction Tc = [Tc+, Tc-] needs Tc+ >= 0 >= Tc-, "
                         f"got {v.tolist()}")
    return v


def _limits(qlim) -> np.ndarray:
    if qlim is None:
        return np.array([-np.inf, np.inf])
    v = np.asarray(qlim, dtype=float).ravel()
    if v.size != 2 or np.isnan(v).any() or v[0] > v[1]:
        raise ValueError(f"Link: qlim must be [min, max] with min <= max, got {plain(qlim)}")
    return v


def _transform(T, name: str) -> np.ndarray:
    M = np.array(T, dtype=float)
    if M.shape != (4, 4) or not np.all(np.isfinite(M)):
        raise ValueError(f"Link: {name} must be a finite 4x4 homogeneous transform, "
                         f"got shape {M.shape}")
    R = M[:3, :3]
    if not (np.allclose(R @ R.T, np.eye(3), atol=1e-9) and np.allclose(M[3], [0, 0, 0, 1])
            and np.linalg.det(R) > 0):
        raise ValueError(f"Link: {name} is not a rigid-body transform (rotation not orthonormal "
                         f"or last row not [0, 0, 0, 1])")
    return M


def _vec3(r) -> np.ndarray:
    v = np.asarray(r, dtype=float).ravel()
    if v.size != 3 or not np.all(np.isfinite(v)):
        raise ValueError(f"Link: r (centre of mass) must be a finite 3-vector, got {plain(r)}")
    return v.copy()


def _scalar(name: str, doc: str, nonneg: bool = False, dh: bool = False) -> property:
    """A float property stored as ``_name``, validated on assignment."""
    attr = "_" + name

    def fget(self) -> float:
        if dh:
            self._dh_only(name)
        return getattr(self, attr)

    def fset(self, value) -> None:
        if dh:
            self._dh_only(name)
        v = _float(name, value)
        if nonneg and v < 0:
            raise ValueError(f"Link: {name} must be >= 0, got {v}")
        setattr(self, attr, v)

    return property(fget, fset, doc=doc)


def _array(name: str, convert, doc: str) -> property:
    """An array property stored as ``_name``; the getter hands out a copy."""
    attr = "_" + name

    def fget(self) -> np.ndarray:
        return getattr(self, attr).copy()

    def fset(self, value) -> None:
        setattr(self, attr, convert(value))

    return property(fget, fset, doc=doc)


def _same(x, y) -> bool:
    if isinstance(x, tuple) and isinstance(y, tuple):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.array_equal(x, y)
    return x == y


class Link:
    """One joint and the link it moves (see the module docstring for the constructor forms).

    Attributes (read/write properties)
    ----------------------------------
    theta, d, a, alpha : float
        DH parameters (rad, m, m, rad); not available for :meth:`from_transforms` links.
    sigma : int
        0 revolute, 1 prismatic; ``jointtype`` is ``"R"`` or ``"P"``.
    mdh : bool
        True for modified DH; ``convention`` is ``"standard"``, ``"modified"`` or
        ``"transforms"``.
    offset : float
        Added to the joint variable before kinematics (rad or m).
    qlim : ndarray (2,)
        ``[min, max]``; ``[-inf, inf]`` when not set.
    m, r, I, Jm, G, B, Tc : see the module docstring.
    """

    _JOINT: int | None = None
    _MDH: bool | None = None

    def __init__(self, dh=None, convention: str | None = None, *, theta=None, d=None, a=None,
                 alpha=None, sigma=None, jointtype=None, offset=None, qlim=None, m=None, r=None,
                 I=None, B=None, Tc=None, G=None, Jm=None):  # noqa: E741
        kw = dict(theta=theta, d=d, a=a, alpha=alpha, sigma=sigma, jointtype=jointtype,
                  offset=offset, qlim=qlim, m=m, r=r, I=I, B=B, Tc=Tc, G=G, Jm=Jm)
        self._set_defaults()
        if isinstance(dh, Link):
            given = [k for k, v in kw.items() if v is not None]
            if given or convention is not None:
                raise ValueError(f"Link(other) makes a copy; do not give {given or 'convention'}")
            self.__dict__.update(dh.copy().__dict__)
            return
        self._mdh = self._convention(convention)
        if dh is not None:
            self._from_vector(dh, kw)
        else:
            self._from_keywords(kw)

    # ----------------------------------------------------------------------------- construction
    def _set_defaults(self) -> None:
        self._theta = self._d = self._a = self._alpha = 0.0
        self._sigma = 0
        self._mdh = False
        self._fixed: tuple[np.ndarray, np.ndarray] | None = None
        self._offset = 0.0
        self._qlim = np.array([-np.inf, np.inf])
        self._m = 0.0
        self._r = np.zeros(3)
        self._I = np.zeros((3, 3))
        self._Jm = 0.0
        self._G = 1.0
        self._B = 0.0
        self._Tc = np.zeros(2)

    def _convention(self, convention: str | None) -> bool:
        if convention is None:
            return bool(self._MDH) if self._MDH is not None else False
        key = str(convention).lower()
        if key not in _CONVENTIONS:
            raise ValueError(f"Link: convention must be 'standard' or 'modified', "
                             f"got {plain(convention)}")
        if self._MDH is not None and _CONVENTIONS[key] != self._MDH:
            raise ValueError(f"{type(self).__name__}: convention is fixed to "
                             f"{'modified' if self._MDH else 'standard'}")
        return _CONVENTIONS[key]

    def _jointtype(self, sigma, jointtype) -> int | None:
        found = []
        if sigma is not None:
            if sigma not in (0, 1, False, True):
                raise ValueError(f"Link: sigma must be 0 (revolute) or 1 (prismatic), "
                                 f"got {plain(sigma)}")
            found.append(int(sigma))
        if jointtype is not None:
            key = str(jointtype).lower()
            if key not in _JOINTTYPES:
                raise ValueError(f"Link: jointtype must be 'R' (revolute) or 'P' (prismatic), "
                                 f"got {plain(jointtype)}")
            found.append(_JOINTTYPES[key])
        if self._JOINT is not None:
            found.append(self._JOINT)
        if len(set(found)) > 1:
            raise ValueError(f"{type(self).__name__}: conflicting joint types "
                             f"(sigma={plain(sigma)}, "
                             f"jointtype={plain(jointtype)})")
        return found[0] if found else None

    def _from_keywords(self, kw: dict) -> None:
        theta, d = kw["theta"], kw["d"]
        if theta is not None and d is not None:
            raise ValueError("Link: give either theta (prismatic joint: theta is constant and d is "
                             "the joint variable) or d (revolute joint), not both")
        sigma = self._jointtype(kw["sigma"], kw["jointtype"])
        if sigma is None:
            sigma = 1 if theta is not None else 0
        if sigma == 0 and theta is not None:
            raise ValueError(f"{type(self).__name__}: theta is the joint variable of a revolute "
                             f"joint; give d (and a, alpha) instead")
        if sigma == 1 and d is not None:
            raise ValueError(f"{type(self).__name__}: d is the joint variable of a prismatic "
                             f"joint; give theta (and a, alpha) instead")
        self._sigma = sigma
        for name in ("theta", "d", "a", "alpha"):
            if kw[name] is not None:
                setattr(self, "_" + name, _float(name, kw[name]))
        self._set_dynamics(kw)

    def _from_vector(self, dh, kw: dict) -> None:
        for name in ("theta", "d", "a", "alpha"):
            if kw[name] is not None:
                raise ValueError(f"Link: give the DH vector or the keyword {name}, not both")
        try:
            v = np.asarray(dh, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"Link: expected a Link, a DH vector [theta, d, a, alpha(, sigma("
                             f", offset))] or keywords, got {plain(dh)}") from None
        if not (4 <= v.size <= 6 or 15 <= v.size <= 20) or not np.all(np.isfinite(v)):
            raise ValueError(f"Link: a DH vector has 4, 5 or 6 finite elements [theta, d, a, "
                             f"alpha, sigma, offset] (or 15..20 for an RTB-10 dynamics row), "
                             f"got {v.size}: {v.tolist()}")
        self._theta, self._d, self._a, self._alpha = (float(x) for x in v[:4])
        sigma = self._jointtype(kw["sigma"], kw["jointtype"])
        if v.size >= 5:
            if v[4] not in (0.0, 1.0):
                raise ValueError(f"Link: sigma (element 5) must be 0 or 1, got {v[4]}")
            if sigma is not None and sigma != int(v[4]):
                raise ValueError(f"Link: the DH vector says sigma={int(v[4])} but the joint type "
                                 f"given is {'RP'[sigma]}")
            sigma = int(v[4])
        self._sigma = 0 if sigma is None else sigma
        if v.size == 6:
            if kw["offset"] is not None:
                raise ValueError("Link: give the offset in the DH vector or as keyword, not both")
            self._offset = float(v[5])
        if v.size >= 15:
            given = [k for k in ("m", "r", "I", "Jm", "G", "B", "Tc") if kw[k] is not None]
            if given:
                raise ValueError(f"Link: a dynamics row already gives {given}")
            self._m = float(v[5])
            self._r = v[6:9].copy()
            self._I = inertia_matrix(v[9:15])
            self._Jm = float(v[15]) if v.size > 15 else 0.0
            self._G = float(v[16]) if v.size > 16 else 1.0
            self._B = float(v[17]) if v.size > 17 else 0.0
            if v.size > 18:
                self._Tc = _coulomb(v[18:20])
        self._set_dynamics(kw)

    def _set_dynamics(self, kw: dict) -> None:
        if kw["offset"] is not None:
            self.offset = kw["offset"]
        if kw["qlim"] is not None:
            self.qlim = kw["qlim"]
        for name in ("m", "r", "I", "Jm", "G", "B", "Tc"):
            if kw[name] is not None:
                setattr(self, name, kw[name])

    @classmethod
    def from_transforms(cls, pre, post=None, *, sigma: int = 0, offset: float = 0.0,
                        qlim=None, m: float = 0.0, r=None, I=None, Jm: float = 0.0,  # noqa: E741
                        G: float = 1.0, B: float = 0.0, Tc=0.0) -> Link:
        """A link given by constant transforms: ``A(q) = pre @ J(q + offset) @ post``.

        Used for product-of-exponentials and other non-DH models. ``J`` is ``rotz`` (revolute,
        ``sigma = 0``) or ``transz`` (prismatic, ``sigma = 1``); the joint axis is the z axis of
        ``pre`` and the link body (m, r, I) is attached after ``post``.

        Parameters
        ----------
        pre, post : array (4, 4)
            Rigid transforms; ``post`` defaults to the identity.
        """
        link = Link.__new__(Link)
        link._set_defaults()
        link._fixed = (_transform(pre, "pre"), np.eye(4) if post is None
                       else _transform(post, "post"))
        link._sigma = link._jointtype(sigma, None)
        link._set_dynamics(dict(offset=offset, qlim=qlim, m=m, r=r, I=I, Jm=Jm, G=G, B=B, Tc=Tc))
        return link

    def copy(self) -> Link:
        """An independent copy (same class)."""
        new = object.__new__(type(self))
        for key, value in self.__dict__.items():
            if isinstance(value, np.ndarray):
                value = value.copy()
            elif key == "_fixed" and value is not None:
                value = (value[0].copy(), value[1].copy())
            new.__dict__[key] = value
        return new

    # ----------------------------------------------------------------------------- kinematics
    def _dh_only(self, name: str) -> None:
        if self._fixed is not None:
            raise ValueError(f"Link: {name} is not defined for a link given by fixed transforms "
                             f"(product of exponentials / non-DH model); use pre/post")

    theta = _scalar("theta", "DH joint angle (rad); q replaces it for a revolute joint.", dh=True)
    d = _scalar("d", "DH link offset (m); q replaces it for a prismatic joint.", dh=True)
    a = _scalar("a", "DH link length (m).", dh=True)
    alpha = _scalar("alpha", "DH link twist (rad).", dh=True)

    @property
    def sigma(self) -> int:
        """0 for a revolute joint, 1 for a prismatic joint."""
        return self._sigma

    @sigma.setter
    def sigma(self, value) -> None:
        if type(self)._JOINT is not None:
            raise ValueError(f"{type(self).__name__}: the joint type is fixed")
        self._sigma = self._jointtype(value, None)

    @property
    def jointtype(self) -> str:
        """``"R"`` (revolute) or ``"P"`` (prismatic)."""
        return "RP"[self._sigma]

    def isrevolute(self) -> bool:
        """True for a revolute joint."""
        return self._sigma == 0

    def isprismatic(self) -> bool:
        """True for a prismatic joint."""
        return self._sigma == 1

    @property
    def mdh(self) -> bool:
        """True for modified DH (Craig), False for standard DH."""
        self._dh_only("mdh")
        return self._mdh

    @mdh.setter
    def mdh(self, value: bool) -> None:
        self._dh_only("mdh")
        if type(self)._MDH is not None and bool(value) != type(self)._MDH:
            raise ValueError(f"{type(self).__name__}: the convention is fixed")
        self._mdh = bool(value)

    @property
    def convention(self) -> str:
        """``"standard"``, ``"modified"`` or ``"transforms"`` (non-DH)."""
        if self._fixed is not None:
            return "transforms"
        return "modified" if self._mdh else "standard"

    @property
    def pre(self) -> np.ndarray:
        """The constant transform before the joint motion, (4, 4) (see the layout module)."""
        return self.fixed_transforms()[0]

    @property
    def post(self) -> np.ndarray:
        """The constant transform after the joint motion, (4, 4)."""
        return self.fixed_transforms()[1]

    def fixed_transforms(self) -> tuple[np.ndarray, np.ndarray]:
        """``(pre, post)`` with ``A(q) = pre @ J(q + offset) @ post``, each (4, 4), new arrays."""
        if self._fixed is not None:
            return self._fixed[0].copy(), self._fixed[1].copy()
        return dh_fixed(self._theta, self._d, self._a, self._alpha, self._sigma, self._mdh)

    def A(self, q: float) -> np.ndarray:
        """The link transform for joint variable ``q`` (rad or m), (4, 4).

        Standard DH: from frame i-1 to frame i; modified DH: from frame i-1 to frame i as well
        (Craig's order ``Rx(alpha) Tx(a) Rz(theta) Tz(d)``). The offset is added to ``q``.
        """
        pre, post = self.fixed_transforms()
        v = _float("q", q) + self._offset
        J = rotz(v) if self._sigma == 0 else trans(0.0, 0.0, v)
        return pre @ J @ post

    offset = _scalar("offset", "Joint variable offset (rad or m), added before kinematics.")
    qlim = _array("qlim", _limits, "Joint limits [min, max] (rad or m); [-inf, inf] if unset.")

    def islimit(self, q: float) -> int:
        """-1 if ``q`` is below the lower limit, +1 if above the upper limit, else 0."""
        v = _float("q", q)
        return -1 if v < self._qlim[0] else (1 if v > self._qlim[1] else 0)

    # ------------------------------------------------------------------------------- dynamics
    m = _scalar("m", "Link mass (kg).", nonneg=True)
    r = _array("r", _vec3, "Centre of mass in the link frame (m), (3,).")
    I = _array("I", inertia_matrix,  # noqa: E741
               "Inertia about the centre of mass in link-frame axes (kg m^2), (3, 3).")
    Jm = _scalar("Jm", "Motor inertia, motor referred (kg m^2).", nonneg=True)
    G = _scalar("G", "Gear ratio (motor speed / joint speed); negative for a reversing gear.")
    B = _scalar("B", "Viscous friction, motor referred (N m s/rad).", nonneg=True)
    Tc = _array("Tc", _coulomb, "Coulomb friction [Tc+, Tc-], motor referred (N m).")

    def friction(self, qd):
        """Joint friction force/torque at the gearbox output for joint velocity ``qd``.

        ``f = -|G| (B |G| qd + Tc+)`` for ``qd > 0``, ``Tc-`` instead of ``Tc+`` for ``qd < 0``
        and no Coulomb term at ``qd = 0``. It opposes the motion (negative for ``qd > 0``): add
        it to the motor torque. Returns a float for a scalar ``qd``, else an array.
        """
        v = np.asarray(qd, dtype=float)
        g = abs(self._G)
        coulomb = np.where(v > 0, self._Tc[0], np.where(v < 0, self._Tc[1], 0.0))
        f = -g * (self._B * g * v + coulomb)
        return float(f) if f.ndim == 0 else f

    def nofriction(self, which: str = "coulomb") -> Link:
        """A copy with friction removed: ``"coulomb"`` (default), ``"viscous"`` or ``"all"``."""
        if which not in ("coulomb", "viscous", "all"):
            raise ValueError(f"Link.nofriction: which must be 'coulomb', 'viscous' or 'all', "
                             f"got {which!r}")
        new = self.copy()
        if which in ("coulomb", "all"):
            new._Tc = np.zeros(2)
        if which in ("viscous", "all"):
            new._B = 0.0
        return new

    def dyn_row(self) -> np.ndarray:
        """The dynamics of this link as one row of ``layout.DYN_COLUMNS``, (15,)."""
        I = self._I  # noqa: E741
        return np.array([self._m, *self._r, I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[1, 2], I[0, 2],
                         self._Jm, self._G, self._B, self._Tc[0], self._Tc[1]])

    # ------------------------------------------------------------------------------- display
    def _kinematic_text(self) -> list[str]:
        if self._fixed is not None:
            return [f"sigma={self._sigma}", "pre=..., post=..."]
        parts = []
        for name in ("theta", "d", "a", "alpha"):
            variable = (name == "theta") if self._sigma == 0 else (name == "d")
            if not variable and getattr(self, "_" + name) != 0.0:
                parts.append(f"{name}={getattr(self, '_' + name):.6g}")
        return parts

    def __repr__(self) -> str:
        cls = type(self).__name__
        parts = self._kinematic_text()
        if cls == "Link" and self._fixed is None:
            parts.append(f"jointtype={plain(self.jointtype)}")
            if self._mdh:
                parts.append("convention='modified'")
        if self._offset:
            parts.append(f"offset={self._offset:.6g}")
        if np.isfinite(self._qlim).any():
            parts.append(f"qlim=[{self._qlim[0]:.6g}, {self._qlim[1]:.6g}]")
        if self._m:
            parts.append(f"m={self._m:.6g}")
        if self._fixed is not None:
            return f"Link.from_transforms({', '.join(parts)})"
        return f"{cls}({', '.join(parts)})"

    def dyn(self) -> str:
        """The dynamic parameters as readable text (RTB ``Link.dyn``)."""
        g = self._G
        rows = [repr(self),
                f"  m    = {self._m:.6g} kg",
                f"  r    = [{', '.join(f'{x:.6g}' for x in self._r)}] m",
                "  I    = " + "\n         ".join(
                    "[" + ", ".join(f"{x:10.4g}" for x in row) + "]" for row in self._I)
                + " kg m^2",
                f"  Jm   = {self._Jm:.6g} kg m^2 (motor), G = {g:.6g}",
                f"  B    = {self._B:.6g} N m s/rad (motor), Tc = [{self._Tc[0]:.6g}, "
                f"{self._Tc[1]:.6g}] N m (motor)",
                f"  qlim = [{self._qlim[0]:.6g}, {self._qlim[1]:.6g}]"]
        return "\n".join(rows)

    def __str__(self) -> str:
        return repr(self)

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(v, other.__dict__[k]) for k, v in self.__dict__.items())

    __hash__ = None  # mutable

    def __add__(self, other):
        """``L1 + L2`` is a :class:`~.serial_link.SerialLink` of copies of both links."""
        from .serial_link import SerialLink
        if isinstance(other, Link):
            return SerialLink([self, other])
        if isinstance(other, Sequence) and all(isinstance(x, Link) for x in other):
            return SerialLink([self, *other])
        return NotImplemented


class _Fixed(Link):
    """A Link subclass with a fixed joint type and convention (keywords only)."""

    def __init__(self, *, theta=None, d=None, a=None, alpha=None, offset=None, qlim=None, m=None,
                 r=None, I=None, B=None, Tc=None, G=None, Jm=None):  # noqa: E741
        variable = "theta" if self._JOINT == 0 else "d"
        if (theta if self._JOINT == 0 else d) is not None:
            constant = "d" if self._JOINT == 0 else "theta"
            raise ValueError(f"{type(self).__name__}: {variable} is the joint variable; give "
                             f"{constant}, a, alpha (the constant parameters)")
        super().__init__(theta=theta, d=d, a=a, alpha=alpha, offset=offset, qlim=qlim, m=m, r=r,
                         I=I, B=B, Tc=Tc, G=G, Jm=Jm)


class Revolute(_Fixed):
    """A revolute joint, standard DH: ``Revolute(d=, a=, alpha=, offset=, qlim=, m=, ...)``."""

    _JOINT = 0
    _MDH = False


class Prismatic(_Fixed):
    """A prismatic joint, standard DH: ``Prismatic(theta=, a=, alpha=, offset=, qlim=, ...)``."""

    _JOINT = 1
    _MDH = False


class RevoluteMDH(_Fixed):
    """A revolute joint, modified DH (Craig)."""

    _JOINT = 0
    _MDH = True


class PrismaticMDH(_Fixed):
    """A prismatic joint, modified DH (Craig)."""

    _JOINT = 1
    _MDH = True

