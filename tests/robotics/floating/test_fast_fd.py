"""The one-call forward dynamics (:mod:`blocksim.robotics.floating.fast_fd`, the path
``FloatingBase.forward_dynamics`` takes for float64 arrays) against the general kernel
(:func:`blocksim.robotics.floating.kernels.forward_dynamics`) on random states: free and held
base, gravity, base wrench, external wrenches on fixed and movable bodies, a branched tree
with prismatic joints (the Panda's fingers), a zero-mass link carrying a rotor inertia and
fixed bodies merged into their parents (the Puma 560 tree)."""

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.floating import kernels as K
from blocksim.robotics.floating.fast_fd import pack_fd
from blocksim.robotics.models import puma560
from blocksim.robotics.urdf import Body, TreeModel, read_urdf, serial_to_tree

from .conftest import spacecraft_panda

ROOT = Path(__file__).resolve().parents[3]


def _trees():
    return {
        "panda_fingers": spacecraft_panda(),  # 13 bodies, 9 coordinates, 4 fixed joints
        "spacecraft_panda_urdf": read_urdf(ROOT / "diagrams" / "urdf" / "spacecraft_panda.urdf"),
        "puma560": serial_to_tree(puma560(), base_mass=1.0, base_inertia=np.eye(3)),
    }


@pytest.fixture(scope="module", params=list(_trees()))
def tree(request):
    return _trees()[request.param]


def _states(tree, count, seed):
    rng = np.random.default_rng(seed)
    nq = tree.nq
    for k in range(count):
        fixed = k % 5 == 0
        yield dict(
            R0=Rotation.random(random_state=seed + k).as_matrix(),
            r0=rng.normal(size=3),
            t0=rng.normal(size=6) * (not fixed or k % 10 == 0),  # a held base may still move
            q=rng.normal(size=nq) * 2,
            qd=rng.normal(size=nq),
            tau0=rng.normal(size=6) * (k % 3),
            taum=rng.normal(size=nq) * 5,
            wF=rng.normal(size=(tree.n + 1, 6)) * (k % 4 == 0),
            gravity=rng.normal(size=3) * 5 * (k % 2),
            fixed=fixed,
        )


def test_fast_path_equals_the_general_kernel(tree):
    robot = FloatingBase(tree)
    for s in _states(tree, 60, seed=5):
        robot.gravity = s["gravity"]  # the packed vector follows the attribute
        args = (s["R0"], s["r0"], s["t0"], s["q"], s["qd"], s["tau0"], s["taum"], s["wF"])
        a0, qdd = K.forward_dynamics(robot.mdl, *args, s["gravity"], s["fixed"])
        b0, bdd = robot.forward_dynamics(*args, fixed=s["fixed"])
        ref, got = np.concatenate([a0, qdd]), np.concatenate([b0, bdd])
        # same numbers to rounding: H is solved by another algorithm (world-frame CRBA with
        # the fixed bodies merged), so not bit for bit
        assert np.abs(got - ref).max() <= 1e-12 * max(1.0, np.abs(ref).max())
        if s["fixed"]:
            assert not b0.any()


def test_other_arguments_are_converted_once_and_agree(tree):
    """Lists and float32 arrays are not what the compiled entry point takes: the method
    converts them once and calls it (never a failed dispatch); an ``out`` array is filled in
    both paths; other ranks take the general kernel."""
    robot = FloatingBase(tree)
    s = next(_states(tree, 1, seed=11))
    args = (s["R0"], s["r0"], s["t0"], s["q"], s["qd"], s["tau0"], s["taum"], s["wF"])
    ref = K.forward_dynamics(robot.mdl, *args, robot.gravity, False)
    fast = np.concatenate(robot.forward_dynamics(*args))
    listed = np.concatenate(robot.forward_dynamics(*(a.tolist() for a in args)))
    np.testing.assert_array_equal(listed, fast)  # the same kernel
    np.testing.assert_allclose(listed, np.concatenate(ref), rtol=1e-12, atol=1e-12)
    flat = robot.forward_dynamics(s["R0"].ravel(), *args[1:])  # R0 (9,): the general kernel
    np.testing.assert_array_equal(np.concatenate(flat), np.concatenate(ref))
    out = np.full(6 + tree.nq, np.nan)
    a0, qdd = robot.forward_dynamics(*args, out=out)
    assert np.shares_memory(a0, out) and np.shares_memory(qdd, out)
    np.testing.assert_allclose(out, np.concatenate(ref), rtol=1e-12, atol=1e-12)
    out[:] = np.nan
    robot.forward_dynamics(*(a.astype(np.float32) for a in args), out=out)
    np.testing.assert_allclose(out[6:], robot.forward_dynamics(*args)[1], rtol=1e-5, atol=1e-5)


def test_bad_shapes_raise_value_errors_on_both_paths():
    robot = FloatingBase(spacecraft_panda())
    R0, z3, z6, zq = np.eye(3), np.zeros(3), np.zeros(6), np.zeros(robot.nq)
    with pytest.raises(ValueError, match=r"q, qd and taum \(nq,\)"):
        robot.forward_dynamics(R0, z3, z6, np.zeros(robot.nq + 1), zq)  # fast path
    with pytest.raises(ValueError, match=r"r0 \(3,\)"):
        robot.forward_dynamics(R0, np.zeros(4), z6, zq, zq)
    with pytest.raises(ValueError, match=r"q, qd and taum \(nq,\)"):
        robot.forward_dynamics(R0, z3, z6, [0.0] * 8, zq)  # a list: converted, fast path
    with pytest.raises(ValueError, match="q must have 9 elements"):
        robot.forward_dynamics(R0, z3, z6, [[0.0] * 8], zq)  # (1, 8): general path
    with pytest.raises(ValueError, match=r"out must be an array of shape \(15,\)"):
        robot.forward_dynamics(R0, z3, z6, zq, zq, out=[0.0] * 15)


def test_packing_merges_fixed_bodies_and_keeps_mass_and_momentum_data():
    """The Panda-on-a-spacecraft URDF has 11 bodies (4 on fixed joints): the packed model has
    the 7 movable ones; total mass is kept and every body's wrench owner is recorded."""
    tree = read_urdf(ROOT / "diagrams" / "urdf" / "spacecraft_panda.urdf")
    P = pack_fd(tree, np.array([0.0, 0.0, 9.81]))
    nb = int(P[0])
    assert (nb, int(P[1]), int(P[2])) == (7, 7, 11)
    np.testing.assert_array_equal(P[3:6], [0.0, 0.0, 9.81])
    masses = P[9] + sum(P[22 + 31 * j + 17] for j in range(nb))
    assert masses == pytest.approx(tree.mass, rel=1e-15)
    owners = P[22 + 31 * nb :: 4]
    assert len(owners) == tree.n + 1 and set(owners) <= set(range(nb + 1))


def test_not_positive_definite_gives_nan_like_the_general_kernel():
    """A massless base link with one massless revolute body: H is singular, both paths give
    NaN; with the base held only the joint block counts (the base rates stay 0)."""
    base = Body("b", -1, "", 0, (0, 0, 1.0), np.eye(4))
    tree = TreeModel("massless", base, (Body("l", -1, "j", 1, (0, 0, 1.0), np.eye(4)),))
    robot = FloatingBase(tree)
    z1, z6, z3 = np.zeros(1), np.zeros(6), np.zeros(3)
    for fixed in (False, True):
        ref = K.forward_dynamics(robot.mdl, np.eye(3), z3, z6, z1, z1, z6, z1,
                                 np.zeros((2, 6)), z3, fixed)  # fmt: skip
        got = robot.forward_dynamics(np.eye(3), z3, z6, z1, z1, fixed=fixed)
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(a, b)
        assert np.isnan(got[1]).all() and (not got[0].any() if fixed else np.isnan(got[0]).all())
