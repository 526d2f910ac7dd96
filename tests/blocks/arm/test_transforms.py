"""Transform blocks: identities, round trips, the robotics core, and kernels == interpreted.

Every kernel is called as the compiled back-end calls it, ``kernel(t, x, *u, params)``, with
C-contiguous float64 arrays (one numba signature each), and compared with the block's
interpreted ``output`` (which calls :mod:`blocksim.robotics.spatial`).
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from blocksim import BlockParameterError, Diagram, simulate
from blocksim.blocks.arm import (
    AngDiff,
    Delta2Tr,
    EulToTr,
    RPYToTr,
    Tr2Delta,
    TrInverse,
    TrMultiply,
    TrToEul,
    TrToRPY,
    TrToXYZ,
    XYZToTr,
)
from blocksim.blocks.sources import Sine
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.spatial import (
    angdiff,
    eul2tr,
    rpy2tr,
    tr2delta,
    transl,
    trexp,
    trotx,
    troty,
    trotz,
)

X = np.zeros(0)
RNG = np.random.default_rng(7)


def pose(rpy, p) -> np.ndarray:
    return np.ascontiguousarray(transl(p) @ rpy2tr(rpy))


POSES = [pose(RNG.uniform(-3, 3, 3), RNG.uniform(-2, 2, 3)) for _ in range(6)] + [
    np.eye(4), pose([0.3, math.pi / 2, -0.4], [1, 2, 3]), pose([math.pi, 0.0, 0.0], [0, 0, 0])]


def kernel_out(block, *u):
    k = block.kernels()
    assert isinstance(k, Kernels) and k.deriv is None and k.update is None
    for p in k.params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable
        else:
            assert type(p) in (float, int, bool)
    module = sys.modules[k.output.py_func.__module__]
    assert any(v is k.output for v in vars(module).values())
    return k.output(0.25, X, *u, k.params)


def both(block, *u, tol=1e-14):
    """The interpreted output and the kernel's, checked equal; returns the interpreted one."""
    (y,) = block.output(0.25, X, u)
    yk = kernel_out(block, *u)
    if isinstance(y, float):
        assert isinstance(yk, float)
    else:
        assert isinstance(yk, np.ndarray) and yk.shape == y.shape and yk.dtype == np.float64
    np.testing.assert_allclose(yk, y, rtol=tol, atol=tol)
    return y


# ---------------------------------------------------------------------------- differential
@pytest.mark.parametrize("k", range(len(POSES)))
def test_tr2delta_equals_rtb_and_the_exact_small_motion(k):
    T0 = POSES[k]
    w = np.array([0.02, -0.05, 0.03])
    dp = np.array([0.1, -0.2, 0.05])
    T1 = np.eye(4)
    T1[:3, :3] = trexp(w) @ T0[:3, :3]
    T1[:3, 3] = T0[:3, 3] + dp
    d = both(Tr2Delta(), T0, T1)
    np.testing.assert_allclose(d, tr2delta(T0, T1), atol=1e-15)
    np.testing.assert_allclose(d[:3], dp, atol=1e-15)
    # vex(exp([w]) - I) = sin|w| / |w| * w exactly
    th = np.linalg.norm(w)
    np.testing.assert_allclose(d[3:], math.sin(th) / th * w, atol=1e-15)


def test_delta2tr_and_tr2delta_round_trip():
    for d in RNG.uniform(-0.5, 0.5, (5, 6)):
        T = both(Delta2Tr(), d)
        np.testing.assert_array_equal(T[3], [0, 0, 0, 1])
        np.testing.assert_array_equal(T[:3, 3], d[:3])
        np.testing.assert_allclose(T[:3, :3] + T[:3, :3].T, 2 * np.eye(3), atol=0)
        np.testing.assert_allclose(both(Tr2Delta(), np.eye(4), T), d, atol=1e-16)


def test_delta2tr_is_first_order_exponential():
    d = np.array([1e-4, -2e-4, 3e-4, 1e-4, 2e-4, -1e-4])
    np.testing.assert_allclose(both(Delta2Tr(), d), trexp(d), atol=1e-7)


# ---------------------------------------------------------------------------- products
@pytest.mark.parametrize("k", range(len(POSES)))
def test_trinverse_is_the_inverse(k):
    T = POSES[k]
    Ti = both(TrInverse(), T, tol=1e-15)
    np.testing.assert_allclose(Ti @ T, np.eye(4), atol=1e-14)
    np.testing.assert_allclose(T @ Ti, np.eye(4), atol=1e-14)
    np.testing.assert_allclose(Ti, np.linalg.inv(T), atol=1e-13)


def test_trmultiply_two_inputs_and_constant_pose_sides():
    A, B = POSES[0], POSES[1]
    np.testing.assert_allclose(both(TrMultiply(), A, B), A @ B, atol=1e-14)
    post = TrMultiply(pose=B)
    pre = TrMultiply(pose=B, side="pre")
    assert [p.name for p in post.inputs] == ["u"]
    assert [p.name for p in TrMultiply().inputs] == ["u0", "u1"]
    np.testing.assert_allclose(both(post, A), A @ B, atol=1e-14)
    np.testing.assert_allclose(both(pre, A), B @ A, atol=1e-14)
    assert not np.allclose(A @ B, B @ A)
    # the block keeps its own copy of the constant pose
    P = np.array(B)
    blk = TrMultiply(pose=P)
    P[0, 3] += 1.0
    np.testing.assert_allclose(blk.output(0.0, X, (np.eye(4),))[0], B)


@pytest.mark.parametrize("kwargs, match", [
    (dict(side="left"), "side"),
    (dict(pose=np.eye(3)), "pose"),
    (dict(pose=2 * np.eye(4)), "not a rigid transform"),
    (dict(pose=np.diag([1.0, 1.0, -1.0, 1.0])), "det"),
    (dict(posse=np.eye(4)), "unknown parameter 'posse'"),
])
def test_trmultiply_parameter_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        TrMultiply(**kwargs)


# ---------------------------------------------------------------------------- conversions
def test_xyz_round_trip():
    p = np.array([0.5, -1.25, 2.0])
    T = both(XYZToTr(), p)
    np.testing.assert_array_equal(T, transl(p))
    for T in POSES:
        np.testing.assert_array_equal(both(TrToXYZ(), T), T[:3, 3])
    np.testing.assert_array_equal(both(TrToXYZ(), both(XYZToTr(), p)), p)


ANGLES = [RNG.uniform([-3, -1.5, -3], [3, 1.5, 3]) for _ in range(6)] + [
    np.array([0.3, math.pi / 2, 0.2]), np.array([0.1, -math.pi / 2 + 1e-9, -0.7]),
    np.zeros(3), np.array([math.pi, 0.2, -math.pi / 3])]


@pytest.mark.parametrize("order", ["xyz", "zyx"])
def test_rpy_round_trip_and_meaning(order):
    to_tr, from_tr = RPYToTr(order=order), TrToRPY(order=order)
    for a in ANGLES:
        T = both(to_tr, a)
        np.testing.assert_allclose(T, rpy2tr(a, order=order), atol=1e-15)
        back = both(from_tr, T)
        np.testing.assert_allclose(both(to_tr, back), T, atol=1e-12)  # same rotation
        if abs(abs(a[1]) - math.pi / 2) > 1e-6 and abs(abs(a[0]) - math.pi) > 1e-9:
            np.testing.assert_allclose(back, a, atol=1e-12)  # unique solution
    a = np.array([0.1, 0.2, 0.3])
    expected = (trotx(0.1) @ troty(0.2) @ trotz(0.3) if order == "xyz"
                else trotz(0.1) @ troty(0.2) @ trotx(0.3))
    np.testing.assert_allclose(both(to_tr, a), expected, atol=1e-15)


@pytest.mark.parametrize("flip", [False, True])
def test_eul_round_trip_flip_and_singularity(flip):
    to_tr, from_tr = EulToTr(), TrToEul(flip=flip)
    for a in ([0.3, 1.1, -0.4], [-2.0, 2.5, 1.0], [0.5, 0.0, 0.25], [0.5, math.pi, 0.25]):
        T = both(to_tr, np.array(a))
        np.testing.assert_allclose(T, eul2tr(a), atol=1e-15)
        np.testing.assert_allclose(T, trotz(a[0]) @ troty(a[1]) @ trotz(a[2]), atol=1e-15)
        e = both(from_tr, T)
        assert (e[1] <= 1e-15) if flip else (e[1] >= 0.0)
        np.testing.assert_allclose(both(to_tr, e), T, atol=1e-12)
    e = both(from_tr, eul2tr([0.5, 0.0, 0.25]))  # singular: phi = 0, psi carries the sum
    np.testing.assert_allclose(e, [0.0, 0.0, 0.75], atol=1e-15)
    with pytest.raises(BlockParameterError, match="flip"):
        TrToEul(flip="yes")


def test_rpy_order_is_checked():
    with pytest.raises(BlockParameterError, match="'order' must be one of 'xyz', 'zyx'"):
        TrToRPY(order="yxz")


# ---------------------------------------------------------------------------- angdiff
def test_angdiff_wraps_to_minus_pi_pi():
    b = AngDiff()
    cases = [(3.0, -3.0, 6.0 - 2 * math.pi), (math.pi, 0.0, -math.pi), (0.1, 0.3, -0.2),
             (-math.pi, math.pi, 0.0), (10.0, 0.0, 10.0 - 4 * math.pi), (0.0, 1e-17, -1e-17)]
    for a, c, expected in cases:
        y = both(b, a, c, tol=0.0)
        assert -math.pi <= y < math.pi
        assert y == pytest.approx(expected, abs=1e-14)
    vals = RNG.uniform(-20, 20, 200)
    for a, c in zip(vals[:100], vals[100:]):
        y = both(b, float(a), float(c), tol=0.0)
        assert y == angdiff(float(a), float(c))
        assert -math.pi <= y < math.pi
        assert math.isclose(math.remainder(a - c - y, 2 * math.pi), 0.0, abs_tol=1e-12)


def test_angdiff_vectors_and_broadcast():
    b = AngDiff()
    u0 = np.ascontiguousarray(RNG.uniform(-10, 10, 5))
    u1 = np.ascontiguousarray(RNG.uniform(-10, 10, 5))
    np.testing.assert_array_equal(both(b, u0, u1, tol=0.0), angdiff(u0, u1))
    np.testing.assert_array_equal(both(b, u0, 2.0, tol=0.0), angdiff(u0, 2.0))
    np.testing.assert_array_equal(both(b, 2.0, u1, tol=0.0), angdiff(2.0, u1))


# ---------------------------------------------------------------------------- in a diagram
def transform_diagram() -> Diagram:
    d = Diagram("transforms")
    d.add(Sine(amplitude=[0.5, 0.4, 1.2], frequency=[0.3, 0.5, 0.2], phase=[0.1, 0.2, 0.3]),
          name="ang")
    d.add(Sine(amplitude=[1.0, 2.0, 0.5], frequency=0.4, bias=[0.0, 1.0, -1.0]), name="pos")
    d.add(RPYToTr(order="zyx"), name="rot")
    d.add(XYZToTr(), name="tra")
    d.add(TrMultiply(), name="T")
    d.add(TrMultiply(pose=pose([0.2, -0.1, 0.3], [0.1, 0.0, 0.2]), side="pre"), name="Tpre")
    d.add(TrInverse(), name="inv")
    d.add(Tr2Delta(), name="delta")
    d.add(Delta2Tr(), name="dtr")
    d.add(TrToXYZ(), name="xyz")
    d.add(TrToRPY(), name="rpy")
    d.add(TrToEul(), name="eul")
    d.add(EulToTr(), name="eultr")
    d.add(AngDiff(), name="adiff")
    d.connect("ang", "rot", "eultr", "adiff.u0")
    d.connect("pos", "tra", "adiff.u1")
    d.connect("tra", "T.u0")
    d.connect("rot", "T.u1")
    d.connect("T", "Tpre", "inv", "delta.u0", "xyz", "rpy")
    d.connect("Tpre", "delta.u1")
    d.connect("delta", "dtr")
    d.connect("eultr", "eul")
    return d


def test_transform_diagram_both_backends_agree():
    a = simulate(transform_diagram(), 2.0, "rk4", dt=0.1)
    b = simulate(transform_diagram(), 2.0, "rk4", dt=0.1, backend="compiled")
    assert b.stats["backend"] == "compiled"
    np.testing.assert_allclose(b.t, a.t, atol=1e-12)
    for name in ("rot", "tra", "T", "Tpre", "inv", "delta", "dtr", "xyz", "rpy", "eul",
                 "eultr", "adiff"):
        np.testing.assert_allclose(b[f"{name}.y"], a[f"{name}.y"], rtol=1e-12, atol=1e-12,
                                   err_msg=name)
    T, Ti = a["T.y"], a["inv.y"]
    assert T.shape == (len(a.t), 4, 4) and a["delta.y"].shape == (len(a.t), 6)
    np.testing.assert_allclose(T @ Ti, np.broadcast_to(np.eye(4), T.shape), atol=1e-13)
    np.testing.assert_allclose(a["xyz.y"], a["pos.y"], atol=1e-15)
    np.testing.assert_allclose(a["eultr.y"], [eul2tr(v) for v in a["ang.y"]], atol=1e-14)
    R = a["rot.y"][5, :3, :3]
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)


@pytest.mark.parametrize("block", [
    Tr2Delta(), Delta2Tr(), TrInverse(), TrMultiply(), TrMultiply(pose=POSES[2], side="pre"),
    TrToXYZ(), XYZToTr(), TrToRPY(order="zyx"), RPYToTr(), TrToEul(flip=True), EulToTr(),
    AngDiff()], ids=lambda b: type(b).__name__)
def test_blocks_rebuild_from_their_params(block):
    again = type(block)(**block.params)
    assert repr(again) == repr(block)
    assert [p.name for p in again.inputs] == [p.name for p in block.inputs]
    u = tuple(POSES[3] if p.shape == (4, 4) else np.arange(1.0, 1.0 + p.shape[0]) * 0.1
              if p.shape else 0.7 for p in block.inputs)
    np.testing.assert_array_equal(again.output(0.0, X, u)[0], block.output(0.0, X, u)[0])
