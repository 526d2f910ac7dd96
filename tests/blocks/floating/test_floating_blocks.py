"""Floating-base blocks: outputs against the floating-base numerics and finite differences,
momentum conservation in a diagram, both back-ends, a JSON round trip, parameter errors."""

from pathlib import Path

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.floating import (
    EndEffectorJacobian,
    FloatingBaseDynamics,
    FloatingBaseKinematics,
)
from blocksim.engine.errors import BlockParameterError
from blocksim.io import dumps, load, loads
from blocksim.robotics.arm.layout import rotx, trans
from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.models import panda, puma560
from blocksim.robotics.urdf import read_urdf

ROOT = Path(__file__).resolve().parents[3]
URDF = ROOT / "diagrams" / "urdf" / "spacecraft_panda.urdf"
EE = "panda_hand_tcp"
RNG = np.random.default_rng(18)


@pytest.fixture(scope="module")
def tree():
    return read_urdf(URDF)


def _base_pose():
    return trans(0.3, -0.2, 0.1) @ rotx(0.4)


def test_kinematics_block_matches_the_tree(tree):
    blk = FloatingBaseKinematics(tree, ee=EE, tool=trans(0, 0, 0.05))
    q = RNG.normal(size=7)
    T, com = blk.output(0.0, np.zeros(0), (_base_pose(), q))
    np.testing.assert_allclose(T, tree.fkine(q, EE, _base_pose()) @ trans(0, 0, 0.05),
                               atol=1e-14)  # fmt: skip
    frames = tree.fkine_all(q, _base_pose())
    masses = [tree.base.mass] + [b.mass for b in tree.bodies]
    coms = [F[:3, :3] @ b.com + F[:3, 3] for F, b in zip(frames, (tree.base, *tree.bodies))]
    np.testing.assert_allclose(com, np.average(coms, axis=0, weights=masses), atol=1e-14)


def test_jacobian_block_gives_the_tool_twist(tree):
    """J @ [v0; omega0; qd] equals the finite-difference velocity of the tool pose when the
    base moves with that twist (v0 of the base centre of mass)."""
    full = EndEffectorJacobian(tree, ee=EE)
    joints = EndEffectorJacobian(tree, ee=EE, part="joints")
    base = EndEffectorJacobian(tree, ee=EE, part="base")
    kin = FloatingBaseKinematics(tree, ee=EE)
    q, qd = RNG.normal(size=7), RNG.normal(size=7)
    v0, w0 = RNG.normal(size=3), RNG.normal(size=3)
    T0 = _base_pose()
    (J,) = full.output(0.0, np.zeros(0), (T0, q))
    assert J.shape == (6, 13)
    np.testing.assert_allclose(joints.output(0.0, np.zeros(0), (T0, q))[0], J[:, 6:])
    np.testing.assert_allclose(base.output(0.0, np.zeros(0), (T0, q))[0], J[:, :6])
    from scipy.linalg import expm

    from blocksim.robotics.floating.spart import SkewSym

    c0 = T0[:3, :3] @ tree.base.com + T0[:3, 3]

    def pose(h):
        R = expm(SkewSym(w0) * h) @ T0[:3, :3]
        T = np.eye(4)
        T[:3, :3] = R
        T[:3, 3] = c0 + v0 * h - R @ tree.base.com
        return kin.output(0.0, np.zeros(0), (T, q + qd * h))[0]

    h = 1e-6
    Tp, Tm = pose(h), pose(-h)
    v = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
    W = (Tp[:3, :3] - Tm[:3, :3]) / (2 * h) @ pose(0.0)[:3, :3].T
    twist = J @ np.concatenate([v0, w0, qd])
    np.testing.assert_allclose(twist[:3], v, atol=1e-7)
    np.testing.assert_allclose(twist[3:], [W[2, 1], W[0, 2], W[1, 0]], atol=1e-7)


def test_dynamics_block_derivative_and_outputs(tree):
    q0, qd0 = RNG.normal(size=7), RNG.normal(size=7)
    tw = np.array([0.1, -0.2, 0.05, 0.02, 0.03, -0.01])  # [v0; omega0]
    blk = FloatingBaseDynamics(tree, q0=q0, qd0=qd0, base0=_base_pose(), twist0=tw)
    x = blk.x0
    q, _, T, twist = blk.output(0.0, x, (None, None))
    np.testing.assert_allclose(T, _base_pose(), atol=1e-15)
    np.testing.assert_allclose(twist, tw)
    np.testing.assert_array_equal(q, q0)
    tau, wrench = RNG.normal(size=7), RNG.normal(size=6)  # wrench [f; n]
    dx = blk.deriv(0.0, x, (tau, wrench))
    fb = FloatingBase(tree)
    R0 = _base_pose()[:3, :3]
    r0 = x[:3]
    a0, qdd = fb.forward_dynamics(R0, r0, np.concatenate([tw[3:], tw[:3]]), q0, qd0,
                                  np.concatenate([wrench[3:], wrench[:3]]), tau)  # fmt: skip
    np.testing.assert_allclose(dx[:3], tw[:3])
    np.testing.assert_allclose(dx[7:14], qd0)
    np.testing.assert_allclose(dx[14:17], a0[3:], atol=1e-12)
    np.testing.assert_allclose(dx[17:20], a0[:3], atol=1e-12)
    np.testing.assert_allclose(dx[20:], qdd, atol=1e-12)


def _free_diagram(tree, tau):
    d = Diagram("free")
    plant = d.add(FloatingBaseDynamics(tree, q0=[0, -0.3, 0, -2.2, 0, 2.0, 0.8]), name="plant")
    d.connect(d.add(Constant(np.asarray(tau, dtype=float)), name="tau"), plant["tau"])
    d.connect(d.add(Constant(np.zeros(6)), name="wrench"), plant["wrench"])
    kin = d.add(FloatingBaseKinematics(tree, ee=EE), name="kin")
    jac = d.add(EndEffectorJacobian(tree, ee=EE), name="jac")
    d.connect(plant["base"], kin["base"], jac["base"])
    d.connect(plant["q"], kin["q"], jac["q"])
    return d


def test_momentum_conserved_in_a_diagram(tree):
    """Joint torques alone (no wrench, no gravity): the centre of mass stays where it is and the
    angular momentum stays zero while the arm and the base move."""
    tau = np.array([2.0, -3.0, 1.0, 2.0, 0.5, -0.5, 0.2])
    res = simulate(_free_diagram(tree, tau), 0.5, rtol=1e-10, atol=1e-12)
    fb = FloatingBase(tree)
    com0 = res["kin.com"][0]
    np.testing.assert_allclose(res["kin.com"], np.broadcast_to(com0, res["kin.com"].shape),
                               atol=1e-9)  # fmt: skip
    for k in range(0, len(res.t), max(1, len(res.t) // 5)):
        T0 = res["plant.base"][k]
        R0 = T0[:3, :3]
        r0 = T0[:3, 3] + R0 @ tree.base.com
        kin = fb.kinematics(R0, r0, res["plant.q"][k])
        tw = res["plant.twist"][k]
        t = fb.velocities(kin, np.concatenate([tw[3:], tw[:3]]), res["plant.qd"][k])
        P, L = fb.momentum(kin, t)
        np.testing.assert_allclose(P, 0.0, atol=1e-8)
        np.testing.assert_allclose(L, 0.0, atol=1e-8)
    assert np.abs(res["plant.twist"][-1][3:]).max() > 1e-3  # the base turned in reaction


def test_backends_agree(tree):
    d = _free_diagram(tree, [1.0, -1.0, 0.5, 0.5, 0.2, -0.2, 0.1])
    opts = dict(solver="rk4", dt=0.01)
    a = simulate(d, 0.05, backend="compiled", **opts)
    b = simulate(d, 0.05, backend="interpreted", **opts)
    for name in b.signals:
        np.testing.assert_allclose(a[name], b[name], rtol=0, atol=1e-13, err_msg=name)


def test_json_round_trip(tmp_path):
    src = ROOT / "diagrams" / "floating_arm_reach.json"
    f = load(src)
    text = dumps(f.diagram)
    (tmp_path / "urdf").mkdir()
    (tmp_path / "urdf" / URDF.name).write_bytes(URDF.read_bytes())
    g = loads(text, base_dir=tmp_path)
    a = simulate(f.diagram, 0.05, rtol=1e-8, atol=1e-10)
    b = simulate(g.diagram, 0.05, rtol=1e-8, atol=1e-10)
    assert a.signals == b.signals
    for name in a.signals:
        np.testing.assert_array_equal(a[name], b[name])


def test_serial_link_robot_and_fixed_base(tree):
    p560 = puma560().nofriction("all")
    blk = FloatingBaseDynamics(p560, fixed_base=True, gravity=[0, 0, 9.81], base_mass=5.0,
                               base_inertia=[1, 1, 1])  # fmt: skip
    x = blk.x0
    q = np.zeros(6)
    tau = RNG.normal(size=6)
    dx = blk.deriv(0.0, x, (tau, np.zeros(6)))
    np.testing.assert_allclose(dx[13 + 6 :], p560.accel(q, q, tau), atol=1e-9)
    assert not dx[:7].any() and not dx[13:19].any()


@pytest.mark.parametrize("make, message", [
    (lambda t: FloatingBaseDynamics("puma"), "'robot' must be a FloatingBase, a TreeModel"),
    (lambda t: FloatingBaseKinematics(t, ee="claw"), "'ee': .*no link 'claw'"),
    (lambda t: EndEffectorJacobian(t, part="arm"), "'part' must be one of"),
    (lambda t: FloatingBaseDynamics(t, fixed_base=True, twist0=[1, 0, 0, 0, 0, 0]),
     "fixed base .* needs twist0 = 0"),
    (lambda t: FloatingBaseDynamics(t, q0=[0, 1]), "'q0' must be 7 finite"),
    (lambda t: FloatingBaseDynamics(t, base0=np.ones((4, 4))), "'base0' is not a rigid"),
    (lambda t: FloatingBaseDynamics(panda()), "singular inertia matrix"),
    (lambda t: FloatingBaseDynamics(panda(), fixed_base=True), "singular inertia matrix"),
])  # fmt: skip
def test_bad_parameters(tree, make, message):
    with pytest.raises(BlockParameterError, match=message):
        make(tree)
