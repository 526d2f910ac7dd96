"""The dynamics methods of :class:`~blocksim.robotics.arm.serial_link.SerialLink` (a mixin).

Robotics Toolbox names and semantics (RTB 9.10 ``SerialLink``): ``rne``, ``inertia``, ``coriolis``,
``gravload``, ``itorque``, ``friction``, ``nofriction``, ``accel``, ``cinertia``, ``fdyn``.
Joint vectors are (n,) arrays; where RTB accepts a trajectory, (m, n) arrays (one row per
point) give (m, n) results, and (m, n, n) for ``inertia``/``coriolis`` (RTB's N x N x K).

The methods are thin: a float64 C-contiguous writable input goes to the numba kernels of
:mod:`blocksim.robotics.arm.dynamics` without a copy, anything else is converted once
(:func:`~.fast_calls.as_f64`: never a failed numba dispatch, never a new compiled type), and
the kernels check the sizes. The
host class provides ``arrays`` (:class:`~blocksim.robotics.arm.layout.ArmArrays`), ``n``,
``kin`` (the packed kinematics of ``arrays``,
:func:`~blocksim.robotics.arm.kinematics.pack_kinematics`), ``jacob0(q)`` (for
:meth:`~DynamicsMethods.cinertia`) and, for :meth:`~DynamicsMethods.nofriction`, ``links``
(Link objects with ``nofriction``) and ``copy()``.

Units: SI; q in rad (revolute) or m (prismatic); torques in N m, forces in N.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .dynamics import accel_nb, cinertia_from, coriolis_nb, fdyn, friction_nb, inertia_nb, rne_nb
from .fast_calls import FAST, as_f64, pack_dynamics

__all__ = ["DynamicsMethods"]

_F64 = np.dtype(np.float64)        # a dtype object: the cheapest form for ascontiguousarray
_ZERO3 = np.zeros(3)
_ZERO6 = np.zeros(6)
_ZERO16 = np.zeros((1, 6))
_ND = np.ndarray
_empty = np.empty
_FAST = FAST
_asc = as_f64


def _carray(o, shape: tuple) -> bool:
    """Whether ``o`` can take a fast kernel's result (float64, C-contiguous, writable, of
    ``shape``; else the general path says what is wrong with it)."""
    return o.__class__ is _ND and o.dtype is _F64 and o.flags.carray and o.shape == shape


def _vector(x, size: int, name: str) -> np.ndarray:
    v = _asc(x).reshape(-1)
    if v.shape[0] != size:
        raise ValueError(f"{name}: expected {size} elements, got shape {np.shape(x)}")
    return v


def _split(x, n: int, parts: int, name: str) -> list[np.ndarray]:
    """RTB's concatenated argument ``[q qd ...]`` (parts*n,) or (m, parts*n) -> parts arrays."""
    x = _asc(x)
    if x.ndim not in (1, 2) or x.shape[-1] != parts * n:
        raise ValueError(f"{name}: a single argument must have {parts} x n = {parts * n} "
                         f"columns, got shape {x.shape}")
    return [np.ascontiguousarray(x[..., k * n:(k + 1) * n]) for k in range(parts)]


def _into(out, result: np.ndarray) -> np.ndarray:
    """``result``, or ``out`` holding it (same shape required)."""
    if out is None:
        return result
    if not isinstance(out, np.ndarray) or out.shape != result.shape:
        raise ValueError(f"out: expected an array of shape {result.shape}, got "
                         f"{getattr(out, 'shape', type(out).__name__)}")
    out[...] = result
    return out


def _rows(n: int, *xs: np.ndarray) -> list[np.ndarray]:
    """Arrays of shape (n,) or (m, n) as a common (m, n) (a (n,) row is repeated)."""
    for x in xs:
        if x.ndim not in (1, 2) or x.shape[-1] != n:
            raise ValueError(f"expected joint arrays of shape ({n},) or (m, {n}), got "
                             f"{[x.shape for x in xs]}")
    m = max(x.shape[0] if x.ndim == 2 else 1 for x in xs)
    out = []
    for x in xs:
        if x.ndim == 1 or x.shape[0] != m:
            if x.ndim == 2 and x.shape[0] != 1:
                raise ValueError(f"trajectory arrays have different numbers of rows: "
                                 f"{[x.shape for x in xs]}")
            x = np.repeat(x.reshape(1, n), m, axis=0)       # a writable copy
        out.append(x)
    return out


def _wrenches(fext, m: int) -> np.ndarray:
    """fext None, (6,), (1, 6) or (m, 6) -> (1 | m, 6)."""
    if fext is None:
        return _ZERO16
    f = _asc(fext)
    if f.ndim > 2 or f.shape[-1] != 6 or (f.ndim == 2 and f.shape[0] not in (1, m)):
        raise ValueError(f"fext: expected shape (6,), (1, 6) or ({m}, 6), got {f.shape}")
    return f.reshape(-1, 6)


class DynamicsMethods:
    """Inverse and forward dynamics of a serial-link arm (mixin; see the module docstring)."""

    #: :meth:`_fast_params`, stored on the instance by the first fast call (a plain attribute:
    #: CPython reads it faster than a ``cached_property``); a host that caches
    #: ``arrays``/``kin`` deletes it with them, which brings back this None
    _fast: tuple | None = None

    def _fast_params(self) -> tuple:
        """What the one-configuration fast paths need, stored as ``self._fast``: the packed
        parameters (:func:`~.fast_calls.pack_dynamics`), n and the output shapes (n, n) and
        (6, n)."""
        a = self.arrays
        n = int(self.kin[0])
        self._fast = (pack_dynamics(self.kin, a.dyn, a.gravity), n, (n, n), (6, n))
        return self._fast

    def rne(self, q, qd=None, qdd=None, gravity=None, fext=None, out=None) -> np.ndarray:
        """Inverse dynamics by recursive Newton–Euler: the joint torques/forces for a motion.

        ``rne(q, qd, qdd)`` or RTB's ``rne(x)`` with ``x = [q qd qdd]``.

        Parameters
        ----------
        q, qd, qdd : array, shape (n,) or (m, n)
            Joint coordinates (rad or m), rates and accelerations; (m, n) rows are the points
            of a trajectory (a (n,) argument is used at every row).
        gravity : array (3,), optional
            Upward-equivalent gravity in the world frame (m/s^2), default ``arrays.gravity``
            (``[0, 0, 9.81]``: gravity acts along -z).
        fext : array (6,) or (m, 6), optional
            Wrench ``[fx fy fz mx my mz]`` (N, N m) the end effector exerts on the
            environment, in the tool frame (RTB: link-n frame, equal when tool = I).
        out : array, optional
            Where to write the result (its shape and float64): saves the allocation in loops.

        Returns
        -------
        tau : array, shape (n,) or (m, n)
            ``M qdd + C qd + g - friction(qd) + J_e^T fext`` (N m, N), including rotor
            inertia ``G^2 Jm qdd`` and the torque that overcomes joint friction.
        """
        if qd is None and qdd is None:
            q, qd, qdd = _split(q, self.n, 3, "rne")
        q, qd, qdd = _asc(q), _asc(qd), _asc(qdd)   # once, here (see fast_calls)
        if gravity is None and fext is None and q.ndim == qd.ndim == qdd.ndim == 1:
            P, n, _, _ = self._fast or self._fast_params()
            if out is None or _carray(out, (n,)):
                o = _empty(n) if out is None else out
                _FAST.rne(P, q, qd, qdd, o)     # the kernel checks the sizes
                return o
        a = self.arrays
        g = a.gravity if gravity is None else _vector(gravity, 3, "gravity")
        if q.ndim == 1 and qd.ndim == 1 and qdd.ndim == 1:
            f = _ZERO6 if fext is None else _vector(fext, 6, "fext")
            return _into(out, rne_nb(self.kin, a.dyn, q, qd, qdd, g, f))
        q, qd, qdd = _rows(self.n, q, qd, qdd)
        return _into(out, rne_nb(self.kin, a.dyn, q, qd, qdd, g, _wrenches(fext, q.shape[0])))

    def gravload(self, q, gravity=None) -> np.ndarray:
        """Joint torques that hold the arm still against gravity: ``rne(q, 0, 0)``.

        q (n,) or (m, n); gravity (3,) as :meth:`rne`. Returns the shape of ``q`` (N m, N).
        """
        q = _asc(q)
        z = np.zeros(q.shape)
        return self.rne(q, z, z, gravity)

    def itorque(self, q, qdd) -> np.ndarray:
        """Inertia torque ``M(q) qdd`` (rotor inertia included), (n,) or (m, n) (N m, N)."""
        q = _asc(q)
        return self.rne(q, np.zeros(q.shape), qdd, _ZERO3)

    def friction(self, qd) -> np.ndarray:
        """Joint friction ``-(G^2 B qd + |G| Tc±)`` at the gearbox output (N m, N).

        Negative for ``qd > 0`` (it opposes the motion; ``rne`` adds its negative), no Coulomb
        term at ``qd = 0``. ``qd`` (n,) or (m, n); the result has its shape.
        """
        qd = _asc(qd)
        if qd.ndim not in (1, 2):
            raise ValueError(f"friction: expected qd of shape (n,) or (m, n), got {qd.shape}")
        return friction_nb(self.arrays.dyn, qd)

    def inertia(self, q, out=None) -> np.ndarray:
        """Joint-space inertia matrix M(q), (n, n) (kg m^2, kg m, kg); (m, n, n) for q (m, n).

        Symmetric positive definite; the diagonal includes the rotor inertias ``G^2 Jm``.
        ``out``: where to write the result (as :meth:`rne`).
        """
        q = _asc(q)     # once, here (see fast_calls)
        if q.ndim == 1:
            P, _, shape, _ = self._fast or self._fast_params()
            if out is None or _carray(out, shape):
                o = _empty(shape) if out is None else out
                _FAST.inertia(P, q, o)     # the kernel checks the sizes
                return o
        if q.ndim == 1:     # as a (1, n) row: one compiled specialisation for both forms
            return _into(out, inertia_nb(self.kin, self.arrays.dyn, q.reshape(1, q.shape[0]))[0])
        (q,) = _rows(self.n, q)
        return _into(out, inertia_nb(self.kin, self.arrays.dyn, q))

    def coriolis(self, q, qd=None) -> np.ndarray:
        """Coriolis/centripetal matrix C(q, qd), (n, n); (m, n, n) for trajectories.

        ``C @ qd`` is the velocity-product torque (N m); ``coriolis(x)`` takes RTB's
        ``x = [q qd]``. C is built from Christoffel symbols, so ``dM/dt - 2 C`` is
        skew-symmetric. Joint friction is not included.
        """
        if qd is None:
            q, qd = _split(q, self.n, 2, "coriolis")
        q, qd = _asc(q), _asc(qd)
        if q.ndim == 1 and qd.ndim == 1:   # (1, n) rows, as inertia
            n = q.shape[0]
            return coriolis_nb(self.kin, self.arrays.dyn, q.reshape(1, n), qd.reshape(1, n))[0]
        q, qd = _rows(self.n, q, qd)
        return coriolis_nb(self.kin, self.arrays.dyn, q, qd)

    def accel(self, q, qd=None, tau=None, gravity=None, fext=None, out=None) -> np.ndarray:
        """Forward dynamics: joint accelerations ``M^-1 (tau - rne(q, qd, 0))``.

        ``accel(q, qd, tau)`` or RTB's ``accel(x)`` with ``x = [q qd tau]``; (n,) or (m, n)
        rows (rad/s^2, m/s^2). Friction, rotor inertia, gravity and ``fext`` as :meth:`rne`;
        solved by Cholesky, without forming the inverse. ``out``: where to write the result
        (as :meth:`rne`).
        """
        if qd is None and tau is None:
            q, qd, tau = _split(q, self.n, 3, "accel")
        q, qd, tau = _asc(q), _asc(qd), _asc(tau)   # once, here (see fast_calls)
        if gravity is None and fext is None and q.ndim == qd.ndim == tau.ndim == 1:
            P, n, _, _ = self._fast or self._fast_params()
            if out is None or _carray(out, (n,)):
                o = _empty(n) if out is None else out
                _FAST.accel(P, q, qd, tau, o)     # the kernel checks the sizes
                return o
        a = self.arrays
        g = a.gravity if gravity is None else _vector(gravity, 3, "gravity")
        if q.ndim == 1 and qd.ndim == 1 and tau.ndim == 1:
            f = _ZERO6 if fext is None else _vector(fext, 6, "fext")
            return _into(out, accel_nb(self.kin, a.dyn, q, qd, tau, g, f))
        q, qd, tau = _rows(self.n, q, qd, tau)
        return _into(out, accel_nb(self.kin, a.dyn, q, qd, tau, g, _wrenches(fext, q.shape[0])))

    def cinertia(self, q) -> np.ndarray:
        """Cartesian inertia ``J0^-T M J0^-1`` (6, 6) of a 6-joint arm at ``q`` (6,).

        With ``J0 = jacob0(q)`` (rows ``[v; omega]``, world frame) it maps the end-effector
        acceleration ``[a; alpha]`` to the wrench ``[f; m]``.
        """
        q = _asc(q)
        return cinertia_from(self.inertia(q), self.jacob0(q))

    def fdyn(self, T: float, q0=None, qd0=None,
             torque: Callable[[float, np.ndarray, np.ndarray], np.ndarray] | np.ndarray | None
             = None, *, gravity=None, fext=None, method: str = "RK45", rtol: float = 1e-6,
             atol: float = 1e-9, t_eval=None, max_step: float = np.inf):
        """Integrate the forward dynamics from rest or (q0, qd0) over [0, T] (s).

        Parameters
        ----------
        T : float
            Final time (s).
        q0, qd0 : array (n,), optional
            Initial joint coordinates and rates; default zero (RTB).
        torque : callable ``torque(t, q, qd) -> (n,)``, array (n,) or None
            Applied torques/forces (N m, N): RTB's ``torqfun`` (without the robot argument), a
            constant, or zero. Coulomb friction makes the integration slow (use
            :meth:`nofriction`).
        gravity, fext
            As :meth:`rne` (fext constant, (6,)).
        method, rtol, atol, t_eval, max_step
            :func:`scipy.integrate.solve_ivp` options.

        Returns
        -------
        t : (N,) s; q : (N, n); qd : (N, n)
        """
        a, n = self.arrays, self.n
        g = a.gravity if gravity is None else _vector(gravity, 3, "gravity")
        q0 = np.zeros(n) if q0 is None else _vector(q0, n, "q0")
        qd0 = np.zeros(n) if qd0 is None else _vector(qd0, n, "qd0")
        f = None if fext is None else _vector(fext, 6, "fext")
        return fdyn(self.kin, a.dyn, g, T, q0, qd0, torque, fext=f, method=method, rtol=rtol,
                    atol=atol, t_eval=t_eval, max_step=max_step)

    def nofriction(self, which: str = "coulomb"):
        """A copy of the robot without friction (RTB ``nofriction``), named ``"NF/" + name``.

        ``which``: ``"coulomb"`` (default) removes Coulomb friction, ``"viscous"`` viscous
        friction, ``"all"`` both.
        """
        new = self.copy()
        new.links = [link.nofriction(which) for link in self.links]
        if getattr(self, "name", None) is not None:
            new.name = "NF/" + self.name
        return new
