"""The compiled inner loop of the exact-cover search (numba); imported only when numba is installed.

Cells are bits of a board of W 64-bit words, numbered in the order the search fills them; each atom
(placement) is a mask of W words and uses one copy of its piece. The search takes the lowest empty
cell and tries, in turn, every atom whose lowest cell it is (all lower cells are already filled, so
no other atom can cover it). Its whole state lives in arrays the caller owns, so each call places
at most a given number of atoms and returns, and the next call resumes where it left off: the
caller checks the clock and Ctrl-C in between.

State, per depth d: `boards[d]` the cells filled before level d, `cells[d]` the cell level d fills
(-1: not chosen yet), `positions[d]` the next candidate to try for it, `chosen[d]` the atom placed
at level d. `left[p]` counts the copies of piece p not yet placed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

Array = Any  # numpy arrays; numba compiles one version per dtype and dimension

ZERO = np.uint64(0)
ONE = np.uint64(1)
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
SHIFT = np.uint64(58)


def _de_bruijn_table() -> Array:
    """bit_of[(b * DE_BRUIJN) >> 58] = i for b = 2**i: the index of a lone set bit in a few operations."""
    table = np.zeros(64, np.int64)
    for bit in range(64):
        table[((1 << bit) * int(DE_BRUIJN) & (2**64 - 1)) >> 58] = bit
    return table


BIT_OF = _de_bruijn_table()


@njit(cache=True)
def lowest_empty(board: Array, primary: Array, bit_of: Array) -> int:
    """The lowest cell that must be filled and is still empty, or -1 when there is none."""
    for word in range(board.shape[0]):
        empty = primary[word] & ~board[word]
        if empty != ZERO:
            lowest = empty & (~empty + ONE)
            return word * 64 + int(bit_of[(lowest * DE_BRUIJN) >> SHIFT])
    return -1


@njit(cache=True)
def search(
    masks: Array,
    atom_piece: Array,
    starts: Array,
    candidates: Array,
    primary: Array,
    least: Array,
    most: Array,
    bit_of: Array,
    left: Array,
    boards: Array,
    cells: Array,
    positions: Array,
    chosen: Array,
    depth: int,
    step_budget: int,
    found: Array,
    found_length: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    Returns when the tree is exhausted (depth -1), when `found` is full, or after `step_budget`
    placements. Candidates for cell c are `candidates[starts[c]:starts[c + 1]]`. A solution is
    written as the atoms placed, `found_length` of them; it needs at least `least[p]` copies of
    each piece p (of `most[p]` available).
    """
    words = masks.shape[1]
    count = 0
    steps = 0
    while depth >= 0:
        if cells[depth] < 0:
            cell = lowest_empty(boards[depth], primary, bit_of)
            if cell < 0:
                enough = True
                for piece in range(least.shape[0]):
                    if most[piece] - left[piece] < least[piece]:
                        enough = False
                        break
                if enough:
                    for level in range(depth):
                        found[count, level] = chosen[level]
                    found_length[count] = depth
                    count += 1
                depth -= 1
                if depth >= 0:
                    left[atom_piece[chosen[depth]]] += 1
                if count == found.shape[0]:
                    return depth, count, steps
                continue
            cells[depth] = cell
            positions[depth] = starts[cell]
        if steps >= step_budget:
            return depth, count, steps
        cell = cells[depth]
        index = positions[depth]
        end = starts[cell + 1]
        placed = False
        while index < end:
            atom = candidates[index]
            index += 1
            piece = atom_piece[atom]
            if left[piece] == 0:
                continue
            clash = False
            for word in range(words):
                if masks[atom, word] & boards[depth, word] != ZERO:
                    clash = True
                    break
            if clash:
                continue
            steps += 1
            positions[depth] = index
            chosen[depth] = atom
            left[piece] -= 1
            for word in range(words):
                boards[depth + 1, word] = boards[depth, word] | masks[atom, word]
            depth += 1
            cells[depth] = -1
            placed = True
            break
        if not placed:
            cells[depth] = -1
            depth -= 1
            if depth >= 0:
                left[atom_piece[chosen[depth]]] += 1
    return depth, count, steps
