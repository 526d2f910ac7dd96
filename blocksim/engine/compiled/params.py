"""Block parameters of a compiled diagram, packed into two flat vectors.

Every block's ``Kernels.params`` tuple is packed into ``pv`` (float64: floats and float
arrays) and ``pi`` (int64: ints, bools, uint64 seeds by bit pattern). The generated functions
rebuild each block's tuple from them, so one compiled module serves every parameter value, every
member of a batch and every process: the layout (kinds and array shapes) is part of the
diagram's structure, the values are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ParamLayout:
    """How each block's parameter tuple is packed into ``pv``/``pi``: per block, a tuple of
    ``(kind, start, shape)`` with kind "f" (float in pv), "a" (float array in pv), "i" (int in
    pi), "b" (bool in pi) or "u" (uint64 in pi)."""

    items: tuple[tuple[tuple[str, int, tuple[int, ...]], ...], ...]
    nv: int
    ni: int


def _kind(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, np.uint64):
        return "u"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, (float, np.floating)):
        return "f"
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return "a"
    raise TypeError(f"kernel parameter {value!r} ({type(value).__name__}) is not a float, int, "
                    f"bool, numpy.uint64 or float64 array")


def param_layout(params: list[tuple[Any, ...]]) -> ParamLayout:
    """The packing of every block's parameter tuple."""
    items, nv, ni = [], 0, 0
    for tup in params:
        block_items = []
        for value in tup:
            kind = _kind(value)
            if kind == "a":
                block_items.append((kind, nv, tuple(value.shape)))
                nv += int(value.size)
            elif kind == "f":
                block_items.append((kind, nv, ()))
                nv += 1
            else:
                block_items.append((kind, ni, ()))
                ni += 1
        items.append(tuple(block_items))
    return ParamLayout(tuple(items), nv, ni)


def pack_params(params: list[tuple[Any, ...]], layout: ParamLayout) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """The flat (pv, pi) vectors of ``params`` (same structure as ``layout``)."""
    pv = np.zeros(max(layout.nv, 1))
    pi = np.zeros(max(layout.ni, 1), dtype=np.int64)
    for tup, block_items in zip(params, layout.items):
        pack_block(tup, block_items, pv, pi)
    return pv, pi


def pack_block(tup: tuple[Any, ...], block_items: tuple[tuple[str, int, tuple[int, ...]], ...],
               pv: np.ndarray, pi: np.ndarray) -> None:
    """Write one block's parameter tuple into its slots of ``pv``/``pi`` (in place)."""
    if len(tup) != len(block_items):
        raise ValueError("parameter structure differs from the compiled layout")
    for value, (kind, start, shape) in zip(tup, block_items):
        if _kind(value) != kind or (kind == "a" and tuple(value.shape) != shape):
            raise ValueError(f"parameter {value!r} does not match the compiled layout "
                             f"({kind}, shape {shape})")
        if kind == "a":
            pv[start:start + value.size] = value.ravel()
        elif kind == "f":
            pv[start] = value
        elif kind == "u":
            pi[start] = np.array([value], dtype=np.uint64).view(np.int64)[0]
        else:
            pi[start] = int(value)
