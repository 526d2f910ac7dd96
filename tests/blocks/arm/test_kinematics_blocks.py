"""Arm kinematics blocks: the robotics core, numpy, identities, kernels == interpreted, and a
diagram in both back-ends.

Kernels are called as the compiled back-end calls them, ``kernel(t, x, *u, params)``: a
read-only empty ``x`` for stateless blocks (as the generated module's), C-contiguous float64
inputs, so each kernel compiles once for the tests and the diagrams together.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from blocksim import BlockParameterError, Diagram, NonFiniteError, simulate
from blocksim.blocks.arm.arm_params import EMPTY
from blocksim.blocks.arm.kinematics import FKine, IKine, IKine6s, JacobDot, Jacobian
from blocksim.blocks.sources import Constant, Sine
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.arm.ikine import ikine
from blocksim.robotics.models import puma560, twolink
from blocksim.robotics.spatial import transl, trlog, trotx

P560 = puma560()
RNG = np.random.default_rng(20240611)
#: random configurations inside the joint limits, the wrist away from its singularity (q5 = 0)
QS = [RNG.uniform([-1.5, -0.7, -1.5, -1.5, 0.3, -2.0], [1.5, 1.5, 0.7, 1.5, 1.2, 2.0])
      for _ in range(4)]
QD = RNG.uniform(-1.0, 1.0, 6)


def kernel_out(block, *u, x=EMPTY):
    """The block's output kernel called as the compiled back-end calls it; checks the
    parameter contract."""
    k = block.kernels()
    assert isinstance(k, Kernels)
    module = sys.modules[k.output.py_func.__module__]
    assert getattr(module, k.output.py_func.__name__) is k.output
    for p in k.params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable
        else:
            assert type(p) in (float, int, bool)
    return k.output(0.0, x, *u, k.params)


def close(a, b):
    """Equal to rounding: a kernel inlined into another compiled function may round
    differently (fused multiply-adds) from the same kernel called from Python."""
    b = np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(b).max()))


def interp(block, *u, x=EMPTY):
    return block.output(0.0, x, u)


def names(ports) -> list[str]:
    return [p.name for p in ports]


# ---------------------------------------------------------------------------- construction
def test_ports_shapes_and_feedthrough():
    b = FKine(P560)
    assert names(b.inputs) == ["q"] and b.inputs[0].shape == (6,)
    assert names(b.outputs) == ["pose"] and b.outputs[0].shape == (4, 4)
    assert FKine(P560, all=True).outputs[0].shape == (7, 4, 4)
    j = Jacobian(P560)
    assert names(j.outputs) == ["jac", "cond"] and j.outputs[0].shape == (6, 6)
    assert [p.shape for p in Jacobian(twolink(), inverse="pinv").outputs] == [(2, 6), ()]
    assert names(JacobDot(P560).inputs) == ["q", "qd"]
    assert JacobDot(P560).output_feedthrough() == {"jdot_qd": ("q", "qd")}
    ik = IKine(P560)
    assert ik.nx == 0 and ik.clock is None
    assert ik.output_feedthrough() == {"q": ("pose",), "success": ("pose",)}
    ikc = IKine(P560, clock=0.01, q0=QS[0])
    assert ikc.is_discrete and ikc.nx == 6 and ikc.state_names == tuple(f"q{i}" for i in range(6))
    np.testing.assert_array_equal(ikc.x0, QS[0])
    assert ikc.output_feedthrough() == {"q": ("pose",), "success": ("pose",)}
    assert ikc.kernels().update is not None and ik.kernels().update is None
    assert names(IKine6s(P560).outputs) == ["q"]


def test_blocks_keep_their_own_copy_of_the_robot():
    robot = puma560()
    b = FKine(robot)
    before = interp(b, QS[0])[0]
    robot.tool = transl(0.0, 0.0, 0.3)
    assert b.robot is not robot and b.params["robot"] is robot
    np.testing.assert_array_equal(interp(b, QS[0])[0], before)
    close(kernel_out(b, QS[0]), before)
    assert not np.allclose(robot.fkine(QS[0]), before)


@pytest.mark.parametrize("make, match", [
    (lambda: FKine("puma"), "FKine: parameter 'robot' must be a SerialLink"),
    (lambda: FKine(P560, all="yes"), "FKine: parameter 'all' must be True or False"),
    (lambda: Jacobian(P560, frame="base"), "parameter 'frame' must be one of"),
    (lambda: Jacobian(P560, inverse="pinverse"), r"did you mean 'pinv'"),
    (lambda: Jacobian(P560, inverse="dls", damping=0.0), "'dls' needs damping > 0"),
    (lambda: Jacobian(twolink(), inverse="inv"), "needs a square Jacobian"),
    (lambda: IKine(P560, mask=[1, 1, 1, -1, 1, 1]), "'mask' must be 6 weights >= 0"),
    (lambda: IKine(P560, q0=[0.0, 0.0]), "'q0' must be 6 finite real numbers"),
    (lambda: IKine(P560, ilimit=0), "'ilimit' must be an integer >= 1"),
    (lambda: IKine(P560, tol=0.0), "'tol' must be > 0"),
    (lambda: IKine(P560, clock="fast"), "IKine: clock must be a Clock"),
    (lambda: IKine6s(P560, config="lux"), "unknown configuration letter 'x'"),
    (lambda: IKine6s(twolink()), "IKine6s: .*needs 6"),
    (lambda: FKine(P560, frame="ee"), "FKine: unknown parameter 'frame'"),
])
def test_bad_parameters(make, match):
    with pytest.raises(BlockParameterError, match=match):
        make()


# ---------------------------------------------------------------------------- FKine
def test_fkine_equals_the_core():
    b, ball = FKine(P560), FKine(P560, all=True)
    for q in QS:
        T = interp(b, q)[0]
        np.testing.assert_array_equal(T, P560.fkine(q))
        close(kernel_out(b, q), T)
        frames = interp(ball, q)[0]
        np.testing.assert_array_equal(frames, P560.fkine(q, all=True))
        close(kernel_out(ball, q), frames)
        np.testing.assert_allclose(frames[-1] @ P560.tool, T, atol=1e-15)
    # read-only and integer inputs (a Constant's output) are accepted
    q_ro = np.zeros(6, dtype=int)
    q_ro.flags.writeable = False
    np.testing.assert_array_equal(interp(b, q_ro)[0], P560.fkine(np.zeros(6)))


# ---------------------------------------------------------------------------- Jacobian
def _fd_velocity(robot, q, qd, h=1e-6):
    """End-effector [v; omega] for joint rates qd by central differences of fkine."""
    Tp, Tm = robot.fkine(q + h * qd), robot.fkine(q - h * qd)
    v = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
    w = trlog(Tp[:3, :3] @ Tm[:3, :3].T, twist=True) / (2 * h)
    return np.concatenate((v, w))


@pytest.mark.parametrize("frame", ["world", "ee"])
def test_jacobian_equals_the_core_numpy_and_finite_differences(frame):
    b = Jacobian(P560, frame=frame)
    core = P560.jacob0 if frame == "world" else P560.jacobe
    for q in QS:
        J, cond = interp(b, q)
        Jk, condk = kernel_out(b, q)
        close(J, core(q))
        np.testing.assert_array_equal(Jk, J)
        assert type(cond) is float and condk == cond
        assert cond == pytest.approx(np.linalg.cond(J), rel=1e-12)
        xd = _fd_velocity(P560, q, QD)
        if frame == "ee":
            R = P560.fkine(q)[:3, :3]
            xd = np.concatenate((R.T @ xd[:3], R.T @ xd[3:]))
        np.testing.assert_allclose(J @ QD, xd, atol=1e-8)


def test_jacobian_inverses_equal_numpy():
    lam = 0.05
    for q in QS:
        J = P560.jacob0(q)
        Ji = interp(Jacobian(P560, inverse="inv"), q)[0]
        np.testing.assert_allclose(Ji, np.linalg.inv(J), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(Ji @ J, np.eye(6), atol=1e-12)
        Jp = interp(Jacobian(P560, inverse="pinv"), q)[0]
        np.testing.assert_allclose(Jp, np.linalg.pinv(J), rtol=1e-10, atol=1e-12)
        Jd, cond = interp(Jacobian(P560, inverse="dls", damping=lam), q)
        want = J.T @ np.linalg.inv(J @ J.T + lam ** 2 * np.eye(6))
        np.testing.assert_allclose(Jd, want, rtol=1e-10, atol=1e-12)
        assert cond == pytest.approx(np.linalg.cond(J), rel=1e-12)
        for inverse in ("inv", "pinv", "dls"):
            b = Jacobian(P560, inverse=inverse, damping=lam)
            got, want = kernel_out(b, q), interp(b, q)
            np.testing.assert_array_equal(got[0], want[0])
    # a 2-joint arm: J is (6, 2), its inverses (2, 6)
    arm = twolink()
    q2 = np.array([0.3, 0.9])
    J2 = arm.jacob0(q2)
    Jp2, c2 = interp(Jacobian(arm, inverse="pinv"), q2)
    np.testing.assert_allclose(Jp2, np.linalg.pinv(J2), rtol=1e-10, atol=1e-13)
    assert c2 == pytest.approx(np.linalg.cond(J2), rel=1e-12)
    Jd2 = interp(Jacobian(arm, inverse="dls", damping=lam), q2)[0]
    np.testing.assert_allclose(Jd2, np.linalg.solve(J2.T @ J2 + lam ** 2 * np.eye(2), J2.T),
                               rtol=1e-10, atol=1e-13)


def test_jacobian_at_a_singularity():
    qz = np.zeros(6)                                  # the Puma's wrist is singular at q5 = 0
    J, cond = interp(Jacobian(P560), qz)
    assert 1e14 < cond < math.inf
    assert np.all(np.isnan(interp(Jacobian(P560, inverse="inv"), qz)[0]))
    Jp = interp(Jacobian(P560, inverse="pinv"), qz)[0]
    np.testing.assert_allclose(J @ Jp @ J, J, atol=1e-12)       # rank 5: pseudo-inverse
    Jd = interp(Jacobian(P560, inverse="dls"), qz)[0]
    assert np.all(np.isfinite(Jd)) and np.abs(Jd).max() < 1e3
    # in a diagram, the inverse's NaN stops the run naming the block and port
    d = Diagram("singular")
    src = d.add(Constant(np.zeros(6)), "q")
    jac = d.add(Jacobian(P560, inverse="inv"), "jac")
    d.connect(src, jac["q"])
    with pytest.raises(NonFiniteError, match=r"jac\.jinv") as err:
        simulate(d, 0.01, "rk4", dt=0.005)
    assert err.value.block == "jac" and err.value.port == "jinv"


# ---------------------------------------------------------------------------- JacobDot
def test_jacob_dot_equals_the_core_and_finite_differences():
    b = JacobDot(P560)
    h = 1e-6
    for q in QS:
        y = interp(b, q, QD)[0]
        np.testing.assert_array_equal(y, P560.jacob_dot(q, QD))
        close(kernel_out(b, q, QD), y)
        Jdot = (P560.jacob0(q + h * QD) - P560.jacob0(q - h * QD)) / (2 * h)
        np.testing.assert_allclose(y, Jdot @ QD, atol=1e-7)


# ---------------------------------------------------------------------------- IKine6s
@pytest.mark.parametrize("config", ["lun", "ldf", "run", "rdf"])
def test_ikine6s_equals_the_core_and_round_trips(config):
    b = IKine6s(P560, config=config)
    for q in QS:
        T = P560.fkine(q)
        got = interp(b, T)[0]
        close(got, P560.ikine6s(T, config))
        close(kernel_out(b, T), got)
        np.testing.assert_allclose(P560.fkine(got), T, atol=1e-12)
        assert P560.arm_config(got) == config
    # a pose out of reach gives NaN (the run would stop naming the block)
    assert np.all(np.isnan(interp(b, transl(3.0, 0.0, 0.0))[0]))


# ---------------------------------------------------------------------------- IKine
def test_ikine_kernel_equals_the_core_solver():
    for k, q in enumerate(QS):
        T = P560.fkine(q)
        start = q + 0.15 * np.cos(np.arange(6) + k)
        ref = ikine(P560, T, q0=start)
        assert ref.success
        for b, x in ((IKine(P560, q0=start), EMPTY),
                     (IKine(P560, q0=np.zeros(6), clock=0.1), start.copy())):
            qi, ok = interp(b, T, x=x)
            qk, okk = kernel_out(b, T, x=x)
            assert ok == okk == 1.0 and type(ok) is float
            np.testing.assert_allclose(qi, ref.q, atol=1e-12)
            np.testing.assert_allclose(qk, ref.q, atol=1e-9)
            np.testing.assert_allclose(P560.fkine(qk), T, atol=1e-9)
    # masked: the planar 2-link arm (in the x-z plane) reaches a point (x, z) only
    arm = twolink()
    q2 = np.array([0.4, 0.8])
    b2 = IKine(arm, q0=[0.2, 1.0], mask=[1, 0, 1, 0, 0, 0])
    qi, ok = interp(b2, arm.fkine(q2))
    qk, okk = kernel_out(b2, arm.fkine(q2))
    assert ok == okk == 1.0
    np.testing.assert_allclose(qi, q2, atol=1e-9)
    np.testing.assert_allclose(qk, q2, atol=1e-9)


def test_ikine_failure_keeps_the_warm_start_and_never_raises():
    b = IKine(P560, q0=QS[0], clock=0.1, ilimit=50)
    far = transl(3.0, 0.0, 0.0)                        # out of reach
    x = QS[1].copy()
    k = b.kernels()
    for q, ok in (interp(b, far, x=x), kernel_out(b, far, x=x)):
        assert ok == 0.0 and np.all(np.isfinite(q))
    np.testing.assert_array_equal(b.update(0.0, x, (far,)), x)
    np.testing.assert_array_equal(k.update(0.0, x, far, k.params), x)
    # a NaN goal stalls the solver without raising
    bad = np.full((4, 4), np.nan)
    for _, ok in (interp(b, bad, x=x), kernel_out(b, bad, x=x)):
        assert ok == 0.0
    # success: the update is the solution
    T = P560.fkine(QS[1])
    x0 = QS[1] + 0.05
    np.testing.assert_allclose(k.update(0.0, x0, T, k.params), QS[1], atol=1e-9)
    np.testing.assert_allclose(b.update(0.0, x0, (T,)), QS[1], atol=1e-9)


# ---------------------------------------------------------------------------- both back-ends
Q_BIAS = np.array([0.1, 0.5, -0.2, 0.3, 0.6, -0.1])
Q_AMP, Q_FREQ = 0.2, 0.5
Q_PHASE = np.arange(6.0)


def q_traj(t):
    return Q_AMP * np.sin(2 * np.pi * Q_FREQ * np.asarray(t)[..., None] + Q_PHASE) + Q_BIAS


def kinematics_diagram() -> Diagram:
    """A moving joint vector -> every kinematics block; IKine tracks the pose at 100 Hz from a
    perturbed start, and a second IKine gets a pose out of reach from t = 0."""
    d = Diagram("arm_kinematics")
    qs = d.add(Sine(amplitude=Q_AMP, frequency=Q_FREQ, phase=Q_PHASE, bias=Q_BIAS), "qs")
    qds = d.add(Sine(amplitude=2 * np.pi * Q_FREQ * Q_AMP, frequency=Q_FREQ,
                     phase=Q_PHASE + np.pi / 2), "qds")
    fk = d.add(FKine(P560), "fk")
    fka = d.add(FKine(P560, all=True), "fka")
    jac = d.add(Jacobian(P560), "jac")
    jdls = d.add(Jacobian(P560, frame="ee", inverse="dls"), "jdls")
    jd = d.add(JacobDot(P560), "jd")
    ik6 = d.add(IKine6s(P560, config=P560.arm_config(Q_BIAS)), "ik6")
    ik = d.add(IKine(P560, q0=Q_BIAS + 0.05, clock=0.01), "ik")
    far = d.add(Constant(transl(3.0, 0.0, 0.0) @ trotx(0.3)), "far")
    ikf = d.add(IKine(P560, q0=Q_BIAS, clock=0.01, ilimit=40), "ikfail")
    d.connect(qs, fk["q"], fka["q"], jac["q"], jdls["q"], jd["q"])
    d.connect(qds, jd["qd"])
    d.connect(fk["pose"], ik6["pose"], ik["pose"])
    d.connect(far, ikf["pose"])
    return d


@pytest.fixture(scope="module")
def kin_runs():
    a = simulate(kinematics_diagram(), 0.2, "rk4", dt=1e-3, record_dt=1e-3)
    b = simulate(kinematics_diagram(), 0.2, "rk4", dt=1e-3, record_dt=1e-3, backend="compiled")
    return a, b


def test_kinematics_diagram_agrees_in_both_backends(kin_runs):
    a, b = kin_runs
    assert a.status == b.status == "success"
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_allclose(b.x, a.x, rtol=1e-9, atol=1e-12)
    assert sorted(a.signals) == sorted(b.signals)
    for name in a.signals:
        span = max(np.ptp(a[name]), np.abs(a[name]).max(), 1.0)      # noise-only: 1 SI unit
        np.testing.assert_allclose(b[name], a[name], rtol=0, atol=1e-9 * span, err_msg=name)


def test_kinematics_diagram_outputs(kin_runs):
    a, _ = kin_runs
    q = q_traj(a.t)
    np.testing.assert_allclose(a["qs.y"], q, atol=1e-15)
    k = len(a.t) // 2
    np.testing.assert_array_equal(a["fk.pose"][k], P560.fkine(a["qs.y"][k]))
    close(a["jac.jac"][k], P560.jacob0(a["qs.y"][k]))
    np.testing.assert_allclose(a["ik6.q"], q, atol=1e-10)         # analytic: every step
    # IKine: held between its hits, each hit the solution for that instant's pose, warm-started
    hits = np.flatnonzero(np.abs(a.t / 0.01 - np.round(a.t / 0.01)) < 1e-9)
    assert len(hits) == 21
    np.testing.assert_allclose(a["ik.q"][hits], q[hits], atol=1e-8)
    assert np.all(a["ik.success"] == 1.0)
    after = hits[3] + 4                                # held until the next hit
    np.testing.assert_array_equal(a["ik.q"][after], a["ik.q"][hits[3]])
    # the unreachable pose: no crash at t = 0, success 0; the failed solutions never become
    # the warm start, so every hit solves from q0 again and gives the same best point
    assert np.all(a["ikfail.success"] == 0.0) and np.all(np.isfinite(a["ikfail.q"]))
    np.testing.assert_array_equal(a["ikfail.q"], np.tile(a["ikfail.q"][0], (len(a.t), 1)))
