"""The arm and visual-servo examples show what they exist to show.

Each test runs its example headless and checks the behaviour against the robotics core
(forward kinematics, Jacobians, dynamics) or an analytic solution: feedforward + PD tracking,
energy conservation of the falling arm, the jtraj end-effector path, the exponential
convergence of resolved-rate control and of image-based visual servoing (free-flying and on
the Puma).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from PIL import Image
from scipy.optimize import fsolve

from blocksim.robotics.arm.perturb import scale_inertial
from blocksim.robotics.models import puma560
from blocksim.robotics.spatial import tr2delta, transl
from blocksim.robotics.trajectory import jtraj

from .examples_loader import load_example

PUMA = puma560()


def at(result, times) -> np.ndarray:
    """Indices of the recorded samples closest to ``times`` [s]."""
    return np.abs(result.t[:, None] - np.asarray(times)[None, :]).argmin(axis=0)


# ----------------------------------------------------------------------- feedforward + PD
def test_feedforward_pd_pulls_the_initial_error_in_while_tracking():
    module = load_example("puma_feedforward_pd")
    res = module.main(T=2.0)
    err = np.abs(res["e.y"]).max(axis=1)                     # worst joint [rad]
    assert err[0] == pytest.approx(module.Q_ERR0)
    # the envelope of the error shrinks by > 5 in every half second
    windows = [err[(res.t >= a) & (res.t <= a + 0.5)].max() for a in (0.0, 0.5, 1.0, 1.5)]
    assert all(later < earlier / 5 for earlier, later in pairwise(windows))
    assert windows[2] < 1e-3 and err[-1] < 2e-5
    # the arm did follow the trajectory qz -> qr
    np.testing.assert_allclose(res["plant.q"][-1], PUMA.poses["qr"], atol=2e-5)
    # the torque is the feedforward of the exact model plus the PD terms
    arm = PUMA.nofriction()
    for k in at(res, [0.0, 0.7, 1.3]):
        q_d, qd_d, qdd_d = (res[f"traj.{p}"][k] for p in ("q", "qd", "qdd"))
        np.testing.assert_allclose(res["ff.tau"][k], arm.rne(q_d, qd_d, qdd_d), rtol=1e-12,
                                   atol=1e-10)
        pd = module.KP * (q_d - res["plant.q"][k]) + module.KD * (qd_d - res["plant.qd"][k])
        np.testing.assert_allclose(res["tau.y"][k], res["ff.tau"][k] + pd, rtol=1e-12,
                                   atol=1e-10)


def test_feedforward_with_heavier_model_settles_with_the_gravity_offset():
    module = load_example("puma_feedforward_pd")
    res = module.main(T=4.0, mismatch=0.1, rtol=1e-8, atol=1e-10)
    arm = PUMA.nofriction()
    qr = arm.poses["qr"]
    ff = scale_inertial(arm, 1.1).gravload(qr)             # what the heavier model holds
    # at rest: g(q) = ff + Kp (qr - q)
    q_ss = fsolve(lambda q: arm.gravload(q) - ff - module.KP * (qr - q), qr, xtol=1e-12)
    e_ss = qr - q_ss
    assert np.abs(e_ss).max() > 1e-4                         # a visible offset ...
    np.testing.assert_allclose(res["e.y"][-1], e_ss, atol=2e-6)   # ... and the arm sits there
    np.testing.assert_allclose(res["plant.qd"][-1], 0.0, atol=1e-5)


# ----------------------------------------------------------------------- zero torque
def test_zero_torque_arm_falls_and_conserves_energy():
    module = load_example("puma_zero_torque")
    res = module.main(T=1.0, rtol=1e-8, atol=1e-10)
    arm = PUMA.nofriction("all")
    q, qd = res["plant.q"], res["plant.qd"]
    np.testing.assert_array_equal(q[0], arm.poses["qn"])
    np.testing.assert_array_equal(qd[0], 0.0)
    assert np.abs(q - q[0]).max() > 0.1                       # it does move
    g = arm.gravity
    kinetic, potential = [], []
    for qk, qdk in zip(q, qd, strict=True):
        frames = arm.fkine(qk, all=True)                      # frame i + 1 is link i's frame
        centres = [frames[i + 1][:3, :3] @ link.r + frames[i + 1][:3, 3]
                   for i, link in enumerate(arm.links)]
        potential.append(sum(link.m * g @ c for link, c in zip(arm.links, centres)))
        kinetic.append(0.5 * qdk @ arm.inertia(qk) @ qdk)
    kinetic, potential = np.array(kinetic), np.array(potential)
    assert kinetic.max() > 10.0                               # joules: a real fall
    assert potential[-1] < potential[0] - 10.0
    energy = kinetic + potential
    scale = max(abs(energy[0]), kinetic.max())
    assert np.ptp(energy) < 1e-6 * scale


# ----------------------------------------------------------------------- jtraj path
def test_jtraj_path_is_fkine_of_the_jtraj_samples():
    module = load_example("puma_jtraj_path")
    res = module.main(T=2.5)
    qz, qr = PUMA.poses["qz"], PUMA.poses["qr"]
    moving = res.t < module.T_MOVE
    q_ref = jtraj(qz, qr, np.append(res.t[moving], module.T_MOVE))[0][:-1]
    np.testing.assert_allclose(res["traj.q"][moving], q_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["traj.q"][~moving] - qr, 0.0, rtol=0, atol=1e-12)
    path = res["xyz.y"]
    expected = np.array([PUMA.fkine(row)[:3, 3] for row in res["traj.q"]])
    np.testing.assert_allclose(path, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["fkine.pose"][:, :3, 3], path, rtol=0, atol=0)
    np.testing.assert_allclose(path[0], PUMA.fkine(qz)[:3, 3], atol=1e-12)
    np.testing.assert_allclose(path[-1], PUMA.fkine(qr)[:3, 3], atol=1e-12)
    # joint interpolation: the tool swings on an arc, far from the straight chord
    chord = (path[-1] - path[0]) / np.linalg.norm(path[-1] - path[0])
    rel = path - path[0]
    off_line = np.linalg.norm(rel - np.outer(rel @ chord, chord), axis=1)
    assert off_line.max() > 0.1


def test_jtraj_path_writes_the_arm_animation(tmp_path):
    module = load_example("puma_jtraj_path")
    res = module.main(T=0.3, out_dir=tmp_path)
    gif = tmp_path / "puma_jspace.gif"
    with Image.open(gif) as im:
        assert im.n_frames == 4                               # t = 0, 0.1, 0.2, 0.3 s at 10 fps
    assert (tmp_path / "puma_jspace.png").stat().st_size > 0
    assert (tmp_path / "puma_jspace_path.png").stat().st_size > 0
    assert {"anim", "scope", "path"} <= set(res.figures)


# ----------------------------------------------------------------------- resolved rate
def test_rrmc_converges_exponentially_to_the_goal_pose():
    module = load_example("puma_rrmc")
    res = module.main(T=2.5, rtol=1e-9, atol=1e-12)
    delta, t, Kv = res["delta.y"], res.t, module.KV
    q_end = res["q.y"][-1]
    # the recorded error is tr2delta of the arm's pose and the goal
    for k in at(res, [0.0, 0.4, 2.5]):
        np.testing.assert_allclose(delta[k], tr2delta(PUMA.fkine(res["q.y"][k]), module.GOAL),
                                   atol=1e-12)
    assert np.linalg.norm(delta[0]) > 0.3
    assert np.linalg.norm(delta[-1]) < 1e-4
    np.testing.assert_allclose(PUMA.fkine(q_end), module.GOAL, atol=1e-4)
    # position: a straight line, error e0 exp(-Kv t)
    np.testing.assert_allclose(delta[:, :3], np.outer(np.exp(-Kv * t), delta[0, :3]), atol=1e-7)
    # rotation: about world z, d(theta)/dt = -Kv sin(theta), so tan(theta/2) decays exponentially
    np.testing.assert_allclose(delta[:, 3:5], 0.0, atol=1e-9)
    theta = 2 * np.arctan(np.tan(module.A_GOAL / 2) * np.exp(-Kv * t))
    np.testing.assert_allclose(delta[:, 5], np.sin(theta), atol=1e-7)
    assert res["jac.cond"].max() < 10.0                       # never near a singularity


# ----------------------------------------------------------------------- visual servoing
def image_error(res, uv_star) -> np.ndarray:
    return np.linalg.norm(res["cam.uv"] - uv_star, axis=(1, 2))


def test_free_flying_ibvs_converges_exponentially():
    module = load_example("ibvs_free_flying")
    res = module.main(T=8.0)
    err = image_error(res, module.UV_STAR)
    uv0 = res["cam.uv"][0]
    assert err[0] > 500.0 and np.all((uv0 >= 0) & (uv0 < 1024))   # off target, all visible
    k = at(res, [1.0, 2.0, 4.0, 6.0, 8.0])
    np.testing.assert_allclose(err[k] / err[0], np.exp(-module.LAM * res.t[k]), rtol=0.01)
    assert err[-1] < 1.0
    np.testing.assert_allclose(res["pose.y"][-1], transl(0.0, 0.0, 2.0), atol=1e-3)
    assert res["cam.depth"].min() > 0.9


def test_ibvs_on_the_puma_converges_and_moves_the_camera_as_asked():
    module = load_example("ibvs_puma")
    res = module.main(T=8.0)
    err = image_error(res, module.UV_STAR)
    assert err[0] > 400.0
    k = at(res, [1.0, 2.0, 4.0, 6.0])
    np.testing.assert_allclose(err[k] / err[0], np.exp(-module.LAM * res.t[k]), rtol=0.01)
    assert err[-1] < 1.0
    # the camera is the tool frame; it ends at the pose that sees the desired square
    goal = np.array([[0.0, 0.0, 1.0, 0.6], [0.0, 1.0, 0.0, -0.15], [-1.0, 0.0, 0.0, 0.0],
                     [0.0, 0.0, 0.0, 1.0]])
    np.testing.assert_allclose(PUMA.fkine(res["q.y"][-1]), goal, atol=1e-3)
    np.testing.assert_allclose(res["fkine.pose"], [PUMA.fkine(q) for q in res["q.y"]],
                               atol=1e-12)
    # the joint rates realise the IBVS velocity in the camera (end-effector) frame
    for j in at(res, [0.0, 0.5, 3.0]):
        q = res["q.y"][j]
        np.testing.assert_allclose(PUMA.jacobe(q) @ res["qd.y"][j], res["ibvs.v"][j],
                                   rtol=1e-9, atol=1e-12)
    assert res["jac.cond"].max() < 10.0


def test_computed_torque_tracks_with_an_exact_model_and_degrades_stably_with_a_wrong_one():
    module = load_example("puma_computed_torque")
    exact = module.main(T=3.0)
    err = np.abs(exact["e.y"]).max(axis=1)
    assert err[-1] < 1e-3 and err.max() < 1e-5  # only integration error
    np.testing.assert_allclose(exact["plant.q"][-1], puma560().poses["qr"], atol=1e-6)
    res = module.main(T=3.0, mismatch=0.1)
    wrong = np.abs(res["e.y"]).max(axis=1)
    assert wrong.max() > 100 * err.max()  # the model no longer cancels the dynamics...
    assert wrong.max() < 0.05  # ...but the PD terms keep the error small
    # at rest the wrong model's gravity leaves the offset M^(q)^-1 (g(q) - g^(q)) / Kp
    arm = puma560().nofriction()
    model = scale_inertial(arm, 1.1)
    q = res["plant.q"][-1]
    offset = np.linalg.solve(model.inertia(q), arm.gravload(q) - model.gravload(q)) / module.KP
    np.testing.assert_allclose(res["e.y"][-1], offset, rtol=0.05, atol=1e-7)
