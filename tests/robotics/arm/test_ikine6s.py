"""ikine6s: analytic inverse kinematics of spherical-wrist arms.

Forward kinematics in these tests is the shared layout (``layout.from_dh``: A/J/B matrices), an
independent code path from the solver's own DH products.
"""

import itertools
import math

import numpy as np
import pytest

from blocksim.robotics.arm.ikine6s import (
    SphericalWristArm,
    arm_config,
    config_code,
    ikine6s,
    ikine6s_kernel,
    pack_ikine6s,
)
from blocksim.robotics.arm.layout import from_dh, rotx, rotz, trans

pi = math.pi
CONFIGS = ["".join(c) for c in itertools.product("lr", "ud", "nf")]

# standard DH tables [theta, d, a, alpha] (RTB 9.10 mdl_* scripts, seed 000 appendix B.1)
PUMA = [[0, 0, 0, pi / 2], [0, 0, 0.4318, 0], [0, 0.15005, 0.0203, -pi / 2],
        [0, 0.4318, 0, pi / 2], [0, 0, 0, -pi / 2], [0, 0, 0, 0]]
KR5 = [[0, 0.4, 0.18, pi / 2], [0, 0.135, 0.60, pi], [0, 0.135, 0.12, -pi / 2],
       [0, 0.62, 0, pi / 2], [0, 0, 0, -pi / 2], [0, 0, 0, 0]]
IRB140 = [[0, 0.352, 0.070, -pi / 2], [0, 0, 0.360, 0], [0, 0, 0, pi / 2],
          [0, 0.380, 0, -pi / 2], [0, 0, 0, pi / 2], [0, 0.065, 0, pi / 2]]
STANFORD = [[0, 0.412, 0, -pi / 2], [0, 0.154, 0, pi / 2], [-pi / 2, 0, 0, 0],
            [0, 0, 0, -pi / 2], [0, 0, 0, pi / 2], [0, 0.263, 0, 0]]
OFFSET6 = [[0, 0, 0, -pi / 2], [0, 0.2, 1, 0], [0, 0, 1, pi / 2], [0, 0, 0, pi / 2],
           [0, 0, 0, -pi / 2], [0, 0, 0, 0]]
SIMPLE6 = [[0, 0, 0, pi / 2], [0, 0, 1, 0], [0, 0, 1, -pi / 2], [0, 0, 0, -pi / 2],
           [0, 0, 0, pi / 2], [0, 0, 0, 0]]

# name: (table, sigma, may some configurations be out of reach for a reachable pose?)
ARMS = {
    "puma560": (PUMA, None, False),
    "kr5": (KR5, None, True),          # a1 != 0: the reach differs between 'l' and 'r'
    "irb140": (IRB140, None, True),
    "stanford": (STANFORD, [0, 0, 1, 0, 0, 0], False),
    "offset6": (OFFSET6, None, False),
    "simple6": (SIMPLE6, None, False),
}


def fk(arr, q):
    """Forward kinematics through the shared layout, (4, 4)."""
    T = arr.base.copy()
    for i in range(arr.n):
        v = q[i] + arr.offset[i]
        J = rotz(v) if arr.sigma[i] == 0 else trans(0.0, 0.0, v)
        T = T @ arr.A[i] @ J @ arr.B[i]
    return T @ arr.tool


def build(name, rng=None):
    """(layout arrays, solver description); random base, tool and offsets if rng is given."""
    dh, sigma, _ = ARMS[name]
    kw = dict(sigma=sigma)
    if rng is not None:
        offset = rng.uniform(-0.5, 0.5, 6)
        if sigma is not None:
            offset[2] = 0.05
        kw.update(offset=offset, base=trans(0.1, -0.2, 0.3) @ rotz(0.4) @ rotx(0.1),
                  tool=trans(0.01, 0.02, 0.1) @ rotz(-0.3) @ rotx(0.2))
    return from_dh(dh, **kw), SphericalWristArm.from_dh(dh, **kw)


def random_q(rng, name):
    q = rng.uniform(-pi, pi, 6)
    if ARMS[name][1] is not None:
        q[2] = rng.uniform(0.3, 1.2)
    return q


def angle_error(q1, q2, sigma):
    d = np.abs(np.remainder(np.asarray(q1) - q2 + pi, 2 * pi) - pi)
    prismatic = np.asarray(sigma) == 1
    d[prismatic] = np.abs(np.asarray(q1) - q2)[prismatic]
    return d.max()


@pytest.mark.parametrize("name", list(ARMS))
def test_every_configuration_reaches_the_pose_and_its_own_config_returns_q(name):
    rng = np.random.default_rng(11 + list(ARMS).index(name))
    arr, arm = build(name, rng)
    may_fail = ARMS[name][2]
    solved = 0
    for _ in range(25):
        q = random_q(rng, name)
        T = fk(arr, q)
        own = arm_config(arm, q)
        for config in CONFIGS:
            try:
                qs = ikine6s(arm, T, config)
            except ValueError as e:
                assert may_fail and config != own, (config, own, str(e))
                assert "out of reach" in str(e)
                continue
            solved += 1
            assert np.abs(fk(arr, qs) - T).max() < 1e-9
            assert arm_config(arm, qs) == config
            if config == own:
                assert angle_error(qs, q, arm.sigma) < 1e-8
    assert solved >= (100 if may_fail else 200)


@pytest.mark.parametrize("name", ["puma560", "stanford"])
def test_the_eight_solutions_are_distinct(name):
    rng = np.random.default_rng(7)
    arr, arm = build(name)
    q = random_q(rng, name)
    sols = np.array([ikine6s(arm, fk(arr, q), c) for c in CONFIGS])
    for i, j in itertools.combinations(range(8), 2):
        assert angle_error(sols[i], sols[j], arm.sigma) > 1e-3


def paul_zhang_puma(T, left, up):
    """Joints 1-3 of the Puma 560 by Paul & Zhang's equations as coded in RTB 9.10."""
    a2, a3, d3, d4 = 0.4318, 0.0203, 0.15005, 0.4318
    px, py, pz = T[:3, 3]
    r = math.hypot(px, py)
    t1 = math.atan2(py, px) + (math.asin(d3 / r) if left else pi - math.asin(d3 / r))
    v114 = px * math.cos(t1) + py * math.sin(t1)
    r = math.hypot(v114, pz)
    psi = math.acos((a2**2 - d4**2 - a3**2 + v114**2 + pz**2) / (2 * a2 * r))
    t2 = math.atan2(pz, v114) + (psi if up else -psi)
    num = math.cos(t2) * v114 + math.sin(t2) * pz - a2
    den = math.cos(t2) * pz - math.sin(t2) * v114
    return np.array([t1, t2, math.atan2(a3, d4) - math.atan2(num, den)])


def test_puma_left_arm_matches_paul_and_zhang():
    rng = np.random.default_rng(3)
    arr, arm = build("puma560")
    for _ in range(20):
        T = fk(arr, rng.uniform(-pi, pi, 6))
        for up in (True, False):
            q = ikine6s(arm, T, "l" + ("u" if up else "d"))
            assert angle_error(q[:3], paul_zhang_puma(T, True, up), [0, 0, 0]) < 1e-10
            # RTB's 'n' wrist for the Puma (alpha4 > 0) has theta5 >= 0
            assert q[4] >= 0
        # the right arm: elbow letters are physical (elbow above the shoulder-wrist line), so
        # the set of the two right-arm solutions equals Paul and Zhang's
        ru, rd = (ikine6s(arm, T, c)[:3] for c in ("ru", "rd"))
        assert angle_error(ru, paul_zhang_puma(T, False, False), [0, 0, 0]) < 1e-10
        assert angle_error(rd, paul_zhang_puma(T, False, True), [0, 0, 0]) < 1e-10


def test_puma_named_poses_configurations():
    _, arm = build("puma560")
    # qz: L-shaped, elbow below the shoulder-wrist line (Paul & Zhang's n2 = -1)
    assert arm_config(arm, np.zeros(6)) == "ldn"
    # qn = [0, pi/4, pi, 0, pi/4, 0]: the nominal pose is left, elbow up, wrist not flipped
    qn = np.array([0, pi / 4, pi, 0, pi / 4, 0])
    arr, _ = build("puma560")
    q = ikine6s(arm, fk(arr, qn))            # default "lun"
    assert angle_error(q, qn, np.zeros(6)) < 1e-12


def test_base_tool_and_offsets_are_undone():
    arr0, _ = build("puma560")
    base = trans(1.0, 2.0, 0.5) @ rotz(0.7)
    tool = trans(0, 0, 0.2)
    offset = np.array([0.1, -0.2, 0.3, 0.0, 0.5, -0.6])
    arm = SphericalWristArm.from_dh(PUMA, base=base, tool=tool, offset=offset)
    q = np.array([0.3, 0.4, -0.5, 0.6, 0.7, 0.8])
    T0 = fk(arr0, q + offset)
    q_sol = ikine6s(arm, base @ T0 @ tool, arm_config(arm, q))
    assert angle_error(q_sol, q, np.zeros(6)) < 1e-10


def test_trajectory_of_poses():
    arr, arm = build("puma560")
    qs = np.array([[0.1, 0.5, -0.4, 0.2, 0.6, 0.1], [0.2, 0.6, -0.5, 0.3, 0.5, 0.2]])
    Ts = np.array([fk(arr, q) for q in qs])
    out = ikine6s(arm, Ts, arm_config(arm, qs[0]))
    assert out.shape == (2, 6)
    np.testing.assert_allclose(out, qs, atol=1e-10)


def test_revolute_angles_are_shifted_into_joint_limits():
    deg = pi / 180
    qlim = np.array([[-160, 160], [-45, 225], [-225, 45], [-110, 170], [-100, 100],
                     [-266, 266]]) * deg
    arr, _ = build("puma560")
    arm = SphericalWristArm.from_dh(PUMA, qlim=qlim)
    q = np.array([0.1, 200 * deg, -200 * deg, 0.2, 0.5, 0.3])    # q2, q3 beyond +-pi
    q_sol = ikine6s(arm, fk(arr, q), arm_config(arm, q))
    np.testing.assert_allclose(q_sol, q, atol=1e-10)
    free = ikine6s(SphericalWristArm.from_dh(PUMA), fk(arr, q), arm_config(arm, q))
    assert -pi < free[1] <= pi and abs(free[1] - (200 * deg - 2 * pi)) < 1e-10


def test_prismatic_solution_has_positive_extension_for_u():
    arr, arm = build("stanford")
    q = np.array([0.3, -0.4, 0.8, 0.1, 0.6, -0.2])
    T = fk(arr, q)
    assert ikine6s(arm, T, "lu")[2] == pytest.approx(0.8, abs=1e-12)
    assert ikine6s(arm, T, "ld")[2] < 0


def test_out_of_reach_raises():
    _, arm = build("puma560")
    T = trans(2.0, 0.0, 0.0)             # 2 m away: beyond a2 + sqrt(a3^2 + d4^2)
    for config in CONFIGS:
        with pytest.raises(ValueError, match="out of reach"):
            ikine6s(arm, T, config)
    # inside the cylinder of radius d3 around the waist axis: joint 1 has no solution
    with pytest.raises(ValueError, match=r"out of reach.*shoulder offset"):
        ikine6s(arm, trans(0.05, 0.0, 0.3))
    # a Stanford pose closer to the shoulder than its fixed offset d2
    _, stan = build("stanford")
    with pytest.raises(ValueError, match="out of reach"):
        ikine6s(stan, trans(0.0, 0.05, 0.412))


def test_unsupported_structures_and_bad_arguments():
    _, arm = build("puma560")
    with pytest.raises(ValueError, match="unknown configuration letter 'x'"):
        ikine6s(arm, np.eye(4), "lux")
    with pytest.raises(ValueError, match="not a homogeneous transform"):
        ikine6s(arm, np.diag([2.0, 1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="shape"):
        ikine6s(arm, np.eye(3))
    bent = np.array(PUMA, dtype=float)
    bent[4, 2] = 0.05                     # a5 != 0: the wrist axes do not intersect
    with pytest.raises(ValueError, match="not spherical"):
        ikine6s(SphericalWristArm.from_dh(bent), np.eye(4))
    with pytest.raises(ValueError, match="6"):
        ikine6s(SphericalWristArm.from_dh(PUMA[:5]), np.eye(4))
    flat = np.array(PUMA, dtype=float)
    flat[0, 3] = 0.0                      # alpha1 = 0: not a vertical-shoulder arm
    with pytest.raises(ValueError, match="alpha1"):
        ikine6s(SphericalWristArm.from_dh(flat), np.eye(4))


def test_kernel_and_configuration_codes():
    assert [config_code(c) for c in ("lun", "", "r", "ud", "rdf", "RDF", "rl")] == \
        [0, 0, 1, 2, 7, 7, 0]
    arr, arm = build("puma560", np.random.default_rng(12))
    g = pack_ikine6s(arm)
    assert g.dtype == np.float64 and g.shape == (81,)
    T = fk(arr, np.array([0.2, 0.3, -0.4, 0.5, -0.6, 0.7]))
    for config in CONFIGS:
        q, status = ikine6s_kernel(g, T, config_code(config))
        assert status == 0
        np.testing.assert_array_equal(q, ikine6s(arm, T, config))
    q, status = ikine6s_kernel(g, arm.base @ trans(2.0, 0.0, 0.0), 0)
    assert status == 2 and np.all(np.isnan(q))
    q, status = ikine6s_kernel(g, arm.base @ trans(0.05, 0.0, 0.3) @ np.linalg.inv(arm.tool), 0)
    assert status == 1 and np.all(np.isnan(q))


def test_non_dh_serial_link_is_rejected():
    from blocksim.robotics.arm.serial_link import SerialLink

    robot = SerialLink(from_dh(PUMA))          # links given by fixed transforms, not DH
    with pytest.raises(ValueError, match="standard DH"):
        ikine6s(robot, np.eye(4))
