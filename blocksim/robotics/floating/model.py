"""A floating-base robot: a :class:`~blocksim.robotics.urdf.TreeModel` with its packed kernel
vector and the kinematics and dynamics of :mod:`.kernels` as methods.

Conventions (SPART's, Virgili-Llop et al., one for every method here): all vectors in the inertial
(world) frame; twists ``[omega; rdot]`` with ``rdot`` the velocity of the body's **centre of mass**;
wrenches ``[n; f]`` at the centre of mass; the base's generalized velocity is its twist ``t0 =
[omega0; rdot0]`` (SPART's mixed-frame ``u0 = [R0^T omega0; rdot0]`` is converted by :mod:`.spart`);
generalized velocity ``u = [t0; qd]``. Body index 0 is the base, ``k + 1`` is body ``k`` of the
tree. Gravity is RTB's vector (upward acceleration equivalent to gravity, default none: a
spacecraft) and acts as the weight of every body.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels as _k
from . import kernels_jac as _j
from .fast_fd import GRAVITY, fd_kernel, pack_fd

__all__ = ["FloatingBase", "Kin"]


@dataclass(frozen=True)
class Kin:
    """Kinematics of one configuration (SPART ``Kinematics``): ``RL`` (n+1, 3, 3) link
    orientations, ``pL`` (n+1, 3) link-frame origins, ``rC`` (n+1, 3) centres of mass,
    ``rJ`` (n, 3) joint positions, ``e`` (n, 3) joint axes; index 0 is the base."""

    RL: np.ndarray
    pL: np.ndarray
    rC: np.ndarray
    rJ: np.ndarray
    e: np.ndarray


_F64 = np.dtype(np.float64)
_empty = np.empty


def _fd_first_call(*args):
    """Stands for the compiled forward-dynamics entry point until its first call, which
    compiles it (or loads it from numba's cache) and puts it in its place."""
    global _FD
    _FD = fd_kernel()
    return _FD(*args)


#: :func:`~.fast_fd.fd_kernel`, compiled on the first call
_FD = _fd_first_call


_ND = np.ndarray


def _f64(x) -> np.ndarray:
    """``x`` as a float64, C-contiguous, writable array: itself when it is one, else a copy
    (lists, other dtypes, views, read-only arrays: converted once, here, so that the compiled
    kernels see one type: no failed dispatch of the one-call path, which costs 0.3-1 ms, and
    no new compiled specialisation of the general kernels)."""
    if x.__class__ is _ND and x.dtype is _F64 and x.flags.carray:
        return x
    return np.array(x, dtype=_F64, order="C")


def _vec(x, size: int, name: str) -> np.ndarray:
    if (x.__class__ is _ND and x.dtype is _F64 and x.shape == (size,)
            and x.flags.carray):  # fmt: skip
        return x  # the fast path: already what the kernels take
    v = _f64(x).reshape(-1)
    if v.shape != (size,):
        raise ValueError(f"FloatingBase: {name} must have {size} elements, got shape "
                         f"{np.shape(x)}")  # fmt: skip
    return v


class FloatingBase:
    """Kinematics and dynamics of a tree of bodies on a free-floating (or held) base.

    Parameters
    ----------
    tree : TreeModel
        The robot (from URDF, :func:`~blocksim.robotics.urdf.serial_to_tree`, ...). The base
        link's mass and inertia are the spacecraft's.
    gravity : array (3,), optional
        RTB convention, default ``[0, 0, 0]``.
    """

    def __init__(self, tree, gravity=None) -> None:
        self.tree = tree
        self.mdl = _k.pack_tree(tree)
        self._n, self._nq, self._nu = tree.n, tree.nq, 6 + tree.nq
        self._z6 = np.zeros(6)
        self._zq = np.zeros(tree.nq)
        self._zw = np.zeros((tree.n + 1, 6))
        self._fd = pack_fd(tree, np.zeros(3))  # the one-call forward dynamics' parameters
        self.gravity = np.zeros(3) if gravity is None else gravity

    @property
    def gravity(self) -> np.ndarray:
        """RTB gravity vector (3,) (m/s^2, the upward acceleration equivalent to gravity);
        read-only: assign a new vector to change it (the packed model follows)."""
        g = self._gravity.view()
        g.flags.writeable = False
        return g

    @gravity.setter
    def gravity(self, value) -> None:
        g = _vec(value, 3, "gravity").copy()
        self._gravity = g
        self._fd[GRAVITY] = g

    @property
    def n(self) -> int:
        """Number of bodies other than the base."""
        return self._n

    @property
    def nq(self) -> int:
        """Number of joint coordinates."""
        return self._nq

    def link(self, name: str | int) -> int:
        """Body index (0 = base) of a link name or tree index."""
        return self.tree.index(name) + 1

    # ------------------------------------------------------------------------ kinematics
    def kinematics(self, R0, r0, q) -> Kin:
        """Poses of every link for base orientation ``R0`` (3, 3), base com ``r0`` (3,), ``q``."""
        R = _f64(R0).reshape(3, 3)
        return Kin(*_k.kinematics(self.mdl, R, _vec(r0, 3, "r0"), _vec(q, self.nq, "q")))

    def velocities(self, kin: Kin, t0, qd) -> np.ndarray:
        """Twists (n+1, 6) of all bodies for the base twist ``t0`` and joint rates ``qd``."""
        return _k.velocities(self.mdl, kin.rC, kin.rJ, kin.e, _vec(t0, 6, "t0"),
                             _vec(qd, self.nq, "qd"))  # fmt: skip

    def accelerations(self, kin: Kin, t, t0dot, qd, qdd) -> np.ndarray:
        """Twist rates (n+1, 6) for base twist rate ``t0dot`` and joint accelerations."""
        return _k.accelerations(self.mdl, kin.rC, kin.rJ, kin.e, np.ascontiguousarray(t),
                                _vec(t0dot, 6, "t0dot"), _vec(qd, self.nq, "qd"),
                                _vec(qdd, self.nq, "qdd"))  # fmt: skip

    def jacobian(self, kin: Kin, link: str | int, point=None) -> np.ndarray:
        """Jacobian (6, 6+nq) of a point of body ``link`` (default its centre of mass):
        ``[omega; rdot_p] = J @ [t0; qd]``; ``J[:, :6]`` is SPART's J0, the rest Jm."""
        i = link if isinstance(link, (int, np.integer)) else self.link(link)
        rp = kin.rC[i] if point is None else _vec(point, 3, "point")
        return _j.point_jacobian(self.mdl, kin.rC, kin.rJ, kin.e, int(i), rp)

    def noc(self, kin: Kin) -> np.ndarray:
        """Natural Orthogonal Complement (6(n+1), 6+nq): all twists ``= N @ [t0; qd]``."""
        return _j.noc(self.mdl, kin.rC, kin.rJ, kin.e)

    def noc_dot(self, kin: Kin, t) -> np.ndarray:
        """Time derivative of :meth:`noc` for the twists ``t`` (n+1, 6)."""
        return _j.noc_dot(self.mdl, kin.rC, kin.rJ, kin.e, np.ascontiguousarray(t))

    def center_of_mass(self, kin: Kin) -> np.ndarray:
        """System centre of mass (3,)."""
        return _j.center_of_mass(self.mdl, kin.rC)

    def momentum(self, kin: Kin, t) -> tuple[np.ndarray, np.ndarray]:
        """Linear momentum (3,) and angular momentum about the world origin (3,)."""
        return _j.momentum(self.mdl, kin.RL, kin.rC, np.ascontiguousarray(t))

    # -------------------------------------------------------------------------- dynamics
    def inertia_matrix(self, kin: Kin) -> np.ndarray:
        """Generalized inertia matrix H (6+nq, 6+nq) (SPART GIM ``[H0, H0m; H0m', Hm]``)."""
        return _k.composite_inertia_matrix(self.mdl, kin.RL, kin.rC, kin.rJ, kin.e)

    def convective_matrix(self, kin: Kin, t) -> np.ndarray:
        """Convective inertia matrix C (6+nq, 6+nq) (SPART CIM): ``Hdot = C + C^T``."""
        return _j.convective_matrix(self.mdl, kin.RL, kin.rC, kin.rJ, kin.e,
                                    np.ascontiguousarray(t))  # fmt: skip

    def _wrenches(self, wF) -> np.ndarray:
        if wF is None:
            return self._zw
        w = _f64(wF)
        if w.shape != (self.n + 1, 6):
            raise ValueError(f"FloatingBase: wF must have shape ({self.n + 1}, 6) (base then "
                             f"every body, [n; f]), got {w.shape}")  # fmt: skip
        return w

    def forward_dynamics(self, R0, r0, t0, q, qd, tau0=None, taum=None, wF=None,
                         fixed: bool = False,
                         out=None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Base twist rate (6,) and joint accelerations (nq,) for base wrench ``tau0``
        ``[n; f]`` (at the base com), joint forces ``taum`` and external wrenches ``wF``
        (n+1, 6); ``fixed`` holds the base (its twist rate is then 0).

        ``out`` (6 + nq,), optional: where to write ``[t0dot; qdd]`` (the two results are
        views of it), which saves the allocation in loops. float64 C-contiguous arrays of the
        right shapes take the one-call path (:mod:`.fast_fd`: 4-5 us per call for the
        7-joint Panda on a spacecraft, about Pinocchio's ``aba``); anything else (lists,
        other dtypes, read-only arrays, views) is converted once (a copy) and takes the same
        path; arguments of other ranks are reshaped and checked by the general kernel
        (:func:`.kernels.forward_dynamics`); both give the same numbers to rounding.
        """
        R0, r0, t0, q, qd = _f64(R0), _f64(r0), _f64(t0), _f64(q), _f64(qd)
        tau0 = self._z6 if tau0 is None else _f64(tau0)
        taum = self._zq if taum is None else _f64(taum)
        wF = self._zw if wF is None else _f64(wF)
        if (R0.ndim == wF.ndim == 2 and r0.ndim == t0.ndim == q.ndim == qd.ndim == tau0.ndim
                == taum.ndim == 1 and (out is None or (out.__class__ is _ND and out.dtype
                                                       is _F64 and out.flags.carray
                                                       and out.shape == (self._nu,)))):
            # the one-call kernel's types exactly (see fast_fd): never a failed dispatch
            o = _empty(self._nu) if out is None else out
            _FD(self._fd, R0, r0, t0, q, qd, tau0, taum, wF, bool(fixed), o)  # sizes checked
            return o[:6], o[6:]
        return self._forward_dynamics(R0, r0, t0, q, qd, tau0, taum, wF, fixed, out)

    def _forward_dynamics(self, R0, r0, t0, q, qd, tau0, taum, wF, fixed, out):
        """:meth:`forward_dynamics` by the general kernel, arguments converted and checked."""
        R = _f64(R0)
        if R.size != 9:
            raise ValueError(f"FloatingBase: R0 must be a (3, 3) rotation, got shape {R.shape}")
        R0 = R.reshape(3, 3)
        t0dot, qdd = _k.forward_dynamics(
            self.mdl, R0, _vec(r0, 3, "r0"), _vec(t0, 6, "t0"), _vec(q, self.nq, "q"),
            _vec(qd, self.nq, "qd"), self._z6 if tau0 is None else _vec(tau0, 6, "tau0"),
            self._zq if taum is None else _vec(taum, self.nq, "taum"), self._wrenches(wF),
            self._gravity, bool(fixed))  # fmt: skip
        if out is None:
            return t0dot, qdd
        if not (isinstance(out, np.ndarray) and out.shape == (self._nu,)):
            raise ValueError(f"FloatingBase: out must be an array of shape ({self._nu},) "
                             f"([t0dot; qdd]), got {getattr(out, 'shape', type(out))}")  # fmt: skip
        out[:6], out[6:] = t0dot, qdd
        return out[:6], out[6:]

    def inverse_dynamics(self, R0, r0, t0, q, qd, t0dot, qdd,
                         wF=None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Base wrench (6,) ``[n; f]`` and joint forces (nq,) that produce the accelerations."""
        return _k.full_inverse_dynamics(
            self.mdl, _f64(R0).reshape(3, 3), _vec(r0, 3, "r0"),
            _vec(t0, 6, "t0"), _vec(q, self.nq, "q"), _vec(qd, self.nq, "qd"),
            _vec(t0dot, 6, "t0dot"), _vec(qdd, self.nq, "qdd"), self._wrenches(wF),
            self._gravity)  # fmt: skip

    def floating_inverse_dynamics(self, R0, r0, t0, q, qd, qdd,
                                  wF=None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """SPART ``Floating_ID``: joint forces (nq,) for ``qdd`` with the base **unactuated**
        (zero base wrench), and the base twist rate (6,) that results."""
        tau0, _ = self.inverse_dynamics(R0, r0, t0, q, qd, np.zeros(6), np.zeros(self.nq), wF)
        kin = self.kinematics(R0, r0, q)
        H = self.inertia_matrix(kin)
        # tau0(t0dot, qdd) = tau0(0, 0) + H0 t0dot + H0m qdd = 0
        t0dot = -np.linalg.solve(H[:6, :6], tau0 + H[:6, 6:] @ _vec(qdd, self.nq, "qdd"))
        _, taum = self.inverse_dynamics(R0, r0, t0, q, qd, t0dot, qdd, wF)
        return taum, t0dot

    def base_pose(self, R0, r0) -> np.ndarray:
        """Pose (4, 4) of the base link frame (base com ``r0``, orientation ``R0``)."""
        T = np.eye(4)
        T[:3, :3] = R0
        T[:3, 3] = _vec(r0, 3, "r0") - np.asarray(R0) @ self.tree.base.com
        return T
