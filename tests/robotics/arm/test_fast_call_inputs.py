"""Lists, float32 and int arrays, non-contiguous views and read-only arrays given to the arm's
one-configuration methods are converted once at the API boundary: the same numbers as float64
arrays, the explicit-signature kernels are only ever called with their exact types (a call that
does not match costs numba's failed dispatch, 0.3-1 ms) and no numba dispatcher compiles a new
specialisation for them."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.arm import dynamics as _dyn
from blocksim.robotics.arm import fast_calls
from blocksim.robotics.arm import kinematics as _kin
from blocksim.robotics.models import puma560

RNG = np.random.default_rng(7)


def _readonly(a: np.ndarray) -> np.ndarray:
    b = a.copy()
    b.flags.writeable = False
    return b


#: how each kind of argument is made from a float64 vector, and the float64 values it holds
FORMS = {
    "list": (lambda a: a.tolist(), lambda a: a),
    "float32": (lambda a: a.astype(np.float32), lambda a: a.astype(np.float32).astype(float)),
    "int": (lambda a: np.round(a).astype(np.int64), lambda a: np.round(a)),
    "view": (lambda a: np.repeat(a, 2)[::2], lambda a: a),
    "readonly": (_readonly, lambda a: a),
}

CALLS = {
    "rne": lambda r, q, qd, qdd: r.rne(q, qd, qdd),
    "accel": lambda r, q, qd, qdd: r.accel(q, qd, qdd),
    "inertia": lambda r, q, qd, qdd: r.inertia(q),
    "jacob0": lambda r, q, qd, qdd: r.jacob0(q),
    "jacobe": lambda r, q, qd, qdd: r.jacobe(q),
    "fkine": lambda r, q, qd, qdd: r.fkine(q),
    "fkine_all": lambda r, q, qd, qdd: r.fkine(q, all=True),
    "coriolis": lambda r, q, qd, qdd: r.coriolis(q, qd),
    "gravload": lambda r, q, qd, qdd: r.gravload(q),
}

DISPATCHERS = [
    _dyn.rne_nb, _dyn.inertia_nb, _dyn.accel_nb, _dyn.coriolis_nb,
    _kin.fkine, _kin.fkine_all, _kin.jacobian,
]  # fmt: skip


@pytest.fixture()
def strict_fast(monkeypatch):
    """The fast kernels, each checking that it gets exactly its signature's types."""
    seen = []

    def wrap(name):
        real = fast_calls.kernel(name)

        def call(*args):
            for a in args:
                assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.carray, (
                    f"FAST.{name} called with {type(a).__name__} "
                    f"{getattr(a, 'dtype', '')} {getattr(a, 'flags', '')}: a failed dispatch"
                )
            seen.append(name)
            return real(*args)

        return call

    for name in ("rne", "inertia", "accel", "jacob0"):
        monkeypatch.setattr(fast_calls.FAST, name, wrap(name))
    return seen


@pytest.mark.parametrize("form", sorted(FORMS))
def test_other_inputs_give_the_float64_numbers_through_the_fast_kernels(form, strict_fast):
    robot = puma560()
    make, values = FORMS[form]
    q, qd, qdd = RNG.uniform(-1.5, 1.5, (3, 6))
    for name, call in CALLS.items():
        want = call(robot, values(q), values(qd), values(qdd))
        got = call(robot, make(q), make(qd), make(qdd))
        np.testing.assert_array_equal(got, want, err_msg=f"{name} with {form} arguments")
    assert set(strict_fast) == {"rne", "inertia", "accel", "jacob0"}


def test_no_dispatcher_compiles_a_new_specialisation_for_other_inputs():
    robot = puma560()
    q, qd, qdd = RNG.uniform(-1.5, 1.5, (3, 6))
    for call in CALLS.values():  # every kernel compiled (or loaded) for float64 arrays
        call(robot, q, qd, qdd)
    robot.rne(np.tile(q, (3, 1)), np.tile(qd, (3, 1)), np.tile(qdd, (3, 1)))
    robot.inertia(np.tile(q, (2, 1)))
    before = [len(d.signatures) for d in DISPATCHERS]
    for make, _ in FORMS.values():
        for call in CALLS.values():
            call(robot, make(q), make(qd), make(qdd))
    Q = np.tile(q, (3, 2))[:, ::2]  # trajectories: a view, float32, read-only
    for traj in (Q, Q.astype(np.float32), _readonly(Q), Q.tolist()):
        robot.rne(traj, traj, qdd)
        robot.inertia(traj)
        robot.fkine(traj)
    assert [len(d.signatures) for d in DISPATCHERS] == before


def test_trajectories_and_bad_out_arguments_skip_the_fast_kernels(strict_fast):
    robot = puma560()
    Q = RNG.uniform(-1, 1, (4, 6))
    tau = robot.rne(Q, Q, Q)
    assert tau.shape == (4, 6) and strict_fast == []  # (m, n): never offered to FAST.rne
    np.testing.assert_allclose(tau[1], robot.rne(Q[1], Q[1], Q[1]), rtol=1e-14, atol=1e-14)
    with pytest.raises(ValueError, match="out: expected an array of shape"):
        robot.rne(Q[0], Q[0], Q[0], out=np.empty(5))
    out = np.empty((6, 2))[:, 0]  # a float64 view: written by the general path
    assert robot.accel(Q[0], Q[0], Q[0], out=out) is out
    np.testing.assert_array_equal(out, robot.accel(Q[0], Q[0], Q[0]))
