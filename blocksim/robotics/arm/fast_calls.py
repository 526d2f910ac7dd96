"""Single-configuration entry points of the arm dynamics and Jacobian, for the lowest per-call
cost from Python.

Calling a numba function from Python costs, besides its arithmetic, the dispatcher's typing of
every argument (tens of ns per array), the boxing of a returned array into a numpy array (about
three times the cost of allocating it with ``numpy.empty``) and the Python method's own
argument handling. For one configuration the ``SerialLink`` methods ``rne``, ``inertia``,
``accel`` and ``jacob0`` therefore call these kernels instead of the general ones
(:mod:`~.dynamics`, :mod:`~.kinematics`):

* one packed parameter vector per model (:func:`pack_dynamics`: the packed kinematics, the
  dynamics rows, the gravity vector and a block of zeros) instead of four arrays;
* the output allocated by the caller and written in place (``out``), nothing returned;
* an explicit signature (float64 C-contiguous vectors, a C-contiguous (n, n) or (6, n)
  output): numba compiles nothing else for them, so any other argument (a list, another dtype,
  a read-only or 2-D array) raises ``TypeError`` at once and the method falls back to its
  general path.

The arithmetic is the general kernels' own (``link_transforms``, ``rne_core``, ``crba``,
``chol_solve``, ``_jacob0_into``), in the same order, so the results are the same numbers.
Each kernel is compiled (or loaded from numba's cache) on its first use (:func:`kernel`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .dynamics import chol_solve, crba
from .dynamics_rne import WORK, base_acceleration, joint_friction, link_transforms, rne_core
from .kinematics import _jacob0_into
from .layout import GR, JM

__all__ = ["FAST", "kernel", "pack_dynamics"]

_V = "float64[::1]"
_M = "float64[:, ::1]"
_SIGNATURES = {
    "rne": f"void({_V}, {_V}, {_V}, {_V}, {_V})",
    "inertia": f"void({_V}, {_V}, {_M})",
    "accel": f"void({_V}, {_V}, {_V}, {_V}, {_V})",
    "jacob0": f"void({_V}, {_V}, {_M})",
}


def pack_dynamics(kin: np.ndarray, dyn: np.ndarray, gravity: np.ndarray) -> np.ndarray:
    """The parameter vector of the dynamics kernels: ``[kin, dyn.ravel(), gravity (3),
    zeros (max(n, 6))]`` (``kin[0] = n``; the zeros serve as the zero wrench and the zero
    acceleration)."""
    n = int(kin[0])
    return np.concatenate(
        (kin, np.ravel(dyn), np.asarray(gravity, dtype=np.float64).reshape(3), np.zeros(max(n, 6)))
    )


@njit(cache=True)
def _unpack(P, k):
    """``(n, kin, dyn, gravity, zeros)`` views of the packed vector; ValueError unless ``k``
    (a joint vector's length) is n."""
    n = int(P[0])
    if k != n:
        raise ValueError("dynamics: q, qd, qdd and tau must have one element per joint (robot.n)")
    nk = 25 + 26 * n
    nd = nk + 15 * n
    return n, P[:nk], P[nk:nd].reshape((n, 15)), P[nd : nd + 3], P[nd + 3 :]


def _rne(P, q, qd, qdd, out):
    n, kin, dyn, g, zeros = _unpack(P, q.shape[0])
    if qd.shape[0] != n or qdd.shape[0] != n or out.shape[0] != n:
        raise ValueError("rne: q, qd and qdd must have one element per joint (robot.n)")
    W = np.empty((n, WORK))
    link_transforms(kin, q, W)
    rne_core(kin, dyn, W, qd, qd, True, qdd, base_acceleration(kin, g), zeros, out)
    for i in range(n):
        gr = dyn[i, GR]
        out[i] += gr * gr * dyn[i, JM] * qdd[i] - joint_friction(dyn, i, qd[i])


def _inertia(P, q, out):
    n, kin, dyn, _, _ = _unpack(P, q.shape[0])
    if out.shape[0] != n or out.shape[1] != n:
        raise ValueError("inertia: the output must be (n, n)")
    W = np.empty((n, WORK))
    link_transforms(kin, q, W)
    crba(kin, dyn, W, out)


def _accel(P, q, qd, tau, out):
    n, kin, dyn, g, zeros = _unpack(P, q.shape[0])
    if qd.shape[0] != n or tau.shape[0] != n or out.shape[0] != n:
        raise ValueError("accel: q, qd and tau must have one element per joint (robot.n)")
    W = np.empty((n, WORK))
    M = np.empty((n, n))
    link_transforms(kin, q, W)
    crba(kin, dyn, W, M)  # leaves the link transforms in W for rne_core
    rne_core(kin, dyn, W, qd, qd, True, zeros, base_acceleration(kin, g), zeros, out)
    for i in range(n):
        gr = dyn[i, GR]
        out[i] += gr * gr * dyn[i, JM] * 0.0 - joint_friction(dyn, i, qd[i])
        out[i] = tau[i] - out[i]
    chol_solve(M, out)


def _jacob0(kin, q, out):
    n = int(kin[0])
    if q.shape[0] != n or out.shape[0] != 6 or out.shape[1] != n:
        raise ValueError("jacob0: q must have one element per joint (robot.n)")
    W = np.empty((2 * n + 3, 12))
    _jacob0_into(kin, q, W, out)


_PY = {"rne": _rne, "inertia": _inertia, "accel": _accel, "jacob0": _jacob0}
_COMPILED: dict = {}


class _Kernels:
    """``FAST.rne`` etc.: the compiled entry points, each made on its first access (then a
    plain attribute)."""

    def __getattr__(self, name: str):
        if name not in _SIGNATURES:
            raise AttributeError(name)
        f = kernel(name)
        setattr(self, name, f)
        return f


#: the entry points by attribute (``FAST.rne(P, q, qd, qdd, out)``), compiled on first use
FAST = _Kernels()


def kernel(name: str):
    """The compiled entry point ``name`` (``"rne"``, ``"inertia"``, ``"accel"``, ``"jacob0"``),
    compiled or loaded from the cache on first use:

    * ``rne(P, q, qd, qdd, out)``, ``accel(P, q, qd, tau, out)``: out (n,);
    * ``inertia(P, q, out)``: out (n, n);
    * ``jacob0(kin, q, out)``: out (6, n)

    with ``P`` from :func:`pack_dynamics` and ``kin`` the packed kinematics."""
    f = _COMPILED.get(name)
    if f is None:
        f = _COMPILED[name] = njit(_SIGNATURES[name], cache=True)(_PY[name])
    return f
