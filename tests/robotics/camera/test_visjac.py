"""The point-feature image Jacobian against a published example and finite differences.

Published value (Corke, *Robotics, Vision and Control*, §15.2 with the MVTB that goes with RTB
9.10): for ``CentralCamera('default')``, ``cam.visjac_p([672; 672], 5)`` is
``[-160 0 32 32 -832 160; 0 -160 32 832 -32 -160]``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.robotics.camera import CentralCamera, visjac_p, visjac_p_nb
from blocksim.robotics.spatial import rpy2tr, transl, trexp

RNG = np.random.default_rng(7)


def flat(uv: np.ndarray) -> np.ndarray:
    """(2, N) -> [u0, v0, u1, v1, ...]."""
    return uv.T.reshape(-1)


def test_published_example():
    cam = CentralCamera()
    J = cam.visjac_p([672.0, 672.0], 5.0)
    np.testing.assert_allclose(J, [[-160, 0, 32, 32, -832, 160], [0, -160, 32, 832, -32, -160]],
                               rtol=1e-14, atol=1e-12)


def test_principal_point_feature_by_hand():
    # at the principal point x = y = 0: pure 1/Z translation terms and the optical-axis terms
    cam = CentralCamera(f=0.01, rho=(1e-5, 2e-5), pp=(100.0, 50.0), resolution=(200, 100))
    J = visjac_p(cam, np.array([[100.0], [50.0]]), 2.0)
    np.testing.assert_allclose(J, [[-500, 0, 0, 0, -1000, 0], [0, -250, 0, 500, 0, 0]],
                               atol=1e-12)


@pytest.mark.parametrize("k", range(6))
def test_jacobian_equals_finite_difference_of_camera_motion(k):
    """duv ~ J @ delta when the camera moves by T @ trexp(delta), for each twist component."""
    cam = CentralCamera(f=0.012, rho=(9e-6, 11e-6), pp=(600.0, 500.0), resolution=(1200, 1000))
    T = transl(0.3, -0.2, 0.5) @ rpy2tr(0.2, -0.3, 0.4)
    Pc = np.vstack((RNG.uniform(-1, 1, (2, 5)), RNG.uniform(1.5, 4.0, (1, 5))))
    P = T[:3, :3] @ Pc + T[:3, 3:4]
    uv = cam.project(P, T)
    J = cam.visjac_p(uv, cam.depth(P, T))
    assert J.shape == (10, 6)
    h = 1e-6
    delta = np.zeros(6)
    delta[k] = h
    duv = (cam.project(P, T @ trexp(delta)) - cam.project(P, T @ trexp(-delta))) / (2 * h)
    np.testing.assert_allclose(flat(duv), J[:, k], rtol=1e-6, atol=1e-6 * np.abs(J).max())


def test_velocity_in_the_camera_frame():
    """A general twist: the image velocity of a camera moving as T(t) = T0 expm(t [nu])."""
    cam = CentralCamera()
    T = transl(1, 2, -3) @ rpy2tr(0.1, 0.5, -0.4)
    P = T[:3, :3] @ np.array([[0.3, -0.5, 0.1], [0.2, 0.4, -0.6], [2.0, 3.0, 4.0]]) + T[:3, 3:4]
    nu = np.array([0.2, -0.1, 0.3, 0.05, -0.02, 0.1])
    h = 1e-6
    duv = (cam.project(P, T @ trexp(h * nu)) - cam.project(P, T @ trexp(-h * nu))) / (2 * h)
    J = cam.visjac_p(cam.project(P, T), cam.depth(P, T))
    np.testing.assert_allclose(flat(duv), J @ nu, rtol=1e-6, atol=1e-6)


def test_depth_forms_and_layouts_agree():
    cam = CentralCamera()
    uv = np.array([[100.0, 700.0, 512.0], [300.0, 900.0, 100.0]])
    J = cam.visjac_p(uv, 3.0)
    np.testing.assert_array_equal(J, cam.visjac_p(uv, [3.0, 3.0, 3.0]))
    np.testing.assert_array_equal(J, cam.visjac_p(flat(uv), np.array(3.0)))
    Zs = np.array([1.0, 2.0, 4.0])
    Jz = cam.visjac_p(uv, Zs)
    for i in range(3):   # each point's rows are its own single-point Jacobian
        np.testing.assert_array_equal(Jz[2 * i:2 * i + 2], cam.visjac_p(uv[:, i], Zs[i]))
    # columns 3-5 do not depend on depth; columns 0-2 scale with 1/Z
    np.testing.assert_array_equal(Jz[:, 3:], J[:, 3:])
    np.testing.assert_allclose(Jz[:, :3] * np.repeat(Zs, 2)[:, None], J[:, :3] * 3.0,
                               rtol=1e-14)


def test_kernel_is_the_function():
    cam = CentralCamera()
    uv = np.ascontiguousarray(RNG.uniform(0, 1024, (2, 4)))
    Z = RNG.uniform(1, 3, 4)
    np.testing.assert_array_equal(visjac_p_nb(uv, Z, cam.fu, cam.fv, cam.u0, cam.v0),
                                  visjac_p(cam, uv, Z))


def test_errors():
    cam = CentralCamera()
    with pytest.raises(ValueError, match=r"visjac_p: uv: expected image points as columns"):
        cam.visjac_p(np.ones((3, 2)), 1.0)
    with pytest.raises(ValueError, match=r"visjac_p: uv: .* got shape \(3,\)"):
        cam.visjac_p(np.ones(3), 1.0)
    with pytest.raises(ValueError, match=r"visjac_p: Z: expected one depth or 2 depths"):
        cam.visjac_p(np.ones((2, 2)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="one depth per image point"):
        visjac_p_nb(np.ones((2, 2)), np.ones(3), 1.0, 1.0, 0.0, 0.0)
    assert math.isinf(cam.visjac_p([512.0, 512.0], 0.0)[0, 0])
