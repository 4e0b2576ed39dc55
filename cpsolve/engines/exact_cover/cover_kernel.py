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


@njit(cache=True, inline="always")
def least_counts_met(left: Array, least: Array, most: Array) -> bool:
    """Whether every piece is placed at least its least number of times (`left` copies of `most`
    not placed): what makes a full board a solution, in every search's kernel."""
    for piece in range(least.shape[0]):  # noqa: SIM110 (numba compiles loops, not generators)
        if most[piece] - left[piece] < least[piece]:
            return False
    return True


@njit(cache=True)
def _enough(left: Array, least: Array, most: Array, group_left: Array, group_spare: Array) -> bool:
    """Whether the pieces placed meet every piece's and group's least number."""
    if not least_counts_met(left, least, most):
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


@njit(cache=True, inline="always")
def _ones(word: Any) -> int:
    """The set bits of a word."""
    ones = 0
    while word != ZERO:
        word &= word - ONE
        ones += 1
    return ones


# what `tally` holds: the open cells that must be filled, the open optional cells, the cells the
# copies left could fill, and those the copies still needed to reach every least count fill
MUST, OPEN_OPTIONAL, ROOM, NEED = 0, 1, 2, 3


@njit(cache=True)
def _tally(
    board: Array, target: Array, optional: Array, least: Array, most: Array, left: Array, volume: Array
) -> Array:
    """`tally` for a level's board and the copies left."""
    tally = np.zeros(4, np.int64)
    for word in range(board.shape[0]):
        tally[MUST] += _ones(target[word] & ~optional[word] & ~board[word])
        tally[OPEN_OPTIONAL] += _ones(optional[word] & ~board[word])
    tally[ROOM], tally[NEED] = room_and_need(left, least, most, volume)
    return tally


@njit(cache=True)
def room_and_need(left: Array, least: Array, most: Array, volume: Array) -> tuple[int, int]:
    """The cells the copies left could fill at most, and those the copies still needed to reach
    every piece's least count fill (`tally`'s ROOM and NEED; the fewest-placements kernel's too)."""
    room = 0
    need = 0
    for piece in range(left.shape[0]):
        room += left[piece] * volume[piece]
        need += max(0, least[piece] - (most[piece] - left[piece])) * volume[piece]
    return room, need


@njit(cache=True, inline="always")
def hopeless(tally: Array, holes: int, max_holes: int) -> bool:
    """Whether no solution lies below: the copies left cannot fill the open cells that must be
    filled, the copies that must still come do not fit, or they leave more optional cells empty
    than allowed."""
    must, open_optional, room = int(tally[MUST]), int(tally[OPEN_OPTIONAL]), int(tally[ROOM])
    return room < must or tally[NEED] > must + open_optional or holes + open_optional + must - room > max_holes


@njit(cache=True, inline="always")
def recount(
    piece: int, on_must: int, sign: int, tally: Array, volume: Array, least: Array, most: Array, left: Array
) -> None:
    """`tally` after placing a copy of a piece that covers `on_must` cells that must be filled
    (`sign` 1, before its copy is taken) or taking it back (-1, after its copy is returned)."""
    size = volume[piece]
    tally[MUST] -= sign * on_must
    tally[OPEN_OPTIONAL] -= sign * (size - on_must)
    tally[ROOM] -= sign * size
    if most[piece] - left[piece] < least[piece]:
        tally[NEED] -= sign * size


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
    atom_must: Array,
    volume: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    Returns when the tree is exhausted (depth -1), when `found` is full, or after `step_budget`
    placements. Candidates for cell c are `candidates[starts[c]:starts[c + 1]]`. A solution is
    written as the atoms placed, `found_length` of them. `group_spare[g]` is how much of group g's
    allowance may remain unused (its most minus its least): `group_left` may not end above it.

    Where the target has optional cells, a level backs up at once when the copies left cannot
    fill the open cells that must be filled, the copies that must still come do not fit, or they
    would leave more optional cells empty than `max_holes` (`atom_must[a]`: atom a's cells that
    must be filled; `volume[p]`: piece p's cells).
    """
    words = masks.shape[1]
    prune = False
    for word in range(words):
        prune = prune or optional[word] != ZERO
    tally = _tally(boards[depth], target, optional, least, most, left, volume) if prune else np.zeros(4, np.int64)
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
                        if prune:
                            recount(atom_piece[chosen[depth]], atom_must[chosen[depth]], -1, tally, volume, least,
                                    most, left)  # fmt: skip
                    else:
                        holes[0] -= 1
                        tally[OPEN_OPTIONAL] += 1
                if count == found.shape[0]:
                    return depth, count, steps
                continue
            cells[depth] = cell
            positions[depth] = starts[cell]
            if prune and hopeless(tally, holes[0], max_holes):
                positions[depth] = starts[cell + 1] + 1  # nothing to try here, not even a hole
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
            if prune:
                recount(atom_piece[atom], atom_must[atom], 1, tally, volume, least, most, left)
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
            tally[OPEN_OPTIONAL] -= 1
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
                if prune:
                    recount(atom_piece[chosen[depth]], atom_must[chosen[depth]], -1, tally, volume, least, most, left)
            else:
                holes[0] -= 1
                tally[OPEN_OPTIONAL] += 1
    return depth, count, steps
