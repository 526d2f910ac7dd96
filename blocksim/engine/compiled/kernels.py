"""The kernel contract: what a block provides to run in the compiled back-end.

A block that can be compiled implements ``kernels(self) -> Kernels``. The compiled back-end
generates the source of one module per diagram that calls these functions in evaluation order,
with every signal held in a local variable, and compiles it with numba (``cache=True``).

Every kernel is a numba ``@njit(cache=True)`` function *defined at module level* (so numba can
cache it and the generated module can import it by name) with the argument order
``(t, x, u0, u1, ..., params)``:

``output(t, x, u0, ..., params) -> y``
    the block's outputs: one value for a one-output block, a tuple for several (floats for
    scalar ports, float64 arrays of the port's shape otherwise); ``None`` for a sink.
``deriv(t, x, u0, ..., params) -> dx``
    continuous blocks: a sequence of ``nx`` floats (a UniTuple or a 1-D array).
``update(t, x, u0, ..., params) -> x_next``
    discrete blocks: a sequence of ``nx`` floats, called at the block's clock hits.
``crossings(t, x, u0, ..., params) -> g``
    blocks with zero crossings: a sequence of as many floats as ``crossing_directions``.
``on_event(t, x, u0, ..., params, which) -> x_new``
    blocks whose events change their state: the new state (``nx`` floats) after crossing
    number ``which``; the state unchanged when that crossing changes nothing.

``t`` is float64, ``x`` the block's state slice (a 1-D float64 array, length 0 when
stateless), ``u_i`` the inputs as in the interpreted back-end (float for a scalar port, array
otherwise) and ``params`` the tuple ``Kernels.params`` (floats, ints, bools and C-contiguous
float64 arrays only: numba types it once, so a parameter sweep reuses the compiled code).

The numerics exist once: the kernels are numba-compiled versions of pure-Python functions that
the interpreted methods call, or — where the interpreted method has a faster pure-Python path
— the interpreted method is tested equal to the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any

#: per output port, the pieces ``(input_port, flat_indices or None)`` it is made of
Routes = tuple[tuple[tuple[int, tuple[int, ...] | None], ...], ...]


@dataclass(frozen=True)
class Kernels:
    """A block's compiled numerics.

    Attributes
    ----------
    params : tuple
        Numba-typable parameter values passed as the last argument of every kernel.
    output, deriv, update, crossings, on_event : numba dispatcher or None
        The kernels (see the module docstring); None where the block has no such method.
    routes : tuple, optional
        For a pure routing block (no state, output made of input elements): one entry per
        output port, a tuple of pieces ``(input_port, flat_indices)`` whose concatenation,
        reshaped to the port's shape, is the output. ``flat_indices`` is None (the whole
        input, flattened in C order) or a tuple of flat C-order element indices of that
        input. The code generator then writes copies (an alias for a single whole input)
        instead of calling ``output``.
    """

    params: tuple[Any, ...]
    _: KW_ONLY  # the kernels are named: Kernels(params, output=..., deriv=...)
    output: Callable[..., Any] | None = None
    deriv: Callable[..., Any] | None = None
    update: Callable[..., Any] | None = None
    crossings: Callable[..., Any] | None = None
    on_event: Callable[..., Any] | None = None
    routes: Routes | None = None


def kernels_of(block: Any) -> Kernels | None:
    """The block's kernels, or None when it has none (it then cannot be compiled)."""
    method = getattr(block, "kernels", None)
    return method() if method is not None else None
