"""The compiled search on a box of at most 128 cells (numba); imported only when numba is installed.

The board is two 64-bit words: bit i is the cell at box-linear position i of the target's
bounding box (the shortest side fastest), so a neighbour in direction d is bit i + stride[d]
and "which open cells have an open neighbour that way" is one shift and one mask for the whole
board. Cells outside the target are never open. For boxes of up to 64 cells the function is
compiled a second time without the high word (the length of `words` is known when compiling):
the Bedlam and Tetris cubes' searches take 13-14 % less time that way (benchmarks/exact_cover_search.py).

Which cell to fill next (`choose`): 0 takes the lowest open cell (right in 2-D: the row being
filled stays short); K > 0 takes, among the first K open cells with the fewest open neighbours
(counted for all cells at once by bit-sliced addition of the shifted boards), the one with the
fewest placements that fit. Measured on the Bedlam cube: 280 million placements with K = 1,
68 million with K = 8 (benchmarks/exact_cover_search.py). EVERY_OPEN_CELL compares every open
cell (fewest open neighbours first, each count stopped once it reaches the best so far) and then
the pieces every solution uses exactly once, branching on the piece with fewer placements that
fit than the best cell has (dancing links' choice of column, recounted instead of kept): on
spheres, where the box's six directions are half a ball's twelve neighbours, it cut the Kanoodle
pyramid from 2.1 million placements to 0.31 million and its search from 0.31 to 0.20 s (the
run's breaking); on the Bedlam cube it made 10 % fewer placements at 1.75 times the time, so
cubes keep K = 8.

Placements are listed by (cell, which of its neighbours are open, piece): only placements that
leave the cell's closed neighbours alone are looked at, and only for pieces that are left, a
piece set being one 64-bit word. The fitting placements of the chosen cell are kept per depth,
so each is tried without looking again. A cell that may stay empty (optional) has one choice more
while fewer than `max_holes` are empty: leaving it so, a hole, listed after its placements as -1
and counted with them when cells are compared. Solutions are written without their holes.

Where every piece comes at most once, what is left to search below a node is fixed by its board and
the pieces left (the holes made are the cells filled less the pieces' cells), so a board searched
before without a solution need not be searched again: `dead_ends` (two rows for each hash, the newer
first; a board in neither is searched as if new) keeps such boards while the part is searched.
Filling the lowest cell on a flat board meets the same board again and again (two pieces that fill
a region in two ways, the pieces beyond it the same): Kanoodle's 5x11 board from empty took 39.0
million placements without it and 6.1 million with 2^17 rows, 1.77-1.79 against 0.41-0.47 s;
pentominoes 6x10 1.92 against 1.20 million (benchmarks/exact_cover_search.py). In 3-D, filling
the cell with fewest open neighbours, boards come back too seldom to pay (the Bedlam cube 5 %
fewer placements, 7 % more time), so there the caller gives no rows.

One function does it all, in one piece: as a separate function (even inlined by numba) the
choice of the cell made the whole search 1.5 times slower (Bedlam 15.6 s against 10.2 s).
It enumerates, or with `probes` > 0 follows that many random paths down the tree and adds up
Knuth's estimate of its size; with a step budget of 0 it only lists the root's choices. Its whole
state lives in arrays the caller owns, so a call places at most a given number of pieces and
returns, and the next call resumes: the caller checks the clock and Ctrl-C in between.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .bits import BOX_BITS, DE_BRUIJN, ONE, SHIFT, ZERO
from .cover_kernel import OPEN_OPTIONAL, _tally, hopeless, least_counts_met, recount, write_found

Array = Any
Tables = tuple[Any, ...]  # see `search`
State = tuple[Any, ...]

NO_BEST: Any = np.int64(1 << 30)  # a numpy scalar: the ahead-of-time compiler types a plain int as a literal
DEAD_END_TAG: Any = np.uint64(1 << 63)  # set in every kept dead end, so that an empty row (zeros) is none


@njit(cache=True, inline="always")
def _lowest(word: Any, bit_of: Array) -> int:
    return int(bit_of[((word & (~word + ONE)) * DE_BRUIJN) >> SHIFT])


@njit(cache=True, inline="always")
def _shifted(low: Any, high: Any, stride: int) -> tuple[Any, Any]:
    """The 128-bit board (low, high) moved so that bit i receives bit i + stride (|stride| < 128)."""
    if stride >= 64:
        return high >> np.uint64(stride - 64), ZERO
    if stride > 0:
        return (low >> np.uint64(stride)) | (high << np.uint64(64 - stride)), high >> np.uint64(stride)
    if stride <= -64:
        return ZERO, low << np.uint64(-stride - 64)
    back = -stride
    return low << np.uint64(back), (high << np.uint64(back)) | (low >> np.uint64(64 - back))


@njit(cache=True, inline="always")
def _dead_end_slot(low: Any, high: Any, available: Any, dead_ends: Array) -> int:
    """The first of the two rows of `dead_ends` where the board (low, high) with `available`
    pieces left is kept."""
    mixed = (low * np.uint64(0x9E3779B97F4A7C15)) ^ (high * np.uint64(0xC2B2AE3D27D4EB4F))
    mixed ^= available * np.uint64(0x165667B19E3779F9)
    mixed ^= mixed >> np.uint64(29)
    return int(mixed & np.uint64(dead_ends.shape[0] - 2))


@njit(cache=True, inline="always")
def _known_dead_end(low: Any, high: Any, tag: Any, dead_ends: Array, kept_at: int) -> bool:
    for kept in range(kept_at, kept_at + 2):
        if dead_ends[kept, 0] == low and dead_ends[kept, 1] == high and dead_ends[kept, 2] == tag:
            return True
    return False


@njit(cache=True, inline="always")
def _island(low: Any, high: Any, islands: Array, slot: int, available: Any, bit_of: Array) -> bool:
    """Whether a cell of the board (low, high) is one no piece left can fill: `islands[cell, slot]`
    has the pieces that can (box_search.BoxSearch.islands)."""
    while low != ZERO:
        if available & islands[_lowest(low, bit_of), slot] == ZERO:
            return True
        low &= low - ONE
    while high != ZERO:
        if available & islands[64 + _lowest(high, bit_of), slot] == ZERO:
            return True
        high &= high - ONE
    return False


@njit(cache=True)
def search(
    tables: Tables,
    work: State,
    depth: int,
    step_budget: int,
    probes: int,
    found: Array,
    found_length: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    `tables`: words (a tuple whose length is the words the board needs), target and optional
    (two words each), max_holes and a tuple as long as it is positive (known when compiling),
    strides and valid (directions x 2 words) of the layout, choose,
    mask_low and mask_high and atom_piece per placement, offsets / nonempty / entries of the
    lists (box_search.Tables), least and most per piece, bit_of, islands (the pieces that can fill a
    cell apart: BoxSearch.islands), and for EVERY_OPEN_CELL each
    piece's placements and the pieces used exactly once (BoxSearch.piece_lists). `work` per depth d: boards[d],
    fits[d, slots[d]] the placements that fit the cell (or piece) chosen there (fit_count[d] of them, -1: not
    chosen yet), positions[d] the next to try, chosen[d] the one made (-1: cell_at[d] left
    empty); left[p] counts piece p's copies not placed and pieces_left[0] has bit p set while
    some are; holes[0] counts the cells left empty; dead_ends (rows of low, high, pieces left
    with DEAD_END_TAG; none: no rows) the boards known to lead to no solution, found_before[d]
    the solutions found before depth d's board was reached and found_total[0] all so far.

    Returns when the tree is exhausted (depth -1), `found` is full, or after `step_budget`
    placements. With `probes` > 0 it instead follows that many random paths from depth 0 and
    adds Knuth's estimate of the number of placements to estimate[0] (divide by `probes`); the
    caller may set the root's list (fits[0, 0], fit_count[0]) to choose the first step from.
    The paths start from the root's choices in turn (stratified: the spread between the root's
    subtrees adds nothing to the estimate's), then go down at random.
    """
    (
        words,
        target,
        optional,
        max_holes,
        with_holes_flag,
        strides,
        valid,
        choose,
        mask_low,
        mask_high,
        atom_piece,
        offsets,
        nonempty,
        entries,
        least,
        most,
        bit_of,
        islands,
        piece_start,
        piece_atoms,
        once,
        every_cell_flag,
        atom_must,
        volume,
    ) = tables
    every_cell = len(every_cell_flag) == 1  # known when compiling: chosen at run time it cost cubes 1-4 %
    (left, pieces_left, boards, fits, fit_count, slots, positions, chosen, toward, candidates, estimate) = work[:11]
    cell_at, holes, dead_ends, found_before, found_total = work[11:]
    remember = dead_ends.shape[0] > 0 and probes == 0
    two_words = len(words) == 2  # known when compiling: one-word boards skip the high word's work
    with_holes = len(with_holes_flag) == 1  # so is this: searches that leave no cell empty skip the holes' work
    pieces = least.shape[0]
    directions = strides.shape[0]
    lists = np.int64(1) << directions
    available = pieces_left[0]
    random = np.uint64(estimate[1]) | ONE
    # what the copies left can fill against what must be (cover_kernel.hopeless), where cells may stay empty
    tally = (
        _tally(boards[max(depth, 0)], target, optional, least, most, left, volume)
        if with_holes
        else np.zeros(4, np.int64)
    )
    weight = 1.0
    probes_done = 0
    solutions = 0
    steps = 0
    while depth >= 0:
        if fit_count[depth] < 0 and with_holes and hopeless(tally, holes[0], max_holes):
            fit_count[depth] = 0  # no solution below: back at once
            positions[depth] = 0
        if fit_count[depth] < 0:
            # choose the cell to fill and list the placements that fit it
            low = boards[depth, 0]
            high = boards[depth, 1] if two_words else ZERO
            if remember:
                found_before[depth] = found_total[0]
                kept_at = _dead_end_slot(low, high, available, dead_ends)
                if _known_dead_end(low, high, available | DEAD_END_TAG, dead_ends, kept_at):
                    fit_count[depth] = 0  # searched before, with no solution: back at once
                    positions[depth] = 0
                    continue
            open_low = target[0] & ~low
            open_high = target[1] & ~high if two_words else ZERO
            best = -1
            slot = 0
            best_cell = 0
            may_hole = with_holes and holes[0] < max_holes
            if open_low != ZERO or open_high != ZERO:
                ones_low = ZERO
                ones_high = ZERO
                twos_low = ZERO
                twos_high = ZERO
                fours_low = ZERO
                fours_high = ZERO
                for d in range(directions):
                    near_low, near_high = _shifted(open_low, open_high, strides[d])
                    near_low &= valid[d, 0]
                    near_high = near_high & valid[d, 1] if two_words else ZERO
                    toward[d, 0] = near_low
                    toward[d, 1] = near_high
                    carry_low = ones_low & near_low
                    ones_low ^= near_low
                    fours_low |= twos_low & carry_low
                    twos_low ^= carry_low
                    carry_high = ones_high & near_high
                    ones_high ^= near_high
                    fours_high |= twos_high & carry_high
                    twos_high ^= carry_high
                cells = 0
                dead = False
                if choose == 0:
                    candidates[0] = _lowest(open_low, bit_of) if open_low != ZERO else 64 + _lowest(open_high, bit_of)
                    cells = 1
                    # a cell or two apart from the other open cells (no open neighbour, or two cells
                    # each other's only one) that no piece left can fill: nothing to search here
                    keep_low = ~optional[0] if may_hole else ~ZERO  # an optional cell may stay so
                    keep_high = ~optional[1] if may_hole else ~ZERO
                    apart_low = open_low & ~(ones_low | twos_low | fours_low) & keep_low
                    apart_high = open_high & ~(ones_high | twos_high | fours_high) & keep_high if two_words else ZERO
                    dead = _island(apart_low, apart_high, islands, 0, available, bit_of)
                    one_low = open_low & ones_low & ~twos_low & ~fours_low
                    one_high = open_high & ones_high & ~twos_high & ~fours_high if two_words else ZERO
                    for d in range(directions):
                        if dead or (one_low == ZERO and one_high == ZERO):
                            break
                        far_low, far_high = _shifted(one_low, one_high, strides[d])
                        apart_low = one_low & far_low & valid[d, 0] & keep_low
                        apart_high = one_high & far_high & valid[d, 1] & keep_high if two_words else ZERO
                        dead = _island(apart_low, apart_high, islands, 1 + d, available, bit_of)
                    if dead:
                        cells = 0
                else:
                    for level in range(7):  # open neighbours = ones + 2 twos + 4 fours
                        pick_low = open_low & (ones_low if level & 1 else ~ones_low)
                        pick_low &= twos_low if level & 2 else ~twos_low
                        pick_low &= fours_low if level & 4 else ~fours_low
                        pick_high = open_high & (ones_high if level & 1 else ~ones_high)
                        pick_high &= twos_high if level & 2 else ~twos_high
                        pick_high &= fours_high if level & 4 else ~fours_high
                        if pick_low == ZERO and pick_high == ZERO:
                            continue
                        while pick_low != ZERO and cells < choose:
                            candidates[cells] = _lowest(pick_low, bit_of)
                            cells += 1
                            pick_low &= pick_low - ONE
                        while pick_high != ZERO and cells < choose:
                            candidates[cells] = 64 + _lowest(pick_high, bit_of)
                            cells += 1
                            pick_high &= pick_high - ONE
                        if not every_cell:
                            break
                best = 0 if dead else NO_BEST
                for i in range(cells):
                    cell = candidates[i]
                    word = cell >> 6
                    bit = np.uint64(cell & 63)
                    open_near = 0
                    for d in range(directions):
                        open_near |= int((toward[d, word] >> bit) & ONE) << d
                    key = cell * lists + open_near
                    row = 1 - slot if best < NO_BEST else slot
                    hole = 1 if may_hole and (optional[word] >> bit) & ONE else 0
                    fit = 0
                    pieces_to_try = available & nonempty[key]
                    while pieces_to_try != ZERO:
                        group = key * pieces + _lowest(pieces_to_try, bit_of)
                        pieces_to_try &= pieces_to_try - ONE
                        if cells == 1:  # nothing to compare with: every placement of the cell is listed
                            for j in range(offsets[group], offsets[group + 1]):
                                atom = entries[j]
                                fits[depth, row, fit] = atom
                                fit += ((mask_low[atom] & low) | (mask_high[atom] & high)) == ZERO
                        else:  # a count stops once it is no better than the best cell's
                            for j in range(offsets[group], offsets[group + 1]):
                                atom = entries[j]
                                fits[depth, row, fit] = atom
                                fit += ((mask_low[atom] & low) | (mask_high[atom] & high)) == ZERO
                                if fit + hole >= best:
                                    break
                        if fit + hole >= best:
                            break
                    if fit + hole < best:
                        if hole:
                            fits[depth, row, fit] = -1
                        slot = row
                        best = fit + hole
                        best_cell = cell
                        if best <= 1:
                            break
                if every_cell and best > 1:
                    to_check = available & once[0]
                    while to_check != ZERO:
                        piece = _lowest(to_check, bit_of)
                        to_check &= to_check - ONE
                        row = 1 - slot
                        fit = 0
                        for j in range(piece_start[piece], piece_start[piece + 1]):
                            atom = piece_atoms[j]
                            fits[depth, row, fit] = atom
                            fit += ((mask_low[atom] & low) | (mask_high[atom] & high)) == ZERO
                            if fit >= best:
                                break
                        if fit < best:
                            slot = row
                            best = fit
                            best_cell = -1
                            if best <= 1:
                                break
            fit_count[depth] = best
            slots[depth] = slot
            cell_at[depth] = best_cell
            positions[depth] = 0
            if best < 0:  # the board is full
                fit_count[depth] = 0
                if probes == 0 and least_counts_met(left, least, most):
                    write_found(found, found_length, solutions, chosen, depth)
                    solutions += 1
                    found_total[0] += 1
        if probes > 0:
            if fit_count[depth] > 0:  # one random step down (from the root, each choice in turn)
                weight *= fit_count[depth]
                estimate[0] += weight
                random ^= random << np.uint64(13)
                random ^= random >> np.uint64(7)
                random ^= random << np.uint64(17)
                step = probes_done if depth == 0 else int(random % np.uint64(fit_count[depth]))
                positions[depth] = step % fit_count[depth]
            else:  # the path ends: back to the root (whose list is kept) for the next
                probes_done += 1
                while depth > 0:
                    depth -= 1
                    if with_holes and chosen[depth] < 0:
                        holes[0] -= 1
                        tally[OPEN_OPTIONAL] += 1
                        continue
                    piece = atom_piece[chosen[depth]]
                    left[piece] += 1
                    available |= ONE << np.uint64(piece)
                    if with_holes:
                        recount(piece, atom_must[chosen[depth]], -1, tally, volume, least, most, left)
                weight = 1.0
                if probes_done == probes:
                    break
                continue
        if positions[depth] < fit_count[depth]:
            if steps >= step_budget:
                break
            atom = fits[depth, slots[depth], positions[depth]]
            positions[depth] = fit_count[depth] if probes > 0 else positions[depth] + 1
            steps += 1
            chosen[depth] = atom
            if with_holes and atom < 0:  # the cell stays empty
                holes[0] += 1
                tally[OPEN_OPTIONAL] -= 1
                cell = cell_at[depth]
                boards[depth + 1, 0] = boards[depth, 0]
                if two_words:
                    boards[depth + 1, 1] = boards[depth, 1]
                boards[depth + 1, cell >> 6] |= ONE << np.uint64(cell & 63)
            else:
                piece = atom_piece[atom]
                if with_holes:
                    recount(piece, atom_must[atom], 1, tally, volume, least, most, left)
                left[piece] -= 1
                if left[piece] == 0:
                    available &= ~(ONE << np.uint64(piece))
                boards[depth + 1, 0] = boards[depth, 0] | mask_low[atom]
                if two_words:
                    boards[depth + 1, 1] = boards[depth, 1] | mask_high[atom]
            depth += 1
            fit_count[depth] = -1
            continue
        if remember and fit_count[depth] > 0 and found_before[depth] == found_total[0]:
            # no solution below this board: keep it (in the newer of its two rows) for the next time
            low = boards[depth, 0]
            high = boards[depth, 1] if two_words else ZERO
            kept_at = _dead_end_slot(low, high, available, dead_ends)
            for word in range(3):
                dead_ends[kept_at + 1, word] = dead_ends[kept_at, word]
            dead_ends[kept_at, 0] = low
            dead_ends[kept_at, 1] = high
            dead_ends[kept_at, 2] = available | DEAD_END_TAG
        depth -= 1
        if depth >= 0:
            if with_holes and chosen[depth] < 0:
                holes[0] -= 1
                tally[OPEN_OPTIONAL] += 1
            else:
                piece = atom_piece[chosen[depth]]
                left[piece] += 1
                available |= ONE << np.uint64(piece)
                if with_holes:
                    recount(piece, atom_must[chosen[depth]], -1, tally, volume, least, most, left)
        if solutions == found.shape[0]:
            break
    pieces_left[0] = available
    estimate[1] = float(random >> np.uint64(11))
    return depth, solutions, steps


@njit(cache=True)
def placement_lists(
    cells: Array,
    atoms: Array,
    near: Array,
    free: Array,
    atom_piece: Array,
    subsets: Array,
    subsets_start: Array,
    set_size: Array,
    lists: int,
    pieces: int,
) -> tuple[Array, Array]:
    """The search's placement lists (box_search.BoxSearch.of): for each (placement, cell) pair, an
    entry for every set of open neighbours that holds the neighbours it covers (`near`) and any of
    the others (`free`, its subsets listed from `subsets_start` in `subsets`), keyed (cell x lists
    + open neighbours) x pieces + piece; the keys sorted and the placement of each entry, entries
    of one key in the order made. A counting sort in two passes over the pairs, the entries never
    made as arrays: the array operations made five arrays the size of the lists and sorted them
    by radix (a 4x4x4 design candidate's: 5.6 of its 26 ms)."""
    key_count = 1
    for pair in range(len(cells)):
        key_count = max(key_count, (cells[pair] + 1) * lists * pieces)
    starts = np.zeros(key_count + 1, np.int64)
    for pair in range(len(cells)):
        base = cells[pair] * lists
        piece = atom_piece[atoms[pair]]
        first = subsets_start[free[pair]]
        for within in range(1 << set_size[free[pair]]):
            starts[(base + (near[pair] | subsets[first + within])) * pieces + piece + 1] += 1
    for key in range(key_count):
        starts[key + 1] += starts[key]
    keys = np.empty(starts[key_count], np.int64)
    placed = np.empty(starts[key_count], np.int64)
    for pair in range(len(cells)):
        base = cells[pair] * lists
        piece = atom_piece[atoms[pair]]
        first = subsets_start[free[pair]]
        for within in range(1 << set_size[free[pair]]):
            key = (base + (near[pair] | subsets[first + within])) * pieces + piece
            at = starts[key]
            starts[key] = at + 1
            keys[at] = key
            placed[at] = atoms[pair]
    return keys, placed


@njit(cache=True)
def neighbourhood(cells: Array, atoms: Array, mask_words: Array, valid: Array, strides: Array) -> tuple[Array, Array]:
    """For each (placement, cell) pair, the directions in which the cell has a neighbour in the
    target (`reach`, bit d: direction d) and those in which the placement covers that neighbour
    too (`near`): box_search._neighbourhood's array operations, a pair at a time (they made a
    dozen arrays the size of the pairs, 1.6 ms of a 4x4x4 design candidate's tables)."""
    near = np.zeros(len(cells), np.int64)
    reach = np.zeros(len(cells), np.int64)
    for pair in range(len(cells)):
        cell = cells[pair]
        for direction in range(len(strides)):
            if (valid[direction, cell >> 6] >> np.uint64(cell & 63)) & ONE:
                reach[pair] |= 1 << direction
                neighbour = min(max(cell + strides[direction], 0), BOX_BITS - 1)
                if (mask_words[atoms[pair], neighbour >> 6] >> np.uint64(neighbour & 63)) & ONE:
                    near[pair] |= 1 << direction
    return near, reach
