"""Bit tricks for kernels: LLVM's count-trailing-zeros and population-count instructions."""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def trailing_zeros(typingctx, value):
    """Number of trailing zero bits of an integer; the bit width (e.g. 64) for zero."""
    if not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        # is_zero_poison = false: cttz(0) is defined and equals the bit width.
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return value(value), codegen


@intrinsic
def popcount(typingctx, value):
    """Number of set bits of an integer."""
    if not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return value(value), codegen
