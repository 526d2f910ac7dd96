"""CentralCamera: parameters, intrinsic and camera matrices, projection, visibility, depth.

Reference values: Corke, *Robotics, Vision and Control* (the Machine Vision Toolbox examples
that go with RTB 9.10): ``CentralCamera('focal', 0.015, 'pixel', 10e-6, 'resolution',
[1280 1024], 'centre', [640 512])`` projects ``[0.3, 0.4, 3.0]`` to ``(790, 712)`` and, from
the pose ``transl(-0.5, 0, 0)``, to ``(1040, 712)``; its camera matrix is
``[1500 0 640 0; 0 1500 512 0; 0 0 1 0]``. The other numbers are worked out by hand from the
pinhole model.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocksim.robotics.camera import CentralCamera, camera_points_nb, depth
from blocksim.robotics.spatial import rotx, rpy2tr, transl, trotx, troty

RNG = np.random.default_rng(20240608)


def rvc_camera() -> CentralCamera:
    return CentralCamera(f=0.015, rho=10e-6, resolution=(1280, 1024), pp=(640, 512),
                         name="mycamera")


def random_pose() -> np.ndarray:
    return transl(*RNG.uniform(-1, 1, 3)) @ rpy2tr(*RNG.uniform(-math.pi, math.pi, 3))


# ---------------------------------------------------------------------------- parameters
def test_default_camera_is_mvtb_default():
    cam = CentralCamera()
    assert cam.f == 0.008
    np.testing.assert_array_equal(cam.rho, [10e-6, 10e-6])
    assert cam.resolution == (1024, 1024)
    np.testing.assert_array_equal(cam.pp, [512.0, 512.0])
    np.testing.assert_array_equal(cam.T, np.eye(4))
    np.testing.assert_allclose(cam.K, [[800, 0, 512], [0, 800, 512], [0, 0, 1]], rtol=1e-15)
    assert cam.name == "camera"


def test_camera_matrix_and_projection_published_values():
    cam = rvc_camera()
    np.testing.assert_allclose(cam.C(), [[1500, 0, 640, 0], [0, 1500, 512, 0], [0, 0, 1, 0]],
                               rtol=1e-14)
    P = np.array([0.3, 0.4, 3.0])
    np.testing.assert_allclose(cam.project(P), [790.0, 712.0], rtol=1e-14)
    np.testing.assert_allclose(cam.project(P, T=transl(-0.5, 0, 0)), [1040.0, 712.0],
                               rtol=1e-14)
    # the camera's own pose is used when T is not given
    np.testing.assert_allclose(cam.copy(T=transl(-0.5, 0, 0)).project(P), [1040.0, 712.0],
                               rtol=1e-14)


def test_point_on_the_optical_axis_projects_to_the_principal_point():
    cam = CentralCamera(pp=(300.5, 200.25), resolution=(640, 480))
    for _ in range(5):
        T = random_pose()
        d = RNG.uniform(0.5, 10.0)
        P = T[:3, 3] + d * T[:3, 2]          # on the camera's z axis, d in front
        np.testing.assert_allclose(cam.project(P, T), [300.5, 200.25], atol=1e-9)
        assert cam.depth(P, T) == pytest.approx(d, rel=1e-12)


def test_off_axis_point_by_hand():
    # camera at (1, 2, 0) turned by pi about x: its z axis is world -z, its y axis world -y
    cam = CentralCamera()
    T = transl(1, 2, 0) @ trotx(math.pi)
    P = np.array([1.5, 1.0, -2.0])           # camera frame (0.5, 1, 2)
    np.testing.assert_allclose(cam.project(P, T), [800 * 0.25 + 512, 800 * 0.5 + 512],
                               rtol=1e-13)
    assert cam.depth(P, T) == pytest.approx(2.0, rel=1e-14)
    np.testing.assert_allclose(camera_points_nb(P.reshape(3, 1), T)[:, 0], [0.5, 1.0, 2.0],
                               atol=1e-14)


def test_anisotropic_pixels_and_principal_point():
    cam = CentralCamera(f=0.01, rho=(1e-5, 2e-5), pp=(100.0, 50.0), resolution=(200, 100))
    assert (cam.fu, cam.fv) == pytest.approx((1000.0, 500.0))
    np.testing.assert_allclose(cam.project([0.1, -0.2, 2.0]), [1000 * 0.05 + 100,
                                                                500 * -0.1 + 50], rtol=1e-14)


def test_projection_equals_homogeneous_camera_matrix():
    cam = CentralCamera(f=0.012, rho=(9e-6, 11e-6), pp=(700.0, 400.0), resolution=(1400, 800))
    T = random_pose()
    Pc = np.vstack((RNG.uniform(-1, 1, (2, 7)), RNG.uniform(1, 4, (1, 7))))
    P = T[:3, :3] @ Pc + T[:3, 3:4]
    p = cam.C(T) @ np.vstack((P, np.ones((1, 7))))
    uv = cam.project(P, T)
    assert uv.shape == (2, 7)
    np.testing.assert_allclose(uv, p[:2] / p[2], rtol=1e-12)
    np.testing.assert_allclose(cam.depth(P, T), p[2], rtol=1e-12)
    np.testing.assert_allclose(depth(P, T), Pc[2], rtol=1e-12)


def test_points_behind_the_camera_are_nan_and_not_visible():
    cam = CentralCamera()
    P = np.array([[0.1, 0.1, 0.0, 0.0], [0.0, 0.0, 0.0, 5.0], [2.0, -2.0, 0.0, 1.0]])
    uv, vis = cam.project(P, visibility=True)
    assert np.all(np.isfinite(uv[:, 0]))
    assert np.all(np.isnan(uv[:, 1])) and np.all(np.isnan(uv[:, 2]))  # behind, on the plane
    np.testing.assert_array_equal(vis, [True, False, False, False])    # last: outside
    np.testing.assert_array_equal(cam.visible(P), vis)
    np.testing.assert_allclose(cam.depth(P), [2.0, -2.0, 0.0, 1.0])
    # the same point behind a camera turned around is in front
    assert np.all(np.isfinite(cam.project(P[:, 1], T=troty(math.pi))))


def test_visible_checks_the_image_borders():
    cam = CentralCamera(resolution=(640, 480))            # pp (320, 240), fu = fv = 800
    u = np.array([0.0, -0.5, 639.9, 640.0, 320.0, 320.0, 320.0])
    v = np.array([240.0, 240.0, 240.0, 240.0, 0.0, 479.9, 480.0])
    Z = 2.0
    P = np.vstack(((u - 320.0) * Z / 800.0, (v - 240.0) * Z / 800.0, np.full(7, Z)))
    np.testing.assert_allclose(cam.project(P), np.vstack((u, v)), atol=1e-9)
    np.testing.assert_array_equal(cam.visible(P), [True, False, True, False, True, True, False])
    uv, vis = cam.project(P[:, 0], visibility=True)
    assert uv.shape == (2,) and vis is True


def test_fov():
    np.testing.assert_allclose(CentralCamera().fov(), 2 * np.arctan([0.64, 0.64]), rtol=1e-15)
    fov = CentralCamera(resolution=(2000, 1000)).fov()
    assert fov[0] == pytest.approx(2 * math.atan(2000 * 1e-5 / 0.016))
    assert fov[1] == pytest.approx(2 * math.atan(1000 * 1e-5 / 0.016))


# ---------------------------------------------------------------------------- value semantics
def test_camera_is_an_immutable_value():
    cam = CentralCamera(T=transl(1, 2, 3))
    with pytest.raises(AttributeError, match="immutable"):
        cam.f = 0.1
    with pytest.raises(ValueError):
        cam.T[0, 3] = 5.0
    with pytest.raises(ValueError):
        cam.pp[0] = 5.0
    c2 = cam.copy(f=0.016, name="other")
    assert c2.f == 0.016 and c2.name == "other" and cam.f == 0.008
    np.testing.assert_array_equal(c2.T, cam.T)
    assert cam.copy() == cam and c2 != cam
    assert cam.copy(T=transl(1, 2, 3.5)) != cam
    with pytest.raises(TypeError, match="unknown parameter"):
        cam.copy(focal=1.0)
    assert "CentralCamera(f=0.008" in repr(cam)


def test_move_is_relative_to_the_camera_frame():
    cam = CentralCamera(T=trotx(math.pi / 2))
    moved = cam.move(transl(0, 0, 1))                     # 1 m along its optical axis
    np.testing.assert_allclose(moved.T, trotx(math.pi / 2) @ transl(0, 0, 1), atol=1e-15)
    np.testing.assert_allclose(moved.T[:3, 3], rotx(math.pi / 2)[:, 2], atol=1e-15)
    np.testing.assert_array_equal(cam.T, trotx(math.pi / 2))


@pytest.mark.parametrize("kwargs, match", [
    (dict(f=0.0), "focal length f must be a positive"),
    (dict(f=float("nan")), "focal length"),
    (dict(rho=-1e-5), "pixel size rho"),
    (dict(rho=(1e-5, 1e-5, 1e-5)), "pixel size rho"),
    (dict(resolution=(640.5, 480)), "resolution must be two positive integers"),
    (dict(resolution=(0, 480)), "resolution"),
    (dict(pp=(1.0, 2.0, 3.0)), "principal point pp"),
    (dict(T=np.eye(3)), r"T: expected a rigid transform \(4, 4\), got shape \(3, 3\)"),
    (dict(T=2 * np.eye(4)), "SE\\(3\\) matrix"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CentralCamera(**kwargs)


def test_bad_points():
    cam = CentralCamera()
    with pytest.raises(ValueError, match=r"project: P: expected world points as columns"):
        cam.project(np.ones((4, 3)))
    with pytest.raises(ValueError, match="visible: T"):
        cam.visible(np.ones((3, 2)), T=np.ones((4, 4)))
