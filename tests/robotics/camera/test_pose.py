"""estpose: camera pose from point correspondences, noise-free and noisy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.robotics.camera import CentralCamera, estpose, refine_pose
from blocksim.robotics.spatial import rpy2tr, transl, trlog

RNG = np.random.default_rng(1234)
CAM = CentralCamera()


def scene(n: int, flatness: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """A random camera pose and n world points 2-6 m in front of it (a slab of relative
    thickness ``flatness``, tilted), as (T, P)."""
    T = transl(*RNG.uniform(-2, 2, 3)) @ rpy2tr(*RNG.uniform(-math.pi, math.pi, 3))
    Pc = np.vstack((RNG.uniform(-1, 1, (2, n)), 4 + flatness * RNG.uniform(-1, 1, (1, n))))
    tilt = rpy2tr(*RNG.uniform(-0.6, 0.6, 3))[:3, :3]
    Pc = tilt @ (Pc - [[0], [0], [4]]) + [[0], [0], [4]]
    return T, T[:3, :3] @ Pc + T[:3, 3:4]


def pose_error(Ta: np.ndarray, Tb: np.ndarray) -> tuple[float, float]:
    """Translation [m] and rotation [rad] distance between two poses."""
    d = np.linalg.inv(Ta) @ Tb
    return float(np.linalg.norm(d[:3, 3])), float(np.linalg.norm(trlog(d, twist=True)[3:]))


@pytest.mark.parametrize("n, flatness", [(4, 0.0), (4, 1.0), (4, 0.02), (5, 1.0), (6, 1.0),
                                         (8, 0.0), (10, 1.0), (10, 0.01)])
def test_noise_free_pose_is_recovered(n, flatness):
    for _ in range(4):
        T, P = scene(n, flatness)
        uv = CAM.project(P, T)
        assert np.all(CAM.depth(P, T) > 1.0)
        Te, rms = estpose(CAM, P, uv, return_error=True)
        np.testing.assert_allclose(Te, T, atol=1e-8)
        assert rms < 1e-6
        np.testing.assert_allclose(Te[:3, :3] @ Te[:3, :3].T, np.eye(3), atol=1e-12)


def test_method_flattened_points_and_rtb_object_pose():
    T, P = scene(6)
    uv = CAM.project(P, T)
    Te = CAM.copy(T=transl(5, 5, 5)).estpose(P, uv.T.reshape(-1))   # own pose ignored
    np.testing.assert_allclose(Te, T, atol=1e-8)
    # RTB's estpose gives the object (world) pose in the camera frame: inv(T)
    np.testing.assert_allclose(np.linalg.inv(Te) @ np.vstack((P, np.ones((1, 6)))),
                               np.linalg.inv(T) @ np.vstack((P, np.ones((1, 6)))), atol=1e-8)


def test_noisy_points_give_an_approximate_pose():
    sigma = 0.5                                      # pixel
    errs = []
    for _ in range(5):
        T, P = scene(12)
        uv = CAM.project(P, T) + sigma * RNG.standard_normal((2, 12))
        Te, rms = estpose(CAM, P, uv, return_error=True)
        dt, dr = pose_error(T, Te)
        errs.append((dt, dr))
        # the fit is at least as good as the truth and about the noise level
        truth = np.sqrt(np.mean(np.sum((CAM.project(P, T) - uv) ** 2, axis=0)))
        assert rms <= truth + 1e-9
        assert 0.2 * sigma < rms < 3 * sigma
    dt, dr = np.max(errs, axis=0)
    assert dt < 0.05 and dr < 0.01     # 4 m away, 0.5 pixel of an 800-pixel focal length
    assert dt > 0.0


def test_refinement_from_a_given_initial_pose():
    T, P = scene(5)
    uv = CAM.project(P, T)
    T0 = T @ transl(0.05, -0.03, 0.1) @ rpy2tr(0.03, -0.02, 0.05)
    np.testing.assert_allclose(estpose(CAM, P, uv, T0=T0), T, atol=1e-8)
    T1, cost = refine_pose(CAM, P, CAM.project(P, T), T0)
    np.testing.assert_allclose(T1, T, atol=1e-8)
    assert cost < 1e-12


def test_errors():
    T, P = scene(6)
    uv = CAM.project(P, T)
    with pytest.raises(ValueError, match="at least 4 correspondences, got 3"):
        estpose(CAM, P[:, :3], uv[:, :3])
    with pytest.raises(ValueError, match="6 world points but 5 image points"):
        estpose(CAM, P, uv[:, :5])
    line = np.outer([1.0, 2.0, 3.0], np.arange(5.0)) + np.array([[0.0], [0.0], [4.0]])
    with pytest.raises(ValueError, match="collinear"):
        estpose(CAM, line, CAM.project(line))
    bad = uv.copy()
    bad[0, 2] = np.nan
    with pytest.raises(ValueError, match="must be finite"):
        estpose(CAM, P, bad)
    with pytest.raises(ValueError, match="estpose: T0"):
        estpose(CAM, P, uv, T0=np.ones((4, 4)))
