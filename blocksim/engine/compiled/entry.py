"""Block entry points called through a pointer: the one calling convention of the data-wired tier.

Every block of a data-wired run is reached through an *entry*: a ``numba.cfunc`` with the one
signature :data:`ENTRY_SIGNATURE` (see :mod:`blocksim.engine.compiled.adapters`)::

    status = entry(op, which, t, state, sig, pv, pi, meta, out)

There is one entry per kernel kind (output, deriv, ...): an entry that calls its kernel
directly ignores ``op``, one that calls it through its address (:func:`call_kernel`, the
robotics families: see :data:`blocksim.engine.compiled.adapters.LINKED_FAMILIES`) receives
that address in ``op``. ``which`` is the crossing number of ``on_event`` (the number of
crossing functions for ``crossings``),
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

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.callconv import excinfo_t
from numba.extending import intrinsic

from blocksim.engine.compiled.warmup import fold_star_args

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


@intrinsic
def call_kernel(typingctx, kernel, addr, *args):
    """``kernel(*args)`` through the address ``addr`` of its compiled code for these
    argument types (numba's calling convention; an exception it raises propagates). The
    caller's module is not linked with the kernel's code, so compiling a caller of a large
    kernel costs what the caller itself costs (an entry of the EKF: 0.1 instead of 2-3 s)."""
    star = args[0] if len(args) == 1 and isinstance(args[0], types.StarArgTuple) else \
        types.StarArgTuple.from_types(tuple(args))
    if not isinstance(kernel, types.Dispatcher):
        return None
    argtys = tuple(star.types)
    restype = compiled(kernel.dispatcher, argtys).signature.return_type
    sig_ = restype(kernel, types.int64, star)

    def codegen(context, builder, signature, llargs):
        call_conv = context.call_conv
        fnty = call_conv.get_function_type(restype, argtys)
        callee = builder.inttoptr(llargs[1], fnty.as_pointer())
        retty = call_conv.get_return_type(restype).pointee
        retvaltmp = cgutils.alloca_once(builder, retty)
        builder.store(cgutils.get_null_value(retty), retvaltmp)
        excinfoptr = cgutils.alloca_once(builder, ir.PointerType(excinfo_t), name="excinfo")
        values = cgutils.unpack_tuple(builder, llargs[2], len(argtys))
        packed = list(call_conv._get_arg_packer(argtys).as_arguments(builder, values))
        code = builder.call(callee, [retvaltmp, excinfoptr, *packed])
        status = call_conv._get_return_status(builder, code, builder.load(excinfoptr))
        call_conv.return_status_propagate(builder, status)
        return context.get_returned_value(builder, restype, builder.load(retvaltmp))

    return sig_, codegen


def compiled(kernel: Any, argtys: tuple[Any, ...]) -> Any:
    """The compile result of ``kernel`` for a call with ``argtys`` (compiled, or loaded from
    numba's cache, here); a variadic kernel's extra arguments folded as numba folds them."""
    folded = tuple(fold_star_args(kernel, argtys))
    kernel.compile(folded)
    return kernel.overloads[folded]


def kernel_address(kernel: Any, argtys: tuple[Any, ...]) -> int:
    """The address of ``kernel``'s compiled code for ``argtys`` (numba's calling convention),
    for :func:`call_kernel`."""
    cres = compiled(kernel, argtys)
    return int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))


__all__ = ["ENTRY_SIGNATURE", "address", "call_entry", "call_kernel", "compiled",
           "f8_pointer", "kernel_address", "load_f8", "load_i8", "store_f8"]
