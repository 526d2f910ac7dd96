"""The one-pass kernels of :mod:`blocksim.robotics.arm.world_frame` (``inertia`` by the
composite-rigid-body algorithm in frame 0, ``jacob0`` from one forward pass) against
independent references, for every zoo model and for random standard/modified DH chains with
prismatic joints and product-of-exponentials models, with random dynamics, base and tool:

* M(q) against the columns of the recursive Newton–Euler torques ``rne(q, 0, e_k)`` without
  gravity (another algorithm: link-frame recursion, no composite bodies);
* jacob0 against ``[z x (p_e - o); z]`` built in numpy from the 4x4 link products.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from blocksim.robotics.arm import SerialLink, from_dh
from blocksim.robotics.arm.convert import from_poe, to_poe
from blocksim.robotics.arm.dynamics import rne_nb
from blocksim.robotics.arm.layout import rotx, rotz, trans
from blocksim.robotics.arm.world_frame import (
    GENERAL,
    IDENTITY,
    SCRATCH,
    TRANSLATION,
    XROT,
    crba_into,
    is_dh_chain,
    jacob0_into,
    transform_kind,
)
from blocksim.robotics.models import models, puma560, puma560akb, stanford

RNG = np.random.default_rng(7)


def random_dyn(n: int) -> np.ndarray:
    """Masses, centres of mass, full (positive-definite) inertias, rotor inertias, gears."""
    d = np.zeros((n, 15))
    d[:, 0] = RNG.uniform(0.5, 5.0, n)
    d[:, 1:4] = RNG.uniform(-0.3, 0.3, (n, 3))
    L = RNG.normal(size=(n, 3, 3))
    inertia = 0.1 * np.einsum("nij,nkj->nik", L, L) + 0.01 * np.eye(3)
    d[:, 4], d[:, 5], d[:, 6] = inertia[:, 0, 0], inertia[:, 1, 1], inertia[:, 2, 2]
    d[:, 7], d[:, 8], d[:, 9] = inertia[:, 0, 1], inertia[:, 1, 2], inertia[:, 0, 2]
    d[:, 10] = RNG.uniform(0.0, 1e-3, n)
    d[:, 11] = RNG.uniform(-60.0, 60.0, n)
    return d


def robots() -> dict[str, SerialLink]:
    out = {info.name: info.constructor() for info in models()}
    sigma = np.array([0, 1, 0, 1, 0])
    for modified in (False, True):
        dh = RNG.uniform(-1.0, 1.0, (5, 4))
        offset = RNG.uniform(-0.5, 0.5, 5)
        arrays = from_dh(dh, sigma=sigma, offset=offset, modified=modified, dyn=random_dyn(5))
        out["random MDH" if modified else "random DH"] = SerialLink(arrays)
    M, S = to_poe(out["puma560"])
    out["puma560 as POE"] = from_poe(M, S)
    base = trans(0.1, -0.2, 0.3) @ rotx(0.4) @ rotz(-0.3)
    tool = trans(0.05, 0.02, 0.1) @ rotx(0.2)
    for name in list(out):  # each with random dynamics, base and tool too
        a = out[name].arrays
        moved = dataclasses.replace(a, dyn=random_dyn(a.n), base=base, tool=tool)
        out[name + ", moved"] = SerialLink(moved)
    return out


ROBOTS = robots()


def configurations(robot, k=4):
    qs = RNG.uniform(-2.0, 2.0, (k, robot.n))
    qs[:, np.asarray(robot.arrays.sigma, bool)] = RNG.uniform(0.1, 0.6)
    return qs


def inertia_by_rne(robot, q):
    """Column k of M: the torques for qdd = e_k at rest without gravity (RNE)."""
    a = robot.arrays
    n = robot.n
    cols = [
        rne_nb(robot.kin, a.dyn, q, np.zeros(n), e, np.zeros(3), np.zeros(6)) for e in np.eye(n)
    ]
    return np.array(cols).T


def jacobian_from_frames(robot, q):
    """``[z x (p_e - o); z]`` (revolute) or ``[z; 0]`` from 4x4 products in numpy."""
    a = robot.arrays
    T = a.base.copy()
    axes = []
    for i in range(robot.n):
        U = T @ a.A[i]
        axes.append((U[:3, 2].copy(), U[:3, 3].copy()))
        v = q[i] + a.offset[i]
        J = rotz(v) if a.sigma[i] == 0 else trans(0.0, 0.0, v)
        T = U @ J @ a.B[i]
    pe = (T @ a.tool)[:3, 3]
    cols = []
    for i, (z, o) in enumerate(axes):
        if a.sigma[i] == 0:
            cols.append(np.concatenate((np.cross(z, pe - o), z)))
        else:
            cols.append(np.concatenate((z, np.zeros(3))))
    return np.array(cols).T


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_inertia_equals_rne_columns_and_jacobian_the_frame_products(name):
    robot = ROBOTS[name]
    n = robot.n
    dh = is_dh_chain(robot.kin)
    M = np.empty((n, n))
    S = np.empty((n, SCRATCH))
    J = np.empty((6, n))
    for q in configurations(robot):
        crba_into(robot.kin, robot.arrays.dyn.ravel(), 0, q, M, S, dh)
        ref = inertia_by_rne(robot, q)
        np.testing.assert_allclose(M, ref, rtol=0, atol=1e-12 * max(1.0, np.abs(ref).max()))
        np.testing.assert_array_equal(M, M.T)
        np.testing.assert_array_equal(robot.inertia(q), M)  # the method is this kernel
        jacob0_into(robot.kin, q, J, dh)
        np.testing.assert_allclose(J, jacobian_from_frames(robot, q), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(robot.jacob0(q), J)
        if dh:  # the branch-free DH path and the general path agree
            M2, J2 = np.empty((n, n)), np.empty((6, n))
            crba_into(robot.kin, robot.arrays.dyn.ravel(), 0, q, M2, S, False)
            jacob0_into(robot.kin, q, J2, False)
            np.testing.assert_allclose(M2, M, rtol=0, atol=1e-13 * max(1.0, np.abs(M).max()))
            np.testing.assert_allclose(J2, J, rtol=0, atol=1e-14)


def test_chain_forms_and_transform_kinds():
    assert is_dh_chain(puma560().kin)
    assert not is_dh_chain(puma560akb().kin)  # modified DH: A is a rotation about x
    assert not is_dh_chain(stanford().kin)  # a prismatic joint
    assert not is_dh_chain(ROBOTS["puma560 as POE"].kin)

    def kind(T):
        return transform_kind(np.ascontiguousarray(T[:3, :]).ravel(), 0)

    assert kind(np.eye(4)) == IDENTITY
    assert kind(trans(0.1, 0.0, -0.2)) == TRANSLATION
    assert kind(trans(0.1, 0.0, 0.3) @ rotx(0.7)) == XROT
    assert kind(rotz(0.7)) == GENERAL
    assert kind(rotx(0.3) @ rotz(1e-3)) == GENERAL


def test_wrong_shapes_raise():
    robot = puma560()
    S = np.empty((6, SCRATCH))
    with pytest.raises(ValueError, match="inertia"):
        crba_into(robot.kin, robot.arrays.dyn.ravel(), 0, np.zeros(5), np.empty((6, 6)), S, True)
    with pytest.raises(ValueError, match="inertia"):
        crba_into(robot.kin, robot.arrays.dyn.ravel(), 0, np.zeros(6), np.empty((5, 6)), S, True)
    with pytest.raises(ValueError, match="jacob0"):
        jacob0_into(robot.kin, np.zeros(6), np.empty((6, 5)), True)
