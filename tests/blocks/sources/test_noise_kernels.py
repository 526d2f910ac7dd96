"""Compiled kernels of the noise sources (:mod:`blocksim.blocks.sources.random_streams`) against
the interpreted :class:`RandomNumber` and :class:`BandLimitedWhiteNoise`.

Equality is bitwise, except normal vectors longer than ``MAX_LOOP_SIZE`` (interpreted with
numpy's own ``log``), which agree to a relative 1e-15.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from blocksim import Diagram
from blocksim.blocks.sources import random_streams as streams
from blocksim.blocks.sources.noise import BandLimitedWhiteNoise, RandomNumber
from tests.blocks.kernel_checks import assert_bitwise, assert_sequence, check_params

NOISE_BLOCKS = {
    "normal": lambda: RandomNumber(seed=1),
    "normal-mean-var": lambda: RandomNumber(mean=-2.0, variance=0.3, seed=2**63 + 5),
    "uniform": lambda: RandomNumber(mean=1.0, variance=3.0, seed=2**64 - 1,
                                    distribution="uniform"),
    "zero-variance": lambda: RandomNumber(mean=-1.0, variance=0.0, seed=0),
    "vector-1": lambda: RandomNumber(size=1, seed=4),
    "vector-3": lambda: RandomNumber(mean=[0.0, 10.0, -5.0], variance=[1.0, 0.0, 4.0],
                                     seed=7),
    "vector-8-uniform": lambda: RandomNumber(mean=1.0, variance=[1.0, 2.0] * 4, seed=8,
                                             distribution="uniform"),
    "blwn": lambda: BandLimitedWhiteNoise(power=0.2, clock=0.01, seed=3),
    "blwn-zero-power": lambda: BandLimitedWhiteNoise(power=0.0, seed=3),
    "blwn-vector": lambda: BandLimitedWhiteNoise(power=[0.1, 0.0, 2.0], seed=2**63),
}
COUNTERS = (0, 1, 2, 17, 2**40 + 3, 2**52)


@pytest.mark.parametrize("make", NOISE_BLOCKS.values(), ids=NOISE_BLOCKS.keys())
def test_noise_kernels_are_bitwise_equal(make):
    b = make()
    k = b.kernels()
    check_params(k.params)
    assert k.deriv is None
    vector = b.params["size"] is not None or np.ndim(k.params[3]) == 1
    assert k.output is (streams.noise_vector_output if vector else streams.noise_output)
    for n in COUNTERS:
        x = np.array([float(n)])
        assert_bitwise(k.output(0.0, x, k.params), b.output(0.0, x, ())[0])
        assert_sequence(k.update(0.0, x, k.params), b.update(0.0, x, ()), 1)


@pytest.mark.parametrize("size", [9, 300, 5000])
def test_noise_kernels_long_vectors(size):
    """Beyond MAX_LOOP_SIZE the interpreted path is numpy: uniform bitwise, normal to 1e-15."""
    u = RandomNumber(mean=0.5, variance=2.0, seed=11, size=size, distribution="uniform")
    z = BandLimitedWhiteNoise(power=0.5, seed=12, size=size)
    r = RandomNumber(mean=-3.0, seed=13, size=size)
    ku, kz, kr = u.kernels(), z.kernels(), r.kernels()
    for n in (0, 1, 2**40):
        x = np.array([float(n)])
        assert_bitwise(ku.output(0.0, x, ku.params), u.output(0.0, x, ())[0])
        for b, k in ((z, kz), (r, kr)):
            yk, yi = k.output(0.0, x, k.params), b.output(0.0, x, ())[0]
            assert yk.shape == (size,) and yk.dtype == np.float64
            np.testing.assert_allclose(yk, yi, rtol=1e-15, atol=0.0)
            # the kernel is exactly the scalar function, element by element
            key = b.stream_key()
            first = [streams.normal_sample(key, n * size + i) for i in range(8)]
            assert_bitwise(yk[:8], np.asarray(first) * k.params[3][:8] + k.params[2][:8]
                        if b is r else k.params[3][:8] * np.asarray(first))


def test_noise_kernel_params_layout():
    b = RandomNumber(mean=[1.0, 2.0], variance=4.0, seed=2**64 - 2)
    key, kind, mean, scale = b.kernels().params
    assert type(key) is int and -(2**63) <= key < 2**63
    assert key % 2**64 == streams.stream_key(2**64 - 2)
    assert kind == streams.KIND_NORMAL
    np.testing.assert_array_equal(mean, [1.0, 2.0])
    np.testing.assert_array_equal(scale, [2.0, 2.0])
    assert mean.flags.writeable and scale.flags.writeable
    assert RandomNumber(seed=0, distribution="uniform").kernels().params[1] == \
        streams.KIND_UNIFORM
    key, kind, mean, scale = BandLimitedWhiteNoise(power=0.4, clock=0.1, seed=5).kernels().params
    assert (key, kind, mean) == (streams.stream_key(5), streams.KIND_SCALED_NORMAL, 0.0)
    assert scale == math.sqrt(0.4 / 0.1)
    assert streams.signed_key(2**63) == -(2**63) and streams.signed_key(2**63 - 1) == 2**63 - 1


def test_noise_kernels_of_seed_none_blocks_use_the_name():
    d = Diagram()
    b = d.add(BandLimitedWhiteNoise(seed=None, size=2), name="noise_3")
    k = b.kernels()
    assert k.params[0] % 2**64 == streams.stream_key(streams.name_seed("noise_3"))
    x = np.array([3.0])
    assert_bitwise(k.output(0.0, x, k.params), b.output(0.0, x, ())[0])
    with pytest.raises(ValueError, match="seed=None"):
        RandomNumber(seed=None).kernels()


def test_noise_parameter_sweep_reuses_the_compiled_kernel():
    x = np.array([1.0])
    for seed in (0, 2**63 + 1):  # int64 keys of both signs: one signature
        for dist in ("normal", "uniform"):
            k = RandomNumber(seed=seed, distribution=dist, mean=0.5).kernels()
            k.output(0.0, x, k.params)
    k = BandLimitedWhiteNoise(seed=9).kernels()
    k.output(0.0, x, k.params)
    assert len(streams.noise_output.signatures) == 1


def test_noise_kernels_are_cached_module_level_functions():
    for make in NOISE_BLOCKS.values():
        for f in (make().kernels().output, make().kernels().update):
            assert f.py_func.__module__ == streams.__name__
            assert getattr(streams, f.__name__) is f  # importable by name
            assert type(f._cache).__name__ == "FunctionCache"  # cache=True


@njit
def _as_generated_code(t, xs, P):
    """The kernels called from compiled code on a state slice, as the generated module does."""
    y = streams.noise_output(t, xs[1:2], P)
    k = streams.noise_update(t, xs[1:2], P)
    return y, k[0]


def test_noise_kernels_called_from_compiled_code():
    rn = RandomNumber(seed=3)
    xs = np.array([-1.0, 4.0, 2.0])
    y, k = _as_generated_code(0.0, xs, rn.kernels().params)
    assert_bitwise(y, rn.output(0.0, xs[1:2], ())[0])
    assert k == 5.0
