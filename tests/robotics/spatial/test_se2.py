"""SE(2) / SO(2) helpers and their inverses."""

import numpy as np
import pytest

from blocksim.robotics.spatial import (
    rot2,
    rot2angle,
    rotz,
    se2,
    se3,
    tr2xyt,
    transl,
    transl2,
    trot2,
)


def test_rot2_and_trot2():
    np.testing.assert_allclose(rot2(np.pi / 2) @ [1, 0], [0, 1], atol=1e-16)
    np.testing.assert_allclose(rot2(30, unit="deg"), rotz(np.pi / 6)[:2, :2], atol=1e-15)
    T = trot2(0.4)
    np.testing.assert_array_equal(T[:2, :2], rot2(0.4))
    np.testing.assert_array_equal(T[:, 2], [0, 0, 1])


def test_transl2_both_directions():
    expected = np.array([[1.0, 0, 2], [0, 1, -3], [0, 0, 1]])
    np.testing.assert_array_equal(transl2(2, -3), expected)
    np.testing.assert_array_equal(transl2([2, -3]), expected)
    np.testing.assert_array_equal(transl2(expected), [2, -3])
    P = np.array([[1.0, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(transl2(transl2(P)), P)
    with pytest.raises(ValueError):
        transl2(np.ones((2, 3)))


def test_se2_forms_and_inverse():
    T = se2(1.0, 2.0, 0.5)
    np.testing.assert_allclose(T, transl2(1, 2) @ trot2(0.5))
    np.testing.assert_array_equal(se2([1.0, 2.0], 0.5), T)
    np.testing.assert_array_equal(se2([1.0, 2.0, 0.5]), T)
    np.testing.assert_array_equal(se2([1.0, 2.0]), transl2(1, 2))
    np.testing.assert_allclose(se2(1, 2, 90, unit="deg"), se2(1, 2, np.pi / 2))
    for th in (-3.0, -0.1, 0.0, 2.0, np.pi):
        np.testing.assert_allclose(tr2xyt(se2(-1.5, 0.25, th)), [-1.5, 0.25, th], atol=1e-15)
    assert rot2angle(rot2(-2.0)) == pytest.approx(-2.0)
    assert rot2angle(trot2(45, unit="deg"), unit="deg") == pytest.approx(45)
    with pytest.raises(ValueError):
        tr2xyt(np.eye(4))


def test_se3_lifts_planar_pose():
    T = se3(se2(1.0, 2.0, 0.3))
    np.testing.assert_allclose(T, transl(1, 2, 0) @ np.block([[rotz(0.3), np.zeros((3, 1))],
                                                              [np.zeros((1, 3)), 1]]))
