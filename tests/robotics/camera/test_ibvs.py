"""The IBVS law, its pseudo-inverse, and a closed visual-servo loop.

The loop is the example of Corke, *Robotics, Vision and Control* §15.2.2 (RTB/MVTB ``IBVS``
class): a 0.5 m square of four points in the plane z = 3 (``mkgrid(2, 0.5, 'T',
transl(0, 0, 3))``), the camera starting at ``transl(1, 1, -3) * trotz(0.6)`` and the desired
image a 400-pixel square centred on the principal point
(``200 * [-1 -1 1 1; -1 1 1 -1] + pp``). With the default camera (800 pixels focal length)
the goal is reached with the camera 1 m from the plane, aligned with the world axes:
``transl(0, 0, 2)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.robotics.camera import CentralCamera, ibvs_law, ibvs_nb, pinv_solve_nb
from blocksim.robotics.spatial import transl, trexp, trotz

RNG = np.random.default_rng(99)
CAM = CentralCamera()
P = np.array([[-0.25, -0.25, 0.25, 0.25], [-0.25, 0.25, 0.25, -0.25], [3.0, 3.0, 3.0, 3.0]])
UV_STAR = np.array([[312.0, 312.0, 712.0, 712.0], [312.0, 712.0, 712.0, 312.0]])
T_START = transl(1, 1, -3) @ trotz(0.6)


@pytest.mark.parametrize("shape", [(8, 6), (12, 6), (6, 6), (4, 6), (2, 6)])
def test_pinv_solve_equals_numpy_pinv(shape):
    A = RNG.standard_normal(shape) * np.array([800.0, 800.0, 100.0, 1e3, 1e3, 500.0])
    b = RNG.standard_normal(shape[0])
    x = pinv_solve_nb(A, b)
    np.testing.assert_allclose(x, np.linalg.pinv(A) @ b, rtol=1e-10,
                               atol=1e-12 * np.abs(x).max())


def test_pinv_solve_rank_deficient_is_minimum_norm():
    A = RNG.standard_normal((8, 6))
    A[:, 4] = A[:, 1] - 2.0 * A[:, 3]            # rank 5
    A[:, 5] = 0.0                                # rank 4
    b = RNG.standard_normal(8)
    x = pinv_solve_nb(A, b)
    np.testing.assert_allclose(x, np.linalg.pinv(A) @ b, rtol=1e-9, atol=1e-12)
    assert x[5] == 0.0
    np.testing.assert_array_equal(pinv_solve_nb(np.zeros((4, 6)), b[:4]), np.zeros(6))


def test_law_equals_its_definition():
    uv = UV_STAR + RNG.uniform(-50, 50, (2, 4))
    Z = RNG.uniform(1.0, 3.0, 4)
    lam = 0.7
    e = (uv - UV_STAR).T.reshape(-1)
    J = CAM.visjac_p(uv, Z)
    expected = -lam * np.linalg.pinv(J) @ e
    v = ibvs_law(CAM, uv, UV_STAR, Z, lam)
    assert v.shape == (6,)
    np.testing.assert_allclose(v, expected, rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(CAM.ibvs_law(uv.T.reshape(-1), UV_STAR, Z, lam), v)
    np.testing.assert_array_equal(
        ibvs_nb(uv, UV_STAR, Z, lam, CAM.fu, CAM.fv, CAM.u0, CAM.v0), v)
    # the commanded motion reduces the error at rate lam to first order: J v = -lam e for
    # three points (J square and invertible)
    v3 = ibvs_law(CAM, uv[:, :3], UV_STAR[:, :3], Z[:3], lam)
    np.testing.assert_allclose(CAM.visjac_p(uv[:, :3], Z[:3]) @ v3, -lam * e[:6], rtol=1e-9)


def test_zero_velocity_at_the_goal():
    np.testing.assert_array_equal(ibvs_law(CAM, UV_STAR, UV_STAR, 1.0, 2.0), np.zeros(6))


def servo(T: np.ndarray, lam: float, dt: float, steps: int,
          Z_fixed: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Euler loop T <- T @ trexp(v dt); returns the final pose and |e| at each step."""
    err = np.empty(steps)
    for k in range(steps):
        uv = CAM.project(P, T)
        err[k] = np.linalg.norm(uv - UV_STAR)
        Z = CAM.depth(P, T) if Z_fixed is None else Z_fixed
        T = T @ trexp(ibvs_law(CAM, uv, UV_STAR, Z, lam) * dt)
    return T, err


def test_closed_loop_converges_exponentially_with_exact_depth():
    lam, dt = 1.0, 0.01
    T, err = servo(T_START, lam, dt, 1500)
    np.testing.assert_allclose(T, transl(0, 0, 2), atol=1e-6)
    assert err[-1] < 1e-3 * err[0]
    assert np.all(np.diff(err) < 0)
    # close to exp(-lam t): within 10 % over the first 5 time constants
    k = np.arange(0, 500, 50)
    ratio = err[k] / (err[0] * np.exp(-lam * dt * k))
    assert np.all(np.abs(ratio - 1.0) < 0.1), ratio
    # and the decay rate scales with lam
    _, err2 = servo(T_START, 2.0, dt, 101)
    assert err2[100] / err2[0] == pytest.approx(np.exp(-2.0), rel=0.15)


def test_closed_loop_with_a_constant_depth_estimate():
    T, err = servo(T_START, 1.0, 0.02, 1000, Z_fixed=1.0)   # true depth 6 m -> 1 m
    np.testing.assert_allclose(T, transl(0, 0, 2), atol=1e-5)
    assert err[-1] < 1e-3


def test_errors():
    with pytest.raises(ValueError, match="uv_star has 3 points, uv has 4"):
        ibvs_law(CAM, UV_STAR, UV_STAR[:, :3], 1.0, 1.0)
    with pytest.raises(ValueError, match="lam must be finite"):
        ibvs_law(CAM, UV_STAR, UV_STAR, 1.0, float("nan"))
    with pytest.raises(ValueError, match="differ in number"):
        ibvs_nb(UV_STAR, UV_STAR[:, :3].copy(), np.ones(4), 1.0, 1.0, 1.0, 0.0, 0.0)
