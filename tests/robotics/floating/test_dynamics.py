"""Floating-base dynamics: invariants (H SPD, Hdot = C + C^T, ID o FD, momentum conservation),
the fixed-base limit against blocksim's arm RNE, and SPART's literal matrix formulation."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import expm

from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.floating import spart as S
from blocksim.robotics.models import puma560
from blocksim.robotics.urdf import serial_to_tree

RNG = np.random.default_rng(18)


def _step(robot, s, t0, qd, dt):
    """Configuration moved by dt along the base twist and joint rates (exact for the base)."""
    W = S.SkewSym(t0[:3])
    return expm(W * dt) @ s["R0"], s["r0"] + t0[3:] * dt, s["q"] + qd * dt


def test_inertia_matrix_symmetric_positive_definite_and_kinetic_energy(robot, state):
    kin = robot.kinematics(state["R0"], state["r0"], state["q"])
    H = robot.inertia_matrix(kin)
    np.testing.assert_allclose(H, H.T, atol=1e-14)
    assert np.linalg.eigvalsh(H).min() > 1e-6
    # H = N^T M N and the kinetic energy 1/2 u^T H u equals the sum over the bodies
    t = robot.velocities(kin, state["t0"], state["qd"])
    u = np.concatenate([state["t0"], state["qd"]])
    ke = 0.0
    for i in range(robot.n + 1):
        b = robot.tree.base if i == 0 else robot.tree.bodies[i - 1]
        Iw = kin.RL[i] @ b.inertia @ kin.RL[i].T
        ke += 0.5 * (t[i, :3] @ Iw @ t[i, :3] + b.mass * t[i, 3:] @ t[i, 3:])
    assert 0.5 * u @ H @ u == pytest.approx(ke, rel=1e-12)
    assert H[3, 3] == pytest.approx(robot.tree.mass)  # total mass on the linear block


def test_convective_matrix_gives_the_bias_and_hdot(robot, state):
    s = state
    kin = robot.kinematics(s["R0"], s["r0"], s["q"])
    t = robot.velocities(kin, s["t0"], s["qd"])
    C = robot.convective_matrix(kin, t)
    u = np.concatenate([s["t0"], s["qd"]])
    b0, bm = robot.inverse_dynamics(
        s["R0"], s["r0"], s["t0"], s["q"], s["qd"], np.zeros(6), np.zeros(robot.nq)
    )
    np.testing.assert_allclose(C @ u, np.concatenate([b0, bm]), atol=1e-11)
    dt = 1e-6
    Hp = robot.inertia_matrix(robot.kinematics(*_step(robot, s, s["t0"], s["qd"], dt)))
    Hm = robot.inertia_matrix(robot.kinematics(*_step(robot, s, s["t0"], s["qd"], -dt)))
    Hdot = (Hp - Hm) / (2 * dt)
    np.testing.assert_allclose(C + C.T, Hdot, atol=1e-6)  # Hdot - 2C is skew-symmetric


def test_forward_inverse_round_trips(robot, state):
    s = state
    wF = RNG.normal(size=(robot.n + 1, 6))
    tau0, taum = RNG.normal(size=6), RNG.normal(size=robot.nq)
    for gravity in (np.zeros(3), np.array([0.0, 0.0, 9.81])):
        robot.gravity = gravity
        a0, qdd = robot.forward_dynamics(s["R0"], s["r0"], s["t0"], s["q"], s["qd"], tau0, taum, wF)
        b0, bm = robot.inverse_dynamics(s["R0"], s["r0"], s["t0"], s["q"], s["qd"], a0, qdd, wF)
        np.testing.assert_allclose(b0, tau0, atol=1e-10)
        np.testing.assert_allclose(bm, taum, atol=1e-10)
        # and FD(ID(accelerations)) == accelerations
        c0, cm = robot.forward_dynamics(s["R0"], s["r0"], s["t0"], s["q"], s["qd"], b0, bm, wF)
        np.testing.assert_allclose(c0, a0, atol=1e-9)
        np.testing.assert_allclose(cm, qdd, atol=1e-9)
    robot.gravity = np.zeros(3)


def test_floating_inverse_dynamics_unactuated_base(robot, state):
    s = state
    qdd = RNG.normal(size=robot.nq)
    taum, a0 = robot.floating_inverse_dynamics(s["R0"], s["r0"], s["t0"], s["q"], s["qd"], qdd)
    # applying those torques with no base wrench gives back qdd and the base acceleration
    b0, bq = robot.forward_dynamics(s["R0"], s["r0"], s["t0"], s["q"], s["qd"], None, taum)
    np.testing.assert_allclose(bq, qdd, atol=1e-9)
    np.testing.assert_allclose(b0, a0, atol=1e-9)


def test_momentum_conserved_under_joint_torques(robot):
    """Free floating, no external wrench, no gravity, arbitrary (time-varying) joint torques:
    linear and angular momentum stay constant and the centre of mass moves uniformly."""
    nq = robot.nq
    amp = RNG.normal(size=nq) * np.array([5, 5, 5, 3, 1, 1, 0.5, 0.01, 0.01])

    def rhs(t, x):
        R0 = x[:9].reshape(3, 3)
        r0, q, t0, qd = x[9:12], x[12 : 12 + nq], x[12 + nq : 18 + nq], x[18 + nq :]
        a0, qdd = robot.forward_dynamics(R0, r0, t0, q, qd, None, amp * np.cos(3 * t))
        dR = S.SkewSym(t0[:3]) @ R0
        return np.concatenate([dR.ravel(), t0[3:], qd, a0, qdd])

    x0 = np.concatenate(
        [
            np.eye(3).ravel(),
            [0.1, 0.2, 0.3],
            RNG.uniform(-0.5, 0.5, nq),
            [0.05, -0.02, 0.01, 0.01, 0.0, -0.02],
            RNG.normal(size=nq) * 0.2,
        ]
    )
    sol = solve_ivp(rhs, (0, 1.0), x0, rtol=1e-11, atol=1e-12, dense_output=True)
    assert sol.success

    def momenta(x):
        R0, r0, q = x[:9].reshape(3, 3), x[9:12], x[12 : 12 + nq]
        kin = robot.kinematics(R0, r0, q)
        t = robot.velocities(kin, x[12 + nq : 18 + nq], x[18 + nq :])
        P, L = robot.momentum(kin, t)
        return P, L, robot.center_of_mass(kin)

    P0, L0, c0 = momenta(x0)
    q_moved = 0.0
    for tk in (0.25, 0.5, 1.0):
        x = sol.sol(tk)
        P, L, c = momenta(x)
        np.testing.assert_allclose(P, P0, atol=1e-8)
        np.testing.assert_allclose(L, L0, atol=1e-8)
        np.testing.assert_allclose(c, c0 + P0 / robot.tree.mass * tk, atol=1e-8)
        q_moved = max(q_moved, np.abs(x[12 : 12 + nq] - x0[12 : 12 + nq]).max())
    assert q_moved > 0.1  # the arm really moved (and so did the base, to keep L)


@pytest.fixture(scope="module")
def puma_tree():
    return serial_to_tree(puma560(), base_mass=1.0, base_inertia=np.eye(3))


def test_fixed_base_equals_arm_rne_and_accel(puma_tree):
    p560 = puma560().nofriction("all")  # motor inertia stays: it is the tree's armature
    robot = FloatingBase(puma_tree, gravity=[0, 0, 9.81])
    I3, z3, z6 = np.eye(3), np.zeros(3), np.zeros(6)
    for _ in range(3):
        q, qd, qdd, tau = (RNG.normal(size=6) for _ in range(4))
        _, taum = robot.inverse_dynamics(I3, z3, z6, q, qd, z6, qdd)
        np.testing.assert_allclose(taum, p560.rne(q, qd, qdd), atol=1e-10)
        a0, acc = robot.forward_dynamics(I3, z3, z6, q, qd, None, tau, fixed=True)
        assert not a0.any()
        np.testing.assert_allclose(acc, p560.accel(q, qd, tau), atol=1e-9)


def test_fixed_base_limit_of_a_heavy_free_base(puma_tree):
    """A free base of huge mass and inertia hardly moves: the joint accelerations approach the
    fixed-base ones (error ~ 1/mass)."""
    p560 = puma560().nofriction("all")
    q, qd, tau = RNG.normal(size=6), RNG.normal(size=6), RNG.normal(size=6) * 10
    errors = []
    for big in (1e4, 1e6, 1e8):
        tree = serial_to_tree(p560, base_mass=big, base_inertia=big * np.eye(3))
        robot = FloatingBase(tree, gravity=[0, 0, 9.81])
        # hold the heavy base up against gravity (the arm's weight is carried by the base)
        w0 = np.array([0, 0, 0, 0, 0, tree.mass * 9.81])
        _, acc = robot.forward_dynamics(np.eye(3), np.zeros(3), np.zeros(6), q, qd, w0, tau)
        errors.append(np.abs(acc - p560.accel(q, qd, tau)).max())
    assert errors[0] < 1e-1 and errors[2] < 1e-5 and errors[2] < errors[1] < errors[0]


def test_spart_literal_formulation_agrees(robot, state):
    """SPART's matrix formulation (numpy, mixed-frame base) against the O(n) kernels."""
    s = state
    R0, r0, q, qd = s["R0"], s["r0"], s["q"], s["qd"]
    u0 = RNG.normal(size=6)
    _RJ, RL, _rJ, rL, e, g = S.Kinematics(R0, r0, q, robot)
    Bij, Bi0, P0, pm = S.DiffKinematics(R0, r0, rL, e, g, robot)
    t0, tL = S.Velocities(Bij, Bi0, P0, pm, u0, qd, robot)
    kin = robot.kinematics(R0, r0, q)
    t = robot.velocities(kin, P0 @ u0, qd)
    np.testing.assert_allclose(tL, t[1:].T, atol=1e-13)
    T = np.eye(6 + robot.nq)
    T[:6, :6] = P0  # u = T u_spart
    Td = np.zeros_like(T)
    Td[:3, :3] = S.SkewSym(t0[:3]) @ R0
    I0, Im = S.I_I(R0, RL, robot)
    M0, Mm = S.MCB(I0, Im, Bij, Bi0, robot)
    H0, H0m, Hm = S.GIM(M0, Mm, Bij, Bi0, P0, pm, robot)
    H = robot.inertia_matrix(kin)
    np.testing.assert_allclose(np.block([[H0, H0m], [H0m.T, Hm]]), T.T @ H @ T, atol=1e-12)
    C0, C0m, Cm0, Cm = S.CIM(t0, tL, I0, Im, M0, Mm, Bij, Bi0, P0, pm, robot)
    C = robot.convective_matrix(kin, t)
    np.testing.assert_allclose(np.block([[C0, C0m], [Cm0, Cm]]), T.T @ (C @ T + H @ Td), atol=1e-11)
    wF = RNG.normal(size=(robot.n + 1, 6))
    tau0, taum = RNG.normal(size=6), RNG.normal(size=robot.nq)
    u0d, umd = S.FD(tau0, taum, wF[0], wF[1:].T, t0, tL, P0, pm, I0, Im, Bij, Bi0, u0, qd, robot)
    a0, qa = robot.forward_dynamics(R0, r0, P0 @ u0, q, qd, np.linalg.solve(P0.T, tau0), taum, wF)
    np.testing.assert_allclose(umd, qa, atol=1e-10)
    np.testing.assert_allclose(P0 @ u0d + Td[:6, :6] @ u0, a0, atol=1e-10)
    t0d, tLd = S.Accelerations(t0, tL, P0, pm, Bi0, Bij, u0, qd, u0d, umd, robot)
    np.testing.assert_allclose(tLd, robot.accelerations(kin, t, a0, qd, qa)[1:].T, atol=1e-10)
    b0, bm = S.ID(wF[0], wF[1:].T, t0, tL, t0d, tLd, P0, pm, I0, Im, Bij, Bi0, robot)
    np.testing.assert_allclose(b0, tau0, atol=1e-10)
    np.testing.assert_allclose(bm, taum, atol=1e-10)
    taumf, u0df = S.Floating_ID(
        wF[0], wF[1:].T, Mm, H0, t0, tL, P0, pm, I0, Im, Bij, Bi0, u0, qd, umd, robot
    )
    tk, ak = robot.floating_inverse_dynamics(R0, r0, P0 @ u0, q, qd, umd, wF)
    np.testing.assert_allclose(taumf, tk, atol=1e-10)
    np.testing.assert_allclose(P0 @ u0df + Td[:6, :6] @ u0, ak, atol=1e-10)


def test_dh_serial2robot_and_urdf2robot():
    p560 = puma560()
    robot, T_Ln_EE = S.DH_Serial2robot(p560, base_mass=10.0, base_inertia=np.eye(3))
    q = RNG.normal(size=6)
    assert robot.nq == 6 and robot.tree.base.mass == 10.0
    np.testing.assert_allclose(robot.tree.fkine(q), p560.fkine(q), atol=1e-12)
    np.testing.assert_allclose(T_Ln_EE, robot.tree.bodies[-1].origin)
    from tests.robotics.floating.conftest import DATA

    ur5, keys = S.urdf2robot(DATA / "ur5_robot.urdf")
    assert keys["link_id"]["world"] == 0 and keys["q_id"]["shoulder_pan_joint"] == 1
    branch, child, child_base = S.ConnectivityMap(ur5)
    assert child_base.tolist() == [1] + [0] * 9 and np.array_equal(branch, np.tril(branch))
    assert child[keys["link_id"]["tool0"] - 1, keys["link_id"]["wrist_3_link"] - 1] == 1
    assert branch[keys["link_id"]["tool0"] - 1, keys["link_id"]["ee_link"] - 1] == 0


def test_angles_dcm():
    phi, theta, psi = 0.3, -0.7, 1.1
    Rz = np.array([[np.cos(psi), -np.sin(psi), 0], [np.sin(psi), np.cos(psi), 0], [0, 0, 1]])
    Ry = np.array(
        [[np.cos(theta), 0, np.sin(theta)], [0, 1, 0], [-np.sin(theta), 0, np.cos(theta)]]
    )
    Rx = np.array([[1, 0, 0], [0, np.cos(phi), -np.sin(phi)], [0, np.sin(phi), np.cos(phi)]])
    D = S.Angles321_DCM([phi, theta, psi])
    np.testing.assert_allclose(D, (Rz @ Ry @ Rx).T, atol=1e-15)
    # element (3, 2) (1-based) is the one SPART fixed in 2018
    assert D[2, 1] == pytest.approx(
        np.cos(phi) * np.sin(theta) * np.sin(psi) - np.sin(phi) * np.cos(psi)
    )
    np.testing.assert_allclose(S.Angles123_DCM([phi, theta, psi]), (Rx @ Ry @ Rz).T, atol=1e-15)
