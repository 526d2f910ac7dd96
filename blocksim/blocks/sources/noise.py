"""Random sources: :class:`RandomNumber` and :class:`BandLimitedWhiteNoise`.

Both are discrete (clocked) sources, Simulink-style: a new sample is drawn at each hit of the
block's ``clock`` and held until the next hit.

The samples are pure functions of ``(seed, k)``, ``k`` the sample counter that is the blocks'
only state: the streams, their numerics and the compiled kernels are in
:mod:`blocksim.blocks.sources.random_streams`.

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
from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.sources.random_streams import (
    KIND_NORMAL,
    KIND_SCALED_NORMAL,
    KIND_UNIFORM,
    MASK64,
    name_seed,
    noise_output,
    noise_update,
    noise_vector_output,
    normal_sample,
    normal_samples,
    signed_key,
    stream_key,
    uniform_sample,
    uniform_samples,
)
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest

__all__ = ["BandLimitedWhiteNoise", "RandomNumber"]

Value = float | np.ndarray
ClockArg = Clock | float | tuple[float, float]
_DISTRIBUTIONS = ("normal", "uniform")


# ---------------------------------------------------------------------------- validation
def _short(value: Any) -> str:
    text = plain(value)
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
