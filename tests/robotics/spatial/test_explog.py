"""trexp / trlog and their numba kernels, including angles near 0 and pi."""

import numpy as np
import pytest
from scipy.linalg import expm, logm
from scipy.spatial.transform import Rotation

from blocksim.robotics.spatial import (
    rotx,
    roty,
    se3_exp_nb,
    se3_log_nb,
    skew,
    skewa,
    so3_exp_nb,
    so3_log_nb,
    transl,
    trexp,
    trlog,
    trotx,
)

RNG = np.random.default_rng(7)

#: rotation angles that exercise every branch: 0, tiny, the series threshold, generic, near pi
ANGLES = [0.0, 1e-12, 1e-8, 1e-5, 9.9e-3, 1.01e-2, 0.5, 2.0, np.pi - 1e-4, np.pi - 1e-8,
          np.pi - 1e-12, np.pi]


def _unit(v):
    return v / np.linalg.norm(v)


def test_so3_exp_matches_expm():
    for _ in range(30):
        w = RNG.normal(size=3) * RNG.uniform(0, 3)
        np.testing.assert_allclose(trexp(w), expm(skew(w)), atol=1e-14)
        np.testing.assert_allclose(trexp(skew(w)), expm(skew(w)), atol=1e-14)


def test_se3_exp_matches_expm():
    for _ in range(30):
        xi = RNG.normal(size=6) * RNG.uniform(0, 3)
        np.testing.assert_allclose(trexp(xi), expm(skewa(xi)), atol=1e-13)
        np.testing.assert_allclose(trexp(skewa(xi)), expm(skewa(xi)), atol=1e-13)


def test_exp_small_angle_series_is_accurate():
    # the series branch agrees with the closed form across the threshold and with expm
    for th in (1e-9, 1e-4, 9.99e-3, 1.001e-2):
        xi = np.concatenate((RNG.normal(size=3), th * _unit(RNG.normal(size=3))))
        np.testing.assert_allclose(trexp(xi), expm(skewa(xi)), atol=2e-16, rtol=1e-15)


def test_trexp_with_theta_and_pure_translation():
    np.testing.assert_allclose(trexp([1, 0, 0], 0.3), rotx(0.3), atol=1e-15)
    np.testing.assert_allclose(trexp(skew([0, 1, 0]), -1.2), roty(-1.2), atol=1e-15)
    np.testing.assert_allclose(trexp([1, 2, 3, 0, 0, 0], 2.0), transl(2, 4, 6), atol=0)
    # a unit screw about x through the origin with pitch 0.5 m/rad
    T = trexp([0.5, 0, 0, 1, 0, 0], np.pi / 2)
    np.testing.assert_allclose(T, transl(0.25 * np.pi, 0, 0) @ trotx(np.pi / 2), atol=1e-15)
    with pytest.raises(ValueError, match="trexp"):
        trexp(np.ones(4))


@pytest.mark.parametrize("theta", ANGLES)
def test_so3_log_exp_round_trip(theta):
    for _ in range(20):
        u = _unit(RNG.normal(size=3))
        R = Rotation.from_rotvec(theta * u).as_matrix()
        w = trlog(R, twist=True)
        assert np.linalg.norm(w) <= np.pi + 1e-15
        np.testing.assert_allclose(trexp(w), R, atol=2e-15)
        if theta < np.pi - 1e-6:  # away from pi the logarithm is unique
            np.testing.assert_allclose(w, theta * u, atol=1e-14 + 1e-9 * theta)


@pytest.mark.parametrize("theta", ANGLES)
def test_se3_log_exp_round_trip(theta):
    for _ in range(20):
        xi = np.concatenate((RNG.normal(size=3) * 2, theta * _unit(RNG.normal(size=3))))
        T = trexp(xi)
        xi2 = trlog(T, twist=True)
        np.testing.assert_allclose(trexp(xi2), T, atol=1e-14)
        if theta < np.pi - 1e-6:
            np.testing.assert_allclose(xi2, xi, atol=1e-12)


def test_log_matches_scipy_logm_generic():
    for _ in range(10):
        T = trexp(RNG.normal(size=6))
        np.testing.assert_allclose(trlog(T), np.real(logm(T)), atol=1e-10)


def test_log_at_exactly_pi_and_identity():
    for R in (rotx(np.pi), roty(np.pi), np.diag([-1.0, -1.0, 1.0])):
        w = trlog(R, twist=True)
        assert np.linalg.norm(w) == pytest.approx(np.pi, abs=1e-15)
        np.testing.assert_allclose(trexp(w), R, atol=1e-15)
    # a 180 degree turn about a skew axis: (R + I)/2 = u u^T
    u = _unit(np.array([1.0, -2.0, 0.5]))
    R = 2 * np.outer(u, u) - np.eye(3)
    w = trlog(R, twist=True)
    np.testing.assert_allclose(np.abs(w), np.pi * np.abs(u), atol=1e-15)
    np.testing.assert_array_equal(trlog(np.eye(3)), np.zeros((3, 3)))
    np.testing.assert_array_equal(trlog(np.eye(4), twist=True), np.zeros(6))
    np.testing.assert_allclose(trlog(transl(1, 2, 3), twist=True), [1, 2, 3, 0, 0, 0])


def test_trlog_returns_matrices_and_checks_input():
    T = trexp([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    L = trlog(T)
    assert L.shape == (4, 4)
    np.testing.assert_allclose(L, skewa([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), atol=1e-15)
    assert trlog(T[:3, :3]).shape == (3, 3)
    with pytest.raises(ValueError, match="not a rotation"):
        trlog(2 * np.eye(3))
    with pytest.raises(ValueError, match="not a rotation"):
        trlog(np.diag([1.0, 1.0, -1.0]))


def test_kernels_equal_python_facing_functions():
    w = RNG.normal(size=3)
    xi = RNG.normal(size=6)
    np.testing.assert_array_equal(so3_exp_nb(w), trexp(w))
    np.testing.assert_array_equal(se3_exp_nb(xi), trexp(xi))
    R, T = trexp(w), trexp(xi)
    np.testing.assert_array_equal(so3_log_nb(R), trlog(R, twist=True))
    np.testing.assert_array_equal(se3_log_nb(T), trlog(T, twist=True))
