"""PoseIntegrator: exact discrete updates, convergent continuous integration, kernels.

For a constant velocity the exact poses are closed forms of ``trexp``: ``T0 @ trexp(V t)``
(body), ``trexp(V t) @ T0`` (spatial) and ``p0 + v t``, ``exp(skew(w) t) R0`` (world).
"""

from __future__ import annotations

import numpy as np
import pytest

from blocksim import BlockParameterError, Diagram, simulate
from blocksim.blocks.arm import PoseIntegrator
from blocksim.blocks.sources import Constant, Sine
from blocksim.engine.compiled.kernels import Kernels
from blocksim.robotics.spatial import rpy2tr, transl, trexp

T0 = transl(0.5, -0.2, 1.0) @ rpy2tr(0.3, -0.6, 1.2)
V = np.array([0.4, -0.3, 0.2, 0.5, -0.8, 1.1])
FRAMES = ("body", "world", "spatial")


def exact(frame: str, t: float, V=V, T0=T0) -> np.ndarray:
    if frame == "body":
        return T0 @ trexp(V * t)
    if frame == "spatial":
        return trexp(V * t) @ T0
    T = np.eye(4)
    T[:3, :3] = trexp(V[3:] * t) @ T0[:3, :3]
    T[:3, 3] = T0[:3, 3] + V[:3] * t
    return T


def test_initial_pose_states_and_no_feedthrough():
    b = PoseIntegrator(x0=T0)
    assert b.nx == 7 and b.state_names == ("x", "y", "z", "qs", "qx", "qy", "qz")
    assert b.output_feedthrough() == {"y": ()}
    assert not b.is_discrete and PoseIntegrator(clock=0.1).is_discrete
    np.testing.assert_allclose(b.output(0.0, b.x0, (V,))[0], T0, atol=1e-15)
    np.testing.assert_array_equal(PoseIntegrator().output(0.0, PoseIntegrator().x0, (V,))[0],
                                  np.eye(4))
    assert b.params == {"x0": T0, "frame": "body", "clock": None}


@pytest.mark.parametrize("kwargs, match", [
    (dict(frame="tool"), "'frame' must be one of 'body', 'world', 'spatial'"),
    (dict(frame="wrld"), "did you mean 'world'"),
    (dict(x0=np.eye(3)), "x0"),
    (dict(x0=2 * np.eye(4)), "not a rigid transform"),
    (dict(clock=-1.0), "clock"),
])
def test_parameter_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        PoseIntegrator(**kwargs)


def kernels(b: PoseIntegrator) -> Kernels:
    k = b.kernels()
    assert isinstance(k, Kernels)
    assert (k.deriv is None) == b.is_discrete and (k.update is None) == (not b.is_discrete)
    assert type(k.params[0]) is int and all(type(v) is float for v in k.params[1:])
    return k


@pytest.mark.parametrize("frame", FRAMES)
def test_continuous_kernels_equal_the_interpreted_methods(frame):
    b = PoseIntegrator(x0=T0, frame=frame)
    k = kernels(b)
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = np.concatenate((rng.uniform(-2, 2, 3), rng.uniform(-1, 1, 4)))  # |q| != 1 too
        u = np.ascontiguousarray(rng.uniform(-2, 2, 6))
        np.testing.assert_allclose(k.deriv(0.1, x, u, k.params), b.deriv(0.1, x, (u,)),
                                   rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(k.output(0.1, x, u, k.params), b.output(0.1, x, (u,))[0],
                                   rtol=1e-14, atol=1e-15)
        R = b.output(0.1, x, (u,))[0][:3, :3]
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)


@pytest.mark.parametrize("frame", FRAMES)
def test_continuous_deriv_is_the_pose_derivative(frame):
    """d/dt of the output along the state derivative equals dT/dt of the frame's equation."""
    b = PoseIntegrator(x0=T0, frame=frame)
    x = b.x0
    dx = b.deriv(0.0, x, (V,))
    h = 1e-6
    dT = (b.output(0.0, x + h * dx, (V,))[0] - b.output(0.0, x - h * dx, (V,))[0]) / (2 * h)
    np.testing.assert_allclose(dT, (exact(frame, h) - exact(frame, -h)) / (2 * h), atol=1e-8)
    assert np.dot(dx[3:], x[3:]) == pytest.approx(0.0, abs=1e-15)  # norm preserved


@pytest.mark.parametrize("frame", FRAMES)
def test_discrete_update_is_exact_for_a_constant_twist(frame):
    dt = 0.1
    b = PoseIntegrator(x0=T0, frame=frame, clock=dt)
    k = kernels(b)
    assert k.params[2] == dt
    x = b.x0.copy()
    for step in range(1, 31):
        xi = b.update(0.0, x, (V,))
        xk = k.update(0.0, x, V, k.params)
        np.testing.assert_allclose(xk, xi, rtol=1e-14, atol=1e-15)
        x = xi
        assert np.linalg.norm(x[3:]) == pytest.approx(1.0, abs=1e-15)
        T = b.output(0.0, x, (V,))[0]
        np.testing.assert_allclose(k.output(0.0, x, V, k.params), T, atol=1e-15)
        np.testing.assert_allclose(T, exact(frame, step * dt), atol=1e-13)
    # the three meanings differ
    assert not np.allclose(exact("body", 1.0), exact("world", 1.0), atol=1e-3)
    assert not np.allclose(exact("spatial", 1.0), exact("world", 1.0), atol=1e-3)


def test_discrete_body_update_equals_repeated_trexp_products():
    b = PoseIntegrator(x0=T0, clock=0.05)
    rng = np.random.default_rng(11)
    x, T = b.x0.copy(), T0.copy()
    for _ in range(10):
        u = rng.uniform(-3, 3, 6)
        x = b.update(0.0, x, (u,))
        T = T @ trexp(u * 0.05)
        np.testing.assert_allclose(b.output(0.0, x, (u,))[0], T, atol=1e-14)


def constant_twist_diagram() -> Diagram:
    d = Diagram("poses")
    d.add(Constant(V), name="V")
    for frame in FRAMES:
        d.add(PoseIntegrator(x0=T0, frame=frame), name=f"c_{frame}")
        d.add(PoseIntegrator(x0=T0, frame=frame, clock=0.1), name=f"d_{frame}")
        d.connect("V", f"c_{frame}", f"d_{frame}")
    return d


def test_constant_twist_discrete_exact_continuous_converges():
    a = simulate(constant_twist_diagram(), 1.0, "rk4", dt=0.01)
    hits = np.flatnonzero(np.abs(a.t / 0.1 - np.round(a.t / 0.1)) < 1e-9)
    assert len(hits) == 11
    for frame in FRAMES:
        cont, disc = a[f"c_{frame}.y"], a[f"d_{frame}.y"]
        for i, t in enumerate(a.t):
            np.testing.assert_allclose(cont[i], exact(frame, t), atol=1e-9, err_msg=frame)
            k = int(np.floor(t / 0.1 + 1e-9))  # discrete output held since hit k
            np.testing.assert_allclose(disc[i], exact(frame, 0.1 * k), atol=1e-13)
        R = cont[:, :3, :3]
        np.testing.assert_allclose(R @ R.transpose(0, 2, 1),
                                   np.broadcast_to(np.eye(3), R.shape), atol=1e-14)
        q = np.stack([a[f"c_{frame}.q{c}"] for c in "sxyz"], axis=1)
        np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-10)


def varying_twist_diagram() -> Diagram:
    d = Diagram("poses_var")
    d.add(Sine(amplitude=[0.5, 0.2, -0.3, 1.0, 0.4, -0.7], frequency=0.7,
               bias=[0.1, 0.0, 0.2, -0.3, 0.5, 0.0]), name="Vt")
    d.add(PoseIntegrator(x0=T0, frame="body"), name="c_body")
    d.add(PoseIntegrator(frame="world"), name="c_world")
    d.add(PoseIntegrator(frame="spatial", clock=(0.1, 0.05)), name="d_spatial")
    d.connect("Vt", "c_body", "c_world", "d_spatial")
    return d


def test_both_backends_agree():
    a = simulate(varying_twist_diagram(), 1.0, "rk4", dt=0.01)
    b = simulate(varying_twist_diagram(), 1.0, "rk4", dt=0.01, backend="compiled")
    assert b.stats["backend"] == "compiled"
    np.testing.assert_allclose(b.t, a.t, atol=1e-12)
    for name in ("c_body", "c_world", "d_spatial"):
        np.testing.assert_allclose(b[f"{name}.y"], a[f"{name}.y"], rtol=1e-11, atol=1e-12,
                                   err_msg=name)
    np.testing.assert_allclose(b.x, a.x, rtol=1e-11, atol=1e-12)
    d = a["d_spatial.y"]
    # first hit at 0.05 outputs x[0] and updates; x[1] is output from the hit at 0.15
    assert np.array_equal(d[0], np.eye(4)) and np.array_equal(d[14], np.eye(4))
    assert not np.allclose(d[15], np.eye(4))


def test_continuous_converges_with_the_step():
    def err(dt):
        d = Diagram("conv")
        d.add(Constant(V), name="V")
        d.add(PoseIntegrator(x0=T0, frame="body"), name="p")
        d.connect("V", "p")
        r = simulate(d, 2.0, "euler", dt=dt)
        return np.abs(r["p.y"][-1] - exact("body", 2.0)).max()

    e1, e2 = err(0.02), err(0.01)
    assert e2 < 0.6 * e1 and e2 < 0.05  # first order for Euler: halving dt halves the error
