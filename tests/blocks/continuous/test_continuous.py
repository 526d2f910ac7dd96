"""Tests of the continuous blocks: Integrator, TransferFunction, StateSpace, Derivative, PID.

Block methods are called directly (values, limits, feedthrough declarations, bad parameters);
dynamics are checked by integrating the blocks' own ``deriv``/``output`` with
:func:`scipy.integrate.solve_ivp` against :func:`scipy.signal.lsim` or closed forms, and, at the
end, through :func:`blocksim.simulate`.
"""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from scipy import signal
from scipy.integrate import solve_ivp

from blocksim.blocks.continuous.calculus import Derivative, Integrator
from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.continuous.pid import PID
from blocksim.engine.block import Block
from blocksim.engine.errors import BlockParameterError


def state(values) -> np.ndarray:
    """``values`` as a float64 view into a larger array, like the engine's state slices."""
    v = np.asarray(values, dtype=float).reshape(-1)
    full = np.zeros(v.size + 4)
    full[2:2 + v.size] = v
    return full[2:2 + v.size]


NOT_READ = (None,)  # an input that must not be read: any arithmetic on None raises TypeError


def reference_deriv(block: Block, t, x, u):
    """The class-level (numpy reference) implementation, bypassing the bound fast kernel."""
    return np.asarray(type(block).deriv(block, t, x, u), dtype=float).reshape(-1)


def reference_output(block: Block, t, x, u):
    return type(block).output(block, t, x, u)


def simulate_block(block: Block, u_of_t, t_eval, x0=None, rtol=1e-10, atol=1e-12):
    """Integrate a single-input block driven by ``u_of_t`` and return its output at t_eval."""
    x0 = block.x0 if x0 is None else x0

    def f(t, x):
        return np.asarray(block.deriv(t, x, (u_of_t(t),)), dtype=float)

    sol = solve_ivp(f, (t_eval[0], t_eval[-1]), x0, t_eval=t_eval, rtol=rtol, atol=atol,
                    method="DOP853")
    assert sol.success
    return np.array([block.output(t, sol.y[:, k], (u_of_t(t),))[0]
                     for k, t in enumerate(sol.t)])


# ================================================================== Integrator
class TestIntegrator:
    def test_scalar_deriv_output_and_declarations(self):
        b = Integrator(x0=1.5)
        assert b.nx == 1
        assert b.state_names == ("x",)
        np.testing.assert_array_equal(b.x0, [1.5])
        assert tuple(b.deriv(0.0, state([2.0]), (-3.0,))) == (-3.0,)
        (y,) = b.output(0.0, state([2.0]), NOT_READ)
        assert y == 2.0 and type(y) is float
        assert b.output_feedthrough() == {"y": ()}
        assert b.inputs[0].shape == () and b.outputs[0].shape == ()
        assert b.params == {"x0": 1.5, "lower": -math.inf, "upper": math.inf}

    def test_vector_state(self):
        b = Integrator(x0=[1.0, 2.0, 3.0])
        assert b.nx == 3
        assert b.state_names == ("x0", "x1", "x2")
        assert b.inputs[0].shape == (3,)
        u = (np.array([0.5, -1.0, 2.0]),)
        np.testing.assert_array_equal(b.deriv(0.0, state([0, 0, 0]), u), [0.5, -1.0, 2.0])
        x = state([4.0, 5.0, 6.0])
        (y,) = b.output(0.0, x, NOT_READ)
        np.testing.assert_array_equal(y, [4.0, 5.0, 6.0])
        assert isinstance(y, np.ndarray) and y.dtype == float
        assert not np.shares_memory(y, x), "output must not be a view of the state"

    def test_one_element_array_gives_vector_signal(self):
        b = Integrator(x0=[0.0])
        (y,) = b.output(0.0, state([2.0]), NOT_READ)
        assert isinstance(y, np.ndarray) and y.shape == (1,)

    def test_matrix_state(self):
        b = Integrator(x0=np.zeros((2, 2)))
        assert b.nx == 4 and b.outputs[0].shape == (2, 2)
        u = (np.array([[1.0, 2.0], [3.0, 4.0]]),)
        np.testing.assert_array_equal(b.deriv(0.0, state(np.zeros(4)), u), [1, 2, 3, 4])
        (y,) = b.output(0.0, state([1, 2, 3, 4]), NOT_READ)
        np.testing.assert_array_equal(y, [[1, 2], [3, 4]])

    def test_scalar_limits(self):
        b = Integrator(x0=0.0, lower=-1.0, upper=2.0)
        d = lambda x, u: tuple(b.deriv(0.0, state([x]), (u,)))  # noqa: E731
        # inside: integrate
        assert d(0.5, 3.0) == (3.0,) and d(0.5, -3.0) == (-3.0,)
        # at / beyond the upper limit: stop when pushed further up, leave when pushed down
        assert d(2.0, 1.0) == (0.0,) and d(2.1, 1.0) == (0.0,)
        assert d(2.0, -1.0) == (-1.0,) and d(2.1, -1.0) == (-1.0,)
        # at / beyond the lower limit
        assert d(-1.0, -1.0) == (0.0,) and d(-1.5, -1.0) == (0.0,)
        assert d(-1.0, 1.0) == (1.0,)
        assert d(2.0, 0.0) == (0.0,)
        out = lambda x: b.output(0.0, state([x]), NOT_READ)[0]  # noqa: E731
        assert out(0.5) == 0.5 and out(2.5) == 2.0 and out(-3.0) == -1.0
        assert type(out(2.5)) is float

    def test_vector_limits_elementwise(self):
        b = Integrator(x0=[0.0, 0.0, 0.0], lower=[-1.0, -2.0, -3.0], upper=1.0)
        x = state([1.0, -2.0, 0.0])
        np.testing.assert_array_equal(b.deriv(0.0, x, (np.array([1.0, -1.0, 5.0]),)),
                                      [0.0, 0.0, 5.0])
        np.testing.assert_array_equal(b.deriv(0.0, x, (np.array([-1.0, 1.0, -5.0]),)),
                                      [-1.0, 1.0, -5.0])
        (y,) = b.output(0.0, state([1.5, -2.5, 0.3]), NOT_READ)
        np.testing.assert_array_equal(y, [1.0, -2.0, 0.3])

    @pytest.mark.parametrize("kwargs", [
        {}, {"lower": -1.0, "upper": 1.0}, {"upper": 0.5}, {"x0": [0.0, 0.2]},
        {"x0": [0.0, 0.2], "lower": -0.1, "upper": [0.1, 0.3]}, {"x0": np.zeros((2, 2))}])
    def test_fast_kernels_match_reference(self, kwargs):
        b = Integrator(**kwargs)
        rng = np.random.default_rng(1)
        shape = np.shape(kwargs.get("x0", 0.0))
        for _ in range(50):
            x = state(rng.uniform(-2, 2, b.nx))
            u = rng.uniform(-2, 2, shape)
            u = (float(u),) if shape == () else (u,)
            np.testing.assert_array_equal(np.asarray(b.deriv(0.0, x, u), float).reshape(-1),
                                          reference_deriv(b, 0.0, x, u))
            np.testing.assert_array_equal(b.output(0.0, x, u)[0],
                                          reference_output(b, 0.0, x, u)[0])

    def test_limited_ramp_stops_at_limit(self):
        b = Integrator(x0=0.0, upper=1.0)
        t = np.linspace(0, 3, 31)
        y = simulate_block(b, lambda t: 1.0, t)
        np.testing.assert_allclose(y, np.minimum(t, 1.0), atol=1e-6)

    @pytest.mark.parametrize(("kwargs", "match"), [
        ({"x0": "a"}, "x0"),
        ({"x0": float("nan")}, "x0.*finite"),
        ({"x0": []}, "at least one element"),
        ({"lower": 1.0, "upper": 0.0}, "lower must be <= upper"),
        ({"x0": 5.0, "upper": 1.0}, "outside the limits"),
        ({"lower": float("nan")}, "NaN"),
        ({"x0": [0.0, 0.0], "upper": [1.0, 2.0, 3.0]}, "broadcastable"),
        ({"x00": 1.0}, "unknown parameter 'x00'.*did you mean 'x0'"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            Integrator(**kwargs)

    def test_errors_name_the_block(self):
        with pytest.raises(BlockParameterError, match=r"^Integrator: "):
            Integrator(lower=1.0, upper=0.0)


# ================================================================== TransferFunction
class TestTransferFunction:
    def test_realisation_is_tf2ss(self):
        num, den = [1.0, 3.0], [2.0, 1.0, 4.0]
        b = TransferFunction(num, den)
        A, B, C, D = signal.tf2ss(num, den)
        for got, want in zip((b.A, b.B, b.C, b.D), (A, B, C, D), strict=True):
            np.testing.assert_allclose(got, want)
        assert b.nx == 2 and b.state_names == ("x0", "x1")
        np.testing.assert_array_equal(b.x0, [0.0, 0.0])

    def test_strictly_proper_has_no_feedthrough_and_never_reads_u(self):
        b = TransferFunction([1.0], [1.0, 2.0, 3.0])
        assert b.output_feedthrough() == {"y": ()}
        (y,) = b.output(0.0, state([0.5, 2.0]), NOT_READ)
        assert type(y) is float
        assert y == pytest.approx(2.0)  # C = [0, 1]

    def test_biproper_has_feedthrough(self):
        b = TransferFunction([2.0, 1.0], [1.0, 3.0])  # 2 + (1 - 6)/(s + 3)
        assert b.output_feedthrough() == {"y": ("u",)}
        (y,) = b.output(0.0, state([1.0]), (0.5,))
        assert y == pytest.approx(-5.0 * 1.0 + 2.0 * 0.5)
        assert type(y) is float

    def test_leading_numerator_zeros_are_ignored(self):
        b = TransferFunction([0.0, 0.0, 1.0], [1.0, 1.0])
        assert b.output_feedthrough() == {"y": ()}
        assert b.nx == 1

    def test_zero_numerator(self):
        b = TransferFunction([0.0], [1.0, 1.0])
        assert b.output(0.0, state([3.0]), NOT_READ) == (0.0,)

    def test_static_gain_has_no_state(self):
        b = TransferFunction([4.0], [2.0])
        assert b.nx == 0
        assert b.output_feedthrough() == {"y": ("u",)}
        assert b.output(0.0, np.zeros(0), (3.0,)) == (6.0,)

    def test_initial_state(self):
        b = TransferFunction([1.0], [1.0, 1.0], x0=[2.0])
        np.testing.assert_array_equal(b.x0, [2.0])
        t = np.linspace(0, 3, 7)
        y = simulate_block(b, lambda t: 0.0, t)
        np.testing.assert_allclose(y, 2.0 * np.exp(-t), rtol=1e-8)

    @pytest.mark.parametrize("tau", [0.1, 1.0, 5.0])
    def test_first_order_lag_step(self, tau):
        b = TransferFunction([1.0], [tau, 1.0])
        t = np.linspace(0, 5 * tau, 51)
        y = simulate_block(b, lambda t: 1.0, t)
        np.testing.assert_allclose(y, 1.0 - np.exp(-t / tau), atol=1e-8)

    def test_second_order_step_closed_form(self):
        wn, zeta = 2.0, 0.25
        b = TransferFunction([wn**2], [1.0, 2 * zeta * wn, wn**2])
        t = np.linspace(0, 10, 201)
        y = simulate_block(b, lambda t: 1.0, t)
        wd = wn * math.sqrt(1 - zeta**2)
        phi = math.acos(zeta)
        y_ref = 1 - np.exp(-zeta * wn * t) / math.sqrt(1 - zeta**2) * np.sin(wd * t + phi)
        np.testing.assert_allclose(y, y_ref, atol=1e-8)

    @pytest.mark.parametrize(("num", "den"), [
        ([1.0], [1.0, 0.5, 2.0]),
        ([1.0, 2.0], [1.0, 3.0, 3.0, 1.0]),
        ([2.0, 0.0, 1.0], [1.0, 1.0, 1.0]),  # biproper
        ([1.0, -1.0], [1.0, 2.0, 3.0, 2.0, 1.0]),  # order 4, non-minimum phase
        ([1.0], [1.0, 6.0, 15.0, 20.0, 15.0, 6.0, 1.0]),  # order 6: loop kernel
    ])
    def test_sine_response_matches_lsim(self, num, den):
        b = TransferFunction(num, den)
        t = np.linspace(0, 10, 2001)
        y = simulate_block(b, np.sin, t)
        _, y_ref, _ = signal.lsim((num, den), np.sin(t), t)
        # lsim interpolates the input linearly between samples: O(dt^2) error
        np.testing.assert_allclose(y, y_ref, atol=1e-5)

    @pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 12, 13, 16, 17, 25])
    @pytest.mark.parametrize("biproper", [False, True])
    def test_fast_kernels_match_reference(self, n, biproper):
        rng = np.random.default_rng(n)
        den = np.concatenate([[1.0], rng.uniform(0.5, 2.0, n)])
        num = rng.uniform(-1.0, 1.0, n + 1 if biproper else n)
        b = TransferFunction(num, den)
        assert b.output_feedthrough() == {"y": ("u",) if biproper else ()}
        for _ in range(5):
            x = state(rng.uniform(-1, 1, n))
            u = (float(rng.uniform(-1, 1)),)
            dx = b.deriv(0.0, x, u)
            np.testing.assert_allclose(np.asarray(dx, float), reference_deriv(b, 0.0, x, u),
                                       rtol=1e-13, atol=1e-13)
            (y,) = b.output(0.0, x, u if biproper else NOT_READ)
            assert type(y) is float
            assert y == pytest.approx(reference_output(b, 0.0, x, u)[0], rel=1e-12, abs=1e-13)

    @pytest.mark.parametrize(("kwargs", "match"), [
        ({"num": [1.0, 2.0, 3.0], "den": [1.0, 2.0]}, "improper.*degree 2 > denominator "
                                                      "degree 1"),
        ({"num": [1.0], "den": [0.0, 1.0]}, r"leading denominator coefficient den\[0\]"),
        ({"num": [1.0], "den": []}, "den is empty"),
        ({"num": [], "den": [1.0, 1.0]}, "num is empty"),
        ({"num": [[1.0], [2.0]], "den": [1.0, 1.0]}, "SISO only"),
        ({"num": [1.0], "den": [1.0, float("inf")]}, "den.*finite"),
        ({"num": "x", "den": [1.0, 1.0]}, "num.*real numbers"),
        ({"num": [1.0], "den": [1.0, 1.0], "x0": [0.0, 0.0]}, "x0 must have 1 element"),
        ({"num": [1.0], "den": [1.0, 1.0], "xo": [0.0]}, "unknown parameter 'xo'"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            TransferFunction(**kwargs)

    def test_errors_name_the_block(self):
        with pytest.raises(BlockParameterError, match=r"^TransferFunction: improper"):
            TransferFunction([1.0, 0.0], [1.0])


# ================================================================== StateSpace
A2 = [[0.0, 1.0], [-2.0, -0.5]]


class TestStateSpace:
    def test_siso_values_and_declarations(self):
        b = StateSpace(A2, [[0.0], [1.0]], [[1.0, 0.0]])
        assert b.nx == 2 and b.state_names == ("x0", "x1")
        assert b.output_feedthrough() == {"y": ()}
        assert b.inputs[0].shape == () and b.outputs[0].shape == ()
        dx = b.deriv(0.0, state([1.0, 2.0]), (3.0,))
        np.testing.assert_allclose(np.asarray(dx, float), [2.0, -2.0 - 1.0 + 3.0])
        (y,) = b.output(0.0, state([1.0, 2.0]), NOT_READ)
        assert y == 1.0 and type(y) is float

    def test_one_dimensional_b_and_c_and_scalar_d(self):
        b = StateSpace(A2, [0.0, 1.0], [1.0, 0.0], D=2.0, x0=[1.0, 0.0])
        assert b.B.shape == (2, 1) and b.C.shape == (1, 2) and b.D.shape == (1, 1)
        assert b.output_feedthrough() == {"y": ("u",)}
        assert b.output(0.0, state([1.0, 0.0]), (0.5,)) == (2.0,)
        np.testing.assert_array_equal(b.x0, [1.0, 0.0])

    def test_scalar_system(self):
        b = StateSpace(-2.0, 1.0, 3.0)
        assert b.nx == 1
        assert tuple(b.deriv(0.0, state([1.0]), (4.0,))) == (2.0,)
        assert b.output(0.0, state([1.0]), NOT_READ) == (3.0,)

    def test_mimo(self):
        B = [[1.0, 0.0], [0.0, 2.0]]
        C = [[1.0, 0.0], [1.0, 1.0], [0.0, 3.0]]
        D = np.zeros((3, 2))
        D[2, 1] = 1.0
        b = StateSpace(A2, B, C, D)
        assert b.inputs[0].shape == (2,) and b.outputs[0].shape == (3,)
        assert b.output_feedthrough() == {"y": ("u",)}
        x, u = state([1.0, 2.0]), (np.array([0.5, -1.0]),)
        np.testing.assert_allclose(b.deriv(0.0, x, u), np.array(A2) @ x + np.array(B) @ u[0])
        (y,) = b.output(0.0, x, u)
        np.testing.assert_allclose(y, np.array(C) @ x + D @ u[0])
        assert y.shape == (3,)

    def test_single_input_multi_output_and_multi_input_single_output(self):
        simo = StateSpace(A2, [[0.0], [1.0]], np.eye(2))
        assert simo.inputs[0].shape == () and simo.outputs[0].shape == (2,)
        np.testing.assert_allclose(simo.deriv(0.0, state([1.0, 2.0]), (1.0,)), [2.0, -2.0])
        np.testing.assert_allclose(simo.output(0.0, state([1.0, 2.0]), NOT_READ)[0], [1, 2])
        miso = StateSpace(A2, np.eye(2), [[1.0, 1.0]], D=[[0.0, 1.0]])
        assert miso.inputs[0].shape == (2,) and miso.outputs[0].shape == ()
        (y,) = miso.output(0.0, state([1.0, 2.0]), (np.array([5.0, 7.0]),))
        assert y == 10.0 and type(y) is float
        simo_d = StateSpace(A2, [[0.0], [1.0]], np.eye(2), D=[[1.0], [0.0]])
        np.testing.assert_allclose(simo_d.output(0.0, state([1.0, 2.0]), (3.0,))[0], [4, 2])

    def test_strict_mimo_never_reads_u(self):
        b = StateSpace(A2, np.eye(2), np.eye(2))
        assert b.output_feedthrough() == {"y": ()}
        np.testing.assert_array_equal(b.output(0.0, state([1.0, 2.0]), NOT_READ)[0], [1, 2])

    @pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7])
    @pytest.mark.parametrize("with_d", [False, True])
    def test_fast_kernels_match_reference(self, n, with_d):
        rng = np.random.default_rng(10 + n)
        A, B, C = rng.normal(size=(n, n)), rng.normal(size=(n, 1)), rng.normal(size=(1, n))
        b = StateSpace(A, B, C, D=[[0.7]] if with_d else None)
        for _ in range(5):
            x = state(rng.normal(size=n))
            u = (float(rng.normal()),)
            np.testing.assert_allclose(np.asarray(b.deriv(0.0, x, u), float),
                                       reference_deriv(b, 0.0, x, u), rtol=1e-13, atol=1e-13)
            (y,) = b.output(0.0, x, u if with_d else NOT_READ)
            assert type(y) is float
            assert y == pytest.approx(reference_output(b, 0.0, x, u)[0], rel=1e-12, abs=1e-13)

    def test_step_response_matches_lsim(self):
        B, C = [[0.0], [1.0]], [[1.0, 0.0]]
        b = StateSpace(A2, B, C)
        t = np.linspace(0, 10, 101)
        y = simulate_block(b, lambda t: 1.0, t)
        _, y_ref, _ = signal.lsim((np.array(A2), B, C, [[0.0]]), np.ones_like(t), t)
        np.testing.assert_allclose(y, y_ref, atol=1e-8)

    def test_mimo_response_matches_lsim(self):
        B = [[1.0, 0.0], [0.0, 2.0]]
        C = [[1.0, 0.0], [1.0, 1.0]]
        D = [[0.0, 0.5], [0.0, 0.0]]
        b = StateSpace(A2, B, C, D, x0=[0.2, -0.1])
        t = np.linspace(0, 8, 161)
        u_of_t = lambda t: np.array([1.0, 0.5])  # noqa: E731
        sol = solve_ivp(lambda t, x: b.deriv(t, x, (u_of_t(t),)), (0, 8), b.x0, t_eval=t,
                        rtol=1e-10, atol=1e-12)
        y = np.array([b.output(tk, sol.y[:, k], (u_of_t(tk),))[0] for k, tk in enumerate(t)])
        U = np.tile([1.0, 0.5], (t.size, 1))
        _, y_ref, _ = signal.lsim((np.array(A2), B, C, D), U, t, X0=[0.2, -0.1])
        np.testing.assert_allclose(y, y_ref, atol=1e-7)

    @pytest.mark.parametrize(("args", "match"), [
        ((np.ones((2, 3)), [[1.0], [1.0]], [[1.0, 0.0]]),
         r"A must be .*square.*got shape \(2, 3\)"),
        (([], [], []), "non-empty square.*Gain"),
        ((A2, [[1.0], [1.0], [1.0]], [[1.0, 0.0]]), r"B must have shape \(n, m\) = \(2, m\).*"
                                                    r"got shape \(3, 1\)"),
        ((A2, [[1.0], [1.0]], [[1.0, 0.0, 0.0]]), r"C must have shape \(p, n\) = \(p, 2\).*"
                                                  r"got shape \(1, 3\)"),
        ((A2, [[1.0], [1.0]], [[1.0, 0.0]], np.zeros((2, 2))), r"D must have shape \(p, m\) = "
                                                              r"\(1, 1\).*got shape \(2, 2\)"),
        ((A2, np.eye(2), np.eye(2), [1.0, 2.0]), r"D must have shape .* = \(2, 2\)"),
        ((A2, [[1.0], [1.0]], [[1.0, 0.0]], None, [1.0, 2.0, 3.0]), r"x0 must have shape \(2,\)"),
        (([[np.nan]], [[1.0]], [[1.0]]), "A.*finite"),
    ])
    def test_bad_parameters(self, args, match):
        with pytest.raises(BlockParameterError, match=match):
            StateSpace(*args)

    def test_errors_name_the_block(self):
        with pytest.raises(BlockParameterError, match=r"^StateSpace: B must"):
            StateSpace(A2, [[1.0]], [[1.0, 0.0]])


# ================================================================== Derivative
class TestDerivative:
    def test_values_and_declarations(self):
        b = Derivative(N=10.0)
        assert b.output_feedthrough() == {"y": ("u",)}
        assert b.state_names == ("z",) and b.nx == 1
        assert tuple(b.deriv(0.0, state([1.0]), (3.0,))) == (20.0,)
        (y,) = b.output(0.0, state([1.0]), (3.0,))
        assert y == 20.0 and type(y) is float

    def test_vector(self):
        b = Derivative(N=2.0, x0=[0.0, 1.0])
        assert b.inputs[0].shape == (2,) and b.state_names == ("z0", "z1")
        u = (np.array([1.0, 1.0]),)
        np.testing.assert_array_equal(b.deriv(0.0, state([0.0, 1.0]), u), [2.0, 0.0])
        np.testing.assert_array_equal(b.output(0.0, state([0.0, 1.0]), u)[0], [2.0, 0.0])

    @pytest.mark.parametrize("x0", [0.3, [0.3, -0.2]])
    def test_fast_kernels_match_reference(self, x0):
        b = Derivative(N=7.0, x0=x0)
        rng = np.random.default_rng(3)
        for _ in range(10):
            x = state(rng.normal(size=b.nx))
            u = rng.normal(size=np.shape(x0))
            u = (float(u),) if np.ndim(x0) == 0 else (u,)
            np.testing.assert_allclose(np.asarray(b.deriv(0.0, x, u), float).reshape(-1),
                                       reference_deriv(b, 0.0, x, u))
            np.testing.assert_allclose(b.output(0.0, x, u)[0], reference_output(b, 0.0, x, u)[0])

    def test_ramp_response(self):
        # u = t:  Y(s) = 1/(s (1 + s/N))  ->  y = 1 - exp(-N t)
        N = 20.0
        b = Derivative(N=N)
        t = np.linspace(0, 1, 51)
        y = simulate_block(b, lambda t: t, t)
        np.testing.assert_allclose(y, 1.0 - np.exp(-N * t), atol=1e-8)

    def test_sine_derivative(self):
        # from rest on u(0) = 0: after the transient (e^{-N t}), y is the sinusoidal steady
        # state of H(jw) = jw / (1 + jw/N), close to cos(t)
        N = 200.0
        b = Derivative(N=N)
        t = np.linspace(0.5, 3, 26)
        y = simulate_block(b, np.sin, np.concatenate([[0.0], t]))[1:]
        H = 1j / (1 + 1j / N)
        np.testing.assert_allclose(y, abs(H) * np.sin(t + np.angle(H)), atol=1e-8)
        np.testing.assert_allclose(y, np.cos(t), atol=1e-2)

    @pytest.mark.parametrize(("kwargs", "match"), [
        ({"N": 0.0}, "'N' must be > 0"),
        ({"N": -1.0}, "'N' must be > 0"),
        ({"N": float("inf")}, "'N' must be finite"),
        ({"x0": np.zeros((2, 2))}, "x0 must be a scalar or a non-empty 1-D"),
        ({"n": 3}, "unknown parameter 'n'"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            Derivative(**kwargs)


# ================================================================== PID
M, C_DAMP, K = 1.0, 0.5, 2.0


def pid_closed_loop(pid: PID, plant: Block, T: float = 10.0, r: float = 1.0):
    """Integrate plant + PID in unity feedback from rest; return the solve_ivp solution."""
    n = plant.nx

    def f(t, s):
        xp, xc = s[:n], s[n:]
        (y,) = plant.output(t, xp, NOT_READ)
        e = r - y
        (u,) = pid.output(t, xc, (e,))
        return [*plant.deriv(t, xp, (u,)), *pid.deriv(t, xc, (e,))]

    sol = solve_ivp(f, (0.0, T), np.concatenate([plant.x0, pid.x0]), rtol=1e-10, atol=1e-12,
                    method="DOP853", dense_output=True)
    assert sol.success
    return sol


class TestPID:
    def test_declarations(self):
        b = PID(Kp=2.0, Ki=1.0, Kd=0.5)
        assert b.output_feedthrough() == {"y": ("e",)}
        assert b.state_names == ("integral", "filter")
        np.testing.assert_array_equal(b.x0, [0.0, 0.0])
        assert [p.name for p in b.inputs] == ["e"] and [p.name for p in b.outputs] == ["y"]

    def test_values(self):
        b = PID(Kp=2.0, Ki=3.0, Kd=0.5, N=10.0)
        x = state([1.0, 0.2])
        (y,) = b.output(0.0, x, (0.6,))
        assert y == pytest.approx(2.0 * 0.6 + 3.0 * 1.0 + 0.5 * 10.0 * (0.6 - 0.2))
        assert type(y) is float
        np.testing.assert_allclose(b.deriv(0.0, x, (0.6,)), [0.6, 10.0 * 0.4])

    def test_output_saturation(self):
        b = PID(Kp=10.0, lower=-1.0, upper=2.0)
        assert b.output(0.0, state([0, 0]), (1.0,)) == (2.0,)
        assert b.output(0.0, state([0, 0]), (-1.0,)) == (-1.0,)
        assert b.output(0.0, state([0, 0]), (0.1,)) == pytest.approx((1.0,))

    def test_anti_windup_clamping(self):
        b = PID(Kp=1.0, Ki=1.0, lower=-1.0, upper=1.0)
        d = lambda xi, e: tuple(b.deriv(0.0, state([xi, 0.0]), (e,)))  # noqa: E731
        assert d(0.0, 0.5) == (0.5, 0.5 * 100.0)  # unsaturated: integrate
        assert d(2.0, 0.5)[0] == 0.0  # v = 2.5 > upper and e pushes up: stop
        assert d(2.0, -0.5)[0] == -0.5  # v = 1.5 > upper but e pulls down: integrate
        assert d(-2.0, -0.5)[0] == 0.0  # v < lower and e pushes down: stop
        assert d(-2.0, 0.5)[0] == 0.5
        # the filter state is never clamped
        assert d(2.0, 0.5)[1] == pytest.approx(50.0)

    def test_anti_windup_negative_ki(self):
        b = PID(Kp=0.0, Ki=-1.0, upper=1.0)
        # v = -1 * (-3) = 3 > upper; e = -1 makes Ki e = 1 > 0 (drives v up): stop
        assert b.deriv(0.0, state([-3.0, 0.0]), (-1.0,))[0] == 0.0
        assert b.deriv(0.0, state([-3.0, 0.0]), (1.0,))[0] == 1.0

    def test_clamp_band_fades_integration(self):
        b = PID(Kp=1.0, Ki=1.0, upper=1.0, lower=-1.0, clamp_band=0.2)
        d = lambda xi, e: b.deriv(0.0, state([xi, 0.0]), (e,))[0]  # noqa: E731
        assert d(0.0, 0.5) == 0.5  # v = 0.5: inside
        assert d(0.55, 0.5) == pytest.approx(0.5 * 0.75)  # v = 1.05: 1/4 into the band
        assert d(0.8, 0.5) == 0.0  # v = 1.3: beyond the band
        assert d(-0.55, -0.5) == pytest.approx(-0.5 * 0.75)
        assert d(0.8, -0.5) == -0.5  # pulled back: no clamp

    def test_saturated_loop_with_clamping(self):
        # integrator plant, saturated PI: the output slides along the upper limit, the integral
        # holds instead of winding up, and the set point is reached with a bounded overshoot.
        # The exact on/off clamp (loose tolerance: its RHS is discontinuous) and a thin band
        # give the same response.
        t = np.linspace(0, 20, 401)
        plant = TransferFunction([1.0], [1.0, 0.0])
        runs = {}
        for band, rtol in ((0.0, 1e-4), (1e-3, 1e-8)):
            pid = PID(Kp=1.0, Ki=2.0, lower=-0.5, upper=0.5, clamp_band=band)
            n = plant.nx

            def f(t, s, pid=pid, n=n):
                (y,) = plant.output(t, s[:n], NOT_READ)
                (u,) = pid.output(t, s[n:], (1.0 - y,))
                return [*plant.deriv(t, s[:n], (u,)), *pid.deriv(t, s[n:], (1.0 - y,))]

            sol = solve_ivp(f, (0, 20), np.zeros(3), rtol=rtol, atol=rtol * 1e-2,
                            dense_output=True)
            assert sol.success
            runs[band] = (sol.sol(t)[0], sol.nfev)
        y_exact, _ = runs[0.0]
        y_band, nfev_band = runs[1e-3]
        np.testing.assert_allclose(y_band, y_exact, atol=2e-3)
        assert nfev_band < 20_000  # (the exact clamp needs ~10^6 at rtol 1e-6)
        assert y_band[-1] == pytest.approx(1.0, abs=1e-3)
        assert 1.1 < y_band.max() < 1.25  # ~1.17; an unclamped integral overshoots more
        # while saturated the plant ramps at the limit rate
        np.testing.assert_allclose(y_band[t <= 0.9], 0.5 * t[t <= 0.9], atol=1e-6)

    @pytest.mark.parametrize("plant_kind", ["tf", "ss"])
    def test_closed_loop_reference_value(self, plant_kind):
        plant = (TransferFunction([1.0], [M, C_DAMP, K]) if plant_kind == "tf" else
                 StateSpace([[0.0, 1.0], [-K / M, -C_DAMP / M]], [[0.0], [1.0 / M]],
                            [[1.0, 0.0]]))
        sol = pid_closed_loop(PID(Kp=10.0, Ki=5.0, Kd=1.0, N=100.0), plant)
        (x10,) = plant.output(10.0, sol.y[:2, -1], NOT_READ)
        assert x10 == pytest.approx(1.000683661, abs=1e-6)

    def test_closed_loop_matches_transfer_function(self):
        # H(s) = Kp + Ki/s + Kd s/(1 + s/N) exactly: compare with the closed loop of H G by lsim
        Kp, Ki, Kd, N = 10.0, 5.0, 1.0, 100.0
        hn = np.polyadd(np.polymul([Kp, Ki], [1.0 / N, 1.0]), [Kd, 0.0, 0.0])
        hd = np.polymul([1.0, 0.0], [1.0 / N, 1.0])
        ln, ld = np.polymul(hn, [1.0]), np.polymul(hd, [M, C_DAMP, K])
        cl_num, cl_den = ln, np.polyadd(ld, ln)
        t = np.linspace(0, 10, 1001)
        _, y_ref = signal.step((cl_num, cl_den), T=t)
        plant = TransferFunction([1.0], [M, C_DAMP, K])
        sol = pid_closed_loop(PID(Kp=Kp, Ki=Ki, Kd=Kd, N=N), plant)
        y = sol.sol(t)[1]  # C = [0, 1] for 1/(s^2 + c s + k) in tf2ss's form
        np.testing.assert_allclose(y, y_ref, atol=1e-7)

    def test_kd_zero_leaves_filter_harmless(self):
        b = PID(Kp=1.0, Ki=0.0, Kd=0.0)
        assert b.output(0.0, state([5.0, 123.0]), (2.0,)) == (2.0,)

    @pytest.mark.parametrize(("kwargs", "match"), [
        ({"N": 0.0}, "'N' must be > 0"),
        ({"Kp": float("nan")}, "'Kp' must be finite"),
        ({"Ki": "big"}, "'Ki' must be a real number"),
        ({"lower": 1.0, "upper": -1.0}, "lower must be <= upper"),
        ({"upper": float("nan")}, "'upper' is NaN"),
        ({"x0": [0.0]}, r"x0 must be \(integral, filter\), 2 elements, got 1"),
        ({"clamp_band": -0.1}, "'clamp_band' must be >= 0"),
        ({"Kpp": 1.0}, "unknown parameter 'Kpp'.*did you mean 'Kp'"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            PID(**kwargs)


# ================================================================== all blocks
ALL_BLOCKS = [
    lambda: Integrator(x0=0.5, lower=-1, upper=1),
    lambda: Integrator(x0=[0.0, 1.0]),
    lambda: TransferFunction([1.0, 2.0], [1.0, 3.0, 2.0]),
    lambda: TransferFunction([1.0], [1.0, 6.0, 15.0, 20.0, 15.0, 6.0, 1.0]),
    lambda: TransferFunction([1.0], [1.0] + [0.5] * 20),
    lambda: StateSpace(A2, [[0.0], [1.0]], [[1.0, 0.0]], [[0.5]]),
    lambda: StateSpace(A2, np.eye(2), np.eye(2)),
    lambda: Derivative(N=5.0),
    lambda: PID(Kp=2.0, Ki=1.0, Kd=0.1, upper=3.0, clamp_band=0.01),
]


@pytest.mark.parametrize("make", ALL_BLOCKS)
def test_pickle_and_deepcopy_keep_behaviour(make):
    b = make()
    rng = np.random.default_rng(0)
    x = state(rng.normal(size=b.nx))
    shape = b.inputs[0].shape
    u = (float(rng.normal()),) if shape == () else (rng.normal(size=shape),)
    for clone in (pickle.loads(pickle.dumps(b)), copy.deepcopy(b)):
        np.testing.assert_equal(clone.params, b.params)
        np.testing.assert_array_equal(np.asarray(clone.deriv(0.0, x, u), float),
                                      np.asarray(b.deriv(0.0, x, u), float))
        np.testing.assert_array_equal(clone.output(0.0, x, u)[0], b.output(0.0, x, u)[0])
        assert clone.deriv.__self__ is clone  # the clone's kernels are bound to the clone


@pytest.mark.parametrize("cls", [Integrator, TransferFunction, StateSpace, Derivative, PID])
def test_docstrings_have_required_sections(cls):
    doc = cls.__doc__
    for section in ("Parameters", "Inputs", "Outputs", "States"):
        assert f"\n    {section}\n    " in doc, f"{cls.__name__} docstring lacks {section}"
    assert ".. math::" in doc


# ================================================================== through the engine
from blocksim import simulate  # noqa: E402 - the engine-level tests below

SOLVERS = ["RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA"]


def _blocks():
    from blocksim.blocks import Constant, Step, Sum

    return Constant, Step, Sum


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize(("num", "den"), [
    ([1.0], [2.0, 1.0]),  # first-order lag, tau = 2
    ([1.0], [1.0, 0.5, 2.0]),  # lightly damped second order
    ([2.0, 1.0, 3.0], [1.0, 2.0, 3.0]),  # biproper: feedthrough
])
def test_transfer_function_step_through_simulate(solver, num, den):
    from blocksim import Diagram

    _, Step, _ = _blocks()
    d = Diagram("tf")
    s = d.add(Step(time=0.5), name="s")
    g = d.add(TransferFunction(num, den), name="g")
    d.connect(s, g)
    res = simulate(d, 8.0, solver=solver, rtol=1e-8, atol=1e-10, record_dt=0.01)
    t, y = res.t, res["g.y"]
    assert y.shape == t.shape
    before = t < 0.5
    np.testing.assert_array_equal(y[before], 0.0)
    after = ~before
    tt = t[after] - 0.5
    _, y_ref, _ = signal.lsim((num, den), np.ones(tt.size), tt)
    np.testing.assert_allclose(y[after], y_ref, atol=2e-6)


@pytest.mark.parametrize("solver", SOLVERS)
def test_pid_closed_loop_through_simulate(solver):
    from blocksim import Diagram

    Constant, _, Sum = _blocks()
    d = Diagram("pid_loop")
    r = d.add(Constant(1.0), name="r")
    e = d.add(Sum("+-"), name="e")
    pid = d.add(PID(Kp=10.0, Ki=5.0, Kd=1.0, N=100.0), name="pid")
    plant = d.add(TransferFunction([1.0], [M, C_DAMP, K]), name="plant")
    d.connect(r, e["u0"])
    d.connect(plant, e["u1"])
    d.connect(e, pid)
    d.connect(pid, plant)
    res = simulate(d, 10.0, solver=solver, rtol=1e-8, atol=1e-10)
    assert res["plant.y"][-1] == pytest.approx(1.000683661, abs=1e-6)
    assert set(res.state_names) == {"pid.integral", "pid.filter", "plant.x0", "plant.x1"}
    # the integral state is the integral of the recorded error e = r - y
    e_int = np.concatenate([[0.0], np.cumsum(np.diff(res.t) * 0.5 * (
        (1.0 - res["plant.y"])[1:] + (1.0 - res["plant.y"])[:-1]))])
    np.testing.assert_allclose(res["pid.integral"], e_int, atol=1e-2)


def test_limited_integrator_and_state_space_through_simulate():
    from blocksim import Diagram

    Constant, _, _ = _blocks()
    d = Diagram("lim")
    c = d.add(Constant(1.0), name="c")
    i = d.add(Integrator(x0=0.0, upper=2.0), name="i")
    ss = d.add(StateSpace([[-1.0]], [[1.0]], [[1.0]]), name="ss")
    d.connect(c, i, ss)
    res = simulate(d, 5.0, rtol=1e-9, atol=1e-12, record_dt=0.5)
    np.testing.assert_allclose(res["i.y"], np.minimum(res.t, 2.0), atol=1e-6)
    np.testing.assert_allclose(res["ss.y"], 1.0 - np.exp(-res.t), atol=1e-7)
    assert res["i.y"].max() <= 2.0
