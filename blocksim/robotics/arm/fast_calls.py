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
  output): numba compiles nothing else for them. A call that does not match costs numba's
  failed dispatch (0.3-1 ms: it types and explains every argument), so the methods never
  make one: they convert a list, another dtype, a read-only array or a view once with
  :func:`as_f64` (a float64 C-contiguous array is passed as it is, for ~0.2 us of checks)
  and call the kernel with a 1-D ``q`` only (trajectories take the general path).

The arithmetic is :mod:`~.dynamics_into` (shared with the compiled arm dynamics blocks) and
``jacob0_into`` of :mod:`~.world_frame`: the general kernels' own, in the same order, so the
results are the same numbers.
Each kernel is compiled (or loaded from numba's cache) on its first use (:func:`kernel`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .dynamics_into import SCRATCH, WORK, accel_into, inertia_into, rne_into, unpack, work
from .world_frame import is_dh_chain, jacob0_into

__all__ = ["FAST", "as_f64", "kernel", "pack_dynamics"]

_V = "float64[::1]"
_M = "float64[:, ::1]"
_SIGNATURES = {
    "rne": f"void({_V}, {_V}, {_V}, {_V}, {_V})",
    "inertia": f"void({_V}, {_V}, {_M})",
    "accel": f"void({_V}, {_V}, {_V}, {_V}, {_V})",
    "jacob0": f"void({_V}, {_V}, {_M})",
}


_ND = np.ndarray
_F64 = np.dtype(np.float64)
_array = np.array


def as_f64(x) -> np.ndarray:
    """``x`` as a float64, C-contiguous, writable array: ``x`` itself when it is one, else a
    copy (a list, another dtype, a view, a read-only array). The public methods convert
    their arguments with it once, so the compiled kernels see one type only: no failed
    dispatch, and no new compiled specialisation (numba compiles a read-only or
    non-contiguous array as another type)."""
    if x.__class__ is _ND and x.dtype is _F64 and x.flags.carray:
        return x
    return _array(x, dtype=_F64, order="C")


def pack_dynamics(kin: np.ndarray, dyn: np.ndarray, gravity: np.ndarray) -> np.ndarray:
    """The parameter vector of the kernels: ``[kin, dyn.ravel(), gravity (3), zeros
    (max(n, 6)), dh]`` (``kin[0] = n``; the zeros serve as the zero wrench and the zero
    acceleration; ``dh`` is 1.0 for a standard-DH revolute chain,
    :func:`~.world_frame.is_dh_chain`, else 0.0)."""
    n = int(kin[0])
    dh = 1.0 if is_dh_chain(kin) else 0.0
    g = np.asarray(gravity, dtype=np.float64).reshape(3)
    return np.concatenate((kin, np.ravel(dyn), g, np.zeros(max(n, 6)), [dh]))


def _rne(P, q, qd, qdd, out):
    n, _, _, g, zeros, _ = unpack(P, q.shape[0])
    if qd.shape[0] != n or qdd.shape[0] != n or out.shape[0] != n:
        raise ValueError("rne: q, qd and qdd must have one element per joint (robot.n)")
    rne_into(P, q, qd, qdd, g, zeros, np.empty((n, WORK)), out)


def _inertia(P, q, out):
    inertia_into(P, q, out, np.empty((int(P[0]), SCRATCH)))  # crba_into checks the sizes


def _accel(P, q, qd, tau, out):
    n = int(P[0])
    if q.shape[0] != n or qd.shape[0] != n or tau.shape[0] != n or out.shape[0] != n:
        raise ValueError("accel: q, qd and tau must have one element per joint (robot.n)")
    W, M, S = work(n)
    accel_into(P, q, qd, tau, W, M, S, out)


def _jacob0(P, q, out):
    jacob0_into(P, q, out, P[P.shape[0] - 1] == 1.0)  # P starts with kin; q, out checked


_PY = {"rne": _rne, "inertia": _inertia, "accel": _accel, "jacob0": _jacob0}
_COMPILED: dict = {}


class _Lazy:
    """Stands for the entry point ``name`` on :data:`FAST` until its first call, which
    compiles it (or loads it from the cache) and puts it in its place."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args):
        f = kernel(self.name)
        setattr(FAST, self.name, f)
        return f(*args)


class _Kernels:
    """``FAST.rne`` etc.: the compiled entry points as plain attributes (no ``__getattr__``,
    which would cost every lookup CPython's attribute cache), each compiled on its first
    call."""

    def __init__(self) -> None:
        for name in _SIGNATURES:
            setattr(self, name, _Lazy(name))


#: the entry points by attribute (``FAST.rne(P, q, qd, qdd, out)``), compiled on first use
FAST = _Kernels()


def kernel(name: str):
    """The compiled entry point ``name`` (``"rne"``, ``"inertia"``, ``"accel"``, ``"jacob0"``),
    compiled or loaded from the cache on first use:

    * ``rne(P, q, qd, qdd, out)``, ``accel(P, q, qd, tau, out)``: out (n,);
    * ``inertia(P, q, out)``: out (n, n);
    * ``jacob0(P, q, out)``: out (6, n)

    with ``P`` from :func:`pack_dynamics`."""
    f = _COMPILED.get(name)
    if f is None:
        f = _COMPILED[name] = njit(_SIGNATURES[name], cache=True)(_PY[name])
    return f
