"""Joint servo blocks: equations, parameter errors, the torque limit, the continuous PI loop
and the voltage-driven loop against scipy.signal, and one diagram in both back-ends.

The discrete current-driven loops are checked through the examples
(``test_servo_examples.py``); here: what those do not cover."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import signal

from blocksim import BlockParameterError, Diagram, simulate
from blocksim.blocks import Constant, Step
from blocksim.blocks.arm import FlexibleJoint, JointMotor, VelocityPI, VoltageMotor
from blocksim.blocks.arm.servo_loops import ploop, vloop, vloop_ff, vloop_voltage
from blocksim.engine.compiled.kernels import Kernels

from ..backends import assert_backends_agree
from .servo_reference import SEED, step_metrics, vloop_voltage_ss

TIGHT = dict(rtol=1e-10, atol=1e-12)
X1 = np.array([3.0])


def test_motor_equations_and_torque_limit():
    m = JointMotor(J=2e-3, B=1e-3, Km=0.5, tau_max=0.9)
    qd, tau = m.output(0.0, X1, (1.0, 0.2))
    assert (qd, tau) == (3.0, 0.5)
    assert m.deriv(0.0, X1, (1.0, 0.2))[0] == pytest.approx((0.5 - 0.2 - 1e-3 * 3.0) / 2e-3)
    assert m.output(0.0, X1, (10.0, 0.0))[1] == 0.9  # saturated both ways
    assert m.output(0.0, X1, (-10.0, 0.0))[1] == -0.9
    assert JointMotor(tau_max=math.inf).output(0.0, X1, (1e6, 0.0))[1] == 0.228e6
    k = m.kernels()
    assert isinstance(k, Kernels) and k.params == (2e-3, 1e-3, 0.5, 0.9)


def test_voltage_motor_and_flexible_joint_equations():
    v = VoltageMotor(J=1e-3, B=2e-3, Km=0.3, Rm=0.5, Lm=0.01, Ka=5.0, v_max=12.0)
    x = np.array([2.0, 10.0])
    assert v.output(0.0, x, (0.0, 0.0)) == (10.0, 0.6)
    di, dw = v.deriv(0.0, x, (1.0, 0.1))
    assert di == pytest.approx((5.0 - 0.5 * 2.0 - 0.3 * 10.0) / 0.01)
    assert dw == pytest.approx((0.3 * 2.0 - 0.1 - 2e-3 * 10.0) / 1e-3)
    assert v.deriv(0.0, x, (100.0, 0.0))[0] == pytest.approx((12.0 - 1.0 - 3.0) / 0.01)
    f = FlexibleJoint(Jm=0.5, Jl=2.0, k=100.0, c=1.0, Bm=0.1, Bl=0.2)
    x = np.array([0.3, 0.1, 1.0, -1.0])
    d = f.deriv(0.0, x, (4.0, 0.5))
    tw = 100.0 * 0.2 + 1.0 * 2.0
    np.testing.assert_allclose(d, [1.0, -1.0, (4.0 - tw - 0.1) / 0.5, (tw + 0.2 - 0.5) / 2.0])
    assert f.output(0.0, x, (0.0, 0.0)) == (0.3, 0.1, 1.0, -1.0)


def test_velocity_pi_outputs_update_and_ports():
    pi = VelocityPI(Kv=2.0, Ki=3.0, Kff=4.0, clock=0.01, feedforward=True)
    assert [p.name for p in pi.inputs] == ["qd_star", "qd", "tau_ff"]
    assert pi.output_feedthrough()["integral"] == ()
    x = np.array([0.5])
    c, e, integral = pi.output(0.0, x, (1.0, 0.25, 0.1))
    assert (e, integral) == (0.75, 1.5)
    assert c == pytest.approx(2.0 * 0.75 + 3.0 * 0.5 + 4.0 * 0.1)
    assert pi.update(0.0, x, (1.0, 0.25, 0.1))[0] == pytest.approx(0.5 + 0.01 * 0.75)
    assert pi.is_discrete and pi.clock.period == 0.01
    cont = VelocityPI(clock=None)
    assert not cont.is_discrete and cont.deriv(0.0, x, (1.0, 0.25)) == (0.75,)
    assert cont.kernels().update is None and cont.kernels().deriv is not None


@pytest.mark.parametrize(
    "cls,kwargs,name",
    [
        (JointMotor, dict(J=0.0), "J"),
        (JointMotor, dict(tau_max=-1.0), "tau_max"),
        (JointMotor, dict(B=-1e-3), "B"),
        (JointMotor, dict(Km="x"), "Km"),
        (VoltageMotor, dict(Lm=0.0), "Lm"),
        (VoltageMotor, dict(x0=[1.0]), "x0"),
        (VelocityPI, dict(feedforward="yes"), "feedforward"),
        (VelocityPI, dict(Kv=math.nan), "Kv"),
        (VelocityPI, dict(clock="fast"), "clock"),
        (FlexibleJoint, dict(k=0.0), "k"),
        (FlexibleJoint, dict(c=-1.0), "c"),
    ],
)
def test_bad_parameters_name_the_block_and_parameter(cls, kwargs, name):
    with pytest.raises(BlockParameterError, match=f"{cls.__name__}.*{name}"):
        cls(**kwargs)


def test_ploop_refuses_a_zero_gear_ratio():
    with pytest.raises(BlockParameterError, match=r"ploop.*'G'"):
        ploop(G=0.0)


def _loop_diagram(loop: Diagram, demand: float, name: str = "test") -> Diagram:
    d = Diagram(name)
    r = d.add(Step(time=0.0, after=demand), name="demand")
    z = d.add(Constant(0.0), name="zero")
    lp = d.add(loop, name="loop")
    d.connect(r, lp["qd_star"])
    d.connect(z, lp["tau_d"])
    if "tau_ff" in [p.name for p in lp.inputs]:
        d.connect(z, lp["tau_ff"])
    return d


def test_torque_limit_gives_the_saturated_acceleration():
    """A 200 rad/s demand saturates the 0.9 N m limit: qd = (tau_max / B)(1 - exp(-B t / J))."""
    res = simulate(_loop_diagram(vloop(), 200.0), 0.05, record_dt=0.001, **TIGHT)
    J, B = SEED["J"], SEED["B"]
    sat = res["loop/motor.tau"] == 0.9
    assert sat[1:30].all()
    t = res.t[sat]
    np.testing.assert_allclose(
        res["loop/motor.qd"][sat], 0.9 / B * (1.0 - np.exp(-B * t / J)), rtol=1e-9
    )


def test_continuous_pi_loop_is_the_continuous_closed_loop():
    """``clock=None``: qd / qd* = Km (Kv s + Ki) / (J s^2 + (B + Km Kv) s + Km Ki)."""
    J, B, Km, Kv, Ki = (SEED[k] for k in ("J", "B", "Km", "Kv", "Ki"))
    res = simulate(_loop_diagram(vloop(clock=None), 1.0), 0.2, record_dt=1e-4, **TIGHT)
    cl = signal.TransferFunction([Km * Kv, Km * Ki], [J, B + Km * Kv, Km * Ki])
    _, y = signal.step(cl, T=res.t)
    np.testing.assert_allclose(res["loop/motor.qd"], y, atol=1e-8)


#: a voltage loop that is stable without saturating: the seed's motor with a 10 mH, 1 ohm
#: winding and Kv = 0.1 (with the seed's Rm = Lm = 0.1 and Kv = 1 the sampled loop is unstable
#: and only the amplifier limit bounds it, see the next test)
VOLT = dict(Rm=1.0, Lm=0.01, Ka=10.0, Kv=0.1, Ki=1.0)


def test_voltage_loop_is_its_discrete_closed_loop():
    d = _loop_diagram(vloop_voltage(**VOLT), 1.0, "voltage")
    res = simulate(d, 1.0, record_dt=SEED["T"], **TIGHT)
    ref = vloop_voltage_ss(J=SEED["J"], B=SEED["B"], Km=SEED["Km"], T=SEED["T"], **VOLT)
    _, y, _ = signal.dlsim(ref, np.ones(res.t.size))
    qd = res["loop/motor.qd"]
    np.testing.assert_allclose(qd, y[:, 0], rtol=0, atol=1e-8)
    assert abs(res["loop/pi.c"]).max() * VOLT["Ka"] < 20.0  # below the voltage limit
    got, want = step_metrics(res.t, qd, 1.0), step_metrics(res.t, y[:, 0], 1.0)
    for key in got:
        assert got[key] == pytest.approx(want[key], abs=1e-8)
    assert want["overshoot"] > 0.01 and abs(want["error"]) < 0.02
    # port order of the seed's vloop_voltage
    assert [p.name for p in d["loop"].outputs] == ["qd_error", "qd", "tau", "integral"]


def test_seed_voltage_loop_is_unstable_linear_and_bounded_by_the_amplifier():
    ref = vloop_voltage_ss(
        J=SEED["J"],
        B=SEED["B"],
        Km=SEED["Km"],
        Rm=0.1,
        Lm=0.1,
        Ka=10.0,
        Kv=1.0,
        Ki=1.0,
        T=SEED["T"],
    )
    assert np.abs(np.linalg.eigvals(ref.A)).max() > 1.01
    res = simulate(_loop_diagram(vloop_voltage(), 1.0), 1.0, record_dt=SEED["T"], **TIGHT)
    v = 10.0 * res["loop/pi.c"]
    assert abs(v).max() > 20.0  # the amplifier saturates ...
    assert abs(res["loop/motor.qd"]).max() < 100.0  # ... and bounds the oscillation


def test_voltage_and_continuous_pi_blocks_agree_in_both_back_ends():
    d = _loop_diagram(vloop_voltage(clock=None), 1.0, "voltage_continuous")
    ff = d.add(vloop_ff(clock=None), name="ff")
    d.connect(d["demand"], ff["qd_star"])
    d.connect(d["zero"], ff["tau_d"], ff["tau_ff"])
    assert_backends_agree(d, T=0.05, dt=1e-4)  # bitwise (FlexibleJoint: flexible_joint)
