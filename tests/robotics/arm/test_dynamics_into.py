"""The allocation-free single-configuration dynamics (:mod:`blocksim.robotics.arm.dynamics_into`)
give the general kernels' numbers (``rne_nb``, ``accel_nb``, ``inertia_nb``, ``coriolis_nb``)
on random states of a standard-DH arm with friction (Puma 560), modified DH (Puma 560 AKB), a
prismatic joint (Stanford) and a modified-DH arm with a prismatic joint, friction, gears,
rotor inertia, a base and a tool; they never read their work arrays' old contents.

Arms with a prismatic joint and modified DH also come from :func:`mdh_prismatic_arm`, used by
the block kernel tests (tests/blocks/arm/test_dynamics_kernels.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.arm import PrismaticMDH, RevoluteMDH, SerialLink
from blocksim.robotics.arm.dynamics import accel_nb, coriolis_nb, inertia_nb, rne_nb
from blocksim.robotics.arm.dynamics_into import (
    SCRATCH,
    WORK,
    accel_into,
    coriolis_into,
    inertia_into,
    rne_into,
    unpack,
    work,
)
from blocksim.robotics.arm.fast_calls import pack_dynamics
from blocksim.robotics.models import puma560, puma560akb, stanford

RNG = np.random.default_rng(1207)


def mdh_prismatic_arm() -> SerialLink:
    """Four joints, modified DH, the third prismatic; viscous and Coulomb friction, gears
    (one negative), rotor inertia, a rotated and shifted base, a tool offset."""
    common = dict(B=2e-3, Tc=[0.3, -0.25], Jm=2e-4)
    links = [
        RevoluteMDH(
            d=0.3,
            a=0.0,
            alpha=0.0,
            m=4.0,
            r=[0.0, 0.05, -0.1],
            I=[0.05, 0.04, 0.03, 0.001, -0.002, 0.003],
            G=50.0,
            **common,
        ),
        RevoluteMDH(
            d=0.1,
            a=0.05,
            alpha=-np.pi / 2,
            m=3.0,
            r=[0.2, 0.0, 0.01],
            I=[0.02, 0.06, 0.05, 0.0, 0.001, 0.0],
            G=-80.0,
            **common,
        ),
        PrismaticMDH(
            theta=0.2,
            a=0.4,
            alpha=np.pi / 2,
            offset=0.1,
            m=2.0,
            r=[0.0, 0.0, -0.2],
            I=[0.03, 0.03, 0.004, 0.0, 0.0, 0.0],
            G=30.0,
            **common,
        ),
        RevoluteMDH(
            d=0.05,
            a=0.02,
            alpha=-np.pi / 3,
            m=0.8,
            r=[0.01, 0.02, 0.03],
            I=[0.002, 0.003, 0.001, 1e-4, 0.0, -1e-4],
            G=20.0,
            **common,
        ),
    ]
    base = np.eye(4)
    c, s = np.cos(0.4), np.sin(0.4)
    base[:3, :3] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    base[:3, 3] = [0.1, -0.2, 0.5]
    tool = np.eye(4)
    tool[:3, 3] = [0.0, 0.03, 0.12]
    return SerialLink(links, name="mdh-prismatic", base=base, tool=tool)


ROBOTS = {
    "puma560": puma560,
    "puma560akb": puma560akb,
    "stanford": stanford,
    "mdh-prismatic": mdh_prismatic_arm,
}


def random_state(robot: SerialLink):
    """q, qd, x (n,) with a zero rate and rates of both signs (every Coulomb branch)."""
    n = robot.n
    q, qd, x = (RNG.uniform(-1.5, 1.5, n) for _ in range(3))
    prismatic = np.asarray(robot.arrays.sigma, bool)
    q[prismatic] = RNG.uniform(0.2, 0.5, prismatic.sum())
    qd[0] = 0.0
    qd[1] = -abs(qd[1])
    qd[2] = abs(qd[2])
    return q, qd, x


def nan_work(n):
    """Work arrays full of NaN: a function that read their old contents would return NaN."""
    W, M, S = work(n)
    for a in (W, M, S):
        a.fill(np.nan)
    return W, M, S


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_the_in_place_functions_give_the_general_kernels_numbers(name):
    robot = ROBOTS[name]()
    n, a = robot.n, robot.arrays
    assert np.any(a.dyn[:, 12:] != 0.0) == (name in ("puma560", "mdh-prismatic"))  # friction
    P = pack_dynamics(robot.kin, a.dyn, a.gravity)
    zero6 = np.zeros(6)
    for _ in range(4):
        q, qd, x = random_state(robot)
        g = RNG.uniform(-10.0, 10.0, 3)
        f = RNG.uniform(-5.0, 5.0, 6)
        W, M, S = nan_work(n)
        out = np.full(n, np.nan)
        rne_into(P, q, qd, x, g, f, W, out)
        np.testing.assert_array_equal(out, rne_nb(robot.kin, a.dyn, q, qd, x, g, f))
        W, M, S = nan_work(n)
        accel_into(P, q, qd, x, W, M, S, out)
        np.testing.assert_array_equal(out, accel_nb(robot.kin, a.dyn, q, qd, x, a.gravity, zero6))
        W, M, S = nan_work(n)
        inertia_into(P, q, M, S)
        np.testing.assert_array_equal(M, inertia_nb(robot.kin, a.dyn, q.reshape(1, n))[0])
        W, C, _ = nan_work(n)
        e, col = np.full(n, np.nan), np.full(n, np.nan)
        coriolis_into(P, q, qd, W, e, col, C)
        want = coriolis_nb(robot.kin, a.dyn, q.reshape(1, n), qd.reshape(1, n))[0]
        np.testing.assert_array_equal(C, want)
        np.testing.assert_array_equal(e, np.zeros(n))


def test_work_arrays_are_disjoint_and_wide_enough():
    W, M, S = work(5)
    assert W.shape == (5, WORK) and M.shape == (5, 5) and S.shape[0] == 5
    assert S.shape[1] >= SCRATCH and W.flags.c_contiguous and S.flags.c_contiguous
    assert S.ctypes.data == W.ctypes.data + W.nbytes  # W and S: one allocation, in order
    W.fill(1.0)
    M.fill(2.0)
    S.fill(3.0)
    assert (W == 1.0).all() and (M == 2.0).all() and (S == 3.0).all()


def test_wrong_joint_counts_raise_value_errors():
    robot = puma560()
    P = pack_dynamics(robot.kin, robot.arrays.dyn, robot.gravity)
    W, M, S = work(6)
    with pytest.raises(ValueError, match="one element per joint"):
        unpack(P, 5)
    with pytest.raises(ValueError, match="one element per joint"):
        rne_into(P, np.zeros(5), np.zeros(5), np.zeros(5), np.zeros(3), np.zeros(6), W, np.zeros(5))
    with pytest.raises(ValueError, match="one element per joint"):
        accel_into(P, np.zeros(7), np.zeros(7), np.zeros(7), W, M, S, np.zeros(7))
