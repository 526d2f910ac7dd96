"""SE(3) helpers: transl, r2t/t2r/rt2tr/tr2rt, trot*, skewa/vexa, delta2tr/tr2delta."""

import numpy as np
import pytest

from blocksim.robotics.spatial import (
    delta2tr,
    ishomog,
    oa2tr,
    r2t,
    rot2,
    rotx,
    roty,
    rotz,
    rt2tr,
    skew,
    skewa,
    t2r,
    tr2delta,
    tr2rt,
    transl,
    trnorm,
    trotx,
    troty,
    trotz,
    vexa,
)

RNG = np.random.default_rng(99)


def test_transl_create_forms():
    expected = np.eye(4)
    expected[:3, 3] = (1, 2, 3)
    np.testing.assert_array_equal(transl(1, 2, 3), expected)
    np.testing.assert_array_equal(transl([1, 2, 3]), expected)
    np.testing.assert_array_equal(transl(np.array([[1], [2], [3]])), expected)
    P = np.array([[1.0, 2, 3], [4, 5, 6]])
    Ts = transl(P)
    assert Ts.shape == (2, 4, 4)
    np.testing.assert_array_equal(Ts[1][:3, 3], (4, 5, 6))


def test_transl_unpacks_and_round_trips():
    T = trotx(0.3) @ transl(0.5, -1, 2) @ troty(1)
    np.testing.assert_allclose(transl(T), trotx(0.3)[:3, :3] @ [0.5, -1, 2])
    assert transl(T).shape == (3,)
    P = RNG.normal(size=(5, 3))
    np.testing.assert_array_equal(transl(transl(P)), P)
    with pytest.raises(ValueError, match="transl"):
        transl(np.ones((2, 2)))
    with pytest.raises(TypeError):
        transl(1, 2)


def test_trot_are_rotations_with_zero_translation():
    for fn, rfn in ((trotx, rotx), (troty, roty), (trotz, rotz)):
        T = fn(0.7)
        np.testing.assert_array_equal(T[:3, :3], rfn(0.7))
        np.testing.assert_array_equal(T[:3, 3], 0)
        np.testing.assert_array_equal(T[3], (0, 0, 0, 1))
        np.testing.assert_allclose(fn(40, unit="deg"), fn(np.deg2rad(40)), atol=1e-15)


def test_r2t_t2r_rt2tr_tr2rt():
    R = rotx(0.2) @ rotz(-1.0)
    T = r2t(R)
    assert T.shape == (4, 4) and ishomog(T, check=True)
    np.testing.assert_array_equal(t2r(T), R)
    T = rt2tr(R, [1, 2, 3])
    R2, t2 = tr2rt(T)
    np.testing.assert_array_equal(R2, R)
    np.testing.assert_array_equal(t2, (1, 2, 3))
    # SE(2)
    T2 = rt2tr(rot2(0.5), [4, 5])
    assert T2.shape == (3, 3)
    np.testing.assert_array_equal(t2r(T2), rot2(0.5))
    # stacks
    Rs = np.stack([rotx(0.1), roty(0.2), rotz(0.3)])
    ts = np.arange(9.0).reshape(3, 3)
    Ts = rt2tr(Rs, ts)
    assert Ts.shape == (3, 4, 4)
    Rb, tb = tr2rt(Ts)
    np.testing.assert_array_equal(Rb, Rs)
    np.testing.assert_array_equal(tb, ts)
    with pytest.raises(ValueError, match="translation"):
        rt2tr(Rs, [1, 2, 3])


def test_oa2tr():
    T = oa2tr([0, 1, 0], [1, 0, 0])
    np.testing.assert_allclose(T[:3, :3], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], atol=1e-15)
    np.testing.assert_array_equal(T[:3, 3], 0)


def test_skewa_vexa_inverse_and_action():
    for _ in range(10):
        xi = RNG.normal(size=6)
        S = skewa(xi)
        np.testing.assert_array_equal(S[:3, :3], skew(xi[3:]))
        np.testing.assert_array_equal(S[:3, 3], xi[:3])
        np.testing.assert_array_equal(S[3], 0)
        np.testing.assert_array_equal(vexa(S), xi)
        # the velocity of a point p: v + w x p
        p = RNG.normal(size=3)
        np.testing.assert_allclose((S @ np.append(p, 1))[:3], xi[:3] + np.cross(xi[3:], p))
    S2 = skewa([1, 2, 3])
    np.testing.assert_array_equal(S2, [[0, -3, 1], [3, 0, 2], [0, 0, 0]])
    np.testing.assert_array_equal(vexa(S2), [1, 2, 3])
    with pytest.raises(ValueError):
        skewa([1, 2, 3, 4])


def test_delta2tr_first_order_and_exact_inverse():
    d = np.array([0.01, -0.02, 0.03, 0.001, 0.002, -0.003])
    T = delta2tr(d)
    np.testing.assert_allclose(T, np.eye(4) + skewa(d), atol=0)
    np.testing.assert_allclose(tr2delta(T), d, atol=1e-17)
    # a proper small motion: tr2delta approximates to second order
    for scale in (1e-2, 1e-3, 1e-4):
        dd = scale * RNG.normal(size=6)
        Tm = trnorm(delta2tr(dd))
        err = np.abs(tr2delta(Tm) - dd).max()
        assert err < 5 * scale**2


def test_tr2delta_two_poses_world_frame():
    T0 = transl(1, 2, 3) @ trotx(0.4) @ trotz(-1.1)
    w = np.array([1e-4, -2e-4, 3e-4])
    dt = np.array([1e-3, 0.0, -2e-3])
    T1 = np.eye(4)
    T1[:3, :3] = rotx(w[0]) @ roty(w[1]) @ rotz(w[2]) @ T0[:3, :3]  # rotate about world axes
    T1[:3, 3] = T0[:3, 3] + dt
    d = tr2delta(T0, T1)
    np.testing.assert_allclose(d[:3], dt, atol=1e-15)
    np.testing.assert_allclose(d[3:], w, atol=1e-7)
    np.testing.assert_allclose(tr2delta(T0, T0), 0, atol=1e-15)
