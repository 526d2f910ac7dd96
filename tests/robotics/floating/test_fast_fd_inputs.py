"""``FloatingBase`` methods given a view (``T[:3, :3]``), lists, float32/int or read-only arrays
convert them once at the API boundary: the same numbers as float64 arrays, the one-call forward
dynamics is only ever called with its exact types (a call that does not match costs numba's
failed dispatch, 0.3-1 ms) and no numba dispatcher compiles a new specialisation."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.floating import kernels as K
from blocksim.robotics.floating import model as fb_model

from .conftest import spacecraft_panda


def _readonly(a):
    b = np.array(a, dtype=float)
    b.flags.writeable = False
    return b


FORMS = {
    "list": lambda a: np.asarray(a).tolist(),
    "float32": lambda a: np.asarray(a, dtype=np.float32),
    "int": lambda a: np.round(a).astype(np.int64),
    "view": lambda a: np.repeat(np.asarray(a)[..., None], 2, axis=-1)[..., 0],
    "readonly": _readonly,
}


@pytest.fixture(scope="module")
def robot():
    return FloatingBase(spacecraft_panda())


def _args(robot, form=None):
    """Arguments whose values survive every form (whole numbers, a rotation of 90 deg)."""
    T = np.eye(4)
    T[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    nq = robot.nq
    vals = dict(r0=np.array([1.0, 2.0, 3.0]), t0=np.array([0.0, 1, 0, 1, 0, 0]),
                q=np.arange(nq) % 3 - 1.0, qd=np.ones(nq), tau0=np.array([1.0, 0, 0, 0, 2, 0]),
                taum=np.arange(nq, dtype=float), wF=np.ones((robot.n + 1, 6)))  # fmt: skip
    if form is None:
        return np.ascontiguousarray(T[:3, :3]), vals
    return FORMS[form](T[:3, :3]), {k: FORMS[form](v) for k, v in vals.items()}


@pytest.fixture()
def strict_fd(monkeypatch):
    real = fb_model.fd_kernel()
    seen = []

    def call(*args):
        for a in args[:-2] + args[-1:]:
            assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.carray, (
                f"the one-call kernel got {type(a).__name__} {getattr(a, 'dtype', '')}: a "
                f"failed dispatch")
        assert isinstance(args[-2], bool)
        seen.append(True)
        return real(*args)

    monkeypatch.setattr(fb_model, "_FD", call)
    return seen


@pytest.mark.parametrize("form", sorted(FORMS))
def test_forward_dynamics_converts_other_inputs_once(robot, form, strict_fd):
    R0, v = _args(robot)
    want = robot.forward_dynamics(R0, **v)
    R0f, vf = _args(robot, form)
    got = robot.forward_dynamics(R0f, **vf)
    np.testing.assert_array_equal(np.concatenate(got), np.concatenate(want))
    assert len(strict_fd) == 2


def test_the_issue_call_with_a_view_of_a_pose(robot, strict_fd):
    T = np.eye(4)
    nq = robot.nq
    a = robot.forward_dynamics(T[:3, :3], T[:3, 3], np.zeros(6), np.zeros(nq), np.zeros(nq))
    b = robot.forward_dynamics(np.eye(3), np.zeros(3), np.zeros(6), np.zeros(nq), np.zeros(nq))
    np.testing.assert_array_equal(np.concatenate(a), np.concatenate(b))
    assert len(strict_fd) == 2


def test_no_dispatcher_compiles_a_new_specialisation(robot):
    R0, v = _args(robot)
    kin = robot.kinematics(R0, v["r0"], v["q"])
    robot.forward_dynamics(R0, **v)
    robot._forward_dynamics(R0, v["r0"], v["t0"], v["q"], v["qd"], v["tau0"], v["taum"],
                            v["wF"], False, None)  # fmt: skip
    robot.inverse_dynamics(R0, v["r0"], v["t0"], v["q"], v["qd"], v["t0"], v["qd"])
    robot.velocities(kin, v["t0"], v["qd"])
    dispatchers = [fb_model.fd_kernel(), K.kinematics, K.forward_dynamics, K.velocities,
                   K.full_inverse_dynamics]  # fmt: skip
    before = [len(d.signatures) for d in dispatchers]
    for form in FORMS:
        R0f, vf = _args(robot, form)
        robot.forward_dynamics(R0f, **vf)
        kin = robot.kinematics(R0f, vf["r0"], vf["q"])
        robot.velocities(kin, vf["t0"], vf["qd"])
        robot.inverse_dynamics(R0f, vf["r0"], vf["t0"], vf["q"], vf["qd"], vf["t0"], vf["qd"])
    assert [len(d.signatures) for d in dispatchers] == before
