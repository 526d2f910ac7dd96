"""Block entry points called through a pointer: the one calling convention of the data-wired tier.

Every block of a data-wired run is reached through an *entry*: a ``numba.cfunc`` with the one
signature :data:`ENTRY_SIGNATURE` (see :mod:`blocksim.engine.compiled.adapters`)::

    status = entry(op, which, t, state, sig, pv, pi, meta, out)

``op`` is the kernel to call (:class:`Op`), ``which`` the crossing number of ``on_event``,
``t`` the time [s]; the other arguments are addresses (int64): ``state`` of the block's first
state element, ``sig`` of the signal buffer, ``pv``/``pi`` of the flat parameter vectors,
``meta`` of the block's wiring row (offsets of its inputs, outputs and parameters, see
:mod:`blocksim.engine.compiled.wiring`) and ``out`` of where a derivative, update, crossing or
new state goes. It returns 0, or 1 when the kernel raised.

The loop (compiled once per installation) holds the entries' addresses as data and calls them
with :func:`call_entry`, an indirect call of a few nanoseconds; the entries read and write
memory with :func:`load_f8`, :func:`load_i8`, :func:`store_f8` and :func:`f8_pointer`.
These are numba intrinsics (a handful of LLVM instructions each).
"""

from __future__ import annotations

from enum import IntEnum

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


class Op(IntEnum):
    """Which kernel an entry calls."""

    OUTPUT = 0  # the outputs, stored into the signal buffer
    DERIV = 1  # dx/dt into ``out``
    UPDATE = 2  # the next discrete state into ``out``
    CROSSINGS = 3  # the zero-crossing functions into ``out``
    ON_EVENT = 4  # the new state after crossing ``which`` into ``out``


_I64 = ir.IntType(64)
_F64 = ir.DoubleType()
#: op, which, t, state, sig, pv, pi, meta, out -> status
ENTRY_SIGNATURE = types.int64(types.int64, types.int64, types.float64, types.int64,
                              types.int64, types.int64, types.int64, types.int64, types.int64)
_ENTRY_LLVM = ir.FunctionType(_I64, [_I64, _I64, _F64, _I64, _I64, _I64, _I64, _I64, _I64])


@intrinsic
def call_entry(typingctx, fn, op, which, t, state, sig, pv, pi, meta, out):
    """``fn(op, which, t, state, sig, pv, pi, meta, out)`` for the entry at address ``fn``."""
    i8 = types.int64
    sig_ = i8(i8, i8, i8, types.float64, i8, i8, i8, i8, i8, i8)

    def codegen(context, builder, signature, args):
        args = [context.cast(builder, a, ty, to) for a, ty, to in
                zip(args, signature.args, sig_.args)]
        target = builder.inttoptr(args[0], _ENTRY_LLVM.as_pointer())
        return builder.call(target, args[1:])

    return sig_, codegen


@intrinsic
def address(typingctx, array):
    """The address (int64) of ``array``'s first element."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, _I64)

    return types.int64(array), codegen


@intrinsic
def f8_pointer(typingctx, addr):
    """The float64 pointer at ``addr`` (for ``numba.carray``)."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], _F64.as_pointer())

    return types.CPointer(types.float64)(types.int64), codegen


@intrinsic
def load_f8(typingctx, addr):
    """The float64 at ``addr``."""
    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], _F64.as_pointer()))

    return types.float64(types.int64), codegen


@intrinsic
def load_i8(typingctx, addr):
    """The int64 at ``addr``."""
    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], _I64.as_pointer()))

    return types.int64(types.int64), codegen


@intrinsic
def store_f8(typingctx, addr, value):
    """Write ``value`` (cast to float64) at ``addr``."""
    if not isinstance(value, (types.Number, types.Boolean)):
        return None

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[1], signature.args[1], types.float64)
        builder.store(v, builder.inttoptr(args[0], _F64.as_pointer()))
        return cgutils.get_null_value(context.get_value_type(types.none))

    return types.none(types.int64, value), codegen


__all__ = ["ENTRY_SIGNATURE", "Op", "address", "call_entry", "f8_pointer", "load_f8",
           "load_i8", "store_f8"]
