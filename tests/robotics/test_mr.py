"""Modern Robotics library: every upstream example value (reference digest seeds001-004 §1.6)
at its printed precision, plus identities (finite differences, energy, consistency)."""

import numpy as np
import pytest

from blocksim.robotics import mr

# -- the shared examples ----------------------------------------------------------------------
M_FK = np.array([[-1, 0, 0, 0], [0, 1, 0, 6], [0, 0, -1, 2], [0, 0, 0, 1]], dtype=float)
BLIST_FK = np.array([[0, 0, -1, 2, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0.1]]).T
SLIST_FK = np.array([[0, 0, 1, 4, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, -1, -6, 0, -0.1]]).T
THETA_FK = np.array([np.pi / 2, 3, np.pi])
T_FK = np.array([[0, 1, 0, -5], [1, 0, 0, 4], [0, 0, -1, 1.68584073], [0, 0, 0, 1]])

MLIST = np.array([
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]],
    [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]],
    [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]],
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]]], dtype=float)
GLIST = np.array([np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7]),
                  np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393]),
                  np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275])])
SLIST = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, -0.089, 0, 0], [0, 1, 0, -0.089, 0, 0.425]]).T
TH = np.array([0.1, 0.1, 0.1])
DTH = np.array([0.1, 0.2, 0.3])
DDTH = np.array([2, 1.5, 1.0])
G = np.array([0, 0, -9.8])
FTIP = np.ones(6)
MODEL = (MLIST, GLIST, SLIST)

RNG = np.random.default_rng(11)


def close(actual, expected, decimals):
    """Equal to the printed number of decimals (half a unit in the last place, plus rounding)."""
    np.testing.assert_allclose(actual, expected, rtol=0, atol=0.6 * 10.0**-decimals)


def _random_T():
    return mr.MatrixExp6(RNG.normal(size=6))


# -- Chapter 3 --------------------------------------------------------------------------------
def test_nearzero_normalize_rotinv():
    assert mr.NearZero(-1e-7) is True
    assert mr.NearZero(1e-5) is False
    close(mr.Normalize([1, 2, 3]), [0.26726124, 0.53452248, 0.80178373], 8)
    np.testing.assert_array_equal(mr.RotInv([[0, 0, 1], [1, 0, 0], [0, 1, 0]]),
                                  [[0, 1, 0], [0, 0, 1], [1, 0, 0]])


def test_so3_vectors_and_axis_angle():
    so3 = mr.VecToso3([1, 2, 3])
    np.testing.assert_array_equal(so3, [[0, -3, 2], [3, 0, -1], [-2, 1, 0]])
    np.testing.assert_array_equal(mr.so3ToVec(so3), [1, 2, 3])
    axis, theta = mr.AxisAng3([1, 2, 3])
    close(axis, [0.26726124, 0.53452248, 0.80178373], 8)
    assert theta == pytest.approx(3.7416573867739413, abs=1e-15)


def test_matrix_exp3_both_apis():
    expected = [[-0.69492056, 0.71352099, 0.08929286], [-0.19200697, -0.30378504, 0.93319235],
                [0.69297817, 0.6313497, 0.34810748]]
    close(mr.MatrixExp3([[0, -3, 2], [3, 0, -1], [-2, 1, 0]]), expected, 8)
    close(mr.MatrixExp3([1, 2, 3]), expected, 8)  # the seed's 2016 vector API


def test_matrix_log3_both_apis():
    R = [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
    a = 1.20919958
    close(mr.MatrixLog3(R), [[0, -a, a], [a, 0, -a], [-a, a, 0]], 8)
    close(mr.MatrixLog3(R, vector=True), [1.2092, 1.2092, 1.2092], 4)


def test_rp_trans_conversions():
    R = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    np.testing.assert_array_equal(mr.RpToTrans(R, [1, 2, 5]),
                                  [[1, 0, 0, 1], [0, 0, -1, 2], [0, 1, 0, 5], [0, 0, 0, 1]])
    T = [[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]]
    R2, p = mr.TransToRp(T)
    np.testing.assert_array_equal(R2, R)
    np.testing.assert_array_equal(p, [0, 0, 3])
    np.testing.assert_array_equal(mr.TransInv(T),
                                  [[1, 0, 0, 0], [0, 0, 1, -3], [0, -1, 0, 0], [0, 0, 0, 1]])


def test_se3_vectors_and_adjoint():
    se3 = mr.VecTose3([1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(se3, [[0, -3, 2, 4], [3, 0, -1, 5], [-2, 1, 0, 6], [0, 0, 0, 0]])
    np.testing.assert_array_equal(mr.se3ToVec(se3), [1, 2, 3, 4, 5, 6])
    T = [[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]]
    np.testing.assert_array_equal(mr.Adjoint(T), [
        [1, 0, 0, 0, 0, 0], [0, 0, -1, 0, 0, 0], [0, 1, 0, 0, 0, 0],
        [0, 0, 3, 1, 0, 0], [3, 0, 0, 0, 0, -1], [0, 0, 0, 0, 1, 0]])


def test_adjoint_conjugates_twists():
    for _ in range(10):
        T, V = _random_T(), RNG.normal(size=6)
        expected = mr.se3ToVec(T @ mr.VecTose3(V) @ mr.TransInv(T))
        np.testing.assert_allclose(mr.Adjoint(T) @ V, expected, atol=1e-12)
        np.testing.assert_allclose(mr.TransInv(T), np.linalg.inv(T), atol=1e-12)


def test_screw_axis_and_axis_ang6():
    np.testing.assert_array_equal(mr.ScrewToAxis([3, 0, 0], [0, 0, 1], 2), [0, 0, 1, 0, -3, 2])
    S, theta = mr.AxisAng6([1, 0, 0, 1, 2, 3])
    np.testing.assert_array_equal(S, [1, 0, 0, 1, 2, 3])
    assert theta == 1.0
    S, theta = mr.AxisAng6([0, 0, 0, 0, 3, 4])  # pure translation: theta = |v|
    np.testing.assert_allclose(S, [0, 0, 0, 0, 0.6, 0.8])
    assert theta == 5.0


def test_matrix_exp6_and_log6_both_apis():
    se3 = [[0, 0, 0, 0], [0, 0, -1.57079632, 2.35619449], [0, 1.57079632, 0, 2.35619449],
           [0, 0, 0, 0]]
    T = [[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]]
    # the input is pi/2 truncated to 8 decimals, so the output is exact only to ~1e-8
    close(mr.MatrixExp6(se3), T, 7)
    close(mr.MatrixExp6([1.57079632, 0, 0, 0, 2.35619449, 2.35619449]), T, 7)
    close(mr.MatrixLog6(T), [[0, 0, 0, 0], [0, 0, -1.57079633, 2.35619449],
                             [0, 1.57079633, 0, 2.35619449], [0, 0, 0, 0]], 8)
    close(mr.MatrixLog6(T, vector=True), [1.5708, 0, 0, 0, 2.3562, 2.3562], 4)


def test_exp_log_round_trips():
    for _ in range(20):
        T = _random_T()
        np.testing.assert_allclose(mr.MatrixExp6(mr.MatrixLog6(T)), T, atol=1e-12)
        R = T[:3, :3]
        np.testing.assert_allclose(mr.MatrixExp3(mr.MatrixLog3(R)), R, atol=1e-13)
    Rpi = np.diag([1.0, -1.0, -1.0])
    np.testing.assert_allclose(mr.MatrixExp3(mr.MatrixLog3(Rpi)), Rpi, atol=1e-15)


def test_projections_and_distances():
    mat = np.array([[0.675, 0.150, 0.720], [0.370, 0.771, -0.511], [-0.630, 0.619, 0.472]])
    expected = [[0.67901136, 0.14894516, 0.71885945], [0.37320708, 0.77319584, -0.51272279],
                [-0.63218672, 0.61642804, 0.46942137]]
    close(mr.ProjectToSO3(mat), expected, 8)
    m4 = np.zeros((4, 4))
    m4[:3, :3] = mat
    m4[:, 3] = [1.2, 5.4, 3.6, 0.9]
    m4[3, :3] = [0.003, 0.002, 0.010]
    P = mr.ProjectToSE3(m4)
    close(P[:3, :3], expected, 8)
    np.testing.assert_array_equal(P[:3, 3], [1.2, 5.4, 3.6])
    np.testing.assert_array_equal(P[3], [0, 0, 0, 1])
    R = [[1.0, 0.0, 0.0], [0.0, 0.1, -0.95], [0.0, 1.0, 0.1]]
    T = [[1.0, 0.0, 0.0, 1.2], [0.0, 0.1, -0.95, 1.5], [0.0, 1.0, 0.1, -0.9],
         [0.0, 0.0, 0.1, 0.98]]
    close(mr.DistanceToSO3(R), 0.08835, 5)
    close(mr.DistanceToSE3(T), 0.134931, 6)
    assert mr.TestIfSO3(R) is False
    assert mr.TestIfSE3(T) is False
    assert mr.TestIfSO3(np.eye(3)) and mr.TestIfSE3(_random_T())
    assert mr.DistanceToSO3(np.diag([1.0, 1.0, -1.0])) == 1e9


def test_project_to_so3_handles_reflections():
    # a reflection-like input: the nearest rotation, not merely a flipped column
    mat = np.diag([1.0, 1.0, -0.5]) @ mr.MatrixExp3([0.1, 0.2, 0.3])
    R = mr.ProjectToSO3(mat)
    assert mr.TestIfSO3(R) and np.linalg.det(R) > 0
    # no other rotation is closer: compare with random nearby rotations
    d0 = np.linalg.norm(R - mat)
    for _ in range(50):
        Rk = R @ mr.MatrixExp3(0.05 * RNG.normal(size=3))
        assert np.linalg.norm(Rk - mat) >= d0 - 1e-12


# -- Chapters 4-6 -----------------------------------------------------------------------------
def test_forward_kinematics_example():
    close(mr.FKinBody(M_FK, BLIST_FK, THETA_FK), T_FK, 8)
    close(mr.FKinSpace(M_FK, SLIST_FK, THETA_FK), T_FK, 8)


def test_body_and_space_fk_agree_for_random_arms():
    for _ in range(5):
        S = RNG.normal(size=(6, 4))
        M = _random_T()
        B = mr.Adjoint(mr.TransInv(M)) @ S
        th = RNG.normal(size=4)
        np.testing.assert_allclose(mr.FKinBody(M, B, th), mr.FKinSpace(M, S, th), atol=1e-12)


JAC_AXES = np.array([[0, 0, 1, 0, 0.2, 0.2], [1, 0, 0, 2, 0, 3], [0, 1, 0, 0, 2, 1],
                     [1, 0, 0, 0.2, 0.3, 0.4]]).T
JAC_TH = np.array([0.2, 1.1, 0.1, 1.2])


def test_jacobian_examples():
    close(mr.JacobianBody(JAC_AXES, JAC_TH), [
        [-0.04528405, 0.99500417, 0, 1], [0.74359313, 0.09304865, 0.36235775, 0],
        [-0.66709716, 0.03617541, -0.93203909, 0], [2.32586047, 1.66809, 0.56410831, 0.2],
        [-1.44321167, 2.94561275, 1.43306521, 0.3], [-2.06639565, 1.82881722, -1.58868628, 0.4]],
        8)
    close(mr.JacobianSpace(JAC_AXES, JAC_TH), [
        [0, 0.98006658, -0.09011564, 0.95749426], [0, 0.19866933, 0.4445544, 0.28487557],
        [1, 0, 0.89120736, -0.04528405], [0, 1.95218638, -2.21635216, -0.51161537],
        [0.2, 0.43654132, -2.43712573, 2.77535713], [0.2, 2.96026613, 3.23573065, 2.22512443]],
        8)


def test_jacobians_by_finite_differences():
    M = _random_T()
    S = JAC_AXES
    B = mr.Adjoint(mr.TransInv(M)) @ S
    th, dth, h = RNG.normal(size=4), RNG.normal(size=4), 1e-6
    Tp = mr.FKinSpace(M, S, th + h * dth)
    Tm = mr.FKinSpace(M, S, th - h * dth)
    T = mr.FKinSpace(M, S, th)
    Tdot = (Tp - Tm) / (2 * h)
    Vs = mr.se3ToVec(Tdot @ mr.TransInv(T))  # spatial twist
    Vb = mr.se3ToVec(mr.TransInv(T) @ Tdot)  # body twist
    np.testing.assert_allclose(mr.JacobianSpace(S, th) @ dth, Vs, atol=1e-7)
    np.testing.assert_allclose(mr.JacobianBody(B, th) @ dth, Vb, atol=1e-7)
    np.testing.assert_allclose(mr.JacobianBody(B, th),
                               mr.Adjoint(mr.TransInv(T)) @ mr.JacobianSpace(S, th), atol=1e-12)


def test_inverse_kinematics_examples():
    T = [[0, 1, 0, -5], [1, 0, 0, 4], [0, 0, -1, 1.6858], [0, 0, 0, 1]]
    th, ok = mr.IKinBody(BLIST_FK, M_FK, T, [1.5, 2.5, 3], 0.01, 0.001)
    assert ok is True
    close(th, [1.57073819, 2.999667, 3.14153913], 8)
    th, ok = mr.IKinSpace(SLIST_FK, M_FK, T, [1.5, 2.5, 3], 0.01, 0.001)
    assert ok is True
    close(th, [1.57073783, 2.99966384, 3.1415342], 8)


def test_inverse_kinematics_reaches_random_targets_and_reports_failure():
    th_true = THETA_FK + RNG.normal(scale=0.2, size=3)
    T = mr.FKinSpace(M_FK, SLIST_FK, th_true)
    for fn, axes in ((mr.IKinSpace, SLIST_FK), (mr.IKinBody, BLIST_FK)):
        th, ok = fn(axes, M_FK, T, THETA_FK, 1e-9, 1e-9)
        assert ok
        np.testing.assert_allclose(mr.FKinSpace(M_FK, SLIST_FK, th), T, atol=1e-8)
    # unreachable: the prismatic joint cannot leave the plane of the arm
    T_bad = T.copy()
    T_bad[2, 3] += 10.0
    th, ok = mr.IKinBody(BLIST_FK, M_FK, T_bad, THETA_FK, 1e-3, 1e-3)
    assert ok is False and th.shape == (3,)


# -- Chapter 8 --------------------------------------------------------------------------------
def test_ad_example_and_lie_bracket():
    np.testing.assert_array_equal(mr.ad([1, 2, 3, 4, 5, 6]), [
        [0, -3, 2, 0, 0, 0], [3, 0, -1, 0, 0, 0], [-2, 1, 0, 0, 0, 0],
        [0, -6, 5, 0, -3, 2], [6, 0, -4, 3, 0, -1], [-5, 4, 0, -2, 1, 0]])
    V1, V2 = RNG.normal(size=(2, 6))
    S1, S2 = mr.VecTose3(V1), mr.VecTose3(V2)
    np.testing.assert_allclose(mr.ad(V1) @ V2, mr.se3ToVec(S1 @ S2 - S2 @ S1), atol=1e-14)


def test_dynamics_examples():
    close(mr.InverseDynamics(TH, DTH, DDTH, G, FTIP, *MODEL),
          [74.69616155, -33.06766016, -3.23057314], 8)
    np.testing.assert_allclose(mr.MassMatrix(TH, *MODEL), [
        [2.25433380e+01, -3.07146754e-01, -7.18426391e-03],
        [-3.07146754e-01, 1.96850717e+00, 4.32157368e-01],
        [-7.18426391e-03, 4.32157368e-01, 1.91630858e-01]], rtol=6e-9)
    close(mr.VelQuadraticForces(TH, DTH, *MODEL), [0.26453118, -0.05505157, -0.00689132], 8)
    close(mr.GravityForces(TH, G, *MODEL), [28.40331262, -37.64094817, -5.4415892], 7)
    close(mr.EndEffectorForces(TH, FTIP, *MODEL), [1.40954608, 1.85771497, 1.392409], 6)
    close(mr.ForwardDynamics(TH, DTH, [0.5, 0.6, 0.7], G, FTIP, *MODEL),
          [-0.97392907, 25.58466784, -32.91499212], 8)
    th, dth = mr.EulerStep([0.1, 0.1, 0.1], [0.1, 0.2, 0.3], [2, 1.5, 1], 0.1)
    np.testing.assert_allclose(th, [0.11, 0.12, 0.13], atol=1e-15)
    np.testing.assert_allclose(dth, [0.3, 0.35, 0.4], atol=1e-15)


def test_inverse_dynamics_decomposes_and_forward_dynamics_inverts_it():
    Mm = mr.MassMatrix(TH, *MODEL)
    np.testing.assert_allclose(Mm, Mm.T, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(Mm) > 0)
    parts = (Mm @ DDTH + mr.VelQuadraticForces(TH, DTH, *MODEL) + mr.GravityForces(TH, G, *MODEL)
             + mr.EndEffectorForces(TH, FTIP, *MODEL))
    tau = mr.InverseDynamics(TH, DTH, DDTH, G, FTIP, *MODEL)
    np.testing.assert_allclose(tau, parts, atol=1e-10)
    np.testing.assert_allclose(mr.ForwardDynamics(TH, DTH, tau, G, FTIP, *MODEL), DDTH,
                               atol=1e-10)
    # velocity terms are quadratic in the joint rates
    np.testing.assert_allclose(mr.VelQuadraticForces(TH, 2 * DTH, *MODEL),
                               4 * mr.VelQuadraticForces(TH, DTH, *MODEL), atol=1e-12)


def test_power_balance_of_velocity_terms():
    # d/dt (dth^T M dth / 2) = dth^T tau when g = 0, Ftip = 0  =>  dth^T c = dth^T Mdot dth / 2
    th = RNG.normal(size=3)
    h = 1e-6
    Mdot = (mr.MassMatrix(th + h * DTH, *MODEL) - mr.MassMatrix(th - h * DTH, *MODEL)) / (2 * h)
    c = mr.VelQuadraticForces(th, DTH, *MODEL)
    assert DTH @ c == pytest.approx(0.5 * DTH @ Mdot @ DTH, abs=1e-8)


def _com_frames(th):
    """Poses of the link centre-of-mass frames {1..n} in the space frame."""
    Mi, out = np.eye(4), []
    T = np.eye(4)
    for i in range(3):
        Mi = Mi @ MLIST[i]
        T = T @ mr.MatrixExp6(SLIST[:, i] * th[i])
        out.append(T @ Mi)
    return out


def test_gravity_forces_are_the_potential_gradient():
    masses = GLIST[:, 3, 3]
    th = RNG.normal(size=3)

    def potential(q):
        return -sum(m * G @ T[:3, 3] for m, T in zip(masses, _com_frames(q)))

    h = 1e-6
    grad = [(potential(th + h * e) - potential(th - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(mr.GravityForces(th, G, *MODEL), grad, atol=1e-7)


def test_end_effector_forces_are_body_jacobian_transpose():
    th = RNG.normal(size=3)
    M = MLIST[0] @ MLIST[1] @ MLIST[2] @ MLIST[3]
    B = mr.Adjoint(mr.TransInv(M)) @ SLIST
    F = RNG.normal(size=6)
    np.testing.assert_allclose(mr.EndEffectorForces(th, F, *MODEL),
                               mr.JacobianBody(B, th).T @ F, atol=1e-12)


TAUMAT = np.array([[3.63, -6.58, -5.57], [3.74, -5.55, -5.5], [4.31, -0.68, -5.19],
                   [5.18, 5.63, -4.31], [5.85, 8.17, -2.59], [5.78, 2.79, -1.7],
                   [4.99, -5.3, -1.19], [4.08, -9.41, 0.07], [3.56, -10.1, 0.97],
                   [3.49, -9.41, 1.23]])


def test_forward_dynamics_trajectory_consistent_with_inverse_dynamics():
    F = np.ones((10, 6))
    th, dth = mr.ForwardDynamicsTrajectory(TH, DTH, TAUMAT, G, F, *MODEL, 0.1, 1)
    assert th.shape == dth.shape == (10, 3)
    np.testing.assert_array_equal(th[0], TH)
    np.testing.assert_array_equal(dth[0], DTH)
    # with one Euler step per row the accelerations are exactly recoverable
    np.testing.assert_allclose(th[1:], th[:-1] + 0.1 * dth[:-1], atol=1e-12)
    ddth = (dth[1:] - dth[:-1]) / 0.1
    tau = mr.InverseDynamicsTrajectory(th[:-1], dth[:-1], ddth, G, F[:-1], *MODEL)
    np.testing.assert_allclose(tau, TAUMAT[:-1], atol=1e-8)


def test_forward_dynamics_trajectory_converges_at_first_order():
    from scipy.integrate import solve_ivp

    tau, F, dt = TAUMAT[:4], np.ones((4, 6)), 0.05
    x = np.concatenate((TH, DTH))
    for k in range(3):  # accurate reference with the same held torques
        sol = solve_ivp(lambda t, y, k=k: np.concatenate(
            (y[3:], mr.ForwardDynamics(y[:3], y[3:], tau[k], G, F[k], *MODEL))),
            (0, dt), x, rtol=1e-10, atol=1e-12)
        x = sol.y[:, -1]
    errs = []
    for res in (4, 8):
        th, _ = mr.ForwardDynamicsTrajectory(TH, DTH, tau, G, F, *MODEL, dt, res)
        errs.append(np.abs(th[-1] - x[:3]).max())
    assert errs[1] < errs[0]
    assert errs[0] / errs[1] == pytest.approx(2.0, rel=0.25)


def test_inverse_dynamics_trajectory_rows():
    t = np.linspace(0, 1, 5)[:, None]
    thm, dthm, ddthm = TH + t * DTH, np.tile(DTH, (5, 1)), np.zeros((5, 3))
    F = RNG.normal(size=(5, 6))
    tau = mr.InverseDynamicsTrajectory(thm, dthm, ddthm, G, F, *MODEL)
    for k in range(5):
        np.testing.assert_array_equal(tau[k], mr.InverseDynamics(thm[k], dthm[k], ddthm[k], G,
                                                                 F[k], *MODEL))
    with pytest.raises(ValueError, match="Ftipmat"):
        mr.InverseDynamicsTrajectory(thm, dthm, ddthm, G, F[:3], *MODEL)


def test_model_shape_errors():
    with pytest.raises(ValueError, match="end-effector"):
        mr.InverseDynamics(TH, DTH, DDTH, G, FTIP, MLIST[:3], GLIST, SLIST)
    with pytest.raises(ValueError, match="one screw axis per column"):
        mr.FKinSpace(M_FK, SLIST_FK.T[:, :5], THETA_FK)


# -- Chapter 9 (aliases of blocksim.robotics.trajectory) -------------------------------------
def test_time_scalings():
    close(mr.CubicTimeScaling(2, 0.6), 0.216, 3)
    close(mr.QuinticTimeScaling(2, 0.6), 0.16308, 5)


def test_joint_trajectory_example():
    traj = mr.JointTrajectory([1, 0, 0, 1, 1, 0.2, 0, 1], [1.2, 0.5, 0.6, 1.1, 2, 2, 0.9, 1], 4, 6,
                              3)
    close(traj, [[1, 0, 0, 1, 1, 0.2, 0, 1],
                 [1.0208, 0.052, 0.0624, 1.0104, 1.104, 0.3872, 0.0936, 1],
                 [1.0704, 0.176, 0.2112, 1.0352, 1.352, 0.8336, 0.3168, 1],
                 [1.1296, 0.324, 0.3888, 1.0648, 1.648, 1.3664, 0.5832, 1],
                 [1.1792, 0.448, 0.5376, 1.0896, 1.896, 1.8128, 0.8064, 1],
                 [1.2, 0.5, 0.6, 1.1, 2, 2, 0.9, 1]], 4)


XSTART = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 1]], dtype=float)
XEND = np.array([[0, 0, 1, 0.1], [1, 0, 0, 0], [0, 1, 0, 4.1], [0, 0, 0, 1]], dtype=float)


def test_screw_trajectory_example():
    traj = mr.ScrewTrajectory(XSTART, XEND, 5, 4, 3)
    assert len(traj) == 4
    close(traj[0], XSTART, 12)
    close(traj[1], [[0.904, -0.25, 0.346, 0.441], [0.346, 0.904, -0.25, 0.529],
                    [-0.25, 0.346, 0.904, 1.601], [0, 0, 0, 1]], 3)
    close(traj[2], [[0.346, -0.25, 0.904, -0.117], [0.904, 0.346, -0.25, 0.473],
                    [-0.25, 0.904, 0.346, 3.274], [0, 0, 0, 1]], 3)
    close(traj[3], XEND, 12)


def test_cartesian_trajectory_example():
    traj = mr.CartesianTrajectory(XSTART, XEND, 5, 4, 5)
    assert len(traj) == 4
    close(traj[0], XSTART, 12)
    close(traj[1], [[0.937, -0.214, 0.277, 0.811], [0.277, 0.937, -0.214, 0],
                    [-0.214, 0.277, 0.937, 1.651], [0, 0, 0, 1]], 3)
    close(traj[2], [[0.277, -0.214, 0.937, 0.289], [0.937, 0.277, -0.214, 0],
                    [-0.214, 0.937, 0.277, 3.449], [0, 0, 0, 1]], 3)
    close(traj[3], XEND, 12)


# -- Chapter 11 -------------------------------------------------------------------------------
def test_computed_torque_example():
    tau = mr.ComputedTorque(TH, DTH, [0.2, 0.2, 0.2], G, *MODEL, [1.0, 1.0, 1.0], [2, 1.2, 2],
                            [0.1, 0.1, 0.1], 1.3, 1.2, 1.1)
    close(tau, [133.00525246, -29.94223324, -3.03276856], 8)


def test_computed_torque_linearises_an_exact_model():
    eint, thd, dthd, ddthd = RNG.normal(size=(4, 3))
    Kp, Ki, Kd = 2.0, 0.5, 1.5
    tau = mr.ComputedTorque(TH, DTH, eint, G, *MODEL, thd, dthd, ddthd, Kp, Ki, Kd)
    acc = mr.ForwardDynamics(TH, DTH, tau, G, np.zeros(6), *MODEL)
    e, de = thd - TH, dthd - DTH
    np.testing.assert_allclose(acc, ddthd + Kp * e + Ki * (eint + e) + Kd * de, atol=1e-9)


def _quintic_reference(th0, th1, dt, N):
    """Rest-to-rest quintic reference sampled at t = k dt, k = 0..N-1 (Tf = (N-1) dt)."""
    Tf = (N - 1) * dt
    t = np.arange(N)[:, None] * dt / Tf
    s = 10 * t**3 - 15 * t**4 + 6 * t**5
    ds = (30 * t**2 - 60 * t**3 + 30 * t**4) / Tf
    dds = (60 * t - 180 * t**2 + 120 * t**3) / Tf**2
    d = np.asarray(th1) - th0
    return th0 + s * d, ds * d, dds * d


def test_simulate_control_regulation_follows_the_linear_error_dynamics():
    # exact model: e = th_d - th obeys e'' = -(Kp + Ki) e - Ki int(e) - Kd e' (MR integrates
    # eint + e, so Ki also acts proportionally), up to the O(dt) of the held torque
    from scipy.integrate import solve_ivp

    dt, N, Kp, Ki, Kd = 0.01, 60, 20.0, 10.0, 18.0
    e0 = np.array([0.1, -0.05, 0.08])
    thd, z = np.tile(TH, (N, 1)), np.zeros((N, 3))
    tau, th = mr.SimulateControl(TH - e0, np.zeros(3), G, z @ np.zeros((3, 6)), *MODEL, thd, z,
                                 z, G, MLIST, GLIST, Kp, Ki, Kd, dt, 2)
    assert tau.shape == th.shape == (N, 3)
    A = np.array([[0, 1, 0], [0, 0, 1], [-Ki, -(Kp + Ki), -Kd]])
    sol = solve_ivp(lambda t, x: A @ x, (0, N * dt), [0, 1, 0], t_eval=dt * np.arange(1, N + 1),
                    rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(thd - th, np.outer(sol.y[1], e0), atol=2e-3)


def test_simulate_control_tracking_error_is_first_order_in_dt():
    errs = []
    for dt, N in ((0.01, 26), (0.005, 51)):
        thd, dthd, ddthd = _quintic_reference(TH, [1.0, 1.5, 2.0], dt, N)
        _, th = mr.SimulateControl(TH, np.zeros(3), G, np.zeros((N, 6)), *MODEL, thd, dthd,
                                   ddthd, G, MLIST, GLIST, 20.0, 10.0, 18.0, dt, 1)
        errs.append(np.abs(th[:-1] - thd[1:]).max())  # row k is the state at (k + 1) dt
    assert errs[0] < 0.15  # rad, for a motion of 1.9 rad in 0.25 s
    assert errs[1] / errs[0] == pytest.approx(0.5, abs=0.1)


def test_simulate_control_mr_demo_with_model_mismatch():
    # MR's demo (its controller model, gains and reference), shortened to 0.6 s to stay fast
    dt, N, res = 0.01, 61, 4
    thd, dthd, ddthd = _quintic_reference(TH, [np.pi / 2, np.pi, 1.5 * np.pi], dt, N)
    Mt = np.array([
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1], [0, 0, 0, 1]],
        [[0, 0, 1, 0.3], [0, 1, 0, 0.2], [-1, 0, 0, 0], [0, 0, 0, 1]],
        [[1, 0, 0, 0], [0, 1, 0, -0.2], [0, 0, 1, 0.4], [0, 0, 0, 1]],
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2], [0, 0, 0, 1]]], dtype=float)
    Gt = np.array([np.diag([0.1, 0.1, 0.1, 4, 4, 4]), np.diag([0.3, 0.3, 0.1, 9, 9, 9]),
                   np.diag([0.1, 0.1, 0.1, 3, 3, 3])])
    args = (TH + 0.05, DTH, G, np.ones((N, 6)), *MODEL, thd, dthd, ddthd)
    tau, th = mr.SimulateControl(*args, [0.8, 0.2, -8.8], Mt, Gt, 20, 10, 18, dt, res)
    assert np.all(np.isfinite(tau)) and np.all(np.isfinite(th))
    # feedback keeps the arm near the reference despite the wrong model; without it (zero gains)
    # the same model error drives it far away
    err = np.abs(th - np.vstack((thd[1:], thd[-1:]))).max(axis=0)
    _, th0 = mr.SimulateControl(*args, [0.8, 0.2, -8.8], Mt, Gt, 0, 0, 0, dt, res)
    err0 = np.abs(th0 - np.vstack((thd[1:], thd[-1:]))).max(axis=0)
    assert err.max() < 1.0  # rad, for motions of up to 4.6 rad in 0.6 s
    assert np.all(err0 > 1.5 * err) and err0.max() > 3 * err.max()
