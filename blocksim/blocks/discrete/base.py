r"""What the discrete-time blocks share: their sample clock, their semantics and their
parameter checks.

Every discrete block (:mod:`blocksim.blocks.discrete.sample_hold`,
:mod:`blocksim.blocks.discrete.calculus`, :mod:`blocksim.blocks.discrete.linear`,
:mod:`blocksim.blocks.discrete.pid`) has a sample ``clock`` (:class:`~blocksim.engine.clock.Clock`):
a ``Clock``, a period T [s] or a ``(period, offset)`` pair. The parameter is required: unlike
Simulink's ``-1``, there is no inherited sample time for a block with discrete states, and a sampler
that inherited its input's rate would do nothing.

Semantics (Simulink's)
----------------------
At the k-th hit :math:`t_k = \text{offset} + k T` of its clock, the engine computes the block's
outputs :math:`y[k] = \text{output}(t_k, x[k], u[k])`, in evaluation order (so an output with
feedthrough sees the inputs of the same hit), and *holds* them until the next hit; then it calls
:math:`x[k+1] = \text{update}(t_k, x[k], u[k])`. Every equation of these blocks is written in
these terms: ``y[k]`` is the output held on :math:`[t_k, t_{k+1})`, ``x[k]`` the state during
that interval, ``u[k]`` the input at :math:`t_k`. An output that does not read ``u[k]`` (no
feedthrough) never touches ``u`` in ``output``: the engine may call it before the inputs of the
hit are known.

Performance notes
-----------------
``output`` and ``update`` run once per hit (not once per solver stage), so they matter less
than continuous ``deriv`` kernels; still, scalar signals stay Python floats and the scalar and
small single-input single-output cases use pure-Python kernels bound at construction (measured:
a pure-Python ``A x + B u`` beats numpy up to 4 states, ``C x`` up to ~12). The class-level
``output``/``update`` are the numpy reference implementations; the tests check the bound kernels
against them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blocksim.blocks.continuous.params import _positive, _real_array
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.errors import BlockParameterError, plain


# -- helpers
def _sample_clock(owner: str, clock: Any) -> Clock:
    """The block's clock; ``None`` (no sample time) is refused."""
    if clock is None:
        raise BlockParameterError(
            f"{owner}: parameter 'clock' is required: give a Clock, a sample period in seconds "
            f"or a (period, offset) pair, e.g. clock=0.01 (discrete blocks do not inherit a "
            f"sample time)")
    c = as_clock(clock, owner)
    assert c is not None
    return c


def _as_signal(v: Any) -> Any:
    """``v`` as a signal value: a Python float for a scalar, else a fresh float64 array."""
    if type(v) is float:
        return v
    if np.ndim(v) == 0:
        return float(v)
    return np.array(v, dtype=float)


def _shaped_x0(owner: str, x0: Any, max_ndim: int = 2) -> np.ndarray:
    """A non-empty real initial state of at most ``max_ndim`` dimensions (shape kept)."""
    x0a = _real_array(owner, "x0", x0)
    if x0a.size == 0 or x0a.ndim > max_ndim:
        kind = "a scalar or a non-empty 1-D array" if max_ndim == 1 else \
            "a scalar or a non-empty array"
        raise BlockParameterError(
            f"{owner}: parameter 'x0' must be {kind} (it sets the signal shape), got shape "
            f"{x0a.shape}")
    return x0a


def _state_names(prefix: str, shape: tuple[int, ...], n: int) -> tuple[str, ...]:
    return (prefix,) if shape == () else tuple(f"{prefix}{i}" for i in range(n))


def _limits(owner: str, lower: Any, upper: Any, x0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``lower``/``upper`` broadcast to the shape of ``x0``; checked ``lower <= x0 <= upper``."""
    shape = x0.shape
    try:
        lo = np.broadcast_to(np.array(lower, dtype=float), shape)
        hi = np.broadcast_to(np.array(upper, dtype=float), shape)
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameters 'lower' and 'upper' must be numbers or arrays broadcastable to "
            f"the shape of x0 {shape}, got lower={plain(lower)}, upper={plain(upper)}") from None
    if np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
        raise BlockParameterError(
            f"{owner}: parameters 'lower'/'upper' must not be NaN; use -inf/inf for no limit")
    if np.any(lo > hi):
        raise BlockParameterError(
            f"{owner}: parameter 'lower' must be <= 'upper', got lower={plain(lower)}, "
            f"upper={plain(upper)}")
    if np.any(x0 < lo) or np.any(x0 > hi):
        raise BlockParameterError(
            f"{owner}: x0={plain(x0.tolist())} is outside the limits [lower, upper] = "
            f"[{plain(lower)}, {plain(upper)}]")
    return lo.reshape(-1).copy(), hi.reshape(-1).copy()


def _filter_tau(owner: str, N: Any) -> float:
    """Derivative filter time constant 1/N [s]; 0 for ``N=None`` (no filter)."""
    return 0.0 if N is None else 1.0 / _positive(owner, "N", N)
