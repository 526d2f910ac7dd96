"""Floating-base and fixed-base dynamics against Pinocchio (an independent implementation),
recorded once in tests/data/floating/pinocchio_spacecraft_panda.json by
tests/data/floating/make_pinocchio_fixture.py (pin 4.1.0: ``aba`` with a free-flyer root,
``rnea`` with a fixed root, on diagrams/urdf/spacecraft_panda.urdf)."""

import json
from pathlib import Path

import numpy as np
import pytest

from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.floating.state import quat_to_rot
from blocksim.robotics.urdf import read_urdf

ROOT = Path(__file__).resolve().parents[3]
CASES = json.loads((ROOT / "tests/data/floating/pinocchio_spacecraft_panda.json").read_text())


@pytest.fixture(scope="module")
def robot():
    tree = read_urdf(ROOT / "diagrams/urdf/spacecraft_panda.urdf")
    return FloatingBase(tree, gravity=[0, 0, 9.81])  # RTB sign = Pinocchio's [0, 0, -9.81]


@pytest.mark.parametrize("case", CASES["floating"])
def test_free_floating_forward_dynamics_matches_pinocchio_aba(robot, case):
    """Pinocchio's free-flyer state (base frame origin, quaternion xyzw, local velocities) in
    our coordinates (base com, world twist); joint accelerations and the base angular
    acceleration (local in Pinocchio, world here) must agree."""
    q, v, tau, a = (np.array(case[k]) for k in ("q", "v", "tau", "a"))
    x, y, z, w = q[3:7]
    R = quat_to_rot(np.array([w, x, y, z]))
    c = R @ robot.tree.base.com
    omega = R @ v[3:6]
    t0 = np.concatenate([omega, R @ v[:3] + np.cross(omega, c)])
    a0, qdd = robot.forward_dynamics(R, q[:3] + c, t0, q[7:], v[6:], None, tau[6:])
    np.testing.assert_allclose(qdd, a[6:], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(a0[:3], R @ a[3:6], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("case", CASES["fixed"])
def test_fixed_base_inverse_dynamics_matches_pinocchio_rnea(robot, case):
    z6 = np.zeros(6)
    _, taum = robot.inverse_dynamics(np.eye(3), robot.tree.base.com, z6, case["q"], case["v"],
                                     z6, case["qdd"])  # fmt: skip
    np.testing.assert_allclose(taum, case["tau"], rtol=1e-10, atol=1e-10)
