"""The one-configuration fast paths of ``rne``, ``inertia``, ``accel`` and ``jacob0``
(:mod:`blocksim.robotics.arm.fast_calls`) give exactly the general kernels' numbers, fall back
to the general path for every other argument, and see parameter changes."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.arm.dynamics import accel_nb, inertia_nb, rne_nb
from blocksim.robotics.arm.fast_calls import FAST, pack_dynamics
from blocksim.robotics.arm.kinematics import jacobian
from blocksim.robotics.models import puma560, puma560akb, stanford, twolink

RNG = np.random.default_rng(2024)
ROBOTS = {"puma560": puma560, "puma560akb": puma560akb, "stanford": stanford, "twolink": twolink}


def general(robot, q, qd, x):
    """The general kernels with the arguments the methods give them."""
    a = robot.arrays
    f = np.zeros(6)
    return (
        rne_nb(robot.kin, a.dyn, q, qd, x, a.gravity, f),
        inertia_nb(robot.kin, a.dyn, q.reshape(1, -1))[0],
        accel_nb(robot.kin, a.dyn, q, qd, x, a.gravity, f),
        jacobian(robot.kin, q, False),
    )


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_fast_paths_give_the_general_kernels_numbers_bitwise(name):
    robot = ROBOTS[name]()
    n = robot.n
    for _ in range(5):
        q, qd, x = (RNG.uniform(-1.5, 1.5, n) for _ in range(3))
        q[np.asarray(robot.arrays.sigma, bool)] = RNG.uniform(0.3, 0.6)  # prismatic: in range
        qd[0] = 0.0  # the Coulomb term's zero branch
        got = (robot.rne(q, qd, x), robot.inertia(q), robot.accel(q, qd, x), robot.jacob0(q))
        for g, want in zip(got, general(robot, q, qd, x)):
            np.testing.assert_array_equal(g, want)


def test_other_arguments_take_the_general_path_with_the_same_values():
    robot = puma560()
    q, qd, x = RNG.uniform(-1, 1, (3, 6))
    ref = (robot.rne(q, qd, x), robot.inertia(q), robot.accel(q, qd, x), robot.jacob0(q))
    strided = np.repeat(q, 2)[::2]  # (read-only arrays fall back too; not compiled here)
    for qq in (q.tolist(), strided):
        np.testing.assert_array_equal(robot.rne(qq, qd, x), ref[0])
        np.testing.assert_array_equal(robot.inertia(qq), ref[1])
        np.testing.assert_array_equal(robot.accel(qq, qd, x), ref[2])
        np.testing.assert_array_equal(robot.jacob0(qq), ref[3])
    np.testing.assert_array_equal(robot.rne(np.concatenate((q, qd, x))), ref[0])  # RTB form
    rows = robot.rne(np.vstack((q, q)), np.vstack((qd, qd)), np.vstack((x, x)))
    np.testing.assert_array_equal(rows, np.vstack((ref[0], ref[0])))
    g = np.array([0.0, 0.0, 9.81])
    np.testing.assert_array_equal(robot.rne(q, qd, x, gravity=g), ref[0])


def test_wrong_sizes_raise_value_errors():
    robot = puma560()
    for call in (
        lambda: robot.rne(np.zeros(5), np.zeros(6), np.zeros(6)),
        lambda: robot.rne(np.zeros(6), np.zeros(5), np.zeros(6)),
        lambda: robot.accel(np.zeros(6), np.zeros(6), np.zeros(7)),
        lambda: robot.inertia(np.zeros(7)),
        lambda: robot.jacob0(np.zeros(5)),
    ):
        with pytest.raises(ValueError):
            call()


def test_parameter_changes_reach_the_fast_paths():
    robot = puma560()
    q, qd, x = RNG.uniform(-1, 1, (3, 6))
    before = robot.rne(q, qd, x)
    robot.gravity = [0.0, 0.0, 2 * 9.81]
    after = robot.rne(q, qd, x)
    grav = robot.gravload(q)
    np.testing.assert_allclose(after - before, grav / 2, atol=1e-12)
    T = np.eye(4)
    T[:3, 3] = [0.0, 0.0, 0.2]
    J = robot.jacob0(q)
    robot.tool = T
    assert not np.allclose(robot.jacob0(q), J)


def test_packed_parameters_and_direct_kernels():
    robot = twolink()
    a = robot.arrays
    P = pack_dynamics(robot.kin, a.dyn, a.gravity)
    assert P.shape == (robot.kin.size + 15 * robot.n + 3 + 6 + 1,)
    q, qd, x = RNG.uniform(-1, 1, (3, 2))
    out = np.empty(2)
    assert FAST.rne(P, q, qd, x, out) is None
    np.testing.assert_array_equal(out, robot.rne(q, qd, x))
    with pytest.raises(TypeError):
        FAST.rne(P, q.astype(np.float32), qd, x, out)  # no compilation for other types


def test_out_arguments_are_written_and_returned():
    robot = puma560()
    q, qd, x = RNG.uniform(-1, 1, (3, 6))
    for call, shape in (
        (lambda o: robot.rne(q, qd, x, out=o), (6,)),
        (lambda o: robot.accel(q, qd, x, out=o), (6,)),
        (lambda o: robot.inertia(q, out=o), (6, 6)),
        (lambda o: robot.jacob0(q, out=o), (6, 6)),
    ):
        ref = call(None)
        out = np.full(shape, np.nan)
        assert call(out) is out
        np.testing.assert_array_equal(out, ref)
    out = np.empty(6)  # the general path (a list) writes into out too
    assert robot.rne(q.tolist(), qd, x, out=out) is out
    np.testing.assert_array_equal(out, robot.rne(q, qd, x))
    with pytest.raises(ValueError, match="out"):
        robot.rne(q.tolist(), qd, x, out=np.empty(5))
