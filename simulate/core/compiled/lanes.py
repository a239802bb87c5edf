"""A tension mark over every seat at once: the hand sizes as the lanes of one SIMD vector.

A tension mark (the reference's ``mark``) reads every seat's hand, finds the fewest (or
the most) cards held and the seats holding them, and raises each seat's largest deficit
so far. Seat by seat that is some forty instructions with four seats, and the kernels take
a mark after every turn or trick. As one vector of hand sizes, a seat a lane, it is about
ten: load the hands; reduce them to the fewest in every lane by a butterfly of shuffles
and minimums; subtract, and keep the larger of that and the deficits; compare with the
fewest, which gives the seats holding them as a bit mask.

LLVM's vectorizers do not find this in the scalar code numba emits, so :data:`fewest_mark`
and :data:`most_mark` write the vector code themselves, as LLVM IR (numba intrinsics). The
IR is target-independent: LLVM picks the instructions (AVX-512, AVX2, NEON). For any target
other than the CPU (numba-cuda compiles the CPU kernels' ``@njit`` functions as GPU device
functions) a mark compiles its scalar twin instead, :func:`scalar_mark`, which also states
what the vector code computes (tests hold the two equal).

A mark is called as ``fewest_mark[lanes](held, held_at, behind, behind_at)``:

- ``held[held_at : held_at + lanes]`` (int64, C-contiguous): the hand sizes, seat 0 first.
  A lane past the last seat must hold :data:`PAD` for ``fewest_mark`` (so that it never
  holds the fewest) and 0 for ``most_mark``, where some seat must hold a card;
- ``behind[behind_at : behind_at + lanes]`` (int64, C-contiguous): the deficits, each
  raised to the seat's deficit at this mark (its cards minus the fewest, or the most minus
  its cards). The lanes past the last seat receive meaningless values: never read them;

and returns the seats holding the fewest (the most) cards, a bit each (int64, bit ``s``
for seat ``s``).

numba's on-disk cache is keyed on the calling kernel's source file, not on this one: after
changing the code here, touch the kernels (or ``make clean``) so that they compile again.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.cpu import CPUContext
from numba.extending import intrinsic

PAD = 1 << 40
"""The hand size of a lane past the last seat, for :data:`fewest_mark`."""

LANE_COUNTS = (2, 4, 8, 16)
"""The vector widths offered: a kernel takes the narrowest that holds its seats."""


@njit(cache=True, _nrt=False)
def scalar_mark(held, held_at, behind, behind_at, lanes, sign):
    """A mark seat by seat: :data:`fewest_mark` with ``sign`` 1, :data:`most_mark` with -1
    (the most cards are the fewest of the negated counts)."""
    fewest = sign * held[held_at]
    for seat in range(1, lanes):
        fewest = min(fewest, sign * held[held_at + seat])
    tied = np.int64(0)
    for seat in range(lanes):
        cards = sign * held[held_at + seat]
        behind[behind_at + seat] = max(behind[behind_at + seat], cards - fewest)
        tied |= np.int64(cards == fewest) << seat
    return tied


def _lanes_at(context, builder, array_type, array, offset, lanes):
    """A pointer to the ``lanes`` int64 from word ``offset`` of ``array``. The arrays are
    only 8-byte aligned, so every access through it says ``align=8`` (LLVM would assume a
    vector's own alignment, 32 bytes for four lanes)."""
    data = context.make_array(array_type)(context, builder, value=array).data
    pointer = builder.gep(data, [offset])
    return builder.bitcast(pointer, ir.VectorType(ir.IntType(64), lanes).as_pointer())


def _everywhere(builder, vector, lanes, keep):
    """The lane that ``keep`` (``'<'``: the least, ``'>'``: the greatest) picks, in every
    lane: a butterfly, each step setting lane i against lane i ^ step."""
    step = lanes // 2
    while step:
        order = [i ^ step for i in range(lanes)]
        partner = builder.shuffle_vector(
            vector, vector, ir.Constant(ir.VectorType(ir.IntType(32), lanes), order)
        )
        vector = builder.select(builder.icmp_signed(keep, vector, partner), vector, partner)
        step //= 2
    return vector


def _mark_intrinsic(lanes: int, most: bool):
    """The intrinsic of a mark over ``lanes`` seats: of the fewest cards, or of the most."""
    sign = -1 if most else 1

    def codegen(context, builder, signature, args):
        if not isinstance(context, CPUContext):

            def twin(held, held_at, behind, behind_at):
                return scalar_mark(held, held_at, behind, behind_at, lanes, sign)

            return context.compile_internal(builder, twin, signature, args)
        held_type, _, behind_type, _ = signature.args
        held_array, held_at, behind_array, behind_at = args
        held = builder.load(
            _lanes_at(context, builder, held_type, held_array, held_at, lanes), align=8
        )
        extreme = _everywhere(builder, held, lanes, ">" if most else "<")
        gap = builder.sub(extreme, held) if most else builder.sub(held, extreme)
        at = _lanes_at(context, builder, behind_type, behind_array, behind_at, lanes)
        behind = builder.load(at, align=8)
        raised = builder.select(builder.icmp_signed(">", gap, behind), gap, behind)
        builder.store(raised, at, align=8)
        tied = builder.bitcast(builder.icmp_signed("==", held, extreme), ir.IntType(lanes))
        return builder.zext(tied, ir.IntType(64))

    def typer(typingctx, held, held_at, behind, behind_at):
        for array in (held, behind):
            if not (
                isinstance(array, types.Array)
                and array.dtype == types.int64
                and array.ndim == 1
                and array.layout == "C"
            ):
                return None
        return types.int64(held, types.int64, behind, types.int64), codegen

    typer.__name__ = f"{'most' if most else 'fewest'}_mark_{lanes}"
    return intrinsic(typer)


fewest_mark = {lanes: _mark_intrinsic(lanes, most=False) for lanes in LANE_COUNTS}
"""Lanes -> the mark of the fewest cards (see the module)."""
most_mark = {lanes: _mark_intrinsic(lanes, most=True) for lanes in LANE_COUNTS}
"""Lanes -> the mark of the most cards (see the module)."""
