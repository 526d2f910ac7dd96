"""The Camera block: ports, parameters, numbers against CentralCamera, kernels."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from blocksim.blocks.vision import Camera
from blocksim.blocks.vision import kernels as vk
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.camera import CentralCamera
from blocksim.robotics.spatial import rpy2tr, transl, trotx

X = np.zeros(0)
P = np.array([[0.3, -0.2, 0.1], [0.4, 0.1, -0.3], [3.0, 2.0, 4.0]])
POSE = transl(0.1, -0.2, 0.3) @ rpy2tr(0.1, -0.05, 0.2)
INTR = dict(f=0.015, rho=10e-6, pp=(640.0, 512.0), resolution=(1280, 1024))
CAM = CentralCamera(**INTR)


def names(ports) -> list[str]:
    return [p.name for p in ports]


def check_kernels(block, u: tuple) -> None:
    """Contract: module-level kernel, flat params of numbers and C float64 arrays; the kernel's
    outputs equal the interpreted outputs exactly (same types and shapes)."""
    k = block.kernels()
    assert isinstance(k, Kernels) and k.deriv is None and k.update is None
    module = sys.modules[k.output.py_func.__module__]
    assert any(v is k.output for v in vars(module).values())
    for p in k.params:
        if isinstance(p, np.ndarray):
            assert p.dtype == np.float64 and p.flags.c_contiguous and p.flags.writeable
        else:
            assert type(p) in (float, int, bool)
    got = k.output(0.0, X, *u, k.params)
    want = block.output(0.0, X, u)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_ports_and_shapes_with_constant_points():
    b = Camera(P=P, **INTR)
    assert names(b.inputs) == ["pose"] and names(b.outputs) == ["uv", "depth"]
    assert b.inputs[0].shape == (4, 4)
    assert [p.shape for p in b.outputs] == [(2, 3), (3,)]
    assert b.output_feedthrough() == {"uv": ("pose",), "depth": ("pose",)}
    assert b.nx == 0
    assert [p.shape for p in Camera(P=P, flat=True).outputs] == [(6,), (3,)]
    assert [p.shape for p in Camera(P=[1.0, 2.0, 3.0]).outputs] == [(2, 1), (1,)]


def test_outputs_are_the_camera_projection_and_depth():
    b = Camera(P=P, **INTR)
    uv, z = b.output(0.0, X, (POSE,))
    np.testing.assert_allclose(uv, CAM.project(P, POSE), rtol=1e-15)
    np.testing.assert_allclose(z, CAM.depth(P, POSE), rtol=1e-15)
    # the published example: (0.3, 0.4, 3) seen from transl(-0.5, 0, 0) -> (1040, 712)
    uv0, z0 = b.output(0.0, X, (transl(-0.5, 0, 0),))
    np.testing.assert_allclose(uv0[:, 0], [1040.0, 712.0], rtol=1e-14)
    assert z0[0] == pytest.approx(3.0)
    # flattened [u0, v0, u1, v1, ...]
    uvf, zf = Camera(P=P, flat=True, **INTR).output(0.0, X, (POSE,))
    np.testing.assert_array_equal(uvf, uv.T.reshape(-1))
    np.testing.assert_array_equal(zf, z)


def test_points_as_an_input():
    b = Camera(**INTR)
    assert names(b.inputs) == ["pose", "points"]
    assert [p.shape for p in b.outputs] == [None, None]
    uv, z = b.output(0.0, X, (POSE, P))
    np.testing.assert_array_equal(uv, Camera(P=P, **INTR).output(0.0, X, (POSE,))[0])
    np.testing.assert_array_equal(z, CAM.depth(P, POSE))
    # non-contiguous, read-only inputs are accepted
    Pt = np.asfortranarray(P)
    pose_ro = POSE.copy()
    pose_ro.flags.writeable = False
    np.testing.assert_array_equal(b.output(0.0, X, (pose_ro, Pt))[0], uv)
    uvf, _ = Camera(flat=True, **INTR).output(0.0, X, (POSE, P))
    np.testing.assert_array_equal(uvf, uv.T.reshape(-1))


def test_points_behind_give_nan():
    b = Camera(P=np.array([[0.0, 0.0], [0.0, 0.0], [1.0, -1.0]]))
    uv, z = b.output(0.0, X, (np.eye(4),))
    np.testing.assert_array_equal(uv[:, 0], [512.0, 512.0])
    assert np.all(np.isnan(uv[:, 1]))
    np.testing.assert_array_equal(z, [1.0, -1.0])
    uv, _ = b.output(0.0, X, (trotx(math.pi),))         # turned around: the other one
    assert np.all(np.isnan(uv[:, 0])) and np.all(np.isfinite(uv[:, 1]))


@pytest.mark.parametrize("kwargs", [dict(P=P), dict(P=P, flat=True), dict(), dict(flat=True)])
def test_kernels_equal_interpreted(kwargs):
    b = Camera(**kwargs, **INTR)
    check_kernels(b, (POSE,) if "P" in kwargs else (POSE, P))
    k = b.kernels().output
    assert k is {(True, False): vk.camera_kernel, (True, True): vk.camera_flat_kernel,
                 (False, False): vk.camera_points_kernel,
                 (False, True): vk.camera_points_flat_kernel}[("P" in kwargs,
                                                                kwargs.get("flat", False))]


def test_params_and_from_camera():
    b = Camera(P=P, **INTR)
    assert b.params == dict(P=P, flat=False, **INTR)
    c = Camera.from_camera(CAM.copy(T=transl(1, 2, 3)), P=P, flat=True)
    assert c.params["f"] == 0.015 and c.params["pp"] == [640.0, 512.0]
    assert c.params["resolution"] == [1280, 1024] and c.params["flat"] is True
    np.testing.assert_array_equal(c.output(0.0, X, (POSE,))[0],
                                  CAM.project(P, POSE).T.reshape(-1))


@pytest.mark.parametrize("kwargs, match", [
    (dict(P=np.ones((2, 3))), r"Camera: parameter 'P': expected world points as columns"),
    (dict(P=[[0.0], [0.0], [np.inf]]), "Camera: parameter 'P' must be finite"),
    (dict(f=-1.0), "Camera: focal length f must be a positive number"),
    (dict(resolution=(10,)), "Camera: resolution must be two positive integers"),
    (dict(flat="yes"), "Camera: parameter 'flat' must be True or False"),
    (dict(focal=0.01), "Camera: unknown parameter 'focal'"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        Camera(**kwargs)
