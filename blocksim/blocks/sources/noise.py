"""Random sources: :class:`RandomNumber` and :class:`BandLimitedWhiteNoise`.

Both are discrete (clocked) sources, Simulink-style: a new sample is drawn at each hit of the
block's ``clock`` and held until the next hit.

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
kernels (:meth:`RandomNumber.kernels`, :meth:`BandLimitedWhiteNoise.kernels`) loop over
:func:`normal_sample` / :func:`uniform_sample` for every size, so their output is bitwise equal
to the interpreted one for a scalar output and for vectors of up to ``MAX_LOOP_SIZE`` elements
(both call ``log``/``cos`` of the same libm), and for uniform vectors of any size (same integer
words, exact arithmetic). Normal vectors of more than ``MAX_LOOP_SIZE`` elements may differ from
the interpreted numpy path in the last bits: numpy's vectorised ``log`` (and, on some
platforms, ``cos``) is not libm's. Measured on x86-64 with AVX-512 (numpy 2.4): 0.15 % of the
samples differ, by at most 2 ulp (relative difference < 4.1e-16); the tests allow a relative
1e-15.

Seeds
-----
``seed`` is an integer in [0, 2**64). Blocks with the same seed produce the same sequence, so
give every noise block of a diagram its own seed. ``seed=None`` derives the seed from the
block's name in its diagram, ``2**32 + zlib.crc32(name.encode("utf-8"))`` (deterministic, unlike
Python's ``hash``): distinct blocks then get distinct streams without bookkeeping, but renaming
a block changes its noise. A block with ``seed=None`` must be in a diagram before its output is
evaluated.
"""

from __future__ import annotations

import math
import numbers
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit
from numba.extending import register_jitable

from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, suggest

__all__ = ["BandLimitedWhiteNoise", "RandomNumber"]

Value = float | np.ndarray
ClockArg = Clock | float | tuple[float, float]

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
_DISTRIBUTIONS = ("normal", "uniform")


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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def noise_update(t, x, params):
    """Kernel: the next counter, ``(k + 1,)``."""
    return (x[0] + 1.0,)


# ---------------------------------------------------------------------------- validation
def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _seed(cls: str, seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or not 0 <= int(seed) <= MASK64:
        raise BlockParameterError(
            f"{cls}: parameter 'seed' must be an integer in [0, 2**64) or None (derived from "
            f"the block's name), got {_short(seed)}")
    return int(seed)


def _size(cls: str, size: Any) -> int | None:
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or int(size) < 1:
        raise BlockParameterError(
            f"{cls}: parameter 'size' must be None (scalar output) or an integer >= 1 "
            f"(vector output), got {_short(size)}")
    return int(size)


def _params(cls: str, size: int | None, **named: Any) -> tuple[int | None, list[Value]]:
    """Scalars or 1-D arrays of one common length, broadcast to the output shape.

    Returns the output size (None for a scalar output) and the parameters, as Python floats
    for a scalar output and read-only float64 arrays of shape (size,) otherwise.
    """
    arrays = {}
    for name, value in named.items():
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            arr = np.asarray(None)
        if arr.dtype.kind not in "biuf" or arr.ndim > 1:
            raise BlockParameterError(
                f"{cls}: parameter '{name}' must be a real number or a 1-D sequence of real "
                f"numbers, got {_short(value)}")
        arr = np.array(arr, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise BlockParameterError(f"{cls}: parameter '{name}' must be finite, got "
                                      f"{_short(value)}")
        arrays[name] = arr
    lengths = {name: a.size for name, a in arrays.items() if a.ndim == 1}
    n = size
    for name, length in lengths.items():
        if n is None:
            n = length
        elif length != n:
            expected = (f"size={size}" if size is not None
                        else "the other parameters' length " + str(n))
            raise BlockParameterError(
                f"{cls}: parameter '{name}' has length {length}, but the output has "
                f"{n} elements ({expected}); give a scalar or a sequence of length {n}")
    if n is None:
        return None, [float(a) for a in arrays.values()]
    values = []
    for a in arrays.values():
        b = np.array(np.broadcast_to(a, (n,)), dtype=float)
        b.setflags(write=False)
        values.append(b)
    return n, values


# ---------------------------------------------------------------------------- blocks
class _CounterNoise(Block):
    """Shared machinery: a clocked source whose state is the sample counter ``k``."""

    outputs = (Port("y", doc="the held random sample"),)

    def _setup(self, cls: str, seed: Any, clock: Any, size: int | None) -> None:
        self._seed = _seed(cls, seed)
        self._key = None if self._seed is None else stream_key(self._seed)
        self.clock = as_clock(clock, cls)
        if self.clock is None:
            raise BlockParameterError(
                f"{cls}: parameter 'clock' must be a Clock, a period in seconds or a "
                f"(period, offset) pair, got None")
        self._size = size
        self.set_state([0.0], ["k"])

    def stream_key(self) -> int:
        """The 64-bit key of this block's stream (from ``seed``, or from the block's name)."""
        if self._key is not None:
            return self._key
        name = self.name
        if name is None:
            raise ValueError(
                f"{type(self).__name__} with seed=None takes its seed from its name in a "
                f"diagram, but it has not been added to one; add it to a Diagram or give an "
                f"integer seed")
        return stream_key(name_seed(name))

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> list[float]:
        return [x[0] + 1.0]

    def _kernels(self, kind: int, mean: Value, scale: Value) -> Kernels:
        """Kernels with ``params = (signed key, kind, mean, scale)``."""
        key = signed_key(self.stream_key())
        n = self._size
        if n is None:
            return Kernels(params=(key, kind, float(mean), float(scale)),
                           output=noise_output, update=noise_update)
        params = (key, kind, np.array(np.broadcast_to(mean, (n,)), dtype=np.float64),
                  np.array(scale, dtype=np.float64))
        return Kernels(params=params, output=noise_vector_output, update=noise_update)


class RandomNumber(_CounterNoise):
    """Random samples, drawn at each clock hit and held (Simulink *Random Number*, and
    *Uniform Random Number* with ``distribution="uniform"``).

    Equation, at the hit number ``k`` (t = offset + k * period), element ``i``:

    * ``"normal"``: ``y = mean + sqrt(variance) * z`` with ``z ~ N(0, 1)``;
    * ``"uniform"``: ``y = mean + sqrt(3 * variance) * (2 * v - 1)`` with ``v ~ U[0, 1)``, i.e.
      uniform on ``[mean - a, mean + a)`` with ``a = sqrt(3 * variance)``. For the interval
      ``[lo, hi)`` use ``mean = (lo + hi) / 2``, ``variance = (hi - lo)**2 / 12``.

    ``z`` and ``v`` are :func:`normal_sample` / :func:`uniform_sample` number ``k * m + i`` of
    the stream of ``seed`` (``m`` elements per sample, 1 for a scalar output): independent
    across hits, elements and seeds.

    Parameters
    ----------
    mean : float or sequence of float, shape () or (n,)
        Mean of the output [unit of y] (default 0).
    variance : float or sequence of float, shape () or (n,)
        Variance of the output [unit of y squared], >= 0 (default 1).
    seed : int or None
        Seed in [0, 2**64). Blocks with equal seeds give equal sequences. None (default)
        derives the seed from the block's name in its diagram (see
        :mod:`blocksim.blocks.sources.noise`), so two noise blocks are independent unless told
        otherwise, and every run of the diagram gives the same sequence.
    clock : Clock, float or (float, float)
        Sample clock: a :class:`~blocksim.engine.clock.Clock`, a period [s] or a
        ``(period, offset)`` pair [s] (default 0.1 s).
    size : int or None
        None (default): a scalar output, unless ``mean`` or ``variance`` is a sequence, whose
        length then sets the output size. An integer ``n >= 1``: a vector output of shape
        ``(n,)`` (``mean`` and ``variance`` are scalars or have length ``n``).
    distribution : {"normal", "uniform"}
        Distribution of the samples (default ``"normal"``).

    Inputs
    ------
    none

    Outputs
    -------
    y : float, or ndarray of shape (n,)
        The current sample, held between hits [unit of y].

    States
    ------
    k : discrete, float
        Number of hits so far (the sample counter); starts at 0.
    """

    def __init__(self, mean: float | Sequence[float] = 0.0,
                 variance: float | Sequence[float] = 1.0, seed: int | None = None,
                 clock: ClockArg = 0.1, size: int | None = None,
                 distribution: str = "normal") -> None:
        super().__init__()
        if distribution not in _DISTRIBUTIONS:
            raise BlockParameterError(
                f"RandomNumber: parameter 'distribution' must be one of "
                f"{', '.join(map(repr, _DISTRIBUTIONS))}, got {_short(distribution)}"
                f"{suggest(str(distribution), _DISTRIBUTIONS)}")
        n, (m, var) = _params("RandomNumber", _size("RandomNumber", size),
                              mean=mean, variance=variance)
        if np.any(np.asarray(var) < 0):
            raise BlockParameterError(
                f"RandomNumber: parameter 'variance' must be >= 0, got {_short(variance)}")
        self._setup("RandomNumber", seed, clock, n)
        self._uniform = distribution == "uniform"
        self._mean = m
        if isinstance(var, float):
            self._scale = math.sqrt(3.0 * var if self._uniform else var)
        else:
            scale = np.sqrt(3.0 * var if self._uniform else var)
            scale.setflags(write=False)
            self._scale = scale

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        k = int(x[0])
        key = self.stream_key()
        n = self._size
        if n is None:
            if self._uniform:
                return (self._mean + self._scale * (2.0 * uniform_sample(key, k) - 1.0),)
            return (self._mean + self._scale * normal_sample(key, k),)
        if self._uniform:
            return (self._mean + self._scale * (2.0 * uniform_samples(key, k * n, n) - 1.0),)
        return (self._mean + self._scale * normal_samples(key, k * n, n),)

    def kernels(self) -> Kernels:
        """Compiled kernels (see :mod:`blocksim.engine.compiled.kernels`).

        ``output`` is :func:`noise_output` (scalar) or :func:`noise_vector_output`, ``update``
        :func:`noise_update`; ``params = (key, kind, mean, scale)``: the stream key as a
        signed int64 (:func:`signed_key`; for ``seed=None`` computed from the block's name
        now, so the block must be in a diagram), ``KIND_NORMAL`` or ``KIND_UNIFORM``, and
        ``mean`` and ``scale`` (``sqrt(variance)``, or ``sqrt(3 variance)`` for uniform) as
        floats, or float64 arrays of shape ``(n,)`` for a vector output.
        """
        return self._kernels(KIND_UNIFORM if self._uniform else KIND_NORMAL, self._mean,
                             self._scale)


class BandLimitedWhiteNoise(_CounterNoise):
    """White noise of a given power spectral density, for continuous systems (Simulink
    *Band-Limited White Noise*).

    Equation, at the hit number ``k``: ``y = sqrt(power / Ts) * z`` held until the next hit,
    with ``Ts`` the clock period and ``z ~ N(0, 1)`` (:func:`normal_sample` number
    ``k * m + i`` of the stream of ``seed``, as in :class:`RandomNumber`).

    Spectrum: the held sequence has zero mean, variance ``power / Ts`` and the two-sided power
    spectral density ``S(f) = power * sinc(f * Ts)**2`` [unit**2 / Hz] (``sinc(x) =
    sin(pi x) / (pi x)``), flat at ``power`` for ``|f| << 1 / Ts`` (-3 dB at ``f ~ 0.44 / Ts``).
    Its autocorrelation is a triangle of area ``power`` and width ``2 Ts``, so it approximates
    continuous white noise of autocorrelation ``power * delta(tau)`` (one-sided PSD ``2 *
    power``): ``integral of y dt`` from 0 to ``t = k Ts`` has variance exactly ``power * t``,
    like the Wiener process ``sqrt(power) * W(t)``. Choose ``Ts`` well below the fastest time
    constant of the system it drives (Simulink suggests ``Ts ~ 1 / (100 f_max)`` with ``f_max``
    its bandwidth [Hz]).

    Parameters
    ----------
    power : float or sequence of float, shape () or (n,)
        Noise power, the height of the PSD [unit of y squared / Hz = unit**2 . s], >= 0
        (default 0.1).
    clock : Clock, float or (float, float)
        Sample clock; its period is the correlation time ``Ts`` [s] (default 0.1 s).
    seed : int or None
        Seed in [0, 2**64), or None (default) to derive it from the block's name, as in
        :class:`RandomNumber`.
    size : int or None
        None (default): a scalar output, or a vector of the length of ``power`` if it is a
        sequence. An integer ``n >= 1``: a vector output of shape ``(n,)`` of independent
        noises.

    Inputs
    ------
    none

    Outputs
    -------
    y : float, or ndarray of shape (n,)
        The current sample, held between hits [unit of y].

    States
    ------
    k : discrete, float
        Number of hits so far (the sample counter); starts at 0.
    """

    def __init__(self, power: float | Sequence[float] = 0.1, clock: ClockArg = 0.1,
                 seed: int | None = None, size: int | None = None) -> None:
        super().__init__()
        n, (p,) = _params("BandLimitedWhiteNoise", _size("BandLimitedWhiteNoise", size),
                          power=power)
        if np.any(np.asarray(p) < 0):
            raise BlockParameterError(
                f"BandLimitedWhiteNoise: parameter 'power' must be >= 0, got {_short(power)}")
        self._setup("BandLimitedWhiteNoise", seed, clock, n)
        ts = self.clock.period
        if isinstance(p, float):
            self._scale = math.sqrt(p / ts)
        else:
            scale = np.sqrt(p / ts)
            scale.setflags(write=False)
            self._scale = scale

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Value]:
        k = int(x[0])
        key = self.stream_key()
        n = self._size
        if n is None:
            return (self._scale * normal_sample(key, k),)
        return (self._scale * normal_samples(key, k * n, n),)

    def kernels(self) -> Kernels:
        """Compiled kernels (see :mod:`blocksim.engine.compiled.kernels`).

        As :meth:`RandomNumber.kernels` with ``kind = KIND_SCALED_NORMAL`` (``y = scale * z``,
        ``scale = sqrt(power / Ts)``; ``mean`` is 0.0, or zeros for a vector, and unused).
        """
        return self._kernels(KIND_SCALED_NORMAL, 0.0, self._scale)
