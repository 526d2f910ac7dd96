"""Floating-base kinematics: poses against the tree's fkine, twists and twist rates against
finite differences, point Jacobians, NOC, centre of mass."""

import numpy as np
from scipy.linalg import expm

from blocksim.robotics.floating import spart as S


def test_kinematics_matches_tree_fkine(robot, state):
    s = state
    kin = robot.kinematics(s["R0"], s["r0"], s["q"])
    T0 = robot.base_pose(s["R0"], s["r0"])
    np.testing.assert_allclose(T0[:3, :3] @ robot.tree.base.com + T0[:3, 3], s["r0"])
    Ts = robot.tree.fkine_all(s["q"], T0)
    np.testing.assert_allclose(kin.RL, Ts[:, :3, :3], atol=1e-14)
    np.testing.assert_allclose(kin.pL, Ts[:, :3, 3], atol=1e-14)
    for i, b in enumerate(robot.tree.bodies):
        np.testing.assert_allclose(
            kin.rC[i + 1], Ts[i + 1, :3, :3] @ b.com + Ts[i + 1, :3, 3], atol=1e-14
        )
    m = np.array([robot.tree.base.mass] + [b.mass for b in robot.tree.bodies])
    np.testing.assert_allclose(robot.center_of_mass(kin), m @ kin.rC / m.sum(), atol=1e-15)


def _config(s, t0, qd, dt):
    return expm(S.SkewSym(t0[:3]) * dt) @ s["R0"], s["r0"] + t0[3:] * dt, s["q"] + qd * dt


def test_velocities_are_time_derivatives(robot, state):
    s, dt = state, 1e-6
    kin = robot.kinematics(s["R0"], s["r0"], s["q"])
    t = robot.velocities(kin, s["t0"], s["qd"])
    kp = robot.kinematics(*_config(s, s["t0"], s["qd"], dt))
    km = robot.kinematics(*_config(s, s["t0"], s["qd"], -dt))
    np.testing.assert_allclose((kp.rC - km.rC) / (2 * dt), t[:, 3:], atol=1e-8)
    W = np.einsum("kab,kcb->kac", (kp.RL - km.RL) / (2 * dt), kin.RL)
    np.testing.assert_allclose(
        np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], 1), t[:, :3], atol=1e-8
    )
    # the NOC stacks the same twists; a point Jacobian gives a point's velocity
    u = np.concatenate([s["t0"], s["qd"]])
    np.testing.assert_allclose(robot.noc(kin) @ u, t.ravel(), atol=1e-12)
    tip = robot.link("panda_hand_tcp")
    rp = kin.pL[tip]
    J = robot.jacobian(kin, tip, rp)
    np.testing.assert_allclose(
        J @ u, np.concatenate([t[tip, :3], (kp.pL[tip] - km.pL[tip]) / (2 * dt)]), atol=1e-8
    )


def test_accelerations_and_noc_dot(robot, state):
    s, dt = state, 1e-5
    t0d = np.random.default_rng(1).normal(size=6)
    t0d[:3] = 0.0  # base angular acceleration 0 keeps the base rotation exact below
    t0 = s["t0"].copy()
    qdd = np.random.default_rng(2).normal(size=robot.nq)

    def twists(h):
        R0 = expm(S.SkewSym(t0[:3]) * h) @ s["R0"]
        r0 = s["r0"] + t0[3:] * h + 0.5 * t0d[3:] * h * h
        q = s["q"] + s["qd"] * h + 0.5 * qdd * h * h
        kin = robot.kinematics(R0, r0, q)
        return kin, robot.velocities(kin, t0 + t0d * h, s["qd"] + qdd * h)

    kin, t = twists(0.0)
    td = robot.accelerations(kin, t, t0d, s["qd"], qdd)
    (kp, tp), (km, tm) = twists(dt), twists(-dt)
    np.testing.assert_allclose((tp - tm) / (2 * dt), td, atol=1e-6)
    Nd = robot.noc_dot(kin, t)
    Nfd = (robot.noc(kp) - robot.noc(km)) / (2 * dt)
    np.testing.assert_allclose(Nd, Nfd, atol=1e-6)


def test_spart_jacob_and_jacobdot(robot, state):
    """SPART's Jacob/Jacobdot (mixed-frame base): tp = J0 u0 + Jm um, and
    tpdot = J0 u0dot + J0dot u0 + Jm umdot + Jmdot um against finite differences."""
    s = state
    rng = np.random.default_rng(5)
    u0, u0d = rng.normal(size=6), rng.normal(size=6)
    u0d[:3] = 0.0
    u0[:3] = 0.0  # no base rotation keeps the finite difference of the base pose exact
    umd = rng.normal(size=robot.nq)
    i = robot.link("panda_hand_tcp")
    off = np.array([0.01, -0.02, 0.03])  # a point fixed on the hand, in its frame

    def at(h):
        r0 = s["r0"] + u0[3:] * h + 0.5 * u0d[3:] * h * h
        q = s["q"] + s["qd"] * h + 0.5 * umd * h * h
        um = s["qd"] + umd * h
        _RJ, RL, _rJ, rL, e, g = S.Kinematics(s["R0"], r0, q, robot)
        Bij, Bi0, P0, pm = S.DiffKinematics(s["R0"], r0, rL, e, g, robot)
        t0, tL = S.Velocities(Bij, Bi0, P0, pm, u0 + u0d * h, um, robot)
        rp = robot.kinematics(s["R0"], r0, q).pL[i] + RL[:, :, i - 1] @ off
        J0, Jm = S.Jacob(rp, r0, rL, P0, pm, i, robot)
        tp = J0 @ (u0 + u0d * h) + Jm @ um
        return rp, tp, r0, t0, rL, tL, P0, pm, J0, Jm, um

    h = 1e-6
    rp, tp, r0, t0, rL, tL, P0, pm, J0, Jm, um = at(0.0)
    np.testing.assert_allclose(tp[:3], tL[:3, i - 1], atol=1e-13)
    np.testing.assert_allclose(tp[3:], (at(h)[0] - at(-h)[0]) / (2 * h), atol=1e-7)
    J0d, Jmd = S.Jacobdot(rp, tp, r0, t0, rL, tL, P0, pm, i, robot)
    tpdot = J0 @ u0d + J0d @ u0 + Jm @ umd + Jmd @ um
    np.testing.assert_allclose(tpdot, (at(h)[1] - at(-h)[1]) / (2 * h), atol=1e-6)
