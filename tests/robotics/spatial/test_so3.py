"""SO(3) helpers: elementary rotations, skew/vex, trnorm, oa2r."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from blocksim.robotics.spatial import isrot, oa2r, rotx, roty, rotz, skew, trnorm, vex

RNG = np.random.default_rng(1234)


def test_rotx_printed_values():
    # cos(0.3) = 0.955336489..., sin(0.3) = 0.295520207...
    R = rotx(0.3)
    expected = np.array([[1, 0, 0], [0, 0.95533649, -0.29552021], [0, 0.29552021, 0.95533649]])
    np.testing.assert_allclose(R, expected, atol=5e-9)


@pytest.mark.parametrize(("fn", "axis"), [(rotx, "x"), (roty, "y"), (rotz, "z")])
def test_elementary_rotations_match_scipy(fn, axis):
    for a in (-2.5, -0.3, 0.0, 0.7, np.pi):
        np.testing.assert_allclose(fn(a), Rotation.from_euler(axis, a).as_matrix(), atol=1e-15)


def test_right_handed_quarter_turns():
    ex, ey, ez = np.eye(3)
    np.testing.assert_allclose(rotz(np.pi / 2) @ ex, ey, atol=1e-15)
    np.testing.assert_allclose(rotx(np.pi / 2) @ ey, ez, atol=1e-15)
    np.testing.assert_allclose(roty(np.pi / 2) @ ez, ex, atol=1e-15)


def test_degrees_keyword():
    np.testing.assert_allclose(rotx(30, unit="deg"), rotx(np.pi / 6), atol=1e-15)
    np.testing.assert_allclose(roty(-45, unit="deg"), roty(-np.pi / 4), atol=1e-15)
    np.testing.assert_allclose(rotz(90, unit="deg"), rotz(np.pi / 2), atol=1e-15)
    with pytest.raises(ValueError, match="unit"):
        rotx(1.0, unit="degrees")


def test_skew_is_cross_product_and_vex_inverts():
    for _ in range(20):
        a, b = RNG.normal(size=(2, 3))
        S = skew(a)
        np.testing.assert_allclose(S @ b, np.cross(a, b), atol=1e-14)
        np.testing.assert_array_equal(S, -S.T)
        np.testing.assert_array_equal(vex(S), a)
    np.testing.assert_array_equal(skew([1, 2, 3]), [[0, -3, 2], [3, 0, -1], [-2, 1, 0]])


def test_vex_averages_the_antisymmetric_pairs():
    M = np.arange(9.0).reshape(3, 3)
    np.testing.assert_allclose(vex(M), [0.5 * (7 - 5), 0.5 * (2 - 6), 0.5 * (3 - 1)])


def test_so2_skew_and_vex():
    np.testing.assert_array_equal(skew(2.5), [[0, -2.5], [2.5, 0]])
    np.testing.assert_array_equal(vex(skew(-1.25)), [-1.25])


def test_skew_rejects_wrong_size():
    with pytest.raises(ValueError, match="3 elements"):
        skew([1, 2])
    with pytest.raises(ValueError, match=r"\(3, 3\)"):
        vex(np.eye(4))


def test_trnorm_returns_orthonormal_close_to_input():
    for _ in range(20):
        R = Rotation.random(random_state=RNG).as_matrix()
        noisy = R + 1e-3 * RNG.normal(size=(3, 3))
        Rn = trnorm(noisy)
        assert isrot(Rn, check=True)
        assert np.abs(Rn - R).max() < 1e-2
        # the z axis (approach vector) keeps its direction
        np.testing.assert_allclose(Rn[:, 2], noisy[:, 2] / np.linalg.norm(noisy[:, 2]))


def test_trnorm_transform_and_stack():
    T = np.eye(4)
    T[:3, :3] = rotz(0.4) * 1.01
    T[:3, 3] = (1, 2, 3)
    T[3] = (0.1, 0, 0, 1)
    Tn = trnorm(T)
    np.testing.assert_allclose(Tn[:3, :3], rotz(0.4), atol=1e-15)
    np.testing.assert_array_equal(Tn[:3, 3], (1, 2, 3))
    np.testing.assert_array_equal(Tn[3], (0, 0, 0, 1))
    stack = np.stack([rotx(0.1) * 2, roty(0.2) * 0.5])
    np.testing.assert_allclose(trnorm(stack), [rotx(0.1), roty(0.2)], atol=1e-15)


def test_oa2r_builds_noa_frame():
    R = oa2r([0, 1, 0], [0, 0, 1])
    np.testing.assert_allclose(R, np.eye(3))
    o, a = np.array([1.0, 1.0, 0.2]), np.array([0.0, 0.3, 2.0])
    R = oa2r(o, a)
    assert isrot(R, check=True)
    np.testing.assert_allclose(R[:, 2], a / np.linalg.norm(a))
    np.testing.assert_allclose(R[:, 0], np.cross(o, a) / np.linalg.norm(np.cross(o, a)))
    with pytest.raises(ValueError, match="parallel"):
        oa2r([0, 0, 1], [0, 0, 2])


def test_isrot():
    assert isrot(rotx(1.0), check=True)
    assert not isrot(np.eye(4))
    assert isrot(2 * np.eye(3)) and not isrot(2 * np.eye(3), check=True)
    assert not isrot(np.diag([1.0, 1.0, -1.0]), check=True)
