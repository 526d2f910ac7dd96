"""The joint servo and remaining sl_* examples do what they exist to show, against references
computed independently: scipy.signal closed loops (vloop_test, vloop_test2, ploop_test),
closed-form eigenvalues (flexible_joint), the RNE controller's trajectory
(puma_computed_torque2) and the exponential straight-line approach (puma_rrmc2); the
voltage-driven loop (vloop_voltage_test) against scipy.signal too, and why it cannot keep the
seed's winding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import signal

from blocksim.robotics.arm.joint_servo import flex_free_frequency, flex_pd_frequencies
from blocksim.robotics.models import puma560

from ...examples_loader import load_example
from .servo_reference import (
    SEED,
    ploop_ss,
    step_metrics,
    vloop_ss,
    vloop_tf,
    vloop_voltage_ss,
)

TIGHT = dict(rtol=1e-10, atol=1e-12)
T = SEED["T"]


def samples(res, name):
    """A signal at the controller's samples k T (the run records on that grid)."""
    k = np.rint(res.t / T)
    assert np.allclose(res.t, k * T, atol=1e-12)
    return res[name]


# ---------------------------------------------------------------------------------- vloop_test
@pytest.fixture(scope="module")
def vloop_run():
    m = load_example("vloop_test")
    return m, m.main(T=1.0, record_dt=T, **TIGHT)


def test_vloop_test_is_the_discrete_closed_loop_at_every_sample(vloop_run):
    m, res = vloop_run
    t = res.t
    r = np.where(t >= m.T_STEP - 1e-12, m.DEMAND, 0.0)
    td = np.where(t >= m.T_DIST - 1e-12, m.TAU_D, 0.0)
    _, y, _ = signal.dlsim(vloop_ss(**SEED), np.column_stack((r, td, 0 * t)))
    qd = samples(res, "vloop/motor.qd")
    np.testing.assert_allclose(qd, y[:, 0], rtol=0, atol=1e-8)
    assert abs(res["vloop/motor.tau"]).max() < 0.9  # never at the torque limit: linear


def test_vloop_test_step_metrics_match_the_transfer_function(vloop_run):
    m, res = vloop_run
    before = (res.t >= m.T_STEP - 1e-12) & (res.t < m.T_DIST - 1e-12)
    t, qd = res.t[before], samples(res, "vloop/motor.qd")[before]
    _, (ys,) = signal.dstep(vloop_tf(**SEED), n=t.size)
    ref = step_metrics(t, m.DEMAND * ys[:, 0], m.DEMAND)
    got = step_metrics(t, qd, m.DEMAND)
    assert got["overshoot"] == pytest.approx(ref["overshoot"], abs=1e-8)
    assert ref["overshoot"] > 1e-4  # there is an overshoot to compare
    assert got["settling"] == pytest.approx(ref["settling"], abs=1e-9)
    assert got["settling"] < 0.01  # the fast proportional rise
    assert got["error"] == pytest.approx(ref["error"], abs=1e-8)
    # the type-1 loop: the transfer function's DC gain is 1 (no step error in the limit)
    tf = vloop_tf(**SEED)
    assert np.polyval(tf.num, 1.0) / np.polyval(tf.den, 1.0) == pytest.approx(1.0, abs=1e-12)


def test_vloop_test_integral_action_rejects_the_disturbance(vloop_run):
    m, res = vloop_run
    qd = samples(res, "vloop/motor.qd")
    after = res.t > m.T_DIST
    dip = m.DEMAND - qd[after].min()
    # a 0.1 N m disturbance through the proportional loop alone: ~ tau_d / (Km Kv) / ...
    assert 0.3 < dip < 0.5
    assert m.DEMAND - qd[-1] < 0.1 * dip  # recovered by the integral
    # the integral term ends up carrying the disturbance current tau_d / Km
    assert res["vloop/pi.integral"][-1] == pytest.approx(m.TAU_D / SEED["Km"], rel=0.15)


# --------------------------------------------------------------------------------- vloop_test2
@pytest.fixture(scope="module")
def ramp_run():
    m = load_example("vloop_test2")
    return m, m.main(T=1.0, record_dt=T, **TIGHT)


def test_vloop_test2_ramp_responses_are_the_discrete_closed_loops(ramp_run):
    m, res = ramp_run
    t = res.t
    r = m.SLOPE * np.maximum(t - m.T_START, 0.0)
    ff = np.where(t >= m.T_START - 1e-12, m.J * m.SLOPE, 0.0) + m.B * r
    zero = 0 * t
    _, y_pi, _ = signal.dlsim(vloop_ss(**SEED), np.column_stack((r, zero, zero)))
    seed_ff = {**SEED, "Ki": 0.0}
    _, y_ff, _ = signal.dlsim(
        vloop_ss(**seed_ff, Kff=1.0 / SEED["Km"]), np.column_stack((r, zero, ff))
    )
    np.testing.assert_allclose(samples(res, "pi/motor.qd"), y_pi[:, 0], rtol=0, atol=1e-8)
    np.testing.assert_allclose(samples(res, "ff/motor.qd"), y_ff[:, 0], rtol=0, atol=1e-8)
    # steady ramp error of the PI loop: the transfer function's velocity constant Km Ki / B
    ramp_error = r[-1] - y_pi[-1, 0]
    assert res["pi/pi.e"][-1] == pytest.approx(ramp_error, abs=1e-8)
    kvel = SEED["Km"] * SEED["Ki"] / SEED["B"]
    assert ramp_error == pytest.approx(m.SLOPE / kvel, rel=0.2)
    # feedforward: over two orders of magnitude less
    assert abs(res["ff/pi.e"][t > 0.5]).max() < 1e-2 * ramp_error


# ------------------------------------------------------------------------- vloop_voltage_test
MOTOR = {k: SEED[k] for k in ("J", "B", "Km", "T")}


@pytest.fixture(scope="module")
def voltage_run():
    m = load_example("vloop_voltage_test")
    return m, m.main(T=0.5, record_dt=T, **TIGHT)


def test_vloop_voltage_test_is_the_discrete_closed_loop_at_every_sample(voltage_run):
    m, res = voltage_run
    t = res.t
    r = np.where(t >= m.T_STEP - 1e-12, m.DEMAND, 0.0)
    ref = vloop_voltage_ss(**MOTOR, Ka=10.0, **m.WINDING, **m.GAINS)
    _, y, x = signal.dlsim(ref, r)
    np.testing.assert_allclose(samples(res, "vloop/motor.qd"), y[:, 0], rtol=0, atol=1e-8)
    np.testing.assert_allclose(res["vloop/motor.i"], x[:, 0], rtol=0, atol=1e-8)  # current
    v = 10.0 * res["vloop/pi.c"]
    assert abs(v).max() < 20.0  # the amplifier never limits: the loop is linear


def test_vloop_voltage_test_step_metrics_match_the_transfer_function(voltage_run):
    m, res = voltage_run
    after = res.t >= m.T_STEP - 1e-12
    t, qd = res.t[after], samples(res, "vloop/motor.qd")[after]
    ref_ss = vloop_voltage_ss(**MOTOR, Ka=10.0, **m.WINDING, **m.GAINS)
    _, (ys,) = signal.dstep(ref_ss, n=t.size)
    ref = step_metrics(t, m.DEMAND * ys[:, 0], m.DEMAND)
    got = step_metrics(t, qd, m.DEMAND)
    assert got["overshoot"] == pytest.approx(ref["overshoot"], abs=1e-8)
    assert 0.03 < ref["overshoot"] < 0.12  # the documented ~8 %
    assert got["settling"] == pytest.approx(ref["settling"], abs=1e-9)
    assert 0.05 < got["settling"] < 0.15
    assert got["error"] == pytest.approx(ref["error"], abs=1e-8)
    assert abs(got["error"]) < 1e-4 * m.DEMAND
    # the type-1 loop: DC gain C (I - A)^-1 B = 1; stable with the example's winding and gains
    dc = ref_ss.C @ np.linalg.solve(np.eye(3) - ref_ss.A, ref_ss.B)
    assert dc[0, 0] == pytest.approx(1.0, abs=1e-9)
    assert np.abs(np.linalg.eigvals(ref_ss.A)).max() == pytest.approx(0.972, abs=1e-3)


def test_no_pi_gains_stabilise_the_seeds_winding():
    """With Rm = Lm = 0.1 the spectral radius stays >= 1 for every Kv, Ki on a grid around
    the seed's (1.014 at Kv = Ki = 1): the example has to change the winding."""
    seed = dict(MOTOR, Rm=0.1, Lm=0.1, Ka=10.0)
    rho = [
        np.abs(np.linalg.eigvals(vloop_voltage_ss(**seed, Kv=kv, Ki=ki).A)).max()
        for kv in np.linspace(-0.5, 2.0, 26)
        for ki in np.linspace(-2.0, 20.0, 23)
    ]
    assert min(rho) >= 1.0 - 1e-12
    at_seed = vloop_voltage_ss(**seed, Kv=1.0, Ki=1.0)
    assert np.abs(np.linalg.eigvals(at_seed.A)).max() == pytest.approx(1.014, abs=1e-3)


# ---------------------------------------------------------------------------------- ploop_test
PLOOP = dict(SEED, G=107.815, Kp=20.0)


def test_ploop_test_lspb_move_is_the_discrete_closed_loop():
    m = load_example("ploop_test")
    for kff in (1.0, 0.0):
        res = m.main(T=1.5, Kff=kff, record_dt=T, **TIGHT)
        qs, qds = samples(res, "traj.q"), samples(res, "traj.qd")
        _, y, _ = signal.dlsim(ploop_ss(**PLOOP, Kff=kff), np.column_stack((qs, qds)))
        np.testing.assert_allclose(samples(res, "ploop/q.y"), y[:, 0], rtol=0, atol=1e-9)
        if kff == 0.0:  # the type-1 position loop lags the cruise by rate / Kp
            cruise = (res.t > 0.5) & (res.t < 0.7)
            lag = qds[cruise] / PLOOP["Kp"]
            np.testing.assert_allclose(res["ploop/err.y"][cruise], lag, rtol=0.02)


def test_ploop_test_step_metrics_match_the_transfer_function():
    m = load_example("ploop_test")
    step = 1e-3
    from blocksim import simulate

    res = simulate(m.build(with_scope=False, step=step), 0.6, record_dt=T, **TIGHT)
    after = res.t >= m.T_START - 1e-12
    t, q = res.t[after], samples(res, "ploop/q.y")[after]
    _, y, _ = signal.dlsim(
        ploop_ss(**PLOOP, Kff=1.0), np.column_stack((np.full(t.size, step), np.zeros(t.size)))
    )
    np.testing.assert_allclose(q, y[:, 0], rtol=0, atol=1e-12)
    ref, got = step_metrics(t, y[:, 0], step), step_metrics(t, q, step)
    assert got["overshoot"] == pytest.approx(ref["overshoot"], abs=1e-8)
    assert got["settling"] == pytest.approx(ref["settling"], abs=1e-9)
    assert 0.1 < got["settling"] < 0.5  # about 4 / Kp
    assert got["error"] == pytest.approx(ref["error"], abs=1e-12)
    assert abs(got["error"]) < 1e-3 * step
    assert abs(res["ploop/vloop/motor.tau"]).max() < 0.9


# ------------------------------------------------------------------------------ flexible_joint
def prony(y: np.ndarray, h: float, order: int) -> np.ndarray:
    """The continuous-time poles s of a sum of ``order`` damped exponentials sampled every
    ``h``: least-squares linear prediction, roots z, s = log(z) / h."""
    n = y.size - order
    X = np.column_stack([y[k : k + n] for k in range(order)])
    a, *_ = np.linalg.lstsq(X, y[order : order + n], rcond=None)
    z = np.roots(np.concatenate(([1.0], -a[::-1])))
    return np.log(z.astype(complex)) / h


def test_flexible_joint_resonances_are_the_closed_form_roots():
    m = load_example("flexible_joint")
    from blocksim import simulate

    h = 0.004
    res = simulate(m.build(with_scope=False, c=0.0, Kd=0.0), 6.0, record_dt=h, **TIGHT)
    after = res.t > m.T_STEP + 1e-9
    s = prony(res["joint.qm"][after] - m.Q_STEP, h, 4)
    w = np.sort(np.abs(s.imag))[::2]
    # closed form, here: Jm Jl w^4 - (Jm k + Jl (Kp + k)) w^2 + Kp k = 0
    a, b, c = m.JM * m.JL, m.JM * m.K_SPRING + m.JL * (m.KP + m.K_SPRING), m.KP * m.K_SPRING
    roots = np.sqrt(
        np.sort(
            [
                (b - math.sqrt(b * b - 4 * a * c)) / (2 * a),
                (b + math.sqrt(b * b - 4 * a * c)) / (2 * a),
            ]
        )
    )
    np.testing.assert_allclose(w, roots, rtol=1e-6)
    np.testing.assert_allclose(abs(s.real), 0.0, atol=1e-5)  # undamped
    np.testing.assert_allclose(flex_pd_frequencies(m.JM, m.JL, m.K_SPRING, m.KP), roots, rtol=1e-12)
    assert roots == pytest.approx([5.94511, 37.6119], rel=1e-5)
    # the uncontrolled joint's resonance lies between them
    assert roots[0] < flex_free_frequency(m.JM, m.JL, m.K_SPRING) < roots[1]


def test_flexible_joint_damped_modes_are_the_system_eigenvalues():
    m = load_example("flexible_joint")
    from blocksim import simulate

    h = 0.002
    res = simulate(m.build(with_scope=False), 1.1, record_dt=h, **TIGHT)
    after = res.t > m.T_STEP + 1e-9
    s = prony(res["joint.qm"][after] - m.Q_STEP, h, 4)
    Jm, Jl, k, c, Kp, Kd = m.JM, m.JL, m.K_SPRING, m.C_SPRING, m.KP, m.KD
    A = np.array(
        [
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [-(Kp + k) / Jm, k / Jm, -(Kd + c) / Jm, c / Jm],
            [k / Jl, -k / Jl, c / Jl, -c / Jl],
        ]
    )
    ev = np.linalg.eigvals(A)
    key = lambda z: (round(abs(z.imag), 3), z.imag)  # noqa: E731
    np.testing.assert_allclose(sorted(s, key=key), sorted(ev, key=key), rtol=1e-5)


# ----------------------------------------------------------------- puma_computed_torque2, rrmc2
def test_computed_torque_from_m_c_g_follows_the_rne_trajectory():
    opts = dict(rtol=1e-9, atol=1e-12, record_dt=0.02)
    a = load_example("puma_computed_torque").main(T=3.0, **opts)
    b = load_example("puma_computed_torque2").main(T=3.0, **opts)
    np.testing.assert_allclose(b["plant.q"], a["plant.q"], rtol=0, atol=1e-8)
    np.testing.assert_allclose(b["tau.y"], a["ctrl.tau"], rtol=0, atol=1e-6)
    assert abs(b["e.y"]).max() < 1e-6
    np.testing.assert_allclose(b["plant.q"][-1], puma560().poses["qr"], atol=1e-8)


def test_rrmc2_converges_to_the_goal_point_on_a_straight_line():
    m = load_example("puma_rrmc2")
    res = m.main(T=4.0, rtol=1e-10, atol=1e-12, record_dt=0.05)
    p = res["xyz.y"]
    arm = puma560()
    T_end = arm.fkine(res["q.y"][-1])
    np.testing.assert_allclose(T_end[:3, 3], m.GOAL_XYZ, atol=1e-7)
    np.testing.assert_allclose(T_end[:3, :3], m.R0[:3, :3], atol=1e-7)
    # dp/dt = Kv (p* - p): p(t) - p* = exp(-Kv t) (p0 - p*)
    expected = m.GOAL_XYZ + np.exp(-m.KV * res.t)[:, None] * (p[0] - m.GOAL_XYZ)
    np.testing.assert_allclose(p, expected, atol=1e-6)
