"""The ImageJacobian and IBVS blocks, and a vision diagram in both back-ends."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant, Integrator
from blocksim.blocks.arm import PoseIntegrator
from blocksim.blocks.vision import IBVS, Camera, ImageJacobian
from blocksim.blocks.vision import kernels as vk
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.camera import CentralCamera
from blocksim.robotics.spatial import rpy2tr, transl, trotz

from .test_camera import check_kernels, names

X = np.zeros(0)
CAM = CentralCamera()
UV = np.array([[672.0, 100.0, 800.0, 500.0], [672.0, 300.0, 900.0, 20.0]])
UV_STAR = np.array([[312.0, 312.0, 712.0, 712.0], [312.0, 712.0, 712.0, 312.0]])
Z = np.array([5.0, 2.0, 3.0, 4.0])


def flat(uv: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(uv.T).reshape(-1)


# ---------------------------------------------------------------------------- ImageJacobian
def test_image_jacobian_ports_and_values():
    b = ImageJacobian()
    assert names(b.inputs) == ["uv", "depth"] and names(b.outputs) == ["jac"]
    assert b.output_feedthrough() == {"jac": ("uv", "depth")}
    (J,) = b.output(0.0, X, (UV, Z))
    assert J.shape == (8, 6)
    np.testing.assert_array_equal(J, CAM.visjac_p(UV, Z))
    # the published example row pair (default camera, (672, 672), Z = 5)
    np.testing.assert_allclose(J[:2], [[-160, 0, 32, 32, -832, 160],
                                       [0, -160, 32, 832, -32, -160]], rtol=1e-14, atol=1e-12)
    # flattened points and a scalar depth
    np.testing.assert_array_equal(b.output(0.0, X, (flat(UV), Z))[0], J)
    np.testing.assert_array_equal(b.output(0.0, X, (UV, 2.5))[0], CAM.visjac_p(UV, 2.5))


def test_image_jacobian_intrinsics_and_from_camera():
    cam = CentralCamera(f=0.01, rho=(1e-5, 2e-5), pp=(100.0, 50.0), resolution=(200, 100))
    b = ImageJacobian.from_camera(cam)
    assert b.params == dict(f=0.01, rho=[1e-5, 2e-5], pp=[100.0, 50.0], resolution=[200, 100])
    np.testing.assert_array_equal(b.output(0.0, X, (UV, Z))[0], cam.visjac_p(UV, Z))


@pytest.mark.parametrize("u", [(UV, Z), (flat(UV), Z), (UV, 2.5)])
def test_image_jacobian_kernel_equals_interpreted(u):
    check_kernels(ImageJacobian(), u)
    assert ImageJacobian().kernels().output is vk.image_jacobian_kernel


# ---------------------------------------------------------------------------- IBVS
def test_ibvs_ports_and_values():
    b = IBVS(UV_STAR, lam=0.5)
    assert names(b.inputs) == ["uv", "depth"] and names(b.outputs) == ["v"]
    assert b.outputs[0].shape == (6,)
    (v,) = b.output(0.0, X, (UV, Z))
    np.testing.assert_array_equal(v, CAM.ibvs_law(UV, UV_STAR, Z, 0.5))
    np.testing.assert_allclose(
        v, -0.5 * np.linalg.pinv(CAM.visjac_p(UV, Z)) @ flat(UV - UV_STAR), rtol=1e-10,
        atol=1e-14)
    np.testing.assert_array_equal(b.output(0.0, X, (flat(UV), Z))[0], v)
    np.testing.assert_array_equal(IBVS(flat(UV_STAR), lam=0.5).output(0.0, X, (UV, Z))[0], v)
    np.testing.assert_array_equal(b.output(0.0, X, (UV_STAR, Z))[0], np.zeros(6))


def test_ibvs_fixed_depth():
    b = IBVS(UV_STAR, lam=2.0, Z=3.0)
    assert names(b.inputs) == ["uv"]
    np.testing.assert_array_equal(b.output(0.0, X, (UV,))[0],
                                  CAM.ibvs_law(UV, UV_STAR, 3.0, 2.0))
    b = IBVS(UV_STAR, lam=2.0, Z=Z)
    np.testing.assert_array_equal(b.output(0.0, X, (UV,))[0], CAM.ibvs_law(UV, UV_STAR, Z, 2.0))
    assert IBVS(UV_STAR).params["lam"] == 0.08


@pytest.mark.parametrize("block, u", [
    (IBVS(UV_STAR, lam=0.5), (UV, Z)),
    (IBVS(UV_STAR, lam=0.5), (flat(UV), Z)),
    (IBVS(UV_STAR, lam=0.5), (UV, 2.5)),
    (IBVS(UV_STAR, lam=0.5, Z=Z), (UV,)),
])
def test_ibvs_kernels_equal_interpreted(block, u):
    check_kernels(block, u)
    assert block.kernels().output is (vk.ibvs_kernel if len(u) == 2
                                      else vk.ibvs_fixed_depth_kernel)


def test_ibvs_point_count_mismatch_raises():
    with pytest.raises(ValueError, match="differ in number"):
        IBVS(UV_STAR).output(0.0, X, (UV[:, :3], 1.0))


@pytest.mark.parametrize("args, kwargs, match", [
    ((np.ones((3, 4)),), {}, r"IBVS: parameter 'uv_star': expected image points"),
    ((UV_STAR,), dict(lam=0.0), r"IBVS: parameter 'lam' must be a positive number"),
    ((UV_STAR,), dict(lam=True), r"IBVS: parameter 'lam'"),
    ((UV_STAR,), dict(Z=[1.0, 2.0]), r"IBVS: parameter 'Z': expected one depth or 4 depths"),
    ((UV_STAR,), dict(Z=-1.0), r"IBVS: parameter 'Z' \(depths\) must be positive"),
    ((UV_STAR,), dict(rho=0.0), r"IBVS: pixel size rho"),
    ((UV_STAR,), dict(gain=1.0), r"IBVS: unknown parameter 'gain'"),
])
def test_ibvs_bad_parameters(args, kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        IBVS(*args, **kwargs)


# ---------------------------------------------------------------------------- diagram
def vision_diagram() -> Diagram:
    """Constant camera pose -> Camera -> (IBVS, ImageJacobian); the IBVS velocity is
    integrated (a displacement, not a pose: enough to exercise both back-ends)."""
    P = np.array([[-0.25, -0.25, 0.25, 0.25], [-0.25, 0.25, 0.25, -0.25], [3.0, 3.0, 3.0, 3.0]])
    d = Diagram("vision")
    pose = d.add(Constant(transl(0.2, 0.1, -1.0) @ trotz(0.3) @ rpy2tr(0.05, -0.02, 0.0)),
                 name="pose")
    cam = d.add(Camera(P=P, flat=True), name="cam")
    ibvs = d.add(IBVS(UV_STAR, lam=1.5), name="ibvs")
    jac = d.add(ImageJacobian(), name="jac")
    acc = d.add(Integrator(x0=np.zeros(6)), name="acc")
    d.connect(pose, cam["pose"])
    d.connect(cam["uv"], ibvs["uv"])
    d.connect(cam["depth"], ibvs["depth"])
    d.connect(cam["uv"], jac["uv"])
    d.connect(cam["depth"], jac["depth"])
    d.connect(ibvs, acc)
    return d


def test_diagram_runs_the_same_in_both_backends():
    a = simulate(vision_diagram(), 1.0, solver="rk4", dt=0.25)
    b = simulate(vision_diagram(), 1.0, solver="rk4", dt=0.25, backend="compiled")
    v = a["ibvs.v"][0]
    assert a["jac.jac"].shape[1:] == (8, 6) and a["cam.uv"].shape[1:] == (8,)
    np.testing.assert_allclose(a.x[-1], v * 1.0, rtol=1e-12)     # constant velocity
    np.testing.assert_allclose(b.x, a.x, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(b["jac.jac"], a["jac.jac"], rtol=1e-14)
    np.testing.assert_allclose(b["ibvs.v"], a["ibvs.v"], rtol=1e-12)


# ---------------------------------------------------------------------------- closed loop
def test_free_flying_ibvs_loop_converges():
    """PoseIntegrator (body frame) -> Camera -> IBVS -> PoseIntegrator: the RVC example."""
    P = np.array([[-0.25, -0.25, 0.25, 0.25], [-0.25, 0.25, 0.25, -0.25], [3.0, 3.0, 3.0, 3.0]])
    lam = 1.5
    d = Diagram("ibvs")
    pose = d.add(PoseIntegrator(x0=transl(1, 1, -3) @ trotz(0.6), frame="body"), name="pose")
    cam = d.add(Camera(P=P), name="cam")
    ibvs = d.add(IBVS(UV_STAR, lam=lam), name="ibvs")
    d.connect(pose, cam["pose"])
    d.connect(cam["uv"], ibvs["uv"])
    d.connect(cam["depth"], ibvs["depth"])
    d.connect(ibvs, pose)
    res = simulate(d, 6.0, solver="rk4", dt=0.02)
    err = np.linalg.norm(res["cam.uv"] - UV_STAR, axis=(1, 2))
    k = np.searchsorted(res.t, [1.0, 2.0])
    np.testing.assert_allclose(err[k] / err[0], np.exp(-lam * res.t[k]), rtol=0.02)
    np.testing.assert_allclose(res["pose.y"][-1], transl(0, 0, 2), atol=1e-3)
