"""Arm dynamics blocks: the robotics core, identities of the equation of motion, kernels ==
interpreted, and one diagram in both back-ends: a falling Puma 560 (against scipy, energy
conserved, ``qdd`` not stale) and a computed-torque loop that holds the arm still.

Kernels are called as the compiled back-end calls them, ``kernel(t, x, *u, params)``: a
read-only empty ``x`` for stateless blocks, C-contiguous float64 inputs, so each kernel
compiles once for the tests and the diagram together.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from blocksim import BlockParameterError, Diagram, simulate
from blocksim.blocks.arm.arm_params import EMPTY
from blocksim.blocks.arm.dynamics import (
    CartesianInertia,
    Coriolis,
    ForwardDynamics,
    Friction,
    Gravload,
    Inertia,
    InverseDynamics,
)
from blocksim.blocks.sources import Constant
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.models import puma560, twolink

P560 = puma560()
RNG = np.random.default_rng(31)
Q = RNG.uniform([-1.5, -0.7, -1.5, -1.5, 0.3, -2.0], [1.5, 1.5, 0.7, 1.5, 1.2, 2.0])
QD = np.array([0.8, -0.5, 0.0, 1.1, -0.9, 0.4])      # a zero rate: no Coulomb term there
QDD = RNG.uniform(-2.0, 2.0, 6)
TAU = RNG.uniform(-20.0, 20.0, 6)
G = np.array([0.5, -1.0, 9.0])
W = RNG.uniform(-5.0, 5.0, 6)


def kernel_out(block, *u, x=EMPTY):
    k = block.kernels()
    assert isinstance(k, Kernels)
    for p in k.params:
        assert type(p) in (float, int, bool) or (
            p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable)
    return k.output(0.0, x, *u, k.params)


def interp(block, *u, x=EMPTY):
    return block.output(0.0, x, u)


def close(a, b):
    """Equal to rounding: a kernel inlined into another compiled function may round
    differently (fused multiply-adds) from the same kernel called from Python."""
    b = np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(b).max()))


def same(block, *u, x=EMPTY):
    """The interpreted outputs, checked equal to the kernel's (to rounding)."""
    got = interp(block, *u, x=x)
    k = kernel_out(block, *u, x=x)
    k = k if isinstance(k, tuple) else (k,)
    assert len(k) == len(got)
    for a, b in zip(k, got, strict=True):
        assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == b.shape
        close(a, b)
    return got


def names(ports) -> list[str]:
    return [p.name for p in ports]


# ---------------------------------------------------------------------------- construction
def test_ports_states_and_feedthrough():
    f = ForwardDynamics(P560, q0=Q, qd0=QD)
    assert names(f.inputs) == ["tau"] and names(f.outputs) == ["q", "qd", "qdd"]
    assert f.output_feedthrough() == {"q": (), "qd": (), "qdd": ("tau",)}
    assert f.nx == 12 and not f.is_discrete
    assert f.state_names[:2] == ("q0", "q1") and f.state_names[6:8] == ("qd0", "qd1")
    np.testing.assert_array_equal(f.x0, np.concatenate((Q, QD)))
    np.testing.assert_array_equal(ForwardDynamics(P560).x0, np.zeros(12))
    g = ForwardDynamics(P560, qdd=False)
    assert names(g.outputs) == ["q", "qd"] and g.output_feedthrough() == {"q": (), "qd": ()}
    assert names(InverseDynamics(P560).inputs) == ["q", "qd", "qdd"]
    full = InverseDynamics(P560, gravity="input", fext=True)
    assert names(full.inputs) == ["q", "qd", "qdd", "gravity", "fext"]
    assert [p.shape for p in full.inputs] == [(6,), (6,), (6,), (3,), (6,)]
    assert full.output_feedthrough() == {"tau": ("q", "qd", "qdd", "gravity", "fext")}
    assert Inertia(P560).outputs[0].shape == (6, 6)
    assert Coriolis(twolink()).outputs[0].shape == (2, 2)
    assert names(Friction(P560).inputs) == ["qd"]
    assert CartesianInertia(P560).outputs[0].shape == (6, 6)


@pytest.mark.parametrize("make, match", [
    (lambda: InverseDynamics(None), "InverseDynamics: parameter 'robot' must be a SerialLink"),
    (lambda: InverseDynamics(P560, gravity="up"), "'gravity' must be True"),
    (lambda: InverseDynamics(P560, gravity=[0.0, 9.81]), "'gravity' must be 3 finite"),
    (lambda: InverseDynamics(P560, fext="yes"), "'fext' must be True or False"),
    (lambda: ForwardDynamics(P560, q0=np.zeros(5)), "'q0' must be 6 finite"),
    (lambda: ForwardDynamics(P560, qd0=[np.nan] * 6), "'qd0' must be 6 finite"),
    (lambda: ForwardDynamics(P560, qdd=1), "'qdd' must be True or False"),
    (lambda: Gravload(P560, gravity="down"), "'gravity' must be 3"),
    (lambda: CartesianInertia(twolink()), "needs a square Jacobian"),
    (lambda: Inertia(P560, gravity=True), "Inertia: unknown parameter 'gravity'"),
])
def test_bad_parameters(make, match):
    with pytest.raises(BlockParameterError, match=match):
        make()


# ---------------------------------------------------------------------------- the core
def test_inverse_dynamics_equals_rne():
    tau = same(InverseDynamics(P560), Q, QD, QDD)[0]
    np.testing.assert_array_equal(tau, P560.rne(Q, QD, QDD))
    np.testing.assert_array_equal(same(InverseDynamics(P560, gravity=False), Q, QD, QDD)[0],
                                  P560.rne(Q, QD, QDD, gravity=np.zeros(3)))
    np.testing.assert_array_equal(same(InverseDynamics(P560, gravity=G), Q, QD, QDD)[0],
                                  P560.rne(Q, QD, QDD, gravity=G))
    np.testing.assert_array_equal(
        same(InverseDynamics(P560, gravity="input"), Q, QD, QDD, G)[0],
        P560.rne(Q, QD, QDD, gravity=G))
    np.testing.assert_array_equal(same(InverseDynamics(P560, fext=True), Q, QD, QDD, W)[0],
                                  P560.rne(Q, QD, QDD, fext=W))
    both = same(InverseDynamics(P560, gravity="input", fext=True), Q, QD, QDD, G, W)[0]
    np.testing.assert_array_equal(both, P560.rne(Q, QD, QDD, gravity=G, fext=W))
    # the wrench adds J_e^T fext (tool frame = end-effector frame)
    np.testing.assert_allclose(both - P560.rne(Q, QD, QDD, gravity=G), P560.jacobe(Q).T @ W,
                               rtol=1e-10, atol=1e-10)


def test_terms_equal_the_core():
    M = same(Inertia(P560), Q)[0]
    np.testing.assert_array_equal(M, P560.inertia(Q))
    C = same(Coriolis(P560), Q, QD)[0]
    np.testing.assert_array_equal(C, P560.coriolis(Q, QD))
    g = same(Gravload(P560), Q)[0]
    np.testing.assert_array_equal(g, P560.gravload(Q))
    np.testing.assert_array_equal(same(Gravload(P560, gravity=G), Q)[0],
                                  P560.gravload(Q, gravity=G))
    f = same(Friction(P560), QD)[0]
    np.testing.assert_array_equal(f, P560.friction(QD))
    Mx = same(CartesianInertia(P560), Q)[0]
    np.testing.assert_allclose(Mx, P560.cinertia(Q), rtol=1e-10, atol=1e-10 * np.abs(Mx).max())


def test_identities_of_the_equation_of_motion():
    M = interp(Inertia(P560), Q)[0]
    C = interp(Coriolis(P560), Q, QD)[0]
    g = interp(Gravload(P560), Q)[0]
    f = interp(Friction(P560), QD)[0]
    tau = interp(InverseDynamics(P560), Q, QD, QDD)[0]
    np.testing.assert_allclose(tau, M @ QDD + C @ QD + g - f, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(M, M.T)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    h = 1e-6                                          # dM/dt - 2 C is skew-symmetric
    Md = (interp(Inertia(P560), Q + h * QD)[0] - interp(Inertia(P560), Q - h * QD)[0]) / (2 * h)
    S = Md - 2 * C
    np.testing.assert_allclose(S, -S.T, atol=1e-6)
    assert np.all(f * QD <= 0) and f[2] == 0.0           # friction opposes the motion
    J = P560.jacob0(Q)                                   # Cartesian inertia: J^T Mx J = M
    Mx = interp(CartesianInertia(P560), Q)[0]
    np.testing.assert_allclose(J.T @ Mx @ J, M, rtol=1e-9, atol=1e-9)
    assert np.all(np.isnan(interp(CartesianInertia(P560), np.zeros(6))[0]))   # singular J


def test_forward_dynamics_outputs_and_derivative():
    b = ForwardDynamics(P560)
    x = np.concatenate((Q, QD))
    q, qd, qdd = same(b, TAU, x=x)
    np.testing.assert_array_equal(q, Q)
    np.testing.assert_array_equal(qd, QD)
    np.testing.assert_array_equal(qdd, P560.accel(Q, QD, TAU))
    k = b.kernels()
    dx = k.deriv(0.0, x, TAU, k.params)
    np.testing.assert_array_equal(b.deriv(0.0, x, (TAU,)), np.concatenate((QD, qdd)))
    close(dx, np.concatenate((QD, qdd)))
    # accel inverts rne: rne(q, qd, accel(q, qd, tau)) = tau
    np.testing.assert_allclose(interp(InverseDynamics(P560), Q, QD, qdd)[0], TAU,
                               rtol=1e-10, atol=1e-10)
    s = ForwardDynamics(P560, qdd=False)
    for got in (s.output(0.0, x, (np.full(6, np.nan),)),
                s.kernels().output(0.0, x, np.full(6, np.nan), s.kernels().params)):
        np.testing.assert_array_equal(got[0], Q)           # never reads tau
        np.testing.assert_array_equal(got[1], QD)


# ---------------------------------------------------------------------------- both back-ends
FREE = P560.nofriction("all")
#: upper arm horizontal, forearm nearly so, wrist bent (no singular Jacobian on the way down)
Q_FALL = np.array([0.0, 0.0, -1.2, 0.0, 0.4, 0.0])
#: the computed-torque plant starts here (the full Puma: friction and all)
Q_CT = np.array([0.3, 0.6, -0.9, 0.2, 0.7, -0.4])
T_END = 0.5


def dynamics_diagram() -> Diagram:
    """A Puma 560 without friction falls from rest under zero torque; every dynamics block
    reads it. A second plant (``qdd=False``) gets the same torque; a third, the full Puma, is
    held still by computed torque (InverseDynamics with qdd* = 0 feeding ForwardDynamics)."""
    d = Diagram("arm_dynamics")
    zero = d.add(Constant(np.zeros(6)), "zero")
    fdyn = d.add(ForwardDynamics(FREE, q0=Q_FALL), "fdyn")
    twin = d.add(ForwardDynamics(FREE, q0=Q_FALL, qdd=False), "twin")
    idyn = d.add(InverseDynamics(FREE), "idyn")
    grav = d.add(Constant(FREE.gravity), "g")
    wrench = d.add(Constant(W), "w")
    idyn_in = d.add(InverseDynamics(FREE, gravity="input", fext=True), "idyn_in")
    blocks = {name: d.add(b, name) for name, b in (
        ("inertia", Inertia(FREE)), ("grav", Gravload(FREE)), ("cx", CartesianInertia(FREE)))}
    cor = d.add(Coriolis(FREE), "cor")
    fric = d.add(Friction(P560), "fric")
    d.connect(zero, fdyn["tau"], twin["tau"])
    d.connect(fdyn["q"], idyn["q"], idyn_in["q"], cor["q"], *(b["q"] for b in blocks.values()))
    d.connect(fdyn["qd"], idyn["qd"], idyn_in["qd"], cor["qd"], fric["qd"])
    d.connect(fdyn["qdd"], idyn["qdd"], idyn_in["qdd"])
    d.connect(grav, idyn_in["gravity"])
    d.connect(wrench, idyn_in["fext"])
    ct = d.add(ForwardDynamics(P560, q0=Q_CT), "ct")
    ctrl = d.add(InverseDynamics(P560), "ctrl")
    d.connect(ct["q"], ctrl["q"])
    d.connect(ct["qd"], ctrl["qd"])
    d.connect(zero, ctrl["qdd"])
    d.connect(ctrl["tau"], ct["tau"])
    return d


@pytest.fixture(scope="module")
def dyn_runs():
    opts = dict(dt=1e-3, record_dt=1e-3)
    a = simulate(dynamics_diagram(), T_END, "rk4", **opts)
    b = simulate(dynamics_diagram(), T_END, "rk4", backend="compiled", **opts)
    return a, b


def test_dynamics_diagram_agrees_in_both_backends(dyn_runs):
    a, b = dyn_runs
    assert a.status == b.status == "success"
    np.testing.assert_array_equal(a.t, b.t)
    assert a.state_names == b.state_names
    np.testing.assert_allclose(b.x, a.x, rtol=1e-12, atol=1e-14)
    assert sorted(a.signals) == sorted(b.signals)
    for name in a.signals:
        span = max(np.ptp(a[name]), np.abs(a[name]).max(), 1.0)      # noise-only: 1 SI unit
        np.testing.assert_allclose(b[name], a[name], rtol=0, atol=1e-9 * span, err_msg=name)


def test_the_arm_falls_as_scipy_integrates_it(dyn_runs):
    a, _ = dyn_runs
    q, qd = a["fdyn.q"], a["fdyn.qd"]
    z = np.array([FREE.fkine(row)[2, 3] for row in q])
    assert z[0] - z[200] > 0.1 and z[0] - z[-1] > 0.5 and np.all(np.diff(z) < 0)   # it falls
    t_eval = a.t[a.t <= 0.2 + 1e-12]
    sol = solve_ivp(lambda t, x: np.concatenate((x[6:], FREE.accel(x[:6], x[6:], np.zeros(6)))),
                    (0.0, 0.2), np.concatenate((Q_FALL, np.zeros(6))), method="DOP853",
                    rtol=1e-12, atol=1e-12, t_eval=t_eval)
    np.testing.assert_allclose(q[:len(t_eval)], sol.y[:6].T, atol=1e-8)
    np.testing.assert_allclose(qd[:len(t_eval)], sol.y[6:].T, atol=1e-7)
    np.testing.assert_array_equal(a["twin.q"], q)                # qdd=False: the same plant


def test_qdd_output_is_current_not_stale(dyn_runs):
    a, _ = dyn_runs
    q, qd, qdd = a["fdyn.q"], a["fdyn.qd"], a["fdyn.qdd"]
    for k in range(0, len(a.t), 25):
        np.testing.assert_array_equal(qdd[k], FREE.accel(q[k], qd[k], np.zeros(6)))
    np.testing.assert_allclose(qdd[1:-1], (qd[2:] - qd[:-2]) / 2e-3, atol=1e-3)
    # rne(q, qd, accel(q, qd, 0)) = 0 at every instant
    scale = np.abs(a["grav.tau"]).max()
    np.testing.assert_allclose(a["idyn.tau"], 0.0, atol=1e-10 * scale)
    np.testing.assert_allclose(a["idyn_in.tau"],
                               np.array([FREE.jacobe(row).T @ W for row in q]), atol=1e-9 * scale)


def test_terms_along_the_run_equal_the_core(dyn_runs):
    a, _ = dyn_runs
    for k in (0, 137, len(a.t) - 1):
        q, qd = a["fdyn.q"][k], a["fdyn.qd"][k]
        np.testing.assert_array_equal(a["inertia.inertia"][k], FREE.inertia(q))
        np.testing.assert_array_equal(a["grav.tau"][k], FREE.gravload(q))
        np.testing.assert_array_equal(a["cor.coriolis"][k], FREE.coriolis(q, qd))
        np.testing.assert_array_equal(a["fric.tau"][k], P560.friction(qd))
        np.testing.assert_allclose(a["cx.inertia"][k], FREE.cinertia(q), rtol=1e-9,
                                   atol=1e-9 * np.abs(a["cx.inertia"][k]).max())


def test_energy_is_conserved_without_friction(dyn_runs):
    a, _ = dyn_runs
    dyn, g = FREE.arrays.dyn, FREE.gravity
    energy, kinetic = [], []
    for q, qd in zip(a["fdyn.q"], a["fdyn.qd"], strict=True):
        frames = FREE.fkine(q, all=True)
        potential = sum(dyn[i, 0] * g @ (frames[i + 1][:3, :3] @ dyn[i, 1:4] + frames[i + 1][:3, 3])
                        for i in range(6))
        kinetic.append(0.5 * qd @ FREE.inertia(q) @ qd)
        energy.append(kinetic[-1] + potential)
    energy = np.array(energy)
    assert max(kinetic) > 10.0                          # the arm did move
    np.testing.assert_allclose(energy, energy[0], rtol=0,
                               atol=1e-9 * max(abs(energy[0]), max(kinetic)))


def test_computed_torque_holds_the_arm_still(dyn_runs):
    for r in dyn_runs:
        assert np.abs(r["ct.q"] - Q_CT).max() < 1e-8
        assert np.abs(r["ct.qd"]).max() < 1e-8
        np.testing.assert_allclose(r["ctrl.tau"][-1], P560.gravload(Q_CT), rtol=1e-12)
