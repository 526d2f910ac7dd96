"""Allocation-free dynamics of one configuration over the packed parameters.

The single-configuration arithmetic of :mod:`~.fast_calls` (the ``SerialLink`` fast paths)
and of the compiled arm dynamics blocks (:mod:`blocksim.blocks.arm.arm_dynamics_kernels`),
written once: every function here writes its result into arrays the caller provides and
allocates nothing, so a compiled diagram that calls the arm dynamics thousands of times per
run pays for the arithmetic only.

``P`` is the packed parameter vector of :func:`~.fast_calls.pack_dynamics`: ``[kin,
dyn.ravel(), gravity (3), zeros (max(n, 6)), dh]``. The arithmetic is the general kernels'
own (:func:`~.dynamics_rne.link_transforms`, :func:`~.dynamics_rne.rne_core`, the one-pass
:func:`~.world_frame.crba_into`, :func:`~.dynamics.chol_solve`), in the same order, so the
results are the numbers of :func:`~.dynamics_rne.rne_nb`, :func:`~.dynamics.accel_nb`,
:func:`~.dynamics.inertia_nb` and :func:`~.dynamics.coriolis_nb`.

Work arrays: ``W`` (n, :data:`WORK`) for the recursion, ``S`` (n, >= :data:`SCRATCH`) and
``M`` (n, n) for the inertia matrix; :func:`work` allocates them. Sizes are
checked by :func:`unpack` (joint vectors) and by the caller (outputs, work arrays).

Units: SI; q in rad (revolute) or m (prismatic), torques N m or N, gravity m/s^2 (RTB's
upward equivalent, world frame), wrenches ``[f; m]`` (N, N m) in the tool frame.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .dynamics import chol_solve
from .dynamics_rne import WORK, base_acceleration, joint_friction, link_transforms, rne_core
from .layout import GR, JM
from .world_frame import SCRATCH, crba_into

if SCRATCH > WORK:  # work(n) gives S as many columns as W
    raise ImportError("dynamics_into: the CRBA scratch is wider than the RNE work array")

__all__ = [
    "SCRATCH",
    "WORK",
    "accel_into",
    "coriolis_into",
    "gravity_zeros",
    "inertia_into",
    "rne_into",
    "unpack",
    "work",
]


@njit(cache=True, inline="always")
def gravity_zeros(P):
    """The packed gravity (3,) and zeros (max(n, 6),) of ``P``: slices, no reshape (numba's
    reshape calls a C helper, ~30 ns), for callers that need no other part."""
    nd = 25 + 41 * int(P[0])  # after kin (25 + 26 n) and dyn (15 n)
    return P[nd : nd + 3], P[nd + 3 : P.shape[0] - 1]


@njit(cache=True, inline="always")
def unpack(P, k):
    """``(n, kin, dyn, gravity, zeros, dh)``: views of the packed vector ``P`` and its DH flag
    (``kin`` (25 + 26 n,), ``dyn`` (n, 15), ``gravity`` (3,), ``zeros`` (max(n, 6),));
    ValueError unless ``k`` (a joint vector's length) is n."""
    n = int(P[0])
    if k != n:
        raise ValueError("dynamics: q, qd, qdd and tau must have one element per joint (robot.n)")
    nk = 25 + 26 * n
    g, zeros = gravity_zeros(P)
    return n, P[:nk], P[nk : nk + 15 * n].reshape((n, 15)), g, zeros, P[-1] == 1.0


@njit(cache=True)
def work(n):
    """The work arrays ``(W (n, WORK), M (n, n), S (n, WORK))`` (``S`` wider than the
    ``SCRATCH`` columns it needs): ``W`` and ``S`` are the two halves of one allocation,
    taken by indexing (a reshape would call numba's C helper, about 30 ns)."""
    ws = np.empty((2, n, WORK))
    return ws[0], np.empty((n, n)), ws[1]


@njit(cache=True)
def rne_into(P, q, qd, qdd, gravity, fext, W, out):
    """Inverse dynamics into ``out`` (n,): ``M qdd + C qd + g - friction(qd) + J_e^T fext``
    (N m, N), rotor inertia and friction included (:func:`~.dynamics_rne.rne_nb`).

    q, qd, qdd (n,); gravity (3,), fext (6,); ``W`` (n, WORK) work."""
    n, kin, dyn, _, _, _ = unpack(P, q.shape[0])
    link_transforms(kin, q, W)
    # `n >= 0` (True) as a bool value, not the literal True: numba types a literal argument
    # as its own type, and rne_core compiled once per literal (3 signatures, 2.2 s each cold)
    rne_core(kin, dyn, W, qd, qd, n >= 0, qdd, base_acceleration(kin, gravity), fext, out)
    for i in range(n):
        gr = dyn[i, GR]
        out[i] += gr * gr * dyn[i, JM] * qdd[i] - joint_friction(dyn, i, qd[i])


@njit(cache=True)
def inertia_into(P, q, M, S):
    """Joint-space inertia ``M`` (n, n) at q (n,) (kg m^2, kg m, kg), rotor inertias on the
    diagonal (:func:`~.world_frame.crba_into`); ``S`` (n, >= SCRATCH) work."""
    n = int(P[0])  # P starts with the packed kinematics: no views needed (crba_into checks)
    crba_into(P, P, 25 + 26 * n, q, M, S, P[P.shape[0] - 1] == 1.0)


@njit(cache=True)
def accel_into(P, q, qd, tau, W, M, S, out):
    """Forward dynamics into ``out`` (n,): ``M(q)^-1 (tau - rne(q, qd, 0))`` with the packed
    gravity and no end wrench (:func:`~.dynamics.accel_nb`); rad/s^2 or m/s^2.

    q, qd, tau (n,); ``W``, ``M``, ``S`` work (:func:`work`); ``out`` not one of the
    inputs. ValueError when M is not positive definite."""
    n, kin, dyn, g, zeros, dh = unpack(P, q.shape[0])
    crba_into(kin, P, 25 + 26 * n, q, M, S, dh)
    link_transforms(kin, q, W)
    rne_core(kin, dyn, W, qd, qd, n >= 0, zeros, base_acceleration(kin, g), zeros, out)
    for i in range(n):
        gr = dyn[i, GR]
        out[i] += gr * gr * dyn[i, JM] * 0.0 - joint_friction(dyn, i, qd[i])
        out[i] = tau[i] - out[i]
    chol_solve(M, out)


@njit(cache=True)
def coriolis_into(P, q, qd, W, e, col, out):
    """Coriolis matrix ``C(q, qd)`` into ``out`` (n, n): column j is the bilinear RNE term
    ``b(qd, e_j)`` (:func:`~.dynamics.coriolis_nb`); no gravity, friction or rotor terms.

    ``W`` (n, WORK), ``e`` and ``col`` (n,) work (``e`` is left zero)."""
    n, kin, dyn, _, zeros, _ = unpack(P, q.shape[0])
    g0 = (0.0, 0.0, 0.0)
    for i in range(n):
        e[i] = 0.0
    link_transforms(kin, q, W)  # rne_core writes only the link forces of W
    for j in range(n):
        e[j] = 1.0
        rne_core(kin, dyn, W, qd, e, n < 0, zeros, g0, zeros, col)
        e[j] = 0.0
        for i in range(n):
            out[i, j] = col[i]
