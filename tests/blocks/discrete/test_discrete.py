"""Tests of the discrete blocks: ZOH, UnitDelay, RateTransition, DiscreteIntegrator,
DiscreteTransferFunction, DiscreteStateSpace, DiscretePID, DiscreteDerivative and discretize.

Block methods are called directly and iterated by a hand loop following the engine's semantics
(at hit k: ``y[k] = output(t_k, x[k], u[k])``, then ``x[k+1] = update(t_k, x[k], u[k])``); the
sequences are compared with :func:`scipy.signal.dlsim`, :func:`scipy.signal.cont2discrete` and
independent hand recursions of the documented difference equations. The last section runs
diagrams through :func:`blocksim.simulate` (held outputs between hits).
"""

from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from scipy import signal

from blocksim import Clock, Diagram, simulate
from blocksim.blocks.continuous.calculus import Integrator
from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.discrete.calculus import DiscreteDerivative, DiscreteIntegrator
from blocksim.blocks.discrete.discretization import discretize
from blocksim.blocks.discrete.linear import DiscreteStateSpace, DiscreteTransferFunction
from blocksim.blocks.discrete.pid import DiscretePID
from blocksim.blocks.discrete.sample_hold import ZOH, RateTransition, UnitDelay
from blocksim.blocks.math.arithmetic import Gain
from blocksim.blocks.sources.signals import Constant, Sine, Step
from blocksim.engine.block import Block
from blocksim.engine.errors import BlockParameterError

ALL_BLOCKS = [ZOH, UnitDelay, RateTransition, DiscreteIntegrator, DiscreteTransferFunction,
              DiscreteStateSpace, DiscretePID, DiscreteDerivative]


def state(values) -> np.ndarray:
    """``values`` as a float64 view into a larger array, like the engine's state slices."""
    v = np.asarray(values, dtype=float).reshape(-1)
    full = np.zeros(v.size + 4)
    full[2:2 + v.size] = v
    return full[2:2 + v.size]


NOT_READ = (None,)  # an input that must not be read: any arithmetic on None raises TypeError


def run(block: Block, us, x0=None):
    """Iterate ``block`` over the input sequence ``us`` with the engine's hit semantics.

    Returns the outputs y[0..K-1] (array) and the states x[0..K] (array of shape (K+1, nx)).
    Scalar outputs (port shape ``()``) are checked to be Python floats.
    """
    T = block.clock.period
    x = (block.x0 if x0 is None else np.asarray(x0, dtype=float)).copy()
    ys, xs = [], [x.copy()]
    for k, u in enumerate(us):
        u = float(u) if np.ndim(u) == 0 else np.asarray(u, dtype=float)  # engine signal types
        t = block.clock.offset + k * T
        (y,) = block.output(t, state(x), (u,))
        if block.outputs[0].shape == ():
            assert type(y) is float, f"{type(block).__name__} output {y!r} is not a float"
        ys.append(y)
        if block.nx:
            x = np.asarray(block.update(t, state(x), (u,)), dtype=float).reshape(-1)
            assert x.shape == (block.nx,)
        xs.append(x.copy())
    return np.array(ys), np.array(xs)


def reference_output(block: Block, t, x, u):
    """The class-level (numpy reference) implementation, bypassing the bound fast kernel."""
    return type(block).output(block, t, x, u)


def reference_update(block: Block, t, x, u):
    return np.asarray(type(block).update(block, t, x, u), dtype=float).reshape(-1)


def dlsim_y(num_or_ss, us, T, x0=None):
    """scipy's discrete simulation of a system, output only (flattened for SISO)."""
    sys = (*num_or_ss, T)
    with warnings.catch_warnings():  # leading zeros of a strictly proper numerator
        warnings.simplefilter("ignore", signal.BadCoefficients)
        _, y, *_ = signal.dlsim(sys, np.asarray(us, dtype=float), x0=x0)
    return y[:, 0] if y.shape[1] == 1 else y


RNG = np.random.default_rng(1234)
U_RANDOM = RNG.standard_normal(40)


# ================================================================== clocks (every block)
class TestClock:
    @pytest.mark.parametrize("clock, period, offset",
                             [(0.1, 0.1, 0.0), ((0.2, 0.05), 0.2, 0.05),
                              (Clock(0.5, 0.25), 0.5, 0.25), (1, 1.0, 0.0)])
    def test_clock_forms(self, clock, period, offset):
        b = UnitDelay(clock)
        assert b.clock == Clock(period, offset)
        assert b.is_discrete

    @pytest.mark.parametrize("cls, args", [
        (ZOH, ()), (UnitDelay, ()), (RateTransition, ()), (DiscreteIntegrator, ()),
        (DiscreteDerivative, ()), (DiscreteTransferFunction, ([1.0], [1.0, -0.5]))])
    def test_clock_is_a_required_argument(self, cls, args):
        with pytest.raises(BlockParameterError,
                           match=f"{cls.__name__}: missing a required argument: 'clock'"):
            cls(*args)

    @pytest.mark.parametrize("cls, args", [
        (DiscreteStateSpace, ([[0.5]], [[1.0]], [[1.0]])), (DiscretePID, (1.0, 0.1, 0.0))])
    def test_clock_after_optional_parameters_is_still_required(self, cls, args):
        with pytest.raises(BlockParameterError,
                           match=f"{cls.__name__}: parameter 'clock' is required"):
            cls(*args)

    @pytest.mark.parametrize("bad", [0.0, -0.1, math.inf, "fast", (0.1, -1.0), [1, 2, 3]])
    def test_bad_clock(self, bad):
        with pytest.raises(BlockParameterError, match="ZOH: clock must be a Clock"):
            ZOH(bad)

    @pytest.mark.parametrize("cls", ALL_BLOCKS)
    def test_unknown_keyword_lists_valid_ones(self, cls):
        with pytest.raises(BlockParameterError,
                           match=f"{cls.__name__}: unknown parameter 'period'.*clock"):
            cls(period=0.1)

    def test_blocks_copy_and_pickle(self):
        blocks = [ZOH(0.1), UnitDelay(0.1, x0=[1.0, 2.0]), RateTransition(0.1, delay=True),
                  DiscreteIntegrator(0.1, "trapezoidal", upper=1.0),
                  DiscreteTransferFunction([1.0, 0.5], [1.0, -1.2, 0.35], 0.1),
                  DiscreteStateSpace([[0.5, 0.1], [0.0, 0.8]], [1.0, 0.0], [1.0, 1.0],
                                     clock=0.1),
                  DiscretePID(2.0, 1.0, 0.1, clock=0.1, N=20.0, upper=3.0),
                  DiscreteDerivative(0.1, N=10.0)]
        for b in blocks:
            u = 0.7 if b.inputs[0].shape in ((), None) else np.full(b.inputs[0].shape, 0.7)
            x = state(b.x0 + 0.3)
            for clone in (copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
                assert clone.clock == b.clock
                np.testing.assert_array_equal(clone.output(0.0, x, (u,))[0],
                                              b.output(0.0, x, (u,))[0])
                if b.nx:
                    np.testing.assert_array_equal(clone.update(0.0, x, (u,)),
                                                  b.update(0.0, x, (u,)))


# ================================================================== ZOH
class TestZOH:
    def test_declarations_and_values(self):
        b = ZOH(0.1)
        assert b.nx == 0
        assert b.clock == Clock(0.1)
        assert b.output_feedthrough() == {"y": ("u",)}
        assert b.params == {"clock": 0.1}
        (y,) = b.output(0.0, state([]), (2.5,))
        assert y == 2.5 and type(y) is float

    def test_numpy_scalar_and_int_become_float(self):
        b = ZOH(0.1)
        for v in (np.float64(1.5), 3, np.array(2.0)):
            (y,) = b.output(0.0, state([]), (v,))
            assert type(y) is float and y == float(v)

    def test_vector_is_copied(self):
        u = np.array([1.0, -2.0, 3.0])
        (y,) = ZOH(0.1).output(0.0, state([]), (u,))
        np.testing.assert_array_equal(y, u)
        assert y is not u and not np.shares_memory(y, u)

    def test_samples_at_hits(self):
        us = np.sin(np.arange(10))
        ys, _ = run(ZOH(0.1), us)
        np.testing.assert_array_equal(ys, us)


# ================================================================== UnitDelay
class TestUnitDelay:
    def test_scalar_declarations(self):
        b = UnitDelay(0.1, x0=1.5)
        assert b.nx == 1 and b.state_names == ("x",)
        assert b.output_feedthrough() == {"y": ()}
        assert b.inputs[0].shape == () and b.outputs[0].shape == ()
        (y,) = b.output(0.0, state([2.0]), NOT_READ)
        assert y == 2.0 and type(y) is float
        assert tuple(b.update(0.0, state([2.0]), (-3.0,))) == (-3.0,)

    def test_sequence_is_delayed_by_one_sample(self):
        ys, _ = run(UnitDelay(0.1, x0=7.0), U_RANDOM)
        np.testing.assert_array_equal(ys, np.r_[7.0, U_RANDOM[:-1]])

    def test_equals_dlsim_of_one_over_z(self):
        ys, _ = run(UnitDelay(0.1), U_RANDOM)
        np.testing.assert_allclose(ys, dlsim_y(([1.0], [1.0, 0.0]), U_RANDOM, 0.1), atol=1e-15)

    @pytest.mark.parametrize("x0", [[1.0, 2.0, 3.0], [[1.0, 2.0], [3.0, 4.0]], [5.0]])
    def test_array_state(self, x0):
        b = UnitDelay(0.1, x0=x0)
        shape = np.shape(x0)
        assert b.inputs[0].shape == shape and b.outputs[0].shape == shape
        assert b.state_names == tuple(f"x{i}" for i in range(np.size(x0)))
        x = state(np.ravel(x0))
        (y,) = b.output(0.0, x, NOT_READ)
        assert y.shape == shape
        np.testing.assert_array_equal(y, x0)
        assert not np.shares_memory(y, x)
        u = np.full(shape, 9.0)
        np.testing.assert_array_equal(b.update(0.0, x, (u,)), np.full(np.size(x0), 9.0))

    @pytest.mark.parametrize("x0", [0.5, [1.0, -1.0]])
    def test_kernels_match_reference(self, x0):
        b = UnitDelay(0.1, x0=x0)
        x = state(np.ravel(x0) * 3)
        u = 0.25 if np.ndim(x0) == 0 else np.array([0.25, 0.5])
        np.testing.assert_array_equal(b.output(0.0, x, (u,))[0], reference_output(b, 0, x, (u,))[0])
        np.testing.assert_array_equal(np.ravel(b.update(0.0, x, (u,))),
                                      reference_update(b, 0.0, x, (u,)))

    @pytest.mark.parametrize("kwargs, match", [
        (dict(x0=[]), "UnitDelay: parameter 'x0' must be a scalar or a non-empty array"),
        (dict(x0="a"), "UnitDelay: parameter 'x0' must be an array of real numbers"),
        (dict(x0=math.nan), "UnitDelay: parameter 'x0' must be finite"),
        (dict(x0=np.zeros((2, 2, 2))), r"got shape \(2, 2, 2\)"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            UnitDelay(0.1, **kwargs)


# ================================================================== RateTransition
class TestRateTransition:
    def test_default_is_sample_and_hold(self):
        b = RateTransition((0.5, 0.1))
        assert b.nx == 0 and not b.delay
        assert b.clock == Clock(0.5, 0.1)
        assert b.output_feedthrough() == {"y": ("u",)}
        (y,) = b.output(0.0, state([]), (1.25,))
        assert y == 1.25 and type(y) is float
        u = np.array([1.0, 2.0])
        (y,) = b.output(0.0, state([]), (u,))
        np.testing.assert_array_equal(y, u)
        assert y is not u

    def test_delay_is_a_unit_delay(self):
        b = RateTransition(0.1, delay=True, x0=4.0)
        assert b.nx == 1
        assert b.output_feedthrough() == {"y": ()}
        (y,) = b.output(0.0, state([3.0]), NOT_READ)
        assert y == 3.0 and type(y) is float
        ys, _ = run(b, U_RANDOM)
        np.testing.assert_array_equal(ys, np.r_[4.0, U_RANDOM[:-1]])

    def test_delay_default_initial_output_and_vector(self):
        assert RateTransition(0.1, delay=True).x0.tolist() == [0.0]
        b = RateTransition(0.1, delay=True, x0=[1.0, 2.0])
        assert b.inputs[0].shape == (2,)
        (y,) = b.output(0.0, state([5.0, 6.0]), NOT_READ)
        np.testing.assert_array_equal(y, [5.0, 6.0])
        np.testing.assert_array_equal(
            reference_output(b, 0.0, state([5.0, 6.0]), NOT_READ)[0], [5.0, 6.0])

    @pytest.mark.parametrize("kwargs, match", [
        (dict(x0=1.0), "RateTransition: parameter 'x0' applies only with delay=True"),
        (dict(delay="yes"), "RateTransition: parameter 'delay' must be True or False"),
        (dict(delay=True, x0=[]), "RateTransition: parameter 'x0' must be a scalar"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            RateTransition(0.1, **kwargs)


# ================================================================== DiscreteIntegrator
def integrator_recursion(method, K, T, x0, us, lower=-math.inf, upper=math.inf):
    """Hand recursion of Simulink's discrete-time integrator equations."""
    def sat(v):
        return min(max(v, lower), upper)

    x, ys = x0, []
    for u in us:
        if method == "forward":
            y = x
            x = sat(x + K * T * u)
        elif method == "backward":
            y = sat(x + K * T * u)
            x = y
        else:
            y = sat(x + K * T / 2 * u)
            x = sat(y + K * T / 2 * u)
        ys.append(y)
    return np.array(ys)


class TestDiscreteIntegrator:
    @pytest.mark.parametrize("method, ft", [("forward", ()), ("backward", ("u",)),
                                            ("trapezoidal", ("u",))])
    def test_declarations(self, method, ft):
        b = DiscreteIntegrator(0.1, method, x0=2.0)
        assert b.nx == 1 and b.state_names == ("x",)
        assert b.output_feedthrough() == {"y": ft}
        assert b.inputs[0].shape == () and b.outputs[0].shape == ()
        assert b.params == {"clock": 0.1, "method": method, "K": 1.0, "x0": 2.0,
                            "lower": -math.inf, "upper": math.inf}

    def test_forward_output_never_reads_u(self):
        for kw in ({}, dict(lower=-1.0, upper=5.0)):
            b = DiscreteIntegrator(0.1, **kw)
            assert b.output(0.0, state([2.0]), NOT_READ) == (2.0,)

    def test_zero_gain_backward_has_no_feedthrough(self):
        b = DiscreteIntegrator(0.1, "backward", K=0.0)
        assert b.output_feedthrough() == {"y": ()}
        assert b.output(0.0, state([2.0]), NOT_READ) == (2.0,)

    @pytest.mark.parametrize("method, num, den", [
        ("forward", lambda KT: [KT], [1.0, -1.0]),
        ("backward", lambda KT: [KT, 0.0], [1.0, -1.0]),
        ("trapezoidal", lambda KT: [KT / 2, KT / 2], [1.0, -1.0]),
    ])
    def test_transfer_functions(self, method, num, den):
        K, T = 2.5, 0.05
        ys, _ = run(DiscreteIntegrator(T, method, K=K), U_RANDOM)
        np.testing.assert_allclose(ys, dlsim_y((num(K * T), den), U_RANDOM, T), atol=1e-12)

    @pytest.mark.parametrize("method", ["forward", "backward", "trapezoidal"])
    def test_matches_hand_recursion_with_offset_clock(self, method):
        ys, _ = run(DiscreteIntegrator((0.2, 0.05), method, K=-1.5, x0=0.3), U_RANDOM)
        np.testing.assert_allclose(ys, integrator_recursion(method, -1.5, 0.2, 0.3, U_RANDOM),
                                   rtol=0, atol=1e-13)

    def test_constant_input_ramps(self):
        ys, _ = run(DiscreteIntegrator(0.1, "forward", x0=1.0), [2.0] * 5)
        np.testing.assert_allclose(ys, 1.0 + 0.2 * np.arange(5), atol=1e-14)
        ys, _ = run(DiscreteIntegrator(0.1, "backward"), [2.0] * 5)
        np.testing.assert_allclose(ys, 0.2 * np.arange(1, 6), atol=1e-14)
        ys, _ = run(DiscreteIntegrator(0.1, "trapezoidal"), [2.0] * 5)
        np.testing.assert_allclose(ys, 0.1 + 0.2 * np.arange(5), atol=1e-14)

    @pytest.mark.parametrize("method", ["forward", "backward", "trapezoidal"])
    def test_limits_saturate_state_and_output(self, method):
        us = np.r_[np.full(10, 3.0), np.full(10, -3.0), np.full(5, 1.0)]
        b = DiscreteIntegrator(0.1, method, lower=-0.5, upper=0.7)
        ys, xs = run(b, us)
        np.testing.assert_allclose(
            ys, integrator_recursion(method, 1.0, 0.1, 0.0, us, -0.5, 0.7), atol=1e-13)
        assert ys.max() == 0.7 and ys.min() == -0.5
        assert xs.max() <= 0.7 and xs.min() >= -0.5
        # leaves the lower limit as soon as the input reverses: no windup
        assert ys[-1] > -0.5

    def test_vector_with_elementwise_limits(self):
        b = DiscreteIntegrator(0.1, "backward", x0=[0.0, 0.0, 0.0], lower=[-1.0, -0.1, -1.0],
                               upper=[1.0, 0.1, 0.05])
        assert b.inputs[0].shape == (3,) and b.state_names == ("x0", "x1", "x2")
        us = [np.array([1.0, 1.0, 1.0])] * 5
        ys, _ = run(b, us)
        assert ys.shape == (5, 3)
        np.testing.assert_allclose(ys[:, 0], 0.1 * np.arange(1, 6), atol=1e-14)
        np.testing.assert_allclose(ys[:, 1], [0.1] * 5)
        np.testing.assert_allclose(ys[:, 2], [0.05] * 5)

    def test_matrix_state(self):
        b = DiscreteIntegrator(0.5, x0=np.eye(2))
        (y,) = b.output(0.0, state([1.0, 0.0, 0.0, 1.0]), NOT_READ)
        np.testing.assert_array_equal(y, np.eye(2))
        np.testing.assert_allclose(b.update(0.0, state([1.0, 0.0, 0.0, 1.0]), (np.ones((2, 2)),)),
                                   [1.5, 0.5, 0.5, 1.5])

    @pytest.mark.parametrize("method", ["forward", "backward", "trapezoidal"])
    @pytest.mark.parametrize("limits", [{}, dict(lower=-0.2, upper=0.3)])
    @pytest.mark.parametrize("x", [-0.1, 0.0, 0.25])
    @pytest.mark.parametrize("u", [-4.0, 0.5, 3.0])
    def test_scalar_kernels_match_reference(self, method, limits, x, u):
        b = DiscreteIntegrator(0.1, method, K=0.7, **limits)
        xs = state([x])
        assert b.output(0.0, xs, (u,)) == reference_output(b, 0.0, xs, (u,))
        assert type(b.output(0.0, xs, (u,))[0]) is float
        np.testing.assert_array_equal(np.ravel(b.update(0.0, xs, (u,))),
                                      reference_update(b, 0.0, xs, (u,)))

    @pytest.mark.parametrize("kwargs, match", [
        (dict(method="foward"), r"DiscreteIntegrator: parameter 'method' must be one of "
                                r"'forward', 'backward', 'trapezoidal', got 'foward' "
                                r"\(did you mean 'forward'\?\)"),
        (dict(method=1), "parameter 'method' must be one of .* got 1$"),
        (dict(K=math.nan), "DiscreteIntegrator: parameter 'K' must be finite"),
        (dict(K="big"), "DiscreteIntegrator: parameter 'K' must be a real number"),
        (dict(lower=1.0, upper=0.0), "DiscreteIntegrator: parameter 'lower' must be <= 'upper'"),
        (dict(x0=2.0, upper=1.0), "DiscreteIntegrator: x0=2.0 is outside the limits"),
        (dict(lower=math.nan), "must not be NaN"),
        (dict(x0=[0.0, 0.0], upper=[1.0, 2.0, 3.0]), "broadcastable to the shape of x0"),
        (dict(x0=[]), "parameter 'x0' must be a scalar or a non-empty array"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            DiscreteIntegrator(0.1, **kwargs)


# ================================================================== DiscreteTransferFunction
TF_CASES = [
    ([1.0], [1.0, -0.5]),                                   # first order, strictly proper
    ([0.5, 0.2], [1.0, -1.2, 0.35]),                        # second order
    ([2.0, -1.0, 0.3], [1.0, -0.6, 0.08]),                  # biproper
    ([1.0, 0.0, 0.0, 0.1], [2.0, -1.0, 0.3, -0.05, 0.01]),  # den[0] != 1, order 4
    ([1.0, 2.0], np.poly([0.5, -0.3, 0.2, 0.1, 0.6])),     # order 5: numpy update
    ([1.0], np.poly(np.linspace(-0.8, 0.8, 13))),           # order 13: numpy output too
]


class TestDiscreteTransferFunction:
    def test_realisation_is_tf2ss(self):
        b = DiscreteTransferFunction([0.5, 0.2], [1.0, -1.2, 0.35], clock=0.1)
        A, B, C, D = signal.tf2ss([0.5, 0.2], [1.0, -1.2, 0.35])
        for M, R in ((b.A, A), (b.B, B), (b.C, C), (b.D, D)):
            np.testing.assert_array_equal(M, R)
        assert b.nx == 2 and b.state_names == ("x0", "x1")
        assert b.inputs[0].shape == () and b.outputs[0].shape == ()

    def test_strictly_proper_has_no_feedthrough_and_never_reads_u(self):
        b = DiscreteTransferFunction([1.0], [1.0, -0.5], clock=0.1)
        assert b.output_feedthrough() == {"y": ()}
        (y,) = b.output(0.0, state([2.0]), NOT_READ)
        assert y == 2.0 and type(y) is float
        np.testing.assert_allclose(b.update(0.0, state([2.0]), (1.0,)), [2.0])  # 0.5*2 + 1

    def test_biproper_has_feedthrough(self):
        b = DiscreteTransferFunction([1.0, 1.0], [2.0, 0.0], clock=0.1)
        assert b.output_feedthrough() == {"y": ("u",)}
        ys, _ = run(b, U_RANDOM)  # moving average of two samples
        np.testing.assert_allclose(ys, (U_RANDOM + np.r_[0.0, U_RANDOM[:-1]]) / 2, atol=1e-15)

    def test_one_over_z_is_a_unit_delay(self):
        ys, _ = run(DiscreteTransferFunction([1.0], [1.0, 0.0], clock=0.1), U_RANDOM)
        np.testing.assert_allclose(ys, np.r_[0.0, U_RANDOM[:-1]], atol=1e-15)

    @pytest.mark.parametrize("num, den", TF_CASES)
    def test_step_and_random_responses_match_dlsim(self, num, den):
        b = DiscreteTransferFunction(num, den, clock=0.01)
        for us in (np.ones(60), U_RANDOM):
            ys, _ = run(b, us)
            np.testing.assert_allclose(ys, dlsim_y((num, den), us, 0.01), rtol=1e-10,
                                       atol=1e-12)

    def test_initial_state_free_response(self):
        num, den = [0.5, 0.2], [1.0, -1.2, 0.35]
        b = DiscreteTransferFunction(num, den, clock=0.1, x0=[1.0, -2.0])
        ys, _ = run(b, np.zeros(20))
        A, B, C, D = signal.tf2ss(num, den)
        np.testing.assert_allclose(ys, dlsim_y((A, B, C, D), np.zeros(20), 0.1,
                                               x0=[1.0, -2.0]), atol=1e-13)

    def test_leading_numerator_zeros_and_static_gain(self):
        b = DiscreteTransferFunction([0.0, 0.0, 1.0], [1.0, -0.5], clock=0.1)
        assert b.nx == 1 and b.output_feedthrough() == {"y": ()}
        g = DiscreteTransferFunction([3.0], [2.0], clock=0.1)
        assert g.nx == 0 and g.output_feedthrough() == {"y": ("u",)}
        assert g.output(0.0, state([]), (2.0,)) == (3.0,)
        z = DiscreteTransferFunction([0.0], [2.0], clock=0.1)
        assert z.output_feedthrough() == {"y": ()}
        assert z.output(0.0, state([]), NOT_READ) == (0.0,)

    @pytest.mark.parametrize("num, den", TF_CASES[:4] + TF_CASES[5:])
    def test_kernels_match_reference(self, num, den):
        b = DiscreteTransferFunction(num, den, clock=0.1)
        x = state(RNG.standard_normal(b.nx))
        u = 0.37
        y = b.output(0.0, x, (u,))
        assert type(y[0]) is float
        np.testing.assert_allclose(y, reference_output(b, 0.0, x, (u,)), rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(np.ravel(b.update(0.0, x, (u,))),
                                   reference_update(b, 0.0, x, (u,)), rtol=1e-13, atol=1e-14)

    @pytest.mark.parametrize("args, match", [
        (([1.0], [0.0, 1.0]), r"DiscreteTransferFunction: the leading denominator coefficient "
                              r"den\[0\] must be non-zero"),
        (([1.0], []), "DiscreteTransferFunction: parameter 'den' is empty"),
        (([], [1.0, 2.0]), "DiscreteTransferFunction: parameter 'num' is empty"),
        (([[1.0], [2.0]], [1.0, 2.0]), r"parameter 'num' must be a 1-D coefficient sequence "
                                       r"\(SISO only\), got shape \(2, 1\)"),
        (([1.0, 2.0, 3.0], [1.0, 0.5]), "DiscreteTransferFunction: non-causal transfer "
                                        "function: numerator degree 2 > denominator degree 1"),
        (([1.0], ["a", 1.0]), "parameter 'den' must be an array of real numbers"),
        (([1.0], [1.0, math.inf]), "parameter 'den' must be finite"),
    ])
    def test_bad_parameters(self, args, match):
        with pytest.raises(BlockParameterError, match=match):
            DiscreteTransferFunction(*args, clock=0.1)

    def test_bad_initial_state(self):
        with pytest.raises(BlockParameterError,
                           match=r"DiscreteTransferFunction: parameter 'x0' must have 2 "
                                 r"element\(s\) \(the order of den\), got 3"):
            DiscreteTransferFunction([1.0], [1.0, 0.1, 0.2], clock=0.1, x0=[1, 2, 3])


# ================================================================== DiscreteStateSpace
A2 = np.array([[0.9, 0.1], [-0.2, 0.7]])


class TestDiscreteStateSpace:
    def test_siso_declarations_and_dlsim(self):
        B, C = [[0.0], [1.0]], [[1.0, 0.5]]
        b = DiscreteStateSpace(A2, B, C, clock=0.1)
        assert b.nx == 2 and b.state_names == ("x0", "x1")
        assert b.output_feedthrough() == {"y": ()}
        assert b.inputs[0].shape == () and b.outputs[0].shape == ()
        (y,) = b.output(0.0, state([1.0, 2.0]), NOT_READ)
        assert y == 2.0 and type(y) is float
        ys, _ = run(b, U_RANDOM)
        np.testing.assert_allclose(ys, dlsim_y((A2, B, C, [[0.0]]), U_RANDOM, 0.1), atol=1e-13)

    def test_positional_d_and_clock_one_dimensional_b_c_scalar_d(self):
        b = DiscreteStateSpace(A2, [0.0, 1.0], [1.0, 0.5], 0.3, 0.1, [1.0, -1.0])
        assert b.B.shape == (2, 1) and b.C.shape == (1, 2) and b.D.shape == (1, 1)
        assert b.output_feedthrough() == {"y": ("u",)}
        ys, _ = run(b, U_RANDOM)
        ref = dlsim_y((A2, [[0.0], [1.0]], [[1.0, 0.5]], [[0.3]]), U_RANDOM, 0.1,
                      x0=[1.0, -1.0])
        np.testing.assert_allclose(ys, ref, atol=1e-13)

    def test_scalar_system(self):
        b = DiscreteStateSpace(0.5, 1.0, 2.0, clock=0.1)
        ys, _ = run(b, np.ones(10))
        np.testing.assert_allclose(ys, 2 * (1 - 0.5 ** np.arange(10)) / 0.5, atol=1e-14)

    def test_mimo(self):
        B = [[1.0, 0.0], [0.5, 1.0]]
        C = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
        D = [[0.0, 0.1], [0.0, 0.0], [0.2, 0.0]]
        b = DiscreteStateSpace(A2, B, C, D, clock=0.1)
        assert b.inputs[0].shape == (2,) and b.outputs[0].shape == (3,)
        assert b.output_feedthrough() == {"y": ("u",)}
        us = RNG.standard_normal((30, 2))
        ys, _ = run(b, list(us))
        assert ys.shape == (30, 3)
        np.testing.assert_allclose(ys, dlsim_y((A2, B, C, D), us, 0.1), atol=1e-13)

    def test_single_input_multi_output_and_multi_input_single_output(self):
        simo = DiscreteStateSpace(A2, [1.0, 0.5], np.eye(2), clock=0.1)
        assert simo.inputs[0].shape == () and simo.outputs[0].shape == (2,)
        ys, _ = run(simo, U_RANDOM)
        np.testing.assert_allclose(
            ys, dlsim_y((A2, [[1.0], [0.5]], np.eye(2), np.zeros((2, 1))), U_RANDOM, 0.1),
            atol=1e-13)
        miso = DiscreteStateSpace(A2, np.eye(2), [1.0, -1.0], [0.5, 0.0], clock=0.1)
        assert miso.inputs[0].shape == (2,) and miso.outputs[0].shape == ()
        us = RNG.standard_normal((20, 2))
        ys, _ = run(miso, list(us))
        np.testing.assert_allclose(
            ys, dlsim_y((A2, np.eye(2), [[1.0, -1.0]], [[0.5, 0.0]]), us, 0.1), atol=1e-13)

    def test_strict_mimo_never_reads_u(self):
        b = DiscreteStateSpace(A2, np.eye(2), np.eye(2), clock=0.1)
        assert b.output_feedthrough() == {"y": ()}
        (y,) = b.output(0.0, state([1.0, 2.0]), NOT_READ)
        np.testing.assert_array_equal(y, [1.0, 2.0])

    @pytest.mark.parametrize("n", [1, 3, 5, 13])
    @pytest.mark.parametrize("with_d", [False, True])
    def test_kernels_match_reference(self, n, with_d):
        A = RNG.standard_normal((n, n)) * 0.3
        b = DiscreteStateSpace(A, RNG.standard_normal(n), RNG.standard_normal(n),
                               0.4 if with_d else None, clock=0.1)
        x = state(RNG.standard_normal(n))
        np.testing.assert_allclose(b.output(0.0, x, (0.6,)), reference_output(b, 0, x, (0.6,)),
                                   rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(np.ravel(b.update(0.0, x, (0.6,))),
                                   reference_update(b, 0.0, x, (0.6,)), rtol=1e-13, atol=1e-14)

    @pytest.mark.parametrize("args, match", [
        (([[1.0, 2.0]], [1.0], [1.0]),
         r"DiscreteStateSpace: A must be a non-empty square matrix \(n, n\), got shape \(1, 2\)"),
        ((np.zeros((0, 0)), [1.0], [1.0]), r"got shape \(0, 0\); for a static system"),
        ((A2, [1.0, 2.0, 3.0], [1.0, 1.0]),
         r"DiscreteStateSpace: B must have shape \(n, m\) = \(2, m\) with m >= 1 to match A "
         r"\(2, 2\), got shape \(3, 1\)"),
        ((A2, [1.0, 1.0], [[1.0, 1.0, 1.0]]),
         r"DiscreteStateSpace: C must have shape \(p, n\) = \(p, 2\) with p >= 1 to match A "
         r"\(2, 2\), got shape \(1, 3\)"),
        ((A2, [1.0, 1.0], [1.0, 1.0], [[1.0, 2.0]]),
         r"DiscreteStateSpace: D must have shape \(p, m\) = \(1, 1\) to match C \(1, 2\) and "
         r"B \(2, 1\), got shape \(1, 2\)"),
        ((A2, [1.0, 1.0], [1.0, 1.0], None, 0.1, [1.0]),
         r"DiscreteStateSpace: x0 must have shape \(2,\) to match A \(2, 2\), got shape \(1,\)"),
        ((A2, [1.0, math.nan], [1.0, 1.0]), "DiscreteStateSpace: parameter 'B' must be finite"),
        (([["a"]], [1.0], [1.0]), "parameter 'A' must be an array of real numbers"),
    ])
    def test_bad_parameters(self, args, match):
        if len(args) < 5:
            args = (*args, *([None] * (4 - len(args))), 0.1)
        with pytest.raises(BlockParameterError, match=match):
            DiscreteStateSpace(*args)


# ================================================================== DiscretePID
def pid_recursion(es, Kp, Ki, Kd, T, N=None, lower=-math.inf, upper=math.inf, x0=(0.0, 0.0)):
    """Hand recursion of the documented difference equations, written out independently."""
    xi, z = x0
    ys, states = [], [(xi, z)]
    for e in es:
        if N is None:
            d = (e - z) / T          # backward difference, z = previous error
            z_next = e
        else:
            z_next = (z + N * T * e) / (1 + N * T)   # backward Euler of z' = N (e - z)
            d = (z_next - z) / T
        v = Kp * e + Ki * xi + Kd * d
        y = min(max(v, lower), upper)
        clamp = (v > upper and Ki * e > 0) or (v < lower and Ki * e < 0)
        xi = xi if clamp else xi + T * e   # forward Euler integral
        z = z_next
        ys.append(y)
        states.append((xi, z))
    return np.array(ys), np.array(states)


class TestDiscretePID:
    def test_declarations(self):
        b = DiscretePID(2.0, 1.0, 0.5, clock=0.1)
        assert b.nx == 2 and b.state_names == ("integral", "filter")
        assert b.output_feedthrough() == {"y": ("e",)}
        assert b.inputs[0].name == "e" and b.inputs[0].shape == ()
        np.testing.assert_array_equal(b.x0, [0.0, 0.0])
        assert b.params == {"Kp": 2.0, "Ki": 1.0, "Kd": 0.5, "clock": 0.1, "N": None,
                            "lower": -math.inf, "upper": math.inf, "x0": (0.0, 0.0)}

    def test_first_samples_by_hand(self):
        # Kp=2, Ki=10, Kd=0.5, T=0.1, no filter; e = 1, 1, 0.5
        b = DiscretePID(2.0, 10.0, 0.5, clock=0.1)
        ys, xs = run(b, [1.0, 1.0, 0.5])
        # k=0: P 2, I 10*0 = 0, D 0.5*(1-0)/0.1 = 5                 -> 7; xi=0.1, z=1
        # k=1: P 2, I 10*0.1 = 1, D 0                               -> 3; xi=0.2, z=1
        # k=2: P 1, I 10*0.2 = 2, D 0.5*(0.5-1)/0.1 = -2.5          -> 0.5
        np.testing.assert_allclose(ys, [7.0, 3.0, 0.5], atol=1e-12)
        np.testing.assert_allclose(xs[-1], [0.25, 0.5], atol=1e-14)

    @pytest.mark.parametrize("N", [None, 5.0, 80.0])
    @pytest.mark.parametrize("limits", [{}, dict(lower=-1.5, upper=2.0)])
    def test_matches_hand_recursion(self, N, limits):
        es = 2.0 * U_RANDOM + 0.8
        b = DiscretePID(1.2, 3.0, 0.05, clock=0.05, N=N, x0=(0.1, -0.2), **limits)
        ys, xs = run(b, es)
        ref_y, ref_x = pid_recursion(es, 1.2, 3.0, 0.05, 0.05, N, x0=(0.1, -0.2), **limits)
        np.testing.assert_allclose(ys, ref_y, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(xs, ref_x, rtol=1e-12, atol=1e-12)
        if limits:
            assert ys.max() == 2.0 and ys.min() == -1.5

    @pytest.mark.parametrize("N", [None, 20.0])
    def test_unsaturated_transfer_function(self, N):
        Kp, Ki, Kd, T = 1.5, 2.0, 0.1, 0.02
        ys, _ = run(DiscretePID(Kp, Ki, Kd, clock=T, N=N), U_RANDOM)
        # Kp + Ki T / (z - 1) + Kd N (z - 1) / ((1 + N T) z - 1)   (N -> inf: Kd (z - 1) / (T z))
        a = T if N is None else T + 1 / N
        # Kd (z - 1) / (a z - (a - T))
        ref = (Kp * U_RANDOM + dlsim_y(([Ki * T], [1.0, -1.0]), U_RANDOM, T)
               + dlsim_y(([Kd, -Kd], [a, -(a - T)]), U_RANDOM, T))
        np.testing.assert_allclose(ys, ref, rtol=1e-10, atol=1e-10)

    def test_large_n_approaches_unfiltered(self):
        es = U_RANDOM
        y_inf, _ = run(DiscretePID(1.0, 1.0, 0.2, clock=0.1), es)
        y_big, _ = run(DiscretePID(1.0, 1.0, 0.2, clock=0.1, N=1e9), es)
        np.testing.assert_allclose(y_big, y_inf, atol=1e-7)

    def test_anti_windup_clamping(self):
        b = DiscretePID(1.0, 5.0, 0.0, clock=0.1, upper=1.0)
        # saturated (v = 2 + 5*0 > 1) and Ki e > 0: no integration
        assert tuple(b.update(0.0, state([0.0, 0.0]), (2.0,))) == (0.0, 2.0)
        # saturated high but error negative: integrates (drives out of saturation)
        b2 = DiscretePID(1.0, 5.0, 0.0, clock=0.1, upper=1.0)
        assert tuple(b2.update(0.0, state([1.0, 0.0]), (-0.5,))) == pytest.approx((0.95, -0.5))
        # not saturated: integrates
        assert tuple(b.update(0.0, state([0.0, 0.0]), (0.5,))) == pytest.approx((0.05, 0.5))
        lo = DiscretePID(1.0, 5.0, 0.0, clock=0.1, lower=-1.0)
        assert tuple(lo.update(0.0, state([0.0, 0.0]), (-2.0,))) == (0.0, -2.0)

    def test_windup_recovery_is_faster_with_clamping(self):
        es = np.r_[np.full(30, 2.0), np.full(30, -0.5)]
        clamped, _ = run(DiscretePID(1.0, 4.0, 0.0, clock=0.1, upper=1.0, lower=-1.0), es)
        free, _ = run(DiscretePID(1.0, 4.0, 0.0, clock=0.1), es)
        # after the error reverses, the clamped controller leaves saturation at once; the
        # wound-up integral keeps the unclamped one saturated for the whole second phase
        assert np.sum(clamped[30:] >= 1.0) == 0
        assert np.all(np.clip(free[30:], -1.0, 1.0) == 1.0)

    def test_negative_ki_clamps_on_sign_of_ki_e(self):
        b = DiscretePID(-1.0, -5.0, 0.0, clock=0.1, upper=1.0)
        # v = -1*(-2) = 2 > 1 and Ki e = 10 > 0: clamp
        assert tuple(b.update(0.0, state([0.0, 0.0]), (-2.0,))) == (0.0, -2.0)

    @pytest.mark.parametrize("kwargs, match", [
        (dict(N=0.0), "DiscretePID: parameter 'N' must be > 0, got 0.0"),
        (dict(N=-1.0), "DiscretePID: parameter 'N' must be > 0"),
        (dict(N=math.nan), "DiscretePID: parameter 'N' must be finite"),
        (dict(Kp="x"), "DiscretePID: parameter 'Kp' must be a real number, got 'x'"),
        (dict(Ki=math.inf), "DiscretePID: parameter 'Ki' must be finite"),
        (dict(Kd=None), "DiscretePID: parameter 'Kd' must be a real number"),
        (dict(lower=1.0, upper=-1.0), "DiscretePID: parameter 'lower' must be <= 'upper'"),
        (dict(upper=math.nan), "DiscretePID: parameter 'upper' is NaN"),
        (dict(x0=[1.0]), r"DiscretePID: parameter 'x0' must be \(integral, filter\), 2 "
                         r"elements, got 1"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            DiscretePID(clock=0.1, **kwargs)


# ================================================================== DiscreteDerivative
class TestDiscreteDerivative:
    def test_declarations_and_backward_difference(self):
        b = DiscreteDerivative(0.1, K=2.0)
        assert b.nx == 1 and b.state_names == ("z",)
        assert b.output_feedthrough() == {"y": ("u",)}
        us = np.arange(6) ** 2 * 1.0
        ys, xs = run(b, us)
        np.testing.assert_allclose(ys, 2.0 * np.diff(np.r_[0.0, us]) / 0.1, atol=1e-12)
        np.testing.assert_array_equal(xs[1:, 0], us)

    def test_initial_state_avoids_the_kick(self):
        ys, _ = run(DiscreteDerivative(0.5, x0=3.0), [3.0, 4.0, 6.0])
        np.testing.assert_allclose(ys, [0.0, 2.0, 4.0])

    def test_filtered_matches_transfer_function(self):
        K, N, T = 1.5, 12.0, 0.05
        ys, _ = run(DiscreteDerivative(T, K=K, N=N), U_RANDOM)
        ref = dlsim_y(([K * N, -K * N], [1 + N * T, -1.0]), U_RANDOM, T)
        np.testing.assert_allclose(ys, ref, rtol=1e-12, atol=1e-12)

    def test_filtered_ramp_converges_to_slope(self):
        ys, _ = run(DiscreteDerivative(0.01, N=50.0, x0=0.0), 3.0 * 0.01 * np.arange(300))
        assert ys[0] == 0.0
        assert ys[-1] == pytest.approx(3.0, rel=1e-9)

    def test_vector(self):
        b = DiscreteDerivative(0.1, x0=[0.0, 1.0])
        assert b.inputs[0].shape == (2,) and b.state_names == ("z0", "z1")
        (y,) = b.output(0.0, state([0.0, 1.0]), (np.array([1.0, 1.0]),))
        np.testing.assert_allclose(y, [10.0, 0.0])
        np.testing.assert_array_equal(b.update(0.0, state([0.0, 1.0]), (np.array([1.0, 2.0]),)),
                                      [1.0, 2.0])

    @pytest.mark.parametrize("N", [None, 30.0])
    @pytest.mark.parametrize("x", [-0.5, 0.0, 2.0])
    def test_scalar_kernels_match_reference(self, N, x):
        b = DiscreteDerivative(0.1, K=0.7, N=N)
        xs = state([x])
        assert b.output(0.0, xs, (1.3,)) == pytest.approx(reference_output(b, 0.0, xs, (1.3,)),
                                                          rel=1e-15)
        np.testing.assert_allclose(np.ravel(b.update(0.0, xs, (1.3,))),
                                   reference_update(b, 0.0, xs, (1.3,)), rtol=1e-15)

    @pytest.mark.parametrize("kwargs, match", [
        (dict(K=math.nan), "DiscreteDerivative: parameter 'K' must be finite"),
        (dict(N=0), "DiscreteDerivative: parameter 'N' must be > 0"),
        (dict(x0=np.zeros((2, 2))), "DiscreteDerivative: parameter 'x0' must be a scalar or a "
                                    r"non-empty 1-D array .*got shape \(2, 2\)"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            DiscreteDerivative(0.1, **kwargs)


# ================================================================== discretize
ALL_METHODS = ["zoh", "foh", "bilinear", "tustin", "euler", "forward_diff", "backward_diff",
               "impulse"]


class TestDiscretize:
    @pytest.mark.parametrize("method", ALL_METHODS)
    def test_transfer_function_coefficients(self, method):
        num, den = [2.0, 1.0], [1.0, 3.0, 2.0]
        d = discretize(TransferFunction(num, den), 0.1, method)
        assert isinstance(d, DiscreteTransferFunction)
        assert d.clock == Clock(0.1)
        num_d, den_d, _ = signal.cont2discrete((num, den), 0.1, method=method)
        ys, _ = run(d, U_RANDOM)
        np.testing.assert_allclose(ys, dlsim_y((np.ravel(num_d), den_d), U_RANDOM, 0.1),
                                   rtol=1e-10, atol=1e-12)

    def test_gbt_alpha(self):
        tf = TransferFunction([1.0], [0.5, 1.0])
        d = discretize(tf, 0.2, "gbt", alpha=0.3)
        num_d, den_d, _ = signal.cont2discrete(([1.0], [0.5, 1.0]), 0.2, method="gbt",
                                               alpha=0.3)
        ys, _ = run(d, U_RANDOM)
        np.testing.assert_allclose(ys, dlsim_y((np.ravel(num_d), den_d), U_RANDOM, 0.2),
                                   atol=1e-12)
        tustin = discretize(tf, 0.2, "gbt", alpha=0.5)
        np.testing.assert_allclose(tustin.A, discretize(tf, 0.2, "tustin").A, atol=1e-14)

    def test_zoh_of_strictly_proper_tf_has_no_feedthrough(self):
        d = discretize(TransferFunction([1.0], [1.0, 3.0, 2.0]), 0.1)
        assert d.D[0, 0] == 0.0
        assert d.output_feedthrough() == {"y": ()}
        assert discretize(TransferFunction([1.0], [1.0, 3.0, 2.0]), 0.1,
                          "tustin").output_feedthrough() == {"y": ("u",)}

    def test_zoh_step_response_equals_sampled_continuous_response(self):
        num, den, T = [4.0], [1.0, 0.8, 4.0], 0.05
        d = discretize(TransferFunction(num, den), T)
        ys, _ = run(d, np.ones(200))
        t = T * np.arange(200)
        _, y_c = signal.step((num, den), T=t)
        np.testing.assert_allclose(ys, y_c, atol=1e-9)

    def test_first_order_lag_zoh_closed_form(self):
        tau, T = 0.5, 0.1
        ys, _ = run(discretize(TransferFunction([1.0], [tau, 1.0]), T), np.ones(30))
        np.testing.assert_allclose(ys, 1 - np.exp(-T * np.arange(30) / tau), atol=1e-13)

    @pytest.mark.parametrize("method", ALL_METHODS)
    def test_state_space_matrices(self, method):
        A = np.array([[0.0, 1.0], [-4.0, -0.8]])
        B = np.array([[0.0], [1.0]])
        C = np.array([[1.0, 0.0], [0.0, 1.0]])
        D = np.zeros((2, 1))
        d = discretize(StateSpace(A, B, C, D), (0.05, 0.01), method)
        assert isinstance(d, DiscreteStateSpace)
        assert d.clock == Clock(0.05, 0.01)
        Ad, Bd, Cd, Dd, _ = signal.cont2discrete((A, B, C, D), 0.05, method=method)
        for M, R in ((d.A, Ad), (d.B, Bd), (d.C, Cd), (d.D, Dd)):
            np.testing.assert_allclose(M, R, rtol=1e-14, atol=1e-15)

    def test_state_space_zoh_sampled_response_with_initial_state(self):
        A = np.array([[0.0, 1.0], [-4.0, -0.8]])
        B, C = np.array([[0.0], [1.0]]), np.array([[1.0, 0.0]])
        x0 = [1.0, -0.5]
        d = discretize(StateSpace(A, B, C, x0=x0), 0.05)
        np.testing.assert_array_equal(d.x0, x0)
        assert d.output_feedthrough() == {"y": ()}
        t = 0.05 * np.arange(100)
        ys, _ = run(d, np.ones(100))
        _, y_c, _ = signal.lsim((A, B, C, [[0.0]]), np.ones(100), t, X0=x0)
        np.testing.assert_allclose(ys, y_c, atol=1e-8)

    def test_static_gain_transfer_function(self):
        d = discretize(TransferFunction([3.0], [2.0]), 0.1)
        assert d.nx == 0 and d.output(0.0, state([]), (2.0,)) == (3.0,)

    @pytest.mark.parametrize("args, kwargs, match", [
        ((Gain(2.0), 0.1), {}, "discretize: block must be a continuous TransferFunction or "
                               "StateSpace block, got Gain"),
        ((Integrator(), 0.1), {}, "got Integrator"),
        ((TransferFunction([1], [1, 1]), 0.1, "zho"), {},
         r"discretize: parameter 'method' must be one of .*got 'zho' \(did you mean 'zoh'\?\)"),
        ((TransferFunction([1], [1, 1]), 0.1, "gbt"), {},
         "discretize: method 'gbt' needs parameter 'alpha'"),
        ((TransferFunction([1], [1, 1]), 0.1, "gbt"), dict(alpha=1.5),
         r"discretize: parameter 'alpha' must be in \[0, 1\], got 1.5"),
        ((TransferFunction([1], [1, 1]), 0.1), dict(alpha=0.5),
         "discretize: parameter 'alpha' applies only to method 'gbt'"),
        ((TransferFunction([1, 0], [1, 1]), 0.1, "impulse"), {},
         "discretize: TransferFunction with method 'impulse': Impulse method is only "
         "applicable to strictly proper systems"),
        ((TransferFunction([1], [1, 1]), -0.1), {}, "discretize: clock must be a Clock"),
        ((TransferFunction([1], [1, 1]), None), {}, "discretize: parameter 'clock' is required"),
        ((TransferFunction([1], [1, 1, 1], x0=[1.0, 0.0]), 0.1), {},
         r"discretize: cannot carry the non-zero initial state x0=\[1.0, 0.0\] of "
         r"TransferFunction: a TransferFunction's discrete realisation"),
        ((StateSpace(-1.0, 1.0, 1.0, x0=[2.0]), 0.1, "tustin"), {},
         "discretize: cannot carry .* method 'tustin' changes the state coordinates"),
    ])
    def test_bad_arguments(self, args, kwargs, match):
        with pytest.raises(BlockParameterError, match=match):
            discretize(*args, **kwargs)

    def test_error_names_the_block_in_its_diagram(self):
        d = Diagram("plantdiag")
        tf = d.add(TransferFunction([1.0], [1.0, 1.0], x0=[1.0]), name="plant")
        with pytest.raises(BlockParameterError, match="of plant"):
            discretize(tf, 0.1)


# ================================================================== through simulate()
def at(result, times, port):
    """Recorded values of ``port`` at the given times (each must be a recorded time)."""
    idx = [int(np.argmin(np.abs(result.t - t))) for t in times]
    assert np.allclose(result.t[idx], times, atol=1e-12)
    return result[port][idx]


class TestSimulate:
    def test_unit_delay_of_a_step(self):
        d = Diagram("delay")
        s = d.add(Step(time=0.25), name="step")
        u = d.add(UnitDelay(clock=0.1, x0=-1.0), name="delay")
        d.connect(s, u)
        res = simulate(d, 1.0)
        hits = 0.1 * np.arange(11)
        step = (hits >= 0.25).astype(float)
        np.testing.assert_array_equal(at(res, hits, "delay.y"), np.r_[-1.0, step[:-1]])
        # held between hits: at the step time 0.25 the output is still y(0.2) = 0
        assert at(res, [0.25], "delay.y")[0] == 0.0

    def test_zoh_holds_between_hits(self):
        """A continuous integrator of a ZOH'd sine integrates the staircase exactly."""
        d = Diagram("zoh")
        s = d.add(Sine(frequency=0.7), name="s")
        z = d.add(ZOH(0.1), name="zoh")
        i = d.add(Integrator(), name="int")
        d.connect(s, z)
        d.connect(z, i)
        res = simulate(d, 2.0, rtol=1e-10, atol=1e-12)
        hits = 0.1 * np.arange(21)
        samples = np.sin(2 * np.pi * 0.7 * hits)
        np.testing.assert_allclose(at(res, hits, "zoh.y"), samples, atol=1e-12)
        np.testing.assert_allclose(at(res, hits, "int.y"),
                                   np.r_[0.0, np.cumsum(samples[:-1] * 0.1)], atol=1e-9)
        inside = (res.t > 1e-9) & (np.abs(res.t / 0.1 - np.round(res.t / 0.1)) > 1e-6)
        assert inside.any()
        held = np.sin(2 * np.pi * 0.7 * 0.1 * np.floor(res.t[inside] / 0.1 + 1e-9))
        np.testing.assert_allclose(res["zoh.y"][inside], held, atol=1e-12)

    def test_discrete_closed_loop_matches_hand_loop(self):
        """PID + discretised plant in a feedback loop (PID feedthrough, plant strictly proper)."""
        T = 0.05
        plant_c = TransferFunction([1.0], [0.4, 1.0])
        d = Diagram("loop")
        r = d.add(Constant(1.0), name="r")
        e = d.add(_Sum2(), name="e")
        pid = d.add(DiscretePID(2.0, 3.0, 0.02, clock=T, N=40.0, upper=3.0, lower=-3.0),
                    name="pid")
        plant = d.add(discretize(plant_c, T), name="plant")
        d.connect(r, e["a"])
        d.connect(plant, e["b"])
        d.connect(e, pid)
        d.connect(pid, plant)
        res = simulate(d, 2.0)
        K = 41
        # hand loop: y[k] of the plant first (no feedthrough), then e, then the PID
        ys_p, us_p = [], []
        xp, xc = plant.x0.copy(), pid.x0.copy()
        for k in range(K):
            t = k * T
            (yp,) = plant.output(t, xp, NOT_READ)
            ek = 1.0 - yp
            (u,) = pid.output(t, xc, (ek,))
            ys_p.append(yp)
            us_p.append(u)
            xp = np.asarray(plant.update(t, xp, (u,)), dtype=float)
            xc = np.asarray(pid.update(t, xc, (ek,)), dtype=float)
        hits = T * np.arange(K)
        np.testing.assert_allclose(at(res, hits, "plant.y"), ys_p, atol=1e-12)
        np.testing.assert_allclose(at(res, hits, "pid.y"), us_p, atol=1e-12)
        assert abs(ys_p[-1] - 1.0) < 0.05

    def test_sampled_data_loop_matches_zoh_discretisation(self):
        """Discrete controller driving a continuous plant: at the hits the plant output equals
        the ZOH-discretised plant driven by the same controller."""
        T = 0.1
        num, den = [1.0], [1.0, 0.6, 1.0]
        d = Diagram("sampled")
        r = d.add(Constant(1.0), name="r")
        e = d.add(_Sum2(), name="e")
        pid = d.add(DiscretePID(1.0, 0.8, 0.0, clock=T), name="pid")
        plant = d.add(TransferFunction(num, den), name="plant")
        d.connect(r, e["a"])
        d.connect(plant, e["b"])
        d.connect(e, pid)
        d.connect(pid, plant)
        res = simulate(d, 3.0, rtol=1e-10, atol=1e-12)
        # the same loop with the plant discretised (exact at the hits under a ZOH input);
        # the continuous plant output at a hit is read before the PID at that hit
        pd = discretize(TransferFunction(num, den), T)
        ctl = DiscretePID(1.0, 0.8, 0.0, clock=T)
        xp, xc, ys = pd.x0.copy(), ctl.x0.copy(), []
        for k in range(31):
            (yp,) = pd.output(k * T, xp, NOT_READ)
            ek = 1.0 - yp
            (u,) = ctl.output(k * T, xc, (ek,))
            ys.append(yp)
            xp = np.asarray(pd.update(k * T, xp, (u,)), dtype=float)
            xc = np.asarray(ctl.update(k * T, xc, (ek,)), dtype=float)
        np.testing.assert_allclose(at(res, T * np.arange(31), "plant.y"), ys, atol=1e-7)

    def test_rate_transition_between_clocks(self):
        """A slow (0.3 s) counter read by a fast (0.1 s) delay through RateTransitions."""
        d = Diagram("rates")
        s = d.add(Step(time=0.0), name="one")
        slow = d.add(DiscreteIntegrator(0.3, "forward"), name="slow")   # 0, 0.3, 0.6, ...
        hold = d.add(RateTransition(0.1), name="hold")
        dly = d.add(RateTransition(0.1, delay=True), name="dly")
        d.connect(s, slow)
        d.connect(slow, hold)
        d.connect(slow, dly)
        res = simulate(d, 1.2)
        fast = 0.1 * np.arange(13)
        slow_val = 0.3 * np.floor(fast / 0.3 + 1e-9)            # slow output held
        np.testing.assert_allclose(at(res, fast, "slow.y"), slow_val, atol=1e-12)
        np.testing.assert_allclose(at(res, fast, "hold.y"), slow_val, atol=1e-12)
        np.testing.assert_allclose(at(res, fast, "dly.y"), np.r_[0.0, slow_val[:-1]],
                                   atol=1e-12)

    def test_offset_clock_and_initial_output(self):
        """Before its first hit a block outputs its value at t = 0 (x0 for a unit delay)."""
        d = Diagram("offset")
        s = d.add(Constant(5.0), name="c")
        u = d.add(UnitDelay(clock=(0.2, 0.1), x0=2.0), name="delay")
        d.connect(s, u)
        res = simulate(d, 0.6)
        np.testing.assert_allclose(res.t, [0.0, 0.1, 0.3, 0.5, 0.6], atol=1e-12)
        np.testing.assert_allclose(res["delay.y"], [2.0, 2.0, 5.0, 5.0, 5.0])


class _Sum2(Block):
    """a - b (local helper so the tests depend only on the blocks under test)."""

    inputs = ("a", "b")
    outputs = ("y",)

    def output(self, t, x, u):
        return (u[0] - u[1],)
