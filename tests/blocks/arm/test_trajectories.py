"""Trajectory sources against RTB's sampled generators, finite differences and geometry.

The interpreted blocks call their compiled kernels, so ``kernel == output`` checks the
parameter tuples; the numbers are checked against :mod:`blocksim.robotics.trajectory`
(``jtraj``, ``tpoly``, ``lspb``, ``mstraj``, ``ctraj``) and analytic identities.
"""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import pytest

from blocksim import BlockParameterError, Diagram, simulate
from blocksim.blocks.arm import LSPB, CirclePath, CTraj, JTraj, MSTraj, MTraj
from blocksim.blocks.continuous import Integrator
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.spatial import rpy2tr, transl, trinterp
from blocksim.robotics.trajectory import ctraj, jtraj, lspb, mstraj, quintic_time_scaling, tpoly

X = np.zeros(0)
Q0 = np.array([0.0, 0.5, -1.0])
QF = np.array([1.0, -0.5, 2.0])
POSE0 = transl(0.1, 0.2, 0.3) @ rpy2tr(0.1, -0.2, 0.3)
POSE1 = transl(0.6, -0.4, 0.9) @ rpy2tr(-1.0, 0.7, 2.5)


def out(block, t):
    """The interpreted outputs at t, checked equal to the kernel's."""
    k = block.kernels()
    assert isinstance(k, Kernels) and k.deriv is None and k.update is None
    for p in k.params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable
        else:
            assert type(p) in (float, int, bool)
    assert any(v is k.output for v in vars(sys.modules[k.output.py_func.__module__]).values())
    y = block.output(t, X, ())
    yk = k.output(t, X, k.params)
    yk = yk if isinstance(yk, tuple) else (yk,)
    assert len(yk) == len(y) == len(block.outputs)
    for a, b, port in zip(y, yk, block.outputs):
        assert type(a) is type(b)
        assert np.shape(a) == port.shape
        np.testing.assert_array_equal(a, b)
    return y


def sample(block, times):
    """Outputs at each time, stacked per port: tuple of arrays (N, *shape)."""
    rows = [out(block, float(t)) for t in times]
    return tuple(np.array([r[i] for r in rows]) for i in range(len(rows[0])))


def breakpoints(block, t=-1.0):
    found = []
    while math.isfinite(t := block.next_breakpoint(t)):
        found.append(t)
    return found


def check_derivatives(block, times, h=1e-5, rtol=1e-6, atol=1e-7):
    """qd and qdd equal central differences of q and qd."""
    for t in times:
        qm, qdm, _ = out(block, t - h)
        qp, qdp, _ = out(block, t + h)
        _, qd, qdd = out(block, t)
        np.testing.assert_allclose((np.asarray(qp) - qm) / (2 * h), qd, rtol=rtol, atol=atol)
        np.testing.assert_allclose((np.asarray(qdp) - qdm) / (2 * h), qdd, rtol=rtol,
                                   atol=100 * atol)


# ---------------------------------------------------------------------------- JTraj
def test_jtraj_equals_rtb_jtraj_with_velocities():
    qd0, qdf = np.array([0.2, 0.0, -0.3]), np.array([0.0, 0.4, 0.1])
    b = JTraj(Q0, QF, 2.0, qd0=qd0, qdf=qdf)
    times = np.linspace(0.0, 2.0, 21)
    q, qd, qdd = sample(b, times)
    rq, rqd, rqdd = jtraj(Q0, QF, times, qd0, qdf)
    np.testing.assert_allclose(q, rq, rtol=0, atol=1e-15)
    np.testing.assert_allclose(qd, rqd, rtol=0, atol=1e-15)
    np.testing.assert_allclose(qdd, rqdd, rtol=0, atol=1e-15)
    np.testing.assert_allclose(q[[0, -1]], [Q0, QF], atol=1e-15)
    np.testing.assert_allclose(qd[[0, -1]], [qd0, qdf], atol=1e-14)
    check_derivatives(b, [0.3, 0.9, 1.55])


def test_jtraj_start_offset_holds_before_and_after():
    b = JTraj(Q0, QF, 1.5, start=0.5)
    assert breakpoints(b) == [0.5, 2.0]
    q, qd, qdd = out(b, 0.2)
    np.testing.assert_array_equal(q, Q0)
    assert not qd.any() and not qdd.any()
    for t in (2.0 + 1e-9, 7.0):
        q, qd, qdd = out(b, t)
        np.testing.assert_array_equal(q, QF)
        assert not qd.any() and not qdd.any()
    times = np.linspace(0.0, 1.5, 7)
    q, _, qdd = sample(b, times + 0.5)
    np.testing.assert_allclose(q, jtraj(Q0, QF, times)[0], atol=1e-14)
    np.testing.assert_allclose(qdd, jtraj(Q0, QF, times)[2], atol=1e-13)


def test_scalar_jtraj_gives_floats_equal_to_tpoly():
    b = JTraj(1.0, 3.0, 4.0, qd0=0.5, qdf=-0.25)
    assert all(p.shape == () for p in b.outputs)
    times = np.linspace(0.0, 4.0, 9)
    q, qd, qdd = sample(b, times)
    for got, ref in zip((q, qd, qdd), tpoly(1.0, 3.0, times, 0.5, -0.25)):
        np.testing.assert_allclose(got, ref, atol=1e-15)
    check_derivatives(b, [0.7, 2.2])


def test_scalar_q0_is_broadcast_to_qf():
    b = JTraj(0.0, QF, 1.0)
    assert b.outputs[0].shape == (3,)
    np.testing.assert_array_equal(out(b, 0.0)[0], np.zeros(3))


@pytest.mark.parametrize("kwargs, match", [
    (dict(q0=Q0, qf=QF, T=0.0), "'T' must be a positive"),
    (dict(q0=Q0, qf=QF[:2], T=1.0), "qf"),
    (dict(q0=Q0, qf=QF, T=1.0, qd0=[1.0, 2.0]), "qd0"),
    (dict(q0=Q0, qf=[0.0, np.nan, 1.0], T=1.0), "finite"),
    (dict(q0=Q0, qf=QF, T=1.0, start=math.inf), "start"),
])
def test_jtraj_parameter_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        JTraj(**kwargs)


# ---------------------------------------------------------------------------- LSPB / MTraj
def test_lspb_equals_rtb_lspb_per_axis_and_breaks_at_blends():
    V = np.array([0.8, 0.7, 2.0])  # in |dq| / T = 0.5, 0.5, 1.5 .. twice that
    b = LSPB(Q0, QF, 2.0, V=V)
    times = np.linspace(0.0, 2.0, 41)
    q, qd, qdd = sample(b, times)
    for j in range(3):
        for got, ref in zip((q, qd, qdd), lspb(Q0[j], QF[j], times, V[j])):
            np.testing.assert_allclose(got[:, j], ref, atol=1e-14)
    tb = 2.0 - np.abs(QF - Q0) / V
    expected = sorted({0.0, 2.0, *tb, *(2.0 - tb)})
    np.testing.assert_allclose(breakpoints(b), expected, atol=1e-15)
    assert np.all(np.abs(qd) <= V + 1e-12)
    check_derivatives(b, [0.05, 0.45, 1.0, 1.9])  # away from the blend points


def test_lspb_default_speed_and_scalar_form():
    b = LSPB(1.0, -2.0, 3.0)
    np.testing.assert_allclose(breakpoints(b), [0.0, 1.0, 2.0, 3.0], atol=1e-15)
    times = np.linspace(0.0, 3.0, 13)
    q, qd, qdd = sample(b, times)
    assert isinstance(out(b, 0.5)[0], float)
    for got, ref in zip((q, qd, qdd), lspb(1.0, -2.0, times)):
        np.testing.assert_allclose(got, ref, atol=1e-14)
    assert qd[6] == pytest.approx(1.5 * -3.0 / 3.0)


def test_lspb_speed_limits_are_rtb_errors():
    with pytest.raises(BlockParameterError, match="axis 0: lspb: V too small"):
        LSPB(0.0, 1.0, 1.0, V=0.5)
    with pytest.raises(BlockParameterError, match="axis 2: lspb: V too big"):
        LSPB(Q0, QF, 1.0, V=[1.5, 1.5, 9.0])


def test_mtraj_selects_the_profile():
    quintic = MTraj(Q0, QF, 2.0)
    V = [0.8, 0.8, 2.5]
    trap = MTraj(Q0, QF, 2.0, profile="trapezoidal", V=V)
    for t in (0.0, 0.3, 1.1, 2.0):
        for a, b in zip(out(quintic, t), out(JTraj(Q0, QF, 2.0), t)):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(out(trap, t), out(LSPB(Q0, QF, 2.0, V=V), t)):
            np.testing.assert_array_equal(a, b)
    assert not np.allclose(out(quintic, 0.3)[0], out(trap, 0.3)[0])
    with pytest.raises(BlockParameterError, match="did you mean 'quintic'"):
        MTraj(Q0, QF, 1.0, profile="quntic")
    with pytest.raises(BlockParameterError, match="only to profile='trapezoidal'"):
        MTraj(Q0, QF, 1.0, V=1.0)


# ---------------------------------------------------------------------------- MSTraj
VIA = np.array([[1.0, 2.0], [3.0, 1.0], [0.0, 0.0], [0.5, -1.0]])
MS_CASES = {
    "qdmax": dict(segments=VIA, q0=[0.0, 0.0], dt=0.1, tacc=0.4, qdmax=[2.0, 1.0]),
    "tsegment": dict(segments=VIA, q0=[0.0, 0.0], dt=0.05, tacc=[0.2, 0.3, 0.25, 0.4],
                     tsegment=[1.0, 1.3, 2.0, 0.9], qd0=[0.5, 0.0], qdf=[0.0, -0.3]),
    "odd_tacc": dict(segments=VIA[:2], q0=[0.5, 0.5], dt=0.1, tacc=0.3, qdmax=1.5),
    "no_blend": dict(segments=VIA[:3], q0=[0.0, 0.0], dt=0.1, tacc=0.0, tsegment=[1, 1, 1]),
}


@pytest.mark.parametrize("case", sorted(MS_CASES))
def test_mstraj_block_is_mstraj_at_its_rows_and_smooth_between(case):
    kw = MS_CASES[case]
    b = MSTraj(**kw)
    rows = mstraj(kw["segments"], kw.get("qdmax"), kw.get("tsegment"), kw["q0"], kw["dt"],
                  kw["tacc"], kw.get("qd0"), kw.get("qdf"))
    times = (np.arange(len(rows)) + 1) * kw["dt"]
    (q, _, _) = sample(b, times)
    np.testing.assert_allclose(q, rows, atol=1e-12)
    np.testing.assert_array_equal(out(b, 0.0)[0], kw["q0"])
    if case != "no_blend":  # without blends the velocity jumps at the start
        np.testing.assert_array_equal(out(b, 0.0)[1], kw.get("qd0", np.zeros(2)))
    bps = breakpoints(b)
    assert bps[0] == 0.0 and bps[-1] == pytest.approx(times[-1], abs=1e-12)
    np.testing.assert_allclose(np.array(bps) / kw["dt"], np.round(np.array(bps) / kw["dt"]),
                               atol=1e-9)
    q_end, qd_end, qdd_end = out(b, times[-1] + 1.0)
    np.testing.assert_array_equal(q_end, rows[-1])
    assert not qd_end.any() and not qdd_end.any()
    mids = [0.5 * (a + c) for a, c in itertools.pairwise(bps)]
    check_derivatives(b, mids, h=1e-6, rtol=1e-5, atol=1e-6)
    if case != "no_blend":  # q, qd continuous across every piece boundary
        for t in bps[1:-1]:
            for a, c in zip(out(b, t - 1e-9)[:2], out(b, t + 1e-9)[:2]):
                np.testing.assert_allclose(a, c, atol=1e-7)


def test_mstraj_start_offset_and_errors():
    kw = MS_CASES["qdmax"]
    b = MSTraj(**kw, start=2.0)
    ref = MSTraj(**kw)
    assert breakpoints(b) == pytest.approx(np.array(breakpoints(ref)) + 2.0)
    for a, c in zip(out(b, 3.05), out(ref, 1.05)):
        np.testing.assert_allclose(a, c, atol=1e-13)
    with pytest.raises(BlockParameterError, match="exactly one of qdmax and tsegment"):
        MSTraj(VIA, [0, 0], 0.1, 0.2)


# ---------------------------------------------------------------------------- CTraj
def test_ctraj_equals_rtb_ctraj_and_hits_its_endpoints():
    n = 11
    b = CTraj(POSE0, POSE1, 2.0)
    (T,) = sample(b, np.linspace(0.0, 2.0, n))
    np.testing.assert_allclose(T, ctraj(POSE0, POSE1, n), atol=1e-13)
    np.testing.assert_allclose(T[0], POSE0, atol=1e-15)
    np.testing.assert_allclose(T[-1], POSE1, atol=1e-14)
    np.testing.assert_allclose(out(b, -1.0)[0], POSE0, atol=1e-15)
    np.testing.assert_allclose(out(b, 5.0)[0], POSE1, atol=1e-14)
    np.testing.assert_allclose(breakpoints(b), [0.0, 2 / 3, 4 / 3, 2.0], atol=1e-15)
    R = T[:, :3, :3]
    np.testing.assert_allclose(R @ R.transpose(0, 2, 1), np.broadcast_to(np.eye(3), R.shape),
                               atol=1e-14)


def test_ctraj_quintic_profile_and_start():
    b = CTraj(POSE0, POSE1, 1.5, profile="quintic", start=1.0)
    assert breakpoints(b) == [1.0, 2.5]
    for t in (0.2, 0.75, 1.3):
        s = quintic_time_scaling(1.5, t)
        np.testing.assert_allclose(out(b, 1.0 + t)[0], trinterp(POSE0, POSE1, s), atol=1e-13)
    with pytest.raises(BlockParameterError, match="T1"):
        CTraj(POSE0, np.eye(3), 1.0)


# ---------------------------------------------------------------------------- CirclePath
def test_circle_radius_period_speed_and_plane():
    c = np.array([1.0, -2.0, 0.5])
    b = CirclePath(radius=0.8, centre=c, frequency=0.25, phase=0.3)
    times = np.linspace(0.0, 4.0, 17)
    p, pd = sample(b, times)
    np.testing.assert_allclose(np.linalg.norm(p - c, axis=1), 0.8, atol=1e-15)
    np.testing.assert_allclose(p[:, 2], 0.5, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(pd, axis=1), 2 * math.pi * 0.25 * 0.8, atol=1e-14)
    np.testing.assert_allclose(p[-1], p[0], atol=1e-14)  # period 1 / f = 4 s
    assert not np.allclose(out(b, 2.0)[0], p[0])
    np.testing.assert_allclose(p[0], c + 0.8 * np.array([math.cos(0.3), math.sin(0.3), 0.0]),
                               atol=1e-15)
    h = 1e-6
    np.testing.assert_allclose((out(b, 1.3 + h)[0] - out(b, 1.3 - h)[0]) / (2 * h),
                               out(b, 1.3)[1], atol=1e-8)


def test_circle_default_is_roblocks_and_counter_clockwise():
    b = CirclePath()
    np.testing.assert_allclose(out(b, 0.0)[0], [1.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(out(b, 1.25)[0], [0.0, 1.0, 0.0], atol=1e-15)  # 0.2 rev/s
    down = CirclePath(normal=[0.0, 0.0, -2.0])
    np.testing.assert_allclose(out(down, 1.25)[0], [0.0, -1.0, 0.0], atol=1e-15)


def test_circle_normal_and_pose_output():
    n = np.array([1.0, 2.0, -0.5]) / np.linalg.norm([1.0, 2.0, -0.5])
    for f in (0.5, -0.5):
        b = CirclePath(radius=2.0, centre=[0.0, 1.0, 0.0], frequency=f, normal=n * 3,
                       pose=True)
        assert [p.name for p in b.outputs] == ["p", "pd", "pose"]
        for t in (0.0, 0.4, 1.7):
            p, pd, T = out(b, t)
            np.testing.assert_allclose((p - [0.0, 1.0, 0.0]) @ n, 0.0, atol=1e-15)
            np.testing.assert_allclose(np.linalg.norm(p - [0, 1, 0]), 2.0, atol=1e-15)
            R = T[:3, :3]
            np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)
            assert np.linalg.det(R) == pytest.approx(1.0)
            np.testing.assert_allclose(R[:, 0], pd / np.linalg.norm(pd), atol=1e-15)
            np.testing.assert_allclose(R[:, 2], n, atol=1e-15)
            np.testing.assert_array_equal(T[:3, 3], p)
        # counter-clockwise about the normal for f > 0
        p0, pd0, _ = out(b, 0.0)
        assert np.sign(np.cross(p0 - [0, 1, 0], pd0) @ n) == np.sign(f)
    with pytest.raises(BlockParameterError, match="normal"):
        CirclePath(normal=[0, 0, 0])
    with pytest.raises(BlockParameterError, match="radius"):
        CirclePath(radius=-1.0)


# ---------------------------------------------------------------------------- in a diagram
def source_diagram() -> Diagram:
    d = Diagram("trajectories")
    d.add(JTraj(Q0, QF, 1.0, qd0=[0.1, 0.0, 0.0], start=0.2), name="jtraj")
    d.add(JTraj(0.0, 1.0, 1.5), name="jtraj_s")
    d.add(LSPB(Q0, QF, 1.2, start=0.3), name="lspb")
    d.add(LSPB(2.0, 1.0, 1.0), name="lspb_s")
    d.add(MSTraj(**MS_CASES["qdmax"]), name="ms")
    d.add(CTraj(POSE0, POSE1, 1.4), name="ctraj")
    d.add(CirclePath(radius=0.5, frequency=1.0), name="circle")
    d.add(CirclePath(frequency=0.5, normal=[0, 1, 1], pose=True), name="circle_T")
    d.add(Integrator(x0=Q0), name="int")
    d.connect("lspb.qd", "int")
    return d


def test_sources_in_a_diagram_both_backends_agree():
    a = simulate(source_diagram(), 2.0, "rk4", dt=0.05)
    b = simulate(source_diagram(), 2.0, "rk4", dt=0.05, backend="compiled")
    assert b.stats["backend"] == "compiled"
    np.testing.assert_allclose(b.t, a.t, atol=1e-12)
    for sig in ("jtraj.q", "jtraj.qd", "jtraj.qdd", "jtraj_s.q", "lspb.q", "lspb.qdd",
                "lspb_s.qd", "ms.q", "ms.qd", "ctraj.y", "circle.p", "circle.pd",
                "circle_T.pose", "int.y"):
        np.testing.assert_allclose(b[sig], a[sig], rtol=1e-12, atol=1e-12, err_msg=sig)
    assert a["ctraj.y"].shape == (len(a.t), 4, 4) and a["jtraj_s.q"].shape == (len(a.t),)
    for bp in (0.2, 0.3, 0.7, 1.2, 1.5):  # breakpoints are major times of the run
        assert np.min(np.abs(a.t - bp)) < 1e-12
    # the integral of qd is q (rk4 is exact on the piecewise quadratic between breakpoints)
    np.testing.assert_allclose(a["int.y"], a["lspb.q"], atol=1e-13)


@pytest.mark.parametrize("block", [
    JTraj(Q0, QF, 1.0, qd0=0.1, start=0.5), LSPB(1.0, 2.0, 1.0, V=1.2), MTraj(Q0, QF, 2.0,
    profile="trapezoidal"), MSTraj(**MS_CASES["tsegment"]), CTraj(POSE0, POSE1, 1.0,
    profile="quintic"), CirclePath(radius=2.0, normal=[1, 0, 0], pose=True)],
    ids=lambda b: type(b).__name__)
def test_blocks_rebuild_from_their_params(block):
    again = type(block)(**block.params)
    assert repr(again) == repr(block)
    assert breakpoints(again) == breakpoints(block)
    for a, b in zip(out(again, 0.6), out(block, 0.6)):
        np.testing.assert_array_equal(a, b)
