"""mdl_quadrotor's values, derived constants, geometry and the N-rotor variants."""

import math

import numpy as np
import pytest

from blocksim.robotics.aerial import (
    MultirotorModel,
    mdl_hexarotor,
    mdl_octorotor,
    mdl_quadrotor,
    model_by_name,
    multirotor,
)


def test_mdl_quadrotor_has_the_toolbox_values():
    q = mdl_quadrotor()
    assert (q.nrotors, q.g, q.rho, q.muv, q.M) == (4, 9.81, 1.184, 1.5e-5, 4.0)
    np.testing.assert_array_equal(q.J, np.diag([0.082, 0.082, 0.149]))
    assert (q.h, q.d, q.nb, q.r, q.c, q.e) == (-0.007, 0.315, 2, 0.165, 0.018, 0.0)
    assert (q.Mb, q.Mc, q.ec, q.Ct, q.a) == (0.005, 0.010, 0.004, 0.0048, 5.5)
    assert q.thetat == pytest.approx(math.radians(6.8), rel=1e-15)
    assert q.theta0 == pytest.approx(math.radians(14.6), rel=1e-15)


def test_derived_constants_follow_mdl_quadrotor():
    q = mdl_quadrotor()
    Ib = 0.005 * (0.165 - 0.004) ** 2 / 4
    Ic = 0.010 * 0.004**2 / 4
    A = math.pi * 0.165**2
    Cq = 0.0048 * math.sqrt(0.0048 / 2)
    assert q.Ib == pytest.approx(Ib, rel=1e-15) and q.Ic == pytest.approx(Ic, rel=1e-15)
    assert q.mb == pytest.approx(9.81 * (0.010 * 0.004 / 2 + 0.005 * 0.165 / 2), rel=1e-15)
    assert q.Ir == pytest.approx(2 * (Ib + Ic), rel=1e-15)
    assert q.Cq == pytest.approx(Cq, rel=1e-15)
    assert q.sigma == pytest.approx(0.018 * 2 / (math.pi * 0.165), rel=1e-15)
    assert q.theta1 == pytest.approx(math.radians(6.8 - 14.6), rel=1e-12)
    assert q.theta75 == pytest.approx(math.radians(14.6 + 0.75 * (6.8 - 14.6)), rel=1e-12)
    assert q.thetai == math.inf  # e = 0, as upstream (Inf)
    assert q.A == pytest.approx(A, rel=1e-15)
    assert q.gamma == pytest.approx(1.184 * 5.5 * 0.018 * 0.165**4 / (Ib + Ic), rel=1e-14)
    assert q.b == pytest.approx(0.0048 * 1.184 * A * 0.165**2, rel=1e-15)
    assert q.k == pytest.approx(Cq * 1.184 * A * 0.165**3, rel=1e-15)
    # the numbers themselves (hand-checked): b ~ 1.3234e-5 N s^2, hover ~ 861 rad/s
    assert q.b == pytest.approx(1.32336e-5, rel=1e-5)
    assert q.hover_speed() == pytest.approx(860.98, abs=0.01)
    assert q.nrotors * q.b * q.hover_speed() ** 2 == pytest.approx(q.M * q.g, rel=1e-14)


@pytest.mark.parametrize(
    "model, n",
    [(mdl_quadrotor(), 4), (mdl_hexarotor(), 6), (mdl_octorotor(), 8), (multirotor(10), 10)],
)
def test_rotor_geometry_and_spin_directions(model, n):
    assert model.nrotors == n
    D = model.D
    assert D.shape == (3, n)
    np.testing.assert_allclose(np.hypot(D[0], D[1]), model.d, rtol=1e-15)
    np.testing.assert_array_equal(D[2], model.h)
    # rotor 0 on the body x axis, then clockwise seen from above (x forward, y right, z down)
    assert D[0, 0] == model.d and D[1, 0] == 0.0
    assert D[1, 1] > 0.0
    np.testing.assert_array_equal(model.spin, [1.0, -1.0] * (n // 2))
    # the arms are symmetric: their thrust moments cancel at equal speeds
    np.testing.assert_allclose(D[:2].sum(axis=1), 0.0, atol=1e-15)


def test_thrust_torque_matrix_rows():
    q = mdl_quadrotor()
    A = q.thrust_torque_matrix()
    b, k, d = q.b, q.k, q.d
    np.testing.assert_array_equal(
        A, [[b, b, b, b], [0, -b * d, 0, b * d], [b * d, 0, -b * d, 0], [-k, k, -k, k]]
    )


@pytest.mark.parametrize("bad", [3, 5, 2, 0, 4.0, True, "4"])
def test_nrotors_must_be_even_and_at_least_four(bad):
    with pytest.raises(ValueError, match="nrotors must be an even integer >= 4"):
        MultirotorModel(nrotors=bad)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="M must be a positive"):
        MultirotorModel(M=-1.0)
    with pytest.raises(ValueError, match="J must be a symmetric positive definite"):
        MultirotorModel(J=np.diag([1.0, -1.0, 1.0]))


def test_models_by_name_and_dict():
    assert model_by_name("hexarotor").nrotors == 6
    m = model_by_name({"base": "octorotor", "M": 5.0})
    assert (m.nrotors, m.M) == (8, 5.0)
    assert model_by_name({"J": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.2]]}).J[2, 2] == 0.2
    with pytest.raises(ValueError, match="must be one of"):
        model_by_name("tricopter")
    with pytest.raises(ValueError, match=r"unknown model parameter\(s\) \['mass'\]"):
        model_by_name({"mass": 3.0})
    assert (
        MultirotorModel(**{k: v for k, v in mdl_hexarotor().as_dict().items()}).as_dict()
        == mdl_hexarotor().as_dict()
    )
