"""The fixed numba signatures of a compiled diagram's functions.

Every generated diagram module compiles its functions with these signatures, so the shared
integration loop (:mod:`blocksim.engine.compiled.loops`) takes them as first-class functions and
is compiled once for all diagrams. Arguments: time ``t``; continuous state ``x``; discrete state
``xd``; the flat parameter vectors ``pv`` (float64) and ``pi`` (int64); the flat signal buffer
``sig``; then the function's own.
"""

from numba import types

F8 = types.float64
A8 = types.float64[::1]
I8 = types.int64[::1]
B1 = types.boolean[::1]

#: evaluate(t, x, xd, pv, pi, sig, mode, fired)
EVALUATE = types.void(F8, A8, A8, A8, I8, A8, types.int64, B1)
#: rhs(t, x, xd, pv, pi, sig, dx)
RHS = types.void(F8, A8, A8, A8, I8, A8, A8)
#: update(t, x, xd, pv, pi, sig, fired, xd_new)
UPDATE = types.void(F8, A8, A8, A8, I8, A8, B1, A8)
#: crossings(t, x, xd, pv, pi, sig, g)
CROSSINGS = types.void(F8, A8, A8, A8, I8, A8, A8)
#: fire(t, x, xd, pv, pi, sig, mask, x_new, xd_new) -> stop
FIRE = types.boolean(F8, A8, A8, A8, I8, A8, B1, A8, A8)
