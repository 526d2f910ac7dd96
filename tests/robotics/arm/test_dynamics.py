"""Dynamics kernels against closed forms, identities and independent references.

Arms are built here from :func:`layout.from_dh` (standard DH, with a prismatic joint, the same
arms converted to modified DH) and from Modern Robotics' Mlist/Glist/Slist (product of
exponentials), wrapped in a minimal host of the :class:`DynamicsMethods` mixin, so these tests
depend only on the layout and the packed-kinematics format. Positions and frames for energies
and virtual work come from an independent numpy product of the layout transforms.
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.arm import layout
from blocksim.robotics.arm.dynamics import nofriction
from blocksim.robotics.arm.dynamics_methods import DynamicsMethods
from blocksim.robotics.arm.kinematics import pack_kinematics

PI = np.pi
RNG = np.random.default_rng(20240611)


class Arm(DynamicsMethods):
    """The smallest host of the mixin: an ArmArrays and its packed kinematics."""

    def __init__(self, arrays: layout.ArmArrays):
        self.arrays = arrays
        self.n = arrays.n
        self.kin = pack_kinematics(arrays)


def dyn_rows(m, r, inertia, Jm=0.0, G=1.0, B=0.0, Tc=(0.0, 0.0)):
    """One row of layout.DYN_COLUMNS; inertia = [Ixx, Iyy, Izz, Ixy, Iyz, Ixz]."""
    return [m, *r, *inertia, Jm, G, B, *Tc]


# -- arms ------------------------------------------------------------------------------------

PUMA_DH = [[0, 0, 0, PI / 2], [0, 0, 0.4318, 0], [0, 0.15005, 0.0203, -PI / 2],
           [0, 0.4318, 0, PI / 2], [0, 0, 0, -PI / 2], [0, 0, 0, 0]]
PUMA_DYN = [  # seed 000 Appendix B.1 (RTB 9.10 mdl_puma560)
    dyn_rows(0, [0, 0, 0], [0, 0.35, 0, 0, 0, 0], 200e-6, -62.6111, 1.48e-3, (0.395, -0.435)),
    dyn_rows(17.4, [-0.3638, 0.006, 0.2275], [0.13, 0.524, 0.539, 0, 0, 0], 200e-6, 107.815,
             0.817e-3, (0.126, -0.071)),
    dyn_rows(4.8, [-0.0203, -0.0141, 0.070], [0.066, 0.086, 0.0125, 0, 0, 0], 200e-6, -53.7063,
             1.38e-3, (0.132, -0.105)),
    dyn_rows(0.82, [0, 0.019, 0], [1.8e-3, 1.3e-3, 1.8e-3, 0, 0, 0], 33e-6, 76.0364, 71.2e-6,
             (11.2e-3, -16.9e-3)),
    dyn_rows(0.34, [0, 0, 0], [0.3e-3, 0.4e-3, 0.3e-3, 0, 0, 0], 33e-6, 71.923, 82.6e-6,
             (9.26e-3, -14.5e-3)),
    dyn_rows(0.09, [0, 0, 0.032], [0.15e-3, 0.15e-3, 0.04e-3, 0, 0, 0], 33e-6, 76.686, 36.7e-6,
             (3.96e-3, -10.5e-3)),
]
# Stanford arm kinematics (seed 000 Appendix B.1), joint 3 prismatic with constant theta
STANFORD_DH = [[0, 0.412, 0, -PI / 2], [0, 0.154, 0, PI / 2], [-PI / 2, 0, 0, 0],
               [0, 0, 0, -PI / 2], [0, 0, 0, PI / 2], [0, 0.263, 0, 0]]
STANFORD_SIGMA = [0, 0, 1, 0, 0, 0]


def random_dyn(n: int, rng=RNG) -> np.ndarray:
    """Physically valid random links: full inertia tensors, motors, friction, G < 0 too."""
    rows = []
    for _ in range(n):
        x, y, z = rng.uniform(0.01, 0.2, 3)
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        inertia = Q @ np.diag([y + z, x + z, x + y]) @ Q.T
        rows.append(dyn_rows(rng.uniform(0.5, 5), rng.uniform(-0.15, 0.15, 3),
                             [inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1],
                              inertia[1, 2], inertia[0, 2]],
                             rng.uniform(1e-5, 1e-4), rng.choice([-1, 1]) * rng.uniform(5, 50),
                             rng.uniform(0, 1e-3), (rng.uniform(0, 0.05), -rng.uniform(0, 0.05))))
    return np.array(rows)


def puma() -> layout.ArmArrays:
    return layout.from_dh(PUMA_DH, dyn=PUMA_DYN)


def stanford(dyn=None, base=None, tool=None) -> layout.ArmArrays:
    return layout.from_dh(STANFORD_DH, sigma=STANFORD_SIGMA, offset=[0.1, -0.2, 0.3, 0, 0.1, 0],
                          dyn=random_dyn(6) if dyn is None else dyn, base=base, tool=tool)


def to_modified(arm: layout.ArmArrays, dh, sigma=None) -> layout.ArmArrays:
    """The same physical arm in modified DH, link frames moved to the joint axes.

    MDH link i has (theta_i, d_i, a_{i-1}, alpha_{i-1}); standard frame i is MDH frame i times
    Tx(a_i) Rx(alpha_i), which maps the centres of mass and rotates the inertias.
    """
    dh = np.asarray(dh, dtype=float)
    n = len(dh)
    mdh = np.zeros((n, 4))
    mdh[:, :2] = dh[:, :2]
    mdh[1:, 2:] = dh[:-1, 2:]
    dyn = arm.dyn.copy()
    for i in range(n):
        X = layout.trans(dh[i, 2], 0, 0) @ layout.rotx(dh[i, 3])
        R = X[:3, :3]
        dyn[i, 1:4] = X[:3, :3] @ dyn[i, 1:4] + X[:3, 3]
        row = dyn[i]
        inertia = np.array([[row[4], row[7], row[9]], [row[7], row[5], row[8]],
                            [row[9], row[8], row[6]]])
        J = R @ inertia @ R.T
        dyn[i, 4:10] = [J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2], J[0, 2]]
    tool = layout.trans(dh[-1, 2], 0, 0) @ layout.rotx(dh[-1, 3]) @ arm.tool
    return layout.from_dh(mdh, sigma=sigma, offset=arm.offset, modified=True, dyn=dyn,
                          base=arm.base, tool=tool, gravity=arm.gravity)


# Modern Robotics' 3-link example (seeds001-004 §1.6, Chapter 8)
MR_M = [[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]],
        [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]],
        [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]],
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]]]
MR_G = [np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7]),
        np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393]),
        np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275])]
MR_S = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, -0.089, 0, 0], [0, 1, 0, -0.089, 0, 0.425]]).T
MR_THETA, MR_DTHETA, MR_DDTHETA = [0.1, 0.1, 0.1], [0.1, 0.2, 0.3], [2, 1.5, 1]
MR_GRAV, MR_FTIP = np.array([0, 0, -9.8]), np.ones(6)


def arm_from_mr(Mlist, Glist, Slist, g):
    """(ArmArrays, k): revolute joints from MR's screw axes, built here from first principles.

    Joint i turns k_i = |omega_i| rad per MR unit (MR's first example axis is not normalised),
    so q = k * theta and tau_MR = k * tau.
    """
    n = Slist.shape[1]
    k = np.linalg.norm(Slist[:3], axis=0)
    F = [np.eye(4)]
    A = np.empty((n, 4, 4))
    dyn = np.zeros((n, 15))
    C = np.eye(4)
    for i in range(n):
        w, v = Slist[:3, i] / k[i], Slist[3:, i] / k[i]
        assert abs(w @ v) < 1e-12                       # pure rotation
        x = np.cross(w, [1.0, 0, 0] if abs(w[0]) < 0.9 else [0, 1.0, 0])
        x /= np.linalg.norm(x)
        Fi = np.eye(4)
        Fi[:3, :3] = np.column_stack((x, np.cross(w, x), w))
        Fi[:3, 3] = np.cross(w, v)                      # the axis point nearest the origin
        A[i] = np.linalg.inv(F[-1]) @ Fi
        F.append(Fi)
        C = C @ np.asarray(Mlist[i], dtype=float)
        X = np.linalg.inv(Fi) @ C                       # centre-of-mass frame in link frame
        R = X[:3, :3]
        J = R @ Glist[i][:3, :3] @ R.T
        dyn[i] = dyn_rows(Glist[i][3, 3], X[:3, 3],
                          [J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2], J[0, 2]])
    tool = np.linalg.inv(F[-1]) @ C @ np.asarray(Mlist[n], dtype=float)
    arrays = layout.ArmArrays(sigma=np.zeros(n, dtype=np.int64), offset=np.zeros(n), A=A,
                              B=np.tile(np.eye(4), (n, 1, 1)), base=np.eye(4), tool=tool,
                              dyn=dyn, gravity=-np.asarray(g, dtype=float),
                              qlim=np.tile([-np.inf, np.inf], (n, 1)))
    return arrays, k


def frames(arm: layout.ArmArrays, q) -> list[np.ndarray]:
    """World poses of link frames 0..n and the tool (independent numpy product)."""
    T = [arm.base.copy()]
    for i in range(arm.n):
        v = q[i] + arm.offset[i]
        J = layout.rotz(v) if arm.sigma[i] == 0 else layout.trans(0, 0, v)
        T.append(T[-1] @ arm.A[i] @ J @ arm.B[i])
    return [*T, T[-1] @ arm.tool]


def energy(arm: layout.ArmArrays, host: Arm, q, qd) -> float:
    """Kinetic 0.5 qd' M qd (rotors included) + potential sum m_i gravity . c_i."""
    T = frames(arm, q)
    potential = sum(arm.dyn[i, 0] * arm.gravity @ (T[i + 1] @ [*arm.dyn[i, 1:4], 1.0])[:3]
                    for i in range(arm.n))
    return 0.5 * qd @ host.inertia(q) @ qd + potential


def state(arm: layout.ArmArrays):
    n = arm.n
    return RNG.uniform(-PI, PI, n), RNG.uniform(-1.5, 1.5, n), RNG.uniform(-2, 2, n)


ARMS = {"puma": puma, "stanford": stanford,
        "puma_mdh": lambda: to_modified(puma(), PUMA_DH),
        "stanford_mdh": lambda: to_modified(stanford(), STANFORD_DH, STANFORD_SIGMA),
        "mr_poe": lambda: arm_from_mr(MR_M, MR_G, MR_S, MR_GRAV)[0]}


@pytest.fixture(params=sorted(ARMS))
def arm(request) -> layout.ArmArrays:
    return ARMS[request.param]()


# -- identities on every arm -----------------------------------------------------------------

def test_inertia_is_symmetric_positive_definite_and_equals_rne_columns(arm):
    host = Arm(arm)
    n, z, g0 = arm.n, np.zeros(arm.n), np.zeros(3)
    for _ in range(3):
        q = state(arm)[0]
        M = host.inertia(q)
        np.testing.assert_array_equal(M, M.T)
        assert np.linalg.eigvalsh(M).min() > 0
        cols = np.column_stack([host.rne(q, z, e, gravity=g0) for e in np.eye(n)])
        np.testing.assert_allclose(M, cols, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(host.itorque(q, np.arange(1.0, n + 1)),
                                   M @ np.arange(1.0, n + 1), rtol=1e-12, atol=1e-12)


def test_accel_inverts_rne_with_gravity_friction_and_end_wrench(arm):
    host = Arm(arm)
    fext = RNG.uniform(-5, 5, 6)
    for _ in range(3):
        q, qd, qdd = state(arm)
        tau = host.rne(q, qd, qdd, fext=fext)
        np.testing.assert_allclose(host.accel(q, qd, tau, fext=fext), qdd, rtol=1e-9,
                                   atol=1e-9)
        np.testing.assert_allclose(host.rne(q, qd, host.accel(q, qd, tau)), tau, rtol=1e-9,
                                   atol=1e-9)


def test_coriolis_times_qd_is_the_velocity_torque_and_mdot_minus_2c_is_skew(arm):
    host = Arm(arm)
    z, g0, h = np.zeros(arm.n), np.zeros(3), 1e-6
    for _ in range(3):
        q, qd, _ = state(arm)
        C = host.coriolis(q, qd)
        # rne adds -friction(qd); the Coriolis torque excludes it
        np.testing.assert_allclose(C @ qd, host.rne(q, qd, z, gravity=g0) + host.friction(qd),
                                   rtol=1e-10, atol=1e-12)
        Mdot = (host.inertia(q + h * qd) - host.inertia(q - h * qd)) / (2 * h)
        N = Mdot - 2 * C
        scale = np.abs(Mdot).max() + np.abs(C).max()
        np.testing.assert_allclose(N + N.T, 0, atol=1e-7 * scale)
        # C is linear in qd
        np.testing.assert_allclose(host.coriolis(q, 2 * qd), 2 * C, rtol=1e-12, atol=1e-14)


def test_gravload_is_rne_at_rest_and_follows_the_gravity_argument(arm):
    host = Arm(arm)
    z = np.zeros(arm.n)
    q = state(arm)[0]
    np.testing.assert_allclose(host.gravload(q), host.rne(q, z, z), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(host.gravload(q, 2 * arm.gravity), 2 * host.gravload(q),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host.gravload(q, [0, 0, 0]), 0, atol=1e-15)


def test_energy_of_an_unforced_frictionless_arm_is_conserved(arm):
    frictionless = nofriction(arm, "all")
    host = Arm(frictionless)
    q0, qd0, _ = state(arm)
    _, q, qd = host.fdyn(0.4, q0, qd0, rtol=1e-11, atol=1e-11)
    E = np.array([energy(frictionless, host, a, b) for a, b in zip(q, qd)])
    assert np.ptp(q, axis=0).max() > 0.05                      # it really moved
    np.testing.assert_allclose(E, E[0], atol=1e-7 * (1 + abs(E[0])))


def test_end_wrench_does_virtual_work_in_the_tool_frame():
    base = layout.rotx(0.3) @ layout.trans(0.1, -0.2, 0.5)
    tool = layout.trans(0.05, 0.02, 0.15) @ layout.rotz(0.7) @ layout.rotx(-0.4)
    arm = stanford(base=base, tool=tool)
    host = Arm(arm)
    q, z, eps = state(arm)[0], np.zeros(6), 1e-6
    fext = np.array([3.0, -1.0, 2.0, 0.5, -0.7, 0.2])
    tau = host.rne(q, z, z, gravity=[0, 0, 0], fext=fext)
    R = frames(arm, q)[-1][:3, :3]
    for j in range(6):
        dq = eps * np.eye(6)[j]
        dT = (frames(arm, q + dq)[-1] - frames(arm, q - dq)[-1]) / (2 * eps)
        v = R.T @ dT[:3, 3]
        W = R.T @ dT[:3, :3]
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        assert tau[j] == pytest.approx(fext @ np.concatenate((v, w)), rel=1e-7, abs=1e-8)


def test_standard_and_modified_dh_of_the_same_arm_give_the_same_dynamics():
    for std, mdh in ((puma(), to_modified(puma(), PUMA_DH)),
                     (stanford(dyn := random_dyn(6)),
                      to_modified(stanford(dyn), STANFORD_DH, STANFORD_SIGMA))):
        a, b = Arm(std), Arm(mdh)
        fext = RNG.uniform(-2, 2, 6)
        for _ in range(2):
            q, qd, qdd = state(std)
            np.testing.assert_allclose(frames(mdh, q)[-1], frames(std, q)[-1], atol=1e-14)
            np.testing.assert_allclose(b.rne(q, qd, qdd, fext=fext), a.rne(q, qd, qdd, fext=fext),
                                       rtol=1e-11, atol=1e-11)
            np.testing.assert_allclose(b.inertia(q), a.inertia(q), rtol=1e-11, atol=1e-13)
            np.testing.assert_allclose(b.coriolis(q, qd), a.coriolis(q, qd), rtol=1e-10,
                                       atol=1e-12)


# -- closed forms ----------------------------------------------------------------------------

def pendulum(m=2.0, L=0.8, lc=0.3, Izz=0.05, Jm=1e-4, G=-20.0, B=2e-3, Tc=(0.03, -0.05)):
    """One link swinging in the world x-z plane (RTB twolink style base rotx(pi/2))."""
    dyn = [dyn_rows(m, [lc - L, 0, 0], [0.01, 0.02, Izz, 0, 0, 0], Jm, G, B, Tc)]
    return layout.from_dh([[0, 0, L, 0]], dyn=dyn, base=layout.rotx(PI / 2))


def test_one_link_pendulum_matches_its_equation_of_motion():
    m, L, lc, Izz, Jm, G, B, Tc, g = 2.0, 0.8, 0.3, 0.05, 1e-4, -20.0, 2e-3, (0.03, -0.05), 9.81
    host = Arm(pendulum(m, L, lc, Izz, Jm, G, B, Tc))
    for q, qd, qdd in RNG.uniform(-3, 3, (5, 3)):
        coulomb = abs(G) * (Tc[0] if qd > 0 else Tc[1])
        tau = ((Izz + m * lc**2 + G**2 * Jm) * qdd + m * g * lc * np.cos(q) + G**2 * B * qd
               + coulomb)
        assert host.rne([q], [qd], [qdd])[0] == pytest.approx(tau, rel=1e-12)
    # static: holding the link horizontal takes m g r
    assert host.gravload([0.0])[0] == pytest.approx(m * g * lc, rel=1e-14)
    assert host.gravload([PI / 2])[0] == pytest.approx(0.0, abs=1e-14)


def test_two_link_planar_arm_matches_the_textbook_equations():
    m1, m2, l1, l2, lc1, lc2, I1, I2, g = 1.5, 0.9, 1.1, 0.7, 0.45, 0.3, 0.12, 0.05, 9.81
    dyn = [dyn_rows(m1, [lc1 - l1, 0, 0], [0.0, 0.0, I1, 0, 0, 0]),
           dyn_rows(m2, [lc2 - l2, 0, 0], [0.0, 0.0, I2, 0, 0, 0])]
    host = Arm(layout.from_dh([[0, 0, l1, 0], [0, 0, l2, 0]], dyn=dyn, base=layout.rotx(PI / 2)))
    for _ in range(5):
        (q1, q2), (v1, v2), qdd = RNG.uniform(-3, 3, (3, 2))
        c2, h = np.cos(q2), -m2 * l1 * lc2 * np.sin(q2)
        M = np.array([[m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I1 + I2,
                       m2 * (lc2**2 + l1 * lc2 * c2) + I2],
                      [m2 * (lc2**2 + l1 * lc2 * c2) + I2, m2 * lc2**2 + I2]])
        C = np.array([[h * v2, h * (v1 + v2)], [-h * v1, 0.0]])     # Christoffel symbols
        grav = np.array([(m1 * lc1 + m2 * l1) * g * np.cos(q1) + m2 * lc2 * g * np.cos(q1 + q2),
                         m2 * lc2 * g * np.cos(q1 + q2)])
        q, qd = np.array([q1, q2]), np.array([v1, v2])
        np.testing.assert_allclose(host.inertia(q), M, rtol=1e-12)
        np.testing.assert_allclose(host.coriolis(q, qd), C, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(host.gravload(q), grav, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(host.rne(q, qd, qdd), M @ qdd + C @ qd + grav, rtol=1e-12)


def test_pendulum_fdyn_matches_its_ode():
    from scipy.integrate import solve_ivp

    arm = nofriction(pendulum(), "coulomb")                # viscous damping stays
    host = Arm(arm)
    m, lc, Izz, Jm, G, B, g = 2.0, 0.3, 0.05, 1e-4, -20.0, 2e-3, 9.81
    J = Izz + m * lc**2 + G**2 * Jm

    def torque(t, q, qd):
        return np.array([0.4 * np.sin(3 * t)])

    def ode(t, x):
        return [x[1], (0.4 * np.sin(3 * t) - m * g * lc * np.cos(x[0]) - G**2 * B * x[1]) / J]

    t_eval = np.linspace(0, 1.5, 16)
    t, q, qd = host.fdyn(1.5, [0.2], [0.0], torque, rtol=1e-10, atol=1e-12, t_eval=t_eval)
    ref = solve_ivp(ode, (0, 1.5), [0.2, 0.0], rtol=1e-10, atol=1e-12, t_eval=t_eval).y
    np.testing.assert_allclose(t, t_eval)
    np.testing.assert_allclose(q[:, 0], ref[0], atol=1e-8)
    np.testing.assert_allclose(qd[:, 0], ref[1], atol=1e-8)
    # constant torque equal to the gravity load at the start: the arm stays put
    q0 = np.array([0.5])
    t, q, qd = host.fdyn(0.5, q0, None, host.gravload(q0))
    np.testing.assert_allclose(q, 0.5, atol=1e-9)
    with pytest.raises(RuntimeError, match="fdyn"):
        host.fdyn(1.0, q0, None, lambda t, q, qd: np.array([np.nan]))


# -- friction ---------------------------------------------------------------------------------

def test_friction_signs_gear_scaling_and_nofriction():
    host = Arm(pendulum(G=-3.0, B=0.1, Tc=(0.5, -0.7)))
    # -(G^2 B qd + |G| Tc+/-): opposes the motion, none of the Coulomb part at rest
    np.testing.assert_allclose(host.friction([2.0]), [-(9 * 0.1 * 2 + 3 * 0.5)])
    np.testing.assert_allclose(host.friction([-2.0]), [-(9 * 0.1 * -2 + 3 * -0.7)])
    np.testing.assert_array_equal(host.friction([0.0]), [0.0])
    np.testing.assert_allclose(host.friction([[1.0], [-1.0]]), [[-2.4], [3.0]])
    # rne adds the torque that overcomes friction
    bare = Arm(nofriction(host.arrays, "all"))
    for qd in (2.0, -2.0, 0.0):
        assert (host.rne([0.3], [qd], [0.1]) - bare.rne([0.3], [qd], [0.1]))[0] == \
            pytest.approx(-host.friction([qd])[0], rel=1e-12, abs=1e-15)
    coul, visc = nofriction(host.arrays), nofriction(host.arrays, "viscous")
    assert Arm(coul).friction([2.0])[0] == pytest.approx(-1.8)
    assert Arm(visc).friction([2.0])[0] == pytest.approx(-1.5)
    assert host.arrays.dyn[0, layout.TCP] == 0.5                # the original is unchanged
    with pytest.raises(ValueError, match="which"):
        nofriction(host.arrays, "dry")


# -- published values --------------------------------------------------------------------------

def test_puma560_matches_robotics_toolbox_numbers():
    """RTB-python 1.5 DH Puma560 (anchor-benchmarks.md §4) and RVC's gravload(qn)."""
    host = Arm(puma())
    q = np.array([0.1, 0.7, -1.2, 0.3, 0.4, 0.5])
    qd = np.array([0.2, -0.1, 0.3, 0.4, -0.5, 0.6])
    qdd = np.array([0.5, 0.4, -0.3, 0.2, 0.1, -0.2])
    np.testing.assert_allclose(host.rne(q, qd, qdd), [27.516860961, 25.232485037, 12.662901118,
                                                      1.05353242, -1.237030004, 0.394380077],
                               atol=2e-9)
    np.testing.assert_allclose(np.diag(host.inertia(q)), [3.648773626, 5.161637012, 0.938401485,
                                                          0.192461283, 0.171348452, 0.194104506],
                               atol=2e-9)
    np.testing.assert_allclose(host.gravload(q), [0, 32.2326928, 4.413778987, -1.558785e-3,
                                                  2.263357e-3, 0], atol=2e-9)
    nf = Arm(nofriction(host.arrays))
    np.testing.assert_allclose(nf.accel(q, qd, np.zeros(6)),
                               [-1.327401788, -6.006469629, -1.525787742, -0.851673609,
                                1.329644258, -0.666540002], atol=2e-9)
    qn = [0, PI / 4, PI, 0, PI / 4, 0]
    np.testing.assert_allclose(host.gravload(qn), [0, 31.6399, 6.0351, 0, 0.0283, 0], atol=1e-4)


def test_modern_robotics_chapter8_example_values():
    """InverseDynamics ... ForwardDynamics of MR's 3-link example (seeds001-004 §1.6)."""
    arrays, k = arm_from_mr(MR_M, MR_G, MR_S, MR_GRAV)
    host = Arm(arrays)
    th, dth, ddth = (np.array(x, dtype=float) for x in (MR_THETA, MR_DTHETA, MR_DDTHETA))
    fext = np.concatenate((MR_FTIP[3:], MR_FTIP[:3]))          # MR (m, f) -> RTB [f; m]
    z, g0 = np.zeros(3), np.zeros(3)
    np.testing.assert_allclose(k * host.rne(k * th, k * dth, k * ddth, fext=fext),
                               [74.69616155, -33.06766016, -3.23057314], atol=1e-7)
    np.testing.assert_allclose(
        k[:, None] * host.inertia(k * th) * k,
        [[2.25433380e+01, -3.07146754e-01, -7.18426391e-03],
         [-3.07146754e-01, 1.96850717e+00, 4.32157368e-01],
         [-7.18426391e-03, 4.32157368e-01, 1.91630858e-01]], atol=1e-7)
    np.testing.assert_allclose(k * (host.coriolis(k * th, k * dth) @ (k * dth)),
                               [0.26453118, -0.05505157, -0.00689132], atol=1e-8)
    np.testing.assert_allclose(k * host.gravload(k * th), [28.40331262, -37.64094817, -5.4415892],
                               atol=1e-7)
    np.testing.assert_allclose(k * host.rne(k * th, z, z, gravity=g0, fext=fext),
                               [1.40954608, 1.85771497, 1.392409], atol=1e-7)
    qdd = host.accel(k * th, k * dth, np.array([0.5, 0.6, 0.7]) / k, fext=fext)
    np.testing.assert_allclose(qdd / k, [-0.97392907, 25.58466784, -32.91499212], atol=1e-7)


# -- shapes and errors ---------------------------------------------------------------------------

def test_trajectories_rows_and_rtb_concatenated_arguments():
    host = Arm(stanford())
    m = 4
    Q, QD, QDD = (RNG.uniform(-1, 1, (m, 6)) for _ in range(3))
    F = RNG.uniform(-1, 1, (m, 6))
    rows = np.array([host.rne(Q[k], QD[k], QDD[k], fext=F[k]) for k in range(m)])
    np.testing.assert_array_equal(host.rne(Q, QD, QDD, fext=F), rows)
    np.testing.assert_array_equal(host.rne(np.hstack((Q, QD, QDD)), fext=F), rows)
    np.testing.assert_array_equal(host.rne(Q, QD[0], QDD[0])[2], host.rne(Q[2], QD[0], QDD[0]))
    np.testing.assert_array_equal(host.rne(np.concatenate((Q[1], QD[1], QDD[1])), fext=F[1]),
                                  rows[1])
    np.testing.assert_array_equal(host.gravload(Q)[3], host.gravload(Q[3]))
    np.testing.assert_array_equal(host.itorque(Q, QDD)[1], host.itorque(Q[1], QDD[1]))
    np.testing.assert_array_equal(host.inertia(Q)[2], host.inertia(Q[2]))
    np.testing.assert_array_equal(host.coriolis(Q, QD)[0], host.coriolis(Q[0], QD[0]))
    np.testing.assert_array_equal(host.coriolis(np.hstack((Q, QD)))[1], host.coriolis(Q[1], QD[1]))
    np.testing.assert_array_equal(host.accel(Q, QD, QDD, fext=F)[3],
                                  host.accel(Q[3], QD[3], QDD[3], fext=F[3]))
    np.testing.assert_array_equal(host.accel(np.hstack((Q, QD, QDD)))[0],
                                  host.accel(Q[0], QD[0], QDD[0]))
    assert host.friction(QD).shape == (m, 6)
    # lists and integer arrays are converted; results do not alias the inputs
    assert host.rne([0] * 6, [0] * 6, [0] * 6).dtype == np.float64
    assert host.inertia(np.zeros(6, dtype=int)).shape == (6, 6)


def test_wrong_sizes_raise_clear_errors():
    host = Arm(stanford())
    z = np.zeros(6)
    with pytest.raises(ValueError, match=r"robot\.n"):
        host.rne(np.zeros(5), np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError):
        host.rne(z, np.zeros(5), z)
    with pytest.raises(ValueError, match="rows"):
        host.rne(np.zeros((3, 6)), np.zeros((2, 6)), z)
    with pytest.raises(ValueError, match="fext"):
        host.rne(z, z, z, fext=np.zeros(5))
    with pytest.raises(ValueError, match="gravity"):
        host.gravload(z, [0, 9.81])
    with pytest.raises(ValueError, match="columns"):
        host.rne(np.zeros(12))
    with pytest.raises(ValueError, match=r"robot\.n"):
        host.inertia(np.zeros(4))
    # a chain whose last link has no mass and no rotor: M is singular, accel says so
    dyn = random_dyn(2)
    dyn[1, :10] = 0.0
    dyn[1, layout.JM] = 0.0
    with pytest.raises(ValueError, match="positive definite"):
        Arm(layout.from_dh([[0, 0, 1, 0], [0, 0, 1, 0]], dyn=dyn)).accel([0, 0], [0, 0], [0, 0])
