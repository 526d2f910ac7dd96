"""Tests of the random sources, calling their methods directly (and one diagram run)."""

from __future__ import annotations

import copy
import math
import pickle
import types
import zlib
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from blocksim.blocks.sources import random_streams as streams
from blocksim.blocks.sources.noise import BandLimitedWhiteNoise, RandomNumber
from blocksim.engine.clock import Clock
from blocksim.engine.errors import BlockParameterError

N = 20000


def samples(block, n: int) -> np.ndarray:
    """The first ``n`` held outputs of ``block``, stepping its counter like the engine does."""
    x = block.x0.copy()
    out = []
    for _ in range(n):
        out.append(block.output(0.0, x, ())[0])
        x = np.asarray(block.update(0.0, x, ()), dtype=float)
    return np.array(out)


def corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


# ---------------------------------------------------------------------------- pure numerics
def test_random_word_is_splitmix64():
    # reference outputs of Vigna's splitmix64.c seeded with 1234567
    assert [streams.random_word(1234567, n) for n in range(3)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_counter_functions_are_pure_and_in_range():
    key = streams.stream_key(42)
    assert streams.stream_key(42) == key and 0 <= key <= streams.MASK64
    assert streams.stream_key(43) != key
    u = [streams.uniform_sample(key, n) for n in range(2000)]
    assert all(0.0 <= v < 1.0 for v in u)
    assert u == [streams.uniform_sample(key, n) for n in range(2000)]
    z = [streams.normal_sample(key, n) for n in range(2000)]
    assert all(type(v) is float and abs(v) < 8.6 for v in z)
    # the counter wraps modulo 2**63 samples (2**64 words), never raises
    assert streams.normal_sample(key, 2**63 + 5) == streams.normal_sample(key, 5)


def test_vector_functions_match_scalar_ones():
    key = streams.stream_key(7)
    small = streams.MAX_LOOP_SIZE
    # small vectors: a loop over the scalar functions, bitwise equal
    np.testing.assert_array_equal(streams.normal_samples(key, 5, small),
                                  [streams.normal_sample(key, n) for n in range(5, 5 + small)])
    np.testing.assert_array_equal(streams.uniform_samples(key, 5, small),
                                  [streams.uniform_sample(key, n) for n in range(5, 5 + small)])
    assert streams.normal_samples(key, 5, small).dtype == np.float64
    for start in (0, 12345, 2**52):
        u = streams.uniform_samples(key, start, 300)
        assert u.dtype == np.float64 and u.shape == (300,)
        # same integer words, so the uniforms are bitwise equal
        np.testing.assert_array_equal(u, [streams.uniform_sample(key, n)
                                          for n in range(start, start + 300)])
        z = streams.normal_samples(key, start, 300)
        np.testing.assert_allclose(z, [streams.normal_sample(key, n)
                                       for n in range(start, start + 300)],
                                   rtol=1e-13, atol=1e-15)


def test_numerics_compile_with_numba_unchanged():
    import numba
    g = dict(vars(streams))
    for name in ("mix64", "stream_key", "random_word", "uniform_sample", "normal_sample"):
        g[name] = numba.njit(types.FunctionType(getattr(streams, name).__code__, g, name))
    key = streams.stream_key(3)
    assert g["stream_key"](np.uint64(3)) == key
    for n in (0, 1, 99, 2**40):
        assert g["normal_sample"](np.uint64(key), np.uint64(n)) == streams.normal_sample(key, n)
        assert g["uniform_sample"](np.uint64(key), np.uint64(n)) == streams.uniform_sample(key, n)


def test_name_seed_is_crc32_based():
    assert streams.name_seed("sys/noise") == 2**32 + zlib.crc32(b"sys/noise")
    assert streams.name_seed("a") != streams.name_seed("b")


# ---------------------------------------------------------------------------- RandomNumber
def test_random_number_declaration():
    b = RandomNumber(seed=5, clock=(0.2, 0.05))
    assert b.is_discrete and b.clock == Clock(0.2, 0.05)
    assert len(b.inputs) == 0 and [p.name for p in b.outputs] == ["y"]
    np.testing.assert_array_equal(b.x0, [0.0])
    assert b.state_names == ("k",)
    assert b.output_feedthrough() == {"y": ()}
    assert b.params == {"mean": 0.0, "variance": 1.0, "seed": 5, "clock": (0.2, 0.05),
                        "size": None, "distribution": "normal"}
    assert RandomNumber().clock == Clock(0.1)
    assert RandomNumber(clock=Clock(0.5)).clock == Clock(0.5)


def test_random_number_output_is_function_of_counter():
    b = RandomNumber(seed=11)
    y = b.output(0.0, np.array([3.0]), ())
    assert isinstance(y, tuple) and len(y) == 1 and type(y[0]) is float
    assert y[0] == b.output(7.5, np.array([3.0]), ())[0]  # not of time
    assert y[0] == streams.normal_sample(streams.stream_key(11), 3)
    np.testing.assert_array_equal(b.update(0.0, np.array([3.0]), ()), [4.0])
    assert b.output(0.0, np.array([4.0]), ())[0] != y[0]


def test_random_number_normal_statistics():
    z = samples(RandomNumber(seed=1), N)
    assert abs(z.mean()) < 0.035  # 5 sigma = 5 / sqrt(N)
    assert abs(z.var() - 1.0) < 0.05  # 5 sigma = 5 * sqrt(2 / N)
    assert abs(stats.kurtosis(z)) < 0.17  # 5 sigma = 5 * sqrt(24 / N)
    assert abs(stats.skew(z)) < 0.09
    for lag in (1, 2, 7):
        assert abs(corr(z[:-lag], z[lag:])) < 0.035
    assert stats.kstest(z, "norm").pvalue > 1e-3


def test_random_number_mean_and_variance():
    y = samples(RandomNumber(mean=2.5, variance=4.0, seed=2), N)
    assert abs(y.mean() - 2.5) < 5 * 2.0 / math.sqrt(N)
    assert abs(y.std() - 2.0) < 0.05
    z = samples(RandomNumber(seed=2), 50)
    np.testing.assert_allclose(y[:50], 2.5 + 2.0 * z, rtol=1e-15)
    assert set(samples(RandomNumber(mean=-1.0, variance=0.0, seed=0), 10)) == {-1.0}


def test_random_number_uniform():
    y = samples(RandomNumber(mean=1.0, variance=3.0, seed=4, distribution="uniform"), N)
    # variance 3 -> half-width sqrt(9) = 3: uniform on [-2, 4)
    assert y.min() >= -2.0 and y.max() < 4.0
    assert y.min() < -1.99 and y.max() > 3.99
    assert abs(y.mean() - 1.0) < 5 * math.sqrt(3.0 / N)
    assert abs(y.var() / 3.0 - 1.0) < 0.05
    assert abs(corr(y[:-1], y[1:])) < 0.035
    assert stats.kstest(y, "uniform", args=(-2.0, 6.0)).pvalue > 1e-3


def test_same_seed_identical_different_seeds_uncorrelated():
    a = samples(RandomNumber(seed=0), N)
    np.testing.assert_array_equal(a, samples(RandomNumber(seed=0), N))
    for seed in (1, 2**63):
        b = samples(RandomNumber(seed=seed), N)
        assert not np.any(a == b)
        for lag in (0, 1):
            assert abs(corr(a[lag:], b[:N - lag])) < 0.035
    u = samples(RandomNumber(seed=1, distribution="uniform"), N)
    v = samples(RandomNumber(seed=2, distribution="uniform"), N)
    assert abs(corr(u, v)) < 0.035


def test_blocks_do_not_interfere():
    """Interleaving the evaluations of two blocks changes nothing: no shared generator."""
    a, b = RandomNumber(seed=8), RandomNumber(seed=9)
    alone = samples(a, 100)
    xa, xb, mixed = a.x0.copy(), b.x0.copy(), []
    for _ in range(100):
        b.output(0.0, xb, ())
        mixed.append(a.output(0.0, xa, ())[0])
        b.output(0.0, xb, ())
        xa, xb = np.asarray(a.update(0.0, xa, ())), np.asarray(b.update(0.0, xb, ()))
    np.testing.assert_array_equal(alone, mixed)


def test_block_is_not_mutated_and_copies_agree():
    b = RandomNumber(seed=6, size=3)
    before = pickle.dumps(b)
    first = samples(b, 20)
    assert pickle.dumps(b) == before
    np.testing.assert_array_equal(samples(copy.deepcopy(b), 20), first)
    np.testing.assert_array_equal(samples(pickle.loads(before), 20), first)


def test_random_number_vector():
    b = RandomNumber(seed=3, size=4)
    y = b.output(0.0, b.x0, ())[0]
    assert isinstance(y, np.ndarray) and y.dtype == np.float64 and y.shape == (4,)
    assert RandomNumber(size=1, seed=0).output(0.0, np.zeros(1), ())[0].shape == (1,)
    key = streams.stream_key(3)
    # element i at hit k is sample number k * size + i
    y2 = b.output(0.0, np.array([2.0]), ())[0]
    np.testing.assert_allclose(y2, [streams.normal_sample(key, 8 + i) for i in range(4)],
                               rtol=1e-13)
    ys = samples(b, 5000)
    assert ys.shape == (5000, 4)
    c = np.corrcoef(ys.T)
    assert np.all(np.abs(c - np.eye(4)) < 0.071)  # 5 / sqrt(5000)
    assert np.all(np.abs(ys.mean(axis=0)) < 0.071)


def test_random_number_vector_parameters():
    b = RandomNumber(mean=[0.0, 10.0, -5.0], variance=[1.0, 0.0, 4.0], seed=1)
    y = samples(b, 2000)
    assert y.shape == (2000, 3)
    assert np.all(y[:, 1] == 10.0)
    assert abs(y[:, 2].mean() + 5.0) < 0.25 and abs(y[:, 2].std() - 2.0) < 0.2
    b = RandomNumber(mean=1.0, variance=[1.0, 2.0], distribution="uniform", seed=0)
    assert b.output(0.0, b.x0, ())[0].shape == (2,)
    b = RandomNumber(mean=[1.0, 2.0], size=2, seed=0)
    assert b.output(0.0, np.zeros(1), ())[0].shape == (2,)


# ---------------------------------------------------------------------------- seed=None
def test_seed_none_uses_the_block_name():
    from blocksim import Diagram

    d = Diagram()
    a = d.add(RandomNumber(seed=None), name="a")
    b = d.add(RandomNumber(seed=None), name="b")
    ya, yb = samples(a, 200), samples(b, 200)
    assert abs(corr(ya, yb)) < 0.25 and not np.any(ya == yb)
    np.testing.assert_array_equal(
        ya, samples(RandomNumber(seed=streams.name_seed("a")), 200))
    d2 = Diagram()
    again = d2.add(RandomNumber(seed=None), name="a")
    np.testing.assert_array_equal(ya, samples(again, 200))
    assert a.stream_key() == streams.stream_key(2**32 + zlib.crc32(b"a"))


def test_seed_none_outside_a_diagram_raises():
    b = BandLimitedWhiteNoise(seed=None)
    with pytest.raises(ValueError, match=r"BandLimitedWhiteNoise with seed=None .* Diagram"):
        b.output(0.0, b.x0, ())


# ---------------------------------------------------------------------------- BandLimitedWhiteNoise
def test_band_limited_white_noise_declaration():
    b = BandLimitedWhiteNoise()
    assert b.is_discrete and b.clock == Clock(0.1) and b.state_names == ("k",)
    assert len(b.inputs) == 0 and b.output_feedthrough() == {"y": ()}
    assert b.params == {"power": 0.1, "clock": 0.1, "seed": None, "size": None}
    with pytest.raises(ValueError, match="seed=None takes its seed from its name"):
        b.output(0.0, b.x0, ())
    b = BandLimitedWhiteNoise(seed=0)
    y = b.output(0.0, b.x0, ())[0]
    assert type(y) is float
    # sqrt(power / Ts) * z, z the normal sample of the same seed and counter
    z = streams.normal_sample(streams.stream_key(0), 0)
    assert y == pytest.approx(math.sqrt(0.1 / 0.1) * z, rel=1e-15)
    np.testing.assert_array_equal(b.update(0.0, np.array([9.0]), ()), [10.0])


def test_band_limited_white_noise_variance_is_power_over_ts():
    y = samples(BandLimitedWhiteNoise(power=0.02, clock=0.005, seed=12), N)
    assert abs(y.var() / 4.0 - 1.0) < 0.05  # 0.02 / 0.005 = 4
    assert abs(y.mean()) < 5 * 2.0 / math.sqrt(N)
    assert abs(corr(y[:-1], y[1:])) < 0.035


def test_band_limited_white_noise_integral_is_wiener():
    """The integral of the held noise over t = k Ts has variance power * t (PSD = power)."""
    power, ts, k, m = 0.3, 0.01, 40, 5000
    y = samples(BandLimitedWhiteNoise(power=power, clock=ts, seed=5, size=m), k)
    w = y.sum(axis=0) * ts  # exact integral of the piecewise-constant signal, m paths
    assert abs(w.var() / (power * k * ts) - 1.0) < 0.1  # 5 sigma = 5 * sqrt(2 / m)


def test_band_limited_white_noise_vector_power():
    b = BandLimitedWhiteNoise(power=[0.1, 0.4], clock=0.1, seed=3)
    y = samples(b, N // 2)
    assert y.shape == (N // 2, 2)
    np.testing.assert_allclose(y.var(axis=0), [1.0, 4.0], rtol=0.08)
    assert abs(corr(y[:, 0], y[:, 1])) < 0.05
    assert BandLimitedWhiteNoise(size=3, seed=0).output(0.0, np.zeros(1), ())[0].shape == (3,)


# ---------------------------------------------------------------------------- parameter errors
@pytest.mark.parametrize("kwargs, match", [
    ({"seed": -1}, r"RandomNumber: parameter 'seed' must be an integer in \[0, 2\*\*64\).*-1"),
    ({"seed": 1.5}, r"RandomNumber: parameter 'seed' .* got 1\.5"),
    ({"seed": True}, r"parameter 'seed' .* got True"),
    ({"seed": "a"}, r"parameter 'seed' .* got 'a'"),
    ({"seed": 2**64}, r"parameter 'seed' must be an integer in \[0, 2\*\*64\)"),
    ({"size": 0}, r"RandomNumber: parameter 'size' must be None .* or an integer >= 1.*got 0"),
    ({"size": 2.0}, r"parameter 'size' .* got 2\.0"),
    ({"variance": -1.0}, r"RandomNumber: parameter 'variance' must be >= 0, got -1\.0"),
    ({"variance": [1.0, -1.0]}, r"parameter 'variance' must be >= 0"),
    ({"mean": float("nan")}, r"RandomNumber: parameter 'mean' must be finite"),
    ({"mean": "x"}, r"parameter 'mean' must be a real number or a 1-D sequence"),
    ({"mean": [[1.0]]}, r"parameter 'mean' must be a real number or a 1-D sequence"),
    ({"mean": [1.0, 2.0], "size": 3},
     r"parameter 'mean' has length 2, but the output has 3 elements \(size=3\)"),
    ({"mean": [1.0, 2.0], "variance": [1.0, 2.0, 3.0]},
     r"parameter 'variance' has length 3, but the output has 2 elements"),
    ({"distribution": "gaussian"}, r"RandomNumber: parameter 'distribution' must be one of "
                                   r"'normal', 'uniform', got 'gaussian'"),
    ({"distribution": "unifrom"}, r"did you mean 'uniform'"),
    ({"clock": 0.0}, r"RandomNumber: clock must be .* got 0\.0"),
    ({"clock": "fast"}, r"RandomNumber: clock must be"),
    ({"clock": None}, r"RandomNumber: parameter 'clock' must be .* got None"),
    ({"sigma": 1.0}, r"RandomNumber: unknown parameter 'sigma'.*valid parameters: mean, "
                     r"variance, seed, clock, size, distribution"),
])
def test_random_number_parameter_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        RandomNumber(**kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"power": -0.1}, r"BandLimitedWhiteNoise: parameter 'power' must be >= 0, got -0\.1"),
    ({"power": [0.1, float("inf")]}, r"BandLimitedWhiteNoise: parameter 'power' must be "
                                     r"finite"),
    ({"power": [0.1, 0.2], "size": 3}, r"parameter 'power' has length 2, but the output has "
                                       r"3 elements"),
    ({"seed": -3}, r"BandLimitedWhiteNoise: parameter 'seed' must be an integer"),
    ({"size": -1}, r"BandLimitedWhiteNoise: parameter 'size'"),
    ({"clock": -0.1}, r"BandLimitedWhiteNoise: clock must be"),
    ({"Ts": 0.1}, r"BandLimitedWhiteNoise: unknown parameter 'Ts'"),
])
def test_band_limited_white_noise_parameter_errors(kwargs, match):
    with pytest.raises(BlockParameterError, match=match):
        BandLimitedWhiteNoise(**kwargs)


def test_numpy_integer_seed_and_size_accepted():
    b = RandomNumber(seed=np.int64(4), size=np.int32(2))
    np.testing.assert_array_equal(samples(b, 5), samples(RandomNumber(seed=4, size=2), 5))


# ---------------------------------------------------------------------------- in a diagram
def _noise_diagram():
    from blocksim import Diagram
    from blocksim.blocks import Integrator

    d = Diagram()
    n = d.add(BandLimitedWhiteNoise(power=0.05, clock=(0.1, 0.05), seed=21), name="noise")
    r = d.add(RandomNumber(seed=22, clock=0.25, size=2), name="rand")
    i = d.add(Integrator(), name="int")
    d.connect(n, i)
    return d, r


def test_diagram_runs_are_identical_and_hold_the_unit_sequence():
    from blocksim import simulate

    d, _ = _noise_diagram()
    r1 = simulate(d, 1.0, max_step=0.02)
    r2 = simulate(d, 1.0, max_step=0.02)
    np.testing.assert_array_equal(r1.t, r2.t)
    np.testing.assert_array_equal(r1["noise.y"], r2["noise.y"])
    np.testing.assert_array_equal(r1["rand.y"], r2["rand.y"])
    np.testing.assert_array_equal(r1["int.y"], r2["int.y"])

    t, y = r1.t, r1["noise.y"]
    ref = samples(BandLimitedWhiteNoise(power=0.05, clock=(0.1, 0.05), seed=21), 11)
    # hits at exactly 0.05 + 0.1 k (exact fractions, as the engine schedules them); sample k
    # holds on [hit k, hit k+1); before the first hit the output is its value at t = 0
    hits = [float(Fraction(1, 20) + j * Fraction(1, 10)) for j in range(10)]
    assert set(hits) <= set(t)
    k = np.searchsorted(hits, t, side="right") - 1
    np.testing.assert_array_equal(y, ref[np.maximum(k, 0)])

    yr = r1["rand.y"]
    assert yr.shape == (t.size, 2)
    ref_r = samples(RandomNumber(seed=22, clock=0.25, size=2), 5)
    k = np.searchsorted([0.0, 0.25, 0.5, 0.75, 1.0], t, side="right") - 1
    np.testing.assert_array_equal(yr, ref_r[k])
    # the integrator sees the held noise: its value at 1.0 is the sum of the pieces
    pieces = np.diff(np.r_[0.0, 0.05 + 0.1 * np.arange(10), 1.0])  # [0, 0.05), [0.05, 0.15)...
    held = ref[np.r_[0, np.arange(10)]]
    assert r1["int.y"][-1] == pytest.approx(float(np.dot(pieces, held)), rel=1e-9, abs=1e-12)
