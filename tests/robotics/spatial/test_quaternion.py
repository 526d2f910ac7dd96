"""Quaternion functions and the UnitQuaternion class."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from blocksim.robotics.spatial import (
    UnitQuaternion,
    angvec2r,
    q2r,
    q2r_nb,
    q_conj,
    q_dot,
    q_inv,
    q_mul,
    q_mul_nb,
    q_norm,
    q_rotate,
    q_slerp,
    q_unit,
    r2q,
    r2q_nb,
    rotx,
    roty,
    rotz,
    rpy2r,
    tr2angvec,
    transl,
)

RNG = np.random.default_rng(555)


def _random_q():
    return q_unit(RNG.normal(size=4))


def _angle_between(R1, R2):
    return tr2angvec(R1.T @ R2)[0]


def test_q2r_matches_scipy_and_definition():
    for _ in range(50):
        q = _random_q()
        expected = Rotation.from_quat(np.r_[q[1:], q[0]]).as_matrix()  # scipy is scalar-last
        np.testing.assert_allclose(q2r(q), expected, atol=1e-15)
    # rotation of theta about u is [cos(theta/2), u sin(theta/2)]
    np.testing.assert_allclose(q2r([np.cos(0.35), np.sin(0.35), 0, 0]), rotx(0.7), atol=1e-15)
    # a non-unit quaternion is normalised
    np.testing.assert_allclose(q2r([2 * np.cos(0.35), 0, 0, 2 * np.sin(0.35)]), rotz(0.7))


def test_r2q_q2r_round_trip_sign():
    for _ in range(200):
        q = _random_q()
        q2 = r2q(q2r(q))
        assert q2[0] >= 0
        assert min(np.abs(q2 - q).max(), np.abs(q2 + q).max()) < 1e-14


@pytest.mark.parametrize("theta", [0.0, 1e-10, 1.0, np.pi - 1e-9, np.pi])
def test_r2q_robust_near_0_and_pi(theta):
    for _ in range(30):
        u = q_unit(np.r_[0, RNG.normal(size=3)])[1:]
        R = angvec2r(theta, u) if theta else np.eye(3)
        q = r2q(R)
        assert abs(np.linalg.norm(q) - 1) < 1e-15
        np.testing.assert_allclose(q2r(q), R, atol=2e-15)


def test_r2q_accepts_transform_and_shepperd_branches():
    # each branch: trace largest, then x, y, z diagonal terms largest
    for R in (np.eye(3), rotx(3.0), roty(3.0), rotz(3.0)):
        np.testing.assert_allclose(q2r(r2q(R)), R, atol=1e-15)
    T = transl(1, 2, 3)
    T[:3, :3] = roty(0.4)
    np.testing.assert_allclose(r2q(T), [np.cos(0.2), 0, np.sin(0.2), 0], atol=1e-15)


def test_product_matches_matrix_product():
    for _ in range(50):
        a, b = _random_q(), _random_q()
        np.testing.assert_allclose(q2r(q_mul(a, b)), q2r(a) @ q2r(b), atol=1e-14)
        np.testing.assert_array_equal(q_mul_nb(a, b), q_mul(a, b))
    np.testing.assert_array_equal(q_mul([0, 1, 0, 0], [0, 0, 1, 0]), [0, 0, 0, 1])  # i j = k


def test_conj_inv_norm():
    q = np.array([1.0, 2.0, -3.0, 0.5])
    np.testing.assert_array_equal(q_conj(q), [1, -2, 3, -0.5])
    np.testing.assert_allclose(q_mul(q, q_inv(q)), [1, 0, 0, 0], atol=1e-15)
    assert q_norm(q) == pytest.approx(np.sqrt(1 + 4 + 9 + 0.25))
    with pytest.raises(ValueError):
        q_inv([0, 0, 0, 0])
    with pytest.raises(ValueError):
        q2r([0, 0, 0, 0])


def test_rotate_vector_equals_sandwich_product():
    for _ in range(20):
        q, v = _random_q(), RNG.normal(size=3)
        sandwich = q_mul(q_mul(q, np.r_[0.0, v]), q_conj(q))
        np.testing.assert_allclose(q_rotate(q, v), sandwich[1:], atol=1e-14)
        assert abs(sandwich[0]) < 1e-14
    V = RNG.normal(size=(4, 3))
    q = _random_q()
    np.testing.assert_allclose(q_rotate(q, V), (q2r(q) @ V.T).T, atol=1e-15)


def test_slerp_endpoints_midpoint_and_constant_rate():
    q0, q1 = _random_q(), _random_q()
    if q0 @ q1 < 0:
        q1 = -q1
    np.testing.assert_allclose(q_slerp(q0, q1, 0.0), q0, atol=1e-15)
    np.testing.assert_allclose(q_slerp(q0, q1, 1.0), q1, atol=1e-15)
    total = _angle_between(q2r(q0), q2r(q1))
    s = np.linspace(0, 1, 9)
    qs = q_slerp(q0, q1, s)
    assert qs.shape == (9, 4)
    for sk, qk in zip(s, qs):
        assert abs(np.linalg.norm(qk) - 1) < 1e-15
        assert _angle_between(q2r(q0), q2r(qk)) == pytest.approx(sk * total, abs=1e-12)
    mid = q2r(q_slerp(q0, q1, 0.5))
    assert _angle_between(mid, q2r(q1)) == pytest.approx(total / 2, abs=1e-12)
    # s is clipped to [0, 1]
    np.testing.assert_allclose(q_slerp(q0, q1, 1.5), q1, atol=1e-15)


def test_slerp_shortest_path():
    q0 = np.array([1.0, 0, 0, 0])
    q1 = -r2q(rotz(0.5))  # same rotation as +q, opposite hemisphere
    long_mid = q2r(q_slerp(q0, q1, 0.5))
    short_mid = q2r(q_slerp(q0, q1, 0.5, shortest=True))
    np.testing.assert_allclose(short_mid, rotz(0.25), atol=1e-15)
    np.testing.assert_allclose(long_mid, rotz(0.25 - np.pi), atol=1e-15)
    # nearly identical end points (the linear fallback) and antipodal ones (constant)
    np.testing.assert_allclose(q_slerp(q0, q0, 0.3), q0)
    np.testing.assert_allclose(q2r(q_slerp(q0, -q0, 0.5)), np.eye(3), atol=1e-15)


def test_q_dot_is_the_derivative_for_world_frame_rate():
    q = _random_q()
    w = np.array([0.3, -1.0, 0.5])
    h = 1e-6
    dq = (r2q(angvec2r(h * np.linalg.norm(w), w) @ q2r(q)) * np.sign(q[0]) - q) / h
    np.testing.assert_allclose(q_dot(q, w), dq, atol=1e-6)


def test_unitquaternion_operators():
    a = UnitQuaternion.from_rpy([0.1, 0.2, 0.3])
    b = UnitQuaternion.from_angvec(0.7, [1, 1, 0])
    np.testing.assert_allclose((a * b).R, a.R @ b.R, atol=1e-14)
    np.testing.assert_allclose((a / b).R, a.R @ b.R.T, atol=1e-14)
    np.testing.assert_allclose(a.inv().R, a.R.T, atol=1e-15)
    np.testing.assert_allclose((a**3).R, a.R @ a.R @ a.R, atol=1e-14)
    np.testing.assert_allclose((a**-2).R, a.R.T @ a.R.T, atol=1e-14)
    np.testing.assert_allclose((a**0).vec, [1, 0, 0, 0])
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(a * v, a.R @ v, atol=1e-14)
    np.testing.assert_allclose(a * [v, v], [a.R @ v] * 2, atol=1e-14)
    assert a == UnitQuaternion(-a.vec)  # q and -q are the same rotation
    assert a != b
    assert a.norm() == pytest.approx(1.0)
    with pytest.raises(TypeError):
        a * 2.0
    with pytest.raises(TypeError):
        a**0.5


def test_unitquaternion_conversions():
    R = rpy2r(0.4, -0.2, 1.0)
    q = UnitQuaternion.from_R(R)
    np.testing.assert_allclose(q.R, R, atol=1e-15)
    np.testing.assert_allclose(q.T[:3, :3], R, atol=1e-15)
    np.testing.assert_allclose(q.rpy(), [0.4, -0.2, 1.0], atol=1e-14)
    np.testing.assert_allclose(UnitQuaternion.from_eul([0.1, 0.5, 0.2]).eul(), [0.1, 0.5, 0.2],
                               atol=1e-14)
    th, ax = UnitQuaternion.from_angvec(90, [0, 0, 3], unit="deg").angvec(unit="deg")
    assert th == pytest.approx(90)
    np.testing.assert_allclose(ax, [0, 0, 1], atol=1e-15)
    assert q.s == pytest.approx(q.vec[0]) and q.v.shape == (3,)
    np.testing.assert_array_equal(np.asarray(q), q.vec)
    assert UnitQuaternion([2, 0, 0, 0]).vec[0] == 1.0
    assert "UnitQuaternion(" in repr(q)


def test_unitquaternion_interp_scale_dot():
    a = UnitQuaternion.from_R(rotx(0.2))
    b = UnitQuaternion.from_R(rotx(1.0))
    np.testing.assert_allclose(a.interp(b, 0.5).R, rotx(0.6), atol=1e-15)
    seq = a.interp(b, [0.0, 1.0])
    assert len(seq) == 2 and seq[0] == a and seq[1] == b
    np.testing.assert_allclose(b.scale(0.25).R, rotx(0.25), atol=1e-15)
    np.testing.assert_allclose(b.dot([1, 0, 0]), q_dot(b.vec, [1, 0, 0]))


def test_kernels_equal_functions():
    q = _random_q()
    np.testing.assert_array_equal(q2r_nb(q), q2r(q))
    R = q2r(q)
    np.testing.assert_array_equal(r2q_nb(R), r2q(R))
