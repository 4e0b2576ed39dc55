"""The compiled inner loop of the exact-cover search (numba); imported only when numba is installed.

Cells are bits of a board of W 64-bit words, numbered in the order the search fills them; each atom
(placement) is a mask of W words and uses one copy of its piece. The search takes the lowest cell
not yet decided and tries, in turn, every atom whose lowest cell it is (all lower cells are decided,
so no other atom can cover it); a cell that may stay empty (optional) is then also left empty, as a
hole. So every solution is met exactly once, holes included. Its whole state lives in arrays the
caller owns, so each call places at most a given number of atoms and returns, and the next call
resumes where it left off: the caller checks the clock and Ctrl-C in between.

State, per depth d: `boards[d]` the cells decided before level d (filled or holes), `cells[d]` the
cell level d decides (-1: not chosen yet), `positions[d]` the next candidate to try for it (one past
the candidates: the hole comes next; two past: done), `chosen[d]` the atom placed at level d (-1: a
hole). `left[p]` counts the copies of piece p not yet placed, `group_left[g]` the pieces group g may
still use, `holes[0]` the holes made so far.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .bits import DE_BRUIJN, ONE, SHIFT, ZERO

Array = Any  # numpy arrays; numba compiles one version per dtype and dimension


@njit(cache=True)
def lowest_undecided(board: Array, cells: Array, bit_of: Array) -> int:
    """The lowest cell of the target not yet filled or left empty, or -1 when there is none."""
    for word in range(board.shape[0]):
        open_cells = cells[word] & ~board[word]
        if open_cells != ZERO:
            lowest = open_cells & (~open_cells + ONE)
            return word * 64 + int(bit_of[(lowest * DE_BRUIJN) >> SHIFT])
    return -1


@njit(cache=True)
def _enough(left: Array, least: Array, most: Array, group_left: Array, group_spare: Array) -> bool:
    """Whether the pieces placed meet every piece's and group's least number."""
    for piece in range(least.shape[0]):
        if most[piece] - left[piece] < least[piece]:
            return False
    for group in range(group_spare.shape[0]):  # noqa: SIM110 (numba compiles loops, not generators)
        if group_left[group] > group_spare[group]:
            return False
    return True


# Candidates a slice may look at per placement of its budget. A placement of a small piece costs
# about as much as looking at a few candidates; on a 9x9x9 design of 40-cube pieces one placement
# took 330 µs of looking (thousands of candidates on a 12-word board), so that a slice of two
# million placements ran for minutes and neither Ctrl-C nor the time limit was heard.
EXAMINED_PER_STEP = 4


@njit(cache=True)
def write_found(found: Array, found_length: Array, row: int, chosen: Array, depth: int) -> None:
    """Write the placements chosen at levels 0 .. depth - 1 as solution `row`, without the holes
    (-1): both searches' kernels hand their solutions on this way."""
    written = 0
    for level in range(depth):
        if chosen[level] >= 0:
            found[row, written] = chosen[level]
            written += 1
    found_length[row] = written


@njit(cache=True)
def _take(atom: int, atom_piece: Array, group_of: Array, left: Array, group_left: Array, sign: int) -> None:
    piece = atom_piece[atom]
    left[piece] -= sign
    group = group_of[piece]
    if group >= 0:
        group_left[group] -= sign


@njit(cache=True)
def search(
    masks: Array,
    atom_piece: Array,
    starts: Array,
    candidates: Array,
    target: Array,
    optional: Array,
    least: Array,
    most: Array,
    group_of: Array,
    group_spare: Array,
    max_holes: int,
    bit_of: Array,
    left: Array,
    group_left: Array,
    holes: Array,
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
    written as the atoms placed, `found_length` of them. `group_spare[g]` is how much of group g's
    allowance may remain unused (its most minus its least): `group_left` may not end above it.
    """
    words = masks.shape[1]
    count = 0
    steps = 0
    examined = 0  # candidates looked at: where each clashes, a slice is bounded by them, not placements
    examine_budget = step_budget * EXAMINED_PER_STEP
    while depth >= 0:
        if cells[depth] < 0:
            cell = lowest_undecided(boards[depth], target, bit_of)
            if cell < 0:
                if _enough(left, least, most, group_left, group_spare):
                    write_found(found, found_length, count, chosen, depth)
                    count += 1
                depth -= 1
                if depth >= 0:
                    if chosen[depth] >= 0:
                        _take(chosen[depth], atom_piece, group_of, left, group_left, -1)
                    else:
                        holes[0] -= 1
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
            if examined >= examine_budget:
                positions[depth] = index
                return depth, count, steps
            examined += 1
            atom = candidates[index]
            index += 1
            piece = atom_piece[atom]
            if left[piece] == 0:
                continue
            group = group_of[piece]
            if group >= 0 and group_left[group] == 0:
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
            _take(atom, atom_piece, group_of, left, group_left, 1)
            for word in range(words):
                boards[depth + 1, word] = boards[depth, word] | masks[atom, word]
            depth += 1
            cells[depth] = -1
            placed = True
            break
        if placed:
            continue
        bit_word = cell // 64
        bit = ONE << np.uint64(cell % 64)
        if index == end and (optional[bit_word] & bit) != ZERO and holes[0] < max_holes:
            steps += 1
            positions[depth] = end + 1  # the hole is being tried
            chosen[depth] = -1
            holes[0] += 1
            for word in range(words):
                boards[depth + 1, word] = boards[depth, word]
            boards[depth + 1, bit_word] |= bit
            depth += 1
            cells[depth] = -1
            continue
        cells[depth] = -1
        depth -= 1
        if depth >= 0:  # the same undo as after a solution: written out, as a function (even with
            # inline="always") it made the search 1.4 times slower (pentominoes 0.30 s against 0.22 s)
            if chosen[depth] >= 0:
                _take(chosen[depth], atom_piece, group_of, left, group_left, -1)
            else:
                holes[0] -= 1
    return depth, count, steps
