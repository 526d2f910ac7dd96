"""The counter-based random streams of the noise sources and their compiled kernels.

The numerics of :class:`~blocksim.blocks.sources.noise.RandomNumber` and
:class:`~blocksim.blocks.sources.noise.BandLimitedWhiteNoise` (:mod:`blocksim.blocks.sources.noise`
holds the blocks and their parameter checks).

Counter-based generation
------------------------
The blocks hold no random generator. Their only state is the sample counter ``k`` (stored as a
float64, exact for k < 2**53): at a hit the output is a pure function of ``(seed, k)`` and
``update`` returns ``k + 1``. A diagram can therefore be run twice, copied, pickled or run in
parallel, and always gives the same samples; blocks with different seeds are independent of
each other and of the evaluation order.

The numerics are small pure functions of unsigned 64-bit integers (Python ints masked to 64
bits) and floats:

* :func:`mix64` is the SplitMix64 finaliser (Steele, Lea & Flood, *Fast splittable pseudorandom
  number generators*, OOPSLA 2014; the constants are Vigna's ``splitmix64.c``), a bijection of
  the 64-bit integers with full avalanche.
* :func:`stream_key` hashes a seed into a 64-bit stream key, so that neighbouring seeds
  (0, 1, 2, ...) give unrelated streams.
* :func:`random_word` gives word ``n`` of the stream: ``mix64(key + (n + 1) * GAMMA)``, which is
  exactly the SplitMix64 generator started at state ``key`` (a generator that passes BigCrush);
  streams of different seeds are the same 2**64-periodic sequence entered at pseudo-random,
  far-apart positions.
* :func:`uniform_sample` maps a word to a double in [0, 1) (its top 53 bits);
  :func:`normal_sample` makes a standard normal from words ``2n`` and ``2n + 1`` by the
  Box–Muller transform (cosine branch only, so that every sample is a function of its own
  counter).

Element ``i`` of a vector output of size ``m`` at hit ``k`` uses sample number ``n = k*m + i``.
Vectors of more than ``MAX_LOOP_SIZE`` elements evaluate the same formulas with numpy
``uint64`` arithmetic (which wraps modulo 2**64 exactly like the masked Python ints); the
integer words are identical, the final ``log``/``sqrt``/``cos`` may differ from the scalar
``math`` ones in the last bit.

The scalar functions use only integer and float operations and compile unchanged with
``numba.njit`` (tested), giving the same values, when called with ``np.uint64`` arguments (numba
turns ``int64`` mixed with ``uint64`` into float64, hence no integer literals in the
arithmetic).

Reproducibility: a given seed gives the same integer words on every platform; the float
samples are bitwise reproducible run to run on one machine (the transcendental functions come
from the platform's libm / numpy).

Compiled kernels
----------------
The scalar functions are registered with :func:`numba.extending.register_jitable`: Python calls
them unchanged (no wrapper, no cost), numba-compiled code calls their compiled versions. The
kernels (``RandomNumber.kernels``, ``BandLimitedWhiteNoise.kernels``) loop over
:func:`normal_sample` / :func:`uniform_sample` for every size, so their output is bitwise equal
to the interpreted one for a scalar output and for vectors of up to ``MAX_LOOP_SIZE`` elements
(both call ``log``/``cos`` of the same libm), and for uniform vectors of any size (same integer
words, exact arithmetic). Normal vectors of more than ``MAX_LOOP_SIZE`` elements may differ from
the interpreted numpy path in the last bits: numpy's vectorised ``log`` (and, on some
platforms, ``cos``) is not libm's. Measured on x86-64 with AVX-512 (numpy 2.4): 0.15 % of the
samples differ, by at most 2 ulp (relative difference < 4.1e-16); the tests allow a relative
1e-15.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
from numba import njit
from numba.extending import register_jitable

#: 2**64 - 1: the mask that makes Python-int arithmetic modulo 2**64
MASK64 = 0xFFFF_FFFF_FFFF_FFFF
#: the SplitMix64 increment (odd; 2**64 / golden ratio)
GAMMA = 0x9E37_79B9_7F4A_7C15
#: added to seeds before hashing them into stream keys (any fixed odd constant)
SEED_SALT = 0x5EED_B10C_5EED_B10C
#: the offset of name-derived seeds (``seed=None``): 2**32 + crc32(name)
NAME_SEED_OFFSET = 2**32
#: 2**-53: the spacing of the doubles produced by :func:`uniform_sample`
_ULP53 = 2.0**-53
_TWO_PI = 2.0 * math.pi
#: vectors up to this size are drawn by a Python loop over the scalar functions (faster than
#: numpy's per-call overhead at these sizes: ~3.5 us per element against ~40 us per call)
MAX_LOOP_SIZE = 8


# ---------------------------------------------------------------------------- pure numerics
@register_jitable
def mix64(z: int) -> int:
    """The SplitMix64 finaliser: a bijective 64-bit mixing function.

    Parameters
    ----------
    z : int, 0 <= z < 2**64 (or a numpy uint64 array)

    Returns
    -------
    int, 0 <= result < 2**64 (or a uint64 array of the same shape)
    """
    z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & MASK64
    return z ^ (z >> 31)


@register_jitable
def stream_key(seed: int) -> int:
    """The 64-bit stream key of an integer ``seed`` in [0, 2**64)."""
    return mix64((seed * GAMMA + SEED_SALT) & MASK64)


@register_jitable
def random_word(key: int, n: int) -> int:
    """Word number ``n >= 0`` of the stream ``key``: a uniform integer in [0, 2**64).

    ``mix64(key + (n + 1) * GAMMA mod 2**64)``. Works element-wise on a numpy uint64 array
    ``n`` (then ``key`` is a Python int).
    """
    return mix64((key + n * GAMMA + GAMMA) & MASK64)


@register_jitable
def uniform_sample(key: int, n: int) -> float:
    """Uniform sample number ``n`` of the stream ``key``: a double in [0, 1), a multiple of
    2**-53, from the top 53 bits of word ``2n``."""
    return (random_word(key, n + n) >> 11) * _ULP53


@register_jitable
def normal_sample(key: int, n: int) -> float:
    """Standard normal sample number ``n`` of the stream ``key`` (Box–Muller).

    ``z = sqrt(-2 ln u1) * cos(2 pi u2)`` with ``u1`` in (0, 1] from word ``2n`` and ``u2`` in
    [0, 1) from word ``2n + 1``; ``|z| <= sqrt(106 ln 2) ~ 8.57``.
    """
    m = n + n
    u1 = ((random_word(key, m) >> 11) + 1) * _ULP53
    # word 2n + 1, written without integer literals so that numba keeps uint64 arithmetic
    u2 = (mix64((key + m * GAMMA + GAMMA + GAMMA) & MASK64) >> 11) * _ULP53
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)


def _counters(start: int, size: int) -> np.ndarray:
    """Sample numbers ``start, ..., start + size - 1`` as a uint64 array."""
    return np.arange(size, dtype=np.uint64) + np.uint64(start & MASK64)


def uniform_samples(key: int, start: int, size: int) -> np.ndarray:
    """``uniform_sample(key, n)`` for ``n = start, ..., start + size - 1``, shape (size,)."""
    if size <= MAX_LOOP_SIZE:
        return np.array([uniform_sample(key, n) for n in range(start, start + size)])
    n = _counters(start, size)
    return (random_word(key, n * np.uint64(2)) >> np.uint64(11)) * _ULP53


def normal_samples(key: int, start: int, size: int) -> np.ndarray:
    """``normal_sample(key, n)`` for ``n = start, ..., start + size - 1``, shape (size,).

    Bitwise equal to ``normal_sample`` up to ``MAX_LOOP_SIZE`` elements; above, numpy's
    ``log``/``sqrt``/``cos`` may differ from ``math``'s in the last bit.
    """
    if size <= MAX_LOOP_SIZE:
        return np.array([normal_sample(key, n) for n in range(start, start + size)])
    n2 = _counters(start, size) * np.uint64(2)
    u1 = ((random_word(key, n2) >> np.uint64(11)) + np.uint64(1)) * _ULP53
    u2 = (random_word(key, n2 + np.uint64(1)) >> np.uint64(11)) * _ULP53
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(_TWO_PI * u2)


def name_seed(name: str) -> int:
    """The seed used by ``seed=None``: ``2**32 + zlib.crc32(name.encode("utf-8"))``."""
    return NAME_SEED_OFFSET + zlib.crc32(name.encode("utf-8"))


# ---------------------------------------------------------------------------- compiled kernels
#: ``kind`` codes of the kernel parameters: ``mean + scale * z`` (z standard normal),
#: ``mean + scale * (2 v - 1)`` (v uniform on [0, 1)), ``scale * z``
KIND_NORMAL, KIND_UNIFORM, KIND_SCALED_NORMAL = 0, 1, 2


def signed_key(key: int) -> int:
    """The 64-bit ``key`` as the signed (two's complement) int64 with the same bits.

    Kernel parameters carry the key this way, so that numba always types it ``int64`` (a
    Python int >= 2**63 would be typed ``uint64``, another specialisation); the kernels turn
    it back with ``np.uint64(key)``, a bit-preserving cast in compiled code.
    """
    return key - 2**64 if key >= 2**63 else key


@njit(cache=True, error_model="numpy")
def noise_output(t, x, params):
    """Kernel: the scalar sample of hit ``k = x[0]``; ``params = (key, kind, mean, scale)``
    (``key`` from :func:`signed_key`, ``kind`` a ``KIND_*`` code, floats ``mean``, ``scale``)."""
    key = np.uint64(params[0])
    kind = params[1]
    n = np.uint64(x[0])
    if kind == KIND_UNIFORM:
        return params[2] + params[3] * (2.0 * uniform_sample(key, n) - 1.0)
    z = normal_sample(key, n)
    if kind == KIND_SCALED_NORMAL:
        return params[3] * z
    return params[2] + params[3] * z


@njit(cache=True, error_model="numpy")
def noise_vector_output(t, x, params):
    """Kernel: the vector sample of hit ``k = x[0]``, shape ``(m,)``; ``params = (key, kind,
    mean, scale)`` as in :func:`noise_output` with ``mean`` and ``scale`` float64 arrays of
    shape ``(m,)``. Element ``i`` is sample number ``k * m + i``."""
    key = np.uint64(params[0])
    kind = params[1]
    mean = params[2]
    scale = params[3]
    m = scale.size
    start = np.uint64(x[0]) * np.uint64(m)
    y = np.empty(m)
    for i in range(m):
        n = start + np.uint64(i)
        if kind == KIND_UNIFORM:
            y[i] = mean[i] + scale[i] * (2.0 * uniform_sample(key, n) - 1.0)
        elif kind == KIND_SCALED_NORMAL:
            y[i] = scale[i] * normal_sample(key, n)
        else:
            y[i] = mean[i] + scale[i] * normal_sample(key, n)
    return y


@njit(cache=True, error_model="numpy")
def noise_update(t, x, params):
    """Kernel: the next counter, ``(k + 1,)``."""
    return (x[0] + 1.0,)
