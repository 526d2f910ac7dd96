"""Roll-pitch-yaw (xyz and zyx), ZYZ Euler and angle-vector conversions."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from blocksim.robotics.spatial import (
    angvec2r,
    angvec2tr,
    eul2r,
    eul2tr,
    isrot,
    rotx,
    roty,
    rotz,
    rpy2r,
    rpy2tr,
    tr2angvec,
    tr2eul,
    tr2rpy,
)

RNG = np.random.default_rng(2024)


def _random_angles(n):
    return np.column_stack([RNG.uniform(-np.pi, np.pi, n), RNG.uniform(-np.pi / 2, np.pi / 2, n),
                            RNG.uniform(-np.pi, np.pi, n)])


def test_rpy_xyz_is_rx_ry_rz():
    r, p, y = 0.1, -0.4, 2.0
    np.testing.assert_allclose(rpy2r(r, p, y), rotx(r) @ roty(p) @ rotz(y), atol=1e-15)
    np.testing.assert_allclose(rpy2r([r, p, y]), rotx(r) @ roty(p) @ rotz(y), atol=1e-15)
    # scipy: intrinsic rotations about X, then new Y, then new Z
    np.testing.assert_allclose(rpy2r(r, p, y), Rotation.from_euler("XYZ", [r, p, y]).as_matrix(),
                               atol=1e-15)


def test_rpy_zyx_is_rz_ry_rx():
    a = [0.3, 0.2, -1.2]
    expected = rotz(a[0]) @ roty(a[1]) @ rotx(a[2])
    np.testing.assert_allclose(rpy2r(a, order="zyx"), expected, atol=1e-15)
    np.testing.assert_allclose(rpy2r(a, order="zyx"),
                               Rotation.from_euler("ZYX", a).as_matrix(), atol=1e-15)


def test_rpy_degrees_stacks_and_transform():
    np.testing.assert_allclose(rpy2r(10, 20, 30, unit="deg"),
                               rpy2r(np.deg2rad([10, 20, 30])), atol=1e-15)
    A = _random_angles(4)
    Rs = rpy2r(A)
    assert Rs.shape == (4, 3, 3)
    np.testing.assert_allclose(Rs[2], rpy2r(A[2]))
    Rs3 = rpy2r(A[:, 0], A[:, 1], A[:, 2])
    np.testing.assert_allclose(Rs3, Rs)
    T = rpy2tr(A[0])
    np.testing.assert_allclose(T[:3, :3], rpy2r(A[0]))
    np.testing.assert_array_equal(T[:3, 3], 0)
    np.testing.assert_allclose(tr2rpy(Rs), A, atol=1e-12)
    np.testing.assert_allclose(tr2rpy(rpy2r(10, 20, 30, unit="deg"), unit="deg"), [10, 20, 30])
    with pytest.raises(ValueError, match="order"):
        rpy2r(0, 0, 0, order="yxz")


@pytest.mark.parametrize("order", ["xyz", "zyx"])
def test_rpy_round_trip_random(order):
    for a in _random_angles(200):
        R = rpy2r(a, order=order)
        b = tr2rpy(R, order=order)
        np.testing.assert_allclose(b, a, atol=1e-12)
        np.testing.assert_allclose(rpy2r(b, order=order), R, atol=1e-14)


@pytest.mark.parametrize("order", ["xyz", "zyx"])
@pytest.mark.parametrize("pitch", [np.pi / 2, -np.pi / 2])
def test_rpy_gimbal_lock(order, pitch):
    for a0, a2 in RNG.uniform(-np.pi, np.pi, (20, 2)):
        for eps in (0.0, 1e-14, 1e-9, 1e-6):
            R = rpy2r(a0, pitch - np.sign(pitch) * eps, a2, order=order)
            b = tr2rpy(R, order=order)
            assert abs(abs(b[1]) - np.pi / 2) <= eps + 1e-7
            np.testing.assert_allclose(rpy2r(b, order=order), R, atol=1e-13)
    # exactly at the singularity the first angle is set to zero (RTB)
    b = tr2rpy(rpy2r(0.4, pitch, 0.3, order=order), order=order)
    assert b[0] == 0.0


def test_rpy_singular_sum_rule_xyz():
    # pitch = +pi/2 in xyz: only roll + yaw is defined; RTB puts it all in yaw
    b = tr2rpy(rpy2r(0.4, np.pi / 2, 0.3))
    np.testing.assert_allclose(b, [0.0, np.pi / 2, 0.7], atol=1e-12)


def test_eul_is_rz_ry_rz_and_matches_scipy():
    e = [0.3, 1.1, -0.8]
    np.testing.assert_allclose(eul2r(e), rotz(e[0]) @ roty(e[1]) @ rotz(e[2]), atol=1e-15)
    np.testing.assert_allclose(eul2r(*e), Rotation.from_euler("ZYZ", e).as_matrix(), atol=1e-15)
    T = eul2tr(e)
    np.testing.assert_allclose(T[:3, :3], eul2r(e))
    np.testing.assert_array_equal(T[:3, 3], 0)
    np.testing.assert_allclose(eul2r(10, 20, 30, unit="deg"), eul2r(np.deg2rad([10, 20, 30])))


def test_eul_round_trip_and_flip():
    for _ in range(200):
        e = np.array([RNG.uniform(-np.pi, np.pi), RNG.uniform(0.01, np.pi - 0.01),
                      RNG.uniform(-np.pi, np.pi)])
        R = eul2r(e)
        np.testing.assert_allclose(tr2eul(R), e, atol=1e-11)
        f = tr2eul(R, flip=True)
        assert -np.pi <= f[1] <= 0
        assert np.cos(f[0]) * np.cos(e[0]) + np.sin(f[0]) * np.sin(e[0]) < 0  # opposite half
        np.testing.assert_allclose(eul2r(f), R, atol=1e-14)


@pytest.mark.parametrize("theta", [0.0, np.pi, 1e-13, np.pi - 1e-13, 1e-8])
def test_eul_singularities(theta):
    for phi, psi in RNG.uniform(-np.pi, np.pi, (10, 2)):
        R = eul2r(phi, theta, psi)
        for flip in (False, True):
            e = tr2eul(R, flip=flip)
            np.testing.assert_allclose(eul2r(e), R, atol=1e-12)
    e = tr2eul(eul2r(0.2, 0.0, 0.5))
    np.testing.assert_allclose(e, [0.0, 0.0, 0.7], atol=1e-14)  # psi carries the sum


def test_eul_stack_and_degrees():
    E = np.array([[0.1, 0.2, 0.3], [-1.0, 2.0, 0.5]])
    np.testing.assert_allclose(tr2eul(eul2r(E)), E, atol=1e-12)
    np.testing.assert_allclose(tr2eul(eul2tr(10, 20, 30, unit="deg"), unit="deg"), [10, 20, 30])


def test_angvec_matches_rodrigues_and_round_trips():
    for _ in range(50):
        v = RNG.normal(size=3)
        th = RNG.uniform(0, np.pi)
        R = angvec2r(th, v)
        assert isrot(R, check=True)
        np.testing.assert_allclose(R, Rotation.from_rotvec(th * v / np.linalg.norm(v)).as_matrix(),
                                   atol=1e-14)
        th2, v2 = tr2angvec(R)
        assert th2 == pytest.approx(th, abs=1e-12)
        np.testing.assert_allclose(v2, v / np.linalg.norm(v), atol=1e-10)
    np.testing.assert_allclose(angvec2tr(90, [0, 0, 2], unit="deg")[:3, :3], rotz(np.pi / 2),
                               atol=1e-15)


def test_angvec_edge_cases():
    np.testing.assert_array_equal(angvec2r(0.0, [0, 0, 0]), np.eye(3))
    th, v = tr2angvec(np.eye(4))
    assert th == 0.0
    np.testing.assert_array_equal(v, 0)
    th, v = tr2angvec(rotx(np.pi))
    assert th == pytest.approx(np.pi, abs=1e-15)
    np.testing.assert_allclose(np.abs(v), [1, 0, 0], atol=1e-15)
    th, v = tr2angvec(rotz(1e-9))
    assert th == pytest.approx(1e-9, rel=1e-9)
    np.testing.assert_allclose(v, [0, 0, 1])
    th, v = tr2angvec(np.stack([rotx(0.5), roty(1.0)]), unit="deg")
    np.testing.assert_allclose(th, np.rad2deg([0.5, 1.0]))
    np.testing.assert_allclose(v, [[1, 0, 0], [0, 1, 0]], atol=1e-15)
    with pytest.raises(ValueError, match="zero"):
        angvec2r(1.0, [0, 0, 0])
