"""The compiled kernels of the arm dynamics blocks against the general kernels of the robotics
core (``rne_nb``, ``accel_nb``, ``inertia_nb``, ``coriolis_nb``), on random states of the Puma
560 (standard DH, friction) and of a modified-DH arm with a prismatic joint, friction, gears,
base and tool: every input variant of InverseDynamics (gravity and end wrench as parameters or
inputs), Gravload, ForwardDynamics (outputs and derivative), Inertia and Coriolis.

Kernels are called as the compiled back-end calls them, ``kernel(t, x, *u, params)``; the
packed-parameter kernels do the general kernels' arithmetic in the same order, so the numbers
agree to rounding (bitwise when called from Python, as here).
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.blocks.arm.arm_params import EMPTY
from blocksim.blocks.arm.dynamics import (
    Coriolis,
    ForwardDynamics,
    Gravload,
    Inertia,
    InverseDynamics,
)
from blocksim.robotics.arm.dynamics import accel_nb, coriolis_nb, inertia_nb, rne_nb
from blocksim.robotics.models import puma560
from tests.robotics.arm.test_dynamics_into import mdh_prismatic_arm, random_state

RNG = np.random.default_rng(1208)
ROBOTS = {"puma560": puma560, "mdh-prismatic": mdh_prismatic_arm}
ZERO6 = np.zeros(6)


def run(block, *u, x=EMPTY, deriv=False):
    k = block.kernels()
    f = k.deriv if deriv else k.output
    return f(0.0, x, *u, k.params)


def equal(got, want):
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_inverse_dynamics_kernels_are_rne(name):
    robot = ROBOTS[name]()
    kin, dyn = robot.kin, robot.arrays.dyn
    g0 = robot.gravity
    for _ in range(3):
        q, qd, qdd = random_state(robot)
        g = RNG.uniform(-10.0, 10.0, 3)
        f = RNG.uniform(-5.0, 5.0, 6)
        equal(run(InverseDynamics(robot), q, qd, qdd), rne_nb(kin, dyn, q, qd, qdd, g0, ZERO6))
        equal(
            run(InverseDynamics(robot, gravity=False), q, qd, qdd),
            rne_nb(kin, dyn, q, qd, qdd, np.zeros(3), ZERO6),
        )
        equal(
            run(InverseDynamics(robot, gravity=g), q, qd, qdd),
            rne_nb(kin, dyn, q, qd, qdd, g, ZERO6),
        )
        equal(
            run(InverseDynamics(robot, gravity="input"), q, qd, qdd, g),
            rne_nb(kin, dyn, q, qd, qdd, g, ZERO6),
        )
        equal(
            run(InverseDynamics(robot, fext=True), q, qd, qdd, f),
            rne_nb(kin, dyn, q, qd, qdd, g0, f),
        )
        equal(
            run(InverseDynamics(robot, gravity="input", fext=True), q, qd, qdd, g, f),
            rne_nb(kin, dyn, q, qd, qdd, g, f),
        )
        equal(
            run(InverseDynamics(robot, gravity=g, fext=True), q, qd, qdd, f),
            rne_nb(kin, dyn, q, qd, qdd, g, f),
        )
        z = np.zeros(robot.n)
        equal(run(Gravload(robot), q), rne_nb(kin, dyn, q, z, z, g0, ZERO6))
        equal(run(Gravload(robot, gravity=g), q), rne_nb(kin, dyn, q, z, z, g, ZERO6))


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_forward_dynamics_kernels_are_accel(name):
    robot = ROBOTS[name]()
    kin, dyn, n = robot.kin, robot.arrays.dyn, robot.n
    plant = ForwardDynamics(robot)
    for _ in range(3):
        q, qd, tau = random_state(robot)
        tau *= 20.0
        x = np.concatenate((q, qd))
        qdd = accel_nb(kin, dyn, q, qd, tau, robot.gravity, ZERO6)
        got = run(plant, tau, x=x)
        assert len(got) == 3
        equal(got[0], q)
        equal(got[1], qd)
        equal(got[2], qdd)
        equal(run(plant, tau, x=x, deriv=True), np.concatenate((qd, qdd)))
        got[0][0] = np.nan  # outputs are copies: the state is not changed through them
        assert np.isfinite(x).all()
        # accel inverts rne: rne(q, qd, accel(q, qd, tau)) = tau
        np.testing.assert_allclose(
            run(InverseDynamics(robot), q, qd, qdd), tau, rtol=1e-9, atol=1e-9 * np.abs(tau).max()
        )
    assert len(run(ForwardDynamics(robot, qdd=False), np.zeros(n), x=x)) == 2


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_inertia_and_coriolis_kernels(name):
    robot = ROBOTS[name]()
    kin, dyn, n = robot.kin, robot.arrays.dyn, robot.n
    for _ in range(3):
        q, qd, _ = random_state(robot)
        M = run(Inertia(robot), q)
        equal(M, inertia_nb(kin, dyn, q.reshape(1, n))[0])
        C = run(Coriolis(robot), q, qd)
        equal(C, coriolis_nb(kin, dyn, q.reshape(1, n), qd.reshape(1, n))[0])
        h = 1e-6  # dM/dt - 2 C is skew-symmetric
        Md = (run(Inertia(robot), q + h * qd) - run(Inertia(robot), q - h * qd)) / (2 * h)
        np.testing.assert_allclose(Md - 2 * C, -(Md - 2 * C).T, atol=1e-6)


def test_wrong_sizes_name_the_block():
    robot = puma560()
    with pytest.raises(ValueError, match="ForwardDynamics: tau must have one element"):
        run(ForwardDynamics(robot), np.zeros(5), x=np.zeros(12), deriv=True)
    with pytest.raises(ValueError, match="InverseDynamics: q, qd and qdd"):
        run(InverseDynamics(robot), np.zeros(6), np.zeros(5), np.zeros(6))
    with pytest.raises(ValueError, match="Coriolis: q and qd"):
        run(Coriolis(robot), np.zeros(6), np.zeros(4))
