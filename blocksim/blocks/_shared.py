"""Small helpers shared by the block modules.

Short reprs for error messages, integer checks, numbered port names and kernel parameters; two
scalar functions, :func:`_clip` and :func:`_sign`, used by interpreted methods and compiled
kernels alike (registered with :func:`numba.extending.register_jitable`: plain Python when
called from Python, compiled inline when called from a kernel); and the type guards of kernels
that branch on ``isinstance(u, float)`` (:func:`_scalar`, :func:`_array`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from blocksim.engine.block import check_port_count
from blocksim.engine.errors import plain

#: The state argument of a stateless block's kernel as the generated code passes it: its
#: module constant ``_EMPTY``, which numba types as a read-only array. An interpreted method
#: that calls the kernel passes this, so numba does not compile the kernel a second time for a
#: writable empty array (the IBVS kernel: some 6 s cold).
NO_STATE = np.zeros(0)
NO_STATE.flags.writeable = False


_F64 = np.dtype(np.float64)


def as_input(a: Any) -> Any:
    """An input signal in the layout the kernels are compiled for: a C-contiguous, writable
    float64 array (the engine hands the interpreted methods read-only signals, and a numba
    function called with one compiles a second, read-only version of itself); anything but
    an array unchanged."""
    if type(a) is np.ndarray:
        f = a.flags
        if not (f.c_contiguous and f.writeable and a.dtype is _F64):
            return np.array(a, dtype=np.float64, order="C")
    return a


def _short(value: Any) -> str:
    """``value`` for an error message, short enough (numbers plainly, never as numpy's
    ``np.float64(...)``: :func:`blocksim.engine.errors.plain`)."""
    text = plain(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _numbered(prefix: str, n: int, single: str) -> list[str]:
    """Port names: ``single`` for one port, ``prefix0, prefix1, ...`` otherwise (at most
    :data:`blocksim.engine.block.MAX_PORTS`, checked before the names are made)."""
    check_port_count(n, "", "input" if prefix == "u" else "output")
    return [single] if n == 1 else [f"{prefix}{i}" for i in range(n)]


def _param(value: Any) -> Any:
    """A kernel parameter: a Python float, or a writable C-contiguous float64 copy."""
    if isinstance(value, float):
        return value
    return np.array(value, dtype=np.float64, order="C")


@register_jitable
def _clip(v: float, lo: float, hi: float) -> float:
    """``min(max(v, lo), hi)`` for floats; NaN passes through."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@register_jitable
def _sign(v: float) -> float:
    """1.0, -1.0 or 0.0 (NaN for NaN; ``-0.0`` for ``-0.0``)."""
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0 * v)


# ---------------------------------------------------------------------------- compiled code only
#
# A kernel branches on ``isinstance(u, float)``; numba drops the branch that does not apply,
# but only after typing it, which compiles every function called there for the other type
# (the scalar functions are valid numba code for arrays too: that would double the compile
# time). So the float branch reads ``_scalar(u)`` and the array branch ``_array(u)``: these
# identities are typed only for floats (arrays), and the dead branch fails typing at once.
def _scalar(u: float) -> float:
    """``u``; compiled for a float only."""
    return u


@overload(_scalar)
def _scalar_compiled(u):  # type: ignore[no-untyped-def]
    if isinstance(u, types.Float):
        return lambda u: u
    return None


def _array(u: np.ndarray) -> np.ndarray:
    """``u``; compiled for an array only."""
    return u


@overload(_array)
def _array_compiled(u):  # type: ignore[no-untyped-def]
    if isinstance(u, types.Array):
        return lambda u: u
    return None


@register_jitable
def _element(v: Any, i: int) -> float:
    """A float, or element ``i`` of a flat array."""
    if isinstance(v, float):
        return _scalar(v)
    return _array(v)[i]


def _compiled_only(*args: Any) -> Any:
    """The Python body of a function that has a compiled implementation only (an overload)."""
    raise NotImplementedError("compiled code only (a numba overload)")


def unrolled(name: str, params: str, lines: list[str], names: dict[str, Any]) -> Any:
    """A function ``name(params)`` whose body is ``lines``, for a numba overload to return.

    The variadic kernels unroll over a tuple of inputs whose types differ (floats and arrays),
    one statement per input. Written as recursion (the head, then an overload of the tail),
    numba compiles one function per level, each linking the next: a 16-input Mux compiled 16
    functions, and in every one LLVM optimised all those below it again. Written out flat, it
    is one function whatever the arity. ``names`` are the globals ``lines`` refer to. The text
    comes from the number and the kinds of the inputs only, never from user data.
    """
    src = f"def {name}({params}):\n" + "\n".join(f"    {ln}" for ln in lines) + "\n"
    scope = dict(names)
    exec(compile(src, f"<blocksim unrolled {name}>", "exec"), scope)
    return scope[name]
