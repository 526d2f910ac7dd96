"""SecondOrderIntegrator: free flight, impacts with restitution, resting on a stop, kernels."""

import math

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant, SecondOrderIntegrator, Step
from blocksim.blocks.continuous import second_order as so
from blocksim.engine.errors import BlockParameterError

G = 9.81


def ball(e=0.8, h0=10.0, push=None, **kw):
    d = Diagram("ball")
    a = d.add(push if push is not None else Constant(-G), name="a")
    b = d.add(SecondOrderIntegrator(x0=h0, lower=0.0, restitution=e, **kw), name="b")
    d.connect(a, b)
    return d


def test_impacts_follow_the_analytic_sequence():
    res = simulate(ball(), 10.0, rtol=1e-10, atol=1e-12)
    t1, v1 = math.sqrt(2 * 10.0 / G), math.sqrt(2 * G * 10.0)
    expected = [t1]
    for k in range(1, 7):
        expected.append(expected[-1] + 2 * 0.8**k * v1 / G)
    impacts = res.t[(res["b.x"] == 0.0) & (res["b.v"] > 0)]
    np.testing.assert_allclose(impacts, expected, atol=1e-7)
    assert res.stats["nevents"] == 7 and res["b.x"].min() > -1e-9
    first = res.t < t1
    np.testing.assert_allclose(res["b.x"][first], 10.0 - G * res.t[first] ** 2 / 2, atol=1e-8)


def test_a_plastic_stop_holds_the_mass_until_the_input_pulls_it_away():
    push = Step(time=2.0, before=-G, after=5.0)
    res = simulate(ball(e=0.0, h0=1.0, push=push), 3.0, rtol=1e-10, atol=1e-12)
    t_hit = math.sqrt(2 / G)
    resting = (res.t > t_hit + 1e-6) & (res.t <= 2.0)
    assert resting.any() and np.all(res["b.x"][resting] == 0.0)
    assert np.all(res["b.v"][resting] == 0.0)
    after = res.t > 2.0
    np.testing.assert_allclose(res["b.x"][after], 2.5 * (res.t[after] - 2.0) ** 2, atol=1e-8)


def test_the_upper_stop_reflects_too():
    d = Diagram("up")
    a = d.add(Constant(1.0), name="a")
    b = d.add(SecondOrderIntegrator(x0=0.0, upper=0.5, restitution=1.0), name="b")
    d.connect(a, b)
    res = simulate(d, 1.5, rtol=1e-10, atol=1e-12)
    t_hit = 1.0  # x = t^2 / 2 reaches 0.5 at t = 1 with v = 1, then v = -1 and x' ' = 1
    after = res.t > t_hit
    tau = res.t[after] - t_hit
    np.testing.assert_allclose(res["b.x"][after], 0.5 - tau + tau**2 / 2, atol=1e-7)
    assert res.stats["nevents"] == 1


@pytest.mark.parametrize("kwargs,words", [
    (dict(lower=1.0, upper=0.0), "need lower < upper"),
    (dict(x0=2.0, upper=1.0), "within"),
    (dict(restitution=1.5), "restitution must be in"),
    (dict(x0="a"), "must be numbers"),
])
def test_bad_parameters(kwargs, words):
    with pytest.raises(BlockParameterError, match=words):
        SecondOrderIntegrator(**kwargs)


def test_kernels_equal_the_interpreted_methods():
    rng = np.random.default_rng(1)
    for lo, hi in [(0.0, math.inf), (-math.inf, math.inf), (-1.0, 2.0)]:
        b = SecondOrderIntegrator(x0=0.0 if lo <= 0 <= hi else lo, lower=lo, upper=hi,
                                  restitution=0.7)
        p = b.kernels().params
        states = [rng.normal(size=2) for _ in range(20)] + [np.array([lo, 0.0]),
                                                           np.array([hi, 0.0])]
        for x in states:
            x = np.where(np.isfinite(x), x, 0.0)
            for u in (-1.0, 0.0, 2.0):
                assert so.second_order_output(0.0, x, u, p) == b.output(0.0, x, [u])
                assert so.second_order_deriv(0.0, x, u, p) == b.deriv(0.0, x, [u])
                assert so.second_order_crossings(0.0, x, u, p) == b.zero_crossings(0.0, x, [u])
                for which in (0, 1):
                    assert list(so.second_order_on_event(0.0, x, u, p, which)) == \
                        b.on_event(0.0, x, [u], which)


def test_the_compiled_back_end_bounces_the_same():
    opts = dict(rtol=1e-9, atol=1e-12, record_dt=0.05)
    a = simulate(ball(), 5.0, **opts)
    b = simulate(ball(), 5.0, backend="compiled", **opts)
    assert b.stats["backend"] == "compiled" and b.stats["nevents"] == a.stats["nevents"]
    np.testing.assert_allclose(b["b.x"], a["b.x"], atol=1e-6 * 10)
