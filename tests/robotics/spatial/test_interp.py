"""trinterp and angdiff."""

import numpy as np
import pytest

from blocksim.robotics.spatial import (
    angdiff,
    rotx,
    roty,
    rpy2tr,
    tr2angvec,
    transl,
    trinterp,
    trotx,
    trotz,
)


def test_trinterp_endpoints_and_midpoint():
    T0 = transl(1, 2, 3) @ rpy2tr(0.1, 0.2, 0.3)
    T1 = transl(-1, 0, 5) @ rpy2tr(-0.5, 0.4, 2.0)
    np.testing.assert_allclose(trinterp(T0, T1, 0.0), T0, atol=1e-15)
    np.testing.assert_allclose(trinterp(T0, T1, 1.0), T1, atol=1e-15)
    Tm = trinterp(T0, T1, 0.5)
    np.testing.assert_allclose(Tm[:3, 3], [0, 1, 4])
    total = tr2angvec(T0[:3, :3].T @ T1[:3, :3])[0]
    a0 = tr2angvec(T0[:3, :3].T @ Tm[:3, :3])[0]
    a1 = tr2angvec(Tm[:3, :3].T @ T1[:3, :3])[0]
    assert a0 == pytest.approx(total / 2, abs=1e-12)
    assert a1 == pytest.approx(total / 2, abs=1e-12)


def test_trinterp_array_s_and_single_pose_form():
    T1 = transl(2, 0, 0) @ trotz(1.0)
    seq = trinterp(T1, np.linspace(0, 1, 5))
    assert seq.shape == (5, 4, 4)
    for k, s in enumerate(np.linspace(0, 1, 5)):
        np.testing.assert_allclose(seq[k], transl(2 * s, 0, 0) @ trotz(s), atol=1e-15)
    np.testing.assert_allclose(trinterp(T1, 0.5), seq[2])
    # rotations only
    np.testing.assert_allclose(trinterp(rotx(0.2), rotx(1.0), 0.25), rotx(0.4), atol=1e-15)
    with pytest.raises(ValueError, match="trinterp"):
        trinterp(np.eye(4), rotx(1), 0.5)


def test_trinterp_takes_the_short_way():
    # 170 deg -> -170 deg about x: the short way passes through 180 deg, not 0
    T = trinterp(trotx(np.deg2rad(170)), trotx(np.deg2rad(-170)), 0.5)
    np.testing.assert_allclose(T[:3, :3], rotx(np.pi), atol=1e-14)
    np.testing.assert_allclose(trinterp(roty(0.3), roty(0.3), 0.7), roty(0.3), atol=1e-15)


def test_angdiff_wraps_to_half_open_interval():
    assert angdiff(np.pi) == -np.pi
    assert angdiff(-np.pi) == -np.pi
    assert angdiff(3 * np.pi) == pytest.approx(-np.pi)
    assert abs(angdiff(-1e-20)) < 1e-15
    assert angdiff(0.1, 2 * np.pi + 0.3) == pytest.approx(-0.2)
    assert angdiff(np.deg2rad(170), np.deg2rad(-170)) == pytest.approx(np.deg2rad(-20))
    assert isinstance(angdiff(1.0, 0.5), float)
    th = np.linspace(-20, 20, 1001)
    d = angdiff(th)
    assert np.all(d >= -np.pi) and np.all(d < np.pi)
    np.testing.assert_allclose(np.cos(d), np.cos(th), atol=1e-12)
    np.testing.assert_allclose(np.sin(d), np.sin(th), atol=1e-12)
    np.testing.assert_allclose(angdiff(np.array([0.0, 5.0]), 1.0), [-1.0, 4.0 - 2 * np.pi])
    # tiny negative differences must not wrap to +pi
    assert angdiff(np.array([-1e-17]))[0] < np.pi
